"""A page tool's answer carries what a same-origin frame of the page shows (a webmail's message body in
an iframe), and only that: not a frame of another origin, not a frame too small to show anything, not
a frame the call did not change. `tabmcp serve` over stdio, a real MCP client, headless Chromium on both
drivers; the page is tests/fixtures/pages/inbox/index.html."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tabmcp.demo.client import text_of
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import serve
from tests.integration.real_apps import tool_taking
from tests.integration.test_live_search import call

pytestmark = pytest.mark.usefixtures("driver_kind")

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"


@pytest.fixture(scope="module")
def pages() -> Iterator[SiteServer]:
    with SiteServer(PAGES) as server:
        yield server


async def test_the_answer_carries_the_message_a_same_origin_frame_shows(server_log: object, pages: SiteServer) -> None:
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": pages.url("inbox/index.html")})
        opener, [row] = await tool_taking(client, ("row",))

        opened = await call(client, opener.name, {row: "Travel plans for May"})
        said = text_of(await client.call(opener.name, {row: "Office move"}))
        assert opened["frame"] == "Flights are booked for the twelfth of May; the hotel is near the station."
        assert "navigated" not in opened["page"]  # type: ignore[operator]
        assert "The office moves to the third floor on Monday." in said
        # the other origin's frame and the tracking pixel are not the page's content; the old message is gone
        for other in ("Advert text", "Tracking pixel", "Flights are booked", "Choose a message"):
            assert other not in said


async def test_a_page_the_call_lands_on_says_what_its_frames_show(server_log: object, pages: SiteServer) -> None:
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": pages.url("inbox/index.html")})
        search, [query] = await tool_taking(client, ("query", "search"))
        landed = await call(client, search.name, {query: "figures"})
        assert landed["page"]["navigated"] is True  # type: ignore[index]
        assert "The best match, opened." in str(landed["text"])
        assert landed["frame"] == "The quarterly figures are attached. Revenue rose by four percent."
