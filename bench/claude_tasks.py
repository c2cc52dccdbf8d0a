"""Entry point: ``python -m bench.claude_tasks`` from the repo root.

The four scripted tasks of bench/tasks.py, done through the real Claude Code CLI (the pinned
``@anthropic-ai/claude-code``, tests/claude_code/cli.py) against a scripted Messages API on loopback: the
same task scripts play the model (bench/claude_model.py), Claude Code builds every request, runs the MCP
servers and defers their tools behind ToolSearch as it does for a user. Variants (claude_variants.py):
tabmcp dynamic with tool search on and off, static, four always_load settings, and Playwright MCP with
tool search on and off. Measured per task and variant: the model's turns, its tool calls, request
characters (and the tools array's share), a cache-aware input cost (claude_cost.py), wall time, how long
tabmcp held answers until Claude Code re-read its tool list, and whether each tool the script wanted was
offered in the first request that wanted it. Prints the tables; after a run of every variant over every
task, writes the block ``<!-- bench:claude -->`` of docs/benchmarks.md and its chart.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import tempfile
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` and the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.claude_code.cli import VERSION, run_claude
from tests.claude_code.messages_api import messages_api

from bench import claude_report, doc_sections, task_playwright, task_tabmcp
from bench.claude_cost import cost
from bench.claude_model import CallRecord, ModelMeter, ScriptedModel
from bench.claude_variants import PLANS, VARIANTS, Variant, holds
from bench.report import REPO, LoadWatch, tabmcp_version
from bench.run import DEFAULT_PEERS
from bench.task_defs import TASKS
from tabmcp.demo.sites import SiteServer

SCRIPTS = {"tabmcp": task_tabmcp.SCRIPTS, "playwright": task_playwright.SCRIPTS}
DOC_KEY = "claude"
REREAD_TIMEOUT = "did not re-read the tool list within"


@dataclass
class Run:
    variant: str
    task: str
    ok: bool = False
    error: str = ""
    answer: dict[str, Any] = field(default_factory=dict)
    turns: int = 0  # main-conversation requests
    tool_uses: int = 0  # every tool call the model made, ToolSearch included
    searches: int = 0  # ToolSearch calls
    script_calls: int = 0  # the task script's own calls
    request_chars: int = 0
    tools_chars: int = 0
    units: float = 0.0  # cache-aware input cost (claude_cost.py)
    uncached_units: float = 0.0
    read_units: float = 0.0  # the part of ``units`` read from the cache
    changed_requests: int = 0  # requests whose tools array differed from the previous request's
    changed_units: float = 0.0  # what those requests cost
    reordered_requests: int = 0  # of those, the ones with the same tools in another order
    fixed_tools_units: float = 0.0  # the same requests with the last request's tools array in every one
    first_units: float = 0.0  # the first request alone: Claude Code's own prompt and tools, before any call
    seconds: float = 0.0  # the claude process, start to exit
    holds_ms: list[int] = field(default_factory=list)
    reread_timeouts: int = 0
    side_queries: int = 0
    calls: list[CallRecord] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)  # per request: chars, cache split, tools

    @property
    def offered_at_once(self) -> tuple[int, int]:
        """Page tool calls whose tool was offered in the first request that wanted it (the request right
        after the call that brought the page), of all page tool calls."""
        page = [c for c in self.calls if c.page]
        return sum(c.offered_at_once for c in page), len(page)


def log(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.claude_tasks", description=__doc__)
    p.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS))
    p.add_argument("--tasks", nargs="+", choices=list(TASKS), default=list(TASKS))
    p.add_argument("--repeat", type=int, default=1, help="runs of each task per variant (counts are deterministic)")
    p.add_argument("--delay", type=float, default=1.0, help="seconds the scripted model takes per turn (default 1)")
    p.add_argument("--peers-dir", type=Path, default=DEFAULT_PEERS, help="where bench/setup.sh installed the peers")
    p.add_argument("--doc", type=Path, help="write the block here (default: docs/benchmarks.md after a full run)")
    p.add_argument("--no-doc", action="store_true", help="do not write the block or the chart")
    p.add_argument("--json", type=Path, help="also dump every run as JSON here")
    p.add_argument("--from-json", type=Path, help="no run: tables, block and chart from an earlier --json dump")
    p.add_argument("--logs", type=Path, help="keep the servers' stderr here, one file per run")
    p.add_argument("--transcript", action="store_true", help="print each run's requests")
    return p.parse_args(argv)


def run_once(
    variant: Variant, task_key: str, site: SiteServer, args: argparse.Namespace, logs: Path, attempt: int = 1
) -> Run:
    task = TASKS[task_key]
    run = Run(variant.key, task_key)
    server_log = logs / f"{variant.key}-{task_key}-{attempt}.log"
    server_log.write_text("")
    script = SCRIPTS[variant.server][task_key](ModelMeter(), site.url(task.page))  # type: ignore[arg-type]
    model = ScriptedModel(
        script,  # type: ignore[arg-type]
        prefix=variant.prefix,
        page_tool=variant.page_tool,
        static=variant.static,
        plan=PLANS[variant.server][task_key],
        fallback=variant.fallback,
    )
    with (
        tempfile.TemporaryDirectory(prefix="tabmcp-claude-bench-") as scratch,
        messages_api(model, delay=args.delay) as api,
    ):
        servers = variant.servers(server_log, Path(scratch), args.peers_dir)
        done = run_claude(
            api.url,
            servers,
            task.title,
            tool_search=variant.tool_search,
            allowed=(f"mcp__{variant.server}",),
        )
    run.seconds = done.seconds
    bodies = [t.body for t in api.turns]
    spent = cost(bodies)
    run.turns, run.side_queries = len(api.turns), len(api.side)
    run.tool_uses, run.searches = model.tool_uses, model.searches
    run.calls, run.script_calls = model.calls, len(model.calls)
    run.request_chars, run.tools_chars = spent.chars, spent.tools_chars
    run.units, run.uncached_units, run.read_units = spent.units, spent.uncached_units, spent.read_units
    run.changed_requests, run.changed_units = len(spent.changed), sum(r.units for r in spent.changed)
    run.reordered_requests = sum(r.tools_reordered for r in spent.requests)
    if bodies:
        run.first_units = spent.requests[0].units
        run.fixed_tools_units = cost({**b, "tools": bodies[-1].get("tools")} for b in bodies).units
    run.requests = [
        {
            "chars": r.chars,
            "tools_chars": r.tools_chars,
            "cached_chars": r.cached_chars,
            "new_chars": r.new_chars,
            "tools_changed": r.tools_changed,
            "tools_reordered": r.tools_reordered,
            "tools": len(t.tool_names),
            "deferred": len(t.deferred),
            "at": round(t.at - api.turns[0].at, 3),
        }
        for r, t in zip(spent.requests, api.turns, strict=True)
    ]
    server_text = server_log.read_text(errors="replace")
    run.holds_ms, run.reread_timeouts = holds(server_text), server_text.count(REREAD_TIMEOUT)
    problems = list(api.errors)
    if model.error:
        problems.append(model.error)
    elif not model.finished:
        problems.append(f"Claude Code ended before the script (exit {done.returncode}): {done.stderr[-800:]}")
    elif model.answer is not None:
        problems += task.check(model.answer)
        run.answer = model.answer
    run.ok, run.error = not problems, "; ".join(problems)
    if args.transcript:
        for i, r in enumerate(run.requests):
            log(f"    request {i:2} at {r['at']:6.2f} s: {r['chars']:>7,} chars (tools {r['tools_chars']:,}, "
                f"cached {r['cached_chars']:,}) {r['tools']} tools, {r['deferred']} deferred")  # fmt: skip
        for c in run.calls:
            log(f"    call {c.tool:24} turn {c.first_turn:2} offered {c.offered_at_once} searches {c.searches} "
                f"misses {c.misses} listings {c.listings} result {c.result_chars:,} chars")  # fmt: skip
    return run


def run_all(args: argparse.Namespace) -> list[Run]:
    runs: list[Run] = []
    with SiteServer() as site, tempfile.TemporaryDirectory(prefix="tabmcp-claude-logs-") as temp:
        logs = args.logs or Path(temp)
        logs.mkdir(parents=True, exist_ok=True)
        log(f"demo sites at {site.base_url}; servers' stderr in {logs}; Claude Code {VERSION}")
        for i in range(args.repeat):
            for task_key in args.tasks:
                for key in args.variants:
                    run = run_once(VARIANTS[key], task_key, site, args, logs, i + 1)
                    status = "ok" if run.ok else f"FAILED: {run.error[:400]}"
                    log(
                        f"[{i + 1}/{args.repeat}] {task_key:8} {key:20} {run.turns:3} turns {run.tool_uses:3} calls "
                        f"{run.request_chars:>9,} chars {run.units:>9,.0f} units {run.seconds:5.1f} s "
                        f"holds {run.holds_ms} {status}"
                    )
                    runs.append(run)
    return runs


def load_runs(path: Path) -> tuple[list[Run], dict[str, str]]:
    """The runs of a ``--json`` dump, and when and under what load they were measured."""
    known = {f.name for f in fields(Run)}
    dump = json.loads(path.read_text())
    keys = ("measured", "load", "tabmcp")
    meta = {k: str(dump.get(k, "?")) for k in keys} if isinstance(dump, dict) else dict.fromkeys(keys, "?")
    runs = []
    for d in dump["runs"] if isinstance(dump, dict) else dump:
        calls = [CallRecord(**c) for c in d.get("calls", [])]
        runs.append(Run(**{**{k: v for k, v in d.items() if k in known}, "calls": calls}))
    return runs, meta


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.from_json:
        runs, meta = load_runs(args.from_json)
        args.variants = list(dict.fromkeys(r.variant for r in runs))
        args.tasks = list(dict.fromkeys(r.task for r in runs))
        args.repeat = max(sum(1 for r in runs if (r.variant, r.task) == (runs[0].variant, runs[0].task)), 1)
    else:
        measured = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
        with LoadWatch() as watch:
            runs = run_all(args)
        meta = {"measured": measured, "load": watch.describe(), "tabmcp": tabmcp_version()}
    summary = claude_report.summarise(runs)
    sys.stdout.write(claude_report.tables(summary) + "\n")
    if args.json:
        dump = {**meta, "runs": [asdict(r) for r in runs]}
        args.json.write_text(json.dumps(dump, indent=1, default=str))
    full = set(args.variants) == set(VARIANTS) and set(args.tasks) == set(TASKS)
    target = args.doc or (REPO / "docs" / "benchmarks.md" if full else None)
    if target and not args.no_doc:
        chart = claude_report.write_chart(summary, target.parent / "benchmarks" / claude_report.CHART_NAME)
        body = claude_report.section(summary, args, meta, chart.relative_to(target.parent))
        old = target.read_text() if target.exists() else ""
        target.write_text(doc_sections.put(old, DOC_KEY, body))
        log(f"wrote the block into {target} and {chart}")
    return 1 if any(not r.ok for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
