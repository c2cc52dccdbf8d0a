"""The whole walk through a launched browser: DISCONNECTED → CONNECTED → FOCUSED → DISCONNECTED.

`tabmcp serve` runs as a stdio subprocess, an `mcp` ClientSession drives it, and
`connect_browser(launch=true)` starts headless Chromium with the real extension.
"""

from __future__ import annotations

import datetime
import socket
from pathlib import Path

import anyio
import pytest

from tabmcp.demo.client import StdioSession, text_of
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import CORE_FOCUSED, kill_browser_using, serve

# every test here runs on the extension and on the CDP driver (docs/scaling.md)
pytestmark = pytest.mark.usefixtures("driver_kind")

QUIET = 0.7  # how long a notification that must not come gets to show up anyway


async def expect_no_change(client: StdioSession, before: int) -> None:
    await anyio.sleep(QUIET)
    assert client.changes == before, "an unexpected list_changed arrived"


async def test_launch_walk(sites: SiteServer, server_log: object, tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    depart = (datetime.date.today() + datetime.timedelta(days=14)).isoformat()
    async with serve(server_log, ws_port="0", user_data_dir=str(profile)) as client:
        assert client.init.capabilities.tools is not None
        assert client.init.capabilities.tools.list_changed is True
        assert await client.tool_names() == ["connect_browser"]

        connected = await client.call_ok("connect_browser", {"launch": True})
        assert connected["connected"] is True
        assert connected["browser"]["name"] in ("Chromium", "Chrome")
        assert connected["tabCount"] == 0
        await client.wait_changes(1)
        assert await client.tool_names() == ["list_tabs", "open_tab"]

        opened = await client.call_ok("open_tab", {"url": sites.url("flights.html")})
        assert opened["focused"] is True
        assert opened["toolsAvailable"] == ["search_flights"]
        assert opened["tab"]["title"] == "SkyHop – search flights"
        await client.wait_changes(2)
        tools = {t.name: t for t in await client.tools()}
        assert list(tools) == [*CORE_FOCUSED, "search_flights"]
        schema = tools["search_flights"].input_schema
        assert schema["required"] == ["from", "to", "departDate"]
        assert schema["properties"]["departDate"]["format"] == "date"
        assert schema["properties"]["cabin"]["enum"] == ["economy", "business"]
        assert "csrf" not in schema["properties"]
        assert tools["search_flights"].annotations.read_only_hint is True
        assert client.changes == 2  # open_tab(focus=true) created *and* focused: one notification

        found = await client.call_ok(
            "search_flights", {"from": "SFO", "to": "JFK", "departDate": depart, "passengers": 2, "cabin": "business"}
        )
        assert found["page"]["title"] == "SkyHop – results"
        assert found["page"]["navigated"] is True
        assert "csrf=token-123" in found["page"]["url"]  # the hidden field went along
        shown = str(found.get("results", "")) + found.get("text", "")  # what the results page shows
        assert "business $328" in shown  # 2 passengers × $164
        await client.wait_changes(3)  # the results page has other tools
        assert await client.tool_names() == [*CORE_FOCUSED, "select_flight"]

        background = await client.call_ok("open_tab", {"url": sites.url("mail.html"), "focus": False})
        await expect_no_change(client, 3)
        listing = await client.call_ok("list_tabs")
        flights_id, mail_id = opened["tab"]["id"], background["tab"]["id"]
        assert listing["focusedTabId"] == flights_id
        counts = {t["id"]: (t["focused"], t["toolCount"]) for t in listing["tabs"]}
        # the background tab's tools are counted when asked for, without focusing it
        assert counts == {flights_id: (True, 1), mail_id: (False, 2)}

        bad = await client.call("focus_tab", {"tabId": 99999})
        assert bad.is_error and "No tab with id 99999" in text_of(bad)
        unreachable = await client.call("open_tab", {"url": "http://127.0.0.1:1/"})
        assert unreachable.is_error and "NAVIGATION_FAILED" in text_of(unreachable)
        invalid = await client.call("open_tab", {"url": "javascript:alert(1)"})
        assert invalid.is_error and "http" in text_of(invalid)
        assert len((await client.call_ok("list_tabs"))["tabs"]) == 2  # state unchanged
        await expect_no_change(client, 3)

        focused = await client.call_ok("focus_tab", {"tabId": mail_id})
        assert focused["toolsAvailable"] == ["search_mail", "send"]
        await client.wait_changes(4)
        assert await client.tool_names() == [*CORE_FOCUSED, "search_mail", "send"]

        sent = await client.call_ok("send", {"to": "ada@example.com", "subject": "Trip", "urgent": True})
        assert 'Sent "Trip" to ada@example.com (urgent)' in sent["status"]  # the page's banner
        rejected = await client.call("send", {"subject": "no recipient"})
        assert rejected.is_error and "missing required argument(s): to" in text_of(rejected)
        await expect_no_change(client, 4)  # compose does not navigate: same tools

        closed = await client.call_ok("close_tab")
        assert closed == {"closed": True, "tabId": mail_id}
        await client.wait_changes(5)
        assert await client.tool_names() == ["list_tabs", "open_tab", "focus_tab"]
        stale = await client.call("send", {"to": "x@example.com"})
        assert stale.is_error and "Available tools: list_tabs, open_tab, focus_tab" in text_of(stale)

        assert kill_browser_using(profile) > 0  # the browser vanishes under the server
        await client.wait_changes(6)
        assert await client.tool_names() == ["connect_browser"]
        gone = await client.call("list_tabs")
        assert gone.is_error and "connect_browser" in text_of(gone)


async def test_connect_and_open_a_page_in_one_call(sites: SiteServer, server_log: object, tmp_path: Path) -> None:
    async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile")) as client:
        refused = await client.call("connect_browser", {"launch": True, "url": "javascript:alert(1)"})
        assert refused.is_error and refused.structured_content is not None
        assert refused.structured_content["code"] == "INVALID_URL"
        await expect_no_change(client, 0)  # refused before any browser started

        opened = await client.call_ok("connect_browser", {"launch": True, "url": sites.url("flights.html")})
        assert opened["connected"] is True and opened["focused"] is True and opened["tabCount"] == 1
        assert opened["tab"]["title"] == "SkyHop – search flights"
        assert opened["toolsAvailable"] == ["search_flights"]
        await client.wait_changes(1)  # connected and focused: one notification
        assert await client.tool_names() == [*CORE_FOCUSED, "search_flights"]
        await expect_no_change(client, 1)


async def test_connected_even_when_the_page_does_not_open(server_log: object, tmp_path: Path) -> None:
    async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile")) as client:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            nowhere = f"http://127.0.0.1:{probe.getsockname()[1]}/"  # bound, not listening: refused
            failed = await client.call("connect_browser", {"launch": True, "url": nowhere})
        assert failed.is_error and failed.structured_content is not None
        assert failed.structured_content["connected"] is True
        assert "but the page did not open" in failed.structured_content["error"]
        await client.wait_changes(1)
        assert await client.tool_names() == ["list_tabs", "open_tab"]  # the link stands
