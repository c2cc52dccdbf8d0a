"""The tool list follows the page when no page tool ran: `tabmcp serve` over stdio, a real MCP client,
headless Chromium with the real extension, the demo sites of src/tabmcp/demo/sites/.

The page changes through the generic `interact` tool (a click that opens a dialog, an in-page link or
button whose handler routes with pushState or the hash) or by itself (results that arrive later), and
the focused tab's tools follow by the agent's debounced `toolsChanged`: one list_changed when the
client's list lacks a tool the page has now, none when it does not (typing, a click that only changes
a row, a re-sort, a route to a shorter list, a change that only takes tools away). `list_tabs` keeps
`toolCount` true for tabs that are not focused. A client with a stale list gets an error it can act
on.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

import anyio
import pytest

from tabmcp.demo.client import StdioSession, text_of
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import CORE_FOCUSED, eventually, serve

# every test here runs on the extension and on the CDP driver (docs/scaling.md)
pytestmark = pytest.mark.usefixtures("driver_kind")

QUIET = 1.0  # how long a notification that must not come gets (the agent's debounce is 0.3 s)
SETTLE = 10.0  # how long a page of ours may take to load or to show its results


async def no_change_since(client: StdioSession, before: int) -> None:
    await anyio.sleep(QUIET)
    assert client.changes == before, "an unexpected list_changed arrived"


async def page_tools(client: StdioSession) -> list[str]:
    return [n for n in await client.tool_names() if n not in CORE_FOCUSED]


async def tools_become(client: StdioSession, wanted: list[str]) -> None:
    """Wait, one list_changed at a time, until the page tools are ``wanted`` (a page that loads and
    then renders may send one notification or two on the way)."""
    with anyio.fail_after(SETTLE):
        while True:
            seen = client.changes  # before listing: a notification during the listing is not missed
            if await page_tools(client) == wanted:
                return
            await client.wait_changes(seen + 1)


async def _page_tools_are(client: StdioSession, wanted: list[str]) -> bool:
    return await page_tools(client) == wanted


async def _count_is(client: StdioSession, tab_id: int, wanted: int) -> bool:
    return (await tool_counts(client))[tab_id] == wanted


async def act(client: StdioSession, action: str, **target: Any) -> dict[str, Any]:
    return await client.call_ok("interact", {"action": action, **target})


async def tool_counts(client: StdioSession) -> dict[int, int | None]:
    return {t["id"]: t["toolCount"] for t in (await client.call_ok("list_tabs"))["tabs"]}


async def count_when(client: StdioSession, tab_id: int, wanted: int) -> int | None:
    """list_tabs until the tab's toolCount is ``wanted`` (its page loads and renders in its own time);
    the last count seen otherwise."""
    count = None
    with anyio.move_on_after(SETTLE):
        while True:
            count = (await tool_counts(client))[tab_id]
            if count == wanted:
                break
            await anyio.sleep(0.2)
    return count


async def test_dom_changes_made_through_interact(sites: SiteServer, server_log: object) -> None:
    """The Mailbox: Compose opens a draft and Save & close closes it (the list changes each time, by
    the agent's toolsChanged alone); starring a row and typing (search box, draft) change the page but
    not the tools: no list_changed."""
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        tab = (await client.call_ok("open_tab", {"url": sites.url("mail/index.html")}))["tab"]["id"]
        await client.wait_changes(2)
        inbox = await page_tools(client)
        assert inbox == ["search_inbox", "compose_email", "open_thread", "list_messages", "archive_selected",
                         "mark_as_read"]

        # a click that only changes a row (its star), and typing in the search box: same tools, no notification
        changes = client.changes
        await act(client, "click", target="css=tr.zA:first-child span[role=button]")  # the row list is re-rendered
        await act(client, "fill", target="role=textbox[name=Search mail]", text="invoice from:marcus")
        await no_change_since(client, changes)
        snapshot = text_of(await client.call("snapshot"))
        assert "invoice from:marcus" in snapshot  # the page did change
        star = re.search(r"checkbox,Select conversation,[^\n]*\n\s*e\d+,button,([^,]+),", snapshot)
        assert star and star.group(1) == "Starred", snapshot  # the first row's star (it was "Not starred")
        assert await page_tools(client) == inbox

        # Compose opens the draft window: no tool call is running, the agent reports it, one list_changed
        opened = await act(client, "click", target="role=button[name=Compose]")
        assert "navigated" not in opened  # so interact itself did not re-read the tools
        await client.wait_changes(changes + 1)
        drafting = await page_tools(client)
        assert drafting != inbox and "compose_email" in drafting  # compose_email now drives the open draft
        # what changed: the Compose button is no longer compose_email's (it claims the draft window now),
        # so it is listed as the page's own button
        assert set(drafting) - set(inbox) == {"compose"}
        assert "combobox,To recipients" in text_of(await client.call("snapshot"))  # the draft is open
        await no_change_since(client, changes + 1)

        # filling the draft is typing: no list_changed
        await act(client, "fill", target="role=combobox[name=To recipients]", text="ada@example.com")
        await act(client, "fill", target="role=textbox[name=Subject]", text="Lunch")
        await no_change_since(client, changes + 1)

        # closing the draft: the page's tools are the inbox's again, which only takes the draft's
        # button away (compose_email reads the same): no list_changed, the client keeps "compose" and a
        # call to it says the page lost it (list_tabs counts the tools without reading the list)
        await act(client, "click", target="role=button[name=Save & close]")
        await eventually(lambda: _count_is(client, tab, len(inbox)), "the inbox's tools again")
        gone = await client.call("compose", {})
        assert gone.is_error
        assert "'compose' is no longer on the focused page" in text_of(gone) and "compose_email" in text_of(gone)
        assert client.changes == changes + 1
        assert await page_tools(client) == inbox
        await no_change_since(client, changes + 1)

        # a search from the page's own box routes to #search/… and lists 4 rows: a new route, the same tools
        await act(client, "fill", target="role=textbox[name=Search mail]", text="is:unread")
        routed = await act(client, "press", target="role=textbox[name=Search mail]", key="Enter")
        assert routed["navigated"]["url"].endswith("/mail/index.html#search/is%3Aunread")
        await no_change_since(client, changes + 1)
        assert len((await client.call_ok("list_messages"))["messages"]) == 4


async def test_route_changes_made_by_the_page(sites: SiteServer, server_log: object) -> None:
    """Skyscan's Search routes with history.pushState and lists the fares a moment later: select_flight
    appears. A re-sort (replaceState, the cards re-rendered in another order) keeps the set: no
    list_changed, but the tools follow the new order. Codehub's Issues tab routes by the hash. A client
    that kept a tool of a page left behind gets told what is there now."""
    depart = (datetime.date.today() + datetime.timedelta(days=20)).isoformat()
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        home = sites.url("flights/index.html")
        await client.call_ok("open_tab", {"url": home})
        await client.wait_changes(2)
        assert await page_tools(client) == ["search_flights"]

        changes = client.changes
        for field, code in (("origin", "SFO"), ("destination", "JFK")):
            await act(client, "fill", target=f"css=#{field}-input", text=code)
            await act(client, "click", target=f"css=#{field}-listbox [role=option]:first-child")
        await act(client, "fill", target="css=#depart-date", text=depart)
        await no_change_since(client, changes)  # filling the form (and its suggestion lists) is not news
        searched = await act(client, "click", target="role=button[name=Search]")
        route = f"?origin=SFO&destination=JFK&depart={depart}&adults=1&cabin=economy"
        assert searched["navigated"]["url"] == home + route  # the page's own pushState
        await client.wait_changes(changes + 1, timeout=SETTLE)  # the cards come 0.6 s after the route change
        assert await page_tools(client) == ["search_flights", "select_flight"]
        await no_change_since(client, changes + 1)

        # re-sorting: replaceState and the same 8 cards in another order; the tool set is the same
        await act(client, "click", target="role=tab[name=Quickest]")
        await no_change_since(client, changes + 1)
        snapshot = text_of(await client.call("snapshot"))
        first = re.search(r"button,\"?Select (.+?) flight departing (\d+:\d\d [ap]m), \$", snapshot)
        assert first, snapshot
        airline, departs = first.groups()
        review = await client.call_ok("select_flight", {"index": 1})  # the quickest now, not the cheapest
        assert review["page"]["navigated"] is True
        assert re.search(rf"{departs} SFO → .*{airline}", review["text"]), review["text"]
        await client.wait_changes(changes + 2)
        assert await page_tools(client) == ["hold_this_trip"]

        # a client with the results page's list calls its tools on the review page: told what is there
        stale = await client.call("select_flight", {"index": 3})
        assert stale.is_error
        assert "Unknown tool 'select_flight'" in text_of(stale) and "hold_this_trip" in text_of(stale)
        stale = await client.call("search_flights", {"from": "SFO", "to": "LAX", "departDate": depart})
        assert stale.is_error and "Unknown tool 'search_flights'" in text_of(stale)
        back = await act(client, "click", target="css=#back-to-results")  # the server goes on
        assert back["navigated"]["url"].startswith(sites.url("flights/?origin=SFO&destination=JFK"))
        await tools_become(client, ["search_flights", "select_flight"])  # the fares come 0.6 s after the load

        # Codehub: its Issues tab routes by the hash (#/owner/repo/issues), and the issues page has New issue
        changes = client.changes
        await client.call_ok("open_tab", {"url": sites.url("repo/index.html")})
        await client.wait_changes(changes + 1)
        changes = client.changes
        code = await page_tools(client)
        assert code[:2] == ["star_repo", "view_issues"] and "new_issue" not in code
        tab = await act(client, "click", target="css=a#issues-tab")
        assert tab["navigated"]["url"].endswith("/repo/index.html#/nimbus-labs/skylark/issues")
        await client.wait_changes(changes + 1)
        issues = await page_tools(client)
        assert set(issues) - set(code) == {"new_issue"}
        await no_change_since(client, changes + 1)
        # and back: the set is the code page's again, new_issue gone: no news, no list_changed
        await act(client, "click", target="css=a#code-tab")
        await eventually(lambda: _page_tools_are(client, code), "the code page's tools again")
        await no_change_since(client, changes + 1)


async def test_tool_counts_of_tabs_that_are_not_focused(sites: SiteServer, server_log: object) -> None:
    """list_tabs counts the page tools of every tab, focused or not, and an unfocused tab's count
    follows its page (Skyscan's fares arrive while another tab is focused)."""
    depart = (datetime.date.today() + datetime.timedelta(days=20)).isoformat()
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        mail = (await client.call_ok("open_tab", {"url": sites.url("mail/index.html")}))["tab"]["id"]
        await client.wait_changes(2)
        flights = (await client.call_ok("open_tab", {"url": sites.url("flights/index.html"), "focus": False}))["tab"]
        flights_id = flights["id"]
        await no_change_since(client, 2)  # a tab opened in the background changes nothing the client sees

        assert await count_when(client, flights_id, 1) == 1  # search_flights, counted without focusing the tab
        counts = await tool_counts(client)
        assert counts[mail] == len(await page_tools(client)) == 6
        focused = await client.call_ok("focus_tab", {"tabId": flights_id})
        assert focused["toolsAvailable"] == ["search_flights"]  # what the count said
        await client.wait_changes(3)

        # a search in the Skyscan tab, then back to the Mailbox: the fares arrive in a tab that is not focused
        results = sites.url(f"flights/index.html?origin=SFO&destination=JFK&depart={depart}&adults=1&cabin=economy")
        await client.call_ok("navigate", {"url": results})
        await client.call_ok("focus_tab", {"tabId": mail})
        assert await count_when(client, flights_id, 2) == 2
        assert (await tool_counts(client))[mail] == 6
        focused = await client.call_ok("focus_tab", {"tabId": flights_id})
        assert focused["toolsAvailable"] == ["search_flights", "select_flight"]

        # and down again: the review page has one tool, counted after the tab lost focus
        await client.call_ok("select_flight", {"index": 1})
        await client.call_ok("focus_tab", {"tabId": mail})
        assert (await tool_counts(client)) == {mail: 6, flights_id: 1}


async def test_a_title_the_page_sets_reaches_list_tabs(sites: SiteServer, server_log: object) -> None:
    """A script that renames its page (no load, no change of tools) shows in list_tabs, as the tab
    strip shows it: the extension hears it from tabs.onUpdated, the CDP driver from the target."""
    async with serve(server_log, ws_port="0", enable_evaluate="true") as client:
        await client.call_ok("connect_browser", {"launch": True})
        tab = (await client.call_ok("open_tab", {"url": sites.url("mail/index.html")}))["tab"]
        renamed = "Inbox (3 unread)"
        assert tab["title"] != renamed
        later = f"setTimeout(() => {{ document.title = {renamed!r}; }}, 300), 1"
        await client.call_ok("evaluate", {"expression": later})

        async def shown() -> bool:
            tabs = (await client.call_ok("list_tabs"))["tabs"]
            return [t["title"] for t in tabs if t["id"] == tab["id"]] == [renamed]

        await eventually(shown, f"the title {renamed!r} in list_tabs")
