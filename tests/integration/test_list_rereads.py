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


def connect_to(sites: SiteServer) -> dict[str, Any]:
    return {"launch": True, "url": sites.url("mail/index.html")}


class Rereader:
    """What a client listed in each of its re-reads after list_changed."""

    def __init__(self) -> None:
        self.lists: list[list[str]] = []

    async def read(self, client: Client) -> None:
        names = [t.name for t in (await client.list_tools()).tools]
        self.lists.append(names)


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


def log_text(server_log: object) -> str:
    log = server_log  # the server's stderr file (conftest.server_log)
    log.flush()  # type: ignore[attr-defined]
    return Path(log.name).read_text()  # type: ignore[attr-defined]


async def assert_delivered(result: types.CallToolResult, rereader: Rereader) -> None:
    """The call worked and the client's re-read lists the page's tool. That the server had the re-read
    before it answered is its own word (the log line each test reads): on the client's side the two
    answers may be handled in either order."""
    assert not result.is_error, result
    with anyio.fail_after(5):
        while not rereader.lists:
            await anyio.sleep(0.01)
    assert PAGE_TOOL in rereader.lists[0], rereader.lists


async def test_stdio_handshake_era_client_that_re_reads(server_log: object, tmp_path: Path, sites: SiteServer) -> None:
    async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "p")) as client:
        assert await client.tool_names() == ["connect_browser"]
        await client.call_ok("connect_browser", connect_to(sites))
        with anyio.fail_after(2):
            while client.rereads < 1:
                await anyio.sleep(0.01)
        assert PAGE_TOOL in client.listed
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
        # not held: one hold ran out; and no second notice while the first is unread (its read brings this)
        await client.call_ok("open_tab", {"url": sites.url("mail/index.html")})
        assert client.changes == 1
        await client.tool_names()  # reading right after an answer is no sign of re-reading on notice
        await client.call_ok("navigate", {"url": sites.url("flights.html")})
        await client.wait_changes(2)
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
        result = await client.call_tool("connect_browser", connect_to(sites))
        await assert_delivered(result, rereader)
    assert "connect_browser answered after the client re-read the tool list" in log_text(server_log)


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_http_clients(server_log: object, sites: SiteServer, era: str) -> None:
    async with HttpServer(server_log, native_bridge="false") as server:  # type: ignore[arg-type]
        rereader = Rereader()
        if era == "modern":
            async with server.client() as client, modern(client) as rereader:
                await client.list_tools()
                result = await client.call_tool(
                    "connect_browser", {"launch": True, "url": sites.url("mail/index.html")}
                )
                await assert_delivered(result, rereader)
        else:
            async with anyio.create_task_group() as tasks:
                box: list[Client] = []
                async with server.client(mode="legacy", message_handler=legacy_handler(box, rereader, tasks)) as client:
                    box.append(client)
                    await client.list_tools()
                    result = await client.call_tool(
                        "connect_browser", {"launch": True, "url": sites.url("mail/index.html")}
                    )
                    await assert_delivered(result, rereader)
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
