"""The "at a glance" part of docs/benchmarks.md: the headline figures of every benchmark as PNG charts.

``bench.all`` runs the entry points with ``--json``; this module turns their JSON into ``figures`` (plain
numbers, kept as docs/benchmarks/figures.json so the charts can be redrawn without a new run:
``python -m bench.glance``), the figures into ``charts.Chart`` data, and those into PNGs and the
markdown block ``<!-- bench:glance -->`` near the top of the document. Everything here but ``write`` is pure.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import doc_sections
from bench.charts import Bar, Chart, Group, save

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "benchmarks.md"
IMAGES = REPO / "docs" / "benchmarks"  # the PNGs and figures.json, linked from the document
KEY = "glance"
PEER_LABELS = ("Playwright MCP", "Chrome DevTools MCP")
OURS = "tabmcp"

Figures = dict[str, Any]


# ------------------------------------------------------------------ figures from the entry points' JSON


def from_run(results: list[dict[str, Any]]) -> Figures:
    """bench.run's ``--json``: one dict per server (``bench.cases.Result`` as plain data)."""
    tool_lists, snapshots, clicks, errors = [], [], [], []
    for r in results:
        label = r["label"]
        if r.get("error"):
            errors.append(f"{label}: {r['error'].splitlines()[0] if r['error'] else 'failed'}")
        for state, listed in (r.get("tool_lists") or {}).items():
            tool_lists.append({"series": label, "state": state, "tools": listed["count"], "chars": listed["chars"]})
        for which in ("doc", "big"):
            snap = r.get(which)
            if snap:
                first = snap["first"]
                snapshots.append(
                    {
                        "series": label,
                        "page": snap["page"],
                        "page_kb": round(snap["page_bytes"] / 1000),  # as the tables say it
                        "first_chars": first["first_chars"],
                        "chars": first["chars"],
                        "pages": first["pages"],
                        "seconds": statistics.median(snap["seconds"]) if snap["seconds"] else None,
                    }
                )
        samples = (r.get("clicks") or {}).get("samples_ms") or []
        if samples:
            ordered = sorted(samples)
            p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
            clicks.append({"series": label, "median_ms": statistics.median(samples), "p90_ms": p90})
    return {"tool_lists": tool_lists, "snapshots": snapshots, "clicks": clicks, "errors": errors}


def from_tasks(runs: list[dict[str, Any]]) -> Figures:
    """bench.tasks' ``--json``: every run with its entries; summarised as its own tables summarise them."""
    from bench.task_defs import TASKS
    from bench.task_meter import Entry
    from bench.task_report import LABELS, summarise
    from bench.tasks import Run

    objects = [Run(**{**d, "entries": [Entry(**e) for e in d["entries"]]}) for d in runs]
    rows = []
    for (task, server), cell in summarise(objects).items():
        title = TASKS[task].title.split(":")[0] if task in TASKS else task
        rows.append(
            {
                "task": title,
                "series": LABELS.get(server, server),
                "ok": cell.ok,
                "calls": cell.calls,
                "context_chars": cell.chars,
                "result_chars": cell.result_chars,
            }
        )
    return {"tasks": rows}


def from_introspection(rows: list[dict[str, Any]]) -> Figures:
    """The extension driver's pages without extra text (the chart's bars), by their controls."""
    kept = [r for r in rows if r.get("driver", "extension") == "extension" and "text" not in str(r.get("page", ""))]
    return {"introspection": [{"controls": int(r["controls"]), "total_ms": r["total_ms"]} for r in kept]}


def merge(*parts: Figures) -> Figures:
    out: Figures = {}
    for part in parts:
        for key, value in part.items():
            out[key] = out.get(key, []) + value if isinstance(value, list) else value
    return out


# ------------------------------------------------------------------ charts


def n(value: float) -> str:
    return f"{value:,.0f}"


def _tools(count: int) -> str:
    return f"{count} tool" if count == 1 else f"{count} tools"


def _page_name(state: str) -> str:
    return state.removeprefix("focused on ")


def tool_list_chart(figures: Figures) -> Chart | None:
    rows = figures.get("tool_lists") or []
    if not rows:
        return None
    start = tuple(
        Bar(r["series"], r["chars"], f"{n(r['chars'])} chars, {_tools(r['tools'])}")
        for r in rows
        if r["state"] == "at start"
    )
    ours = [r for r in rows if r["series"] == OURS]
    later = tuple(
        Bar(OURS, r["chars"], f"{n(r['chars'])} chars, {_tools(r['tools'])}", name=f"{OURS}: {_page_name(r['state'])}")
        for r in ours
        if r["state"] != "at start"
    )
    peers_on_page = tuple(
        Bar(r["series"], r["chars"], f"{n(r['chars'])} chars (the same list)")
        for r in rows
        if r["series"] in PEER_LABELS and r["state"] == "at start"
    )
    groups = [Group("At start (tabmcp: no browser yet)", start)]
    if later:
        groups.append(Group("Connected, then focused on a page", peers_on_page + later))
    return Chart("tools/list size: what every request carries", "JSON characters of the tools array", tuple(groups))


