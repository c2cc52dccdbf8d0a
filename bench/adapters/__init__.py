"""One adapter per MCP server: how to start it, open a page, snapshot it and click by ref."""

from bench.adapters.base import Adapter, PeerMissing, Snapshot
from bench.adapters.devtools_mcp import DevToolsMcp
from bench.adapters.playwright_mcp import PlaywrightMcp
from bench.adapters.tabmcp_server import Tabmcp

ALL: dict[str, type[Adapter]] = {"playwright": PlaywrightMcp, "devtools": DevToolsMcp, "tabmcp": Tabmcp}

__all__ = ["ALL", "Adapter", "DevToolsMcp", "PeerMissing", "PlaywrightMcp", "Snapshot", "Tabmcp"]
