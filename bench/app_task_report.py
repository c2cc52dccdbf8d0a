"""The real-app task figures as tables (printed, and the docs/benchmarks.md section) with their targets.

The per-task cells, the figures/ratios tables and the section's shared blocks (heading, results, the calls,
failures, rerun) are bench/task_report.py's; this adds the targets of the real-app bench (calls ≤ 1/2,
characters ≤ 1/3, ``list_changed`` per call ≤ 0.15, no workaround) and the table of what tabmcp needed
generic tools for.
"""

from __future__ import annotations

from bench.app_task_defs import TASKS
from bench.report import LoadWatch
from bench.task_report import (
    TARGET,
    Cell,
    done_by_both,
    heading,
    n,
    printed,
    rerun,
    results,
    summarise,
    the_calls,
)

CALL_TARGET = 1 / 2  # tabmcp / Playwright MCP calls; characters: TARGET (1/3)
LIST_CHANGED_TARGET = 0.15  # tabmcp's list_changed notifications per call

__all__ = ["section", "summarise", "tables", "tabmcp_table", "totals"]


def totals(cells: dict[tuple[str, str], Cell]) -> dict[str, float]:
    """Over the tasks both servers did: the ratios, tabmcp's list_changed per call, its workarounds, and
    how many tasks each server did."""
    both = done_by_both(cells)
    ours = [cells[(t, "tabmcp")] for t in both]
    theirs = [cells[(t, "playwright")] for t in both]
    mine = [c for c in cells.values() if c.server == "tabmcp" and c.ok]
    calls = sum(c.calls for c in mine)
    open_calls = sum(c.open_calls for c in mine)
    return {
        "tasks": len(both),
        "calls": sum(c.calls for c in ours) / sum(c.calls for c in theirs) if theirs else 0.0,
        "chars": sum(c.chars for c in ours) / sum(c.chars for c in theirs) if theirs else 0.0,
        "list_changed_per_call": sum(c.list_changed for c in mine) / calls if calls else 0.0,
        "open_list_changed_per_call": sum(c.open_list_changed for c in mine) / open_calls if open_calls else 0.0,
        "workarounds": sum(len(c.workarounds) for c in mine),
        "tabmcp_done": sum(1 for c in cells.values() if c.server == "tabmcp" and c.ok),
        "playwright_done": sum(1 for c in cells.values() if c.server == "playwright" and c.ok),
    }


def tabmcp_table(cells: dict[tuple[str, str], Cell]) -> str:
    """tabmcp per task: list_changed per call, and the generic tools it needed with why."""
    lines = [
        "| task | done | calls | `list_changed` (per call) | in an open session: calls, `list_changed` (per call) "
        "| workarounds (generic calls: why) |",
        "|---|---|---:|---:|---:|---|",
    ]
    for (task, server), c in cells.items():
        if server != "tabmcp":
            continue
        if not c.ok_runs:
            lines.append(f"| {task} | **no** (0/{c.runs}) | | | | |")
            continue
        per = c.list_changed / c.calls if c.calls else 0.0
        mark = "✓" if per <= LIST_CHANGED_TARGET else "✗"
        why = "; ".join(dict.fromkeys(c.workarounds))
        extra = f"{len(c.workarounds)}: {why}" if c.workarounds else "none"
        done = "yes" if c.ok else f"{c.ok_runs}/{c.runs}"
        per_open = c.open_list_changed / c.open_calls if c.open_calls else 0.0
        mark_open = "✓" if per_open <= LIST_CHANGED_TARGET else "✗"
        opened = f"{n(c.open_calls)}, {n(c.open_list_changed)} ({per_open:.2f} {mark_open})"
        lines.append(
            f"| {task} | {done} | {n(c.calls)} | {n(c.list_changed)} ({per:.2f} {mark}) | {opened} | {extra} |"
        )
    return "\n".join(lines)


