"""One scripted task run on one server, measured: what ``bench.tasks`` (demo sites) and ``bench.app_tasks``
(real apps) share.

A run is a fresh server (and browser) over stdio, driven by the MCP Python SDK client; the script plays
the model through a ``Meter`` (bench/task_meter.py) and returns the answer it read from the page; a
check (the task's own) says what is wrong with it, if anything.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from bench.adapters import PeerMissing, PlaywrightMcp, Tabmcp
from bench.adapters.base import Adapter
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


async def run_once(
    key: str,
    task_key: str,
    play: Callable[[Meter], Awaitable[dict[str, Any]]],
    check: Callable[[dict[str, Any]], list[str]],
    peers: Path,
    errlog: IO[str],
    verbose: bool,
) -> Run:
    """``play`` the task on a fresh ``key`` server, then ``check`` the answer it returned."""
    run = Run(key, task_key)
    adapter = ADAPTERS[key](peers, errlog)
    errlog.write(f"\n===== {key} / {task_key}\n")
    errlog.flush()
    try:
        async with adapter.bare() as server:
            run.version = adapter.version()
            meter = Meter(server)
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
