"""Entry point: ``python -m bench.run`` (or ``.venv/bin/python bench/run.py``) from the repo root.

Runs Playwright MCP, Chrome DevTools MCP and tabmcp (on its extension driver, and on its CDP driver:
``tabmcp-cdp``) one after another against the same local pages, prints the tables, and writes
docs/benchmarks.md: the whole file when the peers and tabmcp ran, only its section on the two drivers
(``<!-- bench:drivers -->``) when both drivers ran without the peers. Progress goes to stderr, the tables to stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` and the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import doc_sections
from bench.adapters import ALL, DRIVERS, PEERS
from bench.cases import Clicks, PageSnap, Result, measure
from bench.coverage import page_controls
from bench.opens import Opens, pooled
from bench.report import (
    REPO,
    LoadWatch,
    coverage_misses,
    document,
    driver_pair,
    drivers_section,
    drivers_table,
    errors,
    ours_of,
    table,
    tool_states,
)
from bench.site import DOC_PAGE, BenchSite

DEFAULT_PEERS = Path(os.environ.get("TABMCP_BENCH_PEERS", Path.home() / ".cache" / "tabmcp-bench" / "peers"))


def log(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__)
    p.add_argument("--only", nargs="+", choices=list(ALL), default=list(ALL), help="servers to measure")
    p.add_argument("--clicks", type=int, default=30, help="timed clicks (default 30)")
    p.add_argument("--warmup", type=int, default=3, help="untimed clicks first (default 3)")
    p.add_argument("--repeat", type=int, default=3, help="snapshots per page for the time median (default 3)")
    p.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="measure every server this many times, alternating them (the order reversed every other round), "
        "and take the medians over all rounds: background load then hits each server alike (default 1)",
    )
    p.add_argument(
        "--opens",
        type=int,
        default=3,
        help="tabmcp: open_tab and navigate of each page this many times per round, each after a bare "
        "Playwright goto of the page, and as many calls of a page tool (default 3; 0 skips)",
    )
    p.add_argument("--peers-dir", type=Path, default=DEFAULT_PEERS, help="where bench/setup.sh installed the peers")
    p.add_argument(
        "--doc",
        type=Path,
        help="write the report here (default: docs/benchmarks.md after a full run, "
        "or its drivers section after a run of both drivers)",
    )
    p.add_argument("--no-doc", action="store_true", help="do not write the report")
    p.add_argument("--json", type=Path, help="also dump the raw figures as JSON here")
    p.add_argument("--server-log", type=Path, help="the servers' stderr (default: a temp file, shown on failure)")
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    return args


async def run(args: argparse.Namespace) -> list[Result]:
    results: list[Result] = []
    log_path = args.server_log or Path(tempfile.mkstemp(prefix="tabmcp-bench-", suffix=".log")[1])
    args.server_log_used = log_path
    with BenchSite() as site, log_path.open("w") as errlog:
        log(f"pages at {site.url('')}; server stderr → {log_path}")
        controls = None
        if any(k in args.only for k in DRIVERS):
            controls = await page_controls(site.doc_url(DOC_PAGE))
            log(f"{DOC_PAGE}: {len(controls)} visible links, buttons and fields (Playwright count)")
        keys = [k for k in ALL if k in args.only]
        rounds: dict[str, list[Result]] = {k: [] for k in keys}
        for number in range(args.rounds):
            if args.rounds > 1:
                log(f"round {number + 1} of {args.rounds}")
            for key in keys if number % 2 == 0 else keys[::-1]:
                adapter = ALL[key](args.peers_dir, errlog)
                rounds[key].append(
                    await measure(
                        adapter,
                        site,
                        clicks=args.clicks,
                        warmup=args.warmup,
                        repeat=args.repeat,
                        controls=controls if key in DRIVERS else None,
                        log=log,
                        opens=Opens() if key in DRIVERS else None,
                        opens_repeat=args.opens,
                    )
                )
        results = [merge(rounds[k]) for k in keys]
    return results


def merge(runs: list[Result]) -> Result:
    """One server's rounds as one result: every sample pooled, sizes, lists and coverage from the first
    round (they do not change between rounds), the first failure if any round failed."""
    first = runs[0]
    failed = next((r for r in runs if r.error), None)
    if len(runs) == 1 or failed:
        return failed or first
    clicks = [r.clicks for r in runs if r.clicks]
    return dataclasses.replace(
        first,
        clicks=Clicks(
            [ms for c in clicks for ms in c.samples_ms],
            first.clicks.warmup,
            all(c.verified for c in clicks),
            first.clicks.result_chars,
        )
        if first.clicks
        else None,
        page_tool=_pool_calls([r.page_tool for r in runs]),
        doc=_pool([r.doc for r in runs]),
        big=_pool([r.big for r in runs]),
        opens=pooled([r.opens for r in runs]),
    )


def _pool_calls(calls: list[Clicks | None]) -> Clicks | None:
    kept = [c for c in calls if c]
    if not kept:
        return None
    samples = [ms for c in kept for ms in c.samples_ms]
    return Clicks(samples, kept[0].warmup, all(c.verified for c in kept), kept[0].result_chars)


def _pool(snaps: list[PageSnap | None]) -> PageSnap | None:
    kept = [s for s in snaps if s]
    if not kept:
        return None
    return dataclasses.replace(
        kept[0],
        open_seconds=statistics.median(s.open_seconds for s in kept),
        seconds=[t for s in kept for t in s.seconds],
    )


def plain(value: Any) -> Any:
    """JSON-ready copy (``dataclasses.asdict`` mangles ``Counter`` fields); snapshot texts are left out."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name != "text"}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    with LoadWatch() as load:
        results = asyncio.run(run(args))
    clicks, repeat = args.clicks * args.rounds, args.repeat * args.rounds  # samples behind each median
    out = [table(results, clicks)]
    ours = ours_of(results)
    if ours and ours.tool_lists:
        out += ["", f"{ours.label} tools/list by state:", tool_states(ours)]
    if driver_pair(results):
        out += ["", "tabmcp's two drivers:", drivers_table(results, clicks, repeat)]
    if coverage_misses(results):
        out += ["", coverage_misses(results)]
    if errors(results):
        out += ["", "Failures:", errors(results), f"(the servers' stderr: {args.server_log_used})"]
    sys.stdout.write("\n".join(out) + "\n")
    if not args.server_log and not any(r.error for r in results):
        args.server_log_used.unlink(missing_ok=True)  # a temp file nobody needs when all went well
    if args.json:
        args.json.write_text(json.dumps(plain(results), indent=1))
    if not args.no_doc:
        write_doc(args, results, load)
    return 1 if any(r.error for r in results) else 0


