"""The static tool mode (tool_modes.py, docs/clients.md) as a client that ignores ``list_changed`` uses
it: `tabmcp serve` over stdio, a real MCP ClientSession, headless Chromium with the real extension, the
demo flight search. The list never changes and no ``list_changed`` is sent; the page tools are reached
through ``list_page_tools`` and ``call_page_tool``. ``auto`` picks the mode by the client's name."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

from tabmcp.demo.client import StdioSession, data_of, text_of
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import serve
from tests.integration.http_harness import HttpServer

STATIC_LIST = [
    *["connect_browser", "list_tabs", "open_tab", "focus_tab", "close_tab", "list_page_tools", "call_page_tool"],
    *["snapshot", "interact", "navigate", "wait_for", "screenshot", "console"],
]


async def error_of(client: StdioSession, tool: str, args: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    result = await client.call(tool, args)
    assert result.is_error, f"{tool}({args}) should have failed: {text_of(result)}"
    data = result.structured_content or {}
    return str(data.get("error", text_of(result))), data


async def test_static_list_is_fixed_and_reaches_the_page_tools(
    server_log: object, tmp_path: Path, sites: SiteServer
) -> None:
    depart = (datetime.date.today() + datetime.timedelta(days=30)).isoformat()
    async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile"), tools="static") as client:
        assert await client.tool_names() == STATIC_LIST
        listed = {t.name: t for t in await client.tools()}
        assert listed["list_page_tools"].annotations.read_only_hint is True

        # disconnected: everything is listed, and a call in the wrong state says what to call first
        nothing = await client.call_ok("list_page_tools")
        assert nothing["focusedTab"] is None and nothing["tools"] == []
        assert "connect_browser" in nothing["hint"]
        message, data = await error_of(client, "list_tabs")
        assert data["code"] == "NOT_CONNECTED" and "call connect_browser first" in message
        message, data = await error_of(client, "call_page_tool", {"name": "search_flights", "arguments": {}})
        assert data["code"] == "NO_TAB" and "connect_browser" in message

        await client.call_ok("connect_browser", {"launch": True})
        assert await client.tool_names() == STATIC_LIST
        assert "open_tab" in (await client.call_ok("list_page_tools"))["hint"]  # connected, no tab yet

        opened = await client.call_ok("open_tab", {"url": sites.url("flights/index.html")})
        assert opened["focused"] is True and "search_flights" in opened["toolsAvailable"]
        assert await client.tool_names() == STATIC_LIST  # the page's tools are not listed directly

        page = await client.call_ok("list_page_tools")
        assert page["focusedTab"]["url"] == sites.url("flights/index.html")
        tools = {t["name"]: t for t in page["tools"]}
        search = tools["search_flights"]
        assert search["inputSchema"]["required"] == ["from", "to", "departDate"]
        assert search["inputSchema"]["properties"]["departDate"]["format"] == "date"
        assert search["annotations"].get("destructiveHint") is not True and search["description"]

        # bad arguments: the field is named, nothing runs
        message, data = await error_of(
            client, "call_page_tool", {"name": "search_flights", "arguments": {"from": "SFO", "departDate": depart}}
        )
        assert data["code"] == "BAD_ARGUMENTS" and "missing required argument(s): to" in message
        message, _ = await error_of(
            client,
            "call_page_tool",
            {"name": "search_flights", "arguments": {"from": "SFO", "to": "JFK", "departDate": depart, "seat": 1}},
        )
        assert "unknown argument(s) seat" in message
        message, data = await error_of(client, "call_page_tool", {"name": "search_flights", "arguments": "SFO"})
        assert "arguments" in message  # not an object: the proxy's own schema says so
        # an unknown (or stale) name: the page's tools as they are now
        message, data = await error_of(client, "call_page_tool", {"name": "book_hotel"})
        assert data["code"] == "UNKNOWN_TOOL" and "search_flights" in data["pageTools"]
        assert "book_hotel" in message and "search_flights" in message
        message, _ = await error_of(client, "call_page_tool", {"name": "list_tabs"})
        assert "core tool" in message

        found = await client.call_ok(
            "call_page_tool",
            {"name": "search_flights", "arguments": {"from": "SFO", "to": "JFK", "departDate": depart}},
        )
        assert found["tool"] == "search_flights" and found["flights"]
        # the results brought select_flight: list_page_tools shows it, tools/list stays the same
        after = [t["name"] for t in (await client.call_ok("list_page_tools"))["tools"]]
        assert "select_flight" in after and "search_flights" in after
        assert await client.tool_names() == STATIC_LIST

        await client.call_ok("close_tab")
        assert await client.tool_names() == STATIC_LIST
        message, data = await error_of(client, "call_page_tool", {"name": "select_flight", "arguments": {"index": 1}})
        assert data["code"] == "NO_TAB" and "open_tab" in message
        assert client.changes == 0  # connecting, focusing, new page tools, closing: no list_changed


async def test_auto_mode_picks_by_the_client_name(server_log: Any, tmp_path: Path) -> None:
    """No browser needed: the list a fresh client sees shows the mode."""
    async with serve(server_log, ws_port="0", client_name="claude-ai") as desktop:
        assert await desktop.tool_names() == STATIC_LIST
    async with serve(server_log, ws_port="0", client_name="some-new-client") as other:
        assert await other.tool_names() == ["connect_browser"]
        # a proxy called anyway (a list from a static session, cached) says what it is for
        message, _ = await error_of(other, "list_page_tools")
        assert "tools=static" in message and "connect_browser" in message
    async with serve(server_log, ws_port="0", client_name="claude-ai", tools="dynamic") as forced:
        assert await forced.tool_names() == ["connect_browser"]
    server_log.seek(0)
    log = server_log.read()
    assert "tool list for this client: static (tools=auto and client 'claude-ai'" in log
    assert "tool list for this client: dynamic (tools=auto and client 'some-new-client'" in log
    assert "tool list for this client: dynamic (tools=dynamic)" in log


def told(result: Any) -> dict[str, Any]:
    """The page tools an answer tells (its last text block, and its structured content); {} when none."""
    blocks = [c.text for c in result.content if c.type == "text"]
    assert not result.is_error, text_of(result)
    if len(blocks) < 2 or not blocks[-1].startswith('{"pageTools":'):
        return {}
    news = json.loads(blocks[-1])["pageTools"]
    if result.structured_content is not None:
        assert result.structured_content["pageTools"] == news
    return news


async def test_answers_tell_the_new_page_tools_and_the_model_calls_them_without_listing(
    server_log: object, tmp_path: Path, sites: SiteServer, driver_kind: str
) -> None:
    depart = (datetime.date.today() + datetime.timedelta(days=30)).isoformat()
    async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile"), tools="static") as client:
        assert told(await client.call("connect_browser", {"launch": True})) == {}  # no tab: no page tools

        opened = await client.call("open_tab", {"url": sites.url("flights/index.html")})
        news = told(opened)
        tools = {t["name"]: t for t in news["tools"]}
        assert "gone" not in news and "call_page_tool" in news["hint"]
        search = tools["search_flights"]  # as list_page_tools would list it: the schema to call it by
        assert search["inputSchema"]["required"] == ["from", "to", "departDate"] and search["description"]

        # called from what the answer told, without list_page_tools; the results page's new tool comes with it
        found = await client.call(
            "call_page_tool",
            {"name": "search_flights", "arguments": {"from": "SFO", "to": "JFK", "departDate": depart}},
        )
        assert data_of(found)["flights"]
        news = told(found)
        names = [t["name"] for t in news.get("tools", [])]
        assert "select_flight" in names and "search_flights" not in names  # told once, as it still is
        select = next(t for t in news["tools"] if t["name"] == "select_flight")
        assert "index" in select["inputSchema"]["properties"]
        assert told(await client.call("list_tabs")) == {}  # nothing changed since

        # another page in another tab: its tools, and the flights' named as gone
        mail = await client.call("open_tab", {"url": sites.url("mail.html")})
        news = told(mail)
        assert {"search_flights", "select_flight"} <= set(news["gone"])
        mail_tools = [t["name"] for t in news["tools"]]
        assert mail_tools and not {"search_flights", "select_flight"} & set(mail_tools)
        flights_tab = next(t["id"] for t in data_of(await client.call("list_tabs"))["tabs"] if "flights" in t["url"])

        # back to the flights tab: its tools told again (the client was told they were gone)
        news = told(await client.call("focus_tab", {"tabId": flights_tab}))
        assert "search_flights" in [t["name"] for t in news["tools"]] and set(mail_tools) <= set(news["gone"])
        picked = await client.call("call_page_tool", {"name": "select_flight", "arguments": {"index": 1}})
        assert not picked.is_error, text_of(picked)

        # list_page_tools tells every tool: the next answer on the same page repeats none of them
        await client.call_ok("list_page_tools")
        assert told(await client.call("list_tabs")) == {}
        assert client.changes == 0


async def test_clients_of_one_workspace_are_told_the_page_tools_each(server_log: object, sites: SiteServer) -> None:
    """Over HTTP, two static clients in one named workspace: each is told the page's tools once, by
    the first answer after the change it has not heard of; a client without a session (2026-07-28)
    is told per workspace."""
    async with HttpServer(server_log, tools="static") as server:
        async with (
            server.client(mode="legacy", workspace="team") as a,
            server.client(mode="legacy", workspace="team") as b,
        ):
            assert told(await a.call_tool("connect_browser", {"launch": True})) == {}
            opened = await a.call_tool("open_tab", {"url": sites.url("flights/index.html")})
            assert "search_flights" in [t["name"] for t in told(opened)["tools"]]
            assert told(await a.call_tool("list_tabs", {})) == {}  # told already

            # the other client of the workspace heard nothing yet: its next answer tells it
            seen = told(await b.call_tool("list_tabs", {}))
            assert "search_flights" in [t["name"] for t in seen["tools"]]
            assert told(await b.call_tool("list_tabs", {})) == {}
            depart = (datetime.date.today() + datetime.timedelta(days=30)).isoformat()
            flight = {"from": "SFO", "to": "JFK", "departDate": depart}
            found = await b.call_tool("call_page_tool", {"name": "search_flights", "arguments": flight})
            assert "select_flight" in [t["name"] for t in told(found)["tools"]]
            # A was not told of the results page's tool by B's answer
            assert "select_flight" in [t["name"] for t in told(await a.call_tool("list_tabs", {}))["tools"]]

        async with server.client(workspace="team") as modern:  # no session: told per workspace
            assert modern.protocol_version not in ("2025-11-25", "2025-06-18")
            assert "select_flight" in [t["name"] for t in told(await modern.call_tool("list_tabs", {}))["tools"]]
            assert told(await modern.call_tool("list_tabs", {})) == {}
