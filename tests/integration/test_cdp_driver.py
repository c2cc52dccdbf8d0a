"""The CDP driver against real Chromium: a browser the test starts with a DevTools port (as one in a
container or on a grid would be), and one the server launches itself (``--browser chromium``).

The test plays the user (or whatever else drives that browser) through its own Playwright
connection to the same DevTools endpoint, so the server sees tabs it did not open, navigations it
did not make, crashes and closes, and the endpoint vanishing under it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from playwright.async_api import Browser, Page, async_playwright
from websockets.asyncio.client import connect as ws_connect
from websockets.asyncio.server import serve as ws_serve
from websockets.exceptions import ConnectionClosed

from tabmcp.demo.client import StdioSession, text_of
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import (
    ARTIFACTS,
    CORE_FOCUSED,
    eventually,
    free_port,
    kill_browser_using,
    serve,
    tab_id_for,
)
from tests.integration.held_page import HeldPage

CHROMIUM = "/usr/bin/chromium"
CORE_TABS = ["list_tabs", "open_tab", "focus_tab"]
QUIET = 0.7  # how long a notification that must not come gets to show up anyway


class RemoteChromium:
    """Headless Chromium with a DevTools port, started by the test in its own process group so the
    whole browser (renderers, zygote, GPU process) can be killed at once."""

    def __init__(self, root: Path, port: int, url: str | None = None) -> None:
        self.port = port
        self.profile = root / f"profile-{port}-{os.urandom(3).hex()}"
        self.url = url
        self.process: subprocess.Popen[bytes] | None = None
        self.version: dict[str, Any] = {}

    @property
    def http_endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_endpoint(self) -> str:
        return str(self.version["webSocketDebuggerUrl"])

    async def start(self) -> RemoteChromium:
        args = [
            CHROMIUM,
            f"--remote-debugging-port={self.port}",
            "--remote-debugging-address=127.0.0.1",
            "--headless=new",
            "--no-sandbox",
            f"--user-data-dir={self.profile}",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-gpu",
            *([self.url] if self.url else []),
        ]
        self.process = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        with anyio.fail_after(20):
            while True:
                if self.process.poll() is not None:
                    raise AssertionError(f"Chromium exited at start with code {self.process.returncode}")
                try:
                    self.version = await anyio.to_thread.run_sync(self._read_version)
                    return self
                except OSError:
                    await anyio.sleep(0.1)

    def _read_version(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.http_endpoint}/json/version", timeout=2) as answer:
            return json.loads(answer.read())

    def kill(self) -> None:
        """SIGKILL the browser's process group: the endpoint vanishes without a goodbye."""
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        kill_browser_using(self.profile)  # anything that left the group


@contextlib.asynccontextmanager
async def remote_chromium(root: Path, port: int, url: str | None = None) -> AsyncIterator[RemoteChromium]:
    browser = RemoteChromium(root, port, url)
    try:
        yield await browser.start()
    finally:
        browser.kill()


@contextlib.asynccontextmanager
async def user_connection(endpoint: str) -> AsyncIterator[Browser]:
    """The test's own CDP connection to the browser: the user's hands."""
    async with async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(endpoint)
        try:
            yield browser
        finally:
            await browser.close()  # disconnects only: the browser is the test's to kill


async def page_at(browser: Browser, url: str) -> Page:
    """The user's view of the tab at ``url`` (a tab the server opened shows up here a little later)."""
    found: list[Page] = []

    async def seen() -> bool:
        found[:] = [p for p in browser.contexts[0].pages if p.url == url]
        return bool(found)

    await eventually(seen, f"the user's connection to see a tab at {url}")
    return found[0]


async def listed_ids(client: StdioSession) -> list[int]:
    return [t["id"] for t in (await client.call_ok("list_tabs"))["tabs"]]


async def expect_no_change(client: StdioSession, before: int) -> None:
    await anyio.sleep(QUIET)
    assert client.changes == before, "an unexpected list_changed arrived"


# ----------------------------------------------------------------------------- remote endpoint


