"""One browser, several workspaces: who owns which tab, and each workspace's view of the browser.

Over HTTP several clients share one browser. Each client's workspace gets a ``DriverView``: a
Driver that sees only the tabs the workspace may see (its own, and others' as ``share_tabs``
allows) and refuses to touch any other tab, so a client cannot act on another client's tab by
guessing its id. The ``DriverHub`` reads the real driver's events once and routes each to the
views that may see its tab. Over stdio there is one view that sees everything.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal, TypeVar

from tabmcp import state as s
from tabmcp.drivers.base import Driver, DriverError, LinkChanged, NoAnswer, OpenedTab, UserSettings
from tabmcp.drivers.busy import PROBE_MS, PROBE_S, BusyTabs
from tabmcp.page.capture import PageCapture
from tabmcp.protocol import MAX_FIND_MATCHES, ConsoleLevel, ErrorCode, SnapshotMode, Step, WaitUntil

log = logging.getLogger(__name__)
Share = Literal["own", "user", "all"]
DEFAULT_GROUP = "tabmcp"  # the tab group of a client with no name of its own (stdio)
T = TypeVar("T")
LIVENESS_PROBE = {"target": {"css": "html"}, "state": "attached"}  # one selector lookup by the page agent


def event_tab_id(event: object) -> int | None:
    """The tab an event is about, or None for browser-wide events (the link going up or down)."""
    tab = getattr(event, "tab", None)
    if isinstance(tab, s.Tab):
        return tab.id
    tab_id = getattr(event, "tab_id", None)
    return tab_id if isinstance(tab_id, int) else None


class TabOwners:
    """Which workspace opened which tab. Pure bookkeeping; tabs nobody claimed are the user's."""

    def __init__(self) -> None:
        self._owner: dict[int, str] = {}

    def owner(self, tab_id: int) -> str | None:
        return self._owner.get(tab_id)

    def claim(self, tab_id: int, workspace: str) -> None:
        self._owner[tab_id] = workspace

    def forget(self, tab_id: int) -> None:
        self._owner.pop(tab_id, None)

    def keep_only(self, tab_ids: set[int]) -> None:
        """Forget tabs the browser no longer has (closed while the link was down)."""
        for tab_id in set(self._owner) - tab_ids:
            del self._owner[tab_id]

    def owned_by(self, workspace: str) -> list[int]:
        return sorted(t for t, owner in self._owner.items() if owner == workspace)

    def visible(self, tab_id: int, workspace: str, share: Share) -> bool:
        if share == "all":
            return True
        owner = self._owner.get(tab_id)
        return owner == workspace or (share == "user" and owner is None)


