"""bench/claude_tasks.py's tables, targets, chart and document block: pure functions of the runs."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from PIL import Image
from tests.claude_code.cli import VERSION as CLAUDE_VERSION

from bench.adapters.base import npm_version
from bench.charts import BACKGROUND, Bar, Chart, Group, render
from bench.claude_variants import ALWAYS_LOAD_KEYS, VARIANTS, key_of
from bench.report import machine
from bench.task_defs import TASKS

TARGET = 0.5  # tabmcp at most half of Playwright MCP's turns and cost, on every task
OURS, PEER = "tabmcp", "playwright"
SERIES = {"tabmcp": "tabmcp", "playwright": "Playwright MCP"}  # the charts' colours
COMPARED = ("tabmcp", "tabmcp-static", "load-page-connect")  # against Playwright MCP: the default, the cheapest
# what carrying snapshot/interact costs where unused, and what a ToolSearch turn for a needed tool costs
CARRY = (key_of(["page", "connect_browser", "snapshot", "interact"]), key_of(["page", "connect_browser"]))
SEARCH = (key_of(["page"]), key_of(["page", "connect_browser"]))
CHART_NAME = "claude-tasks.png"  # in docs/benchmarks/, next to the other charts


class RunLike(Protocol):
    variant: str
    task: str
    ok: bool
    error: str
    turns: int
    tool_uses: int
    searches: int
    script_calls: int
    request_chars: int
    tools_chars: int
    units: float
    uncached_units: float
    read_units: float
    changed_requests: int
    changed_units: float
    reordered_requests: int
    fixed_tools_units: float
    first_units: float
    seconds: float
    holds_ms: list[int]
    reread_timeouts: int

    @property
    def offered_at_once(self) -> tuple[int, int]: ...


@dataclass(frozen=True)
class Cell:
    """One task on one variant: medians over its runs (counts are the same run to run)."""

    runs: int
    ok: bool
    error: str
    turns: float
    tool_uses: float
    searches: float
    script_calls: float
    request_chars: float
    tools_chars: float
    units: float
    uncached_units: float
    read_units: float
    changed_requests: float
    changed_units: float
    reordered_requests: float
    fixed_tools_units: float
    first_units: float
    seconds: float
    holds_ms: tuple[int, ...]  # of the first run
    reread_timeouts: int
    offered: tuple[int, int]  # of the first run


Summary = dict[tuple[str, str], Cell]  # (task, variant) -> cell


def summarise(runs: Sequence[RunLike]) -> Summary:
    out: Summary = {}
    for task in TASKS:
        for variant in VARIANTS:
            mine = [r for r in runs if r.task == task and r.variant == variant]
            if not mine:
                continue
            good = [r for r in mine if r.ok] or mine

            def med(attr: str, rs: list[RunLike] = good) -> float:
                return float(statistics.median(getattr(r, attr) for r in rs))

            out[(task, variant)] = Cell(
                runs=len(mine),
                ok=all(r.ok for r in mine),
                error="; ".join(dict.fromkeys(r.error for r in mine if r.error)),
                turns=med("turns"),
                tool_uses=med("tool_uses"),
                searches=med("searches"),
                script_calls=med("script_calls"),
                request_chars=med("request_chars"),
                tools_chars=med("tools_chars"),
                units=med("units"),
                uncached_units=med("uncached_units"),
                read_units=med("read_units"),
                changed_requests=med("changed_requests"),
                changed_units=med("changed_units"),
                reordered_requests=med("reordered_requests"),
                fixed_tools_units=med("fixed_tools_units"),
                first_units=med("first_units"),
                seconds=med("seconds"),
                holds_ms=tuple(good[0].holds_ms),
                reread_timeouts=sum(r.reread_timeouts for r in mine),
                offered=good[0].offered_at_once,
            )
    return out


def _n(value: float) -> str:
    return f"{value:,.0f}"


def _task_name(task: str) -> str:
    return TASKS[task].title.split(":")[0]


def _offered(variant: str, c: Cell) -> str:
    if VARIANTS[variant].static:
        return "– (call_page_tool)"
    return f"{c.offered[0]}/{c.offered[1]}" if c.offered[1] else "– (no page tools)"


def table(summary: Summary) -> str:
    head = (
        "| task | variant | ok | turns | tool calls (ToolSearch) | request chars (tools array) | "
        "cost, input token units (uncached) | wall s | held ms | next tool offered at once |"
    )
    lines = [head, "|---|---|---|---:|---:|---:|---:|---:|---|---|"]
    for (task, variant), c in summary.items():
        held = " + ".join(str(ms) for ms in c.holds_ms) or "–"
        if c.reread_timeouts:
            held += f" ({c.reread_timeouts} not re-read in time)"
        ok = "yes" if c.ok else "**FAILED**"
        lines.append(
            f"| {_task_name(task)} | {VARIANTS[variant].label} | {ok} | {c.turns:.0f} "
            f"| {c.tool_uses:.0f} ({c.searches:.0f}) "
            f"| {_n(c.request_chars)} ({c.tools_chars / max(c.request_chars, 1):.0%}) "
            f"| {_n(c.units)} ({_n(c.uncached_units)}) | {c.seconds:.1f} | {held} | {_offered(variant, c)} |"
        )
    return "\n".join(lines)


def totals(summary: Summary) -> dict[str, dict[str, float]]:
    """Per variant over the tasks it did: turns, units, and how many tasks failed."""
    out: dict[str, dict[str, float]] = {}
    for (_, variant), c in summary.items():
        t = out.setdefault(variant, {"turns": 0.0, "units": 0.0, "chars": 0.0, "tasks": 0.0, "failed": 0.0})
        t["turns"] += c.turns
        t["units"] += c.units
        t["chars"] += c.request_chars
        t["tasks"] += 1
        t["failed"] += 0 if c.ok else 1
    return out


def _mark(a: float, b: float) -> str:
    if not b:
        return "–"
    return f"{_n(a)} / {_n(b)} = {a / b:.2f} {'✓' if a / b <= TARGET else '✗'}"


def target_table(summary: Summary, peer: str = PEER) -> str:
    """Per task (and over all four), each tabmcp variant compared / Playwright MCP: turns and cost."""
    ours = [v for v in COMPARED if any(k[1] == v for k in summary)]
    head = "| task | " + " | ".join(f"{VARIANTS[v].short}: turns | cost" for v in ours) + " |"
    lines = [head, "|---|" + "---:|---:|" * len(ours)]
    tasks = [t for t in TASKS if (t, peer) in summary]
    for task in [*tasks, ""]:
        keys = [task] if task else tasks
        name = _task_name(task) if task else "**all four tasks**"
        theirs = [summary[(t, peer)] for t in keys]
        cells = []
        for v in ours:
            mine = [summary[(t, v)] for t in keys if (t, v) in summary]
            if len(mine) != len(theirs) or not all(c.ok for c in mine + theirs):
                cells += ["failed", "failed"]
                continue
            cells.append(_mark(sum(c.turns for c in mine), sum(c.turns for c in theirs)))
            cells.append(_mark(sum(c.units for c in mine), sum(c.units for c in theirs)))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def always_load_ranking(summary: Summary) -> list[tuple[str, float, float, int]]:
    """(variant, total units, total turns, failed tasks) of the always_load variants, cheapest first."""
    every = totals(summary)
    rows = [(k, every[k]["units"], every[k]["turns"], int(every[k]["failed"])) for k in ALWAYS_LOAD_KEYS if k in every]
    return sorted(rows, key=lambda r: (r[3], r[1]))


def tables(summary: Summary) -> str:
    parts = [table(summary)]
    if any(k[1] == PEER for k in summary):
        parts.append(target_table(summary))
    ranking = always_load_ranking(summary)
    if ranking:
        parts.append(
            "always_load, tool search on, over the tasks: "
            + "; ".join(f"{VARIANTS[k].label}: {_n(u)} units, {t:.0f} turns" for k, u, t, _ in ranking)
        )
    return "\n\n".join(parts)


def charts(summary: Summary) -> tuple[Chart, Chart]:
    """Cache-aware cost and turns per task, a bar per variant (tabmcp green, Playwright MCP purple)."""

    def bars(task: str, value: Any, text: Any, part: Any) -> tuple[Bar, ...]:
        out = []
        for variant, v in VARIANTS.items():
            c = summary.get((task, variant))
            if c is None:
                continue
            series = SERIES[v.server]
            out.append(
                Bar(series, value(c) if c.ok else 0, text(c) if c.ok else "FAILED", v.short, part(c) if c.ok else 0)
            )
        return tuple(out)

    tasks = [t for t in TASKS if any(k[0] == t for k in summary)]
    cost_chart = Chart(
        "Through Claude Code: cache-aware input cost per task",
        "input token units (chars / 4; cache read 0.1x, new part 1.25x); darker: the cache reads",
        tuple(
            Group(_task_name(t), bars(t, lambda c: c.units, lambda c: f"{_n(c.units)} units", lambda c: c.read_units))
            for t in tasks
        ),
    )
    turns_chart = Chart(
        "Through Claude Code: the model's turns per task",
        "main-conversation requests; darker: ToolSearch turns",
        tuple(
            Group(
                _task_name(t),
                bars(
                    t,
                    lambda c: c.turns,
                    lambda c: f"{c.turns:.0f} turns ({c.searches:.0f} ToolSearch)",
                    lambda c: c.searches,
                ),
            )
            for t in tasks
        ),
    )
    return cost_chart, turns_chart


def write_chart(summary: Summary, path: Path) -> Path:
    """Both charts, one above the other, in one PNG."""
    images = [render(chart) for chart in charts(summary)]
    sheet = Image.new("RGB", (max(i.width for i in images), sum(i.height for i in images)), BACKGROUND)
    y = 0
    for image in images:
        sheet.paste(image, (0, y))
        y += image.height
    path.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(path, format="PNG", optimize=True)
    return path


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "–"


def totals_table(summary: Summary) -> str:
    every = totals(summary)
    rows = [
        "| variant | tasks ok | turns | request chars | cost, units "
        "| cost without cache | cost if the tools array never changed | wall s |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for variant, t in every.items():
        cells = [c for (_, v), c in summary.items() if v == variant]
        fixed = sum(c.fixed_tools_units for c in cells)
        uncached = sum(c.uncached_units for c in cells)
        ok = f"{int(t['tasks'] - t['failed'])}/{int(t['tasks'])}"
        rows.append(
            f"| {VARIANTS[variant].label} | {ok} | {t['turns']:.0f} | {_n(t['chars'])} | **{_n(t['units'])}** "
            f"| {_n(uncached)} | {_n(fixed)} | {sum(c.seconds for c in cells):.0f} |"
        )
    return "\n".join(rows)


def _sum(cells: list[Cell], attr: str) -> float:
    return sum(getattr(c, attr) for c in cells)


def gap_notes(summary: Summary, ours: str = OURS, peer: str = PEER) -> list[str]:
    """Why tabmcp misses a target, in figures: where the turns go, Claude Code's fixed first request,
    and the cache a changed tools array breaks."""
    tasks = [t for t in TASKS if (t, ours) in summary and (t, peer) in summary]
    if not tasks:
        return []
    mine = [summary[(t, ours)] for t in tasks]
    theirs = [summary[(t, peer)] for t in tasks]

    def split(c: Cell) -> str:
        return f"{c.script_calls:.0f} + {c.searches:.0f} + {c.turns - c.script_calls - c.searches:.0f}"

    turns = "; ".join(
        f"{_task_name(t)} {split(a)} against {split(b)}" for t, a, b in zip(tasks, mine, theirs, strict=True)
    )
    floor = [b.first_units / b.units for b in theirs if b.units]
    static = [summary[(t, "tabmcp-static")] for t in tasks if (t, "tabmcp-static") in summary]
    past_mine = _sum(mine, "units") - _sum(mine, "first_units")
    budgets = ", ".join(
        f"{_task_name(t)} {_n(TARGET * b.units - a.first_units)}" for t, a, b in zip(tasks, mine, theirs, strict=True)
    )
    changed_each = _sum(mine, "changed_units") / max(_sum(mine, "changed_requests"), 1)
    steady = _sum(mine, "turns") - len(mine) - _sum(mine, "changed_requests")
    cached_each = (past_mine - _sum(mine, "changed_units")) / max(steady, 1)
    calls = sorted(c.script_calls for c in mine)  # the first request makes the first call; the answer is last
    unreachable = [
        _task_name(t)
        for t, a, b in zip(tasks, mine, theirs, strict=True)
        if TARGET * b.units - a.first_units < a.script_calls * cached_each
    ]
    calls_range = f"{calls[0]:.0f}–{calls[-1]:.0f}" if calls[0] != calls[-1] else f"{calls[0]:.0f}"
    reorder_totals: dict[str, float] = {}
    for (_, v), c in summary.items():
        if VARIANTS[v].server == ours and c.reordered_requests:
            reorder_totals[VARIANTS[v].label] = reorder_totals.get(VARIANTS[v].label, 0) + c.reordered_requests
    reorders = (
        " Claude Code also re-sorts the array after re-reading a list, and a request with the same tools in "
        "another order breaks the cache all the same: "
        + ", ".join(f"{n:.0f} such requests with {label}" for label, n in reorder_totals.items())
        + "."
        if reorder_totals
        else ""
    )
    past_theirs = _sum(theirs, "units") - _sum(theirs, "first_units")
    notes = [
        f"- **Turns** are the script's calls + ToolSearch turns + the closing answer; tabmcp (default) against "
        f"Playwright MCP: {turns}. With the answer a turn on both sides, 1/2 needs Playwright MCP to take at "
        "least twice tabmcp's calls + ToolSearch turns + 1.",
        f"- **Claude Code's own first request** (its system prompt and its own tools, about "
        f"{_n(statistics.median(c.first_units for c in mine + theirs) * 4 / 1.25)} characters before any call) "
        f"costs about {_n(statistics.median(c.first_units for c in mine + theirs))} units in every variant with "
        f"tool search: {min(floor):.0%}–{max(floor):.0%} of Playwright MCP's whole cost per task. To stay within "
        f"1/2, tabmcp's other requests could cost at most {budgets} units; each of them costs about "
        f"{_n(cached_each)} units when the cache holds and {_n(changed_each)} when the tools array changed, and a "
        f"task needs {calls_range} of them (its calls after the first, and the answer)"
        + (
            f": out of reach on {', '.join(unreachable)} even with every one read from the cache. "
            if unreachable
            else ". "
        )
        + f"Past the first request, tabmcp (default) "
        f"costs {_n(past_mine)} units over the tasks against Playwright MCP's {_n(past_theirs)} "
        f"({_ratio(past_mine, past_theirs)}×).",
        f"- **A changed tools array breaks the cache.** Claude Code puts the tools first, and the API caches in "
        f"the order tools, system, messages: when the array changes, everything after the change (the rest of "
        f"the tools, the system prompt, the conversation so far) is new input again, at 1.25×. tabmcp's array "
        f"changes with the page (a `list_changed` after `connect_browser` and after every call that changes "
        f"the page): {_sum(mine, 'changed_requests'):.0f} of its {_sum(mine, 'turns'):.0f} requests came with "
        f"a changed array, and they cost "
        f"{_n(_sum(mine, 'changed_units'))} of its {_n(_sum(mine, 'units'))} units "
        f"({_sum(mine, 'changed_units') / max(_sum(mine, 'units'), 1):.0%}). Playwright MCP's array changes "
        f"only when ToolSearch loads its tools: {_sum(theirs, 'changed_requests'):.0f} of "
        f"{_sum(theirs, 'turns'):.0f} requests, {_n(_sum(theirs, 'changed_units'))} of "
        f"{_n(_sum(theirs, 'units'))} units. With the last request's tools array in every request (the cache "
        f"never broken by a list change) tabmcp would cost {_n(_sum(mine, 'fixed_tools_units'))} units, "
        f"{_ratio(_sum(mine, 'fixed_tools_units'), _sum(theirs, 'units'))}× Playwright MCP's.{reorders}",
    ]
    if static:
        notes.append(
            f"- **Static mode** never changes its list: {_n(_sum(static, 'units'))} units over the tasks "
            f"({_ratio(_sum(static, 'units'), _sum(theirs, 'units'))}× Playwright MCP's), for "
            f"{_sum(static, 'turns'):.0f} turns (`list_page_tools` once per task, `call_page_tool` for each call)."
        )
    notes.append(
        f"- Without any cache the comparison is the older one of characters: tabmcp "
        f"{_n(_sum(mine, 'uncached_units'))} against {_n(_sum(theirs, 'uncached_units'))} units "
        f"({_ratio(_sum(mine, 'uncached_units'), _sum(theirs, 'uncached_units'))}×): Playwright MCP's larger "
        "results and longer conversations are mostly cache reads at 0.1×."
    )
    return notes


def recommendation(summary: Summary) -> list[str]:
    ranking = always_load_ranking(summary)
    if len(ranking) < 2:
        return []
    best, runner = ranking[0], ranking[1]
    wins = {k: 0 for k, *_ in ranking}
    for task in TASKS:
        cells = [(summary[(task, k)].units, k) for k, *_ in ranking if (task, k) in summary and summary[(task, k)].ok]
        if cells:
            wins[min(cells)[1]] += 1
    listed = "; ".join(
        f"{VARIANTS[k].label}: {_n(u)} units, {t:.0f} turns" + (f", {f} task(s) failed" if f else "")
        for k, u, t, f in ranking
    )
    margin = (runner[1] - best[1]) / runner[1] if runner[1] else 0.0
    default = next((r for r in ranking if r[0] == OURS), None)
    versus = ""
    if default and default not in (best, runner) and default[1]:
        versus = (
            f"; {_n(default[1] - best[1])} units ({(default[1] - best[1]) / default[1]:.1%}) below the current "
            f"default, {VARIANTS[OURS].label}"
        )
    return [
        f"**always_load, with tool search on** (the sum over the four tasks, cheapest first): {listed}.",
        "",
        f"Cheapest: **{VARIANTS[best[0]].label}**, {_n(runner[1] - best[1])} units ({margin:.1%}) below "
        f"the next, {VARIANTS[runner[0]].label}{versus}; cheapest on {wins[best[0]]} of the "
        f"{sum(wins.values())} tasks.",
        *tradeoff(summary),
    ]


def _mean_gap(summary: Summary, a: str | None, b: str | None) -> float | None:
    """Mean over the tasks both did of cost(a) - cost(b)."""
    if a is None or b is None:
        return None
    gaps = [
        summary[(t, a)].units - summary[(t, b)].units
        for t in TASKS
        if (t, a) in summary and (t, b) in summary and summary[(t, a)].ok and summary[(t, b)].ok
    ]
    return statistics.mean(gaps) if gaps else None


def tradeoff(summary: Summary) -> list[str]:
    """What carrying snapshot and interact costs where they go unused, against a ToolSearch turn for a tool."""
    carry = _mean_gap(summary, CARRY[0], CARRY[1])
    search = _mean_gap(summary, SEARCH[0], SEARCH[1])
    if carry is None or search is None or search <= 0:
        return []
    return [
        "",
        f"These tasks use page tools only. Loading `snapshot` and `interact` at once as well costs "
        f"{_n(carry)} units per task that does not use them (the two settings with `connect_browser`); "
        f"loading a tool through ToolSearch when it is needed costs {_n(search)} units per task "
        f'(["page"] against ["page","connect_browser"]: one ToolSearch turn, whose request changes the tools '
        f"array). Loading them at once pays off when more than {carry / search:.0%} of tasks need them.",
    ]


def section(summary: Summary, args: Any, meta: dict[str, str], chart: Path) -> str:
    """``meta``: when (measured), under what load, and which tabmcp the runs were made with."""
    info = machine()
    parts = [
        "## Through Claude Code: the scripted tasks with tool search",
        "",
        f"Measured {meta['measured']} by `python -m bench.claude_tasks` (`bench/claude_tasks.py`): "
        f"{args.repeat} run(s) of every task on each variant, one at a time; counts are the same run to run, "
        "times are medians.",
        "",
        f"- Claude Code {CLAUDE_VERSION} (`claude -p`, offline against a scripted Messages API on 127.0.0.1; the "
        f"scripted model answers {args.delay:g} s after each request), tabmcp {meta['tabmcp']}, "
        f"Playwright MCP {npm_version(args.peers_dir, '@playwright/mcp')}",
        f"- {info['cpu']}; {info['chromium']}",
        f"- 1-minute load average during the run: {meta['load']}",
        "",
        "The four tasks of *Page tools: scripted tasks* above, played through the real Claude Code CLI: the",
        "same scripts choose the same calls from the same results, but Claude Code runs the MCP servers,",
        "builds every request (its own tools, system prompt, the conversation) and defers MCP tools behind",
        "its `ToolSearch` as it does for a user. What is counted is what Claude Code sends to the model.",
        "",
        f"![cost and turns per task]({chart.as_posix()})",
        "",
        *recommendation(summary),
        "",
        "### Targets: tabmcp against Playwright MCP, tool search on",
        "",
        "tabmcp / Playwright MCP (target ≤ 0.5 for turns and for cost on every task): the default, static mode,",
        'and the cheapest always_load setting (["page","connect_browser"]).',
        "",
        target_table(summary),
        "",
        *gap_notes(summary),
        "",
        "### Over the four tasks",
        "",
        totals_table(summary),
        "",
        "### Per task",
        "",
        table(summary),
        "",
        "*Tool calls*: every `tool_use` the model sent (ToolSearch, `list_page_tools` and re-reads included); "
        "*held ms*: how long tabmcp held each answer until Claude Code had re-read its tool list (its DEBUG "
        "log); *next tool offered at once*: page tool calls whose tool was offered (loaded, or named for "
        "ToolSearch) in the request right after the call that brought the page, of all page tool calls "
        "(–: the variant calls no page tool directly).",
        "",
        *hold_notes(summary),
        *failures(summary),
        "### The cost model",
        "",
        "Per request: tokens ≈ characters / 4 (no tokenizer for Claude's models installs offline). The API",
        "caches a prompt's prefix in the order tools, system, messages; each request is serialised in that",
        "order (JSON of each part) and its longest common prefix with the previous request counts as a cache",
        "read at 0.1×, the rest as new input written to the cache at 1.25× (1× plus the write). The sum over",
        "the requests is in *input token units* (tokens at the uncached price). The real cache matches at",
        "Claude Code's `cache_control` breakpoints, not at any character, so the model is generous to every",
        "variant alike; output tokens (the model's short calls) are left out.",
        "",
        "### How the scripted model plays",
        "",
        "- The task scripts of `bench/task_tabmcp.py` and `bench/task_playwright.py` run unchanged",
        "  (`bench/claude_model.py` drives them one call per turn); the answer they read at the end is",
        "  checked as in `bench/tasks.py` (`bench/task_defs.py`): a failed check is a failed task.",
        "- A tool Claude Code only names for ToolSearch is loaded with `select:` first, together with the",
        "  other deferred tools the task will use (a model loads what it sees it needs: `PLANS` in",
        "  `bench/claude_variants.py`).",
        "- `TABMCP_TOOLS=static`: a page tool goes through `call_page_tool`, after `list_page_tools` when the",
        "  last listing did not name it.",
        "- A tool not offered at all is a miss: the model snapshots the page and tries again (3 at most).",
        "",
        "### Rerun",
        "",
        "```sh",
        "bash bench/setup.sh                                # Playwright MCP into ~/.cache/tabmcp-bench/peers",
        ".venv/bin/python -m bench.claude_tasks             # every variant and task (~10 min), writes this block",
        ".venv/bin/python -m bench.claude_tasks --variants tabmcp playwright --tasks mail --transcript --no-doc",
        "```",
    ]
    return "\n".join(parts) + "\n"


def hold_notes(summary: Summary) -> list[str]:
    """The latency the holds added, over every dynamic tabmcp run, and whether the page's tools were there."""
    held = [ms for (_, v), c in summary.items() if VARIANTS[v].server == OURS for ms in c.holds_ms]
    ran_out = sum(c.reread_timeouts for c in summary.values())
    offered = [c.offered for (_, v), c in summary.items() if not VARIANTS[v].static and c.offered[1]]
    if not held and not offered:
        return []
    lines = []
    if held:
        lines.append(
            f"Holds: {len(held)} answers held until Claude Code had re-read the tool list, median "
            f"{statistics.median(held):.0f} ms, max {max(held)} ms, {sum(held) / 1000:.1f} s in all; "
            + (f"{ran_out} ran out (its next request may lack the new tools)." if ran_out else "none ran out.")
        )
    if offered:
        got, wanted = sum(o[0] for o in offered), sum(o[1] for o in offered)
        lines.append(
            f"Page tools offered in the request right after the call that brought their page: {got} of {wanted}."
        )
    return [" ".join(lines), ""]


def failures(summary: Summary) -> list[str]:
    failed = [(t, v, c) for (t, v), c in summary.items() if not c.ok]
    if not failed:
        return []
    lines = ["Failures in this run:", ""]
    lines += [f"- {_task_name(t)} on {VARIANTS[v].label}: {c.error[:400]}" for t, v, c in failed]
    return [*lines, ""]
