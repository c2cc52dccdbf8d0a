"""The CDP driver: the link, browser contexts, the navigation policy's routing and the tab events;
the page requests are the page session's (drivers/session/) over ``CdpHost`` (docs/scaling.md).

Every request races the link: when the endpoint goes away, the calls waiting on it fail at once
with DISCONNECTED instead of hanging until their own timeouts.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Awaitable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from playwright.async_api import Browser, BrowserContext, CDPSession, Page, Playwright, Request, Route, async_playwright
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from tabmcp import protocol as p
from tabmcp import state as s
from tabmcp.config import Settings
from tabmcp.drivers.base import DriverError, LinkChanged, NavigationBlocked, PageChanged
from tabmcp.drivers.cdp.host import HOST_BINDING, CdpHost, closed_error, first_line
from tabmcp.drivers.cdp.object_cap import playwright_object_cap
from tabmcp.drivers.cdp.source import LaunchedBrowser
from tabmcp.drivers.cdp.spares import SparePages
from tabmcp.drivers.host import AgentMessage, PageEvent
from tabmcp.drivers.launch import LaunchError
from tabmcp.drivers.session import PageSession
from tabmcp.drivers.session.requests import PageRequests
from tabmcp.policy import NavigationPolicy

log = logging.getLogger(__name__)
T = TypeVar("T")

CONNECT_TIMEOUT_MS = 30_000
# Playwright's first attach to a browser that is still starting can stall for good (its pages never
# finish initialising for it; microsoft/playwright#32388); a second connection gets through. So the
# first attempt has a third of the time, the second the rest.
FIRST_CONNECT_MS = 10_000
TITLE_TIMEOUT_S = 2.0
CLOSE_SETTLE_S = 0.25
# a page made ahead is made once no page request has run for this long: making it (a renderer's start,
# Playwright's set-up) stalls Playwright's connection and the CPU, so not among an open's first calls
REFILL_QUIET_S = 0.1
BLOCKS_KEPT = 200
NOT_LINKED = "the browser is not connected: call connect_browser"


@dataclass
class TabRecord:
    """What the driver keeps per tab: its page and what the tab strip shows of it."""

    id: int
    page: Page
    window_id: int
    opener_id: int | None = None
    status: str = "loading"
    title: str = ""
    announced: bool = False
    closing: bool = False  # the driver closes it (close_tab, a failed open_tab)
    failed_url: str = ""  # the page Chrome shows its error page for
    refill: BrowserContext | None = None  # made by open_tab: its context's next spare page is made at its load

    @property
    def url(self) -> str:
        """As Chrome's tab strip shows it: the URL that failed, not its chrome-error:// page."""
        url = self.page.url
        return self.failed_url if url.startswith("chrome-error:") and self.failed_url else url

    def tab(self) -> s.Tab:
        return s.Tab(
            id=self.id,
            title=self.title,
            url=self.url,
            status="complete" if self.status == "complete" else "loading",
            window_id=self.window_id,
            opener_id=self.opener_id,
        )


