"""Playwright MCP (@playwright/mcp), with its default settings apart from the browser it launches."""

from __future__ import annotations

import re
import time

from bench.adapters.base import CHROMIUM, Adapter, Snapshot, npm_bin, npm_version, one_match
from bench.mcp_stdio import Call, StdioServer


class PlaywrightMcp(Adapter):
    key = "playwright"
    label = "Playwright MCP"
    package = "@playwright/mcp"

    def make_server(self) -> StdioServer:
        args = [
            "--executable-path", CHROMIUM,
            "--headless",
            "--isolated",
            "--no-sandbox",
            "--output-dir", str(self.scratch / "out"),
        ]  # fmt: skip
        return StdioServer(npm_bin(self.peers_dir, "playwright-mcp"), args, cwd=self.scratch, errlog=self.errlog)

    def version(self) -> str:
        return npm_version(self.peers_dir, self.package)

    async def open(self, url: str) -> Call:
        return await self.server.call("browser_navigate", {"url": url})

    async def snapshot(self, all_pages: bool = True) -> Snapshot:
        start = time.perf_counter()
        call = await self.server.call("browser_snapshot")
        total = time.perf_counter() - start
        n = len(call.text)
        return Snapshot(n, 1, n, call.seconds, total, call.text, page_chars=[n])

    def ref_of(self, snapshot_text: str, role: str, name: str) -> str:
        return one_match(rf'- {re.escape(role)} "{re.escape(name)}"[^\n]*?\[ref=([^\]\s]+)\]', snapshot_text, role)

    async def click(self, ref: str, name: str) -> Call:
        return await self.server.call("browser_click", {"target": ref, "element": name})
