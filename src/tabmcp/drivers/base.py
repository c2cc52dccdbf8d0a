"""The Driver interface the runtime and tools use, and the events every driver emits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from tabmcp.page.capture import PageCapture
from tabmcp.protocol import MAX_FIND_MATCHES, ConsoleLevel, ErrorCode, SnapshotMode, Step, WaitUntil
from tabmcp.state import Browser, Tab


class DriverError(Exception):
    """A browser request that failed, whatever the backend: ``code`` is one of protocol.ErrorCode,
    ``message`` is for the model. ``candidates`` (an ambiguous target's matches) when there are some."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.candidates: list[dict[str, object]] | None = None


class NoAnswer(DriverError):
    """A ``TIMEOUT`` because no answer came at all (not the browser's own ``TIMEOUT`` answer, which
    says what it waited for): the tab's page may be stuck (drivers/busy.py)."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCode.TIMEOUT, message)


@dataclass(frozen=True)
class LinkChanged:
    """The backend appeared or went away (extension socket, CDP endpoint).

    ``instance``: which browser linked (the extension's per-browser-session id; empty when the backend
    has none). ``relink``: a lost link the same browser may bring back by itself (a cut-off, a
    restarted service worker), not one its user closed."""

    up: bool
    reason: str = ""
    instance: str = ""
    relink: bool = False


@dataclass(frozen=True)
class OpenedTab:
    """A new tab as ``open_tab`` leaves it, with the dialogs its page showed while it loaded
    (answered by the page hooks; the same shape as an action's ``dialogs``)."""

    tab: Tab
    dialogs: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class UserFocusedTab:
    """The user activated a tab in the browser; the runtime decides whether focus follows."""

    tab_id: int


@dataclass(frozen=True)
class UserSettings:
    """What the user chose in the extension's options (its ``settings`` frame): browser-wide."""

    follow_tab_switches: bool = False


@dataclass(frozen=True)
class PageChanged:
    """A tab's page changed in a way that may change its tools (the agent's ``toolsChanged``)."""

    tab_id: int
    reason: str = "mutation"
    version: str = ""


@dataclass(frozen=True)
class NavigationBlocked:
    """The browser refused a tab's navigation under the navigation policy (docs/security.md);
    ``reason`` says which rule, for the model."""

    tab_id: int
    url: str
    reason: str


class Driver(Protocol):
    @property
    def linked(self) -> bool: ...

    async def wait_linked(self, timeout: float) -> bool: ...

    async def link(self) -> None:
        """Make the link now where the driver can: the CDP driver connects to its endpoint or launches
        its browser (DISCONNECTED when it cannot). The extension's link is made by the browser."""
        ...

    async def next_event(self) -> object:
        """The next state event (``state.TabCreated`` …), ``LinkChanged``, ``UserFocusedTab``, ``PageChanged``,
        ``NavigationBlocked`` or ``UserSettings``."""
        ...

    async def connect(self) -> tuple[Browser, list[Tab]]: ...

    async def open_tab(
        self,
        url: str,
        focus: bool,
        group: str | None = None,
        workspace: str | None = None,
        timeout_ms: int = 15_000,
    ) -> OpenedTab:
        """``group``: the title of the browser tab group to put the tab in (a client's workspace).
        ``workspace``: the client workspace the tab is for; the CDP driver opens it in that
        workspace's own browser context (cookies, storage), the extension has only the user's.
        ``timeout_ms``: how long to wait for the page's load; after it the tab is returned loading."""
        ...

    async def release_workspace(self, workspace: str) -> None:
        """The workspace ended: what the driver kept for it (a browser context) can go."""
        ...

    async def focus_tab(self, tab_id: int) -> Tab: ...

    async def tab_info(self, tab_id: int) -> Tab:
        """The tab as the browser lists it now (its events may still be on their way); NO_TAB when
        it is gone."""
        ...

    async def show_controlled(self, tabs: Sequence[tuple[int, str]]) -> None:
        """Tell the browser which tabs its clients control now (tab id, the client's tab-group title), so
        the user sees it (the extension's popup, its tab group). Best effort; a driver with no UI of its
        own (CDP) does nothing."""
        ...

    async def active_tab(self) -> Tab | None:
        """The tab the user is looking at (the active tab of the last focused window), if any."""
        ...

    async def close_tab(self, tab_id: int) -> None: ...

    async def capture(self, tab_id: int, max_chars: int, if_changed: str | None = None) -> PageCapture | None:
        """The page for introspection; ``None`` when its version is still ``if_changed``."""
        ...

    async def run_steps(self, tab_id: int, tool_name: str, steps: Sequence[Step]) -> dict[str, Any]:
        """The plan's result (docs/protocol.md, Step): ``{steps, page, extracted?, webmcp?, version?}``."""
        ...

    # Page agent (docs/page-agent.md). Each returns the answer's data as on the wire (validated),
    # and raises DriverError with the protocol code (STALE_REF, TIMEOUT, NAVIGATION_FAILED…), also
    # for arguments the wire would refuse (BAD_MESSAGE), so tools handle one error type.

    async def snapshot(
        self, tab_id: int, mode: SnapshotMode = "interactive", root: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """``{url, title, nodes: [{ref, role, name, value, states, depth}], frames}``; with ``root`` (a
        target) only that element's subtree, and the url and title of the frame it is in."""
        ...

    async def find_text(
        self, tab_id: int, text: str, root: Mapping[str, Any] | None = None, limit: int = MAX_FIND_MATCHES
    ) -> dict[str, Any]:
        """The rendered text's matches (of ``root``'s subtree), all frames: ``{url, title, docId, nodes:
        [{ref, role, name (the text around it)}], total}``, the first ``limit`` in page order."""
        ...

    async def act(self, tab_id: int, action: Mapping[str, Any], wait_until: WaitUntil = "load") -> dict[str, Any]:
        """``action``: the Act fields (action, target, text, value, values, key, direction, amount,
        trusted, dialog, promptText, timeoutMs). Returns ``{navigated, url, title, dialogs}``, and the
        page's ``version`` when the action did not navigate and nothing tool-relevant is pending."""
        ...

    async def navigate(
        self,
        tab_id: int,
        url: str | None = None,
        go: Literal["back", "forward", "reload"] | None = None,
        wait_until: WaitUntil = "load",
        timeout_ms: int = 15_000,
    ) -> dict[str, Any]:
        """``{url, title}`` of the page once it reached ``wait_until``."""
        ...

    async def wait_for(self, tab_id: int, condition: Mapping[str, Any], timeout_ms: int = 5_000) -> dict[str, Any]:
        """``condition``: one of ``{text}``, ``{textGone}``, ``{target, state?}``, ``{timeMs}``.
        Returns ``{met: true, elapsedMs}``; not met in time is a TIMEOUT error."""
        ...

    async def screenshot(
        self,
        tab_id: int,
        kind: Literal["viewport", "full", "element"] = "viewport",
        target: Mapping[str, Any] | None = None,
        fmt: Literal["png", "jpeg"] = "png",
        quality: int | None = None,
        marks: bool = False,
    ) -> dict[str, Any]:
        """``{data (base64), mimeType, width, height, clip?, area?, url?, title?, element?, marks?}``; crop
        to ``clip`` when it is set. ``area``: the page CSS px shown; ``element``: the target's ``{ref,
        role, name}``; ``marks`` (asked for): the interactive elements on it, ``{ref, role, name, x, y,
        width, height}`` in image px before the crop (docs/page-agent.md §8)."""
        ...

    async def console(
        self, tab_id: int, after_seq: int = 0, levels: Sequence[ConsoleLevel] | None = None
    ) -> dict[str, Any]:
        """``{entries: [{seq, level, text, time, source}], lastSeq, dropped}``: entries after ``after_seq``."""
        ...

    async def evaluate(self, tab_id: int, expression: str, timeout_ms: int = 10_000) -> dict[str, Any]:
        """``{type, json?}`` (``json`` absent for undefined); a throw is a SCRIPT_ERROR error."""
        ...
