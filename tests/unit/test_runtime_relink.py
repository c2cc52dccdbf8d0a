"""The runtime across a dropped link: held for the same browser's return (focus back, no notice),
disconnected with one notice when it does not come back, at once for another browser."""

from __future__ import annotations

import asyncio

import pytest
from tests.unit.test_runtime_refresh import SEARCH, PagesDriver, connected, settle

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


class RefusedOnReturnDriver(RelinkingDriver):
    """Its browser comes back with tab 1 at a page the policy refuses (the browser's block report went
    while the link was down); ``now_at`` is where the tab is by the time the server acts on it."""

    def __init__(self, now_at: str) -> None:
        super().__init__()
        self.now_at = now_at
        self.navigations: list[tuple[int, str | None]] = []

    async def connect(self) -> tuple[s.Browser, list[s.Tab]]:
        self.connects += 1
        return s.Browser(), [s.Tab(id=1, url=REFUSED, status="complete")]

    async def tab_info(self, tab_id: int) -> s.Tab:
        return s.Tab(id=tab_id, url=self.now_at, status="complete")

    async def navigate(self, tab_id: int, url: str | None = None, **_: object) -> dict[str, str]:
        self.navigations.append((tab_id, url))
        return {"url": url or "", "title": ""}


REFUSED = "http://refused.test/page"


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("now_at", "sent_away"),
    [(REFUSED, True), ("about:blank", False), ("http://site.test/1", False)],
    ids=["still-there", "at-about-blank", "went-on-to-an-allowed-page"],
)
async def test_a_relinked_tab_at_a_refused_page_is_sent_away_unless_it_went_on_meanwhile(
    now_at: str, sent_away: bool
) -> None:
    driver = RefusedOnReturnDriver(now_at)
    driver.pages = {1: ("d1:0", SEARCH)}

    async def notify() -> None:
        pass

    settings = Settings(relink_grace=60, block_urls=["http://refused.test/*"])
    runtime = Runtime(settings, driver, Registry.discover(), CATALOG, notify)  # type: ignore[arg-type]
    await runtime._on_event(LinkChanged(up=True, instance="browser-1"))
    await connected(runtime, 1, focus=1)
    await runtime._on_event(LinkChanged(up=False, reason="cut off", relink=True))
    await runtime._on_event(LinkChanged(up=True, instance="browser-1"))
    await settle(runtime)
    assert runtime.state.focused_tab_id == 1
    assert driver.navigations == ([(1, "about:blank")] if sent_away else [])
    notes = runtime.take_policy_notes()
    assert bool(notes) == sent_away, notes
