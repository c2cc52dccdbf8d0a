"""The extension's ``PageHost``: the page primitives as requests over the bridge, the browser's page
events as the bridge hands them over (docs/protocol.md "Page primitives", "Page events").

Each method is one request the extension answers with one browser call (tabs, webNavigation,
scripting, debugger). The events arrive batched in ``pageEvents`` frames; the bridge gives each
frame to ``_receive`` on its reader loop, so listeners see an event before any answer that followed
it resumes its caller.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from pydantic import ValidationError

from tabmcp import protocol as p
from tabmcp import state as s
from tabmcp import trace
from tabmcp.drivers.base import DriverError
from tabmcp.drivers.extension.bridge import Bridge
from tabmcp.drivers.host import (
    AgentMessage,
    FrameInfo,
    FrameNavigation,
    Listeners,
    PageEvent,
    PopupOpened,
    RequestEnded,
    RequestStarted,
)
from tabmcp.drivers.session.limits import wire_request

log = logging.getLogger(__name__)

# The bridge waits this much longer than the browser's own limit for a call (an agent method's
# ``timeoutMs``, Runtime.evaluate's ``timeout``), so the browser's answer, which says what timed
# out, arrives first.
BRIDGE_MARGIN = 5.0

# webRequest's resource types as the host names them (fetch and XHR are both xmlhttprequest there)
REQUEST_KINDS = {"main_frame": "document", "sub_frame": "document", "xmlhttprequest": "xhr"}


def tab_from_wire(info: p.TabInfo) -> s.Tab:
    return s.Tab(
        id=info.id,
        title=info.title,
        url=info.url,
        status=info.status,
        window_id=info.windowId,
        opener_id=info.openerTabId,
    )


def page_event(event: p.PageEventFrame) -> PageEvent:
    match event:
        case p.FrameNavigationEvent():
            return FrameNavigation(event.tabId, event.frameId, event.kind, event.url, event.error)
        case p.RequestStartedEvent():
            return RequestStarted(event.tabId, event.requestId, REQUEST_KINDS.get(event.kind, event.kind))
        case p.RequestEndedEvent():
            return RequestEnded(event.tabId, event.requestId)
        case p.AgentMessageEvent():
            return AgentMessage(event.tabId, event.frameId, event.message)
        case p.PopupOpenedEvent():
            return PopupOpened(event.tabId, event.openerId)


class ExtensionHost:
    """One per bridge: it takes the bridge's page-event hook (its listeners may be many)."""

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge
        self._listeners = Listeners()
        # the tab as the extension read it right after an agent call, until any news of that tab (a
        # page event, a tab event): the URL and title after an action without another round trip.
        # News arrives before the answers that follow it, so this depends on the frames' order only.
        self._after_call: dict[int, s.Tab] = {}
        bridge.page_events = self._receive
        bridge.tab_news = self._forget
        bridge.results = self._note_tab

    def subscribe(self, listener: Callable[[PageEvent], None]) -> Callable[[], None]:
        return self._listeners.add(listener)

    def _forget(self, tab_id: int) -> None:
        self._after_call.pop(tab_id, None)

    def _note_tab(self, reply: p.Result) -> None:
        """A callAgent answer carries the tab as the call left it; one without it (after an ``act``,
        which may have changed the title) leaves the tab unknown until it is asked for."""
        tab = reply.data.get("tab")
        if "answers" not in reply.data:
            return
        if not isinstance(tab, dict):
            self._after_call.clear()  # the reply does not say which tab it was
        else:
            try:
                seen = tab_from_wire(p.TabInfo.model_validate(tab))
            except ValidationError:
                return  # the caller's own reading reports a malformed answer
            self._after_call[seen.id] = seen

    def _receive(self, frame: p.PageEvents) -> None:
        for event in frame.events:
            self._after_call.pop(event.tabId, None)
            try:
                self._listeners.emit(page_event(event))
            except Exception:  # a listener's bug must not end the link's reader loop
                log.exception("a page event listener failed on %r", event)

    # ------------------------------------------------------------- tabs

    async def create_tab(self, url: str, focus: bool, group: str | None, workspace: str | None) -> int:
        # ``workspace`` is not used: the extension has the user's one profile (docs/scaling.md)
        return (await self.create(url, focus, group)).id

    async def create(self, url: str, focus: bool, group: str | None) -> s.Tab:
        """``create_tab`` with the new tab as the browser reports it."""
        reply = await self.bridge.request(wire_request(p.CreateTab, url=url, focus=focus, group=group))
        return _tab(reply)

    async def tab_info(self, tab_id: int) -> s.Tab:
        """The tab as it is now (NO_TAB when it is gone)."""
        seen = self._after_call.get(tab_id)
        return seen if seen is not None else _tab(await self.bridge.request(p.TabUrl(tabId=tab_id)))

    async def tab_url(self, tab_id: int) -> tuple[str, str, bool]:
        tab = await self.tab_info(tab_id)
        return tab.url, tab.title, tab.status == "loading"

    async def close_tab(self, tab_id: int) -> None:
        await self.bridge.request(p.CloseTab(tabId=tab_id))

    # ------------------------------------------------------------- frames and the page agent

    async def frames(self, tab_id: int) -> list[FrameInfo]:
        listed = _data(await self.bridge.request(p.Frames(tabId=tab_id)), "frames")
        try:
            frames = [p.FrameData.model_validate(f) for f in listed]
        except ValidationError as exc:
            raise DriverError(p.ErrorCode.BAD_MESSAGE, f"the extension's 'frames' answer: {exc}"[:300]) from None
        return [FrameInfo(f.frameId, f.parentFrameId, f.url) for f in frames]

    async def call_agent(
        self,
        tab_id: int,
        frame_ids: Sequence[int] | None,
        method: str,
        arg: Any = None,
        timeout: float | None = None,
    ) -> dict[int, Any]:
        """``timeout`` (s): how long the bridge waits; by default the call's own ``timeoutMs`` (plus a
        margin) when ``arg`` has one, else the bridge's request timeout."""
        frame = wire_request(
            p.CallAgent, tabId=tab_id, frameIds=list(frame_ids) if frame_ids is not None else None, method=method
        )
        frame.arg = arg  # as given: the agent's arguments are the agent's to check
        if timeout is None and isinstance(arg, Mapping):
            timeout = _margin(arg.get("timeoutMs"))
        with trace.phase("agent") as span:
            span.note(method=method)
            reply = await self.bridge.request(frame, timeout=timeout)
            if isinstance(reply, p.Result) and isinstance(reply.data.get("pageMs"), int | float):
                span.note(pageMs=reply.data["pageMs"])
        answers = _data(reply, "answers")
        if not isinstance(answers, dict):
            raise DriverError(p.ErrorCode.BAD_MESSAGE, "the extension's 'callAgent' answers are not an object")
        return {int(frame_id): answer for frame_id, answer in answers.items()}

    async def flush_reports(self, tab_id: int, frame_id: int) -> None:
        # reports travel the frame's port to the worker, ahead of the answer the worker sends after them
        await self.call_agent(tab_id, [frame_id], "holdsFocus")

    # ------------------------------------------------------------- protocol commands

    async def cdp(
        self, tab_id: int, method: str, params: Mapping[str, Any] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        """``timeout`` (s): by default ``params["timeout"]`` (ms, Runtime.evaluate's) plus a margin."""
        frame = wire_request(p.Cdp, tabId=tab_id, method=method)
        frame.params = dict(params or {})
        if timeout is None:
            timeout = _margin(frame.params.get("timeout"))
        result = _data(await self.bridge.request(frame, timeout=timeout), "result")
        if not isinstance(result, dict):
            raise DriverError(p.ErrorCode.BAD_MESSAGE, f"the extension's answer to {method!r} is not an object")
        return result

    async def capture_viewport(self, tab_id: int, fmt: Literal["png", "jpeg"], quality: int | None) -> str:
        frame = wire_request(p.CaptureViewport, tabId=tab_id, format=fmt, quality=quality if fmt == "jpeg" else None)
        image = _data(await self.bridge.request(frame), "image")
        if not isinstance(image, str) or not image:
            raise DriverError(p.ErrorCode.BAD_MESSAGE, "the extension's 'captureViewport' answer has no image")
        return image

    # ------------------------------------------------------------- navigation

    async def goto(self, tab_id: int, url: str) -> None:
        await self.bridge.request(wire_request(p.Goto, tabId=tab_id, url=url))

    async def go(self, tab_id: int, where: Literal["back", "forward", "reload"]) -> None:
        await self.bridge.request(wire_request(p.Go, tabId=tab_id, where=where))


def _margin(limit_ms: object) -> float | None:
    if isinstance(limit_ms, int | float) and not isinstance(limit_ms, bool) and limit_ms >= 0:
        return limit_ms / 1000 + BRIDGE_MARGIN
    return None


def _data(reply: p.Reply, key: str) -> Any:
    """The answer's ``data[key]``; a malformed answer is the extension's bug, reported as such."""
    if not isinstance(reply, p.Result) or key not in reply.data:
        raise DriverError(p.ErrorCode.BAD_MESSAGE, f"the extension's answer lacks data.{key}: {reply!r}"[:300])
    return reply.data[key]


def _tab(reply: p.Reply) -> s.Tab:
    try:
        return tab_from_wire(p.TabInfo.model_validate(_data(reply, "tab")))
    except ValidationError as exc:
        raise DriverError(p.ErrorCode.BAD_MESSAGE, f"the extension's tab: {exc}"[:300]) from None
