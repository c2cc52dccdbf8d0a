"""The page session's shared core: the host, the policy, per-tab state (agent, console, dialogs,
requests in flight, the loading hint), the navigation watchers fed by the host's events, and the
``toolsChanged`` messages handed out as ``PageChanged``. The page requests (session.py and the
modules it calls) work on it; it calls none of them."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from tabmcp.drivers.base import DriverError, NoAnswer, PageChanged
from tabmcp.drivers.host import (
    MAIN_FRAME,
    AgentMessage,
    FrameNavigation,
    PageEvent,
    PageHost,
    PopupOpened,
    RequestEnded,
    RequestStarted,
)
from tabmcp.drivers.session.frames import Agent, TabFrames
from tabmcp.drivers.session.limits import (
    CONSOLE_CAPACITY,
    CONSOLE_TEXT_MAX,
    DIALOG_FLUSH_S,
    LOADING_WAIT_S,
    POPUP_SETTLE_S,
    POPUP_WATCH_S,
    RECENT_DIALOGS,
)
from tabmcp.drivers.session.navigation import NavigationWatcher, Network
from tabmcp.policy import NavigationPolicy

log = logging.getLogger(__name__)
CONSOLE_LEVELS = {"debug", "log", "info", "warning", "error", "dialog"}
T = TypeVar("T")
TOOLS_CHANGED_REASONS = ("mutation", "history", "webmcp")
# the main frame's events that say its tab is loading, or has loaded; the others (a same-document
# step, an abort a new navigation may follow) leave the hint as it is, for the host to settle
LOADING = ("start", "loading", "commit", "dom_content_loaded")
LOADED = ("load", "error", "no_document")


@dataclass
class ConsoleBuffer:
    """The tab's console ring buffer (docs/page-agent.md §5), across its navigations."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    next_seq: int = 1

    def add(self, entry: object) -> None:
        if not isinstance(entry, dict):
            return
        level = entry.get("level")
        level = "warning" if level == "warn" else level if level in CONSOLE_LEVELS else "log"
        text = str(entry.get("text", ""))
        if len(text) > CONSOLE_TEXT_MAX:
            text = text[: CONSOLE_TEXT_MAX - 1] + "…"
        stamp = entry.get("time")
        source = entry.get("source")
        self.entries.append(
            {
                "seq": self.next_seq,
                "level": level,
                "text": text,
                "time": stamp if isinstance(stamp, int | float) else int(time.time() * 1000),
                "source": source[:500] if isinstance(source, str) else "",
            }
        )
        self.next_seq += 1
        del self.entries[:-CONSOLE_CAPACITY]

    def read(self, after_seq: int, levels: set[str] | None) -> dict[str, Any]:
        entries = [e for e in self.entries if e["seq"] > after_seq and (levels is None or e["level"] in levels)]
        oldest = self.entries[0]["seq"] if self.entries else self.next_seq
        return {"entries": entries, "lastSeq": self.next_seq - 1, "dropped": max(0, oldest - max(after_seq + 1, 1))}


@dataclass
class TabState:
    """What the session keeps per tab, across its navigations."""

    agent: Agent
    network: Network = field(default_factory=Network)
    console: ConsoleBuffer = field(default_factory=ConsoleBuffer)
    dialogs: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    loading: bool = False  # as the main frame's events say (a hint: the host is asked before waiting)

    def note_dialog(self, dialog: object) -> None:
        if not isinstance(dialog, dict):
            return
        answer = dialog.get("answer")
        kept = {"type": str(dialog.get("type", "")), "message": str(dialog.get("message", "")), "answer": answer}
        self.dialogs = [*self.dialogs, (time.monotonic(), kept)][-RECENT_DIALOGS:]

    def dialogs_since(self, since: float) -> list[dict[str, Any]]:
        return [d for at, d in self.dialogs if at >= since]


@dataclass
class Popup:
    opened: float
    watcher: NavigationWatcher


