"""One MCP server over stdio, driven by the real Python SDK client, with every call timed.

The timing is the client's wall clock around ``tools/call``: what a model's host waits for, including
the JSON-RPC hop over the pipe, which is the same for every server measured.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import anyio
import mcp_types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

CALL_TIMEOUT_S = 180.0  # a 1.7 MB page takes some servers several seconds; a hang must still end


class ToolError(RuntimeError):
    """A tool call whose result was ``isError``: the benchmark cannot go on with that server."""


@dataclass(frozen=True)
class Call:
    text: str
    seconds: float
    meta: dict[str, Any] = field(default_factory=dict)  # the result's _meta (tabmcp's phases when traced)
    parts: tuple[str, ...] = ()  # each text block (``text`` is them joined)


@dataclass(frozen=True)
class ToolList:
    count: int
    chars: int  # JSON characters of the tools array, ``json.dumps`` defaults (as docs/benchmarks.md measures)
    names: tuple[str, ...]
    digest: str = ""  # sha256 of that JSON: tells a re-read list that did not change (bench/task_meter.py)
    each: tuple[str, ...] = ()  # each tool's JSON, in order: what changed between two reads


def text_of(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def server_environ(env: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment without its tabmcp settings, then ``env``: a ``TABMCP_BROWSER`` or
    ``TABMCP_TOOLS`` left in the shell would otherwise change what a figure measures (the extension
    adapter would run on CDP). The bench's own ``TABMCP_BENCH_*`` stay."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith("TABMCP_") or k.startswith("TABMCP_BENCH_")}
    return {**kept, **(env or {})}


class StdioServer:
    """Launches ``command args`` in ``cwd`` (scratch: some servers write files next to themselves)."""

    def __init__(
        self, command: str, args: list[str], *, cwd: Path, errlog: IO[str], env: dict[str, str] | None = None
    ) -> None:
        self.params = StdioServerParameters(command=command, args=args, env=server_environ(env), cwd=str(cwd))
        self.errlog = errlog
        self._stack = AsyncExitStack()
        self.session: ClientSession
        self.server_version = ""
        self.list_changed = 0  # notifications/tools/list_changed received so far (bench/tasks.py re-reads the list)

    async def __aenter__(self) -> StdioServer:
        try:
            read, write = await self._stack.enter_async_context(stdio_client(self.params, errlog=self.errlog))
            self.session = await self._stack.enter_async_context(
                ClientSession(read, write, message_handler=self._on_message)
            )
            with anyio.fail_after(CALL_TIMEOUT_S):
                init = await self.session.initialize()
        except BaseException:
            await self._stack.aclose()  # here, in this task: the SDK's cancel scopes must exit where they began
            raise
        self.server_version = init.server_info.version
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    async def _on_message(self, message: object) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.list_changed += 1

    async def tool_list(self) -> ToolList:
        tools = (await self.session.list_tools()).tools
        each = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools]
        dumped = json.dumps(each)
        digest = hashlib.sha256(dumped.encode()).hexdigest()
        return ToolList(len(tools), len(dumped), tuple(t.name for t in tools), digest, tuple(map(json.dumps, each)))

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> Call:
        start = time.perf_counter()
        with anyio.fail_after(CALL_TIMEOUT_S):
            result = await self.session.call_tool(name, arguments or {})
        seconds = time.perf_counter() - start
        text = text_of(result)
        if result.is_error:
            raise ToolError(f"{name}({arguments}) failed: {text[:2000]}")
        parts = tuple(c.text for c in result.content if isinstance(c, types.TextContent))
        return Call(text, seconds, dict(result.meta or {}), parts)
