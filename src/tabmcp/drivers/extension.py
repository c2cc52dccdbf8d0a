"""The extension driver: the Driver interface over the WebSocket bridge."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tabmcp import protocol as p
from tabmcp import state as s
from tabmcp.bridge import Bridge, BridgeError, LinkLost, LinkUp
from tabmcp.drivers.base import LinkChanged, UserFocusedTab
from tabmcp.page.capture import PageCapture

OPEN_TAB_TIMEOUT = 20.0  # the extension itself gives up waiting for the load after 15 s


def tab_from_wire(info: p.TabInfo) -> s.Tab:
    return s.Tab(id=info.id, title=info.title, url=info.url, status=info.status, window_id=info.windowId)


class ExtensionDriver:
    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge

    @property
    def linked(self) -> bool:
        return self.bridge.linked

    async def wait_linked(self, timeout: float) -> bool:
        return await self.bridge.wait_linked(timeout)

    async def next_event(self) -> object:
        match await self.bridge.events.get():
            case LinkUp():
                return LinkChanged(up=True)
            case LinkLost(reason=reason):
                return LinkChanged(up=False, reason=reason)
            case p.TabCreated(tab=tab):
                return s.TabCreated(tab_from_wire(tab))
            case p.TabUpdated(tab=tab):
                return s.TabUpdated(tab_from_wire(tab))
            case p.TabClosed(tabId=tab_id):
                return s.TabClosed(tab_id)
            case p.TabCrashed(tabId=tab_id):
                return s.TabCrashed(tab_id)
            case p.TabFocused(tabId=tab_id):
                return UserFocusedTab(tab_id)
            case other:
                raise TypeError(f"unexpected bridge event {other!r}")

    async def connect(self) -> tuple[s.Browser, list[s.Tab]]:
        reply = await self.bridge.request(p.Connect())
        if not isinstance(reply, p.Connected):
            raise BridgeError(p.ErrorCode.BAD_MESSAGE, f"expected 'connected', got {reply.type!r}")
        browser = s.Browser(name=reply.browser.name, version=reply.browser.version)
        return browser, [tab_from_wire(t) for t in reply.tabs]

    async def open_tab(self, url: str, focus: bool) -> s.Tab:
        reply = await self.bridge.request(p.OpenTab(url=url, focus=focus), timeout=OPEN_TAB_TIMEOUT)
        return tab_from_wire(p.TabInfo.model_validate(_data(reply, "tab")))

    async def focus_tab(self, tab_id: int) -> s.Tab:
        reply = await self.bridge.request(p.FocusTab(tabId=tab_id))
        return tab_from_wire(p.TabInfo.model_validate(_data(reply, "tab")))

    async def close_tab(self, tab_id: int) -> None:
        await self.bridge.request(p.CloseTab(tabId=tab_id))

    async def capture(self, tab_id: int, max_chars: int) -> PageCapture:
        reply = await self.bridge.request(p.Capture(tabId=tab_id, maxChars=max_chars))
        data = _data(reply, "capture")
        return PageCapture(
            url=data.get("url", ""),
            title=data.get("title", ""),
            html=data.get("html", ""),
            truncated=bool(data.get("truncated", False)),
        )

    async def run_steps(self, tab_id: int, tool_name: str, steps: Sequence[p.Step]) -> dict[str, Any]:
        reply = await self.bridge.request(p.CallTool(tabId=tab_id, toolName=tool_name, steps=list(steps)))
        if not isinstance(reply, p.ToolResult):
            raise BridgeError(p.ErrorCode.BAD_MESSAGE, f"expected a toolResult, got {reply.type!r}")
        return reply.result


def _data(reply: p.Reply, key: str) -> Any:
    """The answer's ``data[key]``; a malformed answer is the extension's bug, reported as such."""
    if not isinstance(reply, p.Result) or key not in reply.data:
        raise BridgeError(p.ErrorCode.BAD_MESSAGE, f"the extension's answer lacks data.{key}: {reply!r}"[:300])
    return reply.data[key]
