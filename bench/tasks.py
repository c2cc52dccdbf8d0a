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
from dataclasses import asdict
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` and the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import doc_sections, task_playwright, task_report, task_tabmcp
from bench.report import REPO, LoadWatch
from bench.task_defs import TASKS
from bench.task_runner import Run, common_args, line, log, run_once
from tabmcp.demo.sites import SiteServer

SERVERS: dict[str, dict[str, Any]] = {"tabmcp": task_tabmcp.SCRIPTS, "playwright": task_playwright.SCRIPTS}
DOC_KEY = "tasks"
__all__ = ["Run", "main"]


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.tasks", description=__doc__)
    common_args(p, list(SERVERS), list(TASKS), 3)
    return p.parse_args(argv)


async def run_all(args: argparse.Namespace) -> list[Run]:
    runs: list[Run] = []
    log_path = args.server_log or Path(tempfile.mkstemp(prefix="tabmcp-bench-tasks-", suffix=".log")[1])
    args.server_log_used = log_path
    with SiteServer() as site, log_path.open("w") as errlog:
        log(f"demo sites at {site.base_url}; server stderr → {log_path}")
        for i in range(args.repeat):
            for task_key in args.tasks:
                for key in [k for k in SERVERS if k in args.only]:
                    script, url = SERVERS[key][task_key], site.url(TASKS[task_key].page)
                    run = await run_once(
                        key, task_key, lambda m, s=script, u=url: s(m, u), TASKS[task_key].check,
                        args.peers_dir, errlog, args.transcript,
                    )
                    log(line(i, args.repeat, run))
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
