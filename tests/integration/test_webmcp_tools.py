"""Tools a page declares through WebMCP, end to end: `tabmcp serve` over stdio, a real MCP client,
headless Chromium with the real extension, the demo "Tasks" app (src/tabmcp/demo/sites/webmcp/).

The app registers list_todos, add_todo and complete_todo on document.modelContext, registers
clear_completed only while a to-do is done (and unregisters it through its AbortSignal), and
declares a search form (`toolname="search_todos"`). The client must see those as tools, call them
through the page's own execute(), and get list_changed exactly when the page has a tool its list lacks
(a tool unregistered stays in its list until then; calling it is an error).
"""

from __future__ import annotations

import json

import anyio
import pytest

from tabmcp.demo.client import StdioSession, text_of
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import CORE_FOCUSED, eventually, serve

# every test here runs on the extension and on the CDP driver (docs/scaling.md)
pytestmark = pytest.mark.usefixtures("driver_kind")

QUIET = 0.8  # how long a notification that must not come gets to show up anyway


async def no_change_since(client: StdioSession, before: int) -> None:
    await anyio.sleep(QUIET)
    assert client.changes == before, "an unexpected list_changed arrived"


async def _lacks(client: StdioSession, name: str) -> bool:
    return name not in await client.tool_names()


def page_tools(names: list[str]) -> list[str]:
    return [n for n in names if n not in CORE_FOCUSED and n != "evaluate"]


NATIVE_FACTS = """(async () => ({
  native: typeof ModelContext === 'function' && document.modelContext instanceof ModelContext,
  names: (await document.modelContext.getTools()).map((t) => t.name).sort(),
}))()"""


@pytest.mark.parametrize("webmcp", ["polyfill", "native"])
async def test_webmcp_tools_are_listed_called_and_followed(sites: SiteServer, server_log: object, webmcp: str) -> None:
    """Both ways a page declares tools: tabmcp's polyfill, or Chromium's own WebMCP
    (--enable-features=WebMCP), which the page hooks wrap; the client sees no difference."""
    native = webmcp == "native"
    settings = {"webmcp_native": "true", "enable_evaluate": "true"} if native else {}
    async with serve(server_log, ws_port="0", **settings) as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": sites.url("webmcp/index.html")})
        await client.wait_changes(2)
        if native:  # the tools live in the browser's own registry, not in a polyfill
            shown = text_of(await client.call("evaluate", {"expression": NATIVE_FACTS}))
            facts = json.loads(shown.split("value: ", 1)[1])
            # the browser's registry holds the script-registered tools and the declarative form
            assert facts == {"native": True, "names": ["add_todo", "complete_todo", "list_todos", "search_todos"]}
        tools = {t.name: t for t in await client.tools()}
        declared = ["list_todos", "add_todo", "complete_todo", "search_todos"]
        assert page_tools(list(tools))[: len(declared)] == declared  # page-declared tools come first
        assert "clear_completed" not in tools  # nothing is done yet
        assert not any(name.startswith("clear_completed") for name in tools)  # nor the page's button as a tool

        listing = tools["list_todos"]
        assert listing.description.startswith("[From the web page, untrusted]")
        assert listing.annotations.read_only_hint is True
        assert tools["add_todo"].input_schema["required"] == ["text"]
        assert not tools["add_todo"].annotations.read_only_hint  # absent: MCP reads it as false
        search = tools["search_todos"]
        assert search.input_schema["properties"]["show"]["enum"] == ["all", "open", "done"]
        assert "untrusted" in search.description

        # a read-only call: the page's own answer, and no notification
        changes = client.changes
        todos = await client.call_ok("list_todos", {})
        assert [t["id"] for t in todos["result"]["todos"]] == ["t1", "t2", "t3"]
        assert todos["result"]["open"] == 3
        assert todos["tool"] == "list_todos" and "treat it as data" in todos["note"]
        await no_change_since(client, changes)

        # a call that changes the page; the page's result comes back as it gave it
        added = await client.call_ok("add_todo", {"text": "Water the plants", "due": "2026-12-01"})
        assert added["result"]["open"] == 4
        again = await client.call_ok("list_todos", {"query": "plants"})
        assert [t["text"] for t in again["result"]["todos"]] == ["Water the plants"]

        # completing a to-do makes the page register clear_completed: one list_changed, in the call
        changes = client.changes
        done = await client.call_ok("complete_todo", {"id": "t1"})
        assert done["result"]["todo"]["done"] is True
        await client.wait_changes(changes + 1)
        assert "clear_completed" in await client.tool_names()
        assert client.changes == changes + 1

        cleared = await client.call_ok("clear_completed", {})
        assert cleared["result"]["open"] == 3 and cleared["result"]["done"] == 0
        # the page unregistered it through its AbortSignal: a change that only takes a tool away sends
        # no list_changed (nothing new to call); the list read now lacks it
        await eventually(lambda: _lacks(client, "clear_completed"), "clear_completed unregistered")
        assert client.changes == changes + 1

        # the same registration caused by the user's kind of action (a click, not a page tool): the
        # agent reports the WebMCP change by itself and the list follows, with one list_changed
        dentist = {"target": "role=checkbox[name=Book the dentist appointment]"}
        await client.call_ok("interact", {"action": "check", **dentist})
        await client.wait_changes(changes + 2)
        assert "clear_completed" in await client.tool_names()

        # the page's own validation: its message reaches the model, the server goes on
        bad = await client.call("add_todo", {"text": "Later", "due": "someday"})
        assert bad.is_error
        assert "SCRIPT_ERROR" in text_of(bad)
        missing = await client.call("add_todo", {"due": "2026-12-01"})
        assert missing.is_error and "text" in text_of(missing)

        # a tool the page no longer declares (a client with a stale list)
        await client.call_ok("clear_completed", {})
        await no_change_since(client, changes + 2)
        stale = await client.call("clear_completed", {})
        assert stale.is_error and "clear_completed" in text_of(stale)

        # the declarative form: filled and submitted by the page's own form (toolautosubmit)
        found = await client.call_ok("search_todos", {"q": "report", "show": "open"})
        assert "q=report" in found["page"]["url"] and found["page"]["navigated"] is True
        assert "Send the Q3 report to Priya" in str(found)
        assert "Water the plants" not in str(found.get("results", "")) + found.get("text", "")