class DriverHub:
    """Owns the real driver's event stream and the tab ownership; hands out one view per workspace."""

    def __init__(self, driver: Driver) -> None:
        self.driver = driver
        self.owners = TabOwners()
        self.busy = BusyTabs()  # tabs whose navigation or page did not answer (drivers/busy.py)
        self._views: dict[str, DriverView] = {}
        self._latest: dict[int, s.Tab] = {}  # the newest report of every tab, to brief a new owner
        self._controlled: dict[str, tuple[int, str]] = {}  # workspace -> (its focused tab, its group title)
        self._user_settings: UserSettings | None = None  # the linked extension's, for views made later
        self._link_up: LinkChanged | None = None  # which browser is linked, for views made later

    def view(self, workspace: str, share: Share, group: str | None = None, label: str | None = None) -> DriverView:
        """``group``: the tab group (and, on CDP, the browser context) of a workspace in a shared browser;
        ``label``: the tab-group title its tabs get otherwise (default ``tabmcp``)."""
        view = DriverView(self, workspace, share, group, label or group or DEFAULT_GROUP)
        self._views[workspace] = view
        if self._link_up is not None:
            view.deliver(self._link_up)
        if self._user_settings is not None:
            view.deliver(self._user_settings)
        return view

    def drop_view(self, workspace: str) -> None:
        self._views.pop(workspace, None)

    async def run(self) -> None:
        """Route the driver's events forever (a background task)."""
        while True:
            event = await self.driver.next_event()
            try:
                self.route(event)
            except Exception:
                log.exception("routing %r failed; the hub goes on", event)

    async def controls(self, workspace: str, tab_id: int | None, label: str) -> None:
        """``workspace`` now controls ``tab_id`` (None: no tab): the browser is told every workspace's
        controlled tab, so its popup shows them all. Best effort: the browser may be gone."""
        if tab_id is None:
            if self._controlled.pop(workspace, None) is None:
                return
        else:
            if self._controlled.get(workspace) == (tab_id, label):
                return
            self._controlled[workspace] = (tab_id, label)
        try:
            await self.driver.show_controlled(sorted(set(self._controlled.values())))
        except DriverError as exc:
            log.info("could not tell the browser which tabs are controlled: %s", exc.message)

    def route(self, event: object) -> None:
        if isinstance(event, LinkChanged):
            self._link_up = event if event.up else None
        if isinstance(event, LinkChanged) and not event.up:
            self._latest.clear()
            self.busy.clear_all()
            self._user_settings = None
        if isinstance(event, UserSettings):
            self._user_settings = event
        tab_id = event_tab_id(event)
        if tab_id is None:
            for view in list(self._views.values()):
                view.deliver(event)
            return
        if isinstance(event, s.TabCreated | s.TabUpdated):
            self._latest[tab_id] = event.tab
            if event.tab.status == "complete":
                self.busy.loaded(tab_id)
            opener = event.tab.opener_id
            owner = self.owners.owner(opener) if opener is not None else None
            if owner is not None and self.owners.owner(tab_id) is None:
                self.owners.claim(tab_id, owner)  # a popup belongs to whoever owns the page that opened it
        for view in list(self._views.values()):
            if view.may_see(tab_id) or (isinstance(event, s.TabClosed | s.TabCrashed) and tab_id in view.known):
                view.deliver(event)
        if isinstance(event, s.TabClosed | s.TabCrashed):
            self.owners.forget(tab_id)
            self._latest.pop(tab_id, None)
            self.busy.clear(tab_id)

    def reported_loaded(self, tab_id: int) -> bool:
        latest = self._latest.get(tab_id)
        return latest is not None and latest.status == "complete"

    async def ready(self, tab_id: int) -> None:
        """Before a call that needs the page: a tab still loading is refused at once (its load ends
        that); a tab whose page did not answer is asked a cheap question with a short bound: an
        answer clears the mark, silence is the busy error at once (not the call's timeout)."""
        mark = self.busy.get(tab_id)
        if mark is None:
            return
        if mark.kind == "loading":
            # the document the navigation would replace may still answer a probe: the load ends this
            raise self.busy.error(tab_id)
        try:
            await asyncio.wait_for(self.driver.wait_for(tab_id, LIVENESS_PROBE, PROBE_MS), PROBE_S)
        except TimeoutError:
            raise self.busy.error(tab_id) from None
        except DriverError as exc:  # answered (not scriptable, gone…): the call itself will say what
            log.debug("tab %s answered the liveness probe with %s", tab_id, exc.code)
        self.busy.clear(tab_id)

    async def page_call(self, tab_id: int, what: str, call: Callable[..., Awaitable[T]], *args: Any) -> T:
        """``call(tab_id, *args)`` needs the tab's page to answer: refused at once while the tab is busy,
        and a call that got no answer at all marks the tab busy (its page script is stuck) and says so."""
        await self.ready(tab_id)
        started = time.monotonic()
        try:
            return await call(tab_id, *args)
        except NoAnswer:
            self.busy.mark(tab_id, "script", what, time.monotonic() - started)
            raise self.busy.error(tab_id) from None

    def claim(self, tab_id: int, workspace: str) -> None:
        """``workspace`` opened ``tab_id``: views that saw it as a user tab lose it, the owner is briefed."""
        self.owners.claim(tab_id, workspace)
        for view in list(self._views.values()):
            if view.workspace != workspace and tab_id in view.known and not view.may_see(tab_id):
                view.deliver(s.TabClosed(tab_id))
        latest = self._latest.get(tab_id)
        owner = self._views.get(workspace)
        if latest is not None and owner is not None:
            owner.deliver(s.TabUpdated(latest))  # events that arrived before the claim was known