def snapshot_chart(figures: Figures) -> Chart | None:
    rows = figures.get("snapshots") or []
    if not rows:
        return None
    groups = []
    for page in dict.fromkeys(r["page"] for r in rows):
        mine = [r for r in rows if r["page"] == page]
        bars = []
        for r in mine:
            paged = r["pages"] > 1 or r["first_chars"] != r["chars"]
            text = f"{n(r['first_chars'])} chars" + (f" (first of {r['pages']} pages)" if paged else "")
            bars.append(Bar(r["series"], r["first_chars"], text))
        groups.append(Group(f"{page} ({n(mine[0]['page_kb'])} KB of HTML)", tuple(bars)))
    return Chart(
        "Snapshot size: what one snapshot puts in the model's context",
        "characters of the first result, log scale",
        tuple(groups),
        log=True,
    )


def click_chart(figures: Figures) -> Chart | None:
    rows = figures.get("clicks") or []
    if not rows:
        return None
    bars = tuple(Bar(r["series"], r["median_ms"], f"{r['median_ms']:.1f} ms (p90 {r['p90_ms']:.1f})") for r in rows)
    return Chart(
        "Click by ref on a non-navigating button: median", "milliseconds, client wall clock", (Group("", bars),)
    )


def task_charts(figures: Figures) -> tuple[Chart | None, Chart | None]:
    rows = figures.get("tasks") or []
    if not rows:
        return None, None
    tasks = list(dict.fromkeys(r["task"] for r in rows))

    def grouped(field: str, text: Any, part: str = "") -> tuple[Group, ...]:
        def bar(r: dict[str, Any]) -> Bar:
            return Bar(r["series"], r[field] if r["ok"] else 0, text(r), part=r.get(part, 0) if part else 0)

        return tuple(Group(task, tuple(bar(r) for r in rows if r["task"] == task)) for task in tasks)

    calls = Chart(
        "Scripted tasks on the demo sites: tool calls",
        "tool calls per task (median of the runs)",
        grouped("calls", lambda r: f"{r['calls']:g} calls" if r["ok"] else "failed"),
    )
    context = Chart(
        "Scripted tasks: characters the model reads (results + tools/list)",
        "characters per task (median of the runs); the darker part: tool results, the rest: tools/list reads",
        grouped("context_chars", _context_text, "result_chars"),
    )
    return calls, context


def _context_text(r: dict[str, Any]) -> str:
    if not r["ok"]:
        return "failed"
    return f"{n(r['context_chars'])} chars ({n(r.get('result_chars', 0))} in results)"


def introspection_chart(figures: Figures) -> Chart | None:
    rows = figures.get("introspection") or []
    if not rows:
        return None
    bars = tuple(Bar(OURS, r["total_ms"], f"{r['total_ms']:.1f} ms", name=f"{r['controls']:,} controls") for r in rows)
    return Chart(
        "Page tools: from page capture to tool list, by the page's controls", "milliseconds (median)",
        (Group("", bars),),
    )


def charts(figures: Figures) -> dict[str, tuple[Chart, str]]:
    """File name → (chart, the sentence under it in the document)."""
    calls, context = task_charts(figures)
    made = {
        "tool-lists.png": (tool_list_chart(figures), _tool_list_caption(figures)),
        "snapshots.png": (snapshot_chart(figures), _snapshot_caption(figures)),
        "clicks.png": (click_chart(figures), _click_caption(figures)),
        "tasks-calls.png": (calls, _task_caption(figures, "calls", "tool calls")),
        "tasks-context.png": (context, _task_caption(figures, "context_chars", "characters")),
        "introspection.png": (introspection_chart(figures), _introspection_caption(figures)),
    }
    return {name: (chart, caption) for name, (chart, caption) in made.items() if chart is not None}


# ------------------------------------------------------------------ captions: the ratio a reader looks for


def _best_peer(values: Iterable[tuple[str, float]]) -> tuple[str, float] | None:
    peers = [(s, v) for s, v in values if s in PEER_LABELS and v > 0]
    return min(peers, key=lambda p: p[1]) if peers else None


def _tool_list_caption(figures: Figures) -> str:
    rows = figures.get("tool_lists") or []
    ours = [r["chars"] for r in rows if r["series"] == OURS and r["state"] != "at start"]
    peer = _best_peer((r["series"], r["chars"]) for r in rows)
    if not ours or not peer:
        return "tabmcp lists only the tools that work in the current state."
    most = max(ours)
    return f"On a page, tabmcp's list is at most {most / peer[1]:.2f}× {peer[0]}'s ({n(most)} vs {n(peer[1])} chars)."


