"""A page tool as tools/list shows it: the hints MCP would assume left out, a title that only repeats
the name left out, a page-written tool's title always kept."""

from __future__ import annotations

from typing import Any

from tabmcp.introspect.api import PageTool, ToolHints
from tabmcp.tools.listing import page_tool_listing


def listed(**fields: Any) -> dict[str, Any]:
    tool = PageTool(**{"name": "keep_editing", "description": "Click it.", "input_schema": {"type": "object"},
                       "plan": (), **fields})  # fmt: skip
    return page_tool_listing(tool).model_dump(mode="json", by_alias=True, exclude_none=True)


def test_hints_say_only_what_mcp_would_not_assume() -> None:
    assert listed()["annotations"] == {"destructiveHint": False}  # MCP assumes destructive
    assert listed(hints=ToolHints(read_only=True))["annotations"] == {"readOnlyHint": True}
    writes = ToolHints(destructive=True, idempotent=True, open_world=False)
    expected = {"destructiveHint": True, "idempotentHint": True, "openWorldHint": False}
    assert listed(hints=writes)["annotations"] == expected


def test_a_title_that_only_repeats_the_name_is_left_out() -> None:
    assert "title" not in listed(title="Keep editing")
    assert "title" not in listed(title="Keep editing!")
    assert listed(title="Keep editing the page")["title"] == "Keep editing the page"
    assert listed(name="page_navigate", title="Page: Navigate", untrusted=True)["title"] == "Page: Navigate"
