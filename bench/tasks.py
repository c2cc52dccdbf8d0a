"""Entry point: ``python -m bench.tasks`` (or ``make bench-tasks``) from the repo root.

The same scripted tasks on the bundled demo sites, done by tabmcp with its page tools and by Playwright
MCP with its generic tools: tool calls, characters of context the model receives,
wall time, and whether the task really succeeded. Each run is a fresh server (and browser) over stdio,
driven by the MCP Python SDK client; ``--repeat`` runs of every task per server, interleaved, figures are
medians. Prints the tables; after a run of both servers over all tasks, writes the section "Page tools:
scripted tasks" of docs/benchmarks.md (the rest of the file is left alone).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

if __package__ in (None, ""):  # run as a script: make `bench` and the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import doc_sections, task_playwright, task_report, task_tabmcp
from bench.adapters import PeerMissing, PlaywrightMcp, Tabmcp
from bench.adapters.base import Adapter
from bench.report import REPO, LoadWatch
from bench.run import DEFAULT_PEERS
from bench.task_defs import TASKS
from bench.task_meter import Entry, Meter, TaskFailed
from tabmcp.demo.sites import SiteServer

SERVERS: dict[str, tuple[type[Adapter], dict[str, Any]]] = {
    "tabmcp": (Tabmcp, task_tabmcp.SCRIPTS),
    "playwright": (PlaywrightMcp, task_playwright.SCRIPTS),
}
DOC_KEY = "tasks"


@dataclass
class Run:
    server: str
    task: str
    ok: bool = False
    error: str = ""
    answer: dict[str, Any] = field(default_factory=dict)
    entries: list[Entry] = field(default_factory=list)
    seconds: float = 0.0
    seconds_on_page: float = 0.0
    version: str = ""


def log(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.tasks", description=__doc__)
    p.add_argument("--only", nargs="+", choices=list(SERVERS), default=list(SERVERS), help="servers to run")
    p.add_argument("--tasks", nargs="+", choices=list(TASKS), default=list(TASKS), help="tasks to run")
    p.add_argument("--repeat", type=int, default=3, help="runs of each task per server (default 3)")
    p.add_argument("--peers-dir", type=Path, default=DEFAULT_PEERS, help="where bench/setup.sh installed the peers")
    p.add_argument("--doc", type=Path, help="write the section here (default: docs/benchmarks.md after a full run)")
    p.add_argument("--no-doc", action="store_true", help="do not write the section")
    p.add_argument("--json", type=Path, help="also dump every run (entries, answers) as JSON here")
    p.add_argument("--server-log", type=Path, help="the servers' stderr (default: a temp file, kept on failure)")
    p.add_argument("--transcript", action="store_true", help="print every run's calls as they happen")
    return p.parse_args(argv)


async def run_once(key: str, task_key: str, site: SiteServer, peers: Path, errlog: IO[str], verbose: bool) -> Run:
    cls, scripts = SERVERS[key]
    task = TASKS[task_key]
    run = Run(key, task_key)
    adapter = cls(peers, errlog)
    errlog.write(f"\n===== {key} / {task_key}\n")
    errlog.flush()
    try:
        async with adapter.bare() as server:
            run.version = adapter.version()
            meter = Meter(server)
            try:
                await meter.begin()
                run.answer = await scripts[task_key](meter, site.url(task.page))
                await meter.finish()
                problems = task.check(run.answer)
                run.ok, run.error = not problems, "; ".join(problems)
            except (TaskFailed, LookupError, KeyError, ValueError, TypeError, TimeoutError) as e:
                run.error = f"{type(e).__name__}: {e}"
            finally:
                if not meter.ended:
                    await meter.finish()
                run.entries = meter.entries
                run.seconds, run.seconds_on_page = meter.seconds(), meter.seconds_on_page()
    except PeerMissing:
        raise
    except Exception as e:  # the server did not start or died: this run failed, the others go on
        run.error = f"{type(e).__name__}: {e}"
    if verbose:
        for e in run.entries:
            note = (" (set-up)" if e.setup else "") + ("" if e.counted else " (same list, not counted)")
            log(f"    {e.kind:10} {e.name:28} {e.chars:>7,} chars {e.seconds * 1000:8.0f} ms{note} {e.change}")
    return run


async def run_all(args: argparse.Namespace) -> list[Run]:
    runs: list[Run] = []
    log_path = args.server_log or Path(tempfile.mkstemp(prefix="tabmcp-bench-tasks-", suffix=".log")[1])
    args.server_log_used = log_path
    with SiteServer() as site, log_path.open("w") as errlog:
        log(f"demo sites at {site.base_url}; server stderr → {log_path}")
        for i in range(args.repeat):
            for task_key in args.tasks:
                for key in [k for k in SERVERS if k in args.only]:
                    run = await run_once(key, task_key, site, args.peers_dir, errlog, args.transcript)
                    calls = sum(1 for e in run.entries if e.kind == "call")
                    chars = sum(e.chars for e in run.entries if e.counted)
                    status = "ok" if run.ok else f"FAILED: {run.error[:300]}"
                    log(
                        f"[{i + 1}/{args.repeat}] {task_key:8} {key:10} {calls:3} calls {chars:>8,} chars "
                        f"{run.seconds:6.1f} s  {status}"
                    )
                    runs.append(run)
    return runs


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    with LoadWatch() as load:
        runs = asyncio.run(run_all(args))
    summary = task_report.summarise(runs)
    sys.stdout.write(task_report.tables(summary) + "\n")
    failed = [r for r in runs if not r.ok]
    if failed:
        sys.stdout.write(f"\n{len(failed)} run(s) failed; the servers' stderr: {args.server_log_used}\n")
    elif not args.server_log:
        args.server_log_used.unlink(missing_ok=True)
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in runs], indent=1, default=str))
    full = set(args.only) == set(SERVERS) and set(args.tasks) == set(TASKS)
    target = args.doc or (REPO / "docs" / "benchmarks.md" if full else None)
    if target and not args.no_doc:
        body = task_report.section(summary, args.repeat, load)
        old = target.read_text() if target.exists() else ""
        target.write_text(doc_sections.put(old, DOC_KEY, body))
        log(f"wrote the section into {target}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
