"""Read once per document version: the answer of a navigating call and the refresh its load triggers
share one capture, in whichever order the load's events and the call's own read come; a version
already read costs nothing (not even a version check); a load or a change after the read is read.

The driver is the stand-in of test_runtime_refresh.py (captures served from a dict, each one
counted): what is under test is the runtime's scheduling."""

from __future__ import annotations

import asyncio

import pytest
from tests.unit.test_runtime_refresh import SEARCH, TWO_FORMS, connected, make_runtime, settle

from tabmcp import state as s
from tabmcp.drivers.base import PageChanged

URL = "http://site.test/1"


def tab(status: str, url: str = URL) -> s.Tab:
    return s.Tab(id=1, url=url, status=status)


async def load_events(runtime: object, url: str = URL) -> None:
    await runtime._on_event(s.TabUpdated(tab("loading", url)))  # type: ignore[attr-defined]
    await runtime._on_event(s.TabUpdated(tab("complete", url)))  # type: ignore[attr-defined]


@pytest.mark.asyncio
async def test_a_navigation_whose_load_event_comes_during_the_call_is_read_once() -> None:
    runtime, driver, _ = make_runtime()
    driver.pages[1] = ("d1:0", SEARCH)
    await connected(runtime, 1, focus=1)
    before = len(driver.captures)
    async with runtime.batch():  # the navigate call: the load's events arrive, then its own read
        await load_events(runtime)
        driver.pages[1] = ("d2:0", TWO_FORMS)
        await runtime.refresh_page_tools(1)
    await settle(runtime)
    assert driver.captures[before:] == [(1, "d1:0")]  # the call's read of the new document, and no other
    assert [t.name for t in runtime.state.page_tools] == ["search_mail", "subscribe"]


@pytest.mark.asyncio
async def test_a_load_event_that_comes_after_the_call_read_the_page_costs_nothing() -> None:
    runtime, driver, _ = make_runtime()
    driver.pages[1] = ("d1:0", SEARCH)
    await connected(runtime, 1, focus=1)
    before = len(driver.captures)
    async with runtime.batch():
        await runtime._on_event(s.TabUpdated(tab("loading")))
        driver.pages[1] = ("d2:0", TWO_FORMS)
        await runtime.refresh_page_tools(1)
    await runtime._on_event(s.TabUpdated(tab("complete")))  # the browser's word on that load, late
    await settle(runtime)
    assert driver.captures[before:] == [(1, "d1:0")]


@pytest.mark.asyncio
async def test_an_open_tab_is_read_once_whenever_its_load_is_heard() -> None:
    for complete_first in (True, False):
        runtime, driver, _ = make_runtime()
        await connected(runtime)
        driver.pages[1] = ("d1:0", SEARCH)
        await runtime._on_event(s.TabCreated(tab("loading")))
        async with runtime.batch():  # open_tab: the driver answered once the page loaded
            if complete_first:
                await runtime._on_event(s.TabUpdated(tab("complete")))
            await runtime.dispatch(s.TabCreated(tab("complete")))
            await runtime.focus(1)
        if not complete_first:
            await runtime._on_event(s.TabUpdated(tab("complete")))
        await settle(runtime)
        assert driver.captures == [(1, None)], complete_first
        assert [t.name for t in runtime.state.page_tools] == ["search_mail"]


@pytest.mark.asyncio
async def test_a_load_that_starts_after_the_read_is_read_again() -> None:
    runtime, driver, _ = make_runtime()
    driver.pages[1] = ("d1:0", SEARCH)
    await connected(runtime, 1, focus=1)
    before = len(driver.captures)
    driver.pages[1] = ("d2:0", TWO_FORMS)  # the page reloaded itself: same URL, a new document
    await load_events(runtime)
    await settle(runtime)
    assert driver.captures[before:] == [(1, "d1:0")]
    assert [t.name for t in runtime.state.page_tools] == ["search_mail", "subscribe"]


@pytest.mark.asyncio
async def test_a_read_begun_before_a_load_started_does_not_stand_for_that_load() -> None:
    runtime, driver, _ = make_runtime()
    driver.pages[1] = ("d1:0", SEARCH)
    await connected(runtime, 1, focus=1)
    before = len(driver.captures)
    driver.gate = asyncio.Event()
    driver.pages[1] = ("d1:1", SEARCH.replace("<body>", "<body><p>more</p>"))
    reading = asyncio.create_task(runtime.refresh_page_tools(1))  # reads the page that is about to leave
    while len(driver.captures) == before:
        await asyncio.sleep(0)
    await runtime._on_event(s.TabUpdated(tab("loading")))
    driver.gate.set()
    await reading
    driver.pages[1] = ("d2:0", TWO_FORMS)
    await runtime._on_event(s.TabUpdated(tab("complete")))
    await settle(runtime)
    assert driver.captures[before:] == [(1, "d1:0"), (1, "d1:1")]  # the load's own read came after
    assert [t.name for t in runtime.state.page_tools] == ["search_mail", "subscribe"]


@pytest.mark.asyncio
async def test_a_change_already_read_is_free_and_a_new_version_is_read() -> None:
    runtime, driver, _ = make_runtime()
    driver.pages[1] = ("d1:0", SEARCH)
    await connected(runtime, 1, focus=1)
    before = len(driver.captures)
    await runtime._on_event(PageChanged(1, "mutation", "d1:0"))  # the version the tools came from
    await settle(runtime)
    assert driver.captures[before:] == []
    driver.pages[1] = ("d1:1", TWO_FORMS)
    await runtime._on_event(PageChanged(1, "mutation", "d1:1"))
    await settle(runtime)
    assert driver.captures[before:] == [(1, "d1:0")]
    await runtime._on_event(PageChanged(1, "mutation", "d1:1"))  # told again: read already
    await settle(runtime)
    assert len(driver.captures) == before + 1


@pytest.mark.asyncio
async def test_a_deferred_refresh_the_call_did_not_answer_still_runs() -> None:
    """A change heard during a call that did not read the page (its read began before) is read after."""
    runtime, driver, _ = make_runtime()
    driver.pages[1] = ("d1:0", SEARCH)
    await connected(runtime, 1, focus=1)
    before = len(driver.captures)
    async with runtime.batch():
        driver.pages[1] = ("d1:1", TWO_FORMS)
        await runtime._on_event(PageChanged(1, "mutation", "d1:1"))
    await settle(runtime)
    assert driver.captures[before:] == [(1, "d1:0")]
    assert [t.name for t in runtime.state.page_tools] == ["search_mail", "subscribe"]
