"""When the runtime re-introspects a page, and what it costs: coalesced requests, the capture
version that makes a second read of an unchanged page free, stale unfocused tabs counted on demand,
and list_changed only when the tools differ.

The driver here is a stand-in that serves captures from a dict: what is under test is the
runtime's scheduling, which the integration tests exercise with the real extension too."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from tabmcp import state as s
from tabmcp.config import Settings
from tabmcp.drivers.base import DriverError, LinkChanged, PageChanged, UserFocusedTab, UserSettings
from tabmcp.introspect.registry import Registry
from tabmcp.page.capture import PageCapture
from tabmcp.progress import NO_PROGRESS
from tabmcp.runtime import Runtime
from tabmcp.tools.catalog import CATALOG
from tabmcp.tools.page_change import page_changing_call

SEARCH = """<html><body><form role="search" action="/s" data-tabmcp-ref="e1">
<input type="search" name="q" aria-label="Search mail" data-tabmcp-ref="e2"><button data-tabmcp-ref="e3">Go</button>
</form></body></html>"""
TWO_FORMS = SEARCH.replace("</body>", """<form action="/sub" method="post" data-tabmcp-ref="e4">
<input name="email" type="email" aria-label="Email" data-tabmcp-ref="e5"><button data-tabmcp-ref="e6">Subscribe</button>
</form></body>""")


class PagesDriver:
    """Serves each tab's current page; answers ``if_changed`` like the agent does."""

    def __init__(self) -> None:
        self.pages: dict[int, tuple[str, str]] = {}  # tab -> (version, html)
        self.captures: list[tuple[int, str | None]] = []
        self.gate: asyncio.Event | None = None
        self.failures: list[DriverError] = []  # raised by the next captures, in order

    async def capture(self, tab_id: int, max_chars: int, if_changed: str | None = None) -> PageCapture | None:
        self.captures.append((tab_id, if_changed))
        if self.gate is not None:
            await self.gate.wait()
        if self.failures:
            raise self.failures.pop(0)
        version, html = self.pages[tab_id]
        if if_changed == version:
            return None
        return PageCapture(url=f"http://site.test/{tab_id}", title="t", html=html, version=version)

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the runtime should not call driver.{name} here")


def make_runtime() -> tuple[Runtime, PagesDriver, list[int]]:
    driver = PagesDriver()
    notified: list[int] = []

    async def notify() -> None:
        notified.append(1)

    runtime = Runtime(Settings(), driver, Registry.discover(), CATALOG, notify)  # type: ignore[arg-type]
    return runtime, driver, notified


async def connected(runtime: Runtime, *tab_ids: int, focus: int | None = None) -> None:
    tabs = tuple(s.Tab(id=t, url=f"http://site.test/{t}", status="complete") for t in tab_ids)
    await runtime.dispatch(s.ExtensionConnected(s.Browser(), tabs))
    if focus is not None:
        await runtime.focus(focus)


async def settle(runtime: Runtime) -> None:
    for _ in range(20):
        await asyncio.sleep(0)
    await asyncio.gather(*runtime._background, return_exceptions=True)


@pytest.mark.asyncio
async def test_an_unchanged_page_is_not_read_twice_and_sends_nothing() -> None:
    runtime, driver, notified = make_runtime()
    driver.pages[1] = ("d1:0", SEARCH)
    await connected(runtime, 1, focus=1)
    assert [t.name for t in runtime.state.page_tools] == ["search_mail"]
    assert len(notified) == 2  # connected, then focused with tools

    await runtime.refresh_page_tools(1)
    assert driver.captures[-1] == (1, "d1:0")  # asked with the version the tools came from
    assert len(notified) == 2

    driver.pages[1] = ("d1:1", TWO_FORMS)
    await runtime.refresh_page_tools(1)
    assert [t.name for t in runtime.state.page_tools] == ["search_mail", "subscribe"]
    assert len(notified) == 3


@pytest.mark.asyncio
async def test_same_tools_from_a_new_version_send_no_list_changed() -> None:
    runtime, driver, notified = make_runtime()
    driver.pages[1] = ("d1:0", SEARCH)
    await connected(runtime, 1, focus=1)
    driver.pages[1] = ("d1:5", SEARCH.replace("<body>", "<body><p>news</p>"))
    await runtime.refresh_page_tools(1)
    assert driver.captures[-1] == (1, "d1:0")
    assert len(notified) == 2


@pytest.mark.asyncio
async def test_requests_during_a_capture_coalesce_into_one_more() -> None:
    runtime, driver, _ = make_runtime()
    driver.pages[1] = ("d1:0", SEARCH)
    await connected(runtime, 1, focus=1)
    before = len(driver.captures)
    driver.gate = asyncio.Event()
    driver.pages[1] = ("d1:1", TWO_FORMS)
    first = asyncio.create_task(runtime.refresh_page_tools(1))
    while len(driver.captures) == before:  # the capture is under way...
        await asyncio.sleep(0)
    later = [asyncio.create_task(runtime.refresh_page_tools(1)) for _ in range(4)]  # ...when 4 more come
    await asyncio.sleep(0.01)
    driver.gate.set()
    await asyncio.gather(first, *later)
    assert len(driver.captures) - before == 2  # the running one, and one more for the requests it missed
    assert [t.name for t in runtime.state.page_tools] == ["search_mail", "subscribe"]


