"""Slow failures answered in time: a server that accepts the connection and never answers, and a page
whose script never returns (``while (true) {}``). The call that meets one answers within its own
timeout, the next call on that tab says at once that the tab is busy, and other tabs go on working.
Real parts: `tabmcp serve` over stdio, headless Chromium with the extension (and over CDP), a
loopback TCP server that reads and never writes, the fixture pages (tests/fixtures/pages)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tabmcp.demo.client import StdioSession, data_of, text_of
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import serve

pytestmark = pytest.mark.usefixtures("driver_kind")

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
NAVIGATION_S = 3  # TABMCP_NAVIGATION_TIMEOUT_MS here: the stated wait of open_tab and navigate
REQUEST_S = 8  # TABMCP_REQUEST_TIMEOUT here: the stated wait of snapshot
ACTION_S = 1  # TABMCP_ACTION_TIMEOUT_MS here
# interact waits for actionability, then for a navigation the action started (15 s), plus a margin (5 s)
INTERACT_S = ACTION_S + 15 + 5
# a busy tab is refused at once: far below any call's own timeout (a liveness probe of 1 s at most)
AT_ONCE_S = 4.0


@pytest.fixture(scope="module")
def pages() -> Iterator[SiteServer]:
    with SiteServer(PAGES) as server:
        yield server


@asynccontextmanager
async def silent_server() -> AsyncIterator[str]:
    """A loopback HTTP address that accepts connections, reads the request and never answers."""
    held: list[asyncio.StreamWriter] = []

    async def swallow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)
        while await reader.read(65536):
            pass

    server = await asyncio.start_server(swallow, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/never"
    finally:
        for writer in held:
            writer.close()
        server.close()


def launched(server_log: object, tmp_path: Path) -> StdioSession:
    return serve(
        server_log,
        ws_port="0",
        user_data_dir=str(tmp_path / "profile"),
        navigation_timeout_ms=str(NAVIGATION_S * 1000),
        request_timeout=str(REQUEST_S),
        action_timeout_ms=str(ACTION_S * 1000),
    )


async def timed(session: StdioSession, tool: str, args: dict[str, Any]) -> tuple[Any, float]:
    started = time.monotonic()
    result = await session.call(tool, args)
    return result, time.monotonic() - started


def busy_error(result: Any, tab_id: int) -> str:
    """The busy answer: an error with code TIMEOUT that names the tab and what the model can do."""
    text = text_of(result)
    assert result.is_error, text
    assert data_of(result)["code"] == "TIMEOUT", text
    assert f"Tab {tab_id} is " in text and f"close_tab {tab_id}" in text, text
    return text


async def works_in_another_tab(session: StdioSession, pages: SiteServer) -> None:
    # another site (localhost, not 127.0.0.1), so not a renderer the stuck page could share
    other = pages.url("navigation-target.html").replace("127.0.0.1", "localhost")
    await session.call_ok("open_tab", {"url": other})
    snap = text_of(await session.call("snapshot", {}))
    assert "Target page" in snap and "Back to navigation" in snap, snap


async def test_a_server_that_never_answers(server_log: object, tmp_path: Path, pages: SiteServer) -> None:
    async with silent_server() as never, launched(server_log, tmp_path) as session:
        # connect_browser(url) opens its page as open_tab does, and says the page did not come
        connected = await session.call("connect_browser", {"launch": True, "url": never})
        assert connected.is_error and "Connected to" in text_of(connected), text_of(connected)
        assert f"still loading {never}" in text_of(connected), text_of(connected)

        opened, took = await timed(session, "open_tab", {"url": never})
        tab_id = int(text_of(opened).split("Tab ")[1].split()[0])
        text = busy_error(opened, tab_id)
        assert f"still loading {never}" in text
        # within its stated wait: well under the 15 s load wait + a request timeout once stacked
        assert took < 3 * NAVIGATION_S + 2, f"open_tab took {took:.1f} s"
        listing = (await session.call_ok("list_tabs"))["tabs"]
        assert [t["focused"] for t in listing if t["id"] == tab_id] == [True]

        snapshot, took = await timed(session, "snapshot", {})
        assert f"still loading {never}" in busy_error(snapshot, tab_id)
        assert took < AT_ONCE_S, f"the snapshot of a loading tab took {took:.1f} s"

        await works_in_another_tab(session, pages)
        await session.call_ok("close_tab", {"tabId": tab_id})  # the remedy the error names works

        # a tab with a page, sent to the silent server: its old page must not pass for the new one
        other = (await session.call_ok("list_tabs"))["focusedTabId"]
        moved, took = await timed(session, "navigate", {"url": never})
        assert moved.is_error and data_of(moved)["code"] == "TIMEOUT", text_of(moved)
        assert took < 3 * NAVIGATION_S + 2, f"navigate took {took:.1f} s"
        snapshot, took = await timed(session, "snapshot", {})
        assert took < AT_ONCE_S, f"the snapshot of a loading tab took {took:.1f} s: {text_of(snapshot)}"
        assert f"still loading {never}" in busy_error(snapshot, other)
        await session.call_ok("navigate", {"url": pages.url("navigation.html")})  # navigating away ends it
        assert "Navigate by script" in text_of(await session.call("snapshot", {}))


async def test_a_page_stuck_in_a_busy_loop(server_log: object, tmp_path: Path, pages: SiteServer) -> None:
    async with launched(server_log, tmp_path) as session:
        await session.call_ok("connect_browser", {"launch": True})
        opened = await session.call_ok("open_tab", {"url": pages.url("busy-loop.html")})
        tab_id = opened["tab"]["id"]

        clicked, took = await timed(session, "interact", {"action": "click", "target": "css=#spin"})
        assert clicked.is_error and data_of(clicked)["code"] == "TIMEOUT", text_of(clicked)
        assert took < 2 * INTERACT_S, f"the click took {took:.1f} s"

        for _ in range(2):  # every further call on the tab: at once, not after the request timeout
            snapshot, took = await timed(session, "snapshot", {})
            assert took < AT_ONCE_S, f"the snapshot of a busy tab took {took:.1f} s: {text_of(snapshot)}"
            assert "its page has not answered" in busy_error(snapshot, tab_id)
        assert "its page has not answered" in busy_error(clicked, tab_id)  # the click said so too

        await works_in_another_tab(session, pages)
        await session.call_ok("close_tab", {"tabId": tab_id})
