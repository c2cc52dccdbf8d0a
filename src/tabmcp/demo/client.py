"""A real MCP client over stdio against ``tabmcp serve``, the way Claude Code launches it.

It records every ``notifications/tools/list_changed`` so the demo can print them and tests can
assert exactly when they arrive.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
from collections.abc import Mapping
from contextlib import AsyncExitStack
from pathlib import Path
from typing import IO, Any

import anyio
import mcp_types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from toon_format import decode as toon_decode


class _CalledToolGone(logging.Filter):
    """The SDK's client warns when the tool it just called is gone from the list it re-read: with
    tabmcp that is the call's own doing (``close_tab`` closed the focused tab, ``connect_browser``
    connected), since the answer waits for the client's re-read."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "cannot validate any structured content" not in record.getMessage()


logging.getLogger("client").addFilter(_CalledToolGone())  # the mcp SDK's ClientSession logger


def tabmcp_command() -> tuple[str, list[str]]:
    """The installed ``tabmcp`` console script next to this Python, else ``python -m tabmcp.cli``."""
    script = Path(sys.executable).parent / "tabmcp"
    if script.exists():
        return str(script), []
    found = shutil.which("tabmcp")
    return (found, []) if found else (sys.executable, ["-m", "tabmcp.cli"])


class StdioSession:
    """``client_name``: the ``clientInfo.name`` sent in ``initialize`` (the SDK's own by default); tabmcp
    picks its tool list mode by it (tool_modes.py). ``reread``: re-read ``tools/list`` on every
    ``list_changed``, as Claude Code does (``listed`` holds the last list read that way)."""

    def __init__(
        self,
        env: dict[str, str] | None = None,
        errlog: IO[str] | None = None,
        client_name: str | None = None,
        base_env: Mapping[str, str] | None = None,
        reread: bool = True,
    ) -> None:
        command, prefix = tabmcp_command()
        base = os.environ if base_env is None else base_env  # what ``env`` is laid over
        self.params = StdioServerParameters(command=command, args=[*prefix, "serve"], env={**base, **(env or {})})
        self.errlog = errlog or sys.stderr
        self.client_info = types.Implementation(name=client_name, version="1.0.0") if client_name else None
        self.changes = 0
        self.reread = reread
        self.listed: list[str] = []  # the tool names of the last re-read after a list_changed
        self.rereads = 0
        self.progress_notices = 0  # notifications/progress, whichever call they belong to
        self.resource_updates: list[str] = []  # URIs of notifications/resources/updated, in order
        self._changed = anyio.Event()
        self._stack = AsyncExitStack()
        self.session: ClientSession

    async def __aenter__(self) -> StdioSession:
        read, write = await self._stack.enter_async_context(stdio_client(self.params, errlog=self.errlog))
        self._tasks = await self._stack.enter_async_context(anyio.create_task_group())
        self.session = await self._stack.enter_async_context(
            ClientSession(read, write, message_handler=self._on_message, client_info=self.client_info)
        )
        self._stack.callback(self._tasks.cancel_scope.cancel)  # a re-read still running ends with the session
        self.init = await self.session.initialize()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ProgressNotification):
            self.progress_notices += 1
        if isinstance(message, types.ResourceUpdatedNotification):
            self.resource_updates.append(str(message.params.uri))
        if isinstance(message, types.ToolListChangedNotification):
            self.changes += 1
            self._changed.set()
            self._changed = anyio.Event()
            if self.reread:  # not in this handler: the answer comes through the loop that called it
                self._tasks.start_soon(self._read_list)

    async def _read_list(self) -> None:
        try:
            self.listed = await self.tool_names()
        except Exception as exc:  # the server went away meanwhile: a test about that reads its calls' errors
            print(f"tools/list after list_changed failed: {exc}", file=sys.stderr)
            return
        self.rereads += 1

    async def tools(self) -> list[types.Tool]:
        return list((await self.session.list_tools()).tools)

    async def tool_names(self) -> list[str]:
        return [t.name for t in await self.tools()]

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> types.CallToolResult:
        return await self.session.call_tool(name, arguments or {})

    async def call_ok(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """Call a tool that must succeed; return its structured content, or its TOON text decoded."""
        result = await self.call(name, arguments)
        if result.is_error:
            raise AssertionError(f"{name} failed: {text_of(result)}")
        return data_of(result)

    async def wait_changes(self, count: int, timeout: float = 15.0) -> None:
        """Wait until at least ``count`` list_changed notifications have arrived in all."""
        with anyio.fail_after(timeout):
            while self.changes < count:
                await self._changed.wait()


def text_of(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def data_of(result: types.CallToolResult) -> dict[str, Any]:
    """What a result says as data: structured content (core tools), else its text read as TOON (page
    tools, page-agent tools)."""
    if result.structured_content:
        return result.structured_content
    texts = [c.text for c in result.content if isinstance(c, types.TextContent)]
    try:  # the first block: a static-mode answer may add the page's tools as another (page_proxy.py)
        data = toon_decode(texts[0] if texts else "")
    except Exception:  # plain text (a snapshot page, a message): no fields to read
        return {}
    return data if isinstance(data, dict) else {}


def pretty(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)
