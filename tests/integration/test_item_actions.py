"""Buttons every item of a page has (a notebook's notes, each with its own "Edit" and "close") end to
end: `tabmcp serve` over stdio, a real MCP client, headless Chromium on both drivers,
tests/fixtures/pages/story-river.html on 127.0.0.1. One tool per shared button, its ``item``
argument naming the item by its title; the item whose heading says it wins over one that only links
to it ("See also Beta"), and a name that fits no item answers with the items there are.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tabmcp.demo.client import text_of
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import serve

pytestmark = pytest.mark.usefixtures("driver_kind")

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"


@pytest.fixture(scope="module")
def pages() -> Any:
    with SiteServer(PAGES) as server:
        yield server


async def test_an_items_own_button_is_one_tool_that_takes_the_item(pages: SiteServer, server_log: object) -> None:
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        opened = await client.call_ok("open_tab", {"url": pages.url("story-river.html")})
        assert {"edit_this_note", "close_this_note"} <= set(opened["toolsAvailable"])
        tools = {t.name: t for t in await client.tools()}
        assert tools["edit_this_note"].input_schema["required"] == ["item"]
        assert "enum" not in tools["edit_this_note"].input_schema["properties"]["item"]  # no titles in the schema

        # Alpha links to Beta: the note titled Beta is the one edited
        await client.call_ok("edit_this_note", {"item": "Beta"})
        found = await client.call_ok("snapshot", {"find": "editing"})
        assert [m["text"] for m in found["matches"]] == ["editing Beta"]

        await client.call_ok("close_this_note", {"item": "Gamma"})
        found = await client.call_ok("snapshot", {"find": "closed"})
        assert [m["text"] for m in found["matches"]] == ["closed Gamma"]
        heads = await client.call_ok("snapshot", {})
        assert "Gamma" not in [n["name"] for n in heads["nodes"] if n["role"] == "heading"]

        missing = await client.call("edit_this_note", {"item": "Delta"})
        assert missing.is_error
        error = json.loads(text_of(missing))["error"]
        assert "Delta" in error and "Alpha" in error  # the items there are, to choose from