class SessionCore:
    """What every page request shares: the host, the policy, each tab's state, the navigation
    watchers and the host's events as they arrive."""

    def __init__(
        self,
        host: PageHost,
        policy: NavigationPolicy | None = None,
        on_event: Callable[[object], None] | None = None,
    ) -> None:
        """``policy``: the navigation policy the browser enforces (its reasons name a blocked
        navigation's rule). ``on_event``: gets the driver events the session raises (``PageChanged``)."""
        self.host = host
        self.policy = policy if policy is not None and (policy.allow or policy.block) else None
        self.on_event = on_event or (lambda _event: None)
        self._tabs: dict[int, TabState] = {}
        self._watchers: set[NavigationWatcher] = set()
        self._popups: dict[int, list[Popup]] = {}  # opener tab -> its recent popups
        self._unsubscribe = host.subscribe(self._on_event)

    def close(self) -> None:
        self._unsubscribe()
        for watcher in list(self._watchers):
            watcher.dispose()
        self._watchers.clear()

    # ------------------------------------------------------------- state and events

    def tab(self, tab_id: int) -> TabState:
        state = self._tabs.get(tab_id)
        if state is None:
            state = TabState(Agent(self.host, tab_id, TabFrames()))
            self._tabs[tab_id] = state
        return state

    def watch(self, tab_id: int | None, frame_id: int = MAIN_FRAME) -> NavigationWatcher:
        """A watcher of the frame's navigations from now on (``tab_id`` None: the tab is not known
        yet, the events are buffered until ``set_tab``)."""
        watcher = NavigationWatcher(tab_id, frame_id, self._still_loading)
        self._watchers.add(watcher)
        return watcher

    def unwatch(self, watcher: NavigationWatcher | None) -> None:
        if watcher is not None:
            self._watchers.discard(watcher)
            watcher.dispose()

    async def _still_loading(self, tab_id: int) -> bool:
        return (await self.host.tab_url(tab_id))[2]

    def _on_event(self, event: PageEvent) -> None:
        if isinstance(event, FrameNavigation):
            for watcher in list(self._watchers):
                watcher.receive(event)
            state = self._tabs.get(event.tab_id)
            if event.frame_id != MAIN_FRAME:
                if event.kind == "removed" and state is not None:
                    state.agent.frames.forget(event.frame_id)
            elif event.kind == "removed":
                self._tabs.pop(event.tab_id, None)
                self._popups.pop(event.tab_id, None)
            elif event.kind in LOADING:
                self.tab(event.tab_id).loading = True
            elif state is not None and event.kind in LOADED:
                state.loading = False
        elif isinstance(event, RequestStarted | RequestEnded):
            state = self._tabs.get(event.tab_id)
            if isinstance(event, RequestStarted) or state is not None:
                self.tab(event.tab_id).network.receive(event)
        elif isinstance(event, AgentMessage):
            self._on_agent_message(event)
        elif isinstance(event, PopupOpened):
            self._on_popup(event)

    def _on_agent_message(self, event: AgentMessage) -> None:
        message = event.message
        kind = message.get("type")
        if kind == "console" and isinstance(message.get("entries"), list):
            console = self.tab(event.tab_id).console
            for entry in message["entries"]:
                console.add(entry)
        elif kind == "dialog":
            self.tab(event.tab_id).note_dialog(message.get("dialog"))
        elif kind == "toolsChanged" and event.frame_id == MAIN_FRAME:
            # only the top frame's tools are page tools; the server re-introspects and decides
            reason = message.get("reason") if message.get("reason") in TOOLS_CHANGED_REASONS else "mutation"
            version = message.get("version")
            self.on_event(PageChanged(event.tab_id, str(reason), version[:64] if isinstance(version, str) else ""))

    def _on_popup(self, event: PopupOpened) -> None:
        """A popup's first navigation is watched for a while: the action that opened it answers once it
        loaded or was blocked (briefly), so a blocked popup is reported with that action."""
        watcher = self.watch(event.tab_id)
        popup = Popup(time.monotonic(), watcher)
        self._popups.setdefault(event.opener_id, []).append(popup)

        def done() -> None:
            self.unwatch(watcher)
            left = [q for q in self._popups.get(event.opener_id, []) if q is not popup]
            if left:
                self._popups[event.opener_id] = left
            else:
                self._popups.pop(event.opener_id, None)

        asyncio.get_running_loop().call_later(POPUP_WATCH_S, done)

    async def popups_settled(self, tab_id: int, since: float) -> None:
        """Until each popup the tab's page opened since ``since`` has a document or was blocked (bounded)."""
        opened = [q.watcher for q in self._popups.get(tab_id, []) if q.opened >= since]

        def settled(w: NavigationWatcher) -> bool:
            return w.count > 0 and (w.outcome is not None or w.dom_content_loaded)

        if opened:
            await asyncio.gather(*(w.wait(lambda w=w: settled(w), POPUP_SETTLE_S) for w in opened))

    async def wait_while_loading(self, tab_id: int) -> None:
        """A request on a loading tab waits (at most LOADING_WAIT_S) for its load: the agent then reads
        the page as loaded. NO_TAB for a tab that is gone."""
        state = self._tabs.get(tab_id)
        if state is None or not state.loading:
            return
        watcher = self.watch(tab_id)
        try:
            if (await self.host.tab_url(tab_id))[2]:
                await watcher.wait(lambda: watcher.loaded, LOADING_WAIT_S)
            else:
                state.loading = False
        finally:
            self.unwatch(watcher)

    async def after_load(self, tab_id: int, since: float) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """What a page did as it loaded: the dialogs it showed since ``since`` (as an action reports
        them) and the agent's ``pendingRefresh`` answer (where its meta refresh will go; None when the
        page gave none). One bounded round trip to the page: its answer comes after the agent's
        reports of those dialogs, so they have arrived when it is read."""
        state = self.tab(tab_id)
        refresh: Any = None
        try:
            call = self.host.call_agent(tab_id, [MAIN_FRAME], "pendingRefresh")
            answers = await asyncio.wait_for(call, DIALOG_FLUSH_S)
            refresh = answers.get(MAIN_FRAME)
        except (TimeoutError, DriverError) as exc:  # a busy or navigating page: read what arrived
            log.debug("after the load: %s", exc)
        return state.dialogs_since(since), refresh if isinstance(refresh, dict) else None

    @staticmethod
    async def bounded(work: Awaitable[T], seconds: float) -> T:
        """``work``, or NoAnswer when it outlives ``seconds`` (the page may be stuck)."""
        try:
            async with asyncio.timeout(seconds):  # no task of its own: the hot path stays one task
                return await work
        except TimeoutError:
            raise NoAnswer(f"The browser did not answer within {seconds:g} s") from None

