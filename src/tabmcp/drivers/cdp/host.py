"""The CDP driver's ``PageHost``: the page session's primitives over Playwright's CDP connection.

Frames are numbered per tab in order of first sight (0 is the main frame); Playwright keeps one
``Frame`` object per frame across its navigations. The agent (``agent/*.js``, with ``page_hooks.js``
before it) runs in each frame's main world (Playwright has no isolated worlds); it posts its port
messages (console, dialogs, ``toolsChanged``) through a binding. Navigation events come from
Playwright's requests and ``framenavigated``, and each frame's load states. A call of the agent in
a tab's main frame alone goes over the driver's own DevTools link where it has one (``direct.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import re
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from playwright.async_api import CDPSession, Frame, Page, Request
from playwright.async_api import Error as PlaywrightError

from tabmcp import trace
from tabmcp.drivers.base import DriverError
from tabmcp.drivers.cdp.direct import DirectLink, Unanswered, Unsent
from tabmcp.drivers.host import (
    MAIN_FRAME,
    AgentMessage,
    FrameInfo,
    FrameNavigation,
    Listeners,
    NavigationKind,
    PageEvent,
    RequestEnded,
    RequestStarted,
)
from tabmcp.drivers.page_scripts import agent_entry, page_scripts
from tabmcp.protocol import ErrorCode
from tabmcp.state import Tab

log = logging.getLogger(__name__)
HOST_BINDING = "__tabmcpHostPost"  # the page agent posts its port messages here (console, dialogs, toolsChanged)
NO_COMMIT_S = 0.2  # a navigation request that finished without a new document (204, a download)
ERROR_PAGE_S = 2.0  # Chrome commits its error page just after a main-frame failure: the error waits for it
REPORTS_WAIT_S = 1.0  # a direct-link answer waits at most this for the reports posted before it
MAX_DOCS_REMEMBERED = 8  # agent documents per tab whose report count is kept


def closed_error(exc: BaseException) -> bool:
    return bool(
        re.search(r"(Target|Page|Browser)( page, context or browser)? (has been )?closed|Target closed", str(exc))
    )


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:500]


@dataclass
class FrameNav:
    """The host's view of one frame's navigation: the request-started one not committed yet."""

    count: int = 0  # cross-document navigations started
    hops: int = 0  # navigation requests, redirects included
    pending: bool = False  # started, no document committed (nor ended) since
    error: tuple[str, str] | None = None  # a main-frame failure waiting for its error page: (url, error)


@dataclass
class HostTab:
    tab_id: int
    page: Page
    fresh: bool = False  # opened by create_tab: its blank first page is no history entry
    seen_start: bool = False
    next_frame: int = 1
    frame_ids: dict[Frame, int] = field(default_factory=dict)
    frames: dict[int, Frame] = field(default_factory=dict)
    nav: dict[int, FrameNav] = field(default_factory=dict)
    session: asyncio.Future[CDPSession] | None = None  # made once, for every caller that asked meanwhile
    target_id: str | None = None  # the page's DevTools target, for the direct link
    finding_target: bool = False
    # reports received through the binding, per agent document: the last one's number
    reports: dict[str, int] = field(default_factory=dict)
    report_waiters: list[tuple[str, int, asyncio.Future[None]]] = field(default_factory=list)

    def report_arrived(self, doc: str, posted: int) -> None:
        self.reports[doc] = max(posted, self.reports.get(doc, 0))
        while len(self.reports) > MAX_DOCS_REMEMBERED:
            del self.reports[next(iter(self.reports))]
        for waited_doc, number, done in self.report_waiters:
            if waited_doc == doc and number <= posted and not done.done():
                done.set_result(None)

    def frame_id(self, frame: Frame) -> int:
        known = self.frame_ids.get(frame)
        if known is not None:
            return known
        frame_id = MAIN_FRAME if frame is self.page.main_frame else self.next_frame
        if frame_id != MAIN_FRAME:
            self.next_frame += 1
        self.frame_ids[frame] = frame_id
        self.frames[frame_id] = frame
        return frame_id

    def nav_of(self, frame_id: int) -> FrameNav:
        return self.nav.setdefault(frame_id, FrameNav())


class CdpHost:
    """``open_page(workspace)`` (the driver's): a new page in the workspace's context, recorded as a tab;
    ``tab_of(tab_id)``: the driver's record of an open tab (NO_TAB / DISCONNECTED raised)."""

    def __init__(
        self,
        open_page: Callable[[str | None], Awaitable[int]],
        describe: Callable[[int], Tab],
        focus: Callable[[int], Awaitable[None]],
        close: Callable[[int], Awaitable[None]],
        tab_url: Callable[[int], tuple[str, bool]],
    ) -> None:
        self._open_page = open_page
        self._describe = describe
        self._focus = focus
        self._close = close
        self._url = tab_url
        self.hooks, self.agent = page_scripts()
        self.entry = agent_entry()
        self.listeners = Listeners()
        self._tabs: dict[int, HostTab] = {}
        self._request_ids: weakref.WeakKeyDictionary[Request, tuple[int, str, weakref.finalize]] = (
            weakref.WeakKeyDictionary()
        )
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[Any]] = set()
        self.direct = DirectLink()  # the driver opens it with its own link to the browser
        # pages made ahead: their DevTools session and target, found before a tab takes them
        self._ahead: weakref.WeakKeyDictionary[Page, tuple[CDPSession, str]] = weakref.WeakKeyDictionary()

    # ------------------------------------------------------------- tabs the driver records

    def attach(self, tab_id: int, page: Page) -> None:
        """Follow a page the driver recorded as ``tab_id``: its events reach the listeners from now on."""
        tab = HostTab(tab_id, page)
        ahead = self._ahead.pop(page, None)
        if ahead is not None:
            tab.session = asyncio.get_running_loop().create_future()
            tab.session.set_result(ahead[0])
            tab.target_id = ahead[1]
        self._tabs[tab_id] = tab
        tab.frame_id(page.main_frame)
        page.on("request", lambda r: self._on_request(tab, r))
        page.on("requestfinished", lambda r: self._on_request_end(tab, r, None))
        page.on("requestfailed", lambda r: self._on_request_end(tab, r, r.failure or "net::ERR_FAILED"))
        page.on("framenavigated", lambda f: self._on_navigated(tab, f))
        page.on("framedetached", lambda f: self._on_detached(tab, f))
        page.on("close", lambda _p: self._on_close(tab))

    def forget_all(self) -> None:
        """The link went away: every tab with it."""
        for tab in list(self._tabs.values()):
            self._on_close(tab)
        for task in list(self._tasks):
            task.cancel()

    def on_binding(self, source: Mapping[str, Any], payload: object) -> None:
        """A message an agent posted through the binding."""
        page, frame = source.get("page"), source.get("frame")
        tab = next((t for t in self._tabs.values() if t.page is page), None)
        if tab is None or not isinstance(payload, str) or frame is None:
            return
        try:
            message = json.loads(payload)
        except ValueError:
            return
        if not isinstance(message, dict):
            return
        doc, posted = message.pop("__doc", None), message.pop("__posted", None)
        self._emit(AgentMessage(tab.tab_id, tab.frame_id(frame), message))
        if isinstance(doc, str) and isinstance(posted, int):
            tab.report_arrived(doc, posted)

    def _emit(self, event: PageEvent) -> None:
        self.listeners.emit(event)

    def _spawn(self, work: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _navigation(self, tab: HostTab, frame_id: int, kind: NavigationKind, url: str = "", error: str = "") -> None:
        self._emit(FrameNavigation(tab.tab_id, frame_id, kind, url, error))

    # ------------------------------------------------------------- Playwright's events

    def _on_request(self, tab: HostTab, request: Request) -> None:
        if request.resource_type != "websocket":
            request_id = str(next(self._ids))
            ended = RequestEnded(tab.tab_id, request_id)
            # a request Playwright lets go of (its object cap) never reports its end: it ends with its object
            gone = weakref.finalize(request, self._emit_soon, ended)
            self._request_ids[request] = (tab.tab_id, request_id, gone)
            self._emit(RequestStarted(tab.tab_id, request_id, request.resource_type))
        if not request.is_navigation_request():
            return
        frame = _frame_of(request)
        if frame is None:
            return
        frame_id = tab.frame_id(frame)
        nav = tab.nav_of(frame_id)
        nav.hops += 1
        if request.redirected_from is None:
            nav.count += 1
            nav.pending, nav.error = True, None
            if frame_id == MAIN_FRAME:
                tab.seen_start = True
            self._navigation(tab, frame_id, "start", request.url)

    def _emit_soon(self, event: PageEvent) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody listens
            asyncio.get_running_loop().call_soon(self._emit, event)

    def _on_request_end(self, tab: HostTab, request: Request, failure: str | None) -> None:
        known = self._request_ids.pop(request, None)
        if known is not None:
            known[2].detach()
            self._emit(RequestEnded(known[0], known[1]))
        if not request.is_navigation_request():
            return
        frame = _frame_of(request)
        if frame is None or frame not in tab.frame_ids:
            return
        frame_id = tab.frame_ids[frame]
        nav = tab.nav_of(frame_id)
        if failure is None:
            hops, count = nav.hops, nav.count
            asyncio.get_running_loop().call_later(NO_COMMIT_S, self._no_document, tab, frame_id, count, hops)
        elif "ERR_ABORTED" in failure:
            nav.pending = False
            self._navigation(tab, frame_id, "aborted", request.url, failure)
        elif frame_id != MAIN_FRAME or frame.url.startswith("chrome-error:"):
            self._navigation(tab, frame_id, "error", request.url, failure)
        else:
            nav.error = (request.url, failure)
            asyncio.get_running_loop().call_later(ERROR_PAGE_S, self._flush_error, tab, nav.count)

    def _no_document(self, tab: HostTab, frame_id: int, count: int, hops: int) -> None:
        nav = tab.nav_of(frame_id)
        if nav.pending and nav.count == count and nav.hops == hops and nav.error is None:
            nav.pending = False
            self._navigation(tab, frame_id, "no_document")

    def _flush_error(self, tab: HostTab, count: int) -> None:
        nav = tab.nav_of(MAIN_FRAME)
        if nav.error is not None and nav.count == count:
            (url, error), nav.error = nav.error, None
            self._navigation(tab, MAIN_FRAME, "error", url, error)

    def _on_navigated(self, tab: HostTab, frame: Frame) -> None:
        frame_id = tab.frame_id(frame)
        if frame_id == MAIN_FRAME and not tab.seen_start and frame.url == "about:blank":
            return  # a new page's blank document, before the navigation it was opened for
        nav = tab.nav_of(frame_id)
        if frame_id == MAIN_FRAME and tab.fresh and not nav.pending:
            # a new tab's first page that needed no request (a browser page the policy opts in)
            nav.count += 1
            nav.pending = tab.seen_start = True
            self._navigation(tab, frame_id, "start", frame.url)
        if nav.error is not None:  # the failed navigation's error page
            (url, error), nav.error = nav.error, None
            self._navigation(tab, frame_id, "error", url, error)
        if not nav.pending:  # the history API, a fragment, or a document that needed no request (bfcache)
            self._navigation(tab, frame_id, "same_document", frame.url)
            return
        nav.pending = False
        self._navigation(tab, frame_id, "commit", frame.url)
        self._spawn(self._follow_load(tab, frame, frame_id, nav.count))
        if frame_id == MAIN_FRAME and tab.fresh:
            tab.fresh = False  # the blank page Playwright opens first is not a page the model can go back to
            self._spawn(self._reset_history(tab))

    async def _follow_load(self, tab: HostTab, frame: Frame, frame_id: int, count: int) -> None:
        nav = tab.nav_of(frame_id)
        for state, kind in (("domcontentloaded", "dom_content_loaded"), ("load", "load")):
            try:
                await frame.wait_for_load_state(state)  # type: ignore[arg-type]
            except Exception:
                return  # the frame or page went away: ``removed`` or another navigation says so
            if count != nav.count:
                return
            self._navigation(tab, frame_id, kind)  # type: ignore[arg-type]

    async def _reset_history(self, tab: HostTab) -> None:
        try:
            await self.cdp(tab.tab_id, "Page.resetNavigationHistory")
        except DriverError as exc:
            log.debug("resetting the new tab's history: %s", exc.message)

    def _on_detached(self, tab: HostTab, frame: Frame) -> None:
        frame_id = tab.frame_ids.pop(frame, None)
        if frame_id is None:
            return
        tab.frames.pop(frame_id, None)
        tab.nav.pop(frame_id, None)
        self._navigation(tab, frame_id, "removed")

    def _on_close(self, tab: HostTab) -> None:
        if self._tabs.pop(tab.tab_id, None) is None:
            return
        if tab.target_id is not None:
            self.direct.forget(tab.target_id)
        self._navigation(tab, MAIN_FRAME, "removed")

    # ------------------------------------------------------------- PageHost

    def subscribe(self, listener: Callable[[PageEvent], None]) -> Callable[[], None]:
        return self.listeners.add(listener)

    def _tab(self, tab_id: int) -> HostTab:
        self._url(tab_id)  # DISCONNECTED, NO_TAB
        tab = self._tabs.get(tab_id)
        if tab is None or tab.page.is_closed():
            raise DriverError(ErrorCode.NO_TAB, f"No tab with id {tab_id}")
        return tab

    def _error(self, tab: HostTab, exc: PlaywrightError, what: str) -> DriverError:
        if closed_error(exc) or tab.page.is_closed():
            return DriverError(ErrorCode.NO_TAB, f"No tab with id {tab.tab_id}")
        return DriverError(ErrorCode.INTERNAL, f"{what} failed: {first_line(exc)}")

    async def create_tab(self, url: str, focus: bool, group: str | None, workspace: str | None) -> int:
        tab_id = await self._open_page(workspace)
        tab = self._tab(tab_id)
        tab.fresh = True
        self._spawn(self._first_navigation(tab, url))
        if focus:
            await self._focus(tab_id)
        return tab_id

    async def _first_navigation(self, tab: HostTab, url: str) -> None:
        """The new tab's navigation, through Playwright's own session (no other to open first): its
        outcome comes as events; a refusal before any request (an invalid URL) as an ``error``."""
        try:
            await tab.page.goto(url, wait_until="commit", timeout=0)
        except PlaywrightError as exc:
            if not tab.page.is_closed() and "net::ERR_" not in str(exc):
                self._navigation(tab, MAIN_FRAME, "error", url, first_line(exc))

    async def tab_url(self, tab_id: int) -> tuple[str, str, bool]:
        tab = self._tab(tab_id)
        # Playwright's title, not the direct link's: it answers after Playwright has passed on the
        # load events of the document it read, so a load's own refresh knows the document was read
        try:
            title = await tab.page.title()
        except PlaywrightError as exc:
            raise self._error(tab, exc, "Reading the title") from None
        url, loading = self._url(tab_id)
        return url, title, loading

    async def tab_info(self, tab_id: int) -> Tab:
        await self.tab_url(tab_id)  # the title read now
        return self._describe(tab_id)

    async def close_tab(self, tab_id: int) -> None:
        self._tab(tab_id)
        await self._close(tab_id)

    async def frames(self, tab_id: int) -> list[FrameInfo]:
        tab = self._tab(tab_id)
        listed = []
        for frame in tab.page.frames:
            parent = frame.parent_frame
            parent_id = tab.frame_id(parent) if parent is not None else None
            listed.append(FrameInfo(tab.frame_id(frame), parent_id, frame.url))
        return listed

    async def call_agent(
        self, tab_id: int, frame_ids: Sequence[int] | None, method: str, arg: Any = None
    ) -> dict[int, Any]:
        with trace.phase("agent") as span:
            span.note(method=method)
            return await self._call_agent(tab_id, frame_ids, method, arg)

    async def _call_agent(
        self, tab_id: int, frame_ids: Sequence[int] | None, method: str, arg: Any
    ) -> dict[int, Any]:
        tab = self._tab(tab_id)
        if frame_ids is None:
            targets = [(tab.frame_id(f), f) for f in tab.page.frames]
        else:
            targets = [(i, tab.frames[i]) for i in frame_ids if i in tab.frames]
        if len(targets) == 1:  # the usual case: no gather
            frame_id, frame = targets[0]
            if frame_id == MAIN_FRAME:
                answered, value = await self._call_direct(tab, method, arg)
                if answered:
                    trace.note(via="direct")
                    return {} if value is None else {frame_id: value}
            trace.note(via="playwright")
            value = await self._call_in(tab, frame, method, arg)
            return {} if value is None else {frame_id: value}
        answers = await asyncio.gather(*(self._call_in(tab, f, method, arg) for _, f in targets))
        return {i: a for (i, _), a in zip(targets, answers, strict=True) if a is not None}

    async def _call_in(self, tab: HostTab, frame: Frame, method: str, arg: Any) -> Any:
        """agent[method](arg) in one frame, injecting the agent where it is missing; None when the frame
        could not answer."""
        value = await self._evaluate(tab, frame, method, arg)
        if isinstance(value, dict) and value.get("__missing"):
            for source in (self.hooks, self.agent):
                try:
                    await frame.evaluate(source)
                except PlaywrightError as exc:
                    if closed_error(exc) or tab.page.is_closed():
                        raise DriverError(ErrorCode.NO_TAB, f"No tab with id {tab.tab_id}") from None
                    log.debug("the agent could not be injected into %s: %s", frame.url, first_line(exc))
                    return None
            value = await self._evaluate(tab, frame, method, arg)
        if isinstance(value, dict) and value.get("__missing"):
            return None
        return value

    async def _call_direct(self, tab: HostTab, method: str, arg: Any) -> tuple[bool, Any]:
        """agent[method](arg) in the main frame over the direct link: (True, the answer or None when the
        document could not answer), or (False, None) when the call was not made there (no link or
        session yet, or the agent is missing: the Playwright path injects it). A call that reached the
        page is never made again (an action must not run twice)."""
        session = self._direct_session(tab)
        if session is None:
            return False, None
        try:
            raw = await self.direct.evaluate(session, f"({self.entry})({json.dumps([method, arg])})")
        except Unsent:
            return False, None
        except Unanswered as exc:
            if tab.page.is_closed():
                raise DriverError(ErrorCode.NO_TAB, f"No tab with id {tab.tab_id}") from None
            log.debug("the main frame did not answer %s: %s", method, exc)
            return True, None
        if isinstance(raw, dict) and raw.get("__missing"):
            return False, None
        if isinstance(raw, dict):
            await self._reports_before(tab, raw.get("__doc"), raw.get("__posted"))
        return True, self._unpack(raw)

    async def _reports_before(self, tab: HostTab, doc: object, posted: object) -> None:
        """Wait (bounded) until the reports the document posted before its answer have arrived: they
        travel Playwright's connection, the answer the direct link, and an answer must not overtake
        what the page said before it (a dialog its action showed, a console batch)."""
        if not isinstance(doc, str) or not isinstance(posted, int) or tab.reports.get(doc, 0) >= posted:
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiter = (doc, posted, done)
        tab.report_waiters.append(waiter)
        try:
            with trace.phase("reports_wait"):
                await asyncio.wait_for(done, REPORTS_WAIT_S)
        except TimeoutError:
            log.debug("tab %s: reports up to %s had not arrived after %s s", tab.tab_id, posted, REPORTS_WAIT_S)
        finally:
            tab.report_waiters.remove(waiter)

    def _direct_session(self, tab: HostTab) -> str | None:
        """The tab's session on the direct link, once known (finding it starts on the first ask)."""
        if not self.direct.open:
            return None
        if tab.target_id is None:
            self._start_finding(tab)
            return None
        return self.direct.session_of(tab.target_id)

    async def prepare_ahead(self, page: Page) -> None:
        """A page made ahead (spares.py): its DevTools session and its session on the direct link are
        made now, in the quiet the spare is made in, so the tab that takes it has both at its first
        call (finding them during the open took 50-80 ms, and its load may be shorter)."""
        if not self.direct.open:
            return
        try:
            session = await page.context.new_cdp_session(page)
            info = await session.send("Target.getTargetInfo")
        except PlaywrightError as exc:
            log.debug("the page made ahead: no DevTools session (%s)", first_line(exc))
            return
        target = info.get("targetInfo", {}).get("targetId")
        if isinstance(target, str) and not page.is_closed():
            self._ahead[page] = (session, target)
            await self.direct.attached(target)

    def attach_direct_soon(self, tab_id: int) -> None:
        """Find the tab's session on the direct link now, while its page loads: a page opened for the
        model is asked at once after its load, and that first call would go through Playwright."""
        tab = self._tabs.get(tab_id)
        if tab is not None and tab.target_id is None and self.direct.open:
            self._start_finding(tab)

    def _start_finding(self, tab: HostTab) -> None:
        if not tab.finding_target:
            tab.finding_target = True
            self._spawn(self._find_target(tab))

    async def _find_target(self, tab: HostTab) -> None:
        try:
            info = await self.cdp(tab.tab_id, "Target.getTargetInfo")
        except DriverError as exc:
            log.debug("the target of tab %s: %s", tab.tab_id, exc.message)
            return
        target = info.get("targetInfo", {}).get("targetId")
        if isinstance(target, str):
            tab.target_id = target
            self.direct.session_of(target)  # attaching starts now

    async def _evaluate(self, tab: HostTab, frame: Frame, method: str, arg: Any) -> Any:
        try:
            raw = await frame.evaluate(self.entry, [method, arg])
        except PlaywrightError as exc:
            if closed_error(exc) or tab.page.is_closed():
                raise DriverError(ErrorCode.NO_TAB, f"No tab with id {tab.tab_id}") from None
            log.debug("frame %s did not answer %s: %s", frame.url, method, first_line(exc))
            return None
        return self._unpack(raw)

    @staticmethod
    def _unpack(raw: Any) -> Any:
        """The entry's packed answer as the agent gave it (its time in the page noted on the trace)."""
        if isinstance(raw, dict) and isinstance(raw.get("__json"), str):
            if isinstance(raw.get("__ms"), int | float):
                trace.note(pageMs=round(raw["__ms"], 2), chars=len(raw["__json"]))
            return json.loads(raw["__json"])
        return raw

    async def flush_reports(self, tab_id: int, frame_id: int) -> None:
        # any agent call will do: its answer is held until the reports posted before it have arrived
        await self.call_agent(tab_id, [frame_id], "holdsFocus")

    async def cdp(self, tab_id: int, method: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        tab = self._tab(tab_id)
        try:
            if tab.session is None:
                tab.session = asyncio.ensure_future(tab.page.context.new_cdp_session(tab.page))
            try:
                session = await asyncio.shield(tab.session)
            except PlaywrightError:
                tab.session = None  # the next call tries again
                raise
            return await session.send(method, dict(params or {}))
        except PlaywrightError as exc:
            raise self._error(tab, exc, method) from None

    async def capture_viewport(self, tab_id: int, fmt: Literal["png", "jpeg"], quality: int | None) -> str:
        params: dict[str, Any] = {"format": fmt}
        if quality is not None:
            params["quality"] = quality
        return str((await self.cdp(tab_id, "Page.captureScreenshot", params))["data"])

    async def goto(self, tab_id: int, url: str) -> None:
        try:
            answer = await self.cdp(tab_id, "Page.navigate", {"url": url})
        except DriverError as exc:
            if re.search(r"invalid URL|Cannot navigate to", exc.message, re.I):
                raise DriverError(ErrorCode.INVALID_URL, f"Cannot open {url}: {exc.message}") from None
            raise
        if answer.get("errorText"):
            raise DriverError(ErrorCode.NAVIGATION_FAILED, f"Could not load {url}: {answer['errorText']}")

    async def go(self, tab_id: int, where: Literal["back", "forward", "reload"]) -> None:
        if where == "reload":
            await self.cdp(tab_id, "Page.reload")
            return
        history = await self.cdp(tab_id, "Page.getNavigationHistory")
        index = history["currentIndex"] + (-1 if where == "back" else 1)
        which = "previous" if where == "back" else "next"
        if not 0 <= index < len(history["entries"]):
            raise DriverError(
                ErrorCode.NAVIGATION_FAILED, f"Cannot go {where}: there is no {which} page in this tab's history"
            )
        await self.cdp(tab_id, "Page.navigateToHistoryEntry", {"entryId": history["entries"][index]["id"]})


def _frame_of(request: Request) -> Frame | None:
    try:
        return request.frame
    except PlaywrightError:
        return None  # a service worker's request
