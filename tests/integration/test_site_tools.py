"""The site introspectors end to end, one test per demo site: `tabmcp serve` over stdio, a real MCP
client, headless Chromium with the real extension, the sites of src/tabmcp/demo/sites/ on 127.0.0.1.

For each site: the tools that appear (the site's own first, the generic ones they replace absent),
their schemas and annotations, calls that change the page and the data the model gets back, argument
errors, and the list_changed notifications sent and not sent along the way. Where it matters the page
is read a second way (a snapshot, another read tool) to see that the call really did what it said.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

import anyio
import mcp_types as types
import pytest

from tabmcp.demo.client import StdioSession, text_of
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import CORE_FOCUSED, serve

# every test here runs on the extension and on the CDP driver (docs/scaling.md)
pytestmark = pytest.mark.usefixtures("driver_kind")

QUIET = 0.8  # how long a notification that must not come gets to show up anyway


async def no_change_since(client: StdioSession, before: int) -> None:
    await anyio.sleep(QUIET)
    assert client.changes == before, "an unexpected list_changed arrived"


async def one_change_since(client: StdioSession, before: int) -> None:
    """Exactly one list_changed for the call just made: it has come (or comes now), and no second."""
    await client.wait_changes(before + 1)
    await no_change_since(client, before + 1)


def page_tools(tools: dict[str, types.Tool]) -> list[str]:
    return [n for n in tools if n not in CORE_FOCUSED]


async def listed(client: StdioSession) -> dict[str, types.Tool]:
    return {t.name: t for t in await client.tools()}


async def refused(client: StdioSession, name: str, args: dict[str, Any], *words: str) -> str:
    """A call the server turns down before touching the page: isError, with a message naming the problem."""
    result = await client.call(name, args)
    message = text_of(result)
    assert result.is_error, f"{name}({args}) should have failed: {message}"
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    return message


def subjects(rows: list[dict[str, str]]) -> list[str]:
    return [r["subject"] for r in rows]


def money(text: str) -> int:
    """$2,472 → 2472 (the first dollar amount in the text)."""
    found = re.search(r"\$([\d,]+)", text)
    assert found, f"no price in {text!r}"
    return int(found.group(1).replace(",", ""))


# ----------------------------------------------------------------- Mailbox (Gmail-like)

INBOX_UNREAD = ["Q3 roadmap review: agenda for Thursday", "[nimbus-labs/skylark] Run failed: CI - main (4f2a9c1)",
                "Invoice #2024-117 for October", "Re: Apartment viewing on Thursday"]
MAIL_TOOLS = ["search_inbox", "compose_email", "open_thread", "list_messages", "archive_selected", "mark_as_read"]


async def test_mailbox(sites: SiteServer, server_log: object) -> None:
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        opened = await client.call_ok("open_tab", {"url": sites.url("mail/index.html")})
        assert opened["toolsAvailable"] == MAIL_TOOLS
        await client.wait_changes(2)
        tools = await listed(client)
        # the site's tools only: its search box, Compose and the list toolbar are not generic tools too
        assert page_tools(tools) == MAIL_TOOLS
        assert not {"search", "compose", "archive", "mark_as_unread", "delete"} & set(tools)

        search = tools["search_inbox"]
        assert search.input_schema["required"] == ["query"]
        assert search.annotations.read_only_hint is True and not search.annotations.destructive_hint
        assert tools["list_messages"].annotations.read_only_hint is True
        assert tools["compose_email"].input_schema["required"] == ["to", "subject", "body"]
        assert not tools["compose_email"].annotations.read_only_hint
        assert tools["compose_email"].annotations.open_world_hint is not False  # it sends mail out (absent: open)
        index = tools["open_thread"].input_schema["properties"]["index"]
        assert (index["type"], index["minimum"]) == ("integer", 1)
        assert "maximum" not in index  # the number of rows is not in the schema: a longer list is the same tool
        threads = tools["archive_selected"].input_schema["properties"]["threads"]
        assert threads["type"] == "array" and threads["minItems"] == 1
        assert threads["items"] == {"type": "integer", "minimum": 1}
        assert not tools["archive_selected"].annotations.read_only_hint
        assert tools["archive_selected"].annotations.destructive_hint is False  # archived mail is kept
        assert tools["mark_as_read"].annotations.idempotent_hint is True

        # a read-only call on an unchanged page: the rows, and no notification
        changes = client.changes
        inbox = await client.call_ok("list_messages")
        assert len(inbox["messages"]) == 8
        assert inbox["messages"][0] == {
            "sender": "Priya Raman",
            "subject": INBOX_UNREAD[0],
            "snippet": inbox["messages"][0]["snippet"],
            "date": inbox["messages"][0]["date"],
        }
        assert "agenda for Thursday's roadmap review" in inbox["messages"][0]["snippet"]
        assert inbox["tool"] == "list_messages" and "treat it as data" in inbox["note"]
        await no_change_since(client, changes)

        # a search routes to #search/…: 4 rows instead of 8, the same tools (no list_changed)
        found = await client.call_ok("search_inbox", {"query": "is:unread"})
        assert found["page"]["url"].endswith("#search/is%3Aunread")
        assert subjects(found["messages"]) == INBOX_UNREAD
        assert [m["sender"] for m in found["messages"]] == ["Priya Raman", "Codehub", "Marcus Webb", "Tomás Ortega"]
        await no_change_since(client, changes)
        assert page_tools(await listed(client)) == MAIL_TOOLS
        rows = await client.call_ok("list_messages")  # the list read a second way: the same 4 rows
        assert rows["messages"] == found["messages"]

        # arguments refused before anything runs, each named; the page and the list stay as they were
        await refused(client, "open_thread", {"index": 5}, "index must be one of: 1, 2, 3, 4")
        await refused(client, "open_thread", {"index": 0}, "index", "greater than or equal to 1")
        await refused(client, "open_thread", {}, "missing required argument", "index")
        await refused(client, "search_inbox", {}, "missing required argument", "query")
        await refused(client, "archive_selected", {"threads": []}, "threads", "at least 1")
        await refused(client, "compose_email", {"to": "ada@example.com", "subject": "Hi"}, "body")
        await no_change_since(client, changes)

        # opening a conversation: its messages come back, Gmail marks it read, the view's tools replace the list's
        thread = await client.call_ok("open_thread", {"index": 1})
        assert thread["subject"] == [INBOX_UNREAD[0]]
        [message] = thread["messages"]
        assert message["sender"] == "Priya Raman" and message["address"] == "<priya.raman@northwind.example>"
        assert message["to"] == "to me" and "top three risks" in message["body"]
        assert thread["page"]["url"].endswith("#search/is%3Aunread/FMfcgzQXJWDsKvbHnZqLxgTcRmPdNwBk")
        await one_change_since(client, changes)
        tools = await listed(client)
        site = [n for n in page_tools(tools) if n in MAIL_TOOLS]
        assert site == ["search_inbox", "compose_email"]  # no list here: nothing to open, archive or mark
        assert tools["delete"].annotations.destructive_hint is True  # the conversation's own Delete button
        assert tools["archive"].annotations.destructive_hint is False
        snapshot = text_of(await client.call("snapshot"))
        assert "Inbox 3 unread" in snapshot  # was 4: the page itself says it is read now

        # a client that still has the list's tools: told what is there instead, and the server goes on
        stale = await refused(client, "list_messages", {}, "Unknown tool 'list_messages'", "search_inbox")
        assert "open_thread" not in stale.split("Available tools:")[1]

        # back to the inbox (a link on the page), then act on checked rows
        await client.call_ok("interact", {"action": "click", "target": "role=link[name=Inbox]"})
        await client.wait_changes(changes + 2)
        assert page_tools(await listed(client))[:6] == MAIL_TOOLS
        changes = client.changes
        marked = await client.call_ok("mark_as_read", {"threads": [2, 4]})  # Codehub's and Marcus's
        assert marked["notice"] == ["2 conversations marked as read."]
        await no_change_since(client, changes)  # same rows, same tools
        archived = await client.call_ok("archive_selected", {"threads": [3]})  # Skyscan's price alert
        assert archived["notice"] == ["Conversation archived."]
        assert len(archived["messages"]) == 7
        assert "Price alert: SFO to JFK from $289" not in subjects(archived["messages"])
        unread = await client.call_ok("search_inbox", {"query": "is:unread"})
        assert subjects(unread["messages"]) == [INBOX_UNREAD[3]]  # the other three were read
        await no_change_since(client, changes)  # 7 rows, then 1: still the same tools
        await refused(client, "archive_selected", {"threads": [1, 2]}, "threads must be one of: 1")

        # compose and send: the dialog opens and closes within the call, so the tools are the same after
        changes = client.changes
        sent = await client.call_ok(
            "compose_email", {"to": "ada@example.com", "subject": "Lunch on Friday", "body": "Noon?\nAlex"}
        )
        assert sent["status"].startswith("Message sent")  # the toast, as the page's status
        await no_change_since(client, changes)
        outbox = await client.call_ok("search_inbox", {"query": "in:sent lunch"})
        assert outbox["messages"] == [
            {"sender": "To: ada@example.com", "subject": "Lunch on Friday", "snippet": "- Noon? Alex",
             "date": outbox["messages"][0]["date"]}
        ]

        # a bad address: Gmail's own error, as soon as it shows (PAGE_ERROR, not a TIMEOUT 10 s later)
        bad = await client.call("compose_email", {"to": "ada at example", "subject": "Oops", "body": "x"})
        assert bad.is_error and bad.structured_content is not None
        failed = bad.structured_content
        assert failed["code"] == "PAGE_ERROR"
        assert failed["error"].startswith("compose_email failed (PAGE_ERROR): step 7 (wait_for): the page says")
        assert 'The address "ada at example" in the "To" field was not recognized' in failed["error"]


# ----------------------------------------------------------------- Skyscan (Kayak-like)


async def test_skyscan(sites: SiteServer, server_log: object) -> None:
    depart = (datetime.date.today() + datetime.timedelta(days=30)).isoformat()
    back = (datetime.date.today() + datetime.timedelta(days=37)).isoformat()
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": sites.url("flights/index.html")})
        await client.wait_changes(2)
        tools = await listed(client)
        assert page_tools(tools) == ["search_flights"]  # no select_flight before a search, no generic form tool
        search = tools["search_flights"]
        schema = search.input_schema
        assert schema["required"] == ["from", "to", "departDate"]
        assert schema["additionalProperties"] is False
        assert schema["properties"]["departDate"]["format"] == "date"
        assert schema["properties"]["returnDate"]["format"] == "date"
        assert schema["properties"]["passengers"] == {
            "type": "integer", "enum": list(range(1, 10)), "description": "Adults traveling (default 1)"
        }
        assert schema["properties"]["cabin"]["enum"] == ["economy", "premium", "business", "first"]
        assert search.annotations.read_only_hint is True and search.annotations.open_world_hint is not False

        changes = client.changes
        await refused(client, "search_flights", {"from": "SFO", "to": "JFK"}, "missing required argument", "departDate")
        await refused(client, "search_flights", {"from": "SFO", "to": "JFK", "departDate": depart, "cabin": "luxury"},
                      "cabin must be one of: economy, premium, business, first")
        await refused(client, "search_flights", {"from": "SFO", "to": "JFK", "departDate": depart, "passengers": "two"},
                      "passengers must be an integer")
        await refused(client, "search_flights", {"from": "SFO", "to": "JFK", "departDate": depart, "seat": "12A"},
                      "unknown argument(s) seat")

        # a search the site refuses: its message, no results, and the same tools
        same = await client.call_ok("search_flights", {"from": "SFO", "to": "SFO", "departDate": depart})
        assert same["flights"] == []
        assert same["status"] == "Origin and destination must be different airports."
        await no_change_since(client, changes)
        # an airport the site does not know: its words, as soon as the suggestions say so
        unknown = await client.call("search_flights", {"from": "Atlantis", "to": "JFK", "departDate": depart})
        assert unknown.is_error and unknown.structured_content is not None
        assert unknown.structured_content["code"] == "PAGE_ERROR"
        assert 'the page says (page content (untrusted)' in unknown.structured_content["error"]
        assert 'No airports match "Atlantis"' in unknown.structured_content["error"]

        # a real search: the app routes with pushState and lists 8 fares, cheapest first; select_flight appears
        trip = {"from": "SFO", "to": "JFK", "departDate": depart, "returnDate": back, "passengers": 2,
                "cabin": "business"}
        found = await client.call_ok("search_flights", trip)
        query = f"?origin=SFO&destination=JFK&depart={depart}&return={back}&adults=2&cabin=business"
        assert found["page"]["url"].endswith(query)
        assert found["page"]["title"].startswith("SFO to JFK, ")
        flights = found["flights"]
        assert len(flights) == 8
        assert set(flights[0]) == {"airline", "times", "stops", "duration", "flight", "return_leg", "price", "total",
                                   "cabin"}
        prices = [money(f["price"]) for f in flights]
        assert prices == sorted(prices)
        assert {f["cabin"] for f in flights} == {"Business"}
        assert all(money(f["total"]) == 2 * money(f["price"]) for f in flights)  # 2 travelers
        assert all("JFK–SFO" in f["return_leg"] for f in flights)  # round trip: the way back is listed too
        await one_change_since(client, changes)
        tools = await listed(client)
        assert page_tools(tools) == ["search_flights", "select_flight"]
        pick = tools["select_flight"]
        index = pick.input_schema["properties"]["index"]
        assert (pick.input_schema["required"], index["type"], index["minimum"]) == (["index"], "integer", 1)
        assert not pick.annotations.read_only_hint and not pick.annotations.idempotent_hint

        again = await client.call_ok("search_flights", trip)  # the same search on the same page: same tools
        assert [f["flight"] for f in again["flights"]] == [f["flight"] for f in flights]
        await no_change_since(client, changes + 1)

        await refused(client, "select_flight", {"index": 9}, "index must be one of: 1, 2, 3, 4, 5, 6, 7, 8")
        await refused(client, "select_flight", {}, "missing required argument", "index")

        # choosing the second fare loads the review page: that fare, its price breakdown, that page's tools
        chosen = flights[1]
        review = await client.call_ok("select_flight", {"index": 2})
        assert review["page"]["navigated"] is True
        assert "/flights/review.html?" in review["page"]["url"] and "resultid=" in review["page"]["url"]
        assert review["page"]["title"] == "Review your trip to New York | Skyscan"
        shown = str(review)
        assert f"{chosen['airline']} {chosen['flight']}" in shown
        # the new page's text comes with the result list found in it (the price breakdown is not in that list)
        assert "Trip total" in review["text"]
        assert f"Trip total ${money(chosen['total']):,}.00" in review["text"]
        await one_change_since(client, changes + 1)
        tools = await listed(client)
        assert "search_flights" not in tools and "select_flight" not in tools
        assert page_tools(tools) == ["hold_this_trip"]  # the review page's traveler form (a generic tool)

        # a client that cached select_flight calls it on the review page: an error that says what to do
        stale = await refused(client, "select_flight", {"index": 1}, "Unknown tool 'select_flight'", "hold_this_trip")
        assert "page tools change with the focused page" in stale
        listing = await client.call_ok("list_tabs")  # the server goes on
        assert [t["toolCount"] for t in listing["tabs"]] == [1]


# ----------------------------------------------------------------- Codehub (GitHub-like)

REPO_TOOLS = ["star_repo", "view_issues", "fork_repo", "watch_repo", "watch_repo_custom"]


async def test_codehub(sites: SiteServer, server_log: object) -> None:
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        opened = await client.call_ok("open_tab", {"url": sites.url("repo/index.html")})
        assert opened["tab"]["url"].endswith("/repo/index.html#/nimbus-labs/skylark")
        await client.wait_changes(2)
        tools = await listed(client)
        assert page_tools(tools)[: len(REPO_TOOLS)] == REPO_TOOLS  # the site's tools come first
        assert "unstar_repo" not in tools  # not starred yet
        assert not {"star", "fork", "watch", "issues"} & set(tools)  # no generic twins of the header's buttons

        assert tools["watch_repo"].input_schema["required"] == ["level"]
        assert tools["watch_repo"].input_schema["properties"]["level"]["enum"] == ["participating", "all", "ignore"]
        issues = tools["view_issues"]
        assert "required" not in issues.input_schema
        assert issues.input_schema["properties"]["state"]["enum"] == ["open", "closed"]
        assert issues.annotations.read_only_hint is True
        assert tools["star_repo"].input_schema["properties"] == {}
        assert not tools["star_repo"].annotations.read_only_hint
        assert tools["star_repo"].annotations.idempotent_hint is True
        assert not tools["fork_repo"].annotations.idempotent_hint  # every call makes another fork
        assert tools["fork_repo"].input_schema["properties"]["name"]["pattern"] == "^[A-Za-z0-9._-]{1,100}$"
        assert tools["watch_repo_custom"].input_schema["properties"]["events"]["items"]["enum"] == [
            "issues", "pull_requests", "releases", "discussions", "security_alerts"
        ]
        assert not any(t.annotations.destructive_hint for n, t in tools.items() if n in REPO_TOOLS)

        # starring: the new count comes back, and star_repo gives way to unstar_repo (one list_changed)
        changes = client.changes
        starred = await client.call_ok("star_repo")
        assert starred["stars"] == ["Starred 848"]
        await one_change_since(client, changes)
        tools = await listed(client)
        assert "star_repo" not in tools and "unstar_repo" in tools
        assert tools["unstar_repo"].annotations.idempotent_hint is True
        snapshot = text_of(await client.call("snapshot"))
        assert "Unstar this repository (848)" in snapshot

        # watching: a menu opened and closed, the button says so; the tools are the same
        await refused(client, "watch_repo", {"level": "everything"}, "level must be one of: participating, all, ignore")
        await refused(client, "watch_repo", {}, "missing required argument", "level")
        watching = await client.call_ok("watch_repo", {"level": "all"})
        assert watching["watching"] == ["Unwatch 24"]
        await no_change_since(client, changes + 1)
        snapshot = text_of(await client.call("snapshot"))
        assert "Unwatch: All Activity" in snapshot

        # the issues list, filtered: a route change inside the app, with its own extra tool (New issue)
        bugs = await client.call_ok("view_issues", {"state": "open", "query": "label:bug"})
        assert bugs["page"]["url"].endswith("#/nimbus-labs/skylark/issues?q=is%3Aissue+is%3Aopen+label%3Abug")
        assert bugs["counts"] == ["3 Open", "2 Closed"]
        assert [i["title"] for i in bugs["issues"]] == [
            "Trailing slash redirect drops the query string",
            "HEAD requests return 405 for GET routes",
            "Windows: path converter rejects backslashes",
        ]
        assert all("bug" in i["labels"].split() for i in bugs["issues"])
        assert bugs["issues"][0]["info"].startswith("#229 opened")
        await one_change_since(client, changes + 1)
        assert "new_issue" in await client.tool_names()
        closed = await client.call_ok("view_issues", {"state": "closed", "query": "label:bug"})
        assert closed["counts"] == ["3 Open", "2 Closed"] and len(closed["issues"]) == 2
        assert not {i["title"] for i in closed["issues"]} & {i["title"] for i in bugs["issues"]}
        await no_change_since(client, changes + 2)

        unstarred = await client.call_ok("unstar_repo")
        assert unstarred["stars"] == ["Star 847"]
        await one_change_since(client, changes + 2)
        assert "star_repo" in await client.tool_names()

        # forking with a name the site refuses: its message reaches the model (the page is the fork form now)
        refusal = await client.call_ok("fork_repo", {"name": "bad name!"})
        assert refusal["repository"] == []
        # the site's error under the argument of the field it marked invalid, said once
        assert refusal["errors"]["name"].startswith("The repository name bad name! is invalid")
        assert "is invalid" not in refusal.get("changed", "") and "status" not in refusal
        assert refusal["page"]["url"].endswith("#/nimbus-labs/skylark/fork")
        # the fork form's page has fewer tools, each as the client lists it already: nothing new to
        # call, so no list_changed; the list read now starts with the form's tool
        await no_change_since(client, changes + 3)
        assert page_tools(await listed(client))[0] == "fork_repo"

        forked = await client.call_ok("fork_repo", {"name": "skylark-sam"})
        assert forked["repository"] == [
            {"owner": "sam-dev", "name": "skylark-sam", "forked_from": "forked from nimbus-labs/skylark"}
        ]
        assert forked["page"]["url"].endswith("#/sam-dev/skylark-sam")
        await one_change_since(client, changes + 3)
        tools = await listed(client)
        assert "fork_repo" not in tools  # your own repository: its Fork button is disabled
        assert page_tools(tools)[:2] == ["star_repo", "view_issues"]
