"""What the benchmark cases need from a server, whatever its tool names and text formats."""

from __future__ import annotations

import json
import re
import tempfile
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from bench.mcp_stdio import Call, StdioServer, ToolList

CHROMIUM = "/usr/bin/chromium"


class PeerMissing(RuntimeError):
    """The peer's npm package is not installed: run bench/setup.sh."""


@dataclass
class Snapshot:
    """One snapshot as the model receives it: ``pages`` calls (1 unless the server pages with a cursor)."""

    chars: int  # all pages together
    pages: int
    first_chars: int
    first_seconds: float
    total_seconds: float
    text: str  # all pages joined
    budget: int | None = None  # the server's per-result character budget, where it has one
    page_chars: list[int] = field(default_factory=list)


class Adapter(ABC):
    key: str
    label: str
    package: str  # what the version refers to

    def __init__(self, peers_dir: Path, errlog: IO[str]) -> None:
        self.peers_dir = peers_dir
        self.errlog = errlog
        self._scratch = tempfile.TemporaryDirectory(prefix=f"tabmcp-bench-{self.key}-")
        self.scratch = Path(self._scratch.name)
        self.server: StdioServer
        self.tool_lists: dict[str, ToolList] = {}

    # ------------------------------------------------------------------ lifecycle

    @abstractmethod
    def make_server(self) -> StdioServer: ...

    async def __aenter__(self) -> Adapter:
        self.server = self.make_server()
        await self.server.__aenter__()
        try:
            self.tool_lists["at start"] = await self.server.tool_list()
            await self.start()
        except BaseException:
            await self.__aexit__(None, None, None)
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        try:
            await self.server.__aexit__(*exc)
        finally:
            self._scratch.cleanup()

    async def start(self) -> None:
        """Whatever must happen before a page can be opened (tabmcp: connect_browser)."""
        return None

    @asynccontextmanager
    async def bare(self) -> AsyncIterator[StdioServer]:
        """The server started and initialised, nothing else called: bench/tasks.py counts every call itself."""
        self.server = self.make_server()
        try:
            async with self.server:
                yield self.server
        finally:
            self._scratch.cleanup()

    def version(self) -> str:
        return self.server.server_version

    # ------------------------------------------------------------------ page work

    @abstractmethod
    async def open(self, url: str) -> Call: ...

    @abstractmethod
    async def snapshot(self, all_pages: bool = True) -> Snapshot:
        """``all_pages=False``: the first result only (for timing repeats; peers have one result anyway)."""

    @abstractmethod
    def ref_of(self, snapshot_text: str, role: str, name: str) -> str: ...

    @abstractmethod
    async def click(self, ref: str, name: str) -> Call: ...

    async def page_tool(self, name: str) -> Call | None:
        """Call the focused page's tool ``name`` without arguments; None: this server has no page tools."""
        return None

    async def close_page(self) -> None:
        """Leave the browser as it was before ``open`` (one page at a time keeps a 2-core box quiet)."""
        return None


def npm_bin(peers_dir: Path, name: str) -> str:
    path = peers_dir / "node_modules" / ".bin" / name
    if not path.exists():
        raise PeerMissing(f"{path} not found: run bench/setup.sh (npm install into {peers_dir})")
    return str(path)


def npm_version(peers_dir: Path, package: str) -> str:
    manifest = peers_dir / "node_modules" / package / "package.json"
    return str(json.loads(manifest.read_text()).get("version", "?"))


def one_match(pattern: str, text: str, what: str) -> str:
    found = re.findall(pattern, text)
    if len(found) != 1:
        raise LookupError(f"expected one {what} in the snapshot, found {len(found)}:\n{text[:2000]}")
    return str(found[0])
