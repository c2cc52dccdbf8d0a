"""The extension driver: the link, the navigation policy's push, tab events, the user's settings and
the controlled tabs over the WebSocket bridge; the page requests are the page session's
(``drivers/session/``) over ``ExtensionHost``."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from tabmcp import protocol as p
from tabmcp import state as s
from tabmcp.drivers.base import (
    DriverError,
    LinkChanged,
    NavigationBlocked,
    PageChanged,
    UserFocusedTab,
    UserSettings,
)
from tabmcp.drivers.extension.bridge import Bridge, LinkLost, LinkUp
from tabmcp.drivers.extension.host import ExtensionHost, tab_from_wire
from tabmcp.drivers.session import PageSession
from tabmcp.drivers.session.requests import PageRequests
from tabmcp.policy import NavigationPolicy

log = logging.getLogger(__name__)
POLICY_PUSH_TIMEOUT = 10.0  # connect: the rules installed and the tabs listed


def navigation_policy(policy: NavigationPolicy | Mapping[str, Any] | None) -> NavigationPolicy | None:
    """The policy itself, or rebuilt from its wire rules (``NavigationPolicy.wire()``: each rule
    carries its pattern)."""
    if policy is None or isinstance(policy, NavigationPolicy):
        return policy
    rules = p.PolicyRules.model_validate(policy)
    return NavigationPolicy.from_patterns([r.pattern for r in rules.allow], [r.pattern for r in rules.block])


class ExtensionDriver(PageRequests):
    def __init__(self, bridge: Bridge, policy: NavigationPolicy | Mapping[str, Any] | None = None) -> None:
        """``policy``: the navigation policy (or its wire rules), sent with every ``connect`` so the
        extension enforces it in the browser from then on; the page session names its rules when a
        navigation fails on them. No rules: the frame has no ``policy`` at all."""
        self.bridge = bridge
        nav = navigation_policy(policy)
        self.policy = p.PolicyRules.model_validate(nav.wire()) if nav is not None and (nav.allow or nav.block) else None
        self.host = ExtensionHost(bridge)
        self.session = PageSession(self.host, nav, self._on_session_event)

    def _on_session_event(self, event: object) -> None:
        if isinstance(event, PageChanged):  # joins the link's own events, in order
            self.bridge.events.put_nowait(event)

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
            case PageChanged() as changed:
                return changed
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

    async def release_workspace(self, workspace: str) -> None:
        """Nothing is kept per workspace in the user's browser (its tabs are closed by the caller)."""

    async def focus_tab(self, tab_id: int) -> s.Tab:
        reply = await self.bridge.request(p.FocusTab(tabId=tab_id))
        return tab_from_wire(p.TabInfo.model_validate(_data(reply, "tab")))

    async def tab_info(self, tab_id: int) -> s.Tab:
        return await self.host.tab_info(tab_id)

    async def show_controlled(self, tabs: Sequence[tuple[int, str]]) -> None:
        await self.bridge.notify(p.Controlled(tabs=[p.ControlledTab(tabId=t, group=g) for t, g in tabs]))

    async def active_tab(self) -> s.Tab | None:
        tab = _data(await self.bridge.request(p.ActiveTab()), "tab")
        if tab is None:
            return None
        try:
            return tab_from_wire(p.TabInfo.model_validate(tab))
        except ValidationError as exc:
            raise DriverError(p.ErrorCode.BAD_MESSAGE, f"the extension's active tab: {exc}"[:300]) from None

    async def close_tab(self, tab_id: int) -> None:
        await self.host.close_tab(tab_id)


def _data(reply: p.Reply, key: str) -> Any:
    """The answer's ``data[key]``; a malformed answer is the extension's bug, reported as such."""
    if not isinstance(reply, p.Result) or key not in reply.data:
        raise DriverError(p.ErrorCode.BAD_MESSAGE, f"the extension's answer lacks data.{key}: {reply!r}"[:300])
    return reply.data[key]
