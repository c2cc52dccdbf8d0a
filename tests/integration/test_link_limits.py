"""The browser link's frame limit with the real extension: a request or an answer too large for one
frame fails that call alone, saying how large it is, and every other call on the link goes on."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabmcp import protocol as p
from tabmcp.demo.sites import SiteServer
from tabmcp.drivers.extension.bridge import Bridge, LinkLost
from tests.integration.linked import fails, linked_browser

LIMIT = 256 * 1024  # lowered from 16 MiB so that no page has to make 16 MiB of text
OVER_THE_LIMIT = r"is ([\d,]+) bytes, over the browser link's 262,144-byte frame limit"


@pytest.fixture
def sites(tmp_path: Path) -> Iterator[SiteServer]:
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "a.html").write_text("<!doctype html><title>A</title><p>Short page</p>")
    with SiteServer(tmp_path / "pages") as server:
        yield server


def link_lost(bridge: Bridge) -> list[LinkLost]:
    events = []
    while not bridge.events.empty():
        events.append(bridge.events.get_nowait())
    return [e for e in events if isinstance(e, LinkLost)]


async def test_an_answer_over_the_frame_limit_fails_that_call_alone(sites: SiteServer, tmp_path: Path) -> None:
    async with linked_browser(tmp_path, sites.base_url, max_frame_bytes=LIMIT) as env:
        assert env.bridge is not None
        tab = await env.open("a.html")
        big = env.driver.evaluate(tab, f"'x'.repeat({LIMIT})", 10_000)
        beside = env.driver.wait_for(tab, {"timeMs": 500}, 5_000)
        too_large, waited = await asyncio.gather(fails(big, p.ErrorCode.FRAME_TOO_LARGE), beside)
        size = re.search("the answer " + OVER_THE_LIMIT, too_large)
        assert size is not None, too_large
        assert int(size.group(1).replace(",", "")) > LIMIT
        assert waited["met"] is True  # the call beside it was answered
        assert not link_lost(env.bridge) and env.bridge.linked
        assert (await env.driver.evaluate(tab, "'y'.repeat(1000).length", 10_000))["json"] == 1000


async def test_a_request_over_the_frame_limit_fails_that_call_alone(sites: SiteServer, tmp_path: Path) -> None:
    async with linked_browser(tmp_path, sites.base_url, max_frame_bytes=LIMIT) as env:
        assert env.bridge is not None
        tab = await env.open("a.html")
        big = env.driver.wait_for(tab, {"text": "z" * LIMIT}, 2_000)
        message = await fails(big, p.ErrorCode.FRAME_TOO_LARGE)
        assert re.search("the 'callAgent' request " + OVER_THE_LIMIT, message), message
        assert (await env.driver.wait_for(tab, {"text": "Short page"}, 5_000))["met"] is True
        assert not link_lost(env.bridge) and env.bridge.linked
