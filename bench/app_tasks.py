"""Entry point: ``python -m bench.app_tasks`` (or ``make bench-apps``) from the repo root.

Scripted tasks on the real-app corpus (bench/apps: an admin, a data browser, a wiki, an issue tracker, a
webmail, a docs site, a CMS), done by tabmcp with the page tools it lists and by Playwright MCP with its
generic tools: tool calls, characters of context the model receives (results and every re-read tool
list), ``list_changed`` per call, workarounds, and whether each task was done, checked on the app's own
state. Every run starts the app on fresh data and a fresh server (and browser); ``--repeat`` runs of
every task per server, interleaved; figures are medians. Prints the tables; after a run of both servers
over all tasks, writes the section "Page tools on real apps" of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

if __package__ in (None, ""):  # run as a script: make `bench` and the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import app_task_playwright, app_task_report, app_task_tabmcp, task_runner
from bench.app_task_defs import TASKS, AppTask
from bench.apps import load
from bench.apps.runner import Running, running
from bench.task_meter import Meter
from bench.task_runner import Bench, PlayOne, Run, run_once

SERVERS: dict[str, dict[str, Any]] = {"tabmcp": app_task_tabmcp.SCRIPTS, "playwright": app_task_playwright.SCRIPTS}
DOC_KEY = "app-tasks"


async def _run(key: str, task: AppTask, live: Running, args: argparse.Namespace, errlog: IO[str]) -> Run:
    """One task on one server, the app running; the app's state read after the script is in the answer."""
    script, url = SERVERS[key][task.key], live.url(task.path)
    state: dict[str, Any] = {}

    async def play(m: Meter) -> dict[str, Any]:
        return dict(await script(m, url))

    def check(answer: dict[str, Any]) -> list[str]:
        state.update(task.read_state(live))
        return task.check(answer, state)

    run = await run_once(key, task.key, play, check, args.peers_dir, errlog, args.transcript, args.tools)
    run.answer = {**run.answer, "state": state}
    return run


@contextmanager
def _on_fresh_apps(args: argparse.Namespace) -> Iterator[tuple[str, PlayOne]]:
    """Nothing shared: each run starts its task's app on fresh data and stops it after."""

    async def play_one(key: str, task_key: str, errlog: IO[str]) -> Run:
        task = TASKS[task_key]
        with running(load(task.app)) as live:
            return await _run(key, task, live, args, errlog)

    yield "", play_one


BENCH = Bench(
    prog="python -m bench.app_tasks", description=__doc__, servers=SERVERS, tasks=TASKS, report=app_task_report,
    doc_key=DOC_KEY, repeat=1, log_name="apps", stage=_on_fresh_apps,
)


def main(argv: list[str] | None = None) -> int:
    return task_runner.main(BENCH, argv)


if __name__ == "__main__":
    sys.exit(main())
