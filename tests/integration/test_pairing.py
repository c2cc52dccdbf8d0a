"""Pairing in a real browser: the extension's options page, its link status, a second browser, and
a launched browser that pairs by itself.

The bridge is real and in-process (as in linked.py); Chromium is headless with the real extension,
whose copy names the bridge's address but, like a user's own install, carries no token: the user
pastes `tabmcp token` into the options page.
"""

from __future__ import annotations

import re
import stat
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from playwright.async_api import BrowserContext, Page, Worker, expect

from tabmcp import pairing
from tabmcp import protocol as p
from tabmcp.drivers.extension.bridge import BUSY, Bridge, LinkLost, LinkUp
from tests.integration.conftest import OwnBrowser, serve

TOKEN = "options-page-pairing-token-0123456789"
OPTIONS_URL = f"chrome-extension://{pairing.EXTENSION_ID}/options.html"
WAIT_MS = 15_000


@asynccontextmanager
async def browser_with_extension(bridge: Bridge, token: str | None = None) -> AsyncIterator[BrowserContext]:
    """The user's own Chromium, its extension pointed at ``bridge`` (paired only if ``token``)."""
    async with OwnBrowser(bridge.port, token) as browser:
        yield browser.context


async def service_worker(context: BrowserContext) -> Worker:
    workers = context.service_workers or [await context.wait_for_event("serviceworker", timeout=WAIT_MS)]
    worker = workers[0]
    assert worker.url.startswith(f"chrome-extension://{pairing.EXTENSION_ID}/"), worker.url  # the manifest key's id
    return worker


async def link_status(worker: Worker) -> str:
    return await worker.evaluate("chrome.storage.session.get('linkStatus').then((s) => s.linkStatus || '')")


async def wait_status(worker: Worker, pattern: str) -> str:
    status = ""
    with anyio.move_on_after(WAIT_MS / 1000):
        while not re.search(pattern, status := await link_status(worker)):
            await anyio.sleep(0.1)
        return status
    raise AssertionError(f"linkStatus stayed {status!r}, expected /{pattern}/")


async def save(options: Page, token: str) -> None:
    await options.fill("#pairingToken", token)
    await options.click("#save")
    await expect(options.locator("#saved")).to_have_text(re.compile("Saved"))


async def next_link_event(bridge: Bridge) -> LinkUp | LinkLost:
    """The next LinkUp or LinkLost the bridge queued (tab events in between are skipped)."""
    with anyio.fail_after(WAIT_MS / 1000):
        while not isinstance(event := await bridge.events.get(), LinkUp | LinkLost):
            pass
    return event


async def answers(bridge: Bridge) -> p.Connected:
    reply = await bridge.request(p.Connect())
    assert isinstance(reply, p.Connected)
    return reply


async def test_pairing_through_the_options_page() -> None:
    bridge = Bridge("127.0.0.1", 0, 10.0, token=TOKEN)
    await bridge.start()
    try:
        async with browser_with_extension(bridge) as context:
            worker = await service_worker(context)
            # no token yet: the server refuses the browser and the extension says so
            assert (await wait_status(worker, "^not paired")).startswith("not paired: pairing token missing")
            assert not bridge.linked

            options = await context.new_page()
            await options.goto(OPTIONS_URL)
            await expect(options.locator("#serverUrl")).to_have_value(bridge.url)  # the launcher's address
            await expect(options.locator("#linkStatus")).to_have_text(re.compile("^not paired: pairing token missing"))

            await save(options, "a-wrong-token-a-wrong-token")
            await expect(options.locator("#linkStatus")).to_have_text(
                re.compile("^not paired: wrong pairing token: run `tabmcp token`"), timeout=WAIT_MS
            )
            assert not bridge.linked

            await save(options, TOKEN)
            await expect(options.locator("#linkStatus")).to_have_text("connected", timeout=WAIT_MS)
            assert bridge.linked
            assert bridge.hello is not None and bridge.hello.instance  # a per-session instance id
            connected = await answers(bridge)
            assert OPTIONS_URL in [t.url for t in connected.tabs]

            stored = await worker.evaluate("chrome.storage.local.get(null)")
            assert stored == {"pairingToken": TOKEN}  # the address equals the launcher's: not stored

            # saving again (nothing changed) reconnects at once: the old link goes, a new one comes
            while not bridge.events.empty():
                bridge.events.get_nowait()
            await options.click("#save")
            assert isinstance(await next_link_event(bridge), LinkLost)
            assert isinstance(await next_link_event(bridge), LinkUp)
            await expect(options.locator("#linkStatus")).to_have_text("connected", timeout=WAIT_MS)
            await answers(bridge)
    finally:
        await bridge.stop()


async def test_a_second_browser_is_refused_and_the_first_keeps_working() -> None:
    bridge = Bridge("127.0.0.1", 0, 10.0, token=TOKEN)
    await bridge.start()
    try:
        async with browser_with_extension(bridge, TOKEN) as first:
            assert await bridge.wait_linked(WAIT_MS / 1000)
            first_worker = await service_worker(first)
            await wait_status(first_worker, "^connected$")
            first_instance = bridge.hello.instance if bridge.hello else None
            async with browser_with_extension(bridge, TOKEN) as second:
                status = await wait_status(await service_worker(second), "^refused")
                assert status == f"refused: {BUSY}"
                assert "another browser is already linked" in status
                assert bridge.linked and bridge.hello is not None and bridge.hello.instance == first_instance
                page = await first.new_page()
                await page.goto("about:blank#first")
                connected = await answers(bridge)  # the link is still the first browser's
                assert "about:blank#first" in [t.url for t in connected.tabs]
            assert await link_status(first_worker) == "connected"
    finally:
        await bridge.stop()


async def test_a_launched_browser_pairs_with_the_stored_token(tmp_path: Path, server_log: object) -> None:
    """No TABMCP_PAIRING_TOKEN: the server makes the token file in its config dir and the browser
    it launches gets that token, so connect_browser(launch=true) just works."""
    config_dir = tmp_path / "config"
    async with serve(server_log, ws_port="0", config_dir=str(config_dir), pairing_token="") as client:
        connected = await client.call_ok("connect_browser", {"launch": True})
        assert connected["connected"] is True
        token_file = config_dir / pairing.TOKEN_FILE
        assert len(token_file.read_text().strip()) >= 43
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
