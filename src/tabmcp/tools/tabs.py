"""Tab tools: see the tabs, open one, choose which one's page tools are loaded, close one."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from pydantic import Field

from tabmcp import state as s
from tabmcp.bridge import BridgeError
from tabmcp.guard import untrusted
from tabmcp.tools.base import Args, NoArgs, ToolContext, ToolFailure, tool

OPENABLE_SCHEMES = {"http", "https"}
OPENABLE_EXACT = {"about:blank"}


def tab_summary(tab: s.Tab) -> dict[str, Any]:
    """A tab as results show it; its title is the page's: made visible and capped (guard/untrusted.py)."""
    title = untrusted.line(tab.title) or ("Loading..." if tab.status == "loading" else "")
    return {"id": tab.id, "title": title, "url": untrusted.line(tab.url, untrusted.MAX_URL)}


def page_tool_names(state: s.BrowserState) -> list[str]:
    return [t.name for t in state.page_tools]


def _browser_failure(action: str, exc: BridgeError) -> ToolFailure:
    return ToolFailure(f"{action} failed ({exc.code}): {exc.message}", {"code": str(exc.code)})


@tool(title="List tabs", available_in=s.CONNECTED_MODES, read_only=True, idempotent=True)
async def list_tabs(ctx: ToolContext, args: NoArgs) -> dict[str, Any]:
    """List open tabs and how many page tools each one's page offers (focus a tab to get its tools)."""
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
    url: str = Field(description="URL to open (http or https)")
    focus: bool = Field(True, description="Focus the new tab after opening (loads its page tools)")


def check_url(url: str) -> None:
    parts = urlsplit(url.strip())
    if url.strip() in OPENABLE_EXACT:
        return
    if parts.scheme.lower() not in OPENABLE_SCHEMES or not parts.netloc:
        raise ToolFailure(
            f"Cannot open {url!r}: give a full http:// or https:// URL (for example https://example.com/).",
            {"code": "INVALID_URL"},
        )


@tool(title="Open a tab", available_in=s.CONNECTED_MODES)
async def open_tab(ctx: ToolContext, args: OpenTabArgs) -> dict[str, Any]:
    """Open a new tab at a URL; with focus=true (default) its page tools are loaded."""
    check_url(args.url)
    try:
        tab = await ctx.runtime.driver.open_tab(args.url.strip(), args.focus)
        await ctx.runtime.dispatch(s.TabCreated(tab))
        if args.focus:
            await ctx.runtime.focus(tab.id)
    except BridgeError as exc:
        raise _browser_failure(f"Opening {args.url}", exc) from None
    state = ctx.runtime.state
    return {
        "tab": tab_summary(state.tabs.get(tab.id, tab)),
        "focused": state.focused_tab_id == tab.id,
        "toolsAvailable": page_tool_names(state) if state.focused_tab_id == tab.id else [],
    }


class FocusTabArgs(Args):
    tab_id: int = Field(alias="tabId", description="ID of the tab to focus (from list_tabs)")


@tool(title="Focus a tab", available_in={s.Mode.CONNECTED_TABS, s.Mode.FOCUSED}, idempotent=True)
async def focus_tab(ctx: ToolContext, args: FocusTabArgs) -> dict[str, Any]:
    """Focus a tab: its page tools replace the previous tab's."""
    state = ctx.runtime.state
    if args.tab_id not in state.tabs:
        known = ", ".join(str(t) for t in state.tabs) or "none"
        raise ToolFailure(f"No tab with id {args.tab_id}. Open tab ids: {known} (see list_tabs).")
    try:
        tab = await ctx.runtime.driver.focus_tab(args.tab_id)
        await ctx.runtime.dispatch(s.TabUpdated(tab))
        await ctx.runtime.focus(tab.id)
    except BridgeError as exc:
        raise _browser_failure(f"Focusing tab {args.tab_id}", exc) from None
    state = ctx.runtime.state
    return {"success": True, "tab": tab_summary(state.tabs[tab.id]), "toolsAvailable": page_tool_names(state)}


class CloseTabArgs(Args):
    tab_id: int | None = Field(None, alias="tabId", description="ID of tab to close. Defaults to focused tab.")


@tool(title="Close a tab", available_in={s.Mode.FOCUSED}, destructive=True)
async def close_tab(ctx: ToolContext, args: CloseTabArgs) -> dict[str, Any]:
    """Close a tab (default: the focused one). Closing the focused tab unloads its page tools."""
    state = ctx.runtime.state
    tab_id = args.tab_id if args.tab_id is not None else state.focused_tab_id
    if tab_id not in state.tabs:
        known = ", ".join(str(t) for t in state.tabs) or "none"
        raise ToolFailure(f"No tab with id {tab_id}. Open tab ids: {known} (see list_tabs).")
    try:
        await ctx.runtime.driver.close_tab(tab_id)
    except BridgeError as exc:
        raise _browser_failure(f"Closing tab {tab_id}", exc) from None
    await ctx.runtime.dispatch(s.TabClosed(tab_id))
    return {"closed": True, "tabId": tab_id}
