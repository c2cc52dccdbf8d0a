"""The scripted-task figures as tables (printed, and the docs/benchmarks.md section) with its target, and
the blocks both task benches print and write (bench/app_task_report.py builds on them)."""

from __future__ import annotations

import datetime
import statistics
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bench.report import LoadWatch, machine, tabmcp_version
from bench.task_defs import TASKS

if TYPE_CHECKING:
    from bench.task_meter import Entry
    from bench.task_runner import Run

TARGET = 1 / 3  # tabmcp / Playwright MCP, for calls and for characters
LABELS = {"tabmcp": "tabmcp", "playwright": "Playwright MCP"}


@dataclass
class Cell:
    """One task on one server over all its runs: medians of the runs that succeeded."""

    server: str
    task: str
    runs: int
    ok_runs: int
    error: str
    version: str
    calls: float = 0
    work_calls: float = 0
    result_chars: float = 0
    list_chars: float = 0
    work_chars: float = 0
    list_reads: float = 0
    held_chars: float = 0  # results + the largest tools/list: what the model's window holds at the end
    unchanged_reads: float = 0  # re-reads after a list_changed that gave the same list: not counted
    seconds: float = 0.0
    seconds_on_page: float = 0.0
    sequence: str = ""
    focused_lists: list[tuple[int, int]] = field(default_factory=list)  # (chars, page-tool chars) of counted reads
    list_changed: float = 0  # notifications/tools/list_changed received (every re-read but the first list)
    open_list_changed: float = 0  # the same after the first call's re-reads (a session open on the page)
    open_calls: float = 0  # calls after the first (its connect or open)
    workarounds: list[str] = field(default_factory=list)  # generic tools a page tool should have spared
    calls_varied: bool = False  # the number of calls differed between successful runs
    chars_varied: bool = False  # the characters differed between successful runs

    @property
    def ok(self) -> bool:
        return self.runs > 0 and self.ok_runs == self.runs

    @property
    def chars(self) -> float:
        return self.result_chars + self.list_chars


def _sequence(run: Run) -> str:
    parts = []
    for e in run.entries:
        if e.kind == "call":
            parts.append(f"`{e.name}` {e.chars:,}")
        elif e.counted:
            parts.append(f"[list {e.chars:,}{': ' + _short(e.change) if e.change else ''}]")
        else:
            parts.append(f"[list unchanged, {e.chars:,} not counted]")
    return " → ".join(parts)


def _after_first_call(run: Run) -> list[Entry]:
    """The entries from the second call on: what a session already open on the page would get (the
    first call, connecting or opening the page, and the list re-reads it brings, left out)."""
    calls = [i for i, e in enumerate(run.entries) if e.kind == "call"]
    return run.entries[calls[1]:] if len(calls) > 1 else []


def _short(change: str, most: int = 4) -> str:
    parts = change.split()
    return " ".join(parts[:most]) + (f" +{len(parts) - most} more" if len(parts) > most else "")


