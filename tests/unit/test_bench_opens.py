"""The open case's per-phase breakdown (bench/opens.py): a traced call's spans become rows that add
up to the client's time, nested phases counted once, and the tables written from them."""

from __future__ import annotations

from bench.opens import (
    ROWS,
    Opens,
    breakdown,
    captures_of,
    opens_section,
    page_tool_without_arguments,
    phases_table,
    target_s,
)
from bench.site import DOC_PAGE

OPEN = [
    {"name": "call", "at": 0.0, "ms": 430.0},
    {"name": "navigation", "at": 0.0, "ms": 300.0},
    {"name": "load", "at": 0.0, "ms": 250.0},
    {"name": "dialogs", "at": 250.0, "ms": 40.0},
    {"name": "agent", "at": 250.0, "ms": 40.0, "method": "holdsFocus", "pageMs": 0.1},
    {"name": "capture", "at": 300.0, "ms": 90.0, "chars": 1000},
    {"name": "agent", "at": 301.0, "ms": 85.0, "method": "capture", "pageMs": 60.0},
    {"name": "introspection", "at": 390.0, "ms": 30.0, "tools": 3},
    {"name": "notify", "at": 420.0, "ms": 1.0},
    {"name": "answer", "at": 421.0, "ms": 0.5},
    {"name": "rereads", "at": 421.5, "ms": 2.0, "heldMs": 0.0},
]
TOOL = [
    {"name": "page_tool", "at": 0.0, "ms": 50.0},
    {"name": "agent", "at": 1.0, "ms": 10.0, "method": "act", "pageMs": 4.0},
    {"name": "agent", "at": 12.0, "ms": 30.0, "method": "summary", "pageMs": 25.0},
    {"name": "capture", "at": 50.0, "ms": 3.0, "chars": 0, "unchanged": True},
    {"name": "agent", "at": 50.0, "ms": 3.0, "method": "capture", "pageMs": 0.0},
]


def test_an_open_breaks_down_into_rows_that_add_up_to_the_client_time() -> None:
    rows = breakdown(0.450, OPEN)
    assert set(rows) == {key for key, _ in ROWS}
    assert rows["navigation"] == 250 and rows["after_load"] == 50  # the flush is inside the navigation
    assert rows["capture_page"] == 60 and rows["capture_transfer"] == 30
    assert rows["introspection"] == 30 and rows["notice"] == 1 and rows["rereads"] == 2
    assert rows["agent_page"] == 0  # an agent call inside the navigation or the capture is theirs
    assert abs(rows["server"] - 6.5) < 0.01 and abs(rows["other"] - 20) < 0.01  # outside the server: 450 - 430
    assert abs(sum(rows.values()) - 450) < 0.01


def test_a_page_tool_call_counts_its_agent_calls_and_no_capture() -> None:
    rows = breakdown(0.060, TOOL)
    assert rows["agent_page"] == 29 and rows["agent_rest"] == 21
    assert rows["capture_page"] == 0 and rows["capture_transfer"] == 3
    assert rows["server"] == 0 and rows["other"] == 7  # no "call" span: all outside the phases is "other"
    assert captures_of([(0.06, TOOL), (0.45, OPEN)]) == [0, 1]  # a version check is no capture


def test_the_tables_show_the_target_and_each_driver() -> None:
    ext, cdp = Opens(tool_name="add_one"), Opens(tool_name="add_one")
    for opens, factor in ((ext, 1.0), (cdp, 2.0)):
        entry = opens.page(DOC_PAGE)
        entry.bare, entry.bare_tab = [0.2, 0.3, 0.25], [0.3, 0.4, 0.35]
        entry.open_tab = [0.45 * factor] * 3
        entry.navigate = [0.3 * factor] * 3
        entry.open_phases = [(0.45, OPEN)] * 3
        entry.navigate_phases = [(0.45, OPEN)] * 3
        opens.tool_phases = [(0.06, TOOL)]
    section = opens_section(ext, cdp, {DOC_PAGE: "291 KB"})
    # open_tab is held to new_page + goto (0.35 s: target 0.52 s), its ratio to the goto alone beside it
    targets = f"0.25 s | {target_s(0.25):.2f} s | 0.35 s | {target_s(0.35):.2f} s"
    row = f"`{DOC_PAGE}` (291 KB) | {targets} | 0.45 s (1.3× new_page+goto ✓; 1.8× goto ✗) | 0.30 s (1.2× bare) ✓"
    assert row in section, section
    assert "0.90 s (2.6× new_page+goto ✗; 3.6× goto ✗)" in section
    assert "0.60 s (2.4× bare) ✗" in section  # navigate: against the goto
    table = phases_table(ext, cdp)
    assert "`add_one`, CDP" in table and "| **total (client's wall clock)** | **450** |" in table
    assert opens_section(None, None, {}) == ""


def test_the_traced_page_tool_is_a_listed_tool_outside_the_core_catalog() -> None:
    # a page tool's title is left out when it only repeats the name: the core catalog tells them apart
    assert page_tool_without_arguments({"name": "add_one", "inputSchema": {"type": "object", "properties": {}}})
    assert not page_tool_without_arguments({"name": "snapshot", "inputSchema": {"type": "object"}})
    needs = {"name": "search", "inputSchema": {"type": "object", "required": ["query"]}}
    assert not page_tool_without_arguments(needs)
