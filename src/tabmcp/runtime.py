"""The runtime: holds the current BrowserState, feeds it events, and re-introspects pages.

Every state change, whether it comes from a tool call or from the browser, goes through
``dispatch``; ``dispatch`` calls the one ``notify`` function exactly when the visible tool list
changed. This is the seam between the pure core (``state``, introspectors) and the I/O edges.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

from tabmcp import state as s
from tabmcp import trace
from tabmcp.config import Settings
from tabmcp.drivers.base import (
    Driver,
    DriverError,
    LinkChanged,
    NavigationBlocked,
    PageChanged,
    UserFocusedTab,
    UserSettings,
)
from tabmcp.drivers.busy import TabBusy
from tabmcp.guard.origins import ScreenshotOrigins
from tabmcp.introspect.api import Face, PageTool
from tabmcp.introspect.continuity import keep_known_names
from tabmcp.introspect.list_memory import ListMemory
from tabmcp.introspect.registry import Registry
from tabmcp.notices import ClientView
from tabmcp.page.snapshot import SnapshotStore
from tabmcp.policy import NavigationPolicy, PolicyWatch, Verdict
from tabmcp.progress import NO_PROGRESS, Progress
from tabmcp.protocol import ErrorCode
from tabmcp.record import NullRecorder, Recorder
from tabmcp.relink import HeldLink, Relinks

log = logging.getLogger(__name__)
Notify = Callable[[], Awaitable[None]]
NotifyResources = Callable[[frozenset[str]], Awaitable[None]]
OnFocus = Callable[[int | None], Awaitable[None]]
TABS_URI = "tabs://list"
STOP_TIMEOUT_MS = 5_000  # sending a tab to about:blank
PAGE_URI = "dom://current-page"


@dataclass
class TabReads:
    """Read once per document version, for one tab: each load it starts (a ``TabUpdated`` that is not
    complete, or a new URL) counts one; a capture begun after the tab's latest load started, that read
    it at the URL it then finished loading at, makes that load's own refresh needless (its later
    changes are the agent's toolsChanged, with their versions)."""

    loads: int = 0
    read: tuple[int, str] | None = None  # (load count, URL) of its latest capture
    begun: int = 0  # captures begun
    done: int = 0  # the number (of ``begun``) of its latest capture done


def tabs_signature(state: s.BrowserState) -> tuple[object, ...]:
    """What ``tabs://list`` shows: a change here means subscribers should re-read it."""
    tabs = tuple(
        (t.id, t.title, t.url, t.status, None if t.tools is None else len(t.tools)) for t in state.tabs.values()
    )
    return tabs, state.focused_tab_id


def page_signature(state: s.BrowserState) -> tuple[object, ...]:
    """What ``dom://current-page`` depends on that the state machine can see: which page is focused,
    and its load state. Changes inside the page (an action) are reported by the tools themselves."""
    tab = state.focused_tab
    return (None,) if tab is None else (tab.id, tab.url, tab.status)