def summarise(runs: list[Run]) -> dict[tuple[str, str], Cell]:
    cells: dict[tuple[str, str], Cell] = {}
    for key in dict.fromkeys((r.task, r.server) for r in runs):
        mine = [r for r in runs if (r.task, r.server) == key]
        good = [r for r in mine if r.ok]
        bad = next((r for r in mine if not r.ok), None)
        cell = Cell(key[1], key[0], len(mine), len(good), bad.error if bad else "", mine[0].version)
        if good:

            def med(values: list[float]) -> float:
                return float(statistics.median(values))

            def n_calls(r: Run, work: bool) -> int:
                return sum(1 for e in r.entries if e.kind == "call" and not (work and e.setup))

            def n_chars(r: Run, kind: str | None, work: bool) -> int:
                return sum(
                    e.chars
                    for e in r.entries
                    if e.counted and (kind is None or e.kind == kind) and not (work and e.setup)
                )

            def n_reads(r: Run, counted: bool) -> int:
                return sum(1 for e in r.entries if e.kind == "tools/list" and e.counted == counted)

            cell.calls = med([n_calls(r, False) for r in good])
            cell.work_calls = med([n_calls(r, True) for r in good])
            cell.result_chars = med([n_chars(r, "call", False) for r in good])
            cell.list_chars = med([n_chars(r, "tools/list", False) for r in good])
            cell.work_chars = med([n_chars(r, None, True) for r in good])
            cell.list_reads = med([n_reads(r, True) for r in good])
            cell.held_chars = med([n_chars(r, "call", False) + max(
                (e.chars for e in r.entries if e.kind == "tools/list"), default=0) for r in good])
            cell.unchanged_reads = med([n_reads(r, False) for r in good])
            cell.list_changed = med([sum(1 for e in r.entries if e.kind == "tools/list") - 1 for r in good])
            cell.open_list_changed = med([sum(1 for e in _after_first_call(r) if e.kind == "tools/list") for r in good])
            cell.open_calls = med([sum(1 for e in _after_first_call(r) if e.kind == "call") for r in good])
            cell.seconds = med([r.seconds for r in good])
            cell.seconds_on_page = med([r.seconds_on_page for r in good])
            typical = [r for r in good if n_calls(r, False) == cell.calls] or good
            cell.sequence = _sequence(typical[0])
            cell.workarounds = list(typical[0].workarounds)
            cell.focused_lists = [
                (e.chars, e.page_chars)
                for e in typical[0].entries
                if e.kind == "tools/list" and e.counted and e.page_chars and not e.setup
            ]
            cell.calls_varied = len({n_calls(r, False) for r in good}) > 1
            cell.chars_varied = len({n_chars(r, None, False) for r in good}) > 1
        cells[key] = cell
    return cells


def n(value: float) -> str:
    return f"{value:,.0f}"


def ratio(ours: float, theirs: float, target: float = TARGET) -> str:
    if not theirs:
        return "—"
    r = ours / theirs
    return f"{r:.2f} {'✓' if r <= target else '✗'}"


def _tasks(cells: dict[tuple[str, str], Cell]) -> list[str]:
    return list(dict.fromkeys(t for t, _ in cells))


def done_by_both(cells: dict[tuple[str, str], Cell]) -> list[str]:
    """The tasks both servers did in every run: the ones the ratios count."""
    return [t for t in _tasks(cells) if all(cells.get((t, k)) and cells[(t, k)].ok for k in ("tabmcp", "playwright"))]


