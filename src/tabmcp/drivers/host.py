"""The primitives a browser backend gives the page session (drivers/session/): a ``PageHost``.

The page session — frames and refs, snapshot splicing, targets across frames, actions and what
follows them, navigation waits, trusted input, plans, console and dialogs — is written once, over
this interface. Two hosts implement it: the extension (over the bridge, ``drivers/extension/``) and
CDP (Playwright's connection, ``drivers/cdp/``). A host does no orchestration: each method is one
thing the browser does, and its events say what the browser saw, in the order it saw it.

Frames are ints per tab: 0 is the main frame, the others are the host's own ids (the extension's
``frameId``; the CDP host numbers Playwright's frames). Errors are ``DriverError`` with a protocol
code: ``NO_TAB`` (the tab is gone), ``NOT_SCRIPTABLE`` (the frame cannot be scripted now; with
``frame_gone`` set when the frame itself went away), ``DISCONNECTED`` (the link is gone).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from tabmcp.drivers.base import DriverError
from tabmcp.protocol import ErrorCode
from tabmcp.state import Tab

MAIN_FRAME = 0

NavigationKind = Literal[
    "start",  # a new cross-document navigation of the frame began (not a redirect of the current one)
    "loading",  # the tab says it is loading (the extension's tabs.onUpdated); may follow an error
    "commit",  # the new document replaced the old one
    "same_document",  # a fragment, pushState or same-document history step: done at once
    "dom_content_loaded",
    "load",  # the document's load event (a failed navigation also ends here, with its error page)
    "error",  # the navigation failed: ``error`` is the net::ERR_… text, ``url`` what failed
    "aborted",  # net::ERR_ABORTED: replaced, or turned into a download / a 204
    "no_document",  # the navigation's request finished but no document followed (CDP's 204, download)
    "removed",  # the frame (or, for the main frame, the tab) went away
]


@dataclass(frozen=True)
class FrameInfo:
    """One frame of a tab as the host knows it now."""

    frame_id: int
    parent_id: int | None  # None for the main frame
    url: str = ""


@dataclass(frozen=True)
class FrameNavigation:
    tab_id: int
    frame_id: int
    kind: NavigationKind
    url: str = ""
    error: str = ""


@dataclass(frozen=True)
class RequestStarted:
    """A request of the tab's pages (websockets are not reported: they never finish)."""

    tab_id: int
    request_id: str
    kind: str  # "document", "xhr", "fetch", "script", "image", … (fetch and XHR are both "xhr" on the extension)


@dataclass(frozen=True)
class RequestEnded:
    tab_id: int
    request_id: str


@dataclass(frozen=True)
class AgentMessage:
    """What a page agent posted: ``{type: "console", entries}``, ``{type: "dialog", dialog}``,
    ``{type: "toolsChanged", reason, version}``."""

    tab_id: int
    frame_id: int
    message: Mapping[str, Any]


@dataclass(frozen=True)
class PopupOpened:
    """A tab's page opened another tab (``window.open``, a link with a target)."""

    tab_id: int
    opener_id: int


PageEvent = FrameNavigation | RequestStarted | RequestEnded | AgentMessage | PopupOpened


class FrameGone(DriverError):
    """The frame went away (navigated, removed) while it was asked: a ref into it is stale."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCode.NOT_SCRIPTABLE, message)


@dataclass
class Listeners:
    """The session's listeners of a host's events, called in order and at once when the event
    arrives (before any answer that came after it): a watcher made before an action sees every
    event the action causes."""

    listeners: list[Callable[[PageEvent], None]] = field(default_factory=list)

    def add(self, listener: Callable[[PageEvent], None]) -> Callable[[], None]:
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener) if listener in self.listeners else None

    def emit(self, event: PageEvent) -> None:
        for listener in list(self.listeners):
            listener(event)


class PageHost(Protocol):
    """What the page session needs of a browser backend."""

    def subscribe(self, listener: Callable[[PageEvent], None]) -> Callable[[], None]:
        """``listener`` gets every page event from now on; the returned function stops it."""
        ...

    # ------------------------------------------------------------- tabs

    async def create_tab(self, url: str, focus: bool, group: str | None, workspace: str | None) -> int:
        """A new tab that starts loading ``url``; its id. The navigation's events may arrive before
        this returns (a watcher for the new tab takes them: ``tab_id`` unknown until then)."""
        ...

    async def tab_url(self, tab_id: int) -> tuple[str, str, bool]:
        """(url, title, loading) of the tab now; NO_TAB when it is gone."""
        ...

    async def tab_info(self, tab_id: int) -> Tab:
        """The tab as the browser lists it now (the state's ``Tab``: id, title, url, status, window,
        opener); NO_TAB when it is gone. What ``open_tab`` answers with."""
        ...

    async def close_tab(self, tab_id: int) -> None: ...

    # ------------------------------------------------------------- frames and the page agent

    async def frames(self, tab_id: int) -> list[FrameInfo]:
        """The tab's frames now, the main frame first."""
        ...

    async def call_agent(
        self, tab_id: int, frame_ids: Sequence[int] | None, method: str, arg: Any = None
    ) -> dict[int, Any]:
        """``agent[method](arg)`` in each of ``frame_ids`` (every frame when None), the agent injected
        where it is missing. Answers as the agent gave them (``{ok: false…}`` and ``{__error}`` included);
        a frame that could not answer (navigating, an error page) is left out. NO_TAB raised. An answer
        comes after the reports (console, dialogs) its frame sent before answering have reached the
        listeners."""
        ...

    async def flush_reports(self, tab_id: int, frame_id: int) -> None:
        """One round trip to the frame's agent on the way its reports (console, dialogs) travel: what
        the page reported before this call has reached the listeners when it returns. NO_TAB raised;
        a frame that cannot answer (navigating) is let be."""
        ...

    # ------------------------------------------------------------- protocol commands

    async def cdp(self, tab_id: int, method: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """A Chrome DevTools Protocol command on the tab's page (trusted input, screenshots beyond the
        viewport, evaluate, history). The extension attaches its debugger for it (and detaches when idle)."""
        ...

    async def capture_viewport(self, tab_id: int, fmt: Literal["png", "jpeg"], quality: int | None) -> str:
        """The visible part of the tab's page as base64 image data."""
        ...

    # ------------------------------------------------------------- navigation

    async def goto(self, tab_id: int, url: str) -> None:
        """Start loading ``url`` in the tab; returns once it started (its events follow). A navigation
        the browser refuses at once raises (NAVIGATION_FAILED / NAVIGATION_BLOCKED / INVALID_URL)."""
        ...

    async def go(self, tab_id: int, where: Literal["back", "forward", "reload"]) -> None:
        """One history step, or a reload; NAVIGATION_FAILED when there is no such entry."""
        ...
