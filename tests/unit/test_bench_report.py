"""The benchmark report's pictures (bench/charts.py, bench/glance.py): figures read from the entry points'
real JSON shapes, charts whose bars are as long as their values say, and the block's place in the doc."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench import claude_cost, glance
from bench.adapters.base import Snapshot
from bench.cases import Clicks, PageSnap, Result
from bench.charts import BACKGROUND, COLOURS, Bar, Chart, Group, render
from bench.claude_model import ModelMeter, ScriptedModel, page_tool_test
from bench.mcp_stdio import ToolList, server_environ
from bench.run import plain
from bench.task_meter import Entry
from bench.tasks import Run
from PIL import Image
from tests.claude_code.messages_api import Turn


def _snap(page: str, chars: int, first: int, pages: int) -> PageSnap:
    return PageSnap(page, 300_000, 0.5, Snapshot(chars, pages, first, 0.1, 0.2, "", None, []), [0.1, 0.2, 0.3])


def _results() -> list[Result]:
    ours = Result(
        "tabmcp",
        "tabmcp",
        tool_lists={
            "at start": ToolList(1, 500, ("connect_browser",)),
            "connected": ToolList(2, 900, ("list_tabs", "open_tab")),
            "focused on counter.html": ToolList(10, 8_600, ()),
        },
        clicks=Clicks([10.0, 12.0, 14.0, 40.0], 3, True, 14),
        doc=_snap("functions.html", 15_000, 15_000, 1),
        big=_snap("genindex-all.html", 700_000, 30_000, 24),
    )
    peer = Result(
        "playwright",
        "Playwright MCP",
        tool_lists={"at start": ToolList(25, 21_000, ())},
        clicks=Clicks([560.0, 570.0, 580.0], 3, True, 245),
        doc=_snap("functions.html", 260_000, 260_000, 1),
        big=_snap("genindex-all.html", 3_500_000, 3_500_000, 1),
    )
    return [peer, ours]


def _bar_lengths(image: Image.Image, colour: tuple[int, int, int]) -> list[int]:
    """The length in pixels of each bar of one colour, top to bottom (one per run of rows)."""
    pixels = image.load()
    lengths, previous = [], 0
    for y in range(image.height):
        length = sum(1 for x in range(image.width) if pixels[x, y] == colour)
        if length and not previous:
            lengths.append(length)
        previous = length
    return lengths


def test_figures_come_from_bench_runs_json() -> None:
    figures = glance.from_run(json.loads(json.dumps(plain(_results()))))
    lists = {(r["series"], r["state"]): r["chars"] for r in figures["tool_lists"]}
    assert lists[("tabmcp", "focused on counter.html")] == 8_600 and lists[("Playwright MCP", "at start")] == 21_000
    clicks = {r["series"]: (r["median_ms"], r["p90_ms"]) for r in figures["clicks"]}
    assert clicks["tabmcp"] == (13.0, 40.0) and clicks["Playwright MCP"] == (570.0, 580.0)
    big = next(r for r in figures["snapshots"] if r["series"] == "tabmcp" and r["page"] == "genindex-all.html")
    assert (big["first_chars"], big["chars"], big["pages"]) == (30_000, 700_000, 24)


def test_task_figures_are_summarised_as_the_task_tables_are() -> None:
    def run(server: str, calls: int, chars: int, ok: bool = True) -> dict[str, object]:
        entries = [Entry("tools/list", "at start", 500, 0.0, True)] + [
            Entry("call", f"tool{i}", chars // calls, 0.1, False) for i in range(calls)
        ]
        return plain(Run(server, "mail", ok, "" if ok else "boom", {}, entries))

    runs = [run("tabmcp", 2, 1_000), run("tabmcp", 4, 3_000), run("tabmcp", 3, 2_100), run("playwright", 6, 9_000)]
    rows = {r["series"]: r for r in glance.from_tasks(json.loads(json.dumps(runs)))["tasks"]}
    assert rows["tabmcp"]["task"] == "Mail" and rows["tabmcp"]["calls"] == 3  # the median of the runs
    assert rows["tabmcp"]["context_chars"] == 2_100 + 500
    assert rows["Playwright MCP"]["calls"] == 6


def test_bars_are_as_long_as_their_values() -> None:
    chart = Chart("t", "ms", (Group("", (Bar("tabmcp", 10, "10"), Bar("Playwright MCP", 40, "40"))),))
    image = render(chart)
    (ours,) = _bar_lengths(image, COLOURS["tabmcp"])
    (theirs,) = _bar_lengths(image, COLOURS["Playwright MCP"])
    assert abs(theirs / ours - 4) < 0.1
    assert image.getpixel((0, 0)) == BACKGROUND


def test_the_part_of_a_bar_is_drawn_darker_in_proportion() -> None:
    image = render(Chart("t", "chars", (Group("", (Bar("tabmcp", 40, "", part=10),)),)))
    darker = tuple(round(c * 0.6) for c in COLOURS["tabmcp"])
    (rest,) = _bar_lengths(image, COLOURS["tabmcp"])
    (part,) = _bar_lengths(image, darker)
    assert abs(part / (part + rest) - 0.25) < 0.02


def test_a_log_chart_keeps_order_and_shows_small_values() -> None:
    bars = (Bar("tabmcp", 30_000, ""), Bar("Chrome DevTools MCP", 2_000_000, ""), Bar("Playwright MCP", 3_500_000, ""))
    image = render(Chart("t", "chars", (Group("page", bars),), log=True))
    ours, devtools, playwright = (_bar_lengths(image, COLOURS[b.series])[0] for b in bars)
    assert 0 < ours < devtools < playwright
    assert devtools / ours < 10  # log: 66× the value is not 66× the length


def test_the_report_draws_every_chart_and_places_its_block_before_the_results(tmp_path: Path) -> None:
    figures = glance.merge(
        glance.from_run(json.loads(json.dumps(plain(_results())))),
        glance.from_introspection([
            {"driver": "extension", "page": "1k", "controls": 1_000, "total_ms": 30.0},
            {"driver": "extension", "page": "5k", "controls": 5_000, "total_ms": 60.0},
            {"driver": "cdp", "page": "5k", "controls": 5_000, "total_ms": 50.0},
        ]),
    )
    figures["measured"] = "today"
    doc = tmp_path / "benchmarks.md"
    doc.write_text("# Benchmarks\n\nheader\n\n## Results\n\ntable\n")
    paths = glance.write(figures, doc, tmp_path / "benchmarks")
    assert sorted(p.name for p in paths) == ["clicks.png", "introspection.png", "snapshots.png", "tool-lists.png"]
    assert all(Image.open(p).format == "PNG" for p in paths)
    text = doc.read_text()
    assert text.index("## At a glance") < text.index("## Results")
    assert "![Click by ref" in text and "(benchmarks/clicks.png)" in text
    assert "43.8× faster than Playwright MCP" in text  # 570 / 13
    assert "2.0× the time for 5.0× the controls: less than linear growth" in text
    glance.write(figures, doc, tmp_path / "benchmarks")  # a second run replaces the block, not adds one
    assert doc.read_text().count("## At a glance") == 1
    assert json.loads((tmp_path / "benchmarks" / "figures.json").read_text())["measured"] == "today"


def test_servers_under_measure_do_not_inherit_the_shells_tabmcp_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABMCP_BROWSER", "chromium")  # would turn the extension adapter into CDP
    monkeypatch.setenv("TABMCP_BENCH_PEERS", "/peers")
    monkeypatch.setenv("HOME", "/home/bench")
    env = server_environ({"TABMCP_WS_PORT": "0"})
    assert "TABMCP_BROWSER" not in env
    assert env["TABMCP_BENCH_PEERS"] == "/peers" and env["HOME"] == "/home/bench" and env["TABMCP_WS_PORT"] == "0"


# ------------------------------------------------------------------ bench.claude_tasks' pure parts


def test_the_cache_aware_cost_reads_the_shared_prefix_at_a_tenth_and_writes_the_rest() -> None:
    first = {"tools": [{"name": "a"}], "system": "s", "messages": [{"role": "user", "content": "hi"}]}
    second = {**first, "messages": [*first["messages"], {"role": "assistant", "content": "ok"}]}
    spent = claude_cost.cost([first, second])
    one, two = spent.requests
    assert one.cached_chars == 0 and one.units == pytest.approx(len(claude_cost.canonical(first)) * 1.25 / 4)
    assert two.cached_chars == len(claude_cost.canonical(first)) - 1  # up to the closing bracket of messages
    assert two.units == pytest.approx((two.cached_chars * 0.1 + two.new_chars * 1.25) / 4)
    assert not two.tools_changed and spent.changed == ()


def test_a_changed_tools_array_breaks_the_cache_before_system_and_messages() -> None:
    base = {"tools": [{"name": "a"}], "system": "x" * 1000, "messages": [{"role": "user", "content": "y" * 1000}]}
    changed = {**base, "tools": [{"name": "b"}]}
    spent = claude_cost.cost([base, changed])
    assert spent.requests[1].tools_changed and spent.requests[1].cached_chars < 15
    assert claude_cost.common_prefix("abcd", "abxd") == 2 and claude_cost.common_prefix("", "a") == 0


def _turn(index: int, tools: list[str], deferred: list[str] = (), result: str | None = None) -> Turn:
    messages: list[dict] = [{"role": "user", "content": "task\n" + "\n".join(deferred)}]
    if result is not None:
        messages.append({"role": "user", "content": [{"type": "tool_result", "content": result}]})
    return Turn(body={"tools": [{"name": n} for n in tools], "messages": messages}, at=0.0, index=index)


def test_the_scripted_model_loads_deferred_tools_with_its_plan_then_calls_and_reads_the_result() -> None:
    async def script(m: ModelMeter, url: str) -> dict:
        page = await m.call("connect_browser", {"url": url})
        listed = await m.call("search_inbox", {"query": "x"})
        return {"page": page, "listed": listed}

    p = "mcp__tabmcp__"
    model = ScriptedModel(
        script(ModelMeter(), "http://site"),
        prefix=p,
        page_tool=page_tool_test({"connect_browser"}),
        plan=("connect_browser", "search_inbox"),
    )
    reply = model(_turn(0, ["ToolSearch"], [p + "connect_browser"]))
    assert reply.calls == (("ToolSearch", {"query": f"select:{p}connect_browser"}),)
    reply = model(_turn(1, ["ToolSearch", p + "connect_browser"], [], result="loaded"))
    assert reply.calls == ((p + "connect_browser", {"url": "http://site"}),)
    # the page's tools are offered in the very next request: deferred, so one search loads them
    reply = model(_turn(2, ["ToolSearch", p + "connect_browser"], [p + "search_inbox"], result="on the page"))
    assert reply.calls == (("ToolSearch", {"query": f"select:{p}search_inbox"}),)
    reply = model(_turn(3, ["ToolSearch", p + "connect_browser", p + "search_inbox"], result="loaded"))
    assert reply.calls == ((p + "search_inbox", {"query": "x"}),)
    reply = model(_turn(4, [], result="two messages"))
    assert reply.text == "done" and model.finished and not model.error
    assert model.answer == {"page": "on the page", "listed": "two messages"}
    assert [(c.tool, c.offered_at_once, c.loaded_at_once, c.searches, c.page) for c in model.calls] == [
        ("connect_browser", True, False, 1, False),
        ("search_inbox", True, False, 1, True),
    ]
    assert model.tool_uses == 4 and model.searches == 2


def test_the_scripted_model_goes_through_call_page_tool_in_static_mode_and_fails_on_an_error() -> None:
    async def script(m: ModelMeter, url: str) -> dict:
        await m.call("star_repo")
        return {}

    p = "mcp__tabmcp__"
    static = [p + "list_page_tools", p + "call_page_tool"]
    model = ScriptedModel(script(ModelMeter(), ""), prefix=p, page_tool=page_tool_test(set()), static=True)
    assert model(_turn(0, static)).calls == ((p + "list_page_tools", {}),)
    reply = model(_turn(1, static, result="tools[1]{name}:\n  star_repo"))
    assert reply.calls == ((p + "call_page_tool", {"name": "star_repo", "arguments": {}}),)
    failed = _turn(2, static, result="rate limited")
    failed.body["messages"][-1]["content"][0]["is_error"] = True
    assert model(failed).text.startswith("failed: TaskFailed: star_repo: rate limited")
    assert model.calls[0].listings == 1 and model.answer is None


def test_the_static_scripted_model_takes_page_tools_told_in_an_answer_without_listing() -> None:
    async def script(m: ModelMeter, url: str) -> dict:
        page = await m.call("open_tab", {"url": url})
        await m.call("star_repo")
        return {"page": page}

    p = "mcp__tabmcp__"
    static = [p + "open_tab", p + "list_page_tools", p + "call_page_tool"]
    model = ScriptedModel(
        script(ModelMeter(), "http://site"), prefix=p, page_tool=page_tool_test({"open_tab"}), static=True
    )
    assert model(_turn(0, static)).calls == ((p + "open_tab", {"url": "http://site"}),)
    told = '{"pageTools": {"hint": "…", "tools": [{"name": "star_repo", "inputSchema": {}}]}}'
    reply = model(_turn(1, static, result="on the repo\n" + told))
    assert reply.calls == ((p + "call_page_tool", {"name": "star_repo", "arguments": {}}),)
    assert model(_turn(2, static, result="starred")).text == "done"
    assert model.answer == {"page": "on the repo"} and model.calls[1].listings == 0


def test_the_claude_report_compares_with_playwright_ranks_always_load_and_draws_its_chart(tmp_path: Path) -> None:
    from bench import claude_report
    from bench.claude_tasks import Run as ClaudeRun

    def run(variant: str, turns: int, units: float) -> ClaudeRun:
        return ClaudeRun(variant, "mail", ok=True, turns=turns, units=units, first_units=10.0, script_calls=turns - 2)

    runs = [
        run("tabmcp", 4, 50.0),
        run("load-none", 6, 60.0),
        run("load-page-connect", 3, 45.0),
        run("playwright", 8, 100.0),
    ]
    runs.append(ClaudeRun("tabmcp-static", "mail", ok=False, error="TaskFailed: no star_repo"))
    summary = claude_report.summarise(runs)
    text = claude_report.target_table(summary)
    assert "| Mail | 4 / 8 = 0.50 ✓ | 50 / 100 = 0.50 ✓ | failed | failed | 3 / 8 = 0.38 ✓ |" in text
    assert [k for k, *_ in claude_report.always_load_ranking(summary)] == ["load-page-connect", "tabmcp", "load-none"]
    assert "5 units (10.0%) below the next" in "\n".join(claude_report.recommendation(summary))
    path = claude_report.write_chart(summary, tmp_path / "claude.png")
    assert Image.open(path).format == "PNG"
    assert "**FAILED**" in claude_report.table(summary)
