"""The CDP driver's pure parts: tab news after a tab closed, and the host's requests in flight (fed
here by hand with stand-ins for Playwright's objects)."""

from __future__ import annotations

import asyncio
import gc
from types import SimpleNamespace
from typing import Any

from tabmcp import state as s
from tabmcp.config import Settings
from tabmcp.drivers.cdp.driver import CdpDriver, TabRecord
from tabmcp.drivers.cdp.host import HostTab
from tabmcp.drivers.host import FrameNavigation, PageEvent, RequestEnded, RequestStarted


async def test_no_tab_news_after_the_tab_closed() -> None:
    """A title read under way when a failed open_tab closed its tab must not bring the tab back."""
    driver = CdpDriver(Settings())
    driver._linked.set()
    page = SimpleNamespace(url="http://127.0.0.1:1/")
    record = TabRecord(3, page, 1, announced=True)  # type: ignore[arg-type]
    driver._tabs[3] = record
    driver._emit(record, s.TabUpdated(record.tab()))
    driver._tabs.pop(3)
    driver._emit(record, s.TabClosed(3))
    driver._emit(record, s.TabUpdated(record.tab()))  # late: dropped
    seen = [driver._events.get_nowait() for _ in range(driver._events.qsize())]
    assert [type(e).__name__ for e in seen] == ["TabUpdated", "TabClosed"]


class FakeFrame:
    """Hashable by identity, as Playwright's frames are."""

    def __init__(self, url: str) -> None:
        self.url = url


class FakeRequest:
    """What the host reads of a Playwright Request (weakly referenced, as Playwright's are)."""

    def __init__(self, url: str, kind: str, frame: Any = None, redirected_from: Any = None) -> None:
        self.url, self.resource_type, self.frame, self.redirected_from = url, kind, frame, redirected_from
        self.failure: str | None = None

    def is_navigation_request(self) -> bool:
        return self.resource_type == "document"


async def test_a_request_playwright_let_go_of_is_no_longer_in_flight() -> None:
    """Past Playwright's object cap the oldest requests are disposed, and their end never reaches the
    tab: the tab must not wait for them for the rest of its life."""
    driver = CdpDriver(Settings())
    seen: list[PageEvent] = []
    driver.host.subscribe(seen.append)
    main = FakeFrame("http://a.test/")
    tab = HostTab(1, SimpleNamespace(main_frame=main))  # type: ignore[arg-type]
    tab.frame_id(main)  # type: ignore[arg-type]
    request = FakeRequest("http://a.test/long-poll", "fetch")
    driver.host._on_request(tab, request)  # type: ignore[arg-type]
    assert [type(e) for e in seen] == [RequestStarted]
    del request  # Playwright's registry dropped its object: nothing else holds it
    gc.collect()
    await asyncio.sleep(0)
    assert seen[-1] == RequestEnded(1, seen[0].request_id)  # type: ignore[union-attr]

    ended = FakeRequest("http://a.test/api", "xhr")
    driver.host._on_request(tab, ended)  # type: ignore[arg-type]
    driver.host._on_request_end(tab, ended, None)  # type: ignore[arg-type]
    del ended
    gc.collect()
    await asyncio.sleep(0)
    assert [type(e) for e in seen].count(RequestEnded) == 2  # its end once, not again with its object


async def test_a_main_frame_failure_waits_for_its_error_page() -> None:
    driver = CdpDriver(Settings())
    seen: list[PageEvent] = []
    driver.host.subscribe(seen.append)
    main = FakeFrame("http://a.test/")
    tab = HostTab(1, SimpleNamespace(main_frame=main))  # type: ignore[arg-type]
    tab.frame_id(main)  # type: ignore[arg-type]
    request = FakeRequest("http://b.test/", "document", frame=main)
    driver.host._on_request(tab, request)  # type: ignore[arg-type]
    driver.host._on_request_end(tab, request, "net::ERR_NAME_NOT_RESOLVED")  # type: ignore[arg-type]
    kinds = [e.kind for e in seen if isinstance(e, FrameNavigation)]
    assert kinds == ["start"]  # not yet: Chrome commits its error page next
    main.url = "chrome-error://chromewebdata/"
    driver.host._on_navigated(tab, main)  # type: ignore[arg-type]
    navigations = [e for e in seen if isinstance(e, FrameNavigation)]
    assert [e.kind for e in navigations] == ["start", "error", "commit"]
    assert navigations[1].url == "http://b.test/" and navigations[1].error == "net::ERR_NAME_NOT_RESOLVED"
    for task in list(driver.host._tasks):
        task.cancel()


