"""The browser state machine: states, events, transitions. Pure: no I/O, no asyncio.

Everything the client sees in ``tools/list`` is a function of ``BrowserState``. ``step`` applies
one event and says whether that visible list changed, which is the only reason
``notifications/tools/list_changed`` is ever sent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType
from typing import NamedTuple, Protocol, TypeVar

from tabmcp.introspect.api import Face, PageTool


class Mode(StrEnum):
    """The rows of the availability table (docs/architecture.md)."""

    DISCONNECTED = "disconnected"
    CONNECTED_NO_TABS = "connected (no tabs)"
    CONNECTED_TABS = "connected (tabs, none focused)"
    FOCUSED = "focused"


CONNECTED_MODES = frozenset({Mode.CONNECTED_NO_TABS, Mode.CONNECTED_TABS, Mode.FOCUSED})


@dataclass(frozen=True)
class Tab:
    id: int
    title: str = ""
    url: str = ""
    status: str = "loading"
    window_id: int = -1
    opener_id: int | None = None  # the tab whose page opened this one (a popup), if any
    # Page tools from the last introspection of this tab; None until it has been introspected.
    tools: tuple[PageTool, ...] | None = None


@dataclass(frozen=True)
class Browser:
    name: str = "Chromium"
    version: str = ""


@dataclass(frozen=True)
class BrowserState:
    connected: bool = False
    browser: Browser | None = None
    tabs: Mapping[int, Tab] = field(default_factory=lambda: MappingProxyType({}))
    focused_tab_id: int | None = None

    @property
    def mode(self) -> Mode:
        if not self.connected:
            return Mode.DISCONNECTED
        if self.focused_tab_id is not None:
            return Mode.FOCUSED
        return Mode.CONNECTED_TABS if self.tabs else Mode.CONNECTED_NO_TABS

    @property
    def focused_tab(self) -> Tab | None:
        return self.tabs.get(self.focused_tab_id) if self.focused_tab_id is not None else None

    @property
    def page_tools(self) -> tuple[PageTool, ...]:
        tab = self.focused_tab
        return (tab.tools or ()) if tab else ()


# ----------------------------------------------------------------- events


@dataclass(frozen=True)
class ExtensionConnected:
    """The browser answered ``connect``: we now know its tabs."""

    browser: Browser
    tabs: tuple[Tab, ...] = ()


@dataclass(frozen=True)
class ExtensionDisconnected:
    pass


@dataclass(frozen=True)
class TabCreated:
    tab: Tab


@dataclass(frozen=True)
class TabUpdated:
    tab: Tab


@dataclass(frozen=True)
class TabClosed:
    tab_id: int


@dataclass(frozen=True)
class TabCrashed:
    tab_id: int


@dataclass(frozen=True)
class TabFocused:
    """Focus moves to a tab, carrying its freshly introspected tools (one change, one notification)."""

    tab_id: int
    tools: tuple[PageTool, ...] = ()


@dataclass(frozen=True)
class FocusReleased:
    """No tab is focused any more; the tabs stay open (``ai_disconnect``: the client lets go of its tab)."""


@dataclass(frozen=True)
class PageToolsChanged:
    tab_id: int
    tools: tuple[PageTool, ...]


Event = (
    ExtensionConnected
    | ExtensionDisconnected
    | TabCreated
    | TabUpdated
    | TabClosed
    | TabCrashed
    | TabFocused
    | FocusReleased
    | PageToolsChanged
)


# ----------------------------------------------------------------- availability


class Declared(Protocol):
    """What the state machine needs from a core tool: its name and where it lives."""

    @property
    def name(self) -> str: ...

    @property
    def available_in(self) -> frozenset[Mode]: ...


T = TypeVar("T", bound=Declared)


def visible_core_tools(state: BrowserState, catalog: Iterable[T]) -> list[T]:
    mode = state.mode
    return [tool for tool in catalog if mode in tool.available_in]


class ListedTool(NamedTuple):
    """A page tool as the client sees it listed: its name and how it looks."""

    name: str
    face: Face


# core tool names, and each page tool as listed
Signature = tuple[tuple[str, ...], tuple[ListedTool, ...]]


def visible_signature(state: BrowserState, catalog: Iterable[Declared]) -> Signature:
    """What the client can observe of the list: names of core tools, and page tools in full."""
    core = tuple(t.name for t in visible_core_tools(state, catalog))
    page = tuple(ListedTool(t.name, t.face()) for t in state.page_tools)
    return core, page


# ----------------------------------------------------------------- transitions


@dataclass(frozen=True)
class Transition:
    state: BrowserState
    list_changed: bool


def _with_tabs(state: BrowserState, tabs: dict[int, Tab], **changes: object) -> BrowserState:
    return replace(state, tabs=MappingProxyType(tabs), **changes)


def _merge(old: Tab | None, new: Tab) -> Tab:
    """A tab report from the browser never knows our introspection results: keep them."""
    return new if old is None or new.tools is not None else replace(new, tools=old.tools)


def apply(state: BrowserState, event: Event) -> BrowserState:
    """The next state. Events that make no sense in the current state leave it unchanged."""
    match event:
        case ExtensionConnected(browser=browser, tabs=tabs):
            return BrowserState(
                connected=True, browser=browser, tabs=MappingProxyType({t.id: t for t in tabs})
            )
        case ExtensionDisconnected():
            return BrowserState()
    if not state.connected:
        return state  # tab news from a browser we are not connected to is not ours to track
    tabs = dict(state.tabs)
    match event:
        case TabCreated(tab=tab) if tab.id in tabs:
            # open_tab's reply describes the tab as it was when the extension answered; the browser's
            # own events for it may have been applied already (it finished loading meanwhile) and
            # are newer: a stale "loading" would keep the tab from being introspected for good
            return state
        case TabCreated(tab=tab) | TabUpdated(tab=tab):
            tabs[tab.id] = _merge(tabs.get(tab.id), tab)
            return _with_tabs(state, tabs)
        case TabClosed(tab_id=tab_id) | TabCrashed(tab_id=tab_id):
            if tab_id not in tabs:
                return state
            del tabs[tab_id]
            focused = None if state.focused_tab_id == tab_id else state.focused_tab_id
            return _with_tabs(state, tabs, focused_tab_id=focused)
        case TabFocused(tab_id=tab_id, tools=tools):
            if tab_id not in tabs:
                return state
            tabs[tab_id] = replace(tabs[tab_id], tools=tools)
            return _with_tabs(state, tabs, focused_tab_id=tab_id)
        case FocusReleased():
            return replace(state, focused_tab_id=None)
        case PageToolsChanged(tab_id=tab_id, tools=tools):
            if tab_id not in tabs:
                return state
            tabs[tab_id] = replace(tabs[tab_id], tools=tools)
            return _with_tabs(state, tabs)
    raise TypeError(f"not a state event: {event!r}")


def step(state: BrowserState, event: Event, catalog: Iterable[Declared]) -> Transition:
    catalog = tuple(catalog)
    after = apply(state, event)
    if state.page_tools is after.page_tools:  # the same tools (most events): compare the core names only
        names = [t.name for t in visible_core_tools(state, catalog)]
        return Transition(after, names != [t.name for t in visible_core_tools(after, catalog)])
    changed = visible_signature(state, catalog) != visible_signature(after, catalog)
    return Transition(after, changed)
