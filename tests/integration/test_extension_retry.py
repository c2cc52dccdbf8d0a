"""The extension's slow retry after a refusal (extension/background.js, docs/extension.md): a browser
the bridge refuses (a wrong pairing token) tries again rarely, never in the fast backoff it uses for
a server that went away, and at once when its settings change.

The bridge is real and in-process; a counting TCP relay in front of it sees every attempt the real
extension in headless Chromium makes.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from tabmcp.drivers.extension.bridge import Bridge
from tests.integration.conftest import OwnBrowser
from tests.integration.test_pairing import service_worker, wait_status

TOKEN = "slow-retry-pairing-token-0123456789"
SLOW_RETRY_S = 30  # background.js SLOW_RETRY_MS


class CountingRelay:
    """Relays TCP connections to ``port``, noting when each one was opened."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.opened: list[float] = []  # time.monotonic() of each connection
        self._arrived = asyncio.Event()
        self.port = 0

    async def wait_for(self, count: int, timeout: float) -> None:
        async with asyncio.timeout(timeout):
            while len(self.opened) < count:
                self._arrived.clear()
                await self._arrived.wait()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.opened.append(time.monotonic())
        self._arrived.set()
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.close()
            return
        async with asyncio.TaskGroup() as tg:
            tg.create_task(_pipe(reader, up_writer))
            tg.create_task(_pipe(up_reader, writer))


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    writer.close()


@asynccontextmanager
async def counting_relay(port: int) -> AsyncIterator[CountingRelay]:
    relay = CountingRelay(port)
    server = await asyncio.start_server(relay._relay, "127.0.0.1", 0)
    relay.port = server.sockets[0].getsockname()[1]
    try:
        yield relay
    finally:
        server.close()


async def test_a_refused_browser_retries_slowly_and_at_once_on_new_settings() -> None:
    bridge = Bridge("127.0.0.1", 0, 10.0, token=TOKEN)
    await bridge.start()
    try:
        async with counting_relay(bridge.port) as relay, OwnBrowser(relay.port, "a-wrong-token-a-wrong-token") as own:
            worker = await service_worker(own.context)
            await wait_status(worker, "^not paired: wrong pairing token")
            await relay.wait_for(2, timeout=SLOW_RETRY_S * 3)  # the slow retry comes
            first, second = relay.opened[:2]
            # the fast backoff (250 ms, doubling) would have tried again within a few seconds, and
            # more than once: the second attempt is the slow one, with nothing in between
            assert second - first >= SLOW_RETRY_S * 0.8, relay.opened
            assert not bridge.linked

            # new settings (the right token, as the options page stores it): a retry at once
            await worker.evaluate(f"chrome.storage.local.set({{pairingToken: {TOKEN!r}}})")
            assert await bridge.wait_linked(15)
            assert len(relay.opened) == 3, relay.opened
            await wait_status(worker, "^connected$")
    finally:
        await bridge.stop()