def figures_table(cells: dict[tuple[str, str], Cell]) -> str:
    lines = [
        "| task | server | succeeded | tool calls (on the page) | result chars | `tools/list` chars (reads) "
        "| context chars | wall time (on the page) |",
        "|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for task in _tasks(cells):
        for (t, _), c in cells.items():
            if t != task:
                continue
            label = f"{LABELS.get(c.server, c.server)} {c.version}".strip()
            if not c.ok_runs:
                lines.append(f"| {task} | {label} | **failed** (0/{c.runs}) | | | | | |")
                continue
            done = f"{c.ok_runs}/{c.runs}" + ("" if c.ok else " ⚠")
            vc, vch = (" *" if c.calls_varied else ""), (" *" if c.chars_varied else "")
            same = f" +{n(c.unchanged_reads)} same" if c.unchanged_reads else ""
            lines.append(
                f"| {task} | {label} | {done} | {n(c.calls)} ({n(c.work_calls)}){vc} | {n(c.result_chars)} | "
                f"{n(c.list_chars)} ({n(c.list_reads)}{same}) | **{n(c.chars)}**{vch} | "
                f"{c.seconds:.1f} s ({c.seconds_on_page:.1f} s) |"
            )
    return "\n".join(lines)


def ratios_table(cells: dict[tuple[str, str], Cell], call_target: float = TARGET) -> str:
    """tabmcp / Playwright MCP per task and over all tasks; calls against ``call_target``, characters
    against ``TARGET``."""
    lines = [
        "| task | calls | context chars | result chars only | held at the end | in an open session: calls "
        "| in an open session: chars |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    sums = {k: 0.0 for k in ("oc", "tc", "och", "tch", "ores", "tres", "oh", "th", "owc", "twc", "owch", "twch")}
    counted = []
    for task in _tasks(cells):
        ours, theirs = cells.get((task, "tabmcp")), cells.get((task, "playwright"))
        if not ours or not theirs:
            continue
        if not (ours.ok and theirs.ok):
            who = " and ".join(LABELS[c.server] for c in (ours, theirs) if not c.ok)
            lines.append(f"| {task} | not counted: {who} failed | | | | | |")
            continue
        counted.append(task)
        pairs = [
            ("oc", "tc", ours.calls, theirs.calls),
            ("och", "tch", ours.chars, theirs.chars),
            ("ores", "tres", ours.result_chars, theirs.result_chars),
            ("oh", "th", ours.held_chars, theirs.held_chars),
            ("owc", "twc", ours.work_calls, theirs.work_calls),
            ("owch", "twch", ours.work_chars, theirs.work_chars),
        ]
        cols = []
        for a, b, x, y in pairs:
            sums[a] += x
            sums[b] += y
            cols.append(f"{n(x)} / {n(y)} = {ratio(x, y, call_target if a in ('oc', 'owc') else TARGET)}")
        lines.append(f"| {task} | " + " | ".join(cols) + " |")
    if len(counted) > 1:
        cols = [
            f"{n(sums[a])} / {n(sums[b])} = "
            f"{ratio(sums[a], sums[b], call_target if a in ('oc', 'owc') else TARGET)}"
            for a, b in (("oc", "tc"), ("och", "tch"), ("ores", "tres"), ("oh", "th"), ("owc", "twc"), ("owch", "twch"))
        ]
        lines.append(f"| **all {len(counted)} tasks** | " + " | ".join(f"**{c}**" for c in cols) + " |")
    return "\n".join(lines)


def findings(cells: dict[tuple[str, str], Cell]) -> list[str]:
    """The headline, computed: what met the target, and where tabmcp's characters go."""
    both = done_by_both(cells)
    if not both:
        return []
    ours = [cells[(t, "tabmcp")] for t in both]
    theirs = [cells[(t, "playwright")] for t in both]

    def met(attr: str) -> str:
        hits = [t for t, a, b in zip(both, ours, theirs, strict=True) if getattr(a, attr) <= TARGET * getattr(b, attr)]
        return ", ".join(hits) if hits else "none"

    calls = sum(c.calls for c in ours) / sum(c.calls for c in theirs)
    chars = sum(c.chars for c in ours) / sum(c.chars for c in theirs)
    results = sum(c.result_chars for c in ours) / sum(c.result_chars for c in theirs)
    held = sum(c.held_chars for c in ours) / sum(c.held_chars for c in theirs)
    lists = sum(c.list_chars for c in ours) / sum(c.chars for c in ours)
    reads = sum(c.list_reads for c in ours) / len(ours)
    focused = [e for c in ours for e in c.focused_lists]
    lines = [
        f"- **Tool calls**: tabmcp / Playwright MCP = {calls:.2f} over the {len(both)} tasks; "
        f"≤ 1/3 on: {met('calls')}.",
        f"- **Context characters**: {chars:.2f} over the tasks; ≤ 1/3 on: {met('chars')}. Results alone: "
        f"{results:.2f}. Held at the end (results + the largest list): {held:.2f}; ≤ 1/3 on: {met('held_chars')}.",
        f"- {lists:.0%} of tabmcp's characters are `tools/list` reads ({reads:.1f} per task on average, start",
        "  included): every `list_changed` (a new page, a tool that appears or goes, a schema that",
        "  changes) hands the model the whole list again.",
    ]
    if focused:
        core = [total - page for total, page in focused]
        pages = [page for _, page in focused]
        low, high = min(t for t, _ in focused), max(t for t, _ in focused)
        lines += [
            f"  A list read while a tab is focused is {low:,}–{high:,} chars: the core tools (tabs, snapshot,",
            f"  interact, navigate, wait_for, screenshot, console) ~{statistics.median(core):,.0f}, the page tools"
            f" {min(pages):,}–{max(pages):,}.",
        ]
    return lines


def _unchanged_note(cells: dict[tuple[str, str], Cell]) -> str:
    """Who sent list_changed without a change in this run, in the doc's words."""
    parts = []
    for server, label in LABELS.items():
        mine = [c for c in cells.values() if c.server == server and c.ok_runs]
        if not mine:
            continue
        same = sum(c.unchanged_reads for c in mine)
        parts.append(f"{label}: {same / len(mine):.1f} such re-read(s) per task" if same else f"{label}: none")
    return f" ({'; '.join(parts)})" if parts else ""


def failures(cells: dict[tuple[str, str], Cell]) -> str:
    return "\n".join(
        f"- {c.task} on {LABELS.get(c.server, c.server)}: {c.runs - c.ok_runs}/{c.runs} run(s) failed: {c.error[:600]}"
        for c in cells.values()
        if not c.ok
    )


def printed(
    cells: dict[tuple[str, str], Cell], heading: str, call_target: float = TARGET, more: tuple[str, ...] = ()
) -> str:
    """The tables a bench prints: the figures, the ratios under ``heading``, ``more`` lines, the failures."""
    out = [figures_table(cells), "", heading, "", ratios_table(cells, call_target), *more]
    if failures(cells):
        out += ["", "Failures:", failures(cells)]
    return "\n".join(out)


def tables(cells: dict[tuple[str, str], Cell]) -> str:
    return printed(cells, "tabmcp / Playwright MCP (target ≤ 1/3 = 0.33):")


def heading(
    title: str, cells: dict[tuple[str, str], Cell], repeat: int, load: LoadWatch, by: str, runs: str
) -> list[str]:
    """A section's title, when and ``by`` what it was measured, how the ``runs`` went (the rest of the
    sentence), the versions, the machine and its load."""
    info = machine()
    today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    versions = {c.server: c.version for c in cells.values()}
    return [
        f"## {title}",
        "",
        f"Measured {today} by {by}: {repeat} run(s) of every task on each",
        runs,
        "",
        f"- tabmcp {tabmcp_version()}, Playwright MCP {versions.get('playwright', '?')}",
        f"- {info['cpu']}; {info['chromium']}",
        f"- 1-minute load average during the run: {load.describe()}",
        "",
    ]


def results(
    cells: dict[tuple[str, str], Cell], ratios_heading: str, call_target: float = TARGET, note: tuple[str, ...] = ()
) -> list[str]:
    """A section's results: the figures, a ``note`` on them (its lines, then a blank one), the ratios."""
    return [
        "### Results", "", figures_table(cells), "", *note, ratios_heading, "", ratios_table(cells, call_target), "",
    ]


def the_calls(cells: dict[tuple[str, str], Cell], titles: dict[str, str]) -> list[str]:
    """A section's failures, if any, and the calls of one run of each task on each server (``titles``:
    task key -> its title)."""
    parts = ["Failures in this run:", "", failures(cells), ""] if failures(cells) else []
    parts += ["### The calls, one run of each", ""]
    for task in _tasks(cells):
        parts += [f"**{titles[task]}**", ""]
        for (t, _), c in cells.items():
            if t == task and c.sequence:
                parts.append(f"- {LABELS.get(c.server, c.server)}: {c.sequence}")
        parts.append("")
    parts += [
        "(`name` chars: a tool call and its result's size; [list N]: a `tools/list` read and its JSON size.)",
        "",
    ]
    return parts


def rerun(make: str, one_task: str) -> list[str]:
    """A section's last lines: how to run the bench again (``make``: the make line; ``one_task``: one task)."""
    return [
        "### Rerun",
        "",
        "```sh",
        make,
        one_task,
        "```",
        "",
        "Only a run of both servers over all tasks rewrites this section (`--doc PATH` elsewhere, `--no-doc`).",
    ]


def section(cells: dict[tuple[str, str], Cell], repeat: int, load: LoadWatch) -> str:
    parts = [
        *heading("Page tools: scripted tasks", cells, repeat, load, "`make bench-tasks` (`bench/tasks.py`)",
                 "server, one run at a time, figures are medians."),
        "The same tasks on the bundled demo sites (`src/tabmcp/demo/sites/`, served on 127.0.0.1), done the way a",
        "model does them: with tabmcp, through the page tools the introspectors (or the page's WebMCP",
        "declarations) list; with Playwright MCP, through its generic tools (snapshot, find the control by role",
        "and name, act on its ref, snapshot again to read the outcome). A task counts only when the answer read",
        "from the page at the end is right (see *Checks*); otherwise it is reported failed and left out of the",
        "ratios.",
        "",
        *findings(cells),
        "",
        *results(cells, "tabmcp / Playwright MCP (target ≤ 1/3 for calls and for characters):", note=(
            "*On the page*: without the session set-up (the first `tools/list`); the wall time on the page starts",
            "when `connect_browser {url}` / `browser_navigate` returned. `*`: calls or characters differed between",
            "runs (medians shown).",
            "",
        )),
        *the_calls(cells, {k: t.title for k, t in TASKS.items()}),
        "### What is counted",
        "",
        "- **Tool calls**: every `tools/call` the model makes, set-up included (tabmcp's `connect_browser`",
        "  with `url`, which connects and opens the page; Playwright MCP's `browser_navigate`).",
        "- **Context characters**: the text of every tool result (all its text parts), plus the JSON of the",
        "  `tools` array of `tools/list` once when the session starts and again after every",
        "  `notifications/tools/list_changed` the server sends (an MCP host re-reads the list and hands the",
        "  model the new one; read once per notification, right after the call it arrived in). A re-read",
        "  that returns the very list the model already has is shown but not counted"
        + _unchanged_note(cells)
        + ". Not counted either: the arguments the model writes, JSON-RPC envelopes, server instructions.",
        "- **Held at the end**: every result plus the largest `tools/list` read. A host sends the tool",
        "  definitions with each request and replaces them when the list changes, so what the model's",
        "  window holds at the end of the task is the results so far plus one list, not every list read.",
        "  \"Context characters\" above counts every list read, the conservative view.",
        "- **In an open session**: the same without the first `tools/list`, as when the model is already",
        "  connected. The call that opened the page stays: connected, tabmcp's would be `open_tab`, of about the",
        "  same size.",
        "- **Wall time**: the client's clock from the first call to the last result (list re-reads included;",
        "  the server's start and `initialize` excluded). Each run starts a fresh server and browser, so the",
        "  first call launches Chromium for both (`connect_browser {launch: true, url}`, or Playwright MCP's first",
        "  `browser_navigate`). A shared, loaded 2-core box: times are indicative, counts are exact.",
        "- Servers as an MCP host starts them, with their defaults (see *How it is measured* above):",
        "  `tabmcp serve` (`TABMCP_HEADLESS=true`), `playwright-mcp --headless --isolated --no-sandbox",
        "  --executable-path /usr/bin/chromium`. Playwright MCP 0.0.83 writes each action's own snapshot to a",
        "  file and returns only a link to it (`### Snapshot - [Snapshot](…yml)`), so its action results are",
        "  small and the model calls `browser_snapshot` to see the page; its `click` waits its 500 ms settle.",
        "  The script reuses refs from an earlier snapshot while their element lives, batches plain fields",
        "  in one `browser_fill_form` and submits with `browser_type {submit: true}`, as a careful model does.",
        "- The Tasks page declares WebMCP tools. tabmcp's extension installs the WebMCP polyfill, so they are",
        "  page tools. Playwright MCP lists a page's WebMCP tools only when the browser implements",
        "  `document.modelContext`; Debian's Chromium does not, so with it the task goes through the page's",
        "  form and checkboxes.",
        "",
        "### Checks",
        "",
        "- Mail: the search lists both conversations that mention Thursday; the opened one is",
        '  "Q3 roadmap review: agenda for Thursday" and the body read contains its agenda ("room Aurora").',
        "- Flights: the flight picked is the cheapest listed; the review page's *Trip total* equals that",
        "  flight's listed total, which is 2 × its per-person price, and the page says 2 travelers, Business,",
        "  SFO, JFK.",
        "- Repo: the page shows the repository starred with 848 stars (847 in the seed data), and the open",
        "  issues listed with the bug label are exactly #229, #217, #212.",
        "- Tasks: the list read at the end has 4 to-dos, the new one open, the dentist one done, and the page",
        '  counts "3 open, 1 done".',
        "",
        *rerun(
            "make bench-tasks                                   # bench/setup.sh, then both servers, all tasks",
            ".venv/bin/python -m bench.tasks --only tabmcp --tasks flights --repeat 1 --transcript   # one task",
        ),
    ]
    return "\n".join(parts)
