"""Entry point: ``python -m bench.run`` (or ``.venv/bin/python bench/run.py``) from the repo root.

Runs Playwright MCP, Chrome DevTools MCP and tabmcp one after another against the same local pages, prints
the table, and (when all three ran) writes docs/benchmarks.md. Progress goes to stderr, the table to stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` and the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import doc_sections
from bench.adapters import ALL
from bench.cases import Result, measure
from bench.coverage import page_controls
from bench.report import REPO, LoadWatch, coverage_misses, document, errors, table, tool_states
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
    p.add_argument("--peers-dir", type=Path, default=DEFAULT_PEERS, help="where bench/setup.sh installed the peers")
    p.add_argument("--doc", type=Path, help="write the report here (default: docs/benchmarks.md after a full run)")
    p.add_argument("--no-doc", action="store_true", help="do not write the report")
    p.add_argument("--json", type=Path, help="also dump the raw figures as JSON here")
    p.add_argument("--server-log", type=Path, help="the servers' stderr (default: a temp file, shown on failure)")
    return p.parse_args(argv)


async def run(args: argparse.Namespace) -> list[Result]:
    results: list[Result] = []
    log_path = args.server_log or Path(tempfile.mkstemp(prefix="tabmcp-bench-", suffix=".log")[1])
    args.server_log_used = log_path
    with BenchSite() as site, log_path.open("w") as errlog:
        log(f"pages at {site.url('')}; server stderr → {log_path}")
        controls = None
        if "tabmcp" in args.only:
            controls = await page_controls(site.doc_url(DOC_PAGE))
            log(f"{DOC_PAGE}: {len(controls)} visible links, buttons and fields (Playwright count)")
        for key in [k for k in ALL if k in args.only]:
            adapter = ALL[key](args.peers_dir, errlog)
            results.append(
                await measure(
                    adapter,
                    site,
                    clicks=args.clicks,
                    warmup=args.warmup,
                    repeat=args.repeat,
                    controls=controls if key == "tabmcp" else None,
                    log=log,
                )
            )
    return results


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
    out = [table(results, args.clicks)]
    ours = next((r for r in results if r.key == "tabmcp"), None)
    if ours and ours.tool_lists:
        out += ["", "tabmcp tools/list by state:", tool_states(ours)]
    if coverage_misses(results):
        out += ["", coverage_misses(results)]
    if errors(results):
        out += ["", "Failures:", errors(results), f"(the servers' stderr: {args.server_log_used})"]
    sys.stdout.write("\n".join(out) + "\n")
    if not args.server_log and not any(r.error for r in results):
        args.server_log_used.unlink(missing_ok=True)  # a temp file nobody needs when all went well
    if args.json:
        args.json.write_text(json.dumps(plain(results), indent=1))
    target = args.doc or (REPO / "docs" / "benchmarks.md" if set(args.only) == set(ALL) else None)
    if target and not args.no_doc:
        old = target.read_text() if target.exists() else ""  # issue 4's sections (bench/doc_sections.py) stay
        target.write_text(doc_sections.carry(document(results, args.clicks, args.warmup, args.repeat, load), old))
        log(f"wrote {target}")
    return 1 if any(r.error for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