async def test_a_navigation_request_without_a_document_ends_as_no_document() -> None:
    """A 204 or a download: the request finishes and no commit follows; a history step needs no request."""
    driver = CdpDriver(Settings())
    seen: list[PageEvent] = []
    driver.host.subscribe(seen.append)
    main = FakeFrame("http://a.test/")
    tab = HostTab(1, SimpleNamespace(main_frame=main))  # type: ignore[arg-type]
    tab.frame_id(main)  # type: ignore[arg-type]
    tab.seen_start = True
    request = FakeRequest("http://a.test/204", "document", frame=main)
    driver.host._on_request(tab, request)  # type: ignore[arg-type]
    driver.host._on_request_end(tab, request, None)  # type: ignore[arg-type]
    await asyncio.sleep(0.3)
    driver.host._on_navigated(tab, main)  # type: ignore[arg-type]  # pushState, later
    kinds = [e.kind for e in seen if isinstance(e, FrameNavigation)]
    assert kinds == ["start", "no_document", "same_document"]


async def test_a_new_tabs_first_page_without_a_request_is_followed_to_its_load() -> None:
    driver = CdpDriver(Settings())
    seen: list[PageEvent] = []
    driver.host.subscribe(seen.append)
    main = FakeFrame("about:blank")
    tab = HostTab(1, SimpleNamespace(main_frame=main), fresh=True)  # type: ignore[arg-type]
    tab.frame_id(main)  # type: ignore[arg-type]
    driver.host._on_navigated(tab, main)  # type: ignore[arg-type]  # the blank page it opens with: no news
    main.url = "chrome://settings/"
    driver.host._on_navigated(tab, main)  # type: ignore[arg-type]
    assert [e.kind for e in seen if isinstance(e, FrameNavigation)] == ["start", "commit"]
    for task in list(driver.host._tasks):
        task.cancel()


async def test_the_page_made_ahead_waits_for_the_page_requests_to_be_quiet(monkeypatch: Any) -> None:
    """The next spare page is made only once no page request has run for REFILL_QUIET_S: making it
    stalls Playwright's connection, and an open's first calls come right after its load."""
    monkeypatch.setattr("tabmcp.drivers.cdp.driver.REFILL_QUIET_S", 0.05)
    driver = CdpDriver(Settings())
    driver._linked.set()
    driver._lost.clear()
    loop = asyncio.get_running_loop()
    made: list[tuple[object, int, float]] = []
    done = asyncio.Event()

    async def refill(context: object) -> None:
        made.append((context, driver._requests, loop.time() - driver._quiet_since))
        done.set()

    driver._refill = refill  # type: ignore[method-assign]
    release = asyncio.Event()
    call = asyncio.ensure_future(driver.page_call(release.wait()))
    await asyncio.sleep(0)
    context = object()
    driver._refill_soon(context)  # type: ignore[arg-type]
    for _ in range(20):  # the loop turns; the request still runs
        await asyncio.sleep(0)
    assert made == []
    release.set()
    await call
    await asyncio.wait_for(done.wait(), 5)
    [(which, running, quiet_for)] = made
    assert which is context and running == 0 and quiet_for >= 0.05
    assert not driver._refilling and not driver._refills


class FakePage:
    """What ``CdpHost.attach`` reads of a Playwright Page (weakly referenced, as Playwright's are)."""

    def __init__(self) -> None:
        self.main_frame = FakeFrame("about:blank")

    def on(self, event: str, handler: Any) -> None:
        pass


async def test_a_tab_that_takes_the_page_made_ahead_has_its_sessions_from_the_start() -> None:
    """The sessions found for the page made ahead go with it to the tab: its first agent call goes
    straight to the page, and no lookup is started for it."""
    driver = CdpDriver(Settings())
    host = driver.host
    page, session = FakePage(), object()
    host._ahead[page] = (session, "target-1")  # type: ignore[index]
    host.attach(4, page)  # type: ignore[arg-type]
    tab = host._tabs[4]
    assert tab.target_id == "target-1"
    assert tab.session is not None and tab.session.result() is session
    assert not host._ahead
    other = FakePage()
    host.attach(5, other)  # type: ignore[arg-type]
    assert host._tabs[5].target_id is None and host._tabs[5].session is None
