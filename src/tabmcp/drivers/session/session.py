"""The page session: the Driver's page requests over a ``PageHost``, written once for every backend.

``PageSession(host, policy, on_event)`` answers open_tab, capture, snapshot, act, navigate, wait_for,
screenshot, console, evaluate and run_steps as the Driver interface says (drivers/base.py), each
within its time limit, by the modules that do the work (tabs, observe, actions, waits, plans) over
the shared ``SessionCore`` (core.py), which follows the host's events.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from tabmcp import protocol as p
from tabmcp import trace
from tabmcp.drivers.base import OpenedTab
from tabmcp.drivers.session import actions, observe, plans, tabs, waits
from tabmcp.drivers.session.core import SessionCore
from tabmcp.drivers.session.limits import (
    DEFAULT_ACT_TIMEOUT_MS,
    MARGIN_S,
    NAVIGATION_TIMEOUT_S,
    REQUEST_TIMEOUT_S,
    SCREENSHOT_TIMEOUT_S,
    plan_timeout,
    wire_request,
)
from tabmcp.page.capture import PageCapture

log = logging.getLogger(__name__)


class PageSession(SessionCore):
    # ------------------------------------------------------------- the Driver's page requests

    async def open_tab(
        self,
        url: str,
        focus: bool,
        group: str | None = None,
        workspace: str | None = None,
        timeout_ms: int = 15_000,
    ) -> OpenedTab:
        work = tabs.open_tab(self, url, focus, group, workspace, timeout_ms)
        with trace.phase("navigation"):
            return await self.bounded(work, timeout_ms / 1000 + MARGIN_S)

    async def capture(self, tab_id: int, max_chars: int, if_changed: str | None = None) -> PageCapture | None:
        return await self.bounded(observe.capture(self, tab_id, max_chars, if_changed), REQUEST_TIMEOUT_S)

    async def snapshot(
        self, tab_id: int, mode: p.SnapshotMode = "interactive", root: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        wire_request(p.Snapshot, tabId=tab_id, mode=mode, root=root)
        return await self.bounded(observe.snapshot(self, tab_id, mode, dict(root) if root else None), REQUEST_TIMEOUT_S)

    async def find_text(
        self, tab_id: int, text: str, root: Mapping[str, Any] | None = None, limit: int = p.MAX_FIND_MATCHES
    ) -> dict[str, Any]:
        frame = wire_request(p.FindText, tabId=tab_id, text=text, root=root, limit=limit)
        work = observe.find_text(self, tab_id, frame.text, dict(root) if root else None, frame.limit)
        return await self.bounded(work, REQUEST_TIMEOUT_S)

    async def act(self, tab_id: int, action: Mapping[str, Any], wait_until: p.WaitUntil = "load") -> dict[str, Any]:
        frame = wire_request(p.Act, **{**action, "tabId": tab_id, "waitUntil": wait_until})
        timeout = (frame.timeoutMs if frame.timeoutMs is not None else DEFAULT_ACT_TIMEOUT_MS) / 1000
        with trace.phase("action"):
            return await self.bounded(actions.act(self, tab_id, frame), timeout + NAVIGATION_TIMEOUT_S + MARGIN_S)

    async def navigate(
        self,
        tab_id: int,
        url: str | None = None,
        go: Literal["back", "forward", "reload"] | None = None,
        wait_until: p.WaitUntil = "load",
        timeout_ms: int = 15_000,
    ) -> dict[str, Any]:
        frame = wire_request(p.Navigate, tabId=tab_id, url=url, go=go, waitUntil=wait_until, timeoutMs=timeout_ms)
        work = tabs.navigate(self, tab_id, frame.url, frame.go, frame.waitUntil, frame.timeoutMs)
        with trace.phase("navigation"):
            return await self.bounded(work, frame.timeoutMs / 1000 + MARGIN_S)

    async def wait_for(self, tab_id: int, condition: Mapping[str, Any], timeout_ms: int = 5_000) -> dict[str, Any]:
        frame = wire_request(p.WaitFor, **{**condition, "tabId": tab_id, "timeoutMs": timeout_ms})
        longest = max(frame.timeoutMs, frame.timeMs or 0)
        return await self.bounded(waits.wait_for(self, tab_id, frame), longest / 1000 + MARGIN_S)

    async def screenshot(
        self,
        tab_id: int,
        kind: Literal["viewport", "full", "element"] = "viewport",
        target: Mapping[str, Any] | None = None,
        fmt: Literal["png", "jpeg"] = "png",
        quality: int | None = None,
        marks: bool = False,
    ) -> dict[str, Any]:
        jpeg_quality = quality if fmt == "jpeg" else None  # PNG has no quality: dropped, not refused
        wire_request(p.Screenshot, tabId=tab_id, kind=kind, target=target, format=fmt, quality=jpeg_quality)
        work = observe.screenshot(self, tab_id, kind, dict(target) if target else None, fmt, jpeg_quality, marks)
        return await self.bounded(work, SCREENSHOT_TIMEOUT_S + MARGIN_S)

    async def console(
        self, tab_id: int, after_seq: int = 0, levels: Sequence[p.ConsoleLevel] | None = None
    ) -> dict[str, Any]:
        wire_request(p.Console, tabId=tab_id, afterSeq=after_seq, levels=list(levels) if levels else None)
        return await self.bounded(observe.console(self, tab_id, after_seq, levels), REQUEST_TIMEOUT_S)

    async def evaluate(self, tab_id: int, expression: str, timeout_ms: int = 10_000) -> dict[str, Any]:
        frame = wire_request(p.Evaluate, tabId=tab_id, expression=expression, timeoutMs=timeout_ms)
        limit = frame.timeoutMs or 10_000
        return await self.bounded(observe.evaluate(self, tab_id, frame.expression, limit), limit / 1000 + MARGIN_S)

    async def run_steps(self, tab_id: int, tool_name: str, steps: Sequence[p.Step]) -> dict[str, Any]:
        log.debug("callTool %s: %d steps", tool_name, len(steps))
        with trace.phase("page_tool"):
            return await self.bounded(plans.run_plan(self, tab_id, list(steps)), plan_timeout(steps))
