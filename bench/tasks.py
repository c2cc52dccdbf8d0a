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
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

if __package__ in (None, ""):  # run as a script: make `bench` and the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import task_playwright, task_report, task_runner, task_tabmcp
from bench.task_defs import TASKS
from bench.task_runner import Bench, PlayOne, Run, run_once
from tabmcp.demo.sites import SiteServer

SERVERS: dict[str, dict[str, Any]] = {"tabmcp": task_tabmcp.SCRIPTS, "playwright": task_playwright.SCRIPTS}
DOC_KEY = "tasks"
__all__ = ["Run", "main"]


@contextmanager
def _on_demo_sites(args: argparse.Namespace) -> Iterator[tuple[str, PlayOne]]:
    """The demo sites served for the whole bench; each run plays its task on its page there."""
    with SiteServer() as site:

        async def play_one(key: str, task_key: str, errlog: IO[str]) -> Run:
            script, url = SERVERS[key][task_key], site.url(TASKS[task_key].page)
            return await run_once(
                key, task_key, lambda m: script(m, url), TASKS[task_key].check,
                args.peers_dir, errlog, args.transcript, args.tools,
            )

        yield f"demo sites at {site.base_url}; ", play_one


BENCH = Bench(
    prog="python -m bench.tasks", description=__doc__, servers=SERVERS, tasks=TASKS, report=task_report,
    doc_key=DOC_KEY, repeat=3, log_name="tasks", stage=_on_demo_sites,
)


def main(argv: list[str] | None = None) -> int:
    return task_runner.main(BENCH, argv)


if __name__ == "__main__":
    sys.exit(main())
