"""The natural-language tools' connection verbs (docs/nl-tools.md), mapped onto tabmcp's tabs.

Midscene's bridge connects to the tab the user is looking at, or to a new tab, and disconnects from
it. Here the browser link is ``connect_browser``'s; these verbs choose the tab the client works on:
``ai_connect_current_tab`` focuses the browser's active tab, ``ai_connect_new_tab`` opens and
focuses a tab, ``ai_disconnect`` lets go of the focused tab (it stays open, the page tools go).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from tabmcp import state as s
from tabmcp.drivers.base import DriverError
from tabmcp.tools.base import Args, NoArgs, ToolContext, ToolFailure, tool
from tabmcp.tools.nl_common import NL
from tabmcp.tools.tabs import OpenTabArgs, check_tab, open_tab, page_tool_names, tab_summary


@tool(title="AI connect to the current tab", available_in={s.Mode.CONNECTED_TABS, s.Mode.FOCUSED}, requires=NL)
async def ai_connect_current_tab(ctx: ToolContext, args: NoArgs) -> dict[str, Any]:
    """Work on the tab the browser is showing (its active tab): focus it and load its page tools."""
    try:
        tab = await ctx.runtime.driver.active_tab()
    except DriverError as exc:
        raise ToolFailure(
            f"Finding the browser's active tab failed ({exc.code}): {exc.message}", {"code": str(exc.code)}
        ) from None
    if tab is None:
        raise ToolFailure("The browser shows no tab: call ai_connect_new_tab with a URL.", {"code": "NO_TAB"})
    known = ctx.runtime.state.tabs.get(tab.id)
    if known is None:  # opened a moment ago: its event has not been handled yet
        await ctx.runtime.dispatch(s.TabCreated(tab))
    check_tab(ctx, ctx.runtime.state.tabs.get(tab.id, tab))
    try:
        await ctx.runtime.focus(tab.id)
    except DriverError as exc:
        raise ToolFailure(
            f"Focusing tab {tab.id} failed ({exc.code}): {exc.message}", {"code": str(exc.code)}
        ) from None
    state = ctx.runtime.state
    return {"connected": True, "tab": tab_summary(state.tabs[tab.id]), "toolsAvailable": page_tool_names(state)}


class NewTabArgs(Args):
    url: str = Field(description="URL to open (http or https)")


@tool(title="AI connect to a new tab", available_in=s.CONNECTED_MODES, requires=NL)
async def ai_connect_new_tab(ctx: ToolContext, args: NewTabArgs) -> dict[str, Any]:
    """Open a new tab at a URL and work on it (focused, with its page tools)."""
    opened = await open_tab(ctx, OpenTabArgs(url=args.url, focus=True))
    return {"connected": opened["focused"], **opened}


@tool(title="AI disconnect", available_in={s.Mode.FOCUSED}, requires=NL, idempotent=True)
async def ai_disconnect(ctx: ToolContext, args: NoArgs) -> dict[str, Any]:
    """Stop working on the focused tab: it stays open in the browser, its page tools go away."""
    tab_id = ctx.runtime.state.focused_tab_id
    await ctx.runtime.dispatch(s.FocusReleased())
    return {
        "disconnected": True,
        "tabId": tab_id,
        "note": "The tab stays open: ai_connect_current_tab or focus_tab works on it again.",
    }
