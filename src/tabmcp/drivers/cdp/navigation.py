"""Following a frame's navigations from Playwright's events, as the extension does from webNavigation.

A watcher is created before an action, so a navigation the action starts cannot be missed; it
says whether one started, whether it stayed in the document, and how it ended. Also the requests
in flight per tab, for ``networkidle`` and for the fetches a page-tool plan started.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from dataclasses import dataclass, field

from playwright.async_api import Frame, Page, Request

from tabmcp.drivers.base import DriverError
from tabmcp.protocol import ErrorCode

NETWORK_IDLE_S = 0.5
POLL_S = 0.05
ABORT_SETTLE_S = 0.15
NO_COMMIT_S = 0.2  # a navigation request that finished without a new document (204, a download)


@dataclass
class Outcome:
    kind: str  # complete | error | removed
    error: str = ""
    url: str = ""


class NavigationWatcher:
    """The navigation state of one frame since the last ``reset()``."""

    def __init__(self, page: Page, frame: Frame) -> None:
        self.page = page
        self.frame = frame
        self._changed = asyncio.Event()
        self._count = 0
        self._loading: asyncio.Task[None] | None = None
        self.reset()

    def reset(self) -> None:
        self.started = False
        self.same_document = False
        self.committed = False
        self.dom_content_loaded = False
        self.outcome: Outcome | None = None
        self._started_count = self._count

    def _poke(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    # ------------------------------------------------------------- fed by the driver

    def request(self, request: Request) -> None:
        """A navigation request of this frame: a new cross-document navigation (or its redirect)."""
        if request.redirected_from is None:
            self._count += 1
            self.started, self.same_document, self.committed = True, False, False
            self.dom_content_loaded, self.outcome = False, None
        self._poke()

    def failed(self, request: Request) -> None:
        failure = request.failure or "net::ERR_FAILED"
        if "ERR_ABORTED" in failure:
            asyncio.get_running_loop().call_later(ABORT_SETTLE_S, self._settle_abort, self._count)
            return
        self.outcome = Outcome("error", failure, request.url)
        self._poke()

    def finished(self, request: Request) -> None:
        asyncio.get_running_loop().call_later(NO_COMMIT_S, self._settle_abort, self._count)

    def _settle_abort(self, count: int) -> None:
        """Replaced, a download or a 204: no document follows, so the navigation is over."""
        if count == self._count and not self.committed and self.outcome is None and self.started:
            self.outcome = Outcome("complete")
            self._poke()

    def navigated(self) -> None:
        """``framenavigated``: the commit of a pending cross-document navigation, or a same-document one."""
        if self._count > self._started_count and self.outcome is None:  # a cross-document one is pending
            if not self.committed:
                self.committed = True
                self._loading = asyncio.get_running_loop().create_task(self._follow_load(self._count))
        else:  # history API, a fragment, or a document that needed no request (bfcache, about:blank)
            self.started = self.same_document = self.committed = True
            self.outcome = Outcome("complete")
        self._poke()

    async def _follow_load(self, count: int) -> None:
        for state, mark in (("domcontentloaded", "dom_content_loaded"), ("load", "")):
            try:
                await self.frame.wait_for_load_state(state)  # type: ignore[arg-type]
            except Exception:
                return  # the frame or page went away: ``removed`` or another navigation says so
            if count != self._count:
                return
            if mark:
                self.dom_content_loaded = True
            elif self.outcome is None:
                self.outcome = Outcome("complete")
            self._poke()

    def removed(self) -> None:
        self.outcome = Outcome("removed")
        self._poke()

    # ------------------------------------------------------------- waiting

    def reached(self, wait_until: str) -> bool:
        if not self.started:
            return False
        if self.outcome is not None:
            return True
        return wait_until == "domcontentloaded" and self.dom_content_loaded

    async def wait(self, predicate: object, seconds: float) -> bool:
        deadline = time.monotonic() + max(0.0, seconds)
        check = predicate  # a zero-argument callable
        while not check():  # type: ignore[operator]
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except TimeoutError:
                return bool(check())  # type: ignore[operator]
        return True

    @property
    def navigations(self) -> int:
        """Cross-document navigations of the frame since ``reset()``: a second one replaced the first."""
        return self._count - self._started_count

    async def wait_for_start(self, seconds: float) -> bool:
        return await self.wait(lambda: self.started, seconds)

    async def wait_for_outcome(self, seconds: float) -> bool:
        return await self.wait(lambda: self.outcome is not None, seconds)


def navigation_error(outcome: Outcome, fallback_url: str) -> DriverError:
    url = outcome.url or fallback_url
    if "ERR_BLOCKED_BY_CLIENT" in outcome.error:
        return DriverError(ErrorCode.NAVIGATION_BLOCKED, f"{url} was blocked by tabmcp's navigation policy")
    return DriverError(ErrorCode.NAVIGATION_FAILED, f"Could not load {url}: {outcome.error}")


@dataclass
class Inflight:
    started: float
    kind: str


@dataclass
class Network:
    """A tab's requests in flight (websockets never finish, so they are not counted).

    Held weakly: a request Playwright has let go of (its object cap, docs/decisions.md) never reports
    its end to this object, so it leaves with Playwright's object instead of staying in flight forever.
    """

    requests: weakref.WeakKeyDictionary[Request, Inflight] = field(default_factory=weakref.WeakKeyDictionary)
    last_change: float = 0.0

    def began(self, request: Request) -> None:
        self.requests[request] = Inflight(time.monotonic(), request.resource_type)
        self.last_change = time.monotonic()

    def ended(self, request: Request) -> None:
        if self.requests.pop(request, None) is not None:
            self.last_change = time.monotonic()

    async def idle(self, deadline: float) -> bool:
        """True once nothing was in flight for NETWORK_IDLE_S; False at the deadline."""
        while True:
            quiet = time.monotonic() - self.last_change
            if not self.requests and quiet >= NETWORK_IDLE_S:
                return True
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(POLL_S)

    async def fetches_done(self, since: float, seconds: float) -> bool:
        """Until no fetch/XHR started at or after ``since`` is in flight (what a plan asked for)."""
        deadline = time.monotonic() + seconds
        while True:
            busy = any(r.kind in ("xhr", "fetch") and r.started >= since for r in list(self.requests.values()))
            if not busy:
                return True
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(POLL_S)