async def test_remote_endpoint_drives_tabs_open_before(sites: SiteServer, server_log: object, tmp_path: Path) -> None:
    mail = sites.url("mail.html")
    async with remote_chromium(tmp_path, free_port(), mail) as chromium:
        async with serve(server_log, cdp_endpoint=chromium.http_endpoint) as client:
            assert await client.tool_names() == ["connect_browser"]
            connected = await client.call_ok("connect_browser")  # no launch: the browser is there
            assert connected["connected"] is True
            assert connected["browser"]["name"] == "Chromium"
            assert connected["tabCount"] == 1
            await client.wait_changes(1)
            assert await client.tool_names() == CORE_TABS

            listing = await client.call_ok("list_tabs")
            assert [(t["url"], t["title"]) for t in listing["tabs"]] == [(mail, "Postbox – inbox")]
            assert listing["focusedTabId"] is None
            tab_id = listing["tabs"][0]["id"]

            # the page loaded before the driver came: the agent is injected when it is needed
            focused = await client.call_ok("focus_tab", {"tabId": tab_id})
            assert focused["toolsAvailable"] == ["search_mail", "send"]
            await client.wait_changes(2)
            assert await client.tool_names() == [*CORE_FOCUSED, "search_mail", "send"]

            sent = await client.call_ok("send", {"to": "ada@example.com", "subject": "Remote", "urgent": True})
            assert 'Sent "Remote" to ada@example.com (urgent)' in sent["status"]

            async with user_connection(chromium.http_endpoint) as user:
                page = await page_at(user, mail)
                assert await page.text_content("#status") == 'Sent "Remote" to ada@example.com (urgent)'
                assert await page.evaluate("typeof globalThis.__tabmcpAgent") == "object"

        # the server went away and let the browser be: its tab is still there, for the ws:// form
        assert chromium.process is not None and chromium.process.poll() is None
        assert chromium.ws_endpoint.startswith(f"ws://127.0.0.1:{chromium.port}/devtools/browser/")
        async with serve(server_log, cdp_endpoint=chromium.ws_endpoint) as client:
            connected = await client.call_ok("connect_browser")
            assert connected["tabCount"] == 1
            tab_id = await tab_id_for(client, mail)
            focused = await client.call_ok("focus_tab", {"tabId": tab_id})
            assert focused["toolsAvailable"] == ["search_mail", "send"]
            found = await client.call_ok("search_mail", {"query": "flight"})
            assert found["page"]["url"] == sites.url("mail.html?q=flight")
            assert await listed_ids(client) == [tab_id]


async def test_endpoint_killed_mid_call(sites: SiteServer, server_log: object, tmp_path: Path) -> None:
    port = free_port()
    async with serve(server_log, cdp_endpoint=f"http://127.0.0.1:{port}") as client, HeldPage() as held:
        async with remote_chromium(tmp_path, port) as chromium:
            await client.call_ok("connect_browser")
            await client.wait_changes(1)
            opened = await client.call_ok("open_tab", {"url": sites.url("mail.html")})
            assert opened["focused"] is True
            await client.wait_changes(2)

            outcome: list[types.CallToolResult] = []

            async def held_navigation() -> None:
                outcome.append(await client.call("navigate", {"url": held.url}))

            with anyio.fail_after(20):  # well before the navigation's own 30 s
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(held_navigation)
                    await held.wait_requested()  # the navigation is under way in the browser
                    assert not outcome, f"navigate answered early: {outcome and text_of(outcome[0])}"
                    chromium.kill()
            failed = outcome[0]
            assert failed.is_error
            assert "DISCONNECTED" in text_of(failed) and "connect_browser" in text_of(failed)

            await client.wait_changes(3)
            assert await client.tool_names() == ["connect_browser"]
            stale = await client.call("list_tabs")
            assert stale.is_error and "Available tools: connect_browser." in text_of(stale)
            stale_page_tool = await client.call("send", {"to": "ada@example.com"})
            assert stale_page_tool.is_error and "Available tools: connect_browser." in text_of(stale_page_tool)

        # a new browser on the same port: connect_browser links again
        async with remote_chromium(tmp_path, port, sites.url("flights.html")) as chromium:
            connected = await client.call_ok("connect_browser")
            assert connected["tabCount"] == 1
            await client.wait_changes(4)
            assert await client.tool_names() == CORE_TABS
            flights = await tab_id_for(client, sites.url("flights.html"))
            focused = await client.call_ok("focus_tab", {"tabId": flights})
            assert focused["toolsAvailable"] == ["search_flights"]


