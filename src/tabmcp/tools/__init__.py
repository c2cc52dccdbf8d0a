"""Core tools, one module per capability. Importing this package registers them in CATALOG."""

from tabmcp.tools import browser, tabs  # noqa: F401  (registration side effect)
from tabmcp.tools.base import CATALOG, CoreTool, ToolContext, ToolFailure

__all__ = ["CATALOG", "CoreTool", "ToolContext", "ToolFailure"]
