"""The CDP driver: link, tabs and their events, and the page-agent requests (docs/scaling.md).

Errors are the extension's: the same codes with messages a model can act on, raised as
``DriverError``. Every request races the link: when the endpoint goes away, the calls waiting on it
fail at once with DISCONNECTED instead of hanging until their own timeouts.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import io
import json
import logging
import math
import re
import time
from collections.abc import Awaitable, Coroutine, Mapping, Sequence
from typing import Any, Literal, TypeVar

from PIL import Image
from playwright.async_api import Browser, BrowserContext, CDPSession, Page, Playwright, Request, Route, async_playwright
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from tabmcp import protocol as p
from tabmcp import state as s
from tabmcp.config import Settings
from tabmcp.drivers.base import DriverError, LinkChanged, NavigationBlocked, NoAnswer, OpenedTab, PageChanged
from tabmcp.drivers.cdp import plans
from tabmcp.drivers.cdp.agent import PageAgent, Resolved, agent_ok, closed_error, scripts, stale_ref
from tabmcp.drivers.cdp.keys import playwright_key
from tabmcp.drivers.cdp.navigation import NavigationWatcher, navigation_error
from tabmcp.drivers.cdp.object_cap import playwright_object_cap
from tabmcp.drivers.cdp.source import LaunchedBrowser
from tabmcp.drivers.cdp.tabs import TabRecord
from tabmcp.drivers.extension.driver import plan_timeout, wire_request
from tabmcp.drivers.launch import LaunchError
from tabmcp.echo import quote
from tabmcp.page.capture import PageCapture
from tabmcp.policy import NavigationPolicy

log = logging.getLogger(__name__)
T = TypeVar("T")

HOST_BINDING = "__tabmcpHostPost"  # the page agent posts its port messages here (console, dialogs, toolsChanged)
CONNECT_TIMEOUT_MS = 30_000
# Playwright's first attach to a browser that is still starting can stall for good (its pages never
# finish initialising for it; microsoft/playwright#32388); a second connection gets through. So the
# first attempt has a third of the time, the second the rest.
FIRST_CONNECT_MS = 10_000
OPEN_TAB_TIMEOUT_MS = 15_000
LOADING_WAIT_S = 10.0
NAVIGATION_GRACE_S = 0.4
NAVIGATION_START_S = 2.0
REPLACED_NAVIGATION_S = 0.5  # after an aborted goto: time for the navigation that replaced it to show
NAVIGATION_TIMEOUT_S = 15.0
DEFAULT_ACT_TIMEOUT_MS = 5_000
POLL_S = 0.1
MAX_CAPTURE_SIDE = 16_384
MAX_EVALUATE_CHARS = 4_000_000
MARGIN_S = 5.0
DIALOG_FLUSH_S = 1.0  # the round trip that lets a page's dialog reports arrive before they are read
FOLLOW_ON_S = 2.0  # a navigation the page started as it loaded: how long its outcome may take
TITLE_TIMEOUT_S = 2.0
CLOSE_SETTLE_S = 0.25
BLOCKS_KEPT = 200
ERROR_PAGE_WAIT_MS = 2_000
TRUSTED_ACTIONS = {"click", "dblclick", "hover", "fill", "type", "clear", "press", "check", "uncheck"}
TRUSTED_NAVIGATING = {"click", "dblclick", "press", "check", "uncheck"}
EVERY_FRAME_STATES = {"hidden", "detached"}
NOT_LINKED = "the browser is not connected: call connect_browser"


class CdpDriver:
    def __init__(self, settings: Settings, policy: NavigationPolicy | None = None) -> None:
        """``policy``: enforced in the browser by routing navigation requests (the extension uses
        declarativeNetRequest rules for the same); None or empty: nothing is intercepted."""
        self.settings = settings
        self.policy = policy if policy is not None and (policy.allow or policy.block) else None
        self.endpoint = settings.cdp_endpoint
        self._hooks, self._agent = scripts()
        self._events: asyncio.Queue[object] = asyncio.Queue()
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
        self._blocked: dict[str, str] = {}  # url -> the policy's reason, for the navigation's error
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
            except (LaunchError, PlaywrightError) as exc:
                await self._teardown()
                where = f"the DevTools endpoint {self.endpoint}" if self.endpoint else "the launched browser"
                raise DriverError(
                    p.ErrorCode.DISCONNECTED, f"Could not connect to {where}: {_first_line(exc)}"
                ) from None
            self._browser.on(
                "disconnected", lambda _b: self._on_disconnected("the browser's DevTools connection closed")
            )
            if self.policy is not None:
                try:
                    await self._guard_redirects(self._browser)
                except PlaywrightError as exc:  # an endpoint that refuses browser-wide interception
                    log.warning("redirects into refused pages are stopped only once loaded: %s", _first_line(exc))
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
        for record in list(self._tabs.values()):
            for watcher in list(record.watchers):
                watcher.removed()
        self._tabs.clear()
        self._by_page.clear()
        self._shown.clear()
        self._contexts.clear()
        self._prepared.clear()
        self._windows.clear()
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
        await context.expose_binding(HOST_BINDING, self._on_agent_message)
        await context.add_init_script(script=self._hooks)
        await context.add_init_script(script=self._agent)
        if self.policy is not None:
            await context.route("**/*", self._route)
        context.on("page", lambda page: self._record(page, announce=True))
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
            self._prepared.discard(context)
            try:
                await context.close()
            except PlaywrightError as exc:
                log.debug("closing workspace %s's context: %s", workspace, exc)

    def _record(self, page: Page, *, announce: bool) -> TabRecord:
        record = self._by_page.get(page)
        if record is not None:
            return record
        tab_id = self._next_id
        self._next_id += 1
        record = TabRecord(
            tab_id, page, PageAgent(page, tab_id, self._hooks, self._agent), self._windows.get(page.context, 1)
        )
        record.status = "complete" if not announce else "loading"
        self._tabs[tab_id] = record
        self._by_page[page] = record
        self._shown[tab_id] = None
        page.on("request", lambda r: self._on_request(record, r))
        page.on("requestfinished", lambda r: self._on_request_end(record, r, failed=False))
        page.on("requestfailed", lambda r: self._on_request_end(record, r, failed=True))
        page.on("framenavigated", lambda f: self._on_navigated(record, f))
        page.on("load", lambda _p: self._spawn(self._on_load(record)))
        page.on("close", lambda _p: self._on_close(record))
        page.on("crash", lambda _p: self._emit(record, s.TabCrashed(record.id)))
        self._spawn(self._announce(record, announce))
        return record

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
            info = await (await self._session(record)).send("Target.getTargetInfo")
        except PlaywrightError:
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

    def _on_request(self, record: TabRecord, request: Request) -> None:
        if request.resource_type != "websocket":
            record.network.began(request)
        if not request.is_navigation_request():
            return
        frame = _frame_of(request)
        for watcher in list(record.watchers):
            if watcher.frame is frame:
                watcher.request(request)
        if frame is record.page.main_frame and request.redirected_from is None and record.status != "loading":
            record.status = "loading"
            self._emit(record, s.TabUpdated(record.tab()))

    def _on_request_end(self, record: TabRecord, request: Request, *, failed: bool) -> None:
        record.network.ended(request)
        if not request.is_navigation_request():
            return
        frame = _frame_of(request)
        for watcher in list(record.watchers):
            if watcher.frame is frame:
                if failed:
                    watcher.failed(request)
                else:
                    watcher.finished(request)
        if failed and frame is record.page.main_frame and "ERR_ABORTED" not in (request.failure or ""):
            record.failed_url = request.url
        if failed and request.redirected_from is not None and request.url in self._blocked:
            # a redirect's next hop, refused by _on_paused: Playwright's route never saw it
            self._emit(record, NavigationBlocked(record.id, request.url, self._blocked[request.url]))
        if failed and frame is record.page.main_frame and record.status == "loading":
            record.status = "complete"  # an error page, or the navigation was replaced
            tab = record.tab()
            if record.failed_url == request.url:
                # Chrome shows its error page for that URL next: so does the tab, already (a tab
                # still at the page it left would end the runtime's memory of the block)
                tab = dataclasses.replace(tab, url=request.url)
            self._emit(record, s.TabUpdated(tab))

    def _on_navigated(self, record: TabRecord, frame: Any) -> None:
        for watcher in list(record.watchers):
            if watcher.frame is frame:
                watcher.navigated()
        if frame is record.page.main_frame:
            self._spawn(self._refresh(record))

    async def _on_load(self, record: TabRecord) -> None:
        record.status = "complete"
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
        for watcher in list(record.watchers):
            watcher.removed()
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

    def _on_agent_message(self, source: Mapping[str, Any], payload: object) -> None:
        record = self._by_page.get(source.get("page"))  # type: ignore[arg-type]
        if record is None or not isinstance(payload, str):
            return
        try:
            message = json.loads(payload)
        except ValueError:
            return
        if not isinstance(message, dict):
            return
        kind = message.get("type")
        if kind == "console" and isinstance(message.get("entries"), list):
            for entry in message["entries"]:
                record.console.add(entry)
        elif kind == "dialog":
            record.note_dialog(message.get("dialog"))
        elif kind == "title" and source.get("frame") is record.page.main_frame:
            title = message.get("title")
            if isinstance(title, str) and title != record.title:
                record.title = title[:500]
                self._emit(record, s.TabUpdated(record.tab()))
        elif kind == "toolsChanged" and source.get("frame") is record.page.main_frame:
            reason = message.get("reason") if message.get("reason") in ("mutation", "history", "webmcp") else "mutation"
            version = message.get("version")
            self._emit(record, PageChanged(record.id, reason, version[:64] if isinstance(version, str) else ""))
            self._spawn(self._refresh(record))

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
        """Why the policy refuses ``url`` as a page, remembered for the error of the navigation that
        asked for it; None when it may load."""
        assert self.policy is not None
        verdict = self.policy.check(url)
        if verdict.allowed or verdict.code != "NAVIGATION_BLOCKED":
            return None
        self._remember_block(url, verdict.reason)
        return verdict.reason

    def _remember_block(self, url: str, reason: str) -> None:
        """The newest few refusals only."""
        self._blocked.pop(url, None)
        self._blocked[url] = reason
        while len(self._blocked) > BLOCKS_KEPT:
            del self._blocked[next(iter(self._blocked))]

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

    async def _guarded(self, work: Awaitable[T], timeout: float | None = None) -> T:
        """``work`` unless the link drops first (DISCONNECTED) or it outlives ``timeout`` (TIMEOUT)."""
        if not self.linked:
            if asyncio.iscoroutine(work):
                work.close()
            raise DriverError(p.ErrorCode.DISCONNECTED, NOT_LINKED)
        task = asyncio.ensure_future(work)
        lost = asyncio.ensure_future(self._lost.wait())
        try:
            done, _ = await asyncio.wait({task, lost}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
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
        if lost in done:
            raise DriverError(
                p.ErrorCode.DISCONNECTED,
                "the browser's DevTools connection closed during the call: call connect_browser",
            )
        raise NoAnswer(f"The browser did not answer within {timeout:g} s")

    def _playwright_error(self, exc: PlaywrightError) -> DriverError:
        if not self.linked:
            return DriverError(p.ErrorCode.DISCONNECTED, f"the browser went away: {_first_line(exc)}")
        if closed_error(exc):
            return DriverError(p.ErrorCode.NO_TAB, f"The tab closed: {_first_line(exc)}")
        return DriverError(p.ErrorCode.INTERNAL, _first_line(exc))

    # ------------------------------------------------------------- Driver: tabs

    async def connect(self) -> tuple[s.Browser, list[s.Tab]]:
        browser = self._require_browser()
        name = "Chrome" if self.settings.browser == "chrome" else "Chromium"
        for context in browser.contexts:
            await self._prepare(context)
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

    async def open_tab(
        self,
        url: str,
        focus: bool,
        group: str | None = None,
        workspace: str | None = None,
        timeout_ms: int = OPEN_TAB_TIMEOUT_MS,
    ) -> OpenedTab:
        return await self._guarded(self._open_tab(url, focus, workspace, timeout_ms), timeout_ms / 1000 + MARGIN_S)

    async def _open_tab(self, url: str, focus: bool, workspace: str | None, timeout_ms: int) -> OpenedTab:
        if not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", url):
            raise DriverError(p.ErrorCode.INVALID_URL, f"Not an absolute URL: {url}")
        context = await self._context_for(workspace)
        page = await context.new_page()
        record = self._record(page, announce=True)
        watcher = record.watch()
        try:
            await page.goto(url, wait_until="load", timeout=timeout_ms)
            record.status = "complete"
            dialogs, followed_by = await self._after_load(record, watcher, since=0.0)
            if followed_by is not None:
                record.closing = True
                await page.close()
                raise followed_by
        except PlaywrightTimeout:
            log.info("open_tab: %s still loading after %d ms", url, timeout_ms)  # answered as loading
            dialogs = await self._dialogs_shown(record, since=0.0)
        except PlaywrightError as exc:
            record.closing = True
            await page.close()
            raise self._goto_error(exc, url) from None
        finally:
            record.unwatch(watcher)
        try:  # the blank page Playwright opens first is not a page the model can go back to
            await (await self._session(record)).send("Page.resetNavigationHistory")
        except PlaywrightError as exc:
            log.debug("resetting the new tab's history: %s", exc)
        if focus:
            await page.bring_to_front()
            self._shown_now(record.id)
        with contextlib.suppress(PlaywrightError):
            record.title = await page.title()
        return OpenedTab(record.tab(), tuple(dialogs))

    async def _after_load(
        self, record: TabRecord, watcher: NavigationWatcher, since: float
    ) -> tuple[list[dict[str, Any]], DriverError | None]:
        """What the page did as it loaded: the dialogs it showed since ``since``, and the error of a
        navigation it started at once that the policy blocked (None when there was none)."""
        loaded_at = watcher.navigations  # counted before the dialogs' round trip: a navigation meanwhile counts
        dialogs = await self._dialogs_shown(record, since)
        return dialogs, await self._blocked_follow_on(watcher, loaded_at)

    async def _blocked_follow_on(self, watcher: NavigationWatcher, loaded_at: int) -> DriverError | None:
        """After a load: a navigation the page started as soon as it loaded (a meta refresh, ``location =``
        on load) that the navigation policy blocked. Its NAVIGATION_BLOCKED error, for the call that
        loaded the page, as for a blocked redirect; None when there is none."""
        if watcher.navigations == loaded_at:
            return None  # the page stayed
        await watcher.wait_for_outcome(FOLLOW_ON_S)
        outcome = watcher.outcome
        if outcome is None or outcome.kind != "error" or outcome.url not in self._blocked:
            return None
        return self._navigation_error(outcome, outcome.url)

    async def _dialogs_shown(self, record: TabRecord, since: float) -> list[dict[str, Any]]:
        """The dialogs the tab's page showed since ``since`` (as an action reports them): one round
        trip to the page first, so the agent's reports of them have arrived."""
        with contextlib.suppress(PlaywrightError, TimeoutError):  # a busy page: what has arrived
            await asyncio.wait_for(record.page.main_frame.evaluate("0"), DIALOG_FLUSH_S)
        return record.dialogs_since(since)

    async def focus_tab(self, tab_id: int) -> s.Tab:
        record = self._tab(tab_id)
        await self._guarded(record.page.bring_to_front())
        self._shown_now(tab_id)
        return record.tab()

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
        record = self._tab(tab_id)
        record.closing = True
        await self._guarded(record.page.close())

    def _goto_error(self, exc: PlaywrightError, url: str) -> DriverError:
        text = str(exc)
        if self.linked and "ERR_BLOCKED_BY_CLIENT" in text:
            return self._blocked_error(url)
        error = re.search(r"net::ERR_[A-Z_]+", text)
        if error:
            return DriverError(p.ErrorCode.NAVIGATION_FAILED, f"Could not load {url}: {error.group(0)}")
        if re.search(r"invalid URL|Cannot navigate to", text, re.I):
            return DriverError(p.ErrorCode.INVALID_URL, f"Cannot open {url}: {_first_line(exc)}")
        if isinstance(exc, PlaywrightTimeout):
            return DriverError(p.ErrorCode.TIMEOUT, f"{url} did not load in time: {_first_line(exc)}")
        return self._playwright_error(exc)

    # ------------------------------------------------------------- Driver: introspection

    async def _wait_while_loading(self, record: TabRecord) -> None:
        if record.status == "loading":
            with contextlib.suppress(PlaywrightError):  # still loading: the agent reads what is there
                await record.page.wait_for_load_state("load", timeout=LOADING_WAIT_S * 1000)

    async def capture(self, tab_id: int, max_chars: int, if_changed: str | None = None) -> PageCapture | None:
        record = self._tab(tab_id)

        async def run() -> PageCapture | None:
            await self._wait_while_loading(record)
            data = await record.agent.call("capture", {"maxChars": max_chars, "ifChanged": if_changed})
            if data.get("unchanged") and if_changed is not None:
                return None
            webmcp = data.get("webmcp", [])
            return PageCapture(
                url=str(data.get("url", "")),
                title=str(data.get("title", "")),
                html=str(data.get("html", "")),
                truncated=bool(data.get("truncated", False)),
                version=str(data.get("version", "")),
                webmcp=tuple(t for t in webmcp if isinstance(t, dict)) if isinstance(webmcp, list) else (),
            )

        return await self._guarded(run(), self.settings.request_timeout)

    async def snapshot(self, tab_id: int, mode: p.SnapshotMode = "interactive") -> dict[str, Any]:
        wire_request(p.Snapshot, tabId=tab_id, mode=mode)
        record = self._tab(tab_id)

        async def run() -> dict[str, Any]:
            await self._wait_while_loading(record)
            return await record.agent.snapshot(mode)

        return await self._guarded(run(), self.settings.request_timeout)

    async def run_steps(self, tab_id: int, tool_name: str, steps: Sequence[p.Step]) -> dict[str, Any]:
        record = self._tab(tab_id)
        log.debug("callTool %s: %d steps", tool_name, len(steps))

        async def run() -> dict[str, Any]:
            await self._wait_while_loading(record)
            return await plans.run_plan(self, record, list(steps))

        return await self._guarded(run(), plan_timeout(steps))

    # ------------------------------------------------------------- Driver: actions

    async def act(self, tab_id: int, action: Mapping[str, Any], wait_until: p.WaitUntil = "load") -> dict[str, Any]:
        frame = wire_request(p.Act, **{**action, "tabId": tab_id, "waitUntil": wait_until})
        if frame.action == "press" and frame.trusted:
            playwright_key(frame.key or "")  # refused up front, like the extension
        record = self._tab(tab_id)
        timeout = (frame.timeoutMs if frame.timeoutMs is not None else DEFAULT_ACT_TIMEOUT_MS) / 1000
        return await self._guarded(self._act(record, frame), timeout + NAVIGATION_TIMEOUT_S + MARGIN_S)

    async def _act(self, record: TabRecord, frame: p.Act) -> dict[str, Any]:
        action = frame.model_dump(exclude_none=True, exclude={"type", "id", "tabId", "waitUntil"})
        target = frame.target.model_dump(exclude_none=True) if frame.target is not None else None
        agent = record.agent
        if target is not None:
            resolved = await agent.resolve(target)
        else:
            where = await agent.focused_frame() if frame.action == "press" else record.page.main_frame
            resolved = Resolved(where, None, "the page")
        top = record.watch()
        in_frame = record.watch(resolved.frame) if resolved.frame is not record.page.main_frame else None
        try:
            try:
                if frame.trusted and frame.action in TRUSTED_ACTIONS:
                    answer = await self.trusted_act(record, resolved, action)
                else:
                    agent_action = {k: v for k, v in action.items() if k != "trusted"}
                    agent_action.pop("target", None)
                    if resolved.target is not None:
                        agent_action["target"] = resolved.target
                    stale = target.get("ref") if target else None
                    answer = await agent.call_frame(resolved.frame, "act", agent_action, stale)
            except DriverError as exc:
                # the action itself navigated the frame before the agent could answer: that is success
                if not (exc.code == p.ErrorCode.NOT_SCRIPTABLE and (top.started or (in_frame and in_frame.started))):
                    raise
                answer = {"ok": True, "dialogs": []}
            navigated = await self.settle_action(answer, top, in_frame, frame.waitUntil, frame)
        finally:
            record.unwatch(top)
            record.unwatch(in_frame)
        await self._refresh(record)
        dialogs = answer.get("dialogs") if isinstance(answer.get("dialogs"), list) else []
        done = {
            "navigated": navigated,
            "url": record.url,
            "title": record.title,
            "dialogs": dialogs,
            "sensitive": answer.get("sensitive") is True,
        }
        if isinstance(answer.get("scroll"), dict):  # scroll: where the page (or the element) is now
            done["scroll"] = answer["scroll"]
        return done

    async def settle_action(
        self,
        answer: dict[str, Any],
        top: NavigationWatcher,
        in_frame: NavigationWatcher | None,
        wait_until: str,
        frame: p.Act,
    ) -> bool:
        """After an action: wait for the navigation it started to reach ``wait_until``."""
        reported = answer.get("navigation") if isinstance(answer.get("navigation"), dict) else None
        if reported and reported.get("sameDocument"):
            return True
        if not reported and frame.trusted and frame.action in TRUSTED_NAVIGATING:
            await _first_start([top, in_frame], NAVIGATION_GRACE_S)
        if not reported and not top.started and not (in_frame and in_frame.started):
            return False
        watcher = top
        if in_frame is not None and not top.started:
            if not in_frame.started:
                await _first_start([top, in_frame], NAVIGATION_START_S)
            if not top.started:
                watcher = in_frame
        elif not top.started:
            await top.wait_for_start(NAVIGATION_START_S)
        if not watcher.started:
            return False  # announced, then cancelled
        what = reported.get("url") if reported and reported.get("url") else "the next page"
        await self.await_navigation(watcher, wait_until, NAVIGATION_TIMEOUT_S, what)
        return True

    async def await_navigation(self, watcher: NavigationWatcher, wait_until: str, seconds: float, what: str) -> None:
        """Until the followed navigation reaches ``wait_until``; NAVIGATION_FAILED, NO_TAB or TIMEOUT."""
        deadline = time.monotonic() + seconds
        reached = await watcher.wait(lambda: watcher.reached(wait_until), seconds)
        outcome = watcher.outcome
        if outcome is not None and outcome.kind == "error":
            error = self._navigation_error(outcome, what)
            if watcher.frame is watcher.page.main_frame:
                await _error_page_shown(watcher.page)  # its late commit would interrupt the next navigation
            raise error
        if outcome is not None and outcome.kind == "removed":
            raise DriverError(p.ErrorCode.NO_TAB, f"The tab closed while {what} loaded")
        if not reached:
            state = "started but did not reach" if watcher.started else "did not start, or did not reach"
            raise DriverError(
                p.ErrorCode.TIMEOUT, f'The navigation to {what} {state} "{wait_until}" within {seconds * 1000:.0f} ms'
            )
        if wait_until == "networkidle" and not watcher.same_document:
            record = self._by_page.get(watcher.page)
            if record is not None and not await record.network.idle(deadline):
                busy = len(record.network.requests)
                raise DriverError(
                    p.ErrorCode.TIMEOUT,
                    f"{what} loaded, but the network was not idle for 500 ms within {seconds * 1000:.0f} ms "
                    f"({busy} requests in flight)",
                )

    def _navigation_error(self, outcome: Any, what: str) -> DriverError:
        if outcome.url in self._blocked and "ERR_BLOCKED_BY_CLIENT" in outcome.error:
            return self._blocked_error(outcome.url)
        return navigation_error(outcome, what)

    def _blocked_error(self, url: str) -> DriverError:
        """NAVIGATION_BLOCKED naming the page and the rule (the policy's reason names the page already)."""
        reason = self._blocked.get(url, "blocked by tabmcp's navigation policy")
        return DriverError(p.ErrorCode.NAVIGATION_BLOCKED, reason if url in reason else f"{url} is {reason}")

    async def trusted_act(self, record: TabRecord, resolved: Resolved, action: dict[str, Any]) -> dict[str, Any]:
        """Real input events (CDP ``Input.*`` through Playwright's mouse and keyboard), at the point the agent gives."""
        name = action["action"]
        since = time.monotonic()
        page = record.page
        sensitive = False

        async def point(checks: str = name) -> tuple[float, float, bool]:
            arg: dict[str, Any] = {
                "target": resolved.target,
                "action": checks,
                "timeoutMs": action.get("timeoutMs", DEFAULT_ACT_TIMEOUT_MS),
            }
            for key in ("dialog", "promptText"):
                if key in action:
                    arg[key] = action[key]
            answer = await record.agent.call_frame(resolved.frame, "point", arg, resolved.label)
            x, y = await record.agent.point_in_tab(resolved.frame, float(answer["x"]), float(answer["y"]))
            return x, y, answer.get("sensitive") is True

        async def probe(state: str) -> bool:
            answer = await record.agent.call_frame(
                resolved.frame, "probe", {"target": resolved.target, "state": state}, resolved.label
            )
            return answer.get("met") is True

        if name in ("check", "uncheck"):
            want = name == "check"
            if await probe("checked") != want:
                x, y, _ = await point()
                await page.mouse.click(x, y)
                if await probe("checked") != want:
                    raise DriverError(
                        p.ErrorCode.ELEMENT_NOT_INTERACTABLE,
                        f"{resolved.label} is still {'unchecked' if want else 'checked'} after the click",
                    )
        elif name == "press":
            if resolved.target is not None and not await probe("focused"):
                x, y, _ = await point("click")
                await page.mouse.click(x, y)
            await page.keyboard.press(playwright_key(action["key"]))
        else:
            x, y, sensitive = await point()
            if name == "hover":
                await page.mouse.move(x, y)
            else:
                await page.mouse.click(x, y, click_count=2 if name == "dblclick" else 1)
                if name in ("fill", "clear"):
                    await page.keyboard.press("Control+A")
                    if name == "fill" and action.get("text"):
                        await page.keyboard.insert_text(action["text"])
                    else:
                        await page.keyboard.press("Delete")
                elif name == "type":
                    await page.keyboard.press("End")
                    if action.get("text"):
                        await page.keyboard.insert_text(action["text"])
        with contextlib.suppress(PlaywrightError):  # one round trip: the dialogs the input opened arrive first
            await resolved.frame.evaluate("0")
        return {"ok": True, "dialogs": record.dialogs_since(since), "sensitive": sensitive}

    # ------------------------------------------------------------- Driver: navigation and waits

    async def navigate(
        self,
        tab_id: int,
        url: str | None = None,
        go: Literal["back", "forward", "reload"] | None = None,
        wait_until: p.WaitUntil = "load",
        timeout_ms: int = 15_000,
    ) -> dict[str, Any]:
        frame = wire_request(p.Navigate, tabId=tab_id, url=url, go=go, waitUntil=wait_until, timeoutMs=timeout_ms)
        record = self._tab(tab_id)
        return await self._guarded(
            self.navigate_record(record, frame.url, frame.go, frame.waitUntil, frame.timeoutMs),
            frame.timeoutMs / 1000 + MARGIN_S,
        )

    async def navigate_record(
        self, record: TabRecord, url: str | None, go: str | None, wait_until: str, timeout_ms: int
    ) -> dict[str, Any]:
        page = record.page
        if url is not None:
            parsed = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*):", url)
            if not parsed:
                raise DriverError(p.ErrorCode.INVALID_URL, f"Not an absolute URL: {url}")
            if parsed.group(1).lower() not in ("http", "https", "about") and (
                self.policy is None or not self.policy.check(url).allowed
            ):
                raise DriverError(p.ErrorCode.INVALID_URL, f"Cannot navigate to a {parsed.group(1)}: URL: {url}")
        wait = wait_until  # Playwright's own networkidle is the same 500 ms of quiet
        since = time.monotonic()
        watcher = record.watch()
        try:
            if url is not None:
                await self._goto(record, url, wait_until, timeout_ms)
            elif go == "reload":
                await page.reload(wait_until=wait, timeout=timeout_ms)  # type: ignore[arg-type]
            else:
                await self._go_in_history(record, go, wait_until, timeout_ms)
        except PlaywrightTimeout:
            what = url or (
                "the reloaded page" if go == "reload" else f"the {'previous' if go == 'back' else 'next'} page"
            )
            raise DriverError(
                p.ErrorCode.TIMEOUT, f'The navigation to {what} did not reach "{wait_until}" within {timeout_ms} ms'
            ) from None
        except PlaywrightError as exc:
            error = self._goto_error(exc, url or page.url)
            if error.code in (p.ErrorCode.NAVIGATION_FAILED, p.ErrorCode.NAVIGATION_BLOCKED):
                await _error_page_shown(page)
            if error.code == p.ErrorCode.NAVIGATION_BLOCKED and record.failed_url in self._blocked:
                error = self._goto_error(exc, record.failed_url)  # a redirect's refused hop: name that page
            raise error from None
        else:
            dialogs, followed_by = await self._after_load(record, watcher, since)
            if followed_by is not None:
                await _error_page_shown(page)
                raise followed_by
        finally:
            record.unwatch(watcher)
        await self._refresh(record)
        answer: dict[str, Any] = {"url": record.url, "title": record.title}
        return {**answer, "dialogs": dialogs} if dialogs else answer

    async def _goto(self, record: TabRecord, url: str, wait_until: str, timeout_ms: int) -> None:
        """``page.goto``, except that a navigation the page or the user starts meanwhile wins, as on
        the extension: the navigation is then followed to ``wait_until`` wherever it goes (the answer
        names the page the tab is on). Playwright reports the replaced one as ERR_ABORTED or
        "interrupted by another navigation"."""
        watcher = record.watch()
        started = time.monotonic()
        try:
            try:
                await record.page.goto(url, wait_until=wait_until, timeout=timeout_ms)  # type: ignore[arg-type]
                return
            except PlaywrightError as exc:
                text = str(exc)
                if "ERR_ABORTED" not in text and "interrupted by another navigation" not in text:
                    raise  # a timeout, a failed load: the caller words it
                if not await watcher.wait(lambda: watcher.navigations > 1, REPLACED_NAVIGATION_S):
                    raise  # stopped, a download, a 204: no page replaced it
            left = timeout_ms / 1000 - (time.monotonic() - started)
            await self.await_navigation(watcher, wait_until, max(left, 0.0), f"the page that replaced {url}")
        finally:
            record.unwatch(watcher)

    async def _go_in_history(self, record: TabRecord, go: str | None, wait_until: str, timeout_ms: int) -> None:
        """Exactly one entry back or forward, followed by a watcher: a page restored from the
        back/forward cache has no new load for Playwright's own go_back to wait for."""
        session = await self._session(record)
        history = await session.send("Page.getNavigationHistory")
        index = history["currentIndex"] + (-1 if go == "back" else 1)
        which = "previous" if go == "back" else "next"
        if not 0 <= index < len(history["entries"]):
            raise DriverError(
                p.ErrorCode.NAVIGATION_FAILED, f"Cannot go {go}: there is no {which} page in this tab's history"
            )
        watcher = record.watch()
        try:
            await session.send("Page.navigateToHistoryEntry", {"entryId": history["entries"][index]["id"]})
            await self.await_navigation(watcher, wait_until, timeout_ms / 1000, f"the {which} page")
        finally:
            record.unwatch(watcher)

    async def wait_for(self, tab_id: int, condition: Mapping[str, Any], timeout_ms: int = 5_000) -> dict[str, Any]:
        frame = wire_request(p.WaitFor, **{**condition, "tabId": tab_id, "timeoutMs": timeout_ms})
        record = self._tab(tab_id)
        longest = max(frame.timeoutMs, frame.timeMs or 0)

        async def run() -> dict[str, Any]:
            started = time.monotonic()
            if frame.timeMs is not None:
                await asyncio.sleep(frame.timeMs / 1000)
                self._tab(tab_id)
                return {"met": True, "elapsedMs": round((time.monotonic() - started) * 1000)}
            if frame.target is not None:
                probe: dict[str, Any] = {
                    "target": frame.target.model_dump(exclude_none=True),
                    "state": frame.state or "visible",
                }
            else:
                key = "text" if frame.text is not None else "textGone"
                probe = {key: getattr(frame, key)}
            elapsed = await self.poll_condition(record, probe, frame.timeoutMs)
            return {"met": True, "elapsedMs": elapsed}

        return await self._guarded(run(), longest / 1000 + MARGIN_S)

    async def poll_condition(
        self, record: TabRecord, probe: dict[str, Any], timeout_ms: int, fail_css: str | None = None
    ) -> int:
        """Polls ``probe`` every POLL_S until met (the ms it took) or TIMEOUT saying what was last seen.
        ``fail_css`` (a plan step's failWhen) is read first in each round: its text, once shown, is
        the step's PAGE_ERROR."""
        started = time.monotonic()
        if probe.get("target") is not None:
            target = probe["target"]
            shown = target.get("ref") or (
                f"css {quote(target['css'])}" if target.get("css") else f"role {quote(target.get('role'))}"
            )
            describe = f"{shown} to be {probe['state']}"
        elif probe.get("text") is not None:
            describe = f"text {quote(probe['text'])}"
        else:
            describe = f"text {quote(probe['textGone'])} to go"
        while True:
            shown = await self._page_error_shown(record, fail_css) if fail_css else ""
            if shown:
                raise DriverError(p.ErrorCode.PAGE_ERROR, shown)
            met, detail = await self._probe_tab(record, probe)
            elapsed = (time.monotonic() - started) * 1000
            if met:
                return round(elapsed)
            if elapsed >= timeout_ms:
                raise DriverError(
                    p.ErrorCode.TIMEOUT, f"Waited {timeout_ms} ms for {describe}{f': {detail}' if detail else ''}"
                )
            await asyncio.sleep(min(POLL_S, (timeout_ms - elapsed) / 1000))

    async def _page_error_shown(self, record: TabRecord, css: str) -> str:
        """The visible text of the first visible match of ``css`` in the top document, or ""."""
        try:
            answer = await record.agent.call("extract", {"css": css, "limit": 1})
        except DriverError as exc:
            if exc.code == p.ErrorCode.NO_TAB:
                raise
            return ""  # between documents: the next round reads again
        if answer.get("ok") is False and answer.get("code") == p.ErrorCode.BAD_MESSAGE:
            agent_ok(answer, "extract")  # a bad selector
        items = answer.get("items") if answer.get("ok") else None
        first = items[0] if isinstance(items, list) and items else ""
        return first.strip() if isinstance(first, str) else ""

    async def _probe_tab(self, record: TabRecord, probe: dict[str, Any]) -> tuple[bool, str]:
        gone = probe.get("textGone") is not None or probe.get("state") in EVERY_FRAME_STATES
        frames = None
        arg = probe
        target = probe.get("target")
        if target is not None and target.get("ref") is not None:
            try:
                frame, agent_target = record.agent.parse_ref(target["ref"])
            except DriverError as exc:
                if exc.code == p.ErrorCode.STALE_REF and gone:
                    return True, ""
                raise
            frames = [frame]
            arg = {**probe, "target": agent_target}
        try:
            answers = await record.agent.call_all("probe", arg, frames)
        except DriverError as exc:
            if exc.code == p.ErrorCode.NO_TAB:
                raise
            return False, f"the page cannot be read right now ({exc.message})"
        if frames is not None and not answers and frames[0].is_detached():
            if gone:
                return True, ""
            raise stale_ref(target["ref"], "its frame is gone")
        if not answers:
            return False, "no frame answered (the page is loading)"
        any_met, all_met, detail = False, True, ""
        for answer in answers.values():
            if isinstance(answer, dict) and answer.get("ok") is False:
                code = answer.get("code")
                if code == "STALE_REF" and gone:
                    met = True
                elif code in ("STALE_REF", "ELEMENT_AMBIGUOUS", "BAD_MESSAGE"):
                    agent_ok(answer, "probe")
                    met = False
                else:
                    met = False
                if not met:
                    detail = str(answer.get("message") or detail)
            elif isinstance(answer, dict) and answer.get("__error"):
                agent_ok(answer, "probe")
                met = False
            else:
                met = isinstance(answer, dict) and answer.get("met") is True
                if not met and isinstance(answer, dict) and answer.get("detail"):
                    detail = str(answer["detail"])
            any_met = any_met or met
            all_met = all_met and met
        return (all_met if gone else any_met), detail

    # ------------------------------------------------------------- Driver: screenshots, console, evaluate

    async def screenshot(
        self,
        tab_id: int,
        kind: Literal["viewport", "full", "element"] = "viewport",
        target: Mapping[str, Any] | None = None,
        fmt: Literal["png", "jpeg"] = "png",
        quality: int | None = None,
    ) -> dict[str, Any]:
        jpeg_quality = quality if fmt == "jpeg" else None
        wire_request(p.Screenshot, tabId=tab_id, kind=kind, target=target, format=fmt, quality=jpeg_quality)
        record = self._tab(tab_id)
        return await self._guarded(self._screenshot(record, kind, target, fmt, jpeg_quality), 30 + MARGIN_S)

    async def _screenshot(
        self, record: TabRecord, kind: str, target: Mapping[str, Any] | None, fmt: str, quality: int | None
    ) -> dict[str, Any]:
        session = await self._session(record)
        params: dict[str, Any] = {"format": fmt}
        if quality is not None:
            params["quality"] = quality
        if kind == "full":
            metrics = await session.send("Page.getLayoutMetrics")
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            width = max(1, int(-(-size["width"] // 1)))
            height = max(1, min(int(-(-size["height"] // 1)), MAX_CAPTURE_SIDE))
            params.update(
                clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1}, captureBeyondViewport=True
            )
        elif kind == "element":
            return await self._element_screenshot(record, session, dict(target or {}), params)
        shot = await session.send("Page.captureScreenshot", params)
        return image_result(shot["data"], fmt)

    async def _element_screenshot(
        self, record: TabRecord, session: CDPSession, target: dict[str, Any], params: dict[str, Any]
    ) -> dict[str, Any]:
        """As the extension answers: the viewport image with ``clip`` (image px) when the element is
        in view, else the element's region rendered wherever it is on the page."""
        resolved = await record.agent.resolve(target)
        answer = await record.agent.call_frame(resolved.frame, "rect", {"target": resolved.target}, resolved.label)
        rect, dpr = answer["rect"], float(answer.get("dpr") or 0)
        cx, cy = rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2
        tx, ty = await record.agent.point_in_tab(resolved.frame, cx, cy)
        box = {"x": rect["x"] + tx - cx, "y": rect["y"] + ty - cy, "width": rect["width"], "height": rect["height"]}
        if not (box["width"] > 0 and box["height"] > 0):
            raise DriverError(p.ErrorCode.ELEMENT_NOT_INTERACTABLE, f"{resolved.label} has no size on screen")
        view = await record.page.evaluate("() => ({width: innerWidth, height: innerHeight, x: scrollX, y: scrollY})")
        image = image_result((await session.send("Page.captureScreenshot", params))["data"], params["format"])
        scale = dpr if dpr > 0 else image["width"] / view["width"]
        visible_w = min(view["width"], image["width"] / scale)
        visible_h = min(view["height"], image["height"] / scale)
        fits = (
            box["x"] >= -0.5
            and box["y"] >= -0.5
            and box["x"] + box["width"] <= visible_w + 0.5
            and box["y"] + box["height"] <= visible_h + 0.5
        )
        if not fits:
            clip = {
                "x": max(0.0, box["x"] + view["x"]),
                "y": max(0.0, box["y"] + view["y"]),
                "width": max(1.0, box["width"]),
                "height": max(1.0, min(box["height"], MAX_CAPTURE_SIDE)),
                "scale": 1,
            }
            shot = await session.send("Page.captureScreenshot", {**params, "clip": clip, "captureBeyondViewport": True})
            return image_result(shot["data"], params["format"])
        x = min(image["width"] - 1, max(0, math.floor(box["x"] * scale)))
        y = min(image["height"] - 1, max(0, math.floor(box["y"] * scale)))
        width = max(1, min(image["width"], math.ceil((box["x"] + box["width"]) * scale)) - x)
        height = max(1, min(image["height"], math.ceil((box["y"] + box["height"]) * scale)) - y)
        return {**image, "clip": {"x": x, "y": y, "width": width, "height": height}}

    async def _session(self, record: TabRecord) -> CDPSession:
        """The tab's own CDP session, opened on first use (screenshots, evaluate, history)."""
        if record.session is None:
            record.session = await record.page.context.new_cdp_session(record.page)
        return record.session

    async def console(
        self, tab_id: int, after_seq: int = 0, levels: Sequence[p.ConsoleLevel] | None = None
    ) -> dict[str, Any]:
        wire_request(p.Console, tabId=tab_id, afterSeq=after_seq, levels=list(levels) if levels else None)
        record = self._tab(tab_id)

        async def run() -> dict[str, Any]:
            try:  # what the agents logged in the last 100 ms is not in the buffer yet
                for answer in (await record.agent.call_all("takeConsole")).values():
                    for entry in answer.get("entries") or [] if isinstance(answer, dict) else []:
                        record.console.add(entry)
            except DriverError as exc:
                if exc.code == p.ErrorCode.NO_TAB:
                    raise
                log.debug("console read without the latest batch: %s", exc.message)
            return record.console.read(after_seq, set(levels) if levels else None)

        return await self._guarded(run(), self.settings.request_timeout)

    async def evaluate(self, tab_id: int, expression: str, timeout_ms: int = 10_000) -> dict[str, Any]:
        frame = wire_request(p.Evaluate, tabId=tab_id, expression=expression, timeoutMs=timeout_ms)
        record = self._tab(tab_id)
        limit = frame.timeoutMs or 10_000
        return await self._guarded(self._evaluate(record, frame.expression, limit), limit / 1000 + MARGIN_S)

    async def _evaluate(self, record: TabRecord, expression: str, timeout_ms: int) -> dict[str, Any]:
        session = await self._session(record)
        params = {
            "expression": expression,
            "awaitPromise": True,
            "returnByValue": True,
            "userGesture": True,
            "timeout": timeout_ms,
        }
        started = time.monotonic()
        try:
            answer = await asyncio.wait_for(session.send("Runtime.evaluate", params), timeout_ms / 1000 + 0.05)
        except TimeoutError:
            raise DriverError(p.ErrorCode.TIMEOUT, f"The expression did not finish within {timeout_ms} ms") from None
        except PlaywrightError:
            if (time.monotonic() - started) * 1000 >= timeout_ms:
                raise DriverError(
                    p.ErrorCode.TIMEOUT, f"The expression did not finish within {timeout_ms} ms (stopped)"
                ) from None
            raise
        if answer.get("exceptionDetails"):
            details = answer["exceptionDetails"]
            text = (details.get("exception") or {}).get("description") or details.get("text") or "the expression threw"
            if re.search("Execution was terminated", text, re.I):
                raise DriverError(p.ErrorCode.TIMEOUT, f"The expression did not finish within {timeout_ms} ms")
            raise DriverError(p.ErrorCode.SCRIPT_ERROR, text if len(text) <= 2000 else text[:1999] + "…")
        result = answer["result"]
        value: dict[str, Any] = {"type": result.get("subtype") or result.get("type")}
        if "unserializableValue" in result:
            value["json"] = result["unserializableValue"]
        elif result.get("type") != "undefined" and "value" in result:
            value["json"] = result["value"]
        if "json" in value and len(json.dumps(value["json"])) > MAX_EVALUATE_CHARS:
            raise DriverError(
                p.ErrorCode.SCRIPT_ERROR,
                f"The result is larger than {MAX_EVALUATE_CHARS} characters of JSON: return less",
            )
        return value


def image_result(data: str, fmt: str) -> dict[str, Any]:
    with Image.open(io.BytesIO(base64.b64decode(data))) as image:
        width, height = image.size
    return {"data": data, "mimeType": "image/jpeg" if fmt == "jpeg" else "image/png", "width": width, "height": height}


def _frame_of(request: Request) -> Any:
    try:
        return request.frame
    except PlaywrightError:
        return None  # a service worker's request


async def _first_start(watchers: Sequence[NavigationWatcher | None], seconds: float) -> None:
    live = [w for w in watchers if w is not None]
    waits = [asyncio.ensure_future(w.wait_for_start(seconds)) for w in live]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()


async def _error_page_shown(page: Page) -> None:
    """Chrome commits its error page just after the failure is reported; waiting for it keeps that
    late commit from interrupting the next navigation."""
    with contextlib.suppress(PlaywrightError):
        await page.wait_for_url(lambda url: url.startswith("chrome-error:"), timeout=ERROR_PAGE_WAIT_MS)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:500]