def _headline(cells: dict[tuple[str, str], Cell]) -> list[str]:
    t = totals(cells)
    opened = t["open_list_changed_per_call"]
    if not t["tasks"]:
        return ["- No task was done by both servers: no ratio."]
    mark = lambda ok: "✓" if ok else "✗"  # noqa: E731
    return [
        f"- **Tool calls**: tabmcp / Playwright MCP = {t['calls']:.2f} over the {t['tasks']:.0f} tasks both did "
        f"(target ≤ {CALL_TARGET:.2f}) {mark(t['calls'] <= CALL_TARGET)}",
        f"- **Context characters** (results + every tool list read): {t['chars']:.2f} (target ≤ {TARGET:.2f}) "
        f"{mark(t['chars'] <= TARGET)}",
        f"- **`list_changed` per tabmcp call**: {t['list_changed_per_call']:.2f} (target ≤ {LIST_CHANGED_TARGET}) "
        f"{mark(t['list_changed_per_call'] <= LIST_CHANGED_TARGET)}; in an open session (the calls after the "
        f"connect): {opened:.2f} {mark(opened <= LIST_CHANGED_TARGET)}",
        f"- **Done**: tabmcp {t['tabmcp_done']:.0f}/{len(TASKS)}, Playwright MCP {t['playwright_done']:.0f}/"
        f"{len(TASKS)}; tabmcp needed {t['workarounds']:.0f} generic call(s) a page tool should have spared "
        f"(target 0) {mark(t['workarounds'] == 0)}",
    ]


def tables(cells: dict[tuple[str, str], Cell]) -> str:
    return printed(
        cells, f"tabmcp / Playwright MCP (calls ≤ {CALL_TARGET:.2f}, characters ≤ {TARGET:.2f}):", CALL_TARGET,
        ("", "tabmcp:", "", tabmcp_table(cells), "", *_headline(cells)),
    )


def section(cells: dict[tuple[str, str], Cell], repeat: int, load: LoadWatch) -> str:
    parts = [
        *heading("Page tools on real apps: scripted tasks", cells, repeat, load,
                 "`make bench-apps` (`bench/app_tasks.py`)",
                 "server, one run at a time, each on the app started afresh; figures are medians."),
        "One task a user would ask in each app of the real-app corpus (`bench/apps/`, docs/real-apps.md),",
        "done the way a model does it: with tabmcp, through the page tools it lists, each picked by reading",
        "the tool list at that moment (name, title, description, arguments), never by a name known in",
        "advance; where no page tool does a step, with the generic `snapshot`/`interact`, counted as a",
        "**workaround**. With Playwright MCP, through its snapshot and the refs read in it. A task is done",
        "only when the app's own state (its database, files, API) or the answer is right (*Checks*).",
        "",
        *_headline(cells),
        "",
        *results(
            cells, f"tabmcp / Playwright MCP (target ≤ {CALL_TARGET:.2f} for calls, ≤ {TARGET:.2f} for characters):",
            CALL_TARGET,
        ),
        f"tabmcp's `list_changed` per call (target ≤ {LIST_CHANGED_TARGET}) and its workarounds, the next fixes",
        "for the introspectors:",
        "",
        tabmcp_table(cells),
        "",
        *the_calls(cells, {k: t.title for k, t in TASKS.items()}),
        "### Checks",
        "",
        *[f"- {t.key} ({t.app}): {t.checks}." for t in TASKS.values()],
        "",
        "Counted as in *Page tools: scripted tasks* above (bench/task_meter.py); `list_changed` counts every",
        "notification, a re-read that brought the same list included; *in an open session* leaves out the",
        "connect and the re-reads it brings (one per task in a fresh session: unavoidable). In the traces,",
        "`~name(parts)` is a tool whose definition changed, with the parts that differ.",
        "",
        *rerun(
            "make bench-apps                                   # bench/setup.sh, make apps, both servers, all tasks",
            ".venv/bin/python -m bench.app_tasks --only tabmcp --tasks wiki --transcript   # one task",
        ),
    ]
    return "\n".join(parts)