async def test_unreachable_endpoint(sites: SiteServer, server_log: object, tmp_path: Path) -> None:
    port = free_port()  # nothing listens there (yet)
    endpoint = f"http://127.0.0.1:{port}"
    async with serve(server_log, cdp_endpoint=endpoint) as client:
        refused = await client.call("connect_browser")
        assert refused.is_error
        assert endpoint in text_of(refused) and "docs/scaling.md" in text_of(refused)
        assert client.changes == 0
        # the server is still there and still says what to do
        assert await client.tool_names() == ["connect_browser"]
        tab_tool = await client.call("list_tabs")
        assert tab_tool.is_error and "Available tools: connect_browser." in text_of(tab_tool)
        # the browser comes up later: the same call now links
        async with remote_chromium(tmp_path, port, sites.url("about.html")):
            connected = await client.call_ok("connect_browser")
            assert connected["tabCount"] == 1
            await client.wait_changes(1)
            assert await client.tool_names() == CORE_TABS


@contextlib.asynccontextmanager
async def first_connection_stalls(target: str) -> AsyncIterator[tuple[str, list[int]]]:
    """A DevTools endpoint in front of ``target`` whose first connection is accepted and never
    answered, as a browser whose first attach stalls; later ones are relayed to ``target``."""
    connections: list[int] = []

    async def relay(source: Any, sink: Any, group: anyio.abc.TaskGroup) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for message in source:
                await sink.send(message)
        group.cancel_scope.cancel()  # either side closing ends the relay (a quiet upstream never says so)

    async def handler(client: Any) -> None:
        connections.append(len(connections) + 1)
        if len(connections) == 1:
            await client.wait_closed()
            return
        async with ws_connect(target, max_size=None) as upstream, anyio.create_task_group() as group:
            group.start_soon(relay, client, upstream, group)
            group.start_soon(relay, upstream, client, group)

    async with ws_serve(handler, "127.0.0.1", 0, max_size=None) as front:
        port = front.sockets[0].getsockname()[1]
        yield f"ws://127.0.0.1:{port}/devtools/browser/relayed", connections


