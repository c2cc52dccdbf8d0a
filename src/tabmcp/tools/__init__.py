"""Core tools, one module per capability. Importing this package registers them in CATALOG."""

from tabmcp.tools import act, browser, evaluate, observe, tabs  # noqa: F401  (registration side effect)
from tabmcp.tools.base import CATALOG, CoreTool, ToolContext, ToolFailure

# The order tools/list shows them in: connecting, tabs, then the page agent, most used first.
ORDER = (
    "connect_browser",
    "list_tabs",
    "open_tab",
    "focus_tab",
    "close_tab",
    "snapshot",
    "interact",
    "navigate",
    "wait_for",
    "screenshot",
    "console",
    "evaluate",
)
CATALOG.sort(key=lambda t: ORDER.index(t.name))  # a tool missing from ORDER fails here, at import

__all__ = ["CATALOG", "ORDER", "CoreTool", "ToolContext", "ToolFailure"]
