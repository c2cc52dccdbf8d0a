"""The browser state machine: the availability table and when list_changed fires."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from tabmcp import state as s
from tabmcp.config import Settings
from tabmcp.introspect.api import Arg, PageTool, PlanStep, ToolHints
from tabmcp.protocol import Target
from tabmcp.tools.catalog import CATALOG as ALL_TOOLS

CATALOG = [t for t in ALL_TOOLS if t.enabled(Settings())]  # as a server with default settings has it
PAGE_AGENT = {"snapshot", "interact", "navigate", "wait_for", "screenshot", "console"}

BROWSER = s.Browser("Chromium", "126.0")
SEARCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"query": {"type": "string"}},
    "required": ["query"],
}
READ_ONLY = ToolHints(read_only=True)


def page_tool(
    name: str = "search_inbox",
    schema: dict[str, Any] | None = None,
    hints: ToolHints = READ_ONLY,
) -> PageTool:
    return PageTool(
        name=name,
        description="Search the inbox",
        input_schema=SEARCH_SCHEMA if schema is None else schema,
        plan=(PlanStep("fill", target=Target(ref="e3"), value=Arg("query")),),
        hints=hints,
        element_ref="e2",
    )


def tab(tab_id: int, title: str = "", tools: tuple[PageTool, ...] | None = None) -> s.Tab:
    return s.Tab(id=tab_id, title=title, url=f"https://site{tab_id}.test/", status="complete", tools=tools)


def connected(*tabs: s.Tab) -> s.BrowserState:
    return s.apply(s.BrowserState(), s.ExtensionConnected(BROWSER, tabs))


def focused(tab_id: int, tools: tuple[PageTool, ...], *tabs: s.Tab) -> s.BrowserState:
    return s.apply(connected(*tabs), s.TabFocused(tab_id, tools))


def core_names(state: s.BrowserState) -> set[str]:
    return {t.name for t in s.visible_core_tools(state, CATALOG)}


def step(state: s.BrowserState, event: s.Event) -> s.Transition:
    return s.step(state, event, CATALOG)


# ----------------------------------------------------------------- availability table


@pytest.mark.parametrize(
    ("state", "mode", "expected"),
    [
        (s.BrowserState(), s.Mode.DISCONNECTED, {"connect_browser"}),
        (connected(), s.Mode.CONNECTED_NO_TABS, {"list_tabs", "open_tab"}),
        (connected(tab(1), tab(2)), s.Mode.CONNECTED_TABS, {"list_tabs", "open_tab", "focus_tab"}),
        (focused(1, (), tab(1)), s.Mode.FOCUSED, {"list_tabs", "open_tab", "focus_tab", "close_tab", *PAGE_AGENT}),
    ],
    ids=["disconnected", "no-tabs", "tabs-none-focused", "focused"],
)
def test_availability_table(state: s.BrowserState, mode: s.Mode, expected: set[str]) -> None:
    assert state.mode is mode
    assert core_names(state) == expected


def test_evaluate_exists_only_when_the_settings_enable_it() -> None:
    state = focused(1, (), tab(1))
    enabled = [t for t in ALL_TOOLS if t.enabled(Settings(enable_evaluate=True))]
    assert "evaluate" not in core_names(state)
    assert "evaluate" in {t.name for t in s.visible_core_tools(state, enabled)}
    assert "evaluate" not in {t.name for t in s.visible_core_tools(connected(tab(1)), enabled)}


NL_TOOLS = [t for t in ALL_TOOLS if t.enabled(Settings(nl_tools=True))]
WITH_MODEL = Settings(nl_tools=True, nl_model_base_url="http://m/v1", nl_model="m")
NL_MODEL_TOOLS = [t for t in ALL_TOOLS if t.enabled(WITH_MODEL)]
NL_ELEMENT = {"ai_tap", "ai_input", "ai_hover", "ai_keyboard_press", "ai_scroll"}
NL_MODEL = {"ai_query", "ai_assert", "ai_wait_for", "ai_action"}


def test_natural_language_tools_follow_their_settings_and_the_state() -> None:
    def names(state: s.BrowserState, catalog: list[Any]) -> set[str]:
        return {t.name for t in s.visible_core_tools(state, catalog)} - core_names(state)

    assert not {t.name for t in CATALOG} & (NL_ELEMENT | NL_MODEL)  # off by default
    assert names(s.BrowserState(), NL_MODEL_TOOLS) == set()
    assert names(connected(), NL_TOOLS) == {"ai_connect_new_tab"}
    assert names(connected(tab(1)), NL_TOOLS) == {"ai_connect_new_tab", "ai_connect_current_tab"}
    verbs = {"ai_connect_new_tab", "ai_connect_current_tab", "ai_disconnect"}
    assert names(focused(1, (), tab(1)), NL_TOOLS) == verbs | NL_ELEMENT  # the model's tools need a model
    assert names(focused(1, (), tab(1)), NL_MODEL_TOOLS) == verbs | NL_ELEMENT | NL_MODEL
    # a model without nl_tools lists nothing
    no_switch = Settings(nl_model_base_url="http://m/v1", nl_model="m")
    assert not [t for t in ALL_TOOLS if t.enabled(no_switch) and t.name.startswith("ai_")]


def test_releasing_focus_keeps_the_tabs_and_changes_the_list() -> None:
    state = focused(1, (page_tool(),), tab(1), tab(2))
    moved = step(state, s.FocusReleased())
    assert moved.list_changed
    assert moved.state.mode is s.Mode.CONNECTED_TABS
    assert set(moved.state.tabs) == {1, 2}
    assert moved.state.page_tools == ()
    assert moved.state.tabs[1].tools == (page_tool(),)  # its tools are kept for list_tabs' count
    again = step(moved.state, s.FocusReleased())
    assert not again.list_changed and again.state == moved.state
    assert s.apply(s.BrowserState(), s.FocusReleased()) == s.BrowserState()  # not connected: nothing to release


def test_page_tools_are_visible_only_for_the_focused_tab() -> None:
    inbox, flights = page_tool("search_inbox"), page_tool("search_flights")
    state = focused(1, (inbox,), tab(1), tab(2))
    state = s.apply(state, s.PageToolsChanged(2, (flights,)))

    assert state.page_tools == (inbox,)
    assert state.tabs[2].tools == (flights,)  # kept for when tab 2 is focused, but not listed


def test_no_page_tools_when_nothing_is_focused() -> None:
    state = connected(tab(1, tools=(page_tool(),)))
    assert state.mode is s.Mode.CONNECTED_TABS
    assert state.page_tools == ()


# ----------------------------------------------------------------- list_changed


def test_connect_changes_the_list() -> None:
    t = step(s.BrowserState(), s.ExtensionConnected(BROWSER))
    assert t.list_changed
    assert t.state.mode is s.Mode.CONNECTED_NO_TABS
    assert t.state.browser == BROWSER


def test_connect_with_tabs_lands_in_tabs_none_focused() -> None:
    t = step(s.BrowserState(), s.ExtensionConnected(BROWSER, (tab(1), tab(2))))
    assert t.state.mode is s.Mode.CONNECTED_TABS
    assert set(t.state.tabs) == {1, 2}
    assert t.state.focused_tab_id is None


def test_first_tab_created_changes_the_list() -> None:
    t = step(connected(), s.TabCreated(tab(1)))
    assert t.list_changed  # focus_tab appears
    assert "focus_tab" in core_names(t.state)


def test_unfocused_tab_created_while_tabs_exist_does_not_change_the_list() -> None:
    t = step(connected(tab(1)), s.TabCreated(tab(2)))
    assert not t.list_changed
    assert set(t.state.tabs) == {1, 2}


def test_a_late_tab_created_for_a_known_tab_keeps_the_newer_state() -> None:
    """open_tab's reply ("loading") can arrive after the browser's own "complete" for that tab."""
    loaded = replace(tab(2), status="complete", title="Loaded")
    before = connected(tab(1), loaded)
    t = step(before, s.TabCreated(replace(tab(2), status="loading", title="")))
    assert t.state.tabs[2] == loaded and not t.list_changed


def test_unfocused_tab_created_while_focused_does_not_change_the_list() -> None:
    before = focused(1, (page_tool(),), tab(1))
    t = step(before, s.TabCreated(tab(2)))
    assert not t.list_changed
    assert t.state.focused_tab_id == 1


def test_focus_changes_the_list() -> None:
    t = step(connected(tab(1)), s.TabFocused(1, (page_tool(),)))
    assert t.list_changed
    assert t.state.mode is s.Mode.FOCUSED
    assert t.state.page_tools == (page_tool(),)


def test_focus_without_page_tools_still_changes_the_list() -> None:
    t = step(connected(tab(1)), s.TabFocused(1, ()))
    assert t.list_changed  # close_tab appears
    assert "close_tab" in core_names(t.state)


def test_refocusing_the_same_tab_with_identical_tools_does_not_change_the_list() -> None:
    before = focused(1, (page_tool(),), tab(1))
    t = step(before, s.TabFocused(1, (page_tool(),)))
    assert not t.list_changed
    assert t.state.focused_tab_id == 1


def test_focusing_another_tab_with_other_tools_changes_the_list() -> None:
    before = focused(1, (page_tool("search_inbox"),), tab(1), tab(2))
    t = step(before, s.TabFocused(2, (page_tool("search_flights"),)))
    assert t.list_changed
    assert t.state.focused_tab_id == 2
    assert [p.name for p in t.state.page_tools] == ["search_flights"]


def test_page_tools_changed_with_identical_tools_does_not_change_the_list() -> None:
    before = focused(1, (page_tool(),), tab(1))
    assert not step(before, s.PageToolsChanged(1, (page_tool(),))).list_changed


def test_page_tools_changed_with_a_different_schema_changes_the_list() -> None:
    before = focused(1, (page_tool(),), tab(1))
    other_schema = {"type": "object", "properties": {"query": {"type": "string", "maxLength": 80}}}
    t = step(before, s.PageToolsChanged(1, (page_tool(schema=other_schema),)))
    assert t.list_changed
    assert t.state.page_tools[0].input_schema == other_schema


def test_page_tools_changed_with_different_annotations_changes_the_list() -> None:
    before = focused(1, (page_tool(),), tab(1))
    t = step(before, s.PageToolsChanged(1, (page_tool(hints=ToolHints(destructive=True)),)))
    assert t.list_changed


def test_page_tools_changed_to_none_changes_the_list() -> None:
    before = focused(1, (page_tool(),), tab(1))
    t = step(before, s.PageToolsChanged(1, ()))
    assert t.list_changed
    assert t.state.page_tools == ()


def test_page_tools_changed_for_an_unfocused_tab_does_not_change_the_list() -> None:
    before = focused(1, (page_tool(),), tab(1), tab(2))
    t = step(before, s.PageToolsChanged(2, (page_tool("search_flights"),)))
    assert not t.list_changed
    assert [p.name for p in t.state.tabs[2].tools or ()] == ["search_flights"]


def test_title_change_does_not_change_the_list() -> None:
    before = focused(1, (page_tool(),), tab(1, title="Inbox"))
    t = step(before, s.TabUpdated(tab(1, title="Inbox (3)")))
    assert not t.list_changed
    assert t.state.tabs[1].title == "Inbox (3)"


def test_tab_updated_keeps_the_introspected_tools() -> None:
    tools = (page_tool(),)
    before = focused(1, tools, tab(1, title="Inbox"))
    after = s.apply(before, s.TabUpdated(tab(1, title="Inbox (3)")))  # a browser report: tools=None
    assert after.tabs[1].tools == tools
    assert after.page_tools == tools


def test_tab_updated_for_a_new_id_adds_the_tab() -> None:
    after = s.apply(connected(tab(1)), s.TabUpdated(tab(5, title="New")))
    assert after.tabs[5].title == "New"
    assert after.tabs[5].tools is None


def test_closing_the_focused_tab_changes_the_list_and_clears_focus() -> None:
    before = focused(1, (page_tool(),), tab(1), tab(2))
    t = step(before, s.TabClosed(1))
    assert t.list_changed
    assert t.state.focused_tab_id is None
    assert t.state.mode is s.Mode.CONNECTED_TABS
    assert t.state.page_tools == ()
    assert set(t.state.tabs) == {2}


def test_closing_an_unfocused_tab_does_not_change_the_list() -> None:
    before = focused(1, (page_tool(),), tab(1), tab(2))
    t = step(before, s.TabClosed(2))
    assert not t.list_changed
    assert t.state.focused_tab_id == 1


def test_closing_the_last_tab_leaves_connected_no_tabs() -> None:
    t = step(connected(tab(1)), s.TabClosed(1))
    assert t.list_changed  # focus_tab goes away
    assert t.state.mode is s.Mode.CONNECTED_NO_TABS
    assert core_names(t.state) == {"list_tabs", "open_tab"}


def test_crash_of_the_focused_tab_changes_the_list() -> None:
    before = focused(1, (page_tool(),), tab(1), tab(2))
    t = step(before, s.TabCrashed(1))
    assert t.list_changed
    assert t.state.focused_tab_id is None
    assert 1 not in t.state.tabs


def test_crash_of_an_unfocused_tab_does_not_change_the_list() -> None:
    before = focused(1, (page_tool(),), tab(1), tab(2))
    t = step(before, s.TabCrashed(2))
    assert not t.list_changed
    assert t.state.focused_tab_id == 1
    assert 2 not in t.state.tabs


def test_disconnect_from_focused_goes_to_disconnected() -> None:
    before = focused(1, (page_tool(),), tab(1))
    t = step(before, s.ExtensionDisconnected())
    assert t.list_changed
    assert t.state.mode is s.Mode.DISCONNECTED
    assert t.state.tabs == {}
    assert t.state.focused_tab_id is None
    assert core_names(t.state) == {"connect_browser"}


def test_disconnect_while_disconnected_does_not_change_the_list() -> None:
    assert not step(s.BrowserState(), s.ExtensionDisconnected()).list_changed


def test_reconnecting_forgets_the_old_focus() -> None:
    before = focused(1, (page_tool(),), tab(1))
    after = s.apply(s.apply(before, s.ExtensionDisconnected()), s.ExtensionConnected(BROWSER, (tab(1),)))
    assert after.mode is s.Mode.CONNECTED_TABS
    assert after.page_tools == ()


@pytest.mark.parametrize(
    "event",
    [
        s.TabCreated(tab(1)),
        s.TabUpdated(tab(1)),
        s.TabClosed(1),
        s.TabCrashed(1),
        s.TabFocused(1, (page_tool(),)),
        s.PageToolsChanged(1, (page_tool(),)),
    ],
    ids=lambda e: type(e).__name__,
)
def test_tab_events_while_disconnected_are_ignored(event: s.Event) -> None:
    t = step(s.BrowserState(), event)
    assert t.state == s.BrowserState()
    assert not t.list_changed


@pytest.mark.parametrize(
    "event",
    [s.TabClosed(99), s.TabCrashed(99), s.TabFocused(99, (page_tool(),)), s.PageToolsChanged(99, ())],
    ids=lambda e: type(e).__name__,
)
def test_events_for_unknown_tabs_leave_the_state_unchanged(event: s.Event) -> None:
    before = focused(1, (page_tool(),), tab(1), tab(2))
    t = step(before, event)
    assert t.state == before
    assert not t.list_changed


def test_apply_rejects_something_that_is_not_an_event() -> None:
    with pytest.raises(TypeError):
        s.apply(connected(), object())  # type: ignore[arg-type]
