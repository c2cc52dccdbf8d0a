"""Memory under navigation: what a driver keeps per navigation stays bounded, however long the tab lives.

Counted, not timed: the Playwright ``Request``/``Response`` objects alive in this process (each
driver's Python side) after 100 and after 200 navigations of one tab must be the same small number.
The node process behind Playwright holds one object for each of these, so it is bounded with them.
"""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from playwright._impl.network import Request, Response

from tabmcp.bridge import Bridge
from tabmcp.config import Settings
from tabmcp.demo.sites import SiteServer
from tabmcp.drivers.base import Driver
from tabmcp.drivers.cdp import CdpDriver
from tabmcp.drivers.extension import ExtensionDriver
from tabmcp.drivers.launch import ChromiumLauncher

TOKEN = "navigation-memory-token"
CHECKPOINTS = (100, 200)
OBJECT_CAP = 50  # the CDP driver's cap on Playwright objects of one kind, its smallest setting
LIVE_LIMIT = 2 * OBJECT_CAP  # requests and responses: far below the navigations done, not per navigation


def live_network_objects() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, Request | Response))


@asynccontextmanager
async def launched(kind: str, scratch: Path) -> AsyncIterator[Driver]:
    """The browser as ``connect_browser(launch=true)`` starts it, linked to the driver of ``kind``."""
    if kind == "cdp":
        # the Playwright objects' cap is the driver's own setting: small here, so 200 navigations pass it
        cdp = CdpDriver(Settings(browser="chromium", headless=True, playwright_object_cap=OBJECT_CAP))
        await cdp.link()
        try:
            yield cdp
        finally:
            await cdp.close()
        return
    bridge = Bridge("127.0.0.1", 0, 30.0, token=TOKEN)
    await bridge.start()
    launcher = ChromiumLauncher(Settings(headless=True, user_data_dir=scratch / "profile"), pairing_token=TOKEN)
    try:
        await launcher.launch(bridge.url)
        assert await bridge.wait_linked(30), "the launched browser's extension did not connect"
        yield ExtensionDriver(bridge)
    finally:
        await launcher.close()
        await bridge.stop()


@pytest.mark.parametrize("kind", ["extension", "cdp"])
async def test_navigations_leave_nothing_behind(kind: str, tmp_path: Path) -> None:
    with SiteServer() as sites:
        async with launched(kind, tmp_path) as driver:
            await driver.connect()
            tab = await driver.open_tab(sites.url("index.html"), True)
            live: list[int] = []
            for n in range(1, CHECKPOINTS[-1] + 1):
                page = "about.html" if n % 2 else "index.html"
                await driver.navigate(tab.id, f"{sites.url(page)}?n={n}")
                if n in CHECKPOINTS:
                    live.append(live_network_objects())
    assert max(live) <= LIVE_LIMIT, f"{kind}: live Request/Response objects at {CHECKPOINTS}: {live}"
