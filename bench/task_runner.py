"""Scripted task runs on each server, measured: what ``bench.tasks`` (demo sites) and ``bench.app_tasks``
(real apps) share, from the options and the run loop to the tables printed and the section written.

A run is a fresh server (and browser) over stdio, driven by the MCP Python SDK client; the script plays
the model through a ``Meter`` (bench/task_meter.py) and returns the answer it read from the page; a
check (the task's own) says what is wrong with it, if anything.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol

from bench import doc_sections
from bench.adapters import PeerMissing, PlaywrightMcp, Tabmcp
from bench.adapters.base import Adapter
from bench.adapters.tabmcp_server import TabmcpStatic
from bench.report import REPO, LoadWatch
from bench.run import DEFAULT_PEERS
from bench.task_meter import Entry, Meter, TaskFailed

ADAPTERS: dict[str, type[Adapter]] = {"tabmcp": Tabmcp, "playwright": PlaywrightMcp}


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
    workarounds: list[str] = field(default_factory=list)  # generic tools a page tool should have spared


def log(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def common_args(p: argparse.ArgumentParser, servers: list[str], tasks: list[str], repeat: int) -> None:
    """The options every task bench takes."""
    p.add_argument("--only", nargs="+", choices=servers, default=servers, help="servers to run")
    p.add_argument("--tasks", nargs="+", choices=tasks, default=tasks, help="tasks to run")
    p.add_argument("--repeat", type=int, default=repeat, help=f"runs of each task per server (default {repeat})")
    p.add_argument("--peers-dir", type=Path, default=DEFAULT_PEERS, help="where bench/setup.sh installed the peers")
    p.add_argument("--doc", type=Path, help="write the section here (default: docs/benchmarks.md after a full run)")
    p.add_argument("--no-doc", action="store_true", help="do not write the section")
    p.add_argument("--json", type=Path, help="also dump every run (entries, answers) as JSON here")
    p.add_argument("--server-log", type=Path, help="the servers' stderr (default: a temp file, kept on failure)")
    p.add_argument("--transcript", action="store_true", help="print every run's calls as they happen")
    p.add_argument(
        "--tools", choices=["dynamic", "static"], default="dynamic",
        help="tabmcp's tool list (served with --tools): static tells the page tools in answers, run by call_page_tool",
    )


async def run_once(
    key: str,
    task_key: str,
    play: Callable[[Meter], Awaitable[dict[str, Any]]],
    check: Callable[[dict[str, Any]], list[str]],
    peers: Path,
    errlog: IO[str],
    verbose: bool,
    tools: str = "dynamic",
) -> Run:
    """``play`` the task on a fresh ``key`` server, then ``check`` the answer it returned. ``tools``:
    tabmcp's tool list (``static``: the script's page tools come from answers, run by call_page_tool)."""
    run = Run(key, task_key)
    static = key == "tabmcp" and tools == "static"
    adapter = TabmcpStatic(peers, errlog) if static else ADAPTERS[key](peers, errlog)
    errlog.write(f"\n===== {key} / {task_key}\n")
    errlog.flush()
    try:
        async with adapter.bare() as server:
            run.version = adapter.version()
            meter = Meter(server, static=static)
            try:
                await meter.begin()
                run.answer = await play(meter)
                await meter.finish()
                problems = check(run.answer)
                run.ok, run.error = not problems, "; ".join(problems)
            except (TaskFailed, LookupError, KeyError, ValueError, TypeError, TimeoutError) as e:
                run.error = f"{type(e).__name__}: {e}"
            finally:
                if not meter.ended:
                    await meter.finish()
                run.entries = meter.entries
                run.workarounds = meter.workarounds
                run.seconds, run.seconds_on_page = meter.seconds(), meter.seconds_on_page()
    except PeerMissing:
        raise
    except Exception as e:  # the server did not start or died: this run failed, the others go on
        run.error = f"{type(e).__name__}: {e}"
    if verbose:
        for e in run.entries:
            note = (" (set-up)" if e.setup else "") + ("" if e.counted else " (same list, not counted)")
            log(f"    {e.kind:10} {e.name:28} {e.chars:>7,} chars {e.seconds * 1000:8.0f} ms{note} {e.change}")
        for w in run.workarounds:
            log(f"    workaround: {w}")
    return run


def line(i: int, repeat: int, run: Run) -> str:
    """The progress line printed after each run."""
    calls = sum(1 for e in run.entries if e.kind == "call")
    chars = sum(e.chars for e in run.entries if e.counted)
    status = "ok" if run.ok else f"FAILED: {run.error[:300]}"
    more = f" ({len(run.workarounds)} workaround(s))" if run.workarounds else ""
    return (
        f"[{i + 1}/{repeat}] {run.task:10} {run.server:10} {calls:3} calls {chars:>8,} chars "
        f"{run.seconds:6.1f} s  {status}{more}"
    )


# One run of a task on a server: (server key, task key, the servers' stderr) -> the run, measured.
PlayOne = Callable[[str, str, IO[str]], Awaitable[Run]]


class Report(Protocol):
    """What a task bench's report module offers (bench/task_report.py, bench/app_task_report.py)."""

    def summarise(self, runs: list[Run]) -> Any: ...

    def tables(self, cells: Any) -> str: ...

    def section(self, cells: Any, repeat: int, load: LoadWatch) -> str: ...


