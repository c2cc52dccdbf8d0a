"""`tabmcp serve --http` as a client reaches it: a real subprocess, real MCP clients over HTTP, and
(optionally) a Chromium the test starts as the user's own browser, paired with the server."""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import IO, Any

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from playwright.async_api import BrowserContext

from tests.integration.conftest import OwnBrowser, free_port

TOKEN = "integration-pairing-token-0123456789abcdef"
SERVER_START_S = 20.0


class HttpServer:
    """A `tabmcp serve --http 127.0.0.1:PORT` process with its own config dir and bridge port."""

    def __init__(self, errlog: IO[str], *args: str, **settings: str) -> None:
        self.port = free_port()
        self.ws_port = free_port()
        self.args = args
        self.errlog = errlog
        self.scratch = tempfile.TemporaryDirectory(prefix="tabmcp-http-")
        self.env = {
            **os.environ,
            "TABMCP_CONFIG_DIR": self.scratch.name,
            "TABMCP_PAIRING_TOKEN": TOKEN,
            "TABMCP_WS_PORT": str(self.ws_port),
            "TABMCP_LOG_LEVEL": "DEBUG",
            **{f"TABMCP_{k.upper()}": v for k, v in settings.items()},
        }
        self.proc: asyncio.subprocess.Process | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    async def __aenter__(self) -> HttpServer:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tabmcp.cli",
            "serve",
            "--http",
            f"127.0.0.1:{self.port}",
            *self.args,
            env=self.env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=self.errlog,
        )
        try:
            await self._listening()
        except BaseException:
            await self.__aexit__()  # `async with` calls __aexit__ only after __aenter__ returned
            raise
        return self

    async def _listening(self) -> None:
        assert self.proc is not None
        loop = asyncio.get_running_loop()
        until = loop.time() + SERVER_START_S
        while loop.time() < until:
            if self.proc.returncode is not None:
                raise RuntimeError(f"tabmcp serve --http exited with {self.proc.returncode}")
            try:
                _reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
                writer.close()
                return
            except OSError:
                await asyncio.sleep(0.1)
        raise RuntimeError("tabmcp serve --http did not listen in time")

    async def __aexit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.terminate()
            try:
                await asyncio.wait_for(self.proc.wait(), 15)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        self.scratch.cleanup()

    def client(self, *, workspace: str | None = None, headers: dict[str, str] | None = None, **kwargs: Any) -> Client:
        url = self.url + (f"?workspace={workspace}" if workspace else "")
        if headers:
            transport = streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers, timeout=60))
            return Client(transport, **kwargs)  # type: ignore[arg-type]
        return Client(url, **kwargs)


class Notices:
    """``tools/list_changed`` notifications one client received."""

    def __init__(self) -> None:
        self.count = 0
        self._changed = asyncio.Event()

    def handler(self) -> Callable[[Any], Any]:
        async def handle(message: Any) -> None:
            if isinstance(message, Exception):
                raise message
            if isinstance(message, types.ToolListChangedNotification):
                self.count += 1
                self._changed.set()

        return handle

    async def wait_beyond(self, count: int, timeout: float = 10.0) -> None:
        """Until more than ``count`` notices have arrived."""
        async with asyncio.timeout(timeout):
            while self.count <= count:
                self._changed.clear()
                await self._changed.wait()


@asynccontextmanager
async def own_browser(ws_port: int, token: str = TOKEN) -> AsyncIterator[BrowserContext]:
    """Chromium with the extension, paired with the server, as the user's own browser: yields the
    Playwright context (its service worker shows what the extension did, e.g. tab groups)."""
    async with OwnBrowser(ws_port, token) as browser:
        yield browser.context


async def extension_worker(context: Any) -> Any:
    """The extension's service worker, to read browser state the server does not report."""
    for _ in range(100):
        if context.service_workers:
            return context.service_workers[0]
        await asyncio.sleep(0.1)
    raise AssertionError("the extension's service worker did not start")


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