class DriverView:
    """The Driver one workspace uses: the hub's driver, limited to the tabs this workspace may see."""

    def __init__(self, hub: DriverHub, workspace: str, share: Share, group: str | None, label: str) -> None:
        self.hub = hub
        self.workspace = workspace
        self.share = share
        self.group = group
        self.label = label  # the title of the tab group its tabs go in
        self.known: set[int] = set()  # tabs this view has been told about
        self._events: asyncio.Queue[object] = asyncio.Queue()

    # ------------------------------------------------------------- visibility

    def may_see(self, tab_id: int) -> bool:
        return self.hub.owners.visible(tab_id, self.workspace, self.share)

    def deliver(self, event: object) -> None:
        tab_id = event_tab_id(event)
        if tab_id is not None:
            if isinstance(event, s.TabClosed | s.TabCrashed):
                self.known.discard(tab_id)
            else:
                self.known.add(tab_id)
        elif isinstance(event, LinkChanged) and not event.up:
            self.known.clear()
        self._events.put_nowait(event)

    def _check(self, tab_id: int) -> int:
        if not self.may_see(tab_id):
            # the same answer as for a tab that does not exist: another client's tabs are not even named
            raise DriverError(ErrorCode.NO_TAB, f"No tab with id {tab_id}")
        return tab_id

    # ------------------------------------------------------------- Driver

    @property
    def linked(self) -> bool:
        return self.hub.driver.linked

    async def wait_linked(self, timeout: float) -> bool:
        return await self.hub.driver.wait_linked(timeout)

    async def link(self) -> None:
        await self.hub.driver.link()

    async def next_event(self) -> object:
        return await self._events.get()

    async def connect(self) -> tuple[s.Browser, list[s.Tab]]:
        browser, tabs = await self.hub.driver.connect()
        self.hub.owners.keep_only({t.id for t in tabs})  # ownership survives a relink, not a vanished tab
        visible = [t for t in tabs if self.may_see(t.id)]
        self.known = {t.id for t in visible}
        return browser, visible

    async def open_tab(
        self,
        url: str,
        focus: bool,
        group: str | None = None,
        workspace: str | None = None,
        timeout_ms: int = 15_000,
    ) -> OpenedTab:
        # a shared browser (several clients) gives each workspace its own context where the driver can
        isolated = self.workspace if self.group is not None else None
        started = time.monotonic()
        opened = await self.hub.driver.open_tab(
            url, focus, group=group or self.label, workspace=workspace or isolated, timeout_ms=timeout_ms
        )
        tab = opened.tab
        self.hub.claim(tab.id, self.workspace)
        self.known.add(tab.id)
        waited = time.monotonic() - started
        # the driver's wait ran out (a loaded page is answered at once, its status may still lag), and
        # no report of the load came in meanwhile: page calls are refused until the load is reported
        if tab.status == "loading" and waited >= timeout_ms / 1000 and not self.hub.reported_loaded(tab.id):
            self.hub.busy.mark(tab.id, "loading", url, waited)
        return opened

    async def release_workspace(self, workspace: str) -> None:
        await self.hub.driver.release_workspace(self.workspace)

    async def focus_tab(self, tab_id: int) -> s.Tab:
        return await self.hub.driver.focus_tab(self._check(tab_id))

    async def tab_info(self, tab_id: int) -> s.Tab:
        return await self.hub.driver.tab_info(self._check(tab_id))

    async def controls(self, tab_id: int | None) -> None:
        """This workspace's focused tab is now ``tab_id`` (None: none). A workspace says only what it
        controls itself; the hub tells the browser about every workspace's (``DriverHub.controls``)."""
        await self.hub.controls(self.workspace, tab_id, self.label)

    async def active_tab(self) -> s.Tab | None:
        """The browser's active tab if this workspace may see it; another client's tab is not named."""
        tab = await self.hub.driver.active_tab()
        if tab is not None and not self.may_see(tab.id):
            raise DriverError(
                ErrorCode.NO_TAB, "The tab the browser shows is not one this client may use (another client's tab)"
            )
        return tab

    async def close_tab(self, tab_id: int) -> None:
        await self.hub.driver.close_tab(self._check(tab_id))

    async def capture(self, tab_id: int, max_chars: int, if_changed: str | None = None) -> PageCapture | None:
        read = self.hub.driver.capture
        return await self.hub.page_call(self._check(tab_id), "a read of the page", read, max_chars, if_changed)

    async def run_steps(self, tab_id: int, tool_name: str, steps: Sequence[Step]) -> dict[str, Any]:
        run = self.hub.driver.run_steps
        return await self.hub.page_call(self._check(tab_id), f"the page tool {tool_name}", run, tool_name, steps)

    async def snapshot(
        self, tab_id: int, mode: SnapshotMode = "interactive", root: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        region = () if root is None else (root,)  # a whole-page snapshot is asked as drivers always took it
        return await self.hub.page_call(self._check(tab_id), "a snapshot", self.hub.driver.snapshot, mode, *region)

    async def find_text(
        self, tab_id: int, text: str, root: Mapping[str, Any] | None = None, limit: int = MAX_FIND_MATCHES
    ) -> dict[str, Any]:
        find = self.hub.driver.find_text
        return await self.hub.page_call(self._check(tab_id), "a text search", find, text, root, limit)

    async def act(self, tab_id: int, action: Mapping[str, Any], wait_until: WaitUntil = "load") -> dict[str, Any]:
        what = f"a {action.get('action', 'page')} action"
        return await self.hub.page_call(self._check(tab_id), what, self.hub.driver.act, action, wait_until)

    async def navigate(
        self,
        tab_id: int,
        url: str | None = None,
        go: Literal["back", "forward", "reload"] | None = None,
        wait_until: WaitUntil = "load",
        timeout_ms: int = 15_000,
    ) -> dict[str, Any]:
        self._check(tab_id)
        self.hub.busy.clear(tab_id)  # a new navigation replaces the one that got no answer
        try:
            return await self.hub.driver.navigate(tab_id, url, go, wait_until, timeout_ms)
        except DriverError as exc:
            # the page did not load in time (a network that will not go idle is no sign of that)
            if exc.code == ErrorCode.TIMEOUT and wait_until != "networkidle":
                self.hub.busy.mark(tab_id, "loading", url or f"the {go} page", timeout_ms / 1000)
            raise

    async def wait_for(self, tab_id: int, condition: Mapping[str, Any], timeout_ms: int = 5_000) -> dict[str, Any]:
        return await self.hub.page_call(self._check(tab_id), "a wait", self.hub.driver.wait_for, condition, timeout_ms)

    async def screenshot(
        self,
        tab_id: int,
        kind: Literal["viewport", "full", "element"] = "viewport",
        target: Mapping[str, Any] | None = None,
        fmt: Literal["png", "jpeg"] = "png",
        quality: int | None = None,
        marks: bool = False,
    ) -> dict[str, Any]:
        shoot = self.hub.driver.screenshot
        return await self.hub.page_call(self._check(tab_id), "a screenshot", shoot, kind, target, fmt, quality, marks)

    async def console(
        self, tab_id: int, after_seq: int = 0, levels: Sequence[ConsoleLevel] | None = None
    ) -> dict[str, Any]:
        return await self.hub.driver.console(self._check(tab_id), after_seq, levels)

    async def evaluate(self, tab_id: int, expression: str, timeout_ms: int = 10_000) -> dict[str, Any]:
        run = self.hub.driver.evaluate
        return await self.hub.page_call(self._check(tab_id), "an evaluate", run, expression, timeout_ms)
