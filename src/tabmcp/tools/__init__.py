"""Core tools, one module per capability. Importing this package registers them in CATALOG."""

from tabmcp.tools import (  # noqa: F401  (registration)
    act,
    browser,
    evaluate,
    nl_act,
    nl_connect,
    nl_read,
    observe,
    page_proxy,
    tabs,
)
from tabmcp.tools.base import CATALOG, CoreTool, ToolContext, ToolFailure

# The order tools/list shows them in: connecting, tabs, then the page agent, most used first.
ORDER = (
    "connect_browser",
    "list_tabs",
    "open_tab",
    "focus_tab",
    "close_tab",
    # the page tools' way in for clients that ignore list_changed (static mode only; tool_modes.py)
    "list_page_tools",
    "call_page_tool",
    "snapshot",
    "interact",
    "navigate",
    "wait_for",
    "screenshot",
    "console",
    "evaluate",
    # natural-language tools (nl_tools=true; docs/nl-tools.md)
    "ai_connect_current_tab",
    "ai_connect_new_tab",
    "ai_disconnect",
    "ai_tap",
    "ai_input",
    "ai_hover",
    "ai_keyboard_press",
    "ai_scroll",
    "ai_query",
    "ai_assert",
    "ai_wait_for",
    "ai_action",
)
CATALOG.sort(key=lambda t: ORDER.index(t.name))  # a tool missing from ORDER fails here, at import

__all__ = ["CATALOG", "ORDER", "CoreTool", "ToolContext", "ToolFailure"]
