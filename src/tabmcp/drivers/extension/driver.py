"""The extension driver: the Driver interface over the WebSocket bridge."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import ValidationError

from tabmcp import protocol as p
from tabmcp import state as s
from tabmcp.drivers.base import (
    DriverError,
    LinkChanged,
    NavigationBlocked,
    OpenedTab,
    PageChanged,
    UserFocusedTab,
    UserSettings,
)
from tabmcp.drivers.extension.bridge import Bridge, LinkLost, LinkUp
from tabmcp.drivers.extension.host import tab_from_wire
from tabmcp.drivers.session.limits import plan_timeout, wire_request
from tabmcp.page.capture import PageCapture

log = logging.getLogger(__name__)
OPEN_TAB_TIMEOUT_MS = 15_000  # the extension's own default wait for the new tab's load
# The bridge waits this much longer than the request's own timeoutMs, so the extension's TIMEOUT
# (which says what it was waiting for) arrives first.
BRIDGE_MARGIN = 5.0
ACT_TIMEOUT_MS = 5_000  # the extension's default for actionability checks
ACT_NAVIGATION_S = 15.0  # an action that navigates then waits up to this for the page
POLICY_PUSH_TIMEOUT = 10.0  # connect: the rules installed and the tabs listed
SCREENSHOT_TIMEOUT = 30.0  # element screenshots wait for actionability (5 s), CDP captures of long pages take time


class ExtensionDriver:
    def __init__(self, bridge: Bridge, policy: Mapping[str, Any] | None = None) -> None:
        """``policy``: the navigation policy's rules (``NavigationPolicy.wire()``), sent with every
        ``connect`` so the extension enforces them in the browser from then on. No rules: the frame
        has no ``policy`` at all (and the extension keeps no rules)."""
        self.bridge = bridge
        rules = p.PolicyRules.model_validate(policy or {})
        self.policy = rules if rules.block or rules.allow else None

    @property
    def linked(self) -> bool:
        return self.bridge.linked

    async def wait_linked(self, timeout: float) -> bool:
        return await self.bridge.wait_linked(timeout)

    async def link(self) -> None:
        """The extension links itself (or ``connect_browser(launch=true)`` starts a browser with it)."""

    async def next_event(self) -> object:
        match await self.bridge.events.get():
            case LinkUp(hello=hello):
                if self.policy is not None:
                    await self.push_policy()
                return LinkChanged(up=True, instance=hello.instance or "")
            case LinkLost(reason=reason):
                return LinkChanged(up=False, reason=reason, relink=not self.bridge.user_disconnected)
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
            case p.ToolsChanged(tabId=tab_id, reason=reason, version=version):
                return PageChanged(tab_id, reason, version)
            case p.NavigationBlocked(tabId=tab_id, url=url, reason=reason):
                return NavigationBlocked(tab_id, url, reason)
            case p.UserSettings(followTabSwitches=follow):
                return UserSettings(follow_tab_switches=follow)
            case other:
                raise TypeError(f"unexpected bridge event {other!r}")

    async def push_policy(self) -> None:
        """With a policy, the first request on every link: its rules, before anything else is done with
        the browser (the extension keeps rules across cut-offs and worker restarts, but a browser that
        links to another server, or to this one after it restarted, must get this server's)."""
        try:
            await self.bridge.request(p.Connect(policy=self.policy), timeout=POLICY_PUSH_TIMEOUT)
        except DriverError as exc:  # connect_browser sends it again, and says why if it still fails
            log.warning("the navigation policy did not reach the browser on link: %s", exc.message)

    async def connect(self) -> tuple[s.Browser, list[s.Tab]]:
        reply = await self.bridge.request(p.Connect(policy=self.policy))
        if not isinstance(reply, p.Connected):
            raise DriverError(p.ErrorCode.BAD_MESSAGE, f"expected 'connected', got {reply.type!r}")
        browser = s.Browser(name=reply.browser.name, version=reply.browser.version)
        return browser, [tab_from_wire(t) for t in reply.tabs]

    async def open_tab(
        self,
        url: str,
        focus: bool,
        group: str | None = None,
        workspace: str | None = None,
        timeout_ms: int = OPEN_TAB_TIMEOUT_MS,
    ) -> OpenedTab:
        # ``workspace`` is not used: the extension has the user's one profile (docs/scaling.md)
        frame = wire_request(p.OpenTab, url=url, focus=focus, group=group, timeoutMs=timeout_ms)
        reply = await self.bridge.request(frame, timeout=timeout_ms / 1000 + BRIDGE_MARGIN)
        tab = tab_from_wire(p.TabInfo.model_validate(_data(reply, "tab")))
        try:
            dialogs = p.OpenTabDialogs.model_validate(reply.data if isinstance(reply, p.Result) else {}).dialogs
        except ValidationError as exc:
            raise DriverError(p.ErrorCode.BAD_MESSAGE, f"the extension's 'openTab' answer: {_errors(exc)}") from None
        return OpenedTab(tab, tuple(d.model_dump(mode="json") for d in dialogs))

    async def release_workspace(self, workspace: str) -> None:
        """Nothing is kept per workspace in the user's browser (its tabs are closed by the caller)."""

    async def focus_tab(self, tab_id: int) -> s.Tab:
        reply = await self.bridge.request(p.FocusTab(tabId=tab_id))
        return tab_from_wire(p.TabInfo.model_validate(_data(reply, "tab")))

    async def show_controlled(self, tabs: Sequence[tuple[int, str]]) -> None:
        await self.bridge.notify(p.Controlled(tabs=[p.ControlledTab(tabId=t, group=g) for t, g in tabs]))

    async def active_tab(self) -> s.Tab | None:
        tab = _data(await self.bridge.request(p.ActiveTab()), "tab")
        if tab is None:
            return None
        try:
            return tab_from_wire(p.TabInfo.model_validate(tab))
        except ValidationError as exc:
            raise DriverError(p.ErrorCode.BAD_MESSAGE, f"the extension's active tab: {_errors(exc)}") from None

    async def close_tab(self, tab_id: int) -> None:
        await self.bridge.request(p.CloseTab(tabId=tab_id))

    async def capture(self, tab_id: int, max_chars: int, if_changed: str | None = None) -> PageCapture | None:
        reply = await self.bridge.request(p.Capture(tabId=tab_id, maxChars=max_chars, ifChanged=if_changed))
        data = _data(reply, "capture")
        if data.get("unchanged") and if_changed is not None:
            return None
        webmcp = data.get("webmcp", [])
        return PageCapture(
            url=data.get("url", ""),
            title=data.get("title", ""),
            html=data.get("html", ""),
            truncated=bool(data.get("truncated", False)),
            version=str(data.get("version", "")),
            webmcp=tuple(t for t in webmcp if isinstance(t, dict)) if isinstance(webmcp, list) else (),
        )

    async def run_steps(self, tab_id: int, tool_name: str, steps: Sequence[p.Step]) -> dict[str, Any]:
        reply = await self.bridge.request(
            p.CallTool(tabId=tab_id, toolName=tool_name, steps=list(steps)), timeout=plan_timeout(steps)
        )
        if not isinstance(reply, p.ToolResult):
            raise DriverError(p.ErrorCode.BAD_MESSAGE, f"expected a toolResult, got {reply.type!r}")
        return reply.result

    # ------------------------------------------------------------- page agent

    async def snapshot(self, tab_id: int, mode: p.SnapshotMode = "interactive") -> dict[str, Any]:
        frame = wire_request(p.Snapshot, tabId=tab_id, mode=mode)
        reply = await self.bridge.request(frame)
        try:
            data = p.SnapshotData.model_validate(_data(reply, "snapshot"))
        except ValidationError as exc:
            raise DriverError(p.ErrorCode.BAD_MESSAGE, f"the extension's 'snapshot' answer: {_errors(exc)}") from None
        # not dumped back through the model: the rows are passed on as they came (see SnapshotData)
        return {"url": data.url, "title": data.title, "docId": data.docId, "nodes": data.nodes, "frames": data.frames}

    async def act(self, tab_id: int, action: Mapping[str, Any], wait_until: p.WaitUntil = "load") -> dict[str, Any]:
        frame = wire_request(p.Act, **{**action, "tabId": tab_id, "waitUntil": wait_until})
        timeout = (frame.timeoutMs if frame.timeoutMs is not None else ACT_TIMEOUT_MS) / 1000
        return await self._ask(frame, timeout + ACT_NAVIGATION_S + BRIDGE_MARGIN)

    async def navigate(
        self,
        tab_id: int,
        url: str | None = None,
        go: Literal["back", "forward", "reload"] | None = None,
        wait_until: p.WaitUntil = "load",
        timeout_ms: int = 15_000,
    ) -> dict[str, Any]:
        frame = wire_request(p.Navigate, tabId=tab_id, url=url, go=go, waitUntil=wait_until, timeoutMs=timeout_ms)
        return await self._ask(frame, frame.timeoutMs / 1000 + BRIDGE_MARGIN)

    async def wait_for(self, tab_id: int, condition: Mapping[str, Any], timeout_ms: int = 5_000) -> dict[str, Any]:
        frame = wire_request(p.WaitFor, **{**condition, "tabId": tab_id, "timeoutMs": timeout_ms})
        longest = max(frame.timeoutMs, frame.timeMs or 0)
        return await self._ask(frame, longest / 1000 + BRIDGE_MARGIN)

    async def screenshot(
        self,
        tab_id: int,
        kind: Literal["viewport", "full", "element"] = "viewport",
        target: Mapping[str, Any] | None = None,
        fmt: Literal["png", "jpeg"] = "png",
        quality: int | None = None,
    ) -> dict[str, Any]:
        # PNG has no quality setting: dropped here rather than refused on the wire
        jpeg_quality = quality if fmt == "jpeg" else None
        frame = wire_request(p.Screenshot, tabId=tab_id, kind=kind, target=target, format=fmt, quality=jpeg_quality)
        return await self._ask(frame, SCREENSHOT_TIMEOUT + BRIDGE_MARGIN)

    async def console(
        self, tab_id: int, after_seq: int = 0, levels: Sequence[p.ConsoleLevel] | None = None
    ) -> dict[str, Any]:
        frame = wire_request(p.Console, tabId=tab_id, afterSeq=after_seq, levels=list(levels) if levels else None)
        return await self._ask(frame)

    async def evaluate(self, tab_id: int, expression: str, timeout_ms: int = 10_000) -> dict[str, Any]:
        frame = wire_request(p.Evaluate, tabId=tab_id, expression=expression, timeoutMs=timeout_ms)
        return await self._ask(frame, frame.timeoutMs / 1000 + BRIDGE_MARGIN)

    async def _ask(self, frame: p.ServerRequest, timeout: float | None = None) -> dict[str, Any]:
        """Send a page-agent request; its answer's data, validated against the request's model."""
        reply = await self.bridge.request(frame, timeout=timeout)
        key, model = p.RESULT_DATA[frame.type]
        try:
            data = model.model_validate(_data(reply, key))
        except ValidationError as exc:
            what = f"the extension's {frame.type!r} answer"
            raise DriverError(p.ErrorCode.BAD_MESSAGE, f"{what}: {_errors(exc)}") from None
        dumped = data.model_dump(mode="json", by_alias=True)
        if isinstance(data, p.ImageData) and data.clip is None:
            del dumped["clip"]
        if isinstance(data, p.PageData) and not data.dialogs:
            del dumped["dialogs"]  # a load that showed none: as on the CDP driver
        if isinstance(data, p.ActionData) and data.scroll is None:
            del dumped["scroll"]  # only a scroll says where it ended, as on the CDP driver
        if isinstance(data, p.EvaluateValue) and "json_" not in data.model_fields_set:
            del dumped["json"]  # undefined: absent, which is not the same as null
        return dumped


def _errors(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'request'}: {e['msg']}" for e in exc.errors())[:500]


def _data(reply: p.Reply, key: str) -> Any:
    """The answer's ``data[key]``; a malformed answer is the extension's bug, reported as such."""
    if not isinstance(reply, p.Result) or key not in reply.data:
        raise DriverError(p.ErrorCode.BAD_MESSAGE, f"the extension's answer lacks data.{key}: {reply!r}"[:300])
    return reply.data[key]