@dataclass
class Bench:
    """One task bench: its servers' scripts, its tasks, its report and where its runs play."""

    prog: str
    description: str | None
    servers: dict[str, dict[str, Any]]  # server key -> task key -> script
    tasks: Mapping[str, Any]
    report: Report
    doc_key: str  # its section of docs/benchmarks.md
    repeat: int  # the default of --repeat
    log_name: str  # the servers' stderr goes to a temp file named after it
    # What every run needs, open for the whole bench: a note for the log line and the run of one task.
    stage: Callable[[argparse.Namespace], AbstractContextManager[tuple[str, PlayOne]]]


def parse(bench: Bench, argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog=bench.prog, description=bench.description)
    common_args(p, list(bench.servers), list(bench.tasks), bench.repeat)
    return p.parse_args(argv)


async def run_all(bench: Bench, args: argparse.Namespace) -> list[Run]:
    """Every task on every server asked for, ``--repeat`` times over, interleaved."""
    runs: list[Run] = []
    log_path = args.server_log or Path(tempfile.mkstemp(prefix=f"tabmcp-bench-{bench.log_name}-", suffix=".log")[1])
    args.server_log_used = log_path
    with bench.stage(args) as (note, play_one), log_path.open("w") as errlog:
        log(f"{note}tabmcp's tool list: {args.tools}; server stderr → {log_path}")
        for i in range(args.repeat):
            for task_key in args.tasks:
                for key in [k for k in bench.servers if k in args.only]:
                    run = await play_one(key, task_key, errlog)
                    log(line(i, args.repeat, run))
                    runs.append(run)
    return runs


def main(bench: Bench, argv: list[str] | None = None) -> int:
    """Runs the bench, prints its tables, and after a run of every server over every task writes its
    section of docs/benchmarks.md (or ``--doc``)."""
    args = parse(bench, argv)
    with LoadWatch() as load:
        runs = asyncio.run(run_all(bench, args))
    summary = bench.report.summarise(runs)
    if args.tools != "dynamic":
        sys.stdout.write(f"tabmcp served with --tools {args.tools}\n\n")
    sys.stdout.write(bench.report.tables(summary) + "\n")
    failed = [r for r in runs if not r.ok]
    if failed:
        sys.stdout.write(f"\n{len(failed)} run(s) failed; the servers' stderr: {args.server_log_used}\n")
    elif not args.server_log:
        args.server_log_used.unlink(missing_ok=True)
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in runs], indent=1, default=str))
    full = set(args.only) == set(bench.servers) and set(args.tasks) == set(bench.tasks)
    # the section is the default tool list's: another mode's run writes one only where --doc says
    target = args.doc or (REPO / "docs" / "benchmarks.md" if full and args.tools == "dynamic" else None)
    if target and not args.no_doc:
        body = bench.report.section(summary, args.repeat, load)
        old = target.read_text() if target.exists() else ""
        target.write_text(doc_sections.put(old, bench.doc_key, body))
        log(f"wrote the section into {target}")
    return 1 if failed else 0
