"""One adapter per MCP server: how to start it, open a page, snapshot it and click by ref."""

from bench.adapters.base import Adapter, PeerMissing, Snapshot
from bench.adapters.devtools_mcp import DevToolsMcp
from bench.adapters.playwright_mcp import PlaywrightMcp
from bench.adapters.tabmcp_server import Tabmcp, TabmcpCdp

ALL: dict[str, type[Adapter]] = {
    "playwright": PlaywrightMcp,
    "devtools": DevToolsMcp,
    "tabmcp": Tabmcp,
    "tabmcp-cdp": TabmcpCdp,
}
PEERS = ("playwright", "devtools")
DRIVERS = ("tabmcp", "tabmcp-cdp")  # tabmcp on its extension driver, then on its CDP driver

__all__ = [
    "ALL",
    "DRIVERS",
    "PEERS",
    "Adapter",
    "DevToolsMcp",
    "PeerMissing",
    "PlaywrightMcp",
    "Snapshot",
    "Tabmcp",
    "TabmcpCdp",
]