def write_doc(args: argparse.Namespace, results: list[Result], load: LoadWatch) -> None:
    """A full run (peers and tabmcp) rewrites the document, carrying the other entry points' blocks over;
    a run of both drivers without the peers replaces only its own block, so the peers' figures stay."""
    full = {*PEERS, DRIVERS[0]} <= set(args.only)
    drivers_only = not full and driver_pair(results) is not None
    target = args.doc or (REPO / "docs" / "benchmarks.md" if full or drivers_only else None)
    if not target:
        return
    old = target.read_text() if target.exists() else ""
    if drivers_only:
        section = drivers_section(results, args.clicks, args.warmup, args.repeat, load, args.rounds)
        new = put_before_blocks(old, "drivers", section)
    else:  # the other entry points' sections (bench/doc_sections.py) stay
        new = doc_sections.carry(document(results, args.clicks, args.warmup, args.repeat, load, args.rounds), old)
    target.write_text(new)
    log(f"wrote {target}")


def put_before_blocks(text: str, key: str, body: str) -> str:
    """Block ``key`` replaced in place, or, when new, put right after the peers' part (before the other
    entry points' blocks) where a full run would write it, rather than at the end of the file."""
    first = doc_sections.BLOCK.search(text)
    if any(m.group("key") == key for m in doc_sections.BLOCK.finditer(text)) or not first:
        return doc_sections.put(text, key, body)
    return text[: first.start()] + doc_sections.block(key, body) + "\n" + text[first.start() :]


if __name__ == "__main__":
    sys.exit(main())
