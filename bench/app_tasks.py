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
import asyncio
import json
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

if __package__ in (None, ""):  # run as a script: make `bench` and the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import app_task_playwright, app_task_report, app_task_tabmcp, doc_sections
from bench.app_task_defs import TASKS, AppTask
from bench.apps import load
from bench.apps.runner import Running, running
from bench.report import REPO, LoadWatch
from bench.task_meter import Meter
from bench.task_runner import Run, common_args, line, log, run_once

SERVERS: dict[str, dict[str, Any]] = {"tabmcp": app_task_tabmcp.SCRIPTS, "playwright": app_task_playwright.SCRIPTS}
DOC_KEY = "app-tasks"


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.app_tasks", description=__doc__)
    common_args(p, list(SERVERS), list(TASKS), 1)
    return p.parse_args(argv)


async def _run(key: str, task: AppTask, live: Running, args: argparse.Namespace, errlog: IO[str]) -> Run:
    """One task on one server, the app running; the app's state read after the script is in the answer."""
    script, url = SERVERS[key][task.key], live.url(task.path)
    state: dict[str, Any] = {}

    async def play(m: Meter) -> dict[str, Any]:
        return dict(await script(m, url))

    def check(answer: dict[str, Any]) -> list[str]:
        state.update(task.read_state(live))
        return task.check(answer, state)

    run = await run_once(key, task.key, play, check, args.peers_dir, errlog, args.transcript)
    run.answer = {**run.answer, "state": state}
    return run


async def run_all(args: argparse.Namespace) -> list[Run]:
    runs: list[Run] = []
    log_path = args.server_log or Path(tempfile.mkstemp(prefix="tabmcp-bench-apps-", suffix=".log")[1])
    args.server_log_used = log_path
    with log_path.open("w") as errlog:
        log(f"server stderr → {log_path}")
        for i in range(args.repeat):
            for task_key in args.tasks:
                task = TASKS[task_key]
                for key in [k for k in SERVERS if k in args.only]:
                    with running(load(task.app)) as live:  # fresh data for every run
                        run = await _run(key, task, live, args, errlog)
                    log(line(i, args.repeat, run))
                    runs.append(run)
    return runs


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    with LoadWatch() as load_watch:
        runs = asyncio.run(run_all(args))
    summary = app_task_report.summarise(runs)
    sys.stdout.write(app_task_report.tables(summary) + "\n")
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
        body = app_task_report.section(summary, args.repeat, load_watch)
        old = target.read_text() if target.exists() else ""
        target.write_text(doc_sections.put(old, DOC_KEY, body))
        log(f"wrote the section into {target}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
