"""Tab tools: see the tabs, open one, choose which one's page tools are loaded, close one."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from pydantic import Field

from tabmcp import state as s
from tabmcp.drivers.base import DriverError
from tabmcp.guard import untrusted
from tabmcp.policy import NavigationPolicy
from tabmcp.tools.base import Args, NoArgs, ToolContext, ToolFailure, tool

log = logging.getLogger(__name__)
DEFAULT_POLICY = NavigationPolicy()
MAX_DIALOG = 1000  # a dialog's message, as the page wrote it
MAX_DIALOGS = 10


def tab_summary(tab: s.Tab) -> dict[str, Any]:
    """A tab as results show it; its title is the page's: made visible and capped (guard/untrusted.py)."""
    title = untrusted.line(tab.title) or ("Loading..." if tab.status == "loading" else "")
    return {"id": tab.id, "title": title, "url": untrusted.line(tab.url, untrusted.MAX_URL)}


def page_tool_names(state: s.BrowserState) -> list[str]:
    return [t.name for t in state.page_tools]


def _browser_failure(action: str, exc: DriverError) -> ToolFailure:
    return ToolFailure(f"{action} failed ({exc.code}): {exc.message}", {"code": str(exc.code)})


@tool(title="List tabs", available_in=s.CONNECTED_MODES, read_only=True, idempotent=True)
async def list_tabs(ctx: ToolContext, args: NoArgs) -> dict[str, Any]:
    """Tabs and their page tool counts."""
    await ctx.runtime.settle_tool_counts()
    state = ctx.runtime.state
    tabs = [
        {
            **tab_summary(tab),
            "focused": tab.id == state.focused_tab_id,
            "toolCount": None if tab.tools is None else len(tab.tools),
        }
        for tab in state.tabs.values()
    ]
    listing: dict[str, Any] = {"tabs": tabs, "focusedTabId": state.focused_tab_id}
    if tabs:
        listing["note"] = f"titles are {untrusted.NOTE}"
    return listing


class OpenTabArgs(Args):
    url: str
    focus: bool = True


def check_url(url: str, policy: NavigationPolicy = DEFAULT_POLICY) -> None:
    """Refuse a URL before the browser sees it: only full http(s) URLs and about:blank open, plus the
    browser pages and files the user opted in to, and only what the navigation policy allows
    (policy.py). The refusal says why and what to do (``INVALID_URL`` or ``NAVIGATION_BLOCKED``)."""
    verdict = policy.check(url)
    if not verdict.allowed:
        raise ToolFailure(verdict.reason, {"code": verdict.code})


def dialogs_shown(answer: Mapping[str, Any]) -> dict[str, Any]:
    """The dialogs a driver's answer says the page showed (answered by tabmcp, never left open),
    as a tool result reports them: ``{"dialogs": [...]}``, or nothing when there were none."""
    dialogs = answer.get("dialogs") or []
    if not dialogs:
        return {}
    return {
        "dialogs": [
            {
                "type": d.get("type", ""),
                "message": untrusted.line(d.get("message", ""), MAX_DIALOG),
                "answer": _dialog_answer(d.get("answer")),
            }
            for d in dialogs[:MAX_DIALOGS]
        ]
    }


def _dialog_answer(answer: object) -> str:
    return "null" if answer is None else str(answer).lower() if isinstance(answer, bool) else str(answer)


def check_tab(ctx: ToolContext, tab: s.Tab) -> None:
    """A tab whose page the navigation policy refuses is not taken under control (focused, read)."""
    verdict = ctx.policy.check(tab.url) if tab.url else None
    if verdict is not None and not verdict.allowed:
        raise ToolFailure(f"Tab {tab.id} shows a page tabmcp may not use: {verdict.reason}", {"code": verdict.code})