def _snapshot_caption(figures: Figures) -> str:
    rows = figures.get("snapshots") or []
    parts = []
    for page in dict.fromkeys(r["page"] for r in rows):
        ours = next((r["first_chars"] for r in rows if r["page"] == page and r["series"] == OURS), None)
        peer = _best_peer((r["series"], r["first_chars"]) for r in rows if r["page"] == page)
        if ours and peer:
            parts.append(f"{page}: 1/{peer[1] / ours:.0f} of {peer[0]}'s")
    return ("tabmcp's snapshot, " + "; ".join(parts) + ".") if parts else "Snapshot sizes per page."


def _click_caption(figures: Figures) -> str:
    rows = figures.get("clicks") or []
    ours = next((r["median_ms"] for r in rows if r["series"] == OURS), None)
    peer = _best_peer((r["series"], r["median_ms"]) for r in rows)
    if not ours or not peer:
        return "Median click latency."
    return f"tabmcp clicks {peer[1] / ours:.1f}× faster than {peer[0]} (median {ours:.1f} ms vs {peer[1]:.1f} ms)."


def _task_caption(figures: Figures, field: str, what: str) -> str:
    rows = [r for r in figures.get("tasks") or [] if r["ok"]]
    ours = sum(r[field] for r in rows if r["series"] == OURS)
    theirs = sum(r[field] for r in rows if r["series"] in PEER_LABELS)
    if not ours or not theirs:
        return f"{what.capitalize()} per task."
    text = f"Over all tasks, tabmcp needs {ours / theirs:.2f}× the {what} of Playwright MCP ({n(ours)} vs {n(theirs)})."
    if field == "context_chars":
        results = sum(r.get("result_chars", 0) for r in rows if r["series"] == OURS)
        peer_results = sum(r.get("result_chars", 0) for r in rows if r["series"] in PEER_LABELS)
        if results and peer_results:
            text += (
                f" Tool results alone: {results / peer_results:.2f}×; the rest of tabmcp's characters are the"
                " tools/list it re-reads after each list_changed."
            )
    return text


def _introspection_caption(figures: Figures) -> str:
    rows = figures.get("introspection") or []
    if len(rows) < 2:
        return "From capture to tool list."
    first, last = rows[0], rows[-1]
    time, size = last["total_ms"] / first["total_ms"], last["controls"] / first["controls"]
    growth = "less than" if time < size else "more than"
    return f"{time:.1f}× the time for {size:.1f}× the controls: {growth} linear growth."


# ------------------------------------------------------------------ the document


def section(figures: Figures, made: dict[str, tuple[Chart, str]]) -> str:
    lines = [
        "## At a glance",
        "",
        f"Drawn by `make bench` (`bench/all.py`, `bench/glance.py`) from the run of {figures.get('measured', '?')}; "
        "the tables below have every figure and how it is measured. Lower is better in every chart.",
    ]
    if figures.get("skipped"):
        lines += ["", "Not measured in this run: " + "; ".join(figures["skipped"]) + "."]
    if figures.get("errors"):
        lines += ["", "Failures in this run: " + "; ".join(figures["errors"]) + "."]
    for name, (chart, caption) in made.items():
        lines += ["", f"![{chart.title}](benchmarks/{name})", "", caption]
    return "\n".join(lines)


def place(text: str, body: str) -> str:
    """The block right before ``## Results`` (after the run's header), wherever an earlier write left it."""
    text = "".join(part for part in _without(text, KEY))
    new = doc_sections.block(KEY, body) + "\n"
    at = re.search(r"^## Results", text, re.M)
    if at is None:
        return text.rstrip("\n") + "\n\n" + new
    return text[: at.start()] + new + text[at.start() :]


def _without(text: str, key: str) -> list[str]:
    for found in doc_sections.BLOCK.finditer(text):
        if found.group("key") == key:
            return [text[: found.start()], text[found.end() :].lstrip("\n")]
    return [text]


def write(figures: Figures, doc: Path = DOC, images: Path = IMAGES) -> list[Path]:
    images.mkdir(parents=True, exist_ok=True)
    (images / "figures.json").write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    made = charts(figures)
    paths = [save(chart, images / name) for name, (chart, _) in made.items()]
    old = doc.read_text(encoding="utf-8") if doc.exists() else "# Benchmarks\n"
    doc.write_text(place(old, section(figures, made)), encoding="utf-8")
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.glance", description=__doc__.split("\n\n")[0])
    parser.add_argument("--figures", type=Path, default=IMAGES / "figures.json", help="figures to draw from")
    args = parser.parse_args(argv)
    for path in write(json.loads(args.figures.read_text(encoding="utf-8"))):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
