"""The runtime across a dropped link: held for the same browser's return (focus back, no notice),
disconnected with one notice when it does not come back, at once for another browser."""

from __future__ import annotations

import asyncio

import pytest
from tests.unit.test_runtime_refresh import SEARCH, PagesDriver, connected

from tabmcp import state as s
from tabmcp.config import Settings
from tabmcp.drivers.base import LinkChanged
from tabmcp.introspect.registry import Registry
from tabmcp.runtime import Runtime
from tabmcp.tools.catalog import CATALOG


class RelinkingDriver(PagesDriver):
    """Its browser answers ``connect`` with the tabs it has now."""

    def __init__(self) -> None:
        super().__init__()
        self.connects = 0

    async def connect(self) -> tuple[s.Browser, list[s.Tab]]:
        self.connects += 1
        return s.Browser(), [s.Tab(id=t, url=f"http://site.test/{t}", status="complete") for t in self.pages]


def make_runtime(grace: float) -> tuple[Runtime, RelinkingDriver, list[int]]:
    driver = RelinkingDriver()
    driver.pages = {1: ("d1:0", SEARCH), 2: ("d2:0", SEARCH)}
    notified: list[int] = []

    async def notify() -> None:
        notified.append(1)

    settings = Settings(relink_grace=grace)
    return Runtime(settings, driver, Registry.discover(), CATALOG, notify), driver, notified  # type: ignore[arg-type]


@pytest.mark.asyncio
async def test_the_same_browser_relinking_gets_its_focus_back_without_a_notice() -> None:
    runtime, driver, notified = make_runtime(grace=60)
    await runtime._on_event(LinkChanged(up=True, instance="browser-1"))
    await connected(runtime, 1, 2, focus=2)
    notified.clear()
    await runtime._on_event(LinkChanged(up=False, reason="cut off", relink=True))
    assert runtime.state.mode == s.Mode.FOCUSED  # held
    await runtime._on_event(LinkChanged(up=True, instance="browser-1"))
    assert driver.connects == 1
    assert runtime.state.focused_tab_id == 2 and runtime.state.page_tools
    assert notified == []  # the client's list never changed


@pytest.mark.asyncio
async def test_a_browser_that_does_not_come_back_is_disconnected_with_one_notice() -> None:
    runtime, driver, notified = make_runtime(grace=0.05)
    await runtime._on_event(LinkChanged(up=True, instance="browser-1"))
    await connected(runtime, 1, focus=1)
    notified.clear()
    await runtime._on_event(LinkChanged(up=False, reason="cut off", relink=True))
    grace = runtime._grace
    assert grace is not None
    await asyncio.wait_for(grace, 10)
    assert runtime.state.mode == s.Mode.DISCONNECTED and notified == [1]
    await runtime._on_event(LinkChanged(up=True, instance="browser-1"))  # too late: connect_browser's turn
    assert runtime.state.mode == s.Mode.DISCONNECTED and driver.connects == 0 and notified == [1]


@pytest.mark.asyncio
async def test_another_browser_or_the_user_s_disconnect_ends_the_connection_at_once() -> None:
    runtime, driver, _ = make_runtime(grace=60)
    await runtime._on_event(LinkChanged(up=True, instance="browser-1"))
    await connected(runtime, 1, focus=1)
    await runtime._on_event(LinkChanged(up=False, reason="cut off", relink=True))
    await runtime._on_event(LinkChanged(up=True, instance="browser-2"))
    assert runtime.state.mode == s.Mode.DISCONNECTED and driver.connects == 0

    await connected(runtime, 1, focus=1)
    await runtime._on_event(LinkChanged(up=False, reason="the user disconnected", relink=False))
    assert runtime.state.mode == s.Mode.DISCONNECTED and runtime._grace is None
