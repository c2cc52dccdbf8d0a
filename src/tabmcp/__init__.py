"""tabmcp: an MCP server whose tool list follows the browser's state."""

__version__ = "0.1.0"
