"""The Driver's page requests as both drivers answer them: handed to the driver's ``PageSession``.

One set of signatures for every driver (drivers/base.py says what each answers). A driver wraps each
request in ``page_call`` where it must (the CDP driver races it against the loss of its link; the
extension's bridge fails its pending calls by itself).
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, Literal, TypeVar

from tabmcp import protocol as p
from tabmcp.drivers.base import OpenedTab
from tabmcp.drivers.session.limits import OPEN_TAB_TIMEOUT_MS
from tabmcp.drivers.session.session import PageSession
from tabmcp.page.capture import PageCapture

T = TypeVar("T")


class PageRequests:
    session: PageSession

    async def page_call(self, work: Awaitable[T]) -> T:
        return await work

    async def open_tab(
        self,
        url: str,
        focus: bool,
        group: str | None = None,
        workspace: str | None = None,
        timeout_ms: int = OPEN_TAB_TIMEOUT_MS,
    ) -> OpenedTab:
        return await self.page_call(self.session.open_tab(url, focus, group, workspace, timeout_ms))

    async def capture(self, tab_id: int, max_chars: int, if_changed: str | None = None) -> PageCapture | None:
        return await self.page_call(self.session.capture(tab_id, max_chars, if_changed))

    async def snapshot(
        self, tab_id: int, mode: p.SnapshotMode = "interactive", root: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        return await self.page_call(self.session.snapshot(tab_id, mode, root))

    async def find_text(
        self, tab_id: int, text: str, root: Mapping[str, Any] | None = None, limit: int = p.MAX_FIND_MATCHES
    ) -> dict[str, Any]:
        return await self.page_call(self.session.find_text(tab_id, text, root, limit))

    async def run_steps(self, tab_id: int, tool_name: str, steps: Sequence[p.Step]) -> dict[str, Any]:
        return await self.page_call(self.session.run_steps(tab_id, tool_name, steps))

    async def act(self, tab_id: int, action: Mapping[str, Any], wait_until: p.WaitUntil = "load") -> dict[str, Any]:
        return await self.page_call(self.session.act(tab_id, action, wait_until))

    async def navigate(
        self,
        tab_id: int,
        url: str | None = None,
        go: Literal["back", "forward", "reload"] | None = None,
        wait_until: p.WaitUntil = "load",
        timeout_ms: int = 15_000,
    ) -> dict[str, Any]:
        return await self.page_call(self.session.navigate(tab_id, url, go, wait_until, timeout_ms))

    async def wait_for(self, tab_id: int, condition: Mapping[str, Any], timeout_ms: int = 5_000) -> dict[str, Any]:
        return await self.page_call(self.session.wait_for(tab_id, condition, timeout_ms))

    async def screenshot(
        self,
        tab_id: int,
        kind: Literal["viewport", "full", "element"] = "viewport",
        target: Mapping[str, Any] | None = None,
        fmt: Literal["png", "jpeg"] = "png",
        quality: int | None = None,
        marks: bool = False,
    ) -> dict[str, Any]:
        return await self.page_call(self.session.screenshot(tab_id, kind, target, fmt, quality, marks))

    async def console(
        self, tab_id: int, after_seq: int = 0, levels: Sequence[p.ConsoleLevel] | None = None
    ) -> dict[str, Any]:
        return await self.page_call(self.session.console(tab_id, after_seq, levels))

    async def evaluate(self, tab_id: int, expression: str, timeout_ms: int = 10_000) -> dict[str, Any]:
        return await self.page_call(self.session.evaluate(tab_id, expression, timeout_ms))
