"""A loopback HTTP server whose page is held: the test learns when the browser asked for it (so a call
that loads it is under way in the browser) and decides when it is answered.

A test that must act "mid-call" waits for ``requested`` instead of sleeping and hoping the call has
started.
"""

from __future__ import annotations

import asyncio
import contextlib

PAGE = b"<!doctype html><title>Held page</title><p>Released.</p>"


class HeldPage:
    def __init__(self) -> None:
        self.requested = asyncio.Event()  # the browser asked for the page
        self.release = asyncio.Event()  # set by the test: the page is answered
        self.requests = 0
        self.url = ""
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> HeldPage:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/held.html"
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release.set()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def wait_requested(self, timeout: float = 30.0) -> None:
        await asyncio.wait_for(self.requested.wait(), timeout)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            request = await reader.readuntil(b"\r\n\r\n")
            if not request.startswith(b"GET /held.html"):
                writer.write(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            else:
                self.requests += 1
                self.requested.set()
                await self.release.wait()
                head = f"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {len(PAGE)}\r\n"
                writer.write(head.encode() + b"connection: close\r\n\r\n" + PAGE)
            await writer.drain()
        writer.close()
