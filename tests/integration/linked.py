"""One level below MCP: a real Bridge and headless Chromium whose real extension is linked to it,
with an ``ExtensionDriver`` over them. What test_driver.py and test_plan_steps.py stand on."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import BrowserContext, async_playwright

from tabmcp.config import Settings
from tabmcp.drivers.base import DriverError
from tabmcp.drivers.cdp import CdpDriver
from tabmcp.drivers.extension import ExtensionDriver
from tabmcp.drivers.extension.bridge import Bridge
from tabmcp.drivers.launch import chromium_args, prepare_extension

LINK_TOKEN = "linked-browser-pairing-token"


@dataclass
class Linked:
    bridge: Bridge | None  # None on the CDP driver
    driver: ExtensionDriver | CdpDriver
    context: BrowserContext
    base: str  # http://127.0.0.1:PORT/ of the pages
    kind: str = "extension"

    def url(self, page: str) -> str:
        return self.base + page

    async def open(self, page: str) -> int:
        opened = await self.driver.open_tab(self.url(page), True)
        return opened.tab.id


@asynccontextmanager
async def linked_browser(
    scratch: Path, base_url: str, kind: str = "extension", max_frame_bytes: int = 16 * 2**20
) -> AsyncIterator[Linked]:
    """Chromium with the extension in ``scratch``, connected to a fresh bridge (with this frame limit),
    ``connect`` done; or, for ``kind="cdp"``, Chromium launched by the CDP driver (no extension)."""
    if kind == "cdp":
        cdp = CdpDriver(Settings(browser="chromium", headless=True))
        await cdp.link()
        try:
            await cdp.connect()
            browser = cdp._browser
            assert browser is not None
            yield Linked(None, cdp, browser.contexts[0], base_url, kind)
        finally:
            await cdp.close()
        return
    bridge = Bridge("127.0.0.1", 0, 30.0, token=LINK_TOKEN, max_frame_bytes=max_frame_bytes)
    await bridge.start()
    extension = prepare_extension(scratch / "extension", bridge.url, LINK_TOKEN)
    async with async_playwright() as pw:
        context = await pw.chromium.launch_persistent_context(
            str(scratch / "profile"),
            executable_path=Settings().resolved_browser_path(),
            headless=True,
            args=chromium_args(extension, as_root=os.geteuid() == 0),
            ignore_default_args=["--disable-extensions"],
            no_viewport=True,  # what the extension sees must be the window, not an emulated viewport
        )
        try:
            assert await bridge.wait_linked(20), "the extension did not connect"
            driver = ExtensionDriver(bridge)
            await driver.connect()
            yield Linked(bridge, driver, context, base_url)
        finally:
            await context.close()
            await bridge.stop()


async def fails(call: Awaitable[Any], code: str) -> str:
    """The call fails with this protocol code; its message, for further checks."""
    with pytest.raises(DriverError) as info:
        await call
    assert info.value.code == code, info.value.message
    return info.value.message
