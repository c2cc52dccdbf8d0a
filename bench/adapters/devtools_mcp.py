"""Chrome DevTools MCP (chrome-devtools-mcp), with its default settings apart from the browser it launches.

Its page tools need a ``pageId`` (page-id routing is on by default); ``new_page`` says which is selected.
"""

from __future__ import annotations

import re
import time

from bench.adapters.base import CHROMIUM, Adapter, Snapshot, npm_bin, npm_version, one_match
from bench.mcp_stdio import Call, StdioServer

SELECTED = re.compile(r"^(\d+): .*\[selected\]\s*$", re.M)


class DevToolsMcp(Adapter):
    key = "devtools"
    label = "Chrome DevTools MCP"
    package = "chrome-devtools-mcp"
    page_id: int | None = None

    def make_server(self) -> StdioServer:
        args = [
            "--executablePath", CHROMIUM,
            "--headless",
            "--isolated",
            "--chromeArg=--no-sandbox",
            "--no-usage-statistics",  # offline here; the attempt would be noise
        ]  # fmt: skip
        return StdioServer(npm_bin(self.peers_dir, "chrome-devtools-mcp"), args, cwd=self.scratch, errlog=self.errlog)

    def version(self) -> str:
        return npm_version(self.peers_dir, self.package)

    async def open(self, url: str) -> Call:
        if self.page_id is None:
            call = await self.server.call("new_page", {"url": url})
            found = SELECTED.search(call.text)
            if not found:
                raise LookupError(f"new_page did not say which page is selected:\n{call.text[:2000]}")
            self.page_id = int(found.group(1))
            return call
        return await self.server.call("navigate_page", {"pageId": self.page_id, "type": "url", "url": url})

    async def snapshot(self, all_pages: bool = True) -> Snapshot:
        start = time.perf_counter()
        call = await self.server.call("take_snapshot", {"pageId": self.page_id})
        total = time.perf_counter() - start
        n = len(call.text)
        return Snapshot(n, 1, n, call.seconds, total, call.text, page_chars=[n])

    def ref_of(self, snapshot_text: str, role: str, name: str) -> str:
        return one_match(rf'uid=(\S+) {re.escape(role)} "{re.escape(name)}"', snapshot_text, role)

    async def click(self, ref: str, name: str) -> Call:
        return await self.server.call("click", {"pageId": self.page_id, "uid": ref})
