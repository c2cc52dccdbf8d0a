"""MCP resources: the open tabs, and the focused page's snapshot.

Each resource is a small declared unit like a tool: a URI, what it is, and a reader. The runtime
says when one changed (``Runtime.notify_resources``); ``server.py`` turns that into
``notifications/resources/updated`` for subscribers.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from tabmcp.runtime import PAGE_URI, TABS_URI
from tabmcp.tools.base import NoArgs, ToolContext, ToolFailure
from tabmcp.tools.observe import SnapshotArgs, take_snapshot
from tabmcp.tools.tabs import list_tabs


@dataclass(frozen=True)
class Resource:
    uri: str
    name: str
    title: str
    description: str
    mime_type: str
    read: Callable[[ToolContext], Awaitable[str]]


async def read_tabs(ctx: ToolContext) -> str:
    if not ctx.runtime.state.connected:
        return json.dumps({"tabs": [], "focusedTabId": None, "note": "not connected: call connect_browser"})
    return json.dumps(await list_tabs(ctx, NoArgs()), ensure_ascii=False)


async def read_page(ctx: ToolContext) -> str:
    if ctx.runtime.state.focused_tab_id is None:
        return "no focused tab: call open_tab or focus_tab"
    try:
        # a resource read must not move the client's diff baseline: it is not remembered
        return await take_snapshot(ctx, SnapshotArgs(), remember=False)
    except ToolFailure as exc:
        return f"error: {exc.message}"


RESOURCES = (
    Resource(
        uri=TABS_URI,
        name="tabs",
        title="Open tabs",
        description="The browser's open tabs (JSON, as list_tabs returns them).",
        mime_type="application/json",
        read=read_tabs,
    ),
    Resource(
        uri=PAGE_URI,
        name="current-page",
        title="Focused page snapshot",
        description="The focused page: interactive elements with refs (TOON, as the snapshot tool returns it).",
        mime_type="text/plain",
        read=read_page,
    ),
)
BY_URI = {r.uri: r for r in RESOURCES}
