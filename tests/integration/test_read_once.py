"""Read once per document version, and the per-phase trace, with `tabmcp serve` over stdio, a real MCP
client and headless Chromium on both drivers: an `open_tab` and a `navigate` each capture the new
document once (the call's own read; the refresh its load would trigger finds it read), and a traced
call's result carries its phases in `_meta` while an untraced one carries none.

Captures are counted in the server's log (the runtime logs each at DEBUG, the tests' level)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
import pytest

from tabmcp.demo.client import StdioSession
from tabmcp.demo.sites import SiteServer
from tabmcp.trace import META_KEY
from tests.integration.conftest import serve

pytestmark = pytest.mark.usefixtures("driver_kind")

QUIET = 1.5  # longer than the agent's debounce (0.3 s, at most 1.5 s): a late refresh would have run


def captures(log: Any, tab_id: int) -> list[str]:
    """The versions the runtime captured of ``tab_id`` so far (a version check is not a capture)."""
    text = Path(log.name).read_text()
    return re.findall(rf"tab {tab_id} captured: version (\S+),", text)


def version_checks(log: Any, tab_id: int) -> int:
    """The round trips that found ``tab_id``'s page unchanged: none is needed after a load."""
    return len(re.findall(rf"tab {tab_id} unchanged since", Path(log.name).read_text()))


async def phases(client: StdioSession, name: str, args: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The call's ``_meta`` and its phases' names, in order."""
    result = await client.call(name, args)
    assert not result.is_error, result.content
    meta = dict(result.meta or {})
    meta["answer"] = result.structured_content
    return meta, [p["name"] for p in meta.get(META_KEY, [])]


@pytest.mark.asyncio
async def test_an_open_and_a_navigate_capture_each_document_once(sites: SiteServer, server_log: Any) -> None:
    async with serve(server_log, ws_port="0", trace_phases="true") as client:
        await client.call_ok("connect_browser", {"launch": True})
        meta, names = await phases(client, "open_tab", {"url": sites.url("mail/index.html")})
        tab_id = meta["answer"]["tab"]["id"]
        assert names.count("capture") == 1 and "navigation" in names and "introspection" in names, names
        spans = meta[META_KEY]
        assert all(isinstance(s["at"], float | int) and s["ms"] >= 0 for s in spans)
        load = next(s for s in spans if s["name"] == "load")
        capture = next(s for s in spans if s["name"] == "capture")
        assert capture["at"] >= load["at"] + load["ms"] and capture["chars"] > 0  # read after the load, once
        await anyio.sleep(QUIET)
        opened = captures(server_log, tab_id)
        assert len(opened) == 1, opened

        _, names = await phases(client, "navigate", {"url": sites.url("flights/index.html")})
        assert names.count("capture") == 1, names
        await anyio.sleep(QUIET)
        after = captures(server_log, tab_id)
        assert len(after) == 2 and after[1] != after[0], after  # the new document, read once

        _, names = await phases(client, "navigate", {"url": sites.url("flights/index.html")})  # same URL again
        await anyio.sleep(QUIET)
        again = captures(server_log, tab_id)
        assert len(again) == 3 and len(set(again)) == 3, again  # a new document is a new version: read, once
        assert version_checks(server_log, tab_id) == 0  # each load's own refresh knew it was read already


@pytest.mark.asyncio
async def test_an_untraced_call_carries_no_phases(sites: SiteServer, server_log: Any) -> None:
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        meta, names = await phases(client, "open_tab", {"url": sites.url("mail/index.html")})
        assert names == [] and META_KEY not in meta and meta["answer"]["focused"]
