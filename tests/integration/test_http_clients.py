"""Streamable HTTP: who may talk to the endpoint, and several clients sharing one browser, each in
its own workspace (its own tabs, focus, tool list and notifications)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import httpx2
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from tabmcp.demo.sites import SiteServer
from tests.integration.held_page import HeldPage
from tests.integration.http_harness import (
    HttpServer,
    Notices,
    extension_worker,
    own_browser,
    text_of,
)

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def data(result: types.CallToolResult) -> dict:
    return json.loads(text_of(result))


def names(listing: types.ListToolsResult) -> list[str]:
    return [t.name for t in listing.tools]


async def test_foreign_host_and_origin_are_refused(server_log: object) -> None:
    async with HttpServer(server_log) as server, httpx2.AsyncClient() as http:  # type: ignore[arg-type]
        foreign_origin = await http.post(
            server.url, json=INITIALIZE, headers={**MCP_HEADERS, "Origin": "http://evil.example"}
        )
        foreign_host = await http.post(server.url, json=INITIALIZE, headers={**MCP_HEADERS, "Host": "evil.example"})
        local = await http.post(
            server.url, json=INITIALIZE, headers={**MCP_HEADERS, "Origin": f"http://127.0.0.1:{server.port}"}
        )
        # the server is still there for a proper client after the refusals
        async with server.client(mode="legacy") as client:
            assert names(await client.list_tools()) == ["connect_browser"]
    assert foreign_origin.status_code == 403
    assert foreign_host.status_code == 421
    assert local.status_code == 200 and local.headers.get("mcp-session-id")


async def test_a_bearer_token_is_required_when_configured(server_log: object) -> None:
    token = "http-bearer-token-for-the-test-0123456789"
    async with HttpServer(server_log, http_token=token) as server, httpx2.AsyncClient() as http:  # type: ignore[arg-type]
        missing = await http.post(server.url, json=INITIALIZE, headers=MCP_HEADERS)
        wrong = await http.post(
            server.url, json=INITIALIZE, headers={**MCP_HEADERS, "Authorization": "Bearer not-the-token"}
        )
        async with server.client(mode="legacy", headers={"Authorization": f"Bearer {token}"}) as client:
            assert names(await client.list_tools()) == ["connect_browser"]
    assert missing.status_code == wrong.status_code == 401
    assert "Bearer" in missing.json()["error"]["message"]
    assert missing.headers["www-authenticate"].startswith("Bearer")


def test_http_off_loopback_does_not_start_without_a_token(tmp_path: object) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "tabmcp.cli", "serve", "--http", "0.0.0.0:0"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"TABMCP_CONFIG_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert run.returncode == 2
    assert "not a loopback address" in run.stderr and "TABMCP_HTTP_TOKEN" in run.stderr


async def test_two_clients_work_in_parallel_without_seeing_each_others_tabs(
    server_log: object, sites: SiteServer
) -> None:
    async with HttpServer(server_log) as server:
        notices_a, notices_b = Notices(), Notices()
        async with (
            server.client(mode="legacy", message_handler=notices_a.handler()) as a,
            server.client(mode="legacy", message_handler=notices_b.handler()) as b,
        ):
            assert not (await a.call_tool("connect_browser", {"launch": True})).is_error
            assert not (await b.call_tool("connect_browser", {})).is_error  # the same browser, linked
            opened_a, opened_b = await asyncio.gather(
                a.call_tool("open_tab", {"url": sites.url("mail")}),
                b.call_tool("open_tab", {"url": sites.url("flights")}),
            )
            assert not opened_a.is_error and not opened_b.is_error, (text_of(opened_a), text_of(opened_b))
            tab_a, tab_b = data(opened_a)["tab"]["id"], data(opened_b)["tab"]["id"]

            tabs_a = [t["id"] for t in data(await a.call_tool("list_tabs", {}))["tabs"]]
            tabs_b = [t["id"] for t in data(await b.call_tool("list_tabs", {}))["tabs"]]
            assert tabs_a == [tab_a] and tabs_b == [tab_b]

            # each client's tool list is its own page's
            tools_a, tools_b = names(await a.list_tools()), names(await b.list_tools())
            assert "search_inbox" in tools_a and "search_flights" not in tools_a
            assert "search_flights" in tools_b and "search_inbox" not in tools_b

            # another client's tab cannot be reached by guessing its id
            stolen = await b.call_tool("focus_tab", {"tabId": tab_a})
            closed = await b.call_tool("close_tab", {"tabId": tab_a})
            assert stolen.is_error and f"No tab with id {tab_a}" in text_of(stolen)
            assert closed.is_error
            assert [t["id"] for t in data(await a.call_tool("list_tabs", {}))["tabs"]] == [tab_a]

            # a change in A's workspace is announced to A, not to B
            before_a, before_b = notices_a.count, notices_b.count
            assert not (await a.call_tool("close_tab", {})).is_error
            await notices_a.wait_beyond(before_a)
            await asyncio.sleep(0.5)
            assert notices_b.count == before_b
            assert names(await b.list_tools())[:1] == ["list_tabs"] and "search_flights" in names(await b.list_tools())


async def test_a_client_that_disconnects_mid_call_is_cleaned_up(server_log: object, sites: SiteServer) -> None:
    async with HttpServer(server_log) as server, own_browser(server.ws_port) as browser, HeldPage() as held:
        worker = await extension_worker(browser)
        async with server.client(mode="legacy") as b:
            assert not (await b.call_tool("connect_browser", {})).is_error
            assert not (await b.call_tool("open_tab", {"url": sites.url("flights")})).is_error

            started = asyncio.Event()
            tab_of_a: list[int] = []

            async def client_a() -> None:
                async with server.client(mode="legacy") as a:
                    assert not (await a.call_tool("connect_browser", {})).is_error
                    opened = await a.call_tool("open_tab", {"url": sites.url("mail")})
                    tab_of_a.append(data(opened)["tab"]["id"])
                    started.set()
                    went = await a.call_tool("navigate", {"url": held.url})  # answered only once released
                    raise AssertionError(f"navigate should still be running: {text_of(went)}")

            task = asyncio.create_task(client_a())
            await asyncio.wait_for(started.wait(), 30)
            groups = await worker.evaluate("chrome.tabGroups.query({}).then(gs => gs.map(g => g.title))")
            tabs = await worker.evaluate("chrome.tabs.query({}).then(ts => ts.map(t => [t.url, t.groupId]))")
            assert len(groups) == 2, (groups, tabs)  # one tab group per client, named after it
            await held.wait_requested()  # A's navigate is under way in the browser
            task.cancel()  # A goes away mid-call: its transport closes and ends the session
            with pytest.raises(asyncio.CancelledError):
                await task

            urls: list[str] = []
            for _ in range(100):
                urls = [p.url for p in browser.pages]
                if not any("mail" in u or "held" in u for u in urls):
                    break
                await asyncio.sleep(0.1)
            assert not any("mail" in u or "held" in u for u in urls), urls  # A's tab was closed with its workspace
            assert any("flights" in u for u in urls)

            # B never noticed
            tabs_b = data(await b.call_tool("list_tabs", {}))["tabs"]
            assert len(tabs_b) == 1 and "flights" in tabs_b[0]["url"]
            snapshot = await b.call_tool("snapshot", {})
            assert not snapshot.is_error and "Skyscan" in text_of(snapshot)
        assert tab_of_a


async def test_a_named_workspace_survives_a_reconnect_and_idle_ones_close(
    server_log: object, sites: SiteServer
) -> None:
    async with HttpServer(server_log, session_idle_timeout="4") as server, own_browser(server.ws_port) as browser:
        async with server.client(mode="legacy", workspace="alice") as first:
            assert not (await first.call_tool("connect_browser", {})).is_error
            tab = data(await first.call_tool("open_tab", {"url": sites.url("mail")}))["tab"]["id"]
        async with server.client(mode="legacy", workspace="alice") as again:
            # the same workspace: still connected, the same focused tab and its page tools
            assert "search_inbox" in names(await again.list_tools())
            listed = data(await again.call_tool("list_tabs", {}))
            assert listed["focusedTabId"] == tab
        async with server.client(mode="legacy", workspace="bad name!") as bad:
            with pytest.raises(MCPError, match="Invalid workspace name"):
                await bad.call_tool("list_tabs", {})

        # nobody uses alice any more: after the idle timeout the workspace and its tab are closed
        urls: list[str] = []
        for _ in range(150):
            urls = [p.url for p in browser.pages]
            if not any("mail" in u for u in urls):
                break
            await asyncio.sleep(0.1)
        assert not any("mail" in u for u in urls), urls


async def test_sessions_past_the_maximum_get_a_clear_error(server_log: object) -> None:
    async with (
        HttpServer(server_log, max_sessions="1") as server,  # type: ignore[arg-type]
        httpx2.AsyncClient() as http,
        server.client(mode="legacy") as first,
    ):
        assert names(await first.list_tools()) == ["connect_browser"]
        refused = await http.post(server.url, json=INITIALIZE, headers=MCP_HEADERS)
        assert refused.status_code == 503
        assert "TABMCP_MAX_SESSIONS" in refused.json()["error"]["message"]
        assert names(await first.list_tools()) == ["connect_browser"]  # the first one is unaffected
        async with server.client() as sessionless:
            # a 2026-07-28 client opens no HTTP session, but it would open a workspace: refused, clearly
            with pytest.raises(MCPError, match="TABMCP_MAX_SESSIONS=1"):
                await sessionless.list_tools()


async def test_list_changed_reaches_both_protocol_eras_over_http(server_log: object, sites: SiteServer) -> None:
    async with HttpServer(server_log) as server:
        notices = Notices()
        async with server.client(mode="legacy", message_handler=notices.handler()) as legacy:
            assert not (await legacy.call_tool("connect_browser", {"launch": True})).is_error
            await notices.wait_beyond(0)
            assert "list_tabs" in names(await legacy.list_tools())
        async with server.client() as modern:
            assert modern.protocol_version not in ("2025-11-25", "2025-06-18")
            async with modern.listen(tools_list_changed=True) as stream:
                connected = await modern.call_tool("connect_browser", {})
                assert not connected.is_error, text_of(connected)
                event = await asyncio.wait_for(anext(aiter(stream)), 10)
                assert "tools" in type(event).__name__.lower() or "list" in repr(event).lower()
            assert "list_tabs" in names(await modern.list_tools())


async def test_a_browser_with_the_wrong_token_is_named_in_the_error(server_log: object) -> None:
    async with (
        HttpServer(server_log) as server,
        own_browser(server.ws_port, token="not-the-pairing-token-of-this-server"),
        server.client(mode="legacy") as client,
    ):
        refused = await client.call_tool("connect_browser", {})
        assert refused.is_error
        assert "refused" in text_of(refused) and "wrong pairing token" in text_of(refused)
        assert "tabmcp token" in data(refused)["refusal"]
        assert names(await client.list_tools()) == ["connect_browser"]
