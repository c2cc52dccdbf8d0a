"""A call that changes the tool list answers once its client has re-read ``tools/list`` (rereads.py),
for clients that re-read after ``list_changed`` as Claude Code does: over stdio and Streamable HTTP,
in the handshake era and the 2026-07-28 era (``subscriptions/listen``), with the MCP SDK's own
clients, `tabmcp serve` as a subprocess and headless Chromium with the real extension launched by
``connect_browser``. A client that does not re-read is held once, to the bound, and then not again;
a static-mode client is never held.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from tabmcp.demo.client import StdioSession, tabmcp_command
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import PAIRING_TOKEN, serve
from tests.integration.http_harness import HttpServer

BOUND = 1.5  # list_reread_wait's default
PAGE_TOOL = "search_inbox"


class Rereader:
    """A client's re-reads after list_changed: when each finished, and what it listed."""

    def __init__(self) -> None:
        self.lists: list[list[str]] = []
        self.at: list[float] = []

    async def read(self, client: Client) -> None:
        names = [t.name for t in (await client.list_tools()).tools]
        self.lists.append(names)
        self.at.append(time.monotonic())


@asynccontextmanager
async def modern(client: Client) -> AsyncIterator[Rereader]:
    """A 2026-07-28 client that re-reads the list on each ToolsListChanged of its listen stream."""
    rereader = Rereader()
    async with client.listen(tools_list_changed=True) as subscription, anyio.create_task_group() as tasks:

        async def pump() -> None:
            async for _event in subscription:
                tasks.start_soon(rereader.read, client)

        tasks.start_soon(pump)
        yield rereader
        tasks.cancel_scope.cancel()


def legacy_handler(client_box: list[Client], rereader: Rereader, tasks: anyio.abc.TaskGroup) -> Any:
    async def handle(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            tasks.start_soon(rereader.read, client_box[0])

    return handle


async def call_timed(client: Client, name: str, args: dict[str, Any]) -> tuple[types.CallToolResult, float]:
    result = await client.call_tool(name, args)
    return result, time.monotonic()


def log_text(server_log: object) -> str:
    log = server_log  # the server's stderr file (conftest.server_log)
    log.flush()  # type: ignore[attr-defined]
    return Path(log.name).read_text()  # type: ignore[attr-defined]


def assert_delivered(result: types.CallToolResult, answered_at: float, rereader: Rereader) -> None:
    """The re-read, with the page's tool, was done by the time the call's answer came back."""
    assert not result.is_error, result
    assert rereader.lists and PAGE_TOOL in rereader.lists[0], rereader.lists
    assert rereader.at[0] <= answered_at + 0.05, "the answer came before the client had re-read the list"


async def test_stdio_handshake_era_client_that_re_reads(server_log: object, tmp_path: Path, sites: SiteServer) -> None:
    async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "p")) as client:
        assert await client.tool_names() == ["connect_browser"]
        started = time.monotonic()
        await client.call_ok("connect_browser", {"launch": True, "url": sites.url("mail/index.html")})
        answered = time.monotonic()
        with anyio.fail_after(2):
            while client.rereads < 1:
                await anyio.sleep(0.01)
        assert PAGE_TOOL in client.listed
        assert answered - started < 20
        text = log_text(server_log)
        assert "connect_browser answered after the client re-read the tool list" in text
        assert "did not re-read" not in text


async def test_stdio_client_that_does_not_re_read_is_held_once(
    server_log: object, tmp_path: Path, sites: SiteServer
) -> None:
    env = {"TABMCP_WS_PORT": "0", "TABMCP_USER_DATA_DIR": str(tmp_path / "p"), "TABMCP_PAIRING_TOKEN": PAIRING_TOKEN,
           "TABMCP_NATIVE_BRIDGE": "false", "TABMCP_LOG_LEVEL": "DEBUG"}  # fmt: skip
    async with StdioSession(env=env, errlog=server_log, reread=False) as client:  # type: ignore[arg-type]
        await client.tool_names()  # it read the list once: it uses it
        started = time.monotonic()
        await client.call_ok("connect_browser", {"launch": True})
        first = time.monotonic() - started
        assert first >= BOUND - 0.05  # held to the bound: it never re-read
        await client.call_ok("open_tab", {"url": sites.url("mail/index.html")})  # not held: one hold ran out
        await client.tool_names()  # reading right after an answer is no sign of re-reading on notice
        await client.call_ok("navigate", {"url": sites.url("flights.html")})
        assert client.changes >= 3
        text = log_text(server_log)
        assert text.count("did not re-read the tool list within 1.5 s") == 1  # a second hold would say so too
        assert "answered after the client re-read" not in text


async def test_stdio_modern_era_client(server_log: object, tmp_path: Path, sites: SiteServer) -> None:
    command, prefix = tabmcp_command()
    env = {"TABMCP_WS_PORT": "0", "TABMCP_USER_DATA_DIR": str(tmp_path / "p"), "TABMCP_PAIRING_TOKEN": PAIRING_TOKEN,
           "TABMCP_NATIVE_BRIDGE": "false", "TABMCP_LOG_LEVEL": "DEBUG"}  # fmt: skip
    params = StdioServerParameters(command=command, args=[*prefix, "serve"], env={**os.environ, **env})
    async with Client(stdio_client(params, errlog=server_log)) as client, modern(client) as rereader:  # type: ignore[arg-type]
        assert [t.name for t in (await client.list_tools()).tools] == ["connect_browser"]
        result, answered = await call_timed(
            client, "connect_browser", {"launch": True, "url": sites.url("mail/index.html")}
        )
        assert_delivered(result, answered, rereader)
    assert "connect_browser answered after the client re-read the tool list" in log_text(server_log)


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_http_clients(server_log: object, sites: SiteServer, era: str) -> None:
    async with HttpServer(server_log, native_bridge="false") as server:  # type: ignore[arg-type]
        rereader = Rereader()
        if era == "modern":
            async with server.client() as client, modern(client) as rereader:
                await client.list_tools()
                result, answered = await call_timed(
                    client, "connect_browser", {"launch": True, "url": sites.url("mail/index.html")}
                )
                assert_delivered(result, answered, rereader)
        else:
            async with anyio.create_task_group() as tasks:
                box: list[Client] = []
                async with server.client(mode="legacy", message_handler=legacy_handler(box, rereader, tasks)) as client:
                    box.append(client)
                    await client.list_tools()
                    result, answered = await call_timed(
                        client, "connect_browser", {"launch": True, "url": sites.url("mail/index.html")}
                    )
                    assert_delivered(result, answered, rereader)
                tasks.cancel_scope.cancel()
    assert "connect_browser answered after the client re-read the tool list" in log_text(server_log)


async def test_static_clients_are_never_held(server_log: object, tmp_path: Path, sites: SiteServer) -> None:
    async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "p"), tools="static") as client:
        await client.tool_names()
        await client.call_ok("connect_browser", {"launch": True, "url": sites.url("mail/index.html")})
        await client.call_ok("navigate", {"url": sites.url("flights.html")})
        assert client.changes == 0
    text = log_text(server_log)
    assert "re-read the tool list" not in text and "did not re-read" not in text
