"""MCP over stdio, with every line checked before the SDK reads it.

The SDK's ``stdio_server`` drops a line it cannot parse without a word, so a client that sent it
with an id waits forever. Here stdin is read by ``CheckedLines``: a line that is not a JSON-RPC
message the SDK takes (``jsonrpc_check.py``) is answered with its JSON-RPC error through the SDK's
own writer (one writer: replies are never interleaved mid-line), and the SDK sees only good lines.

fd 0 is taken over the way the SDK does it for its own reader: the protocol is read from a
private duplicate and fd 0 points at the null device, so a child process (a browser tabmcp
launches) cannot read protocol bytes. stdout stays the SDK's to claim.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any, BinaryIO

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from tabmcp.jsonrpc_check import check_message


class CheckedLines:
    """The lines of ``source`` that are JSON-RPC messages; the others are answered on ``reply_to``."""

    def __init__(self, source: anyio.AsyncFile[str]) -> None:
        self.source = source
        self._writer: Any = None
        self._ready = anyio.Event()

    def reply_to(self, writer: Any) -> None:
        """The SDK's write stream, known only once its transport runs (lines may already be waiting)."""
        self._writer = writer
        self._ready.set()

    async def __aiter__(self) -> AsyncIterator[str]:
        async for line in self.source:
            if not line.strip():
                continue  # a blank line is no message: nothing to answer
            error = check_message(line)
            if error is None:
                yield line
                continue
            await self._ready.wait()
            await self._writer.send(SessionMessage(error))


@contextlib.contextmanager
def _private_stdin() -> Iterator[BinaryIO]:
    """The protocol's stdin on a private descriptor, fd 0 on the null device while serving."""
    try:
        private = os.dup(0)
        null = os.open(os.devnull, os.O_RDONLY)
    except OSError:  # no usable fd 0 to move: read it in place
        yield sys.stdin.buffer
        return
    os.set_inheritable(private, False)
    os.dup2(null, 0)
    os.close(null)
    try:
        yield os.fdopen(private, "rb", closefd=False)
    finally:
        with contextlib.suppress(OSError):
            os.dup2(private, 0)  # put the wire back for whatever runs after the server


@asynccontextmanager
async def checked_stdio_server() -> AsyncIterator[tuple[Any, Any]]:
    """``stdio_server()``'s streams, with malformed lines answered instead of dropped."""
    with _private_stdin() as stdin:
        text = io.TextIOWrapper(stdin, encoding="utf-8", errors="replace")  # what the SDK's reader does
        lines = CheckedLines(anyio.wrap_file(text))
        async with stdio_server(stdin=lines) as (read, write):  # type: ignore[arg-type]
            lines.reply_to(write)
            yield read, write
