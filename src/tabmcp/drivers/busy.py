"""Tabs that did not answer: a tab whose navigation or page script ran out of time is remembered, so
the next call on it says at once that the tab is busy instead of waiting out its own timeout again.

A page whose main thread is blocked (a script in a busy loop) cannot answer the page agent, whose
isolated world runs on that same thread; a tab whose server accepted the connection and never
answered has no document to script yet. Both hold every call on the tab until the call's timeout.
The hub (drivers/hub.py) marks such a tab here. A tab still loading is refused until the browser
reports it loaded; before a page call on a tab whose page stopped answering, the hub asks the page
a cheap question with a short bound (``PROBE_S``): an answer clears the mark, no answer is the busy
error below. The core here is pure: the marks, and the words the model reads."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from tabmcp.drivers.base import DriverError
from tabmcp.guard import untrusted
from tabmcp.protocol import ErrorCode

PROBE_S = 1.0  # a page that answers at all answers a selector lookup within this
PROBE_MS = 500  # the probe's own wait for the element (the <html> element is always there)

Kind = Literal["loading", "script"]


class TabBusy(DriverError):
    """A call refused at once (or cut short) because its tab does not answer; code ``TIMEOUT``."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCode.TIMEOUT, message)


@dataclass(frozen=True)
class Mark:
    """Why a tab is taken for busy: ``loading`` (its navigation to ``what``, a URL, got no answer) or
    ``script`` (its page did not answer the call ``what``); ``waited``: the seconds that call waited."""

    kind: Kind
    what: str
    waited: float
    since: float


class BusyTabs:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._marks: dict[int, Mark] = {}

    def mark(self, tab_id: int, kind: Kind, what: str, waited: float) -> None:
        self._marks[tab_id] = Mark(kind, what, waited, self._clock())

    def get(self, tab_id: int) -> Mark | None:
        return self._marks.get(tab_id)

    def loaded(self, tab_id: int) -> None:
        """The tab reported its page loaded: a ``loading`` mark ends (a stuck script's does not)."""
        mark = self._marks.get(tab_id)
        if mark is not None and mark.kind == "loading":
            del self._marks[tab_id]

    def clear(self, tab_id: int) -> None:
        self._marks.pop(tab_id, None)

    def clear_all(self) -> None:
        self._marks.clear()

    def error(self, tab_id: int) -> TabBusy:
        """The busy answer for a marked tab: what it waits for, for how long, and what the model can do."""
        mark = self._marks[tab_id]
        silent = mark.waited + self._clock() - mark.since  # its own wait, and the time since
        return busy_error(tab_id, mark.kind, mark.what, silent)


def busy_error(tab_id: int, kind: Kind, what: str, silent: float) -> TabBusy:
    remedy = f"close it (close_tab {tab_id}), navigate it elsewhere, or wait and try again"
    if kind == "loading":
        url = untrusted.line(what, untrusted.MAX_URL)
        return TabBusy(f"Tab {tab_id} is still loading {url} (not loaded after {silent:.0f} s); {remedy}.")
    return TabBusy(
        f"Tab {tab_id} is busy: its page has not answered for {silent:.0f} s (it did not answer {what}; a "
        f"page script in an endless loop blocks it); {remedy}."
    )