async def test_an_endpoint_whose_first_attach_stalls_is_tried_once_more(
    sites: SiteServer, server_log: object, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    async with (
        remote_chromium(tmp_path, free_port(), sites.url("about.html")) as chromium,
        first_connection_stalls(chromium.ws_endpoint) as (endpoint, connections),
        serve(server_log, cdp_endpoint=endpoint) as client,
    ):
        connected = await client.call_ok("connect_browser")
        # the third: the driver's own link for the agent's calls (drivers/cdp/direct.py)
        assert connected["tabCount"] == 1 and connections == [1, 2, 3]
        opened = await client.call_ok("open_tab", {"url": sites.url("flights.html")})
        assert opened["focused"] is True  # the second connection is a working one
    log_text = (ARTIFACTS / f"{request.node.name}.server.log").read_text()
    assert f"connecting to {endpoint} stalled; trying once more" in log_text


# ----------------------------------------------------------------------------- what the user does


async def test_user_edge_cases(sites: SiteServer, server_log: object, tmp_path: Path) -> None:
    """tests/scenarios/edge_*.jsonl, done in a real browser through the test's own connection."""
    async with (
        remote_chromium(tmp_path, free_port(), sites.url("about.html")) as chromium,
        serve(server_log, cdp_endpoint=chromium.http_endpoint) as client,
        user_connection(chromium.http_endpoint) as user,
    ):
        await client.call_ok("connect_browser")
        await client.wait_changes(1)
        assert await client.tool_names() == CORE_TABS
        about = await tab_id_for(client, sites.url("about.html"))

        # the user opens a tab: it is listed, and no list_changed is sent for an unfocused tab
        page = await user.contexts[0].new_page()
        await page.goto(sites.url("flights.html"))
        flights = await tab_id_for(client, sites.url("flights.html"))
        assert flights != about
        await expect_no_change(client, 1)

        focused = await client.call_ok("focus_tab", {"tabId": flights})
        assert focused["toolsAvailable"] == ["search_flights"]
        await client.wait_changes(2)

        # the page navigates by itself: re-introspected, and its page tools change
        await page.evaluate("url => setTimeout(() => { location.href = url }, 200)", sites.url("mail.html"))
        await client.wait_changes(3)
        assert await client.tool_names() == [*CORE_FOCUSED, "search_mail", "send"]
        assert await tab_id_for(client, sites.url("mail.html")) == flights  # the same tab, elsewhere

        # the focused tab's renderer crashes: the tab is dropped, and the focus with it
        session = await user.contexts[0].new_cdp_session(page)
        with contextlib.suppress(Exception), anyio.move_on_after(3):  # the crash answers nothing: the point
            await session.send("Page.crash")
        await client.wait_changes(4)
        assert await client.tool_names() == CORE_TABS
        assert await listed_ids(client) == [about]
        gone = await client.call("focus_tab", {"tabId": flights})
        assert gone.is_error and f"No tab with id {flights}" in text_of(gone)

        await page.close()  # the user closes the crashed tab: it was already dropped, nothing changes
        await expect_no_change(client, 4)

        # the user closes the focused tab
        opened = await client.call_ok("open_tab", {"url": sites.url("mail.html")})
        await client.wait_changes(5)
        assert await client.tool_names() == [*CORE_FOCUSED, "search_mail", "send"]
        await (await page_at(user, sites.url("mail.html"))).close()
        await client.wait_changes(6)
        assert await client.tool_names() == CORE_TABS
        assert await listed_ids(client) == [about]
        stale = await client.call("send", {"to": "ada@example.com"})
        assert stale.is_error and "Available tools: list_tabs, open_tab, focus_tab." in text_of(stale)
        assert opened["tab"]["id"] != about


# ----------------------------------------------------------------------------- --browser chromium


def chromium_processes_using(profile: Path) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError):
                if f"--user-data-dir={profile}".encode() in (proc / "cmdline").read_bytes().split(b"\0"):
                    found.append(int(proc.name))
    return found


async def test_launch_starts_a_browser_with_no_tabs(sites: SiteServer, server_log: object, tmp_path: Path) -> None:
    profile = tmp_path / "launched"
    try:
        async with serve(server_log, browser="chromium", user_data_dir=str(profile)) as client:
            connected = await client.call_ok("connect_browser", {"launch": True})
            assert connected["connected"] is True
            assert connected["browser"]["name"] == "Chromium"
            assert connected["tabCount"] == 0
            await client.wait_changes(1)
            assert await client.tool_names() == ["list_tabs", "open_tab"]
            assert chromium_processes_using(profile), "no Chromium runs with the configured profile"
            opened = await client.call_ok("open_tab", {"url": sites.url("flights.html")})
            assert opened["toolsAvailable"] == ["search_flights"]

        # the server stops the browser it launched when it goes
        async def stopped() -> bool:
            return not chromium_processes_using(profile)

        await eventually(stopped, "the launched Chromium to exit with the server", timeout=10)
    finally:
        kill_browser_using(profile)


async def test_launch_of_a_missing_browser(server_log: object) -> None:
    async with serve(server_log, browser="chromium", browser_path="/nonexistent") as client:
        failed = await client.call("connect_browser", {"launch": True})
        assert failed.is_error
        assert "/nonexistent" in text_of(failed) and "could not be started" in text_of(failed)
        assert "docs/scaling.md" in text_of(failed)
        assert client.changes == 0
        again = await client.call("connect_browser")  # the server is still there
        assert again.is_error and "/nonexistent" in text_of(again)
        assert await client.tool_names() == ["connect_browser"]
