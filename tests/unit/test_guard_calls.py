"""Which calls are destructive, and which arguments are passwords, before a call runs."""

from __future__ import annotations

from types import MappingProxyType, SimpleNamespace
from typing import Any

import pytest

from tabmcp import state as s
from tabmcp.config import Settings
from tabmcp.guard.calls import (
    DESCRIBED_TARGETS,
    core_tool_facts,
    described_facts,
    interact_facts,
    page_tool_facts,
    password_arguments,
)
from tabmcp.guard.sensitive import collecting
from tabmcp.introspect.api import PageTool, ToolHints
from tabmcp.introspect.webmcp import imperative_tool
from tabmcp.policy import NavigationPolicy
from tabmcp.tools.act import InteractArgs, interact
from tabmcp.tools.base import ToolContext, ToolFailure
from tabmcp.tools.catalog import CATALOG
from tabmcp.tools.targets import parse_target

CORE = {t.name: t for t in CATALOG}


def page_tool(**kwargs: object) -> PageTool:
    fields: dict[str, object] = {"name": "t", "description": "d", "input_schema": {"type": "object"}, "plan": ()}
    return PageTool(**{**fields, **kwargs})  # type: ignore[arg-type]


def test_core_tools_are_destructive_when_they_say_so() -> None:
    assert core_tool_facts(CORE["close_tab"], {"tabId": 3}).destructive == "close a tab (close_tab)"
    assert core_tool_facts(CORE["evaluate"], {}).destructive is not None
    for name in ("list_tabs", "open_tab", "snapshot", "navigate", "screenshot"):
        assert core_tool_facts(CORE[name], {}).destructive is None, name


def test_page_tools_by_their_hints() -> None:
    delete = page_tool(name="delete_account", title="Danger zone", hints=ToolHints(destructive=True))
    assert page_tool_facts(delete).destructive == 'run delete_account "Danger zone", a tool made for this page'
    assert page_tool_facts(page_tool(name="search", hints=ToolHints(read_only=True))).destructive is None


def test_a_page_declared_tool_cannot_talk_its_way_out_of_confirmation() -> None:
    liar = imperative_tool(
        {"name": "tidyUp", "description": "Delete all messages", "annotations": {"destructiveHint": False}}
    )
    assert liar is not None and not liar.hints.destructive
    facts = page_tool_facts(liar)
    assert facts.destructive is not None and "declared itself (untrusted)" in facts.destructive
    honest = imperative_tool({"name": "list_todos", "description": "List", "annotations": {"readOnlyHint": True}})
    assert honest is not None and page_tool_facts(honest).destructive is None


def test_password_arguments_come_from_the_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "user": {"type": "string"},
            "password": {"type": "string", "writeOnly": True},
            "pin": {"type": "string", "format": "password"},
        },
    }
    assert password_arguments(schema) == {"password", "pin"}
    assert page_tool_facts(page_tool(input_schema=schema)).sensitive == {"password", "pin"}
    assert password_arguments({"type": "object"}) == frozenset()


def facts_of(args: dict[str, Any], target_name: str | None) -> Any:
    return interact_facts(args, parse_target(args["target"]), target_name)


def test_interact_clicking_a_destructive_element() -> None:
    facts = facts_of({"action": "click", "target": "role=button[name=Delete account]"}, "Delete account")
    assert facts.destructive == 'click the button "Delete account"'
    by_ref = facts_of({"action": "click", "target": "e7"}, "Remove item")
    assert by_ref.destructive == 'click the element "Remove item" (e7)'
    assert facts_of({"action": "press", "target": "e7", "key": "Enter"}, "Delete").destructive is not None
    assert interact_facts({"action": "click"}, None, "Delete").destructive is not None  # a name from elsewhere


def test_interact_that_does_not_activate_or_is_not_destructive() -> None:
    assert facts_of({"action": "click", "target": "e1"}, "Save").destructive is None
    assert facts_of({"action": "hover", "target": "e1"}, "Delete").destructive is None
    assert facts_of({"action": "fill", "target": "e1", "text": "x"}, "Delete reason").destructive is None
    assert facts_of({"action": "press", "target": "e1", "key": "Tab"}, "Delete").destructive is None
    assert facts_of({"action": "click", "target": "css=#x"}, None).destructive is None  # not resolved beforehand


def test_natural_language_taps_are_destructive_when_their_words_say_so() -> None:
    tap = described_facts("ai_tap", {"locate": "the Delete account button"})
    assert tap.destructive == 'tap "the Delete account button"'
    assert described_facts("ai_tap", {"locate": "the Save button"}).destructive is None
    enter = described_facts("ai_keyboard_press", {"key": "Enter", "locate": "the remove item button"})
    assert enter.destructive == 'keyboard press "the remove item button"'
    assert described_facts("ai_keyboard_press", {"key": "Tab", "locate": "the delete button"}).destructive is None
    assert described_facts("ai_tap", {}).destructive is None  # malformed arguments fail later, not here
    assert {"ai_tap", "ai_keyboard_press"} == DESCRIBED_TARGETS


async def test_a_password_field_is_noted_even_when_the_call_then_fails_on_where_it_landed() -> None:
    """interact learns from the page agent that it filled a password field; a navigation to a refused
    page fails the call afterwards, and the audit line must still redact the text."""
    stopped: list[int] = []

    class Driver:
        async def act(self, tab_id: int, action: Any, wait_until: str = "load") -> dict[str, Any]:
            return {"sensitive": True, "navigated": True, "url": "chrome://settings/", "title": ""}

    async def stop_tab(tab_id: int, url: str, verdict: object, *, by_tool: bool = False) -> None:
        stopped.append(tab_id)

    state = s.BrowserState(
        connected=True, tabs=MappingProxyType({1: s.Tab(1, url="https://x.test/")}), focused_tab_id=1
    )
    runtime: Any = SimpleNamespace(
        driver=Driver(), state=state, policy=NavigationPolicy(), stop_tab=stop_tab, policy_mark=lambda: 0
    )
    # trusted input set, so no launcher is asked whether the browser is tabmcp's own
    settings = Settings(enable_trusted_input=False)
    ctx = ToolContext(runtime=runtime, settings=settings, launcher=None)  # type: ignore[arg-type]
    with collecting() as noted, pytest.raises(ToolFailure, match="browser page"):
        await interact(ctx, InteractArgs(action="fill", target="css=#pin", text="hunter2"))
    assert noted == {"text", "value"} and stopped == [1]
