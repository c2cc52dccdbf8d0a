"""Resources and their update notifications in both protocol eras, in process: the state changes are
fed to the runtime directly (the browser side is covered by tests/integration/test_page_agent.py)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tabmcp import state as s
from tabmcp.config import Settings
from tabmcp.server import TabmcpServer, tabmcp_server

TAB = s.Tab(id=7, title="Inbox", url="http://127.0.0.1/mail", status="complete")


def app() -> TabmcpServer:
    return tabmcp_server(Settings(ws_port=0))


async def test_resources_are_listed_and_read_when_nothing_is_connected() -> None:
    server = app()
    async with Client(server, mode="legacy") as client:
        listed = await client.list_resources()
        assert [str(r.uri) for r in listed.resources] == ["tabs://list", "dom://current-page"]
        assert client.server_capabilities.resources.subscribe is True  # type: ignore[union-attr]
        tabs = json.loads((await client.read_resource("tabs://list")).contents[0].text)  # type: ignore[union-attr]
        assert tabs["tabs"] == [] and "connect_browser" in tabs["note"]
        page = (await client.read_resource("dom://current-page")).contents[0].text  # type: ignore[union-attr]
        assert "no focused tab" in page
        with pytest.raises(MCPError, match="Unknown resource"):
            await client.read_resource("tabs://nope")


async def test_legacy_subscribers_hear_only_what_they_subscribed_to() -> None:
    server = app()
    heard: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            heard.append(str(message.params.uri))

    async with Client(server, mode="legacy", message_handler=on_message) as client:
        await client.subscribe_resource("tabs://list")
        await server.app.runtime.dispatch(s.ExtensionConnected(s.Browser(), (TAB,)))
        with anyio.fail_after(5):
            while not heard:
                await anyio.sleep(0.01)
        assert heard == ["tabs://list"]  # dom://current-page was not subscribed to
        tabs = json.loads((await client.read_resource("tabs://list")).contents[0].text)  # type: ignore[union-attr]
        assert tabs["tabs"][0]["title"] == "Inbox"

        await client.unsubscribe_resource("tabs://list")
        await server.app.runtime.dispatch(s.TabClosed(TAB.id))
        await anyio.sleep(0.2)
        assert heard == ["tabs://list"]


async def test_listen_streams_carry_resource_updates() -> None:
    server = app()
    async with (
        Client(server) as client,
        client.listen(resource_subscriptions=["tabs://list", "dom://current-page"]) as subscription,
    ):
        await server.app.runtime.dispatch(s.ExtensionConnected(s.Browser(), (TAB,)))
        await server.app.runtime.dispatch(s.TabFocused(TAB.id, ()))
        got: list[str] = []
        with anyio.fail_after(5):
            async for event in subscription:
                got.append(str(event.uri))  # type: ignore[union-attr]
                if "dom://current-page" in got:
                    break
        # connecting changed the tabs; focusing changed both (published in URI order, dom:// first)
        assert got == ["tabs://list", "dom://current-page"]