class Runtime:
    def __init__(
        self,
        settings: Settings,
        driver: Driver,
        registry: Registry,
        catalog: Sequence[s.Declared],
        notify: Notify,
        recorder: Recorder | None = None,
        notify_resources: NotifyResources | None = None,
        on_focus: OnFocus | None = None,
    ) -> None:
        """``on_focus``: told the focused tab (None: none) whenever it changes, so the browser can show
        which tab is under control (``DriverView.controls``)."""
        self.recorder = recorder or NullRecorder()
        self.settings = settings
        self.driver = driver
        self.registry = registry
        self.catalog = tuple(catalog)
        self.notify = notify
        self.notify_resources = notify_resources
        self.on_focus = on_focus
        # the extension's "Follow my tab switches" option (its settings frame); either it or the
        # server's follow_user_tab_switches setting makes focus follow the user
        self.user_follows_tab_switches = False
        self.snapshots = SnapshotStore()
        self.console_read: dict[int, int] = {}  # tab -> last console sequence number returned
        self.state = s.BrowserState()
        self.client_view = ClientView()  # the tool list the client last read: notices carry news only
        self.list_memory = ListMemory()  # a list page with no rows keeps the tools it has with rows
        self._stale_resources: set[str] = set()
        self._background: set[asyncio.Task[None]] = set()
        self._batches = 0
        self._batch_start: s.Signature | None = None
        self._versions: dict[int, str] = {}  # tab -> capture version its tools were made from
        self._reads: dict[int, TabReads] = {}
        self._refreshing: dict[int, asyncio.Task[None]] = {}
        self._refresh_again: set[int] = set()
        # tab -> its reads begun when a refresh was deferred: a read begun after the request answers it
        self._deferred_refresh: dict[int, int] = {}
        self._stale_tools: set[int] = set()  # unfocused tabs whose page changed since their tools were made
        # The navigation policy (docs/security.md): tools check URLs with it, and what the browser
        # blocked or the runtime stopped becomes a note in the next tool result (take_policy_notes).
        self.policy = NavigationPolicy.from_settings(settings)
        self.policy_watch = PolicyWatch(self.policy)
        self.screenshot_origins = ScreenshotOrigins.from_settings(settings)  # the same pattern syntax
        # a link that drops may come back by itself: the state is held meanwhile, and restored then
        self.relinks = Relinks()
        self._grace: asyncio.Task[None] | None = None

    async def dispatch(self, event: s.Event) -> s.Transition:
        before = self.state
        transition = s.step(before, event, self.catalog)
        self.state = transition.state
        log.debug("%s -> %s (list changed: %s)", type(event).__name__, self.state.mode, transition.list_changed)
        for tab_id in set(before.tabs) - set(self.state.tabs):
            self.snapshots.forget(tab_id)
            self.console_read.pop(tab_id, None)
            self._versions.pop(tab_id, None)
            self._reads.pop(tab_id, None)
            self._stale_tools.discard(tab_id)
            self.policy_watch.forget(tab_id)
            self.list_memory.forget(tab_id)
        if tabs_signature(before) != tabs_signature(self.state):
            self._stale_resources.add(TABS_URI)
        if page_signature(before) != page_signature(self.state):
            self._stale_resources.add(PAGE_URI)
        if before.focused_tab_id != self.state.focused_tab_id:
            await self._focus_moved(self.state.focused_tab_id)
        if not self._batches:
            if transition.list_changed:
                await self._notify()
            await self._flush_resources()
        return transition

    async def _focus_moved(self, tab_id: int | None) -> None:
        if self.on_focus is None:
            return
        try:
            await self.on_focus(tab_id)
        except Exception:  # showing the focus in the browser is a display aid: it never fails a transition
            log.exception("telling the browser the focused tab (%s) failed", tab_id)

    async def page_changed(self) -> None:
        """An action may have changed the focused page: ``dom://current-page`` subscribers re-read."""
        self._stale_resources.add(PAGE_URI)
        if not self._batches:
            await self._flush_resources()

    async def _flush_resources(self) -> None:
        stale, self._stale_resources = frozenset(self._stale_resources), set()
        if stale and self.notify_resources is not None:
            await self.notify_resources(stale)

    @asynccontextmanager
    async def batch(self) -> AsyncIterator[None]:
        """Hold notifications while a tool call runs; send one at the end if the list differs
        from what it was at the start (``open_tab(focus=true)`` creates *and* focuses a tab, and
        the client should hear about it once)."""
        if not self._batches:
            self._batch_start = s.visible_signature(self.state, self.catalog)
        self._batches += 1
        try:
            yield
        finally:
            self._batches -= 1
            if not self._batches:
                if s.visible_signature(self.state, self.catalog) != self._batch_start:
                    await self._notify()
                await self._flush_resources()
                deferred, self._deferred_refresh = self._deferred_refresh, {}
                for tab_id, begun in sorted(deferred.items()):
                    if tab_id in self.state.tabs and self._reads.get(tab_id, TabReads()).done <= begun:
                        self.refresh_in_background(tab_id)  # not read since (a tab the call closed is gone)

    async def _notify(self) -> None:
        now = s.visible_signature(self.state, self.catalog)
        if not self.client_view.wants_notice(now):
            log.debug("list changed, no notice: the client's list has every tool as it is, or a notice is unread")
            return
        self.client_view.notified()
        with trace.phase("notify"):
            await self.notify()
        self.recorder.write("notify", tools=self.visible_tool_names())

    def listed(self) -> None:
        """The client read the tool list (dynamic mode): later notices are weighed against it."""
        self.client_view.listed(s.visible_signature(self.state, self.catalog))

    def visible_tool_names(self) -> list[str]:
        core = [t.name for t in s.visible_core_tools(self.state, self.catalog)]
        return core + [t.name for t in self.state.page_tools]

    # ------------------------------------------------------------- introspection

    async def introspect(self, tab_id: int, progress: Progress = NO_PROGRESS) -> tuple[PageTool, ...] | None:
        """The page tools for a tab, or ``None`` when the page is still the version its current tools
        came from (the agent answers that without serialising anything). A page that cannot be
        scripted simply has no tools. ``progress``: the caller's client hears of the capture and the
        introspection (a big page takes a while)."""
        tab = self.state.tabs.get(tab_id)
        if tab is not None and tab.url and not self.policy.check(tab.url).allowed:
            log.info("tab %s not introspected: the navigation policy refuses %s", tab_id, tab.url)
            self._versions.pop(tab_id, None)
            return ()  # a page the policy refuses is not read, not even for its tool names
        known = self._versions.get(tab_id) if tab is not None and tab.tools is not None else None
        stale = tab_id in self._stale_tools
        self._stale_tools.discard(tab_id)  # read from now on: a change during the capture marks it again
        reads = self._reads_of(tab_id)
        load = reads.loads
        reads.begun += 1
        number = reads.begun
        await progress.step("reading the page")
        try:
            with trace.phase("capture") as span:
                capture = await self.driver.capture(tab_id, self.settings.capture_max_chars, if_changed=known)
                span.note(chars=0 if capture is None else len(capture.html), unchanged=capture is None)
        except DriverError as exc:
            # a busy tab (drivers/busy.py) is the caller's to report, not a page with no tools
            if exc.code in (ErrorCode.NOT_SCRIPTABLE, ErrorCode.TIMEOUT) and not isinstance(exc, TabBusy):
                log.info("tab %s not introspected: %s", tab_id, exc.message)
                self._versions.pop(tab_id, None)
                return ()
            if stale:
                self._stale_tools.add(tab_id)  # not read: the next list_tabs tries again
            raise
        reads.done = max(number, reads.done)
        if capture is None:
            log.debug("tab %s unchanged since version %s", tab_id, known)
            self._read_at(reads, load, None)
            return None
        log.debug("tab %s captured: version %s, %d characters", tab_id, capture.version, len(capture.html))
        self._read_at(reads, load, capture.url)
        if capture.url and not self.policy.check(capture.url).allowed:
            self._versions.pop(tab_id, None)
            return ()  # it went there while being read
        reserved = {t.name for t in self.catalog}
        await progress.step(f"finding the page's tools ({len(capture.html):,} characters of page)")
        with trace.phase("introspection") as span:
            tools = self.registry.page_tools(capture, reserved=reserved, limit=self.settings.max_page_tools)
            tools = self.list_memory.keep(tab_id, capture, tools)
            tools = keep_known_names(tools, self._known_names(tab_id), reserved=reserved, held=self._held(tab_id))
            span.note(tools=len(tools))
        await progress.step(f"{len(tools)} page tools found")
        if capture.version:
            self._versions[tab_id] = capture.version
        else:
            self._versions.pop(tab_id, None)
        return tools

    def _known_names(self, tab_id: int) -> dict[Face, str]:
        """The names the tab's tools were listed by (the client's last read, for the focused tab, over
        the tab's last tools): a tool that looks the same keeps its name (continuity.py)."""
        tab = self.state.tabs.get(tab_id)
        known = {t.face(): t.name for t in (tab.tools or ())} if tab is not None else {}
        read = self.client_view.read
        if read is not None and tab_id == self.state.focused_tab_id:
            known.update({tuple(t[1:]): str(t[0]) for t in read[1]})
        return known

    def _held(self, tab_id: int) -> dict[str, Face]:
        """The focused tab's tools as the client last read them (name → face): a name it holds keeps
        its meaning (continuity.py)."""
        read = self.client_view.read
        if read is None or tab_id != self.state.focused_tab_id:
            return {}
        return {t.name: t.face for t in read[1]}

    def _reads_of(self, tab_id: int) -> TabReads:
        return self._reads.setdefault(tab_id, TabReads())

    @staticmethod
    def _read_at(reads: TabReads, load: int, url: str | None) -> None:
        """A capture begun at load count ``load`` answered (``url`` None: the version was unchanged, the
        URL is the one read before)."""
        if reads.loads != load:
            return  # a load started while it ran: what it read may be the page that was leaving
        if url is None:
            if reads.read is None:
                return
            url = reads.read[1]
        reads.read = (load, url)

    def _load_started(self, before: s.Tab | None, after: s.Tab) -> None:
        if after.status != "complete" or before is None or before.url != after.url:
            self._reads_of(after.id).loads += 1

    def read_since_load(self, tab: s.Tab) -> bool:
        """Whether the tab's page, as it finished loading, has been read already (by the call that
        loaded it): its load needs no refresh of its own."""
        reads = self._reads.get(tab.id)
        return reads is not None and reads.read == (reads.loads, tab.url)

    async def focus(self, tab_id: int, progress: Progress = NO_PROGRESS) -> s.Transition:
        """Focus a tab with its page tools. A tab that does not answer is focused with none, and its
        ``TabBusy`` is raised for the caller to report (the next call on it fails fast as well)."""
        try:
            tools = await self.introspect(tab_id, progress)
        except TabBusy:
            await self.dispatch(s.TabFocused(tab_id, ()))
            raise
        if tools is None:
            tab = self.state.tabs.get(tab_id)
            tools = tab.tools if tab is not None and tab.tools is not None else ()
        return await self.dispatch(s.TabFocused(tab_id, tools))

    def tools_current(self, tab_id: int, version: str | None) -> bool:
        """Whether the tab's listed tools were made from page version ``version`` (an answer read it from
        the page just now), so that reading the page again could only confirm them."""
        tab = self.state.tabs.get(tab_id)
        return (
            bool(version)
            and tab is not None
            and tab.tools is not None
            and tab_id not in self._stale_tools
            and tab_id not in self._refreshing
            and self._versions.get(tab_id) == version
        )

    async def refresh_page_tools(self, tab_id: int) -> None:
        """Re-introspect a tab and publish its tools. Requests for a tab coalesce: while one runs,
        later ones make it run once more when it ends (a burst of page changes costs two captures at
        most), and every caller returns when tools at least as new as its request are published."""
        running = self._refreshing.get(tab_id)
        if running is not None and not running.done():
            self._refresh_again.add(tab_id)
        else:
            running = asyncio.get_running_loop().create_task(self._refresh_loop(tab_id))
            self._refreshing[tab_id] = running
        await asyncio.shield(running)

    async def _refresh_loop(self, tab_id: int) -> None:
        try:
            while True:
                self._refresh_again.discard(tab_id)
                try:
                    tools = await self.introspect(tab_id)
                except DriverError as exc:
                    log.info("re-introspecting tab %s failed: %s", tab_id, exc.message)
                    tools = None
                if tools is not None and tab_id in self.state.tabs:
                    await self.dispatch(s.PageToolsChanged(tab_id, tools))
                if tab_id not in self._refresh_again:
                    return
        finally:
            self._refreshing.pop(tab_id, None)

    def stop_background_work(self) -> None:
        """Cancel refreshes and other work this runtime started (its workspace is closing: the
        work would act on tabs that are being closed, for a client that is gone)."""
        self._end_grace()
        for task in [*self._background, *self._refreshing.values()]:
            task.cancel()

    def refresh_in_background(self, tab_id: int) -> None:
        """Re-introspect a tab without holding up the caller (browser events). While a tool call is
        running the request waits for its end: the call refreshes the page it acts on itself."""
        if self._batches:
            self._deferred_refresh.setdefault(tab_id, self._reads.get(tab_id, TabReads()).begun)
            return
        self._spawn(self._refresh_quietly(tab_id))

    async def _refresh_quietly(self, tab_id: int) -> None:
        try:
            await self.refresh_page_tools(tab_id)
        except Exception:
            log.exception("background introspection of tab %s failed", tab_id)

    def page_may_have_changed(self, tab_id: int) -> None:
        """A tab's page changed (loaded, mutated, WebMCP). The focused tab is re-introspected now, in
        the background; another tab only when someone asks for its tools (``settle_tool_counts``):
        the user's other tabs cost nothing until then."""
        if tab_id not in self.state.tabs:
            return
        if tab_id == self.state.focused_tab_id:
            self.refresh_in_background(tab_id)
        else:
            self._stale_tools.add(tab_id)

    async def settle_tool_counts(self, deadline_s: float = 5.0) -> None:
        """Introspect the loaded tabs whose tools are unknown or stale, so ``toolCount`` is true for
        unfocused tabs too. Unchanged pages cost one round trip (the capture's version check); what is
        not done by the deadline keeps its last count (``null`` when never introspected)."""
        loop = asyncio.get_running_loop()
        until = loop.time() + deadline_s
        for tab_id, tab in sorted(self.state.tabs.items()):
            if loop.time() > until:
                break
            if tab.status == "complete" and (tab.tools is None or tab_id in self._stale_tools):
                try:  # the refresh goes on after a timeout (it is shielded) and publishes when done
                    await asyncio.wait_for(self.refresh_page_tools(tab_id), max(0.1, until - loop.time()))
                except TimeoutError:
                    log.info("tool count of tab %s not settled in time", tab_id)

    def _spawn(self, work: Awaitable[None]) -> None:
        # not part of the tool call that may have started it: none of its traced phases
        task = asyncio.get_running_loop().create_task(work, context=trace.untraced())  # type: ignore[arg-type]
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # ------------------------------------------------------------- browser events

    async def run_events(self) -> None:
        """Consume the driver's events forever, in order (run as a background task)."""
        while True:
            event = await self.driver.next_event()
            try:
                await self._on_event(event)
            except Exception:
                log.exception("handling %r failed; the server goes on", event)

    async def _on_event(self, event: object) -> None:
        match event:
            case LinkChanged(up=False, reason=reason, relink=relink):
                log.info("browser link lost: %s", reason)
                self.user_follows_tab_switches = False  # the next link says again what its user chose
                self._end_grace()
                if self.relinks.lost(self.state, relink):
                    self._grace = asyncio.get_running_loop().create_task(self._disconnect_after_grace())
                else:
                    await self.dispatch(s.ExtensionDisconnected())
            case LinkChanged(up=True, instance=instance):
                self._end_grace()
                holding = self.relinks.held is not None
                held = self.relinks.linked(instance)
                if held is not None:
                    await self._restore(held)
                elif holding:  # another browser took the place of the one held
                    await self.dispatch(s.ExtensionDisconnected())
                elif not self.state.connected:
                    log.info("browser extension linked; waiting for connect_browser")
            case UserSettings(follow_tab_switches=follow):
                log.info("the extension's user %s tab switches", "follows" if follow else "does not follow")
                self.user_follows_tab_switches = follow
            case UserFocusedTab(tab_id=tab_id):
                state = self.state
                follow = self.settings.follow_user_tab_switches or self.user_follows_tab_switches
                if follow and tab_id in state.tabs and tab_id != state.focused_tab_id:
                    with contextlib.suppress(TabBusy):  # focused all the same; its next call says it is busy
                        await self.focus(tab_id)
            case s.TabUpdated(tab=tab):
                before = self.state.tabs.get(tab.id)
                self._load_started(before, tab)
                await self.dispatch(event)
                if _finished_loading(before, tab) and not self.read_since_load(tab):
                    self.page_may_have_changed(tab.id)
                self._enforce_policy(tab)
            case NavigationBlocked(tab_id=tab_id, url=url, reason=reason):
                tab = self.state.tabs.get(tab_id)
                focused = self.state.focused_tab_id
                popup_of = tab.opener_id if tab is not None and tab.opener_id == focused else None
                concerns_model = focused is not None and (tab_id == focused or popup_of is not None)
                self.policy_watch.blocked(tab_id, url, reason, concerns_model=concerns_model, popup_of=popup_of)
            case PageChanged(tab_id=tab_id, version=version):
                if not version or version != self._versions.get(tab_id):  # a version already read is free
                    self.page_may_have_changed(tab_id)
            case s.TabCreated() | s.TabClosed() | s.TabCrashed():
                await self.dispatch(event)
            case _:
                log.warning("ignoring unexpected driver event %r", event)

    # ------------------------------------------------------------- relinks

    def _end_grace(self) -> None:
        if self._grace is not None:
            self._grace.cancel()
            self._grace = None

    async def _disconnect_after_grace(self) -> None:
        """The browser did not come back in time: the client sees it disconnected (one notice)."""
        await asyncio.sleep(self.settings.relink_grace)
        self._grace = None
        self.relinks.held = None
        log.info("the browser did not relink within %g s: disconnected", self.settings.relink_grace)
        await self.dispatch(s.ExtensionDisconnected())

    async def _restore(self, held: HeldLink) -> None:
        """The same browser relinked: connected again, with the tab that was focused (unless it closed),
        and one notice at most (none when nothing changed). A focused tab that went to a page the
        policy refuses meanwhile is sent to about:blank, as it would have been while linked."""
        log.info("the browser relinked: restoring the connection and focus (tab %s)", held.focused_tab_id)
        async with self.batch():
            try:
                browser, tabs = await self.driver.connect()
            except DriverError as exc:
                log.warning("the relinked browser did not answer connect: %s", exc.message)
                await self.dispatch(s.ExtensionDisconnected())
                return
            await self.dispatch(s.ExtensionConnected(browser, tuple(tabs)))
            tab = self.state.tabs.get(held.focused_tab_id) if held.focused_tab_id is not None else None
            if tab is None:
                return
            try:
                await self.focus(tab.id)  # a refused page is not read (introspect): no page tools
            except DriverError as exc:
                log.warning("tab %s could not be focused again after the relink: %s", tab.id, exc.message)
                return
            now = self.state.tabs.get(tab.id)  # where the tab is after the focus, not before it
            if now is not None:
                self._enforce_policy(now)

    # ------------------------------------------------------------- navigation policy

    def _enforce_policy(self, tab: s.Tab) -> None:
        """The focused tab finished loading a page the policy refuses that the browser did not block
        itself (served by a service worker or the back/forward cache, a browser page): send it away."""
        if tab.id != self.state.focused_tab_id:
            return
        verdict = self.policy_watch.should_stop(tab.id, tab.url, tab.status)
        if verdict is not None:
            self._spawn(self.stop_tab(tab.id, tab.url, verdict))

    async def stop_tab(self, tab_id: int, url: str, verdict: Verdict, *, by_tool: bool = False) -> None:
        """Send a tab showing a page the policy refuses to about:blank. A stop the runtime decides on
        leaves a note for the next tool result; a tool's own stop (``by_tool``) reports it itself. The
        runtime's own stop runs a moment after it was decided: a tab that has gone on meanwhile to a
        page the policy allows (the user or the page took it there) is left where it is."""
        if not by_tool and await self._moved_on(tab_id, url):
            return
        if not self.policy_watch.claim_stop(tab_id, url, verdict, by_tool=by_tool):
            return
        log.warning("tab %s is at %s, which the navigation policy refuses: sending it to about:blank", tab_id, url)
        try:
            await self.driver.navigate(tab_id, url="about:blank", timeout_ms=STOP_TIMEOUT_MS)
        except DriverError as exc:
            log.warning("tab %s could not be sent to about:blank: %s", tab_id, exc.message)

    async def _moved_on(self, tab_id: int, url: str) -> bool:
        """Whether the tab has left the refused ``url`` for a page the policy allows, or closed. Asked of
        the browser, not of the state: the tab's events may still be on their way."""
        try:
            now = await self.driver.tab_info(tab_id)
        except DriverError as exc:
            log.info("tab %s not sent away from %s: %s", tab_id, url, exc.message)
            return True
        if now.url != url and self.policy.check(now.url).allowed:
            log.info("tab %s left %s for %s before it was sent away: left there", tab_id, url, now.url)
            return True
        return False

    def take_policy_notes(self) -> list[str]:
        """What the navigation policy did since the last tool result (each note is given once)."""
        return self.policy_watch.take()

    def policy_mark(self) -> int:
        """Where the navigation policy's notes stand: a page-changing call takes it as it begins."""
        return self.policy_watch.mark()

    def take_stop(self, tab_id: int, since: int) -> str | None:
        """Why the runtime sent ``tab_id`` to about:blank since ``policy_mark()`` gave ``since``, for
        the tool navigating it to report as its own failure (no note is left); None when it did not."""
        return self.policy_watch.take_stop(tab_id, since)

    def blocked_reported(self, tab_id: int) -> None:
        """A tool is reporting a navigation the browser blocked in this tab: no separate note for it."""
        self.policy_watch.reported(tab_id)


def _finished_loading(before: s.Tab | None, after: s.Tab) -> bool:
    if after.status != "complete":
        return False
    return before is None or before.status != "complete" or before.url != after.url
