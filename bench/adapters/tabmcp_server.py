"""tabmcp, launched the way an MCP host launches it (``tabmcp serve``), driving headless Chromium.

Two drivers, two adapters: ``Tabmcp`` launches Chromium with the extension (the default driver),
``TabmcpCdp`` sets ``TABMCP_BROWSER=chromium`` so tabmcp launches Chromium itself and drives it over CDP
(docs/scaling.md). Everything else (tools, calls, figures) is the same, which is what makes the two comparable.

Page tools are listed only while a tab is focused (docs/page-agent.md §8), so ``open`` uses
``open_tab`` (focus on) and ``close_page`` closes that tab again.
"""

from __future__ import annotations

import secrets
import time
from urllib.parse import urlsplit

from bench import toon_rows
from bench.adapters.base import CHROMIUM, Adapter, Snapshot
from bench.mcp_stdio import Call, StdioServer
from tabmcp.config import Settings
from tabmcp.demo.client import tabmcp_command

PAGE_TOOLS = ("snapshot", "interact")
MAX_PAGES = 1000  # a cursor that never ends would be a bug; stop and let the figures show it


class PageToolsMissing(RuntimeError):
    """This tabmcp does not list ``snapshot``/``interact`` yet."""


class Tabmcp(Adapter):
    key = "tabmcp"
    label = "tabmcp"
    package = "tabmcp"

    def server_env(self) -> dict[str, str]:
        env = {"TABMCP_WS_PORT": "0", "TABMCP_HEADLESS": "true", "TABMCP_BROWSER_PATH": CHROMIUM}
        env["TABMCP_PAIRING_TOKEN"] = secrets.token_urlsafe(32)  # it pairs the browser it launches
        env["TABMCP_TRACE_PHASES"] = "true"  # each result's _meta carries its phases (bench/opens.py)
        env["TABMCP_RATE_LIMIT_PER_MINUTE"] = "0"  # a bench calls back to back: the guard is not what it measures
        return env

    def make_server(self) -> StdioServer:
        command, prefix = tabmcp_command()
        return StdioServer(command, [*prefix, "serve"], cwd=self.scratch, errlog=self.errlog, env=self.server_env())

    async def start(self) -> None:
        await self.server.call("connect_browser", {"launch": True})
        self.tool_lists["connected"] = await self.server.tool_list()

    def budget(self) -> int:
        return Settings().snapshot_max_chars

    async def open(self, url: str) -> Call:
        call = await self.server.call("open_tab", {"url": url})
        listed = await self.server.tool_list()
        self.tool_lists[f"focused on {urlsplit(url).path.rsplit('/', 1)[-1]}"] = listed
        missing = [t for t in PAGE_TOOLS if t not in listed.names]
        if missing:
            raise PageToolsMissing(f"tabmcp lists no {', '.join(missing)} while focused: {', '.join(listed.names)}")
        return call

    async def close_page(self) -> None:
        await self.server.call("close_tab")

    async def snapshot(self, all_pages: bool = True) -> Snapshot:
        start = time.perf_counter()
        first = await self.server.call("snapshot")
        texts = [first.text]
        cursor = toon_rows.field(first.text, "next") if all_pages else None
        while cursor and len(texts) < MAX_PAGES:
            texts.append((await self.server.call("snapshot", {"cursor": cursor})).text)
            cursor = toon_rows.field(texts[-1], "next")
        total = time.perf_counter() - start
        sizes = [len(t) for t in texts]
        return Snapshot(
            chars=sum(sizes),
            pages=len(texts),
            first_chars=sizes[0],
            first_seconds=first.seconds,
            total_seconds=total,
            text="\n".join(texts),
            budget=self.budget(),
            page_chars=sizes,
        )

    def ref_of(self, snapshot_text: str, role: str, name: str) -> str:
        refs = [r.ref for r in toon_rows.rows(snapshot_text) if r.role == role and r.name == name and r.ref]
        if len(refs) != 1:
            found = f"found {len(refs)}:\n{snapshot_text[:2000]}"
            raise LookupError(f"expected one {role} {name!r} in the snapshot, {found}")
        return refs[0]

    async def click(self, ref: str, name: str) -> Call:
        return await self.server.call("interact", {"action": "click", "target": ref})

    async def page_tool(self, name: str) -> Call | None:
        return await self.server.call(name, {})


class TabmcpStatic(Tabmcp):
    """The static tool mode (``--tools static``): one fixed list, the page tools told in answers and run
    through ``call_page_tool`` (docs/clients.md)."""

    def server_env(self) -> dict[str, str]:
        return {**super().server_env(), "TABMCP_TOOLS": "static"}


class TabmcpCdp(Tabmcp):
    """The CDP driver: no extension, no bridge; ``connect_browser {launch: true}`` launches Chromium itself."""

    key = "tabmcp-cdp"
    label = "tabmcp (CDP)"

    def server_env(self) -> dict[str, str]:
        return {**super().server_env(), "TABMCP_BROWSER": "chromium"}
