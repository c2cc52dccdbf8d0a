"""``tabmcp native-host``: the program Chrome starts for ``chrome.runtime.connectNative``.

It relays between Chrome (length-prefixed JSON on stdin/stdout, ``framing.py``) and the running
server's local socket (the bridge's WebSocket protocol, ``listener.py``). It understands nothing of
the bridge protocol, so the server stays the one judge of every frame; it adds only what Chrome's
channel needs: the caller origin as ``Origin`` (Chrome passes it as argv[1]), ``nativeStatus``
messages telling the extension whether the server is there, and chunking of server frames over
Chrome's 1 MiB host-to-extension limit.

While no server listens it stays up and tries again, so the extension can say "server not found"
once and link as soon as a server starts, without Chrome spawning a Python process every few seconds.
It exits when Chrome closes stdin, or after the server closed the link (the extension reconnects,
which starts a fresh host).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
from collections.abc import Callable
from pathlib import Path

from websockets.asyncio.client import ClientConnection, unix_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.typing import Origin

from tabmcp.native import framing

log = logging.getLogger(__name__)

ORIGIN = re.compile(r"^chrome-extension://([a-p]{32})/?$")
READ_BYTES = 1 << 16
RETRY_START = 0.25
RETRY_MAX = 2.0
CONNECT_TIMEOUT = 10.0
MAX_SERVER_FRAME = 64 * 2**20  # what the host accepts from the server (it is chunked to Chrome anyway)

Write = Callable[[bytes], None]


class BadCaller(ValueError):
    """Started by something other than Chrome for an extension (no or a malformed origin)."""


def caller_origin(argv1: str | None) -> str:
    """The ``Origin`` to present: Chrome's ``chrome-extension://ID/`` without the slash."""
    match = ORIGIN.match(argv1 or "")
    if match is None:
        raise BadCaller(
            f"expected Chrome's caller origin chrome-extension://<id>/ as the first argument, got {argv1!r}: "
            "this program is started by the browser for the tabmcp extension (docs/native-messaging.md)"
        )
    return f"chrome-extension://{match.group(1)}"


def not_found_message(path: Path, why: str) -> str:
    return (
        f"no tabmcp server is listening on {path} ({why}); start one (your MCP client runs `tabmcp serve`). "
        "The link is made as soon as it is up."
    )


async def relay(origin: str, path: Path, stdin: asyncio.StreamReader, write: Write) -> int:
    """Relay until Chrome closes stdin or the server ends the link; the exit status."""
    incoming: asyncio.Queue[bytes | None] = asyncio.Queue()
    reader = asyncio.create_task(_read_chrome(stdin, incoming))
    try:
        ws = await _connect(origin, path, incoming, write)
        if ws is None:
            return 0  # Chrome went away while we waited
        write(framing.status("open"))
        log.info("relaying for %s through %s", origin, path)
        return await _pump(ws, incoming, write)
    finally:
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader


async def _read_chrome(stdin: asyncio.StreamReader, incoming: asyncio.Queue[bytes | None]) -> None:
    frames = framing.FrameReader()
    try:
        while data := await stdin.read(READ_BYTES):
            for message in frames.feed(data):
                incoming.put_nowait(message)
        if frames.pending:
            log.warning("Chrome's stream ended inside a message (%d bytes dropped)", frames.pending)
    except framing.FrameTooLarge as exc:
        log.error("stopping: %s", exc)
    finally:
        incoming.put_nowait(None)


async def _connect(
    origin: str, path: Path, incoming: asyncio.Queue[bytes | None], write: Write
) -> ClientConnection | None:
    """A link to the server, waiting (and saying so, once) while there is none; None if Chrome left."""
    delay = RETRY_START
    told = False
    while True:
        try:
            return await unix_connect(
                str(path), origin=Origin(origin), max_size=MAX_SERVER_FRAME, open_timeout=CONNECT_TIMEOUT
            )
        except (OSError, InvalidHandshake, TimeoutError) as exc:
            why = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
            if not told:
                log.info("waiting for a server on %s: %s", path, why)
                write(framing.status("serverNotFound", message=not_found_message(path, why)))
                told = True
        with contextlib.suppress(TimeoutError):
            if await asyncio.wait_for(_drain_until_eof(incoming), delay):
                return None
        delay = min(delay * 2, RETRY_MAX)


async def _drain_until_eof(incoming: asyncio.Queue[bytes | None]) -> bool:
    """Drop what the extension sends before the link is open (it waits for ``open``); True at EOF."""
    while True:
        message = await incoming.get()
        if message is None:
            return True
        log.warning("dropped a message sent before the server link was open")


async def _pump(ws: ClientConnection, incoming: asyncio.Queue[bytes | None], write: Write) -> int:
    async def upstream() -> None:
        while (message := await incoming.get()) is not None:
            await ws.send(message.decode("utf-8", "replace"))

    async def downstream() -> None:
        async for text in ws:
            for framed in framing.to_extension(text if isinstance(text, str) else text.decode("utf-8", "replace")):
                write(framed)

    up = asyncio.create_task(upstream())
    down = asyncio.create_task(downstream())
    done, pending = await asyncio.wait({up, down}, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, ConnectionClosed):
            await task
    for task in done:
        with contextlib.suppress(ConnectionClosed):
            task.result()
    if up in done:  # Chrome closed stdin: the extension is gone
        await ws.close()
        return 0
    close = ws.protocol.close_rcvd
    code, reason = (close.code, close.reason) if close is not None else (1006, "the server went away")
    log.info("the server closed the link: %s %s", code, reason)
    write(framing.status("closed", code=code, reason=reason))
    return 0


# ----------------------------------------------------------------- process edges


def claim_stdout() -> Write:
    """A writer on the real stdout, with fd 1 pointed at stderr: a stray print cannot corrupt Chrome's channel."""
    channel = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)

    def write(data: bytes) -> None:
        view = memoryview(data)
        while view:  # a raw write may take part of it; each message must reach Chrome whole
            view = view[channel.write(view) or 0 :]

    return write


async def run(argv1: str | None, path: Path) -> int:
    write = claim_stdout()
    try:
        origin = caller_origin(argv1)
    except BadCaller as exc:
        log.error("%s", exc)
        write(framing.status("closed", code=4003, reason=str(exc)[:200]))
        return 2
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader(limit=2**16)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), os.fdopen(0, "rb", buffering=0))
    try:
        return await relay(origin, path, stdin, write)
    except BrokenPipeError:
        return 0  # Chrome closed our stdout: it is gone
