"""Following a frame's navigations from the host's ``FrameNavigation`` events, and a tab's requests.

A watcher is made before an action (or before a tab exists, for ``open_tab``: it buffers the
events until it learns the tab's id), so a navigation the action starts cannot be missed. It says
whether one started, whether it stayed in the document, and how it ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from tabmcp.drivers.base import DriverError
from tabmcp.drivers.host import MAIN_FRAME, FrameNavigation, RequestEnded, RequestStarted
from tabmcp.drivers.session.limits import ABORT_SETTLE_S, NETWORK_IDLE_S
from tabmcp.policy import NavigationPolicy
from tabmcp.protocol import ErrorCode

NETWORK_POLL_S = 0.05
BLOCKED_BY_CLIENT = "ERR_BLOCKED_BY_CLIENT"


@dataclass
class Outcome:
    kind: str  # complete | error | removed
    error: str = ""
    url: str = ""


# After net::ERR_ABORTED: whether the tab (main frame) is still loading; raises NO_TAB when it is gone.
LoadingCheck = Callable[[int], Awaitable[bool]]


class NavigationWatcher:
    """The navigation state of one frame of one tab since the last ``reset()``.

    ``started``: a navigation began; ``same_document``: it stayed in the document; ``committed``:
    the new document replaced the old one; ``dom_content_loaded``; ``outcome``: None while loading.
    """

    def __init__(self, tab_id: int | None, frame_id: int = MAIN_FRAME, loading: LoadingCheck | None = None) -> None:
        self.tab_id = tab_id
        self.frame_id = frame_id
        self._loading = loading
        self._buffered: list[FrameNavigation] = []
        self._changed = asyncio.Event()
        self.count = 0  # cross-document navigations seen, ever
        self.loaded = False  # a load (or its failure) ended, whether or not its start was seen
        self._tasks: set[asyncio.Task[None]] = set()
        self.reset()

    def reset(self) -> None:
        self.started = False
        self.same_document = False
        self.committed = False
        self.dom_content_loaded = False
        self.outcome: Outcome | None = None
        self._started_count = self.count

    def set_tab(self, tab_id: int) -> None:
        """The tab the watcher was made for is known now: the events it buffered are replayed."""
        self.tab_id = tab_id
        buffered, self._buffered = self._buffered, []
        for event in buffered:
            self.receive(event)

    # ------------------------------------------------------------- fed by the session

    def receive(self, event: FrameNavigation) -> None:
        if self.tab_id is None:
            self._buffered.append(event)
            return
        if event.tab_id != self.tab_id:
            return
        if event.frame_id != self.frame_id and not (event.kind == "removed" and event.frame_id == MAIN_FRAME):
            return
        self._apply(event)
        self._changed.set()
        self._changed = asyncio.Event()

    def _apply(self, event: FrameNavigation) -> None:
        kind = event.kind
        if kind == "start":
            self.count += 1
            self.started, self.same_document, self.committed = True, False, False
            self.dom_content_loaded, self.outcome, self.loaded = False, None, False
        elif kind == "loading":  # may come after an error was recorded
            self.started = True
            if self.outcome is not None and self.outcome.kind == "complete" and not self.same_document:
                self.outcome = None
        elif kind == "commit":
            self.committed = True
        elif kind == "same_document":
            if self.cross_document_pending() or self.outcome is not None:
                return  # the old document's late news, or after the followed navigation ended
            self.started = self.same_document = self.committed = True
            self.outcome = Outcome("complete")
        elif kind in ("dom_content_loaded", "load") and self.count > self._started_count and not self.committed:
            return  # the previous document's late news: a navigation this watcher saw start has not committed
        elif kind == "dom_content_loaded":
            self.dom_content_loaded = True
        elif kind == "load":
            self.loaded = True
            if self.started and self.outcome is None:  # a failed navigation also loads its error page: kept
                self.outcome = Outcome("complete")
        elif kind == "error":
            self.loaded = True
            self.outcome = Outcome("error", event.error or "net::ERR_FAILED", event.url)
        elif kind == "aborted":
            task = asyncio.get_running_loop().create_task(self._settle_abort(self.count))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif kind == "no_document":
            self._settle(self.count)
        elif kind == "removed":
            self.loaded = True
            self.outcome = Outcome("removed")

    async def _settle_abort(self, count: int) -> None:
        """Replaced, or a download or a 204: without a new navigation soon, no document follows."""
        await asyncio.sleep(ABORT_SETTLE_S)
        if count != self.count or self.outcome is not None or self.tab_id is None:
            return
        if self.frame_id == MAIN_FRAME and self._loading is not None:
            try:
                if await self._loading(self.tab_id):
                    return
            except DriverError:
                self.receive(FrameNavigation(self.tab_id, MAIN_FRAME, "removed"))
                return
        self._settle(count)
        self._changed.set()
        self._changed = asyncio.Event()

    def _settle(self, count: int) -> None:
        if count == self.count and not self.committed and self.outcome is None and self.started:
            self.outcome = Outcome("complete")

    def cross_document_pending(self) -> bool:
        return self.count > self._started_count and self.outcome is None

    # ------------------------------------------------------------- waiting

    @property
    def navigations(self) -> int:
        """Cross-document navigations of the frame since ``reset()``: a second one replaced the first."""
        return self.count - self._started_count

    def reached(self, wait_until: str) -> bool:
        if not self.started:
            return False
        if self.outcome is not None:
            return True
        return wait_until == "domcontentloaded" and self.dom_content_loaded

    async def wait(self, predicate: Callable[[], bool], seconds: float) -> bool:
        """True once ``predicate()`` holds, False after ``seconds``."""
        deadline = time.monotonic() + max(0.0, seconds)
        while not predicate():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except TimeoutError:
                return predicate()
        return True

    async def wait_for_start(self, seconds: float) -> bool:
        return await self.wait(lambda: self.started, seconds)

    async def wait_for_outcome(self, seconds: float) -> bool:
        return await self.wait(lambda: self.outcome is not None, seconds)

    def dispose(self) -> None:
        for task in list(self._tasks):
            task.cancel()


async def first_start(watchers: list[NavigationWatcher | None], seconds: float) -> None:
    """Until one of ``watchers`` saw a navigation start, or ``seconds`` passed."""
    live = [w for w in watchers if w is not None]
    if len(live) == 1:
        await live[0].wait_for_start(seconds)
        return
    waits = [asyncio.ensure_future(w.wait_for_start(seconds)) for w in live]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()


async def navigated_meanwhile(watchers: list[NavigationWatcher | None], seconds: float) -> bool:
    """For a call the page agent did not answer: whether one of ``watchers`` saw a navigation start.
    The agent's answer and the navigation's events may travel different connections (CDP's direct
    link), so a start not seen yet gets ``seconds`` to be reported."""
    live = [w for w in watchers if w is not None]
    if not any(w.started for w in live):
        await first_start(live, seconds)
    return any(w.started for w in live)


def navigation_error(outcome: Outcome, fallback_url: str, policy: NavigationPolicy | None) -> DriverError:
    """NAVIGATION_BLOCKED (with the navigation policy's reason) or NAVIGATION_FAILED."""
    url = outcome.url or fallback_url
    if BLOCKED_BY_CLIENT in outcome.error:
        return blocked_error(url, policy)
    return DriverError(ErrorCode.NAVIGATION_FAILED, f"Could not load {url}: {outcome.error}")


def blocked_error(url: str, policy: NavigationPolicy | None) -> DriverError:
    """NAVIGATION_BLOCKED naming the page and the rule (the policy's reason names the page already)."""
    reason = policy_reason(url, policy)
    if reason is None:
        return DriverError(ErrorCode.NAVIGATION_BLOCKED, f"{url} was blocked by tabmcp's navigation policy")
    return DriverError(ErrorCode.NAVIGATION_BLOCKED, reason if url in reason else f"{url} is {reason}")


def policy_reason(url: str, policy: NavigationPolicy | None) -> str | None:
    """Why the navigation policy refuses ``url`` as a page; None when it does not."""
    if policy is None or not url:
        return None
    verdict = policy.check(url)
    return None if verdict.allowed or verdict.code != "NAVIGATION_BLOCKED" else verdict.reason


@dataclass
class Inflight:
    started: float
    kind: str


@dataclass
class Network:
    """A tab's requests in flight (the host does not report websockets: they never finish)."""

    requests: dict[str, Inflight] = field(default_factory=dict)
    last_change: float = 0.0
    _changed: asyncio.Event = field(default_factory=asyncio.Event, init=False, repr=False)

    def receive(self, event: RequestStarted | RequestEnded) -> None:
        if isinstance(event, RequestStarted):
            self.requests[event.request_id] = Inflight(time.monotonic(), event.kind)
        elif self.requests.pop(event.request_id, None) is None:
            return
        self.last_change = time.monotonic()
        self._changed.set()
        self._changed = asyncio.Event()

    async def idle(self, deadline: float) -> bool:
        """True once nothing was in flight for NETWORK_IDLE_S; False at the deadline."""
        while True:
            quiet = time.monotonic() - self.last_change
            if not self.requests and quiet >= NETWORK_IDLE_S:
                return True
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(NETWORK_POLL_S)

    async def fetches_done(self, since: float, seconds: float) -> bool:
        """Until no fetch/XHR started at or after ``since`` is in flight (what a plan asked for): checked
        again as each request ends, not on a timer."""
        deadline = time.monotonic() + seconds
        while any(r.kind in ("xhr", "fetch") and r.started >= since for r in self.requests.values()):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)
        return True
