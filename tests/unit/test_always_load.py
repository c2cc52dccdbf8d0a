"""Claude Code's ``anthropic/alwaysLoad`` on the listed tools, as ``always_load`` says (an in-process
server, the MCP SDK's client, both protocol eras)."""

from __future__ import annotations

import logging

import pytest
from mcp import Client

from tabmcp.config import Settings
from tabmcp.introspect.api import PageTool, ToolHints
from tabmcp.server import TabmcpServer, core_tool_listing, tabmcp_server
from tabmcp.tools.catalog import CATALOG
from tabmcp.tools.listing import page_tool_listing

ALWAYS = "anthropic/alwaysLoad"


def app(**settings: object) -> TabmcpServer:
    return tabmcp_server(Settings(ws_port=0, native_bridge=False, **settings))  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_default_marks_connect_browser(mode: str) -> None:
    async with Client(app(), mode=mode) as client:  # type: ignore[arg-type]
        (tool,) = (await client.list_tools()).tools
    assert tool.name == "connect_browser" and tool.meta == {ALWAYS: True}


async def test_nothing_marked() -> None:
    async with Client(app(always_load=[])) as client:
        (tool,) = (await client.list_tools()).tools
    assert tool.meta is None


def test_listings_carry_the_mark_only_when_asked() -> None:
    snapshot = next(t for t in CATALOG if t.name == "snapshot")
    assert core_tool_listing(snapshot, True).meta == {ALWAYS: True}
    assert core_tool_listing(snapshot).meta is None
    page = PageTool(name="search_books", title="Search books", description="Searches.", input_schema={"type": "object"},
                    hints=ToolHints(read_only=True), plan=())  # fmt: skip
    assert page_tool_listing(page, always_load=True).model_dump(by_alias=True)["_meta"] == {ALWAYS: True}
    assert "_meta" not in page_tool_listing(page).model_dump(by_alias=True, exclude_none=True)


def test_a_name_that_is_no_tool_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="tabmcp.app"):
        app(always_load=["page", "snapshots"])
    assert "always_load names no tool: snapshots" in caplog.text