@pytest.mark.asyncio
async def test_a_change_in_the_focused_tab_is_introspected_in_the_background() -> None:
    runtime, driver, notified = make_runtime()
    driver.pages[1] = ("d1:0", SEARCH)
    await connected(runtime, 1, focus=1)
    driver.pages[1] = ("d1:1", TWO_FORMS)
    await runtime._on_event(PageChanged(1, "mutation", "d1:1"))
    await settle(runtime)
    assert [t.name for t in runtime.state.page_tools] == ["search_mail", "subscribe"]
    assert len(notified) == 3


@pytest.mark.asyncio
async def test_unfocused_tabs_are_counted_when_asked_and_recounted_when_stale() -> None:
    runtime, driver, notified = make_runtime()
    driver.pages[1] = ("d1:0", SEARCH)
    driver.pages[2] = ("d2:0", SEARCH)
    await connected(runtime, 1, 2, focus=1)
    assert runtime.state.tabs[2].tools is None
    await runtime.settle_tool_counts()
    assert len(runtime.state.tabs[2].tools or ()) == 1

    driver.pages[2] = ("d2:1", TWO_FORMS)
    calls = len(driver.captures)
    await runtime._on_event(PageChanged(2, "mutation", "d2:1"))
    await settle(runtime)
    assert len(driver.captures) == calls  # an unfocused tab is only marked stale
    await runtime.settle_tool_counts()
    assert len(runtime.state.tabs[2].tools or ()) == 2
    await runtime.settle_tool_counts()
    assert len(driver.captures) == calls + 1  # counted once; nothing stale is left
    assert len(notified) == 2  # another tab's tools never change the visible list


@pytest.mark.asyncio
async def test_a_stale_tab_whose_capture_failed_is_tried_again_on_the_next_count() -> None:
    runtime, driver, _ = make_runtime()
    driver.pages[1] = ("d1:0", SEARCH)
    driver.pages[2] = ("d2:0", SEARCH)
    await connected(runtime, 1, 2, focus=1)
    await runtime.settle_tool_counts()
    driver.pages[2] = ("d2:1", TWO_FORMS)
    await runtime._on_event(PageChanged(2, "mutation", "d2:1"))

    driver.failures.append(DriverError("INTERNAL", "the worker restarted"))
    await runtime.settle_tool_counts()
    assert len(runtime.state.tabs[2].tools or ()) == 1  # not read: the old count stays...
    await runtime.settle_tool_counts()
    assert len(runtime.state.tabs[2].tools or ()) == 2  # ...and the next list_tabs reads it


async def test_focus_follows_the_user_when_the_extension_option_says_so() -> None:
    """The extension's "Follow my tab switches" (its settings frame) works like the server's own setting,
    and goes with the link: the next browser says again what its user chose."""
    runtime, driver, notified = make_runtime()
    driver.pages = {1: ("d1:1", SEARCH), 2: ("d2:1", TWO_FORMS)}
    focused: list[int | None] = []

    async def on_focus(tab_id: int | None) -> None:
        focused.append(tab_id)

    runtime.on_focus = on_focus
    await connected(runtime, 1, 2, focus=1)
    await runtime._on_event(UserFocusedTab(2))
    assert runtime.state.focused_tab_id == 1  # neither the server's setting nor the user's option
    await runtime._on_event(UserSettings(follow_tab_switches=True))
    before = len(notified)
    await runtime._on_event(UserFocusedTab(2))
    assert runtime.state.focused_tab_id == 2
    assert len(notified) == before + 1  # another page, other tools: list_changed
    assert focused == [1, 2]  # the browser is told each move
    await runtime._on_event(LinkChanged(up=False))
    assert focused == [1, 2, None] and not runtime.user_follows_tab_switches


@pytest.mark.asyncio
async def test_an_answer_that_carries_the_tools_version_spares_the_capture() -> None:
    runtime, driver, _ = make_runtime()
    driver.pages[1] = ("d1:0", SEARCH)
    driver.pages[2] = ("d2:0", SEARCH)
    await connected(runtime, 1, 2, focus=1)
    assert runtime.tools_current(1, "d1:0")
    assert not runtime.tools_current(1, "d1:1")  # the page moved on since its tools were made
    assert not runtime.tools_current(1, None) and not runtime.tools_current(1, "")
    assert not runtime.tools_current(2, "d2:0")  # never introspected: no tools to keep

    ctx = SimpleNamespace(runtime=runtime, progress=NO_PROGRESS)
    before = len(driver.captures)
    await page_changing_call(ctx, 1, done({"version": "d1:0"}), lambda _: None, version_of=lambda a: a["version"])
    assert len(driver.captures) == before  # the answer said the page is still that version

    driver.pages[1] = ("d1:1", TWO_FORMS)
    await page_changing_call(ctx, 1, done({"version": "d1:1"}), lambda _: None, version_of=lambda a: a["version"])
    assert driver.captures[before:] == [(1, "d1:0")]  # another version: read, and its tools listed
    assert [t.name for t in runtime.state.page_tools] == ["search_mail", "subscribe"]
    assert runtime.tools_current(1, "d1:1")
    await page_changing_call(ctx, 1, done({}), lambda _: None)  # no version said: read as always
    assert driver.captures[before:] == [(1, "d1:0"), (1, "d1:1")]


async def done(answer: dict[str, Any]) -> dict[str, Any]:
    return answer