@tool(title="Open a tab", available_in=s.CONNECTED_MODES)
async def open_tab(ctx: ToolContext, args: OpenTabArgs) -> dict[str, Any]:
    """New tab at url; focus loads its page tools."""
    check_url(args.url, ctx.policy)
    try:
        async with ctx.progress.ticking(f"opening {untrusted.line(args.url, untrusted.MAX_URL)}"):
            timeout_ms = ctx.settings.navigation_timeout_ms
            opened = await ctx.runtime.driver.open_tab(args.url.strip(), args.focus, timeout_ms=timeout_ms)
        tab = opened.tab
        await refuse_landing(ctx, tab)
        await ctx.runtime.dispatch(s.TabCreated(tab))
        if args.focus:
            await ctx.runtime.focus(tab.id, ctx.progress)
    except DriverError as exc:
        raise _browser_failure(f"Opening {args.url}", exc) from None
    state = ctx.runtime.state
    answer = {
        "tab": tab_summary(state.tabs.get(tab.id, tab)),
        "focused": state.focused_tab_id == tab.id,
        "toolsAvailable": page_tool_names(state) if state.focused_tab_id == tab.id else [],
        **dialogs_shown({"dialogs": opened.dialogs}),  # the page's own load script may have shown some
    }
    if "dialogs" in answer:
        answer["note"] = f"the title and dialog messages are {untrusted.NOTE}"
    return answer


async def refuse_landing(ctx: ToolContext, tab: s.Tab) -> None:
    """A new tab whose page went on to a page the policy refuses while it loaded (a meta refresh, a
    script: the browser blocked it and shows its error page there) is closed, and open_tab fails as
    for a redirect into a blocked origin."""
    verdict = ctx.policy.check(tab.url) if tab.url else None
    if verdict is None or verdict.allowed:
        return
    ctx.runtime.blocked_reported(tab.id)  # this failure says it: no second note from the browser's event
    try:
        await ctx.runtime.driver.close_tab(tab.id)
    except DriverError as exc:
        log.info("closing tab %s at a refused page failed: %s", tab.id, exc.message)
    why = f"The new tab went on to a page the browser did not load: {verdict.reason} tabmcp closed the tab."
    raise ToolFailure(why, {"code": verdict.code})


class FocusTabArgs(Args):
    tab_id: int = Field(alias="tabId")


@tool(title="Focus a tab", available_in={s.Mode.CONNECTED_TABS, s.Mode.FOCUSED}, idempotent=True)
async def focus_tab(ctx: ToolContext, args: FocusTabArgs) -> dict[str, Any]:
    """Focus a tab and load its page tools."""
    state = ctx.runtime.state
    if args.tab_id not in state.tabs:
        known = ", ".join(str(t) for t in state.tabs) or "none"
        raise ToolFailure(f"No tab with id {args.tab_id}. Open tab ids: {known} (see list_tabs).")
    check_tab(ctx, state.tabs[args.tab_id])
    try:
        tab = await ctx.runtime.driver.focus_tab(args.tab_id)
        await ctx.runtime.dispatch(s.TabUpdated(tab))
        await ctx.runtime.focus(tab.id, ctx.progress)
    except DriverError as exc:
        raise _browser_failure(f"Focusing tab {args.tab_id}", exc) from None
    state = ctx.runtime.state
    return {"success": True, "tab": tab_summary(state.tabs[tab.id]), "toolsAvailable": page_tool_names(state)}


class CloseTabArgs(Args):
    tab_id: int | None = Field(None, alias="tabId")


@tool(title="Close a tab", available_in={s.Mode.FOCUSED}, destructive=True)
async def close_tab(ctx: ToolContext, args: CloseTabArgs) -> dict[str, Any]:
    """Close a tab (default: focused)."""
    state = ctx.runtime.state
    tab_id = args.tab_id if args.tab_id is not None else state.focused_tab_id
    if tab_id not in state.tabs:
        known = ", ".join(str(t) for t in state.tabs) or "none"
        raise ToolFailure(f"No tab with id {tab_id}. Open tab ids: {known} (see list_tabs).")
    try:
        await ctx.runtime.driver.close_tab(tab_id)
    except DriverError as exc:
        raise _browser_failure(f"Closing tab {tab_id}", exc) from None
    await ctx.runtime.dispatch(s.TabClosed(tab_id))
    return {"closed": True, "tabId": tab_id}
