"""Memory under navigation: what a driver keeps per navigation stays bounded, however long the tab lives.

Counted, not timed, after 100 and after 300 navigations of one tab: the Playwright ``Request`` and
``Response`` objects alive in this process (each driver's Python side) stay under a bound that does
not depend on the navigations done (the node process behind Playwright holds one object for each of
them, so it is bounded with them); and the objects of tabmcp's and Playwright's own classes (events,
records, watchers, channel objects) do not grow with the navigations between the two counts.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from playwright._impl.network import Request, Response

from tabmcp.config import Settings
from tabmcp.demo.sites import SiteServer
from tabmcp.drivers.base import Driver
from tabmcp.drivers.cdp import CdpDriver
from tabmcp.drivers.extension import ExtensionDriver
from tabmcp.drivers.extension.bridge import Bridge
from tabmcp.drivers.launch import ChromiumLauncher

TOKEN = "navigation-memory-token"
CHECKPOINTS = (100, 300)
OBJECT_CAP = 50  # the CDP driver's cap on Playwright objects of one kind, its smallest setting
LIVE_LIMIT = 2 * OBJECT_CAP  # requests and responses: far below the navigations done, not per navigation
# objects of tabmcp's and Playwright's classes between the counts: a record kept per navigation makes it
# at least 1; calls still in flight at a count (Playwright's zones, a title read) are a few dozen
GROWTH_PER_NAVIGATION = 1.0


def live_objects() -> tuple[int, int]:
    """Playwright requests and responses alive, and the objects of tabmcp's and Playwright's classes."""
    gc.collect()
    tracked = gc.get_objects()
    network = sum(1 for o in tracked if isinstance(o, Request | Response))
    own = sum(1 for o in tracked if _package(type(o)) in ("tabmcp", "playwright"))
    return network, own


async def drain(driver: Driver) -> None:
    while True:
        await driver.next_event()


def _package(kind: type) -> str:
    module = vars(kind).get("__module__")  # a class's own, not a metaclass's descriptor
    return module.partition(".")[0] if isinstance(module, str) else ""


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
            # the server's runtime reads every event the driver reports (tab updates, loads): so does this
            draining = asyncio.create_task(drain(driver))
            tab = (await driver.open_tab(sites.url("index.html"), True)).tab
            counts: list[tuple[int, int]] = []
            for n in range(1, CHECKPOINTS[-1] + 1):
                page = "about.html" if n % 2 else "index.html"
                await driver.navigate(tab.id, f"{sites.url(page)}?n={n}")
                if n in CHECKPOINTS:
                    counts.append(live_objects())
            draining.cancel()
    network = [n for n, _ in counts]
    assert max(network) <= LIVE_LIMIT, f"{kind}: live Request/Response objects at {CHECKPOINTS}: {network}"
    (_, before), (_, after) = counts
    per_navigation = (after - before) / (CHECKPOINTS[1] - CHECKPOINTS[0])
    print(f"{kind}: tabmcp and Playwright objects {before} -> {after}, Request/Response {network}")
    assert per_navigation < GROWTH_PER_NAVIGATION, (
        f"{kind}: {after - before} more objects after {CHECKPOINTS[1] - CHECKPOINTS[0]} navigations"
    )
