"""The edge cases of a real browser the user drives (here: the test, through Playwright).

The browser starts *before* the server, as a user's Chrome with the extension would, so the
extension's reconnect back-off is part of every test here.
"""

from __future__ import annotations

import contextlib

import anyio
from playwright.async_api import Page

from tabmcp.demo.client import StdioSession, text_of
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import CORE_FOCUSED, OwnBrowser, eventually, page_at, serve, tab_id_for

CORE_TABS = ["list_tabs", "open_tab", "focus_tab"]
QUIET = 0.7


async def _page_tool_count_is(client: StdioSession, tab_id: int, wanted: int) -> bool:
    """The tab's tool count, through list_tabs (not tools/list: the client's list stays as it read it)."""
    tabs = (await client.call_ok("list_tabs"))["tabs"]
    return any(t["id"] == tab_id and t["toolCount"] == wanted for t in tabs)




async def test_user_driven_browser(sites: SiteServer, server_log: object, own_browser_port: int) -> None:
    async with OwnBrowser(own_browser_port) as browser, serve(server_log, ws_port=str(own_browser_port)) as client:
        connected = await client.call_ok("connect_browser")  # no launch: the user's browser is there
        assert connected["connected"] is True
        assert connected["tabCount"] == len(browser.context.pages)
        await client.wait_changes(1)
        assert await client.tool_names() == CORE_TABS

        # the user opens a tab: it is listed, and no list_changed is sent
        page: Page = await browser.context.new_page()
        await page.goto(sites.url("flights.html"))
        flights = await tab_id_for(client, sites.url("flights.html"))
        await anyio.sleep(QUIET)
        assert client.changes == 1

        focused = await client.call_ok("focus_tab", {"tabId": flights})
        assert focused["toolsAvailable"] == ["search_flights"]
        await client.wait_changes(2)
        assert await page.evaluate("document.visibilityState") == "visible"  # activated in its window

        # the page navigates by itself: re-introspected, notified because the tools changed
        await page.goto(sites.url("results.html?from=AMS&to=LIS&departDate=2027-01-02"))
        await client.wait_changes(3)
        assert await client.tool_names() == [*CORE_FOCUSED, "select_flight"]

        # ...to a page without forms: the page tools go, which brings the client nothing to call: no
        # list_changed (its list keeps select_flight until the next notice; calling it is an error)
        await page.goto(sites.url("about.html"))
        await eventually(lambda: _page_tool_count_is(client, flights, 0), "about.html read")
        assert client.changes == 3
        assert await client.tool_names() == CORE_FOCUSED

        # ...to a page with the same tools as before: no list_changed
        await page.goto(sites.url("about.html?again"))
        await tab_id_for(client, sites.url("about.html?again"))
        await anyio.sleep(QUIET)
        assert client.changes == 3

        # the focused tab crashes: it is gone, and so is the focus
        with contextlib.suppress(Exception):  # navigating to the crash page never finishes: the point
            await page.goto("chrome://crash", timeout=3000)
        await client.wait_changes(4)
        assert await client.tool_names() == CORE_TABS
        assert flights not in [t["id"] for t in (await client.call_ok("list_tabs"))["tabs"]]

        # the user closes the focused tab
        opened = await client.call_ok("open_tab", {"url": sites.url("mail.html")})
        await client.wait_changes(5)
        mail_page = await page_at(browser.context, sites.url("mail.html"))
        await mail_page.close()
        await client.wait_changes(6)
        assert await client.tool_names() == CORE_TABS
        assert opened["tab"]["id"] not in [t["id"] for t in (await client.call_ok("list_tabs"))["tabs"]]

        # the browser goes away: DISCONNECTED once it has had relink_grace to come back, and calls
        # say what to do
        await browser.close()

        async def disconnected() -> bool:
            return await client.tool_names() == ["connect_browser"]

        await eventually(disconnected, "the server to see the browser gone", timeout=30)
        stale = await client.call("focus_tab", {"tabId": 1})
        assert stale.is_error and "connect_browser" in text_of(stale)
        nothing = await client.call("connect_browser")
        assert nothing.is_error and "No browser found" in text_of(nothing)


async def test_extension_finds_a_restarted_server(sites: SiteServer, server_log: object, own_browser_port: int) -> None:
    async with OwnBrowser(own_browser_port) as browser:
        async with serve(server_log, ws_port=str(own_browser_port)) as first:
            await first.call_ok("connect_browser")
            await first.call_ok("open_tab", {"url": sites.url("flights.html")})
        # the server went away and a new one takes its port: the extension comes back by itself
        async with serve(server_log, ws_port=str(own_browser_port)) as second:
            connected = await second.call_ok("connect_browser")
            assert connected["tabCount"] == len(browser.context.pages)
            listing = await second.call_ok("list_tabs")
            assert sites.url("flights.html") in [t["url"] for t in listing["tabs"]]
            assert listing["focusedTabId"] is None  # focus is the server's, and this one is new


async def test_follow_user_tab_switches(sites: SiteServer, server_log: object, own_browser_port: int) -> None:
    async with (
        OwnBrowser(own_browser_port) as browser,
        serve(server_log, ws_port=str(own_browser_port), follow_user_tab_switches="true") as client,
    ):
        await client.call_ok("connect_browser")
        await client.call_ok("open_tab", {"url": sites.url("flights.html")})
        await client.call_ok("open_tab", {"url": sites.url("mail.html")})
        assert await client.tool_names() == [*CORE_FOCUSED, "search_mail", "send"]
        before = client.changes
        flights_page = await page_at(browser.context, sites.url("flights.html"))
        await flights_page.bring_to_front()  # the user clicks the other tab
        await client.wait_changes(before + 1)
        assert await client.tool_names() == [*CORE_FOCUSED, "search_flights"]