class CdpDriver(PageRequests):
    def __init__(self, settings: Settings, policy: NavigationPolicy | None = None) -> None:
        """``policy``: enforced in the browser by routing navigation requests (the extension uses
        declarativeNetRequest rules for the same); None or empty: nothing is intercepted."""
        self.settings = settings
        self.policy = policy if policy is not None and (policy.allow or policy.block) else None
        self.endpoint = settings.cdp_endpoint
        self._events: asyncio.Queue[object] = asyncio.Queue()
        self.host = CdpHost(self._new_page, self._describe, self._focus, self._close, self._url_of)
        self.host.subscribe(self._on_page_event)
        self.session = PageSession(self.host, self.policy, self._on_session_event)
        self._pw: Playwright | None = None
        self._browser: Browser | None = None
        self._launched: LaunchedBrowser | None = None
        self._linked = asyncio.Event()
        self._lost = asyncio.Event()
        self._lost.set()
        self._tabs: dict[int, TabRecord] = {}
        self._by_page: dict[Page, TabRecord] = {}
        self._next_id = 1
        # tab ids in the order they were last shown (a new page, bring_to_front): the last one still
        # open is the active tab, as far as CDP can tell (it reports no tab switches by the user)
        self._shown: dict[int, None] = {}
        self._windows: dict[BrowserContext, int] = {}
        self._contexts: dict[str, BrowserContext] = {}  # per client workspace
        self._prepared: set[BrowserContext] = set()
        self._blocked: dict[str, str] = {}  # url -> the policy's reason, for the tab events that report it
        self._spares = SparePages(lambda page: self._record(page, announce=True) if self.linked else None)
        self._refills: dict[BrowserContext, None] = {}  # contexts whose next spare waits for a quiet moment
        self._refilling = False
        self._requests = 0  # page requests running
        self._quiet = asyncio.Event()  # no page request running
        self._quiet.set()
        self._quiet_since = 0.0
        self._tasks: set[asyncio.Task[Any]] = set()
        self._link_lock = asyncio.Lock()
        self._closing = False

    # ------------------------------------------------------------- link

    @property
    def linked(self) -> bool:
        return self._linked.is_set()

    async def wait_linked(self, timeout: float) -> bool:
        try:
            await asyncio.wait_for(self._linked.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def link(self) -> None:
        """Connect to the endpoint, or launch the browser and connect to it. DISCONNECTED when it cannot."""
        async with self._link_lock:
            if self.linked:
                return
            await self._teardown()
            with playwright_object_cap(self.settings.playwright_object_cap):
                self._pw = await async_playwright().start()
            endpoint = self.endpoint
            try:
                if endpoint is None:
                    self._launched = LaunchedBrowser(self.settings)
                    endpoint = await self._launched.start()
                self._browser = await self._connect(self._pw, endpoint)
                await self.host.direct.connect(endpoint)  # the agent's calls in main frames, beside Playwright
            except (LaunchError, PlaywrightError) as exc:
                await self._teardown()
                where = f"the DevTools endpoint {self.endpoint}" if self.endpoint else "the launched browser"
                raise DriverError(
                    p.ErrorCode.DISCONNECTED, f"Could not connect to {where}: {first_line(exc)}"
                ) from None
            self._browser.on(
                "disconnected", lambda _b: self._on_disconnected("the browser's DevTools connection closed")
            )
            if self.policy is not None:
                try:
                    await self._guard_redirects(self._browser)
                except PlaywrightError as exc:  # an endpoint that refuses browser-wide interception
                    log.warning("redirects into refused pages are stopped only once loaded: %s", first_line(exc))
            for context in self._browser.contexts:
                await self._prepare(context)
            self._lost.clear()
            self._linked.set()
            self._events.put_nowait(LinkChanged(up=True))
            log.info(
                "CDP driver linked to %s (Chromium %s)", self.endpoint or "a launched browser", self._browser.version
            )

    def _on_disconnected(self, reason: str) -> None:
        if not self.linked:
            return
        self._linked.clear()
        self._lost.set()
        self.host.forget_all()
        self._tabs.clear()
        self._by_page.clear()
        self._shown.clear()
        self._contexts.clear()
        self._prepared.clear()
        self._windows.clear()
        self._spares.clear()
        self._refills.clear()
        if not self._closing:
            log.warning("CDP link lost: %s", reason)
            self._events.put_nowait(LinkChanged(up=False, reason=reason))
            self._spawn(self._teardown())

    @staticmethod
    async def _connect(pw: Playwright, endpoint: str) -> Browser:
        try:
            return await pw.chromium.connect_over_cdp(endpoint, timeout=FIRST_CONNECT_MS)
        except PlaywrightTimeout as exc:
            log.warning("connecting to %s stalled; trying once more (%s)", endpoint, exc)
        return await pw.chromium.connect_over_cdp(endpoint, timeout=CONNECT_TIMEOUT_MS - FIRST_CONNECT_MS)

    async def _teardown(self) -> None:
        browser, pw, launched = self._browser, self._pw, self._launched
        self._browser = self._pw = self._launched = None
        await self.host.direct.close()
        if browser is not None:
            try:
                await browser.close()  # for connect_over_cdp: disconnects, and closes the contexts it made
            except Exception as exc:
                log.debug("closing the CDP connection: %s", exc)
        if launched is not None:
            await launched.stop()
        if pw is not None:
            try:
                await pw.stop()
            except Exception as exc:
                log.debug("stopping Playwright: %s", exc)

    async def close(self) -> None:
        """The server is shutting down: a launched browser is stopped, a remote one only let go."""
        self._closing = True
        self._on_disconnected("the server is shutting down")
        for task in list(self._tasks):
            task.cancel()
        self.session.close()
        await self._teardown()

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def next_event(self) -> object:
        return await self._events.get()

    # ------------------------------------------------------------- contexts and tabs

    async def _prepare(self, context: BrowserContext) -> None:
        """The agent into every document of the context from now on, and its tabs registered."""
        if context in self._prepared:
            return
        self._prepared.add(context)
        self._windows[context] = len(self._windows) + 1
        await context.expose_binding(HOST_BINDING, self.host.on_binding)
        await context.add_init_script(script=self.host.hooks)
        await context.add_init_script(script=self.host.agent)
        if self.policy is not None:
            await context.route("**/*", self._route)
        context.on("page", lambda page: self._on_new_page(context, page))
        for page in context.pages:
            self._record(page, announce=False)

    async def _context_for(self, workspace: str | None) -> BrowserContext:
        browser = self._require_browser()
        if workspace is None or self.settings.share_browser_context or not browser.contexts:
            context = browser.contexts[0] if browser.contexts else await browser.new_context(no_viewport=True)
        else:
            context = self._contexts.get(workspace) or await browser.new_context(no_viewport=True)
            self._contexts[workspace] = context
        await self._prepare(context)
        return context

    async def show_controlled(self, tabs: Sequence[tuple[int, str]]) -> None:
        """A browser reached over CDP has no tabmcp extension to show which tabs are controlled."""

    async def release_workspace(self, workspace: str) -> None:
        context = self._contexts.pop(workspace, None)
        if context is not None:
            self._spares.forget(context)
            self._refills.pop(context, None)
            try:
                await context.close()
            except PlaywrightError as exc:
                log.debug("closing workspace %s's context: %s", workspace, exc)
            self._prepared.discard(context)  # only now: a connect meanwhile must not prepare it again

    def _record(self, page: Page, *, announce: bool) -> TabRecord:
        record = self._by_page.get(page)
        if record is not None:
            return record
        tab_id = self._next_id
        self._next_id += 1
        record = TabRecord(tab_id, page, self._windows.get(page.context, 1))
        record.status = "complete" if not announce else "loading"
        self._tabs[tab_id] = record
        self._by_page[page] = record
        self._shown[tab_id] = None
        self.host.attach(tab_id, page)  # first: the session hears of a navigation before the tab strip
        page.on("request", lambda r: self._on_request(record, r))
        page.on("requestfailed", lambda r: self._on_request_failed(record, r))
        page.on("framenavigated", lambda f: self._spawn(self._refresh(record)) if f is page.main_frame else None)
        page.on("load", lambda _p: self._spawn(self._on_load(record)))
        page.on("close", lambda _p: self._on_close(record))
        page.on("crash", lambda _p: self._emit(record, s.TabCrashed(record.id)))
        self._spawn(self._announce(record, announce))
        return record

    def _on_new_page(self, context: BrowserContext, page: Page) -> None:
        if not self._spares.holds(context, page):
            self._record(page, announce=True)

    async def _new_page(self, workspace: str | None) -> int:
        context = await self._context_for(workspace)
        page = await self._spares.take(context) or await context.new_page()
        record = self._record(page, announce=True)
        self.host.attach_direct_soon(record.id)
        if self._launched is not None and self.settings.resolved_headless():  # spares.py says why
            record.refill = context  # once this page has loaded: not while its load needs the CPU
        return record.id

    def _refill_soon(self, context: BrowserContext) -> None:
        """The context's next spare page, once the page requests have been quiet for REFILL_QUIET_S."""
        self._refills[context] = None
        if not self._refilling:
            self._refilling = True
            self._spawn(self._refill_when_quiet())

    async def _refill_when_quiet(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._refills and self.linked:
                await self._quiet.wait()
                left = REFILL_QUIET_S - (loop.time() - self._quiet_since)
                if left > 0:
                    await asyncio.sleep(left)
                    continue  # a request may have run meanwhile
                context = next(iter(self._refills))
                del self._refills[context]
                await self._refill(context)
        finally:
            self._refilling = False

    async def _refill(self, context: BrowserContext) -> None:
        """The context's next spare page. A new page becomes its window's active tab, and only that tab
        is given frames to draw (a screenshot waits for one): the tab shown last is shown again."""
        spare = await self._spares.refill(context)
        for tab_id in reversed(self._shown):
            record = self._tabs.get(tab_id)
            if record is not None and record.page.context is context and not record.page.is_closed():
                with contextlib.suppress(PlaywrightError):
                    await record.page.bring_to_front()
                break
        if spare is not None:
            await self.host.prepare_ahead(spare)

    def _describe(self, tab_id: int) -> s.Tab:
        return self._tab(tab_id).tab()

    def _url_of(self, tab_id: int) -> tuple[str, bool]:
        record = self._tab(tab_id)
        return record.url, record.status == "loading"

    async def _focus(self, tab_id: int) -> None:
        record = self._tab(tab_id)
        try:
            await record.page.bring_to_front()
        except PlaywrightError as exc:
            raise self._playwright_error(exc) from None
        self._shown_now(tab_id)

    async def _close(self, tab_id: int) -> None:
        record = self._tab(tab_id)
        record.closing = True
        try:
            await record.page.close()
        except PlaywrightError as exc:
            raise self._playwright_error(exc) from None

    async def _announce(self, record: TabRecord, announce: bool) -> None:
        try:
            opener = await record.page.opener()
            record.title = await record.page.title()
        except PlaywrightError:
            opener = None
        record.opener_id = self._by_page[opener].id if opener is not None and opener in self._by_page else None
        blocked = await self._blocked_first_page(record) if announce else None
        record.announced = True
        if announce and record.id in self._tabs:
            self._events.put_nowait(s.TabCreated(record.tab()))
            if blocked is not None:  # after TabCreated: the runtime knows the tab and its opener by then
                self._emit(record, NavigationBlocked(record.id, blocked, self._blocked[blocked]))

    async def _blocked_first_page(self, record: TabRecord) -> str | None:
        """The URL a new tab (a popup) was refused before the driver knew the tab: its route came
        with no frame to tell whose it was. Chrome's target keeps that URL under its error page."""
        if self.policy is None or not record.page.url.startswith("chrome-error:"):
            return None
        try:
            info = await self.host.cdp(record.id, "Target.getTargetInfo")
        except DriverError:
            return None
        url = str(info.get("targetInfo", {}).get("url", ""))
        if url not in self._blocked:
            return None
        record.failed_url = url
        return url

    def _emit(self, record: TabRecord, event: object) -> None:
        """News of a tab after its TabClosed would bring it back to life in the state: a title read
        that was under way when the tab closed (a failed open_tab closes its tab at once) is dropped."""
        gone = record.id not in self._tabs and not isinstance(event, s.TabClosed)
        if record.announced and self.linked and not gone:
            self._events.put_nowait(event)

    def _on_session_event(self, event: object) -> None:
        record = self._tabs.get(event.tab_id) if isinstance(event, PageChanged) else None
        if record is not None:
            self._emit(record, event)
            self._spawn(self._refresh(record))

    def _on_page_event(self, event: PageEvent) -> None:
        """An agent's ``title`` message: the tab strip's title."""
        if not isinstance(event, AgentMessage) or event.frame_id != 0 or event.message.get("type") != "title":
            return
        record = self._tabs.get(event.tab_id)
        title = event.message.get("title")
        if record is not None and isinstance(title, str) and title != record.title:
            record.title = title[:500]
            self._emit(record, s.TabUpdated(record.tab()))

    def _on_request(self, record: TabRecord, request: Request) -> None:
        if not request.is_navigation_request():
            return
        main = _frame_of(request) is record.page.main_frame
        if main and request.redirected_from is None and record.status != "loading":
            record.status = "loading"
            self._emit(record, s.TabUpdated(record.tab()))

    def _on_request_failed(self, record: TabRecord, request: Request) -> None:
        if not request.is_navigation_request():
            return
        main = _frame_of(request) is record.page.main_frame
        if main and "ERR_ABORTED" not in (request.failure or ""):
            record.failed_url = request.url
        if request.redirected_from is not None and request.url in self._blocked:
            # a redirect's next hop, refused by _on_paused: Playwright's route never saw it
            self._emit(record, NavigationBlocked(record.id, request.url, self._blocked[request.url]))
        if main and record.status == "loading":
            record.status = "complete"  # an error page, or the navigation was replaced
            tab = record.tab()
            if record.failed_url == request.url:
                # Chrome shows its error page for that URL next: so does the tab, already (a tab
                # still at the page it left would end the runtime's memory of the block)
                tab = dataclasses.replace(tab, url=request.url)
            self._emit(record, s.TabUpdated(tab))

    async def _on_load(self, record: TabRecord) -> None:
        record.status = "complete"
        if record.refill is not None:
            context, record.refill = record.refill, None
            self._refill_soon(context)
        await self._refresh(record, force=True)

    async def _refresh(self, record: TabRecord, force: bool = False) -> None:
        """Report the tab's URL and title when they changed (or at load)."""
        before = record.tab()
        try:
            record.title = await record.page.title()
        except PlaywrightError:
            return
        after = record.tab()
        if force or after != before:
            self._emit(record, s.TabUpdated(after))

    def _on_close(self, record: TabRecord) -> None:
        self._shown.pop(record.id, None)
        if self._tabs.pop(record.id, None) is not None:
            self._by_page.pop(record.page, None)
            if record.closing:  # closed by the driver itself: the browser is there
                self._emit(record, s.TabClosed(record.id))
            else:
                self._spawn(self._report_close(record))

    async def _report_close(self, record: TabRecord) -> None:
        """A dying browser closes every page just before its connection drops: those tabs are not
        closed one by one for the client, the link going down says it all at once."""
        await asyncio.sleep(CLOSE_SETTLE_S)
        if self._browser is not None and self._browser.is_connected():
            self._emit(record, s.TabClosed(record.id))

    # ------------------------------------------------------------- the navigation policy

    async def _route(self, route: Route, request: Request) -> None:
        """The navigation policy in the browser: pages and frames it refuses are never requested."""
        assert self.policy is not None
        if request.is_navigation_request():
            reason = self._refusal(request.url)
            if reason is not None:
                # a popup's first page has no frame yet: _announce reports it
                frame = _frame_of(request)
                record = self._by_page.get(frame.page) if frame is not None else None
                if record is not None:
                    self._emit(record, NavigationBlocked(record.id, request.url, reason))
                await route.abort("blockedbyclient")
                return
        await route.fallback()

    async def _guard_redirects(self, browser: Browser) -> None:
        """Playwright continues a redirect's next hop itself, without asking the routes: the browser-wide
        Fetch domain holds every document request, and refuses the hops the policy refuses."""
        session = await browser.new_browser_cdp_session()
        session.on("Fetch.requestPaused", lambda event: self._spawn(self._on_paused(session, event)))
        pattern = {"urlPattern": "*", "resourceType": "Document", "requestStage": "Request"}
        await session.send("Fetch.enable", {"patterns": [pattern]})

    async def _on_paused(self, session: CDPSession, event: dict[str, Any]) -> None:
        assert self.policy is not None
        url = event["request"]["url"]
        try:
            if event.get("redirectedRequestId") and self._refusal(url) is not None:
                refusal = {"requestId": event["requestId"], "errorReason": "BlockedByClient"}
                await session.send("Fetch.failRequest", refusal)
            else:
                await session.send("Fetch.continueRequest", {"requestId": event["requestId"]})
        except PlaywrightError as exc:
            log.debug("paused request %s: %s", url, exc)

    def _refusal(self, url: str) -> str | None:
        """Why the policy refuses ``url`` as a page, remembered for the tab events that report it;
        None when it may load."""
        assert self.policy is not None
        verdict = self.policy.check(url)
        if verdict.allowed or verdict.code != "NAVIGATION_BLOCKED":
            return None
        self._blocked.pop(url, None)  # the newest few refusals only
        self._blocked[url] = verdict.reason
        while len(self._blocked) > BLOCKS_KEPT:
            del self._blocked[next(iter(self._blocked))]
        return verdict.reason

    # ------------------------------------------------------------- guards

    def _require_browser(self) -> Browser:
        if self._browser is None or not self.linked:
            raise DriverError(p.ErrorCode.DISCONNECTED, NOT_LINKED)
        return self._browser

    def _tab(self, tab_id: int) -> TabRecord:
        self._require_browser()
        record = self._tabs.get(tab_id)
        if record is None or record.page.is_closed():
            raise DriverError(p.ErrorCode.NO_TAB, f"No tab with id {tab_id}")
        return record

    async def _guarded(self, work: Awaitable[T]) -> T:
        """``work`` unless the link drops first (DISCONNECTED); its own time limits are the session's."""
        if not self.linked:
            if asyncio.iscoroutine(work):
                work.close()
            raise DriverError(p.ErrorCode.DISCONNECTED, NOT_LINKED)
        task = asyncio.ensure_future(work)
        lost = asyncio.ensure_future(self._lost.wait())
        try:
            done, _ = await asyncio.wait({task, lost}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            task.cancel()
            raise
        finally:
            lost.cancel()
        if task in done:
            try:
                return task.result()
            except PlaywrightError as exc:
                raise self._playwright_error(exc) from None
        task.cancel()
        raise DriverError(
            p.ErrorCode.DISCONNECTED, "the browser's DevTools connection closed during the call: call connect_browser"
        )

    def _playwright_error(self, exc: PlaywrightError) -> DriverError:
        if not self.linked:
            return DriverError(p.ErrorCode.DISCONNECTED, f"the browser went away: {first_line(exc)}")
        if closed_error(exc):
            return DriverError(p.ErrorCode.NO_TAB, f"The tab closed: {first_line(exc)}")
        return DriverError(p.ErrorCode.INTERNAL, first_line(exc))

    # ------------------------------------------------------------- Driver: tabs

    async def connect(self) -> tuple[s.Browser, list[s.Tab]]:
        browser = self._require_browser()
        name = "Chrome" if self.settings.browser == "chrome" else "Chromium"
        for context in browser.contexts:
            try:
                await self._prepare(context)
            except PlaywrightError as exc:  # another client's context closing as its workspace ends
                if not closed_error(exc):
                    raise
                log.debug("connect: a context closed while it was prepared: %s", first_line(exc))
        # tabs open before the link get their titles read in the background (_announce), too late for
        # this answer, and nothing reports them later: read them now
        await asyncio.gather(*(self._read_title(r) for r in list(self._tabs.values()) if not r.title))
        for record in self._tabs.values():
            record.announced = True
        return s.Browser(name=name, version=browser.version), [r.tab() for r in self._tabs.values()]

    async def _read_title(self, record: TabRecord) -> None:
        """Bounded: a page stuck in a dialog or a busy script does not hold up connect_browser (it is
        listed without a title until its next load reports one)."""
        with contextlib.suppress(PlaywrightError, TimeoutError):
            record.title = await asyncio.wait_for(record.page.title(), TITLE_TIMEOUT_S)

    async def focus_tab(self, tab_id: int) -> s.Tab:
        await self._guarded(self._focus(tab_id))
        return self._tab(tab_id).tab()

    async def tab_info(self, tab_id: int) -> s.Tab:
        return await self._guarded(self.host.tab_info(tab_id))

    def _shown_now(self, tab_id: int) -> None:
        self._shown.pop(tab_id, None)
        self._shown[tab_id] = None

    async def active_tab(self) -> s.Tab | None:
        """The tab shown last (opened, or brought to front by tabmcp): CDP has no event for a tab the
        user switches to, so on a remote browser this is tabmcp's view (docs/scaling.md)."""
        self._require_browser()
        for tab_id in reversed(self._shown):
            record = self._tabs.get(tab_id)
            if record is not None:
                return record.tab()
        return None

    async def close_tab(self, tab_id: int) -> None:
        self._tab(tab_id)
        await self._guarded(self._close(tab_id))

    # ------------------------------------------------------------- Driver: the page session's requests

    async def page_call(self, work: Awaitable[T]) -> T:
        self._requests += 1
        self._quiet.clear()
        try:
            return await self._guarded(work)
        finally:
            self._requests -= 1
            if not self._requests:
                self._quiet_since = asyncio.get_running_loop().time()
                self._quiet.set()


def _frame_of(request: Request) -> Any:
    try:
        return request.frame
    except PlaywrightError:
        return None  # a service worker's request
