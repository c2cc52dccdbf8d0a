"""A small in-memory ``PageHost`` for the page session's unit tests: agent calls answered by a script
the test writes, events emitted by the test, and a record of what the session asked."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from tabmcp.drivers.base import DriverError
from tabmcp.drivers.host import FrameInfo, FrameNavigation, Listeners, NavigationKind, PageEvent
from tabmcp.protocol import ErrorCode
from tabmcp.state import Tab

MISSING = object()  # a frame that does not answer (navigating, an error page)
Answer = Callable[[int, int, Any], Any]  # (tab, frame, arg) -> the agent's answer, or MISSING


class FakeHost:
    def __init__(self) -> None:
        self.listeners = Listeners()
        self.tabs: dict[int, list[FrameInfo]] = {}
        self.urls: dict[int, tuple[str, str, bool]] = {}
        self.agent: dict[str, Answer] = {}
        self.calls: list[tuple[int, int, str, Any]] = []
        self.cdp_calls: list[tuple[str, dict[str, Any]]] = []
        self.closed: list[int] = []
        self.next_tab = 1
        # what create_tab does before it answers (emits the new tab's first events, say)
        self.on_create: Callable[[int], None] = lambda _tab: None
        self.on_goto: Callable[[int, str], None] = lambda _tab, _url: None

    # ------------------------------------------------------------- the test's side

    def add_tab(self, url: str = "http://a.test/", frames: Sequence[tuple[int, int | None]] = ()) -> int:
        tab_id = self.next_tab
        self.next_tab += 1
        self.tabs[tab_id] = [FrameInfo(0, None, url), *(FrameInfo(f, parent, url) for f, parent in frames)]
        self.urls[tab_id] = (url, "Title", False)
        return tab_id

    def answer(self, method: str, answer: Answer | Any) -> None:
        self.agent[method] = answer if callable(answer) else (lambda _t, _f, _a, value=answer: value)

    def emit(self, event: PageEvent) -> None:
        self.listeners.emit(event)

    def navigation(self, tab_id: int, kind: NavigationKind, frame_id: int = 0, url: str = "", error: str = "") -> None:
        self.emit(FrameNavigation(tab_id, frame_id, kind, url, error))

    def later(self, seconds: float, *events: tuple[Any, ...]) -> None:
        """``navigation(*args)`` for each of ``events``, ``seconds`` from now."""
        def emit_all() -> None:  # one callback: timers due at the same time may run in any order
            for args in events:
                self.navigation(*args)

        asyncio.get_running_loop().call_later(seconds, emit_all)

    def methods(self) -> list[str]:
        return [method for _, _, method, _ in self.calls]

    # ------------------------------------------------------------- PageHost

    def subscribe(self, listener: Callable[[PageEvent], None]) -> Callable[[], None]:
        return self.listeners.add(listener)

    def _require(self, tab_id: int) -> list[FrameInfo]:
        if tab_id not in self.tabs:
            raise DriverError(ErrorCode.NO_TAB, f"No tab with id {tab_id}")
        return self.tabs[tab_id]

    async def create_tab(self, url: str, focus: bool, group: str | None, workspace: str | None) -> int:
        tab_id = self.add_tab(url)
        self.urls[tab_id] = (url, "New", True)
        self.on_create(tab_id)
        return tab_id

    async def tab_url(self, tab_id: int) -> tuple[str, str, bool]:
        self._require(tab_id)
        return self.urls[tab_id]

    async def tab_info(self, tab_id: int) -> Tab:
        url, title, loading = await self.tab_url(tab_id)
        return Tab(id=tab_id, title=title, url=url, status="loading" if loading else "complete", window_id=1)

    async def close_tab(self, tab_id: int) -> None:
        self._require(tab_id)
        self.closed.append(tab_id)
        del self.tabs[tab_id]

    async def frames(self, tab_id: int) -> list[FrameInfo]:
        return list(self._require(tab_id))

    async def call_agent(
        self, tab_id: int, frame_ids: Sequence[int] | None, method: str, arg: Any = None
    ) -> dict[int, Any]:
        frames = [f.frame_id for f in self._require(tab_id)]
        answers: dict[int, Any] = {}
        for frame in frames if frame_ids is None else [f for f in frame_ids if f in frames]:
            self.calls.append((tab_id, frame, method, arg))
            script = self.agent.get(method)
            value = script(tab_id, frame, arg) if script is not None else {"ok": True}
            if value is not MISSING:
                answers[frame] = value
        return answers

    async def flush_reports(self, tab_id: int, frame_id: int) -> None:
        """As the extension does it: a holdsFocus round trip (a test's script may deliver reports then)."""
        await self.call_agent(tab_id, [frame_id], "holdsFocus")

    async def cdp(self, tab_id: int, method: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        self._require(tab_id)
        self.cdp_calls.append((method, dict(params or {})))
        return {}

    async def capture_viewport(self, tab_id: int, fmt: Literal["png", "jpeg"], quality: int | None) -> str:
        raise DriverError(ErrorCode.INTERNAL, "no screen here")

    async def goto(self, tab_id: int, url: str) -> None:
        self._require(tab_id)
        self.on_goto(tab_id, url)

    async def go(self, tab_id: int, where: Literal["back", "forward", "reload"]) -> None:
        self._require(tab_id)
