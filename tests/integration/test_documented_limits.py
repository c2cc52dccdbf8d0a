"""Documented limits, seen from an MCP client of `tabmcp serve` over stdio with a launched headless
Chromium and the real extension: ``evaluate`` switched off is unknown and never reaches the
browser; ``connect_browser(launch=true, url=<blocked>)`` is refused before any browser starts;
``TABMCP_MAX_PAGE_TOOLS`` caps a page's tools."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabmcp.demo.client import text_of
from tabmcp.demo.sites import SiteServer
from tabmcp.introspect.registry import Registry
from tabmcp.page.capture import PageCapture
from tests.integration.conftest import serve
from tests.scenarios.replay import load

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "captures"
PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"


@pytest.fixture(scope="module")
def pages() -> Iterator[SiteServer]:
    with SiteServer(PAGES) as server:
        yield server


def sent_requests(recording: Path) -> list[str]:
    """Every frame the server sent the browser (the recording holds them all): its type, and for a
    DevTools command its method (``cdp:Runtime.evaluate``)."""
    frames = [e["frame"] for e in load(recording) if e["kind"] == "send"]
    return [f"cdp:{f.get('method')}" if f["type"] == "cdp" else f["type"] for f in frames]


def chromium_processes(profile: Path) -> list[int]:
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if f"--user-data-dir={profile}".encode() in cmdline:
                pids.append(int(proc.name))
    return pids


@pytest.mark.parametrize("enabled", [False, True], ids=["switched_off", "switched_on"])
async def test_evaluate_reaches_the_browser_only_when_switched_on(
    enabled: bool, server_log: object, tmp_path: Path, pages: SiteServer
) -> None:
    recording = tmp_path / "session.jsonl"
    settings = {"ws_port": "0", "user_data_dir": str(tmp_path / "profile"), "record": str(recording)}
    async with serve(server_log, **settings, enable_evaluate=str(enabled).lower()) as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": pages.url("actions.html")})
        assert ("evaluate" in await client.tool_names()) is enabled
        ran = await client.call("evaluate", {"expression": "document.title = 'evaluated'"})
        title = (await client.call_ok("list_tabs"))["tabs"][0]["title"]
        snapshot = text_of(await client.call("snapshot", {}))
    if enabled:  # the probe sees an evaluate that happens: the request, and the page it changed
        assert not ran.is_error, text_of(ran)
        assert "cdp:Runtime.evaluate" in sent_requests(recording)
        assert "evaluated" in snapshot
    else:
        assert ran.is_error and "Unknown tool 'evaluate'" in text_of(ran)
        assert "cdp:Runtime.evaluate" not in sent_requests(recording)  # nothing was asked of the browser
        assert title == "Actions" and "evaluated" not in snapshot


async def test_a_launch_for_a_blocked_url_starts_no_browser(server_log: object, tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    blocked = "https://blocked.example"
    settings = {"ws_port": "0", "user_data_dir": str(profile), "block_urls": json.dumps([blocked])}
    async with serve(server_log, **settings) as client:
        refused = await client.call("connect_browser", {"launch": True, "url": f"{blocked}/inbox"})
        assert refused.is_error and "NAVIGATION_BLOCKED" in text_of(refused), text_of(refused)
        assert f"block_urls: {blocked}" in text_of(refused)
        assert await client.tool_names() == ["connect_browser"]  # a round trip after the answer
        assert client.changes == 0  # no list_changed: nothing changed
        assert chromium_processes(profile) == []
        assert not (profile / "Local State").exists()  # a Chromium that ran for a moment leaves it
        # the server goes on: a launch without the blocked URL works
        assert (await client.call_ok("connect_browser", {"launch": True}))["connected"] is True
        assert chromium_processes(profile)  # the probe sees a browser that runs


async def test_max_page_tools_caps_the_tools_of_a_page(server_log: object, tmp_path: Path, sites: SiteServer) -> None:
    saved = CAPTURES / "mail_inbox.html"
    inbox = PageCapture(url=sites.url("mail/"), title="Inbox", html=saved.read_text(encoding="utf-8"))
    every = [t.name for t in Registry.discover().page_tools(inbox)]
    assert len(every) > 3  # the inbox offers more tools than the cap below
    settings = {"ws_port": "0", "user_data_dir": str(tmp_path / "profile")}
    assert "TABMCP_MAX_PAGE_TOOLS" not in os.environ
    async with serve(server_log, **settings, max_page_tools="3") as client:
        await client.call_ok("connect_browser", {"launch": True})
        opened = await client.call_ok("open_tab", {"url": sites.url("mail")})
        assert opened["toolsAvailable"] == every[:3]  # the most useful three
        names = await client.tool_names()
        assert [n for n in names if n in every] == every[:3]
