"""MCP over stdio, with every line checked before the SDK reads it.

The SDK's ``stdio_server`` drops a line it cannot parse without a word, so a client that sent it
with an id waits forever. Here stdin is read by ``CheckedLines``: a line that is not a JSON-RPC
message the SDK takes (``jsonrpc_check.py``) is answered with its JSON-RPC error through the SDK's
own writer (one writer: replies are never interleaved mid-line), and the SDK sees only good lines.

fd 0 is taken over the way the SDK does it for its own reader: the protocol is read from a
private duplicate and fd 0 points at the null device, so a child process (a browser tabmcp
launches) cannot read protocol bytes. fd 1 likewise: replies go to a private duplicate, fd 1 points
at stderr, so stray output never reaches the wire.

Where stdin and stdout are pipes or sockets (as MCP clients start a server) both are served by the
event loop itself; the SDK's own files read and write each line in a worker thread, a thread hop
each way per call (about a millisecond of a call on a busy machine). Any other kind of file (a
regular file) is served as the SDK serves it.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import stat
import sys
from collections.abc import AsyncIterable, AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any, BinaryIO

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from tabmcp.jsonrpc_check import HEAD_BYTES, MAX_MESSAGE_BYTES, TooLarge, check_message, too_large

READ_CHUNK = 256 * 1024


class CheckedLines:
    """The lines of ``source`` that are JSON-RPC messages; the others are answered on ``reply_to``."""

    def __init__(self, source: AsyncIterable[str | TooLarge]) -> None:
        self.source = source
        self._writer: Any = None
        self._ready = anyio.Event()

    def reply_to(self, writer: Any) -> None:
        """The SDK's write stream, known only once its transport runs (lines may already be waiting)."""
        self._writer = writer
        self._ready.set()

    async def __aiter__(self) -> AsyncIterator[str]:
        async for line in self.source:
            if isinstance(line, TooLarge):
                error = too_large(line.head)
            elif not line.strip():
                continue  # a blank line is no message: nothing to answer
            else:
                error = check_message(line)
            if error is None:
                yield line
                continue
            await self._ready.wait()
            await self._writer.send(SessionMessage(error))


class PipeLines:
    """The lines of a pipe read by the event loop (text decoded as the SDK decodes it, bad bytes
    replaced); a line over ``max_bytes`` is dropped as it arrives and given as ``TooLarge``."""

    def __init__(self, reader: asyncio.StreamReader, max_bytes: int = MAX_MESSAGE_BYTES) -> None:
        self.reader = reader
        self.max_bytes = max_bytes

    async def __aiter__(self) -> AsyncIterator[str | TooLarge]:
        pending = bytearray()
        dropping = False  # the rest of a line found too large
        while chunk := await self.reader.read(READ_CHUNK):
            start = 0
            while start < len(chunk):
                end = chunk.find(b"\n", start)
                piece = chunk[start:] if end == -1 else chunk[start:end]
                if not dropping:
                    pending += piece
                    if len(pending) > self.max_bytes:
                        yield TooLarge(bytes(pending[:HEAD_BYTES]))
                        pending.clear()
                        dropping = True
                if end == -1:
                    break
                if not dropping:
                    yield pending.decode("utf-8", errors="replace") + "\n"
                pending.clear()
                dropping = False
                start = end + 1
        if pending:
            yield pending.decode("utf-8", errors="replace")


class PipeWriter:
    """What the SDK's writer calls (``write``, ``flush``), on a pipe the event loop writes."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer

    async def write(self, text: str) -> None:
        self.writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self.writer.drain()


def _streamable(file: BinaryIO) -> bool:
    """A pipe, socket or terminal: what the event loop can wait on (a regular file it cannot)."""
    try:
        mode = os.fstat(file.fileno()).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


@asynccontextmanager
async def _loop_pipes(stdin: BinaryIO, stdout: BinaryIO | None) -> AsyncIterator[tuple[PipeLines, PipeWriter] | None]:
    """stdin and stdout served by the event loop, or None where either is not a pipe or socket. Both
    descriptors are left blocking again afterwards (they share their state with fd 0 and fd 1)."""
    if stdout is None or not (_streamable(stdin) and _streamable(stdout)):
        yield None
        return
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    read_transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
    write_transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, stdout)
    try:
        yield PipeLines(reader), PipeWriter(asyncio.StreamWriter(write_transport, protocol, None, loop))
    finally:
        read_transport.close()
        write_transport.close()
        for file in (stdin, stdout):
            with contextlib.suppress(OSError, ValueError):
                os.set_blocking(file.fileno(), True)


@contextlib.contextmanager
def _private_stdout() -> Iterator[BinaryIO | None]:
    """The protocol's stdout on a private descriptor, fd 1 on stderr while serving; None when fd 1
    cannot be moved (the SDK's writer takes it then)."""
    try:
        private = os.dup(1)
        diverted = os.dup(2)
    except OSError:
        yield None
        return
    os.set_inheritable(private, False)
    os.dup2(diverted, 1)
    os.close(diverted)
    try:
        yield os.fdopen(private, "wb", buffering=0, closefd=False)
    finally:
        with contextlib.suppress(OSError):
            os.dup2(private, 1)


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
    with _private_stdin() as stdin, _private_stdout() as stdout:
        async with _loop_pipes(stdin, stdout) as pipes:
            if pipes is None:
                text = io.TextIOWrapper(stdin, encoding="utf-8", errors="replace")  # what the SDK's reader does
                lines = CheckedLines(anyio.wrap_file(text))
                sdk_stdout = anyio.wrap_file(io.TextIOWrapper(stdout, encoding="utf-8")) if stdout is not None else None
            else:
                lines = CheckedLines(pipes[0])
                sdk_stdout = pipes[1]
            async with stdio_server(stdin=lines, stdout=sdk_stdout) as (read, write):  # type: ignore[arg-type]
                lines.reply_to(write)
                yield read, write
