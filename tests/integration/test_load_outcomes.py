"""What a page does while it loads, or right after an action, reaches the answer of the call that
caused it, on both drivers: a dialog a page shows on load (``open_tab``, ``navigate``), a meta refresh
into a blocked origin (``NAVIGATION_BLOCKED``, like a redirect), and a click whose page opens a
popup and then sends itself to a blocked origin."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tabmcp.demo.client import StdioSession, data_of, text_of
from tests.integration.conftest import serve
from tests.integration.test_navigation_policy import Origin

pytestmark = pytest.mark.usefixtures("driver_kind")

ALERT_PAGE = """<!doctype html><html><head><title>Greeting</title></head><body><h1>Greeting</h1>
<script>alert("Welcome on load"); confirm("Stay a while?");</script></body></html>"""
META_PAGE = """<!doctype html><html><head><title>Moving</title>
<meta http-equiv="refresh" content="0;url={blocked}/secret.html?meta"></head><body>Moving on</body></html>"""
OPEN_THEN_LEAVE = """<!doctype html><html><head><title>Leaving</title></head><body>
<button onclick="window.open('/plain.html'); location.href = '{blocked}/secret.html?leave'">Open and leave</button>
<button onclick="const popup = window.open(''); popup.location = '{blocked}/secret.html?popup'">Open and send</button>
</body></html>"""
PLAIN = "<!doctype html><html><head><title>Plain</title></head><body><p>Plain page</p></body></html>"
SECRET = "<!doctype html><html><head><title>Secret</title></head><body>TOP SECRET</body></html>"


class LoadSites:
    def __init__(self) -> None:
        self.allowed, self.blocked = Origin(), Origin()
        self.allowed.routes = {
            "/alert.html": (200, {}, ALERT_PAGE),
            "/meta.html": (200, {}, META_PAGE.format(blocked=self.blocked.url)),
            "/leave.html": (200, {}, OPEN_THEN_LEAVE.format(blocked=self.blocked.url)),
            "/plain.html": (200, {}, PLAIN),
        }
        self.blocked.routes = {"/secret.html": (200, {}, SECRET)}

    def url(self, path: str) -> str:
        return f"{self.allowed.url}/{path}"


@pytest.fixture
def load_sites() -> Iterator[LoadSites]:
    made = LoadSites()
    yield made
    made.allowed.close()
    made.blocked.close()


def launched(server_log: object, tmp_path: Path, sites: LoadSites) -> StdioSession:
    settings = {"block_urls": json.dumps([sites.blocked.url])}
    return serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile"), **settings)


def dialogs_of(answer: dict[str, Any]) -> list[tuple[str, str]]:
    return [(d["type"], d["message"]) for d in answer.get("dialogs", [])]


async def blocked(client: StdioSession, tool: str, args: dict[str, Any]) -> str:
    result = await client.call(tool, args)
    assert result.is_error, f"{tool} {args} succeeded: {text_of(result)}"
    assert data_of(result).get("code") == "NAVIGATION_BLOCKED", text_of(result)
    return text_of(result)


ON_LOAD = [("alert", "Welcome on load"), ("confirm", "Stay a while?")]


async def test_dialogs_shown_on_load_are_in_the_answer(
    server_log: object, tmp_path: Path, load_sites: LoadSites
) -> None:
    async with launched(server_log, tmp_path, load_sites) as client:
        await client.call_ok("connect_browser", {"launch": True})
        opened = await client.call_ok("open_tab", {"url": load_sites.url("alert.html")})
        assert dialogs_of(opened) == ON_LOAD, opened
        assert opened["dialogs"][1]["answer"] == "false"  # dismissed: nothing waits for the model
        plain = await client.call_ok("navigate", {"url": load_sites.url("plain.html")})
        assert "dialogs" not in plain, plain
        again = await client.call_ok("navigate", {"url": load_sites.url("alert.html")})
        assert dialogs_of(again) == ON_LOAD, again
        reloaded = await client.call_ok("navigate", {"go": "reload"})
        assert dialogs_of(reloaded) == ON_LOAD, reloaded
        assert "untrusted" in reloaded["note"]


async def test_a_meta_refresh_into_a_blocked_origin_is_refused(
    server_log: object, tmp_path: Path, load_sites: LoadSites
) -> None:
    async with launched(server_log, tmp_path, load_sites) as client:
        await client.call_ok("connect_browser", {"launch": True})
        why = await blocked(client, "open_tab", {"url": load_sites.url("meta.html")})
        assert f"{load_sites.blocked.url}/secret.html?meta" in why and "TABMCP_BLOCK_URLS" in why, why
        await client.call_ok("open_tab", {"url": load_sites.url("plain.html")})
        why = await blocked(client, "navigate", {"url": load_sites.url("meta.html")})
        assert "secret.html?meta" in why, why
        assert load_sites.blocked.hits == []
        assert (await client.call_ok("navigate", {"url": load_sites.url("plain.html")}))["title"] == "Plain"


async def test_a_click_that_opens_a_popup_then_leaves_for_a_blocked_origin(
    server_log: object, tmp_path: Path, load_sites: LoadSites
) -> None:
    async with launched(server_log, tmp_path, load_sites) as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": load_sites.url("leave.html")})
        click = {"action": "click", "target": "role=button[name=Open and leave]"}
        why = await blocked(client, "interact", click)
        assert "secret.html?leave" in why and "TABMCP_BLOCK_URLS" in why, why
        assert load_sites.blocked.hits == []


@pytest.mark.extension_only  # see docs/security.md: on CDP this note can come with the next result instead
async def test_a_click_whose_popup_goes_to_a_blocked_origin_says_so_in_its_answer(
    server_log: object, tmp_path: Path, load_sites: LoadSites
) -> None:
    async with launched(server_log, tmp_path, load_sites) as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": load_sites.url("leave.html")})
        # a first popup (an allowed page) becomes the window's active tab; the model's tab stays focused
        await blocked(client, "interact", {"action": "click", "target": "role=button[name=Open and leave]"})
        await client.call_ok("navigate", {"url": load_sites.url("leave.html")})
        sent = await client.call("interact", {"action": "click", "target": "role=button[name=Open and send]"})
        assert not sent.is_error, text_of(sent)
        notes = [line for line in text_of(sent).splitlines() if line.startswith("blocked")]
        assert notes and "secret.html?popup" in notes[0] and "TABMCP_BLOCK_URLS" in notes[0], text_of(sent)
        assert load_sites.blocked.hits == []


async def test_dialogs_shown_on_load_reach_every_open_tab_without_a_policy(
    server_log: object, tmp_path: Path, load_sites: LoadSites
) -> None:
    """Without a navigation policy (no routes in the way), a dialog the page shows while it loads still
    reaches open_tab's answer, tab after tab: the hooks are in place before the page's first script."""
    async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile")) as client:
        await client.call_ok("connect_browser", {"launch": True})
        for _ in range(3):
            opened = await client.call_ok("open_tab", {"url": load_sites.url("alert.html")})
            assert dialogs_of(opened) == ON_LOAD, opened
            assert opened["tab"]["title"] == "Greeting", opened
            plain = await client.call_ok("open_tab", {"url": load_sites.url("plain.html")})
            assert "dialogs" not in plain, plain
            assert plain["tab"]["title"] == "Plain", plain
