"""The Native Messaging channel end to end: `tabmcp install-native-host --user-data-dir` writes the
host manifest into a test profile, headless Chromium loads it from there, the real extension
connects with chrome.runtime.connectNative, Chrome starts the real `tabmcp native-host`, and an MCP
client drives the browser through `tabmcp serve`'s local socket, while the server's TCP port is
held by something else, so the WebSocket cannot be what carries the link."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Page

from tabmcp import pairing
from tabmcp.demo.client import text_of
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import ARTIFACTS, OwnBrowser, eventually, serve

pytestmark = pytest.mark.extension_only
OPTIONS_URL = f"chrome-extension://{pairing.EXTENSION_ID}/options.html"


@pytest.fixture
def blocked_port() -> Iterator[int]:
    """A port something else holds: a server told to use it gets no TCP bridge."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    return tmp_path / "config"  # where the server's socket and the host's launcher go


def install_host(profile: Path, config_dir: Path) -> Path:
    """`tabmcp install-native-host` for this profile, as a user would run it; the manifest written."""
    done = subprocess.run(
        [sys.executable, "-m", "tabmcp", "install-native-host", "--user-data-dir", str(profile),
         "--config-dir", str(config_dir)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    manifest = profile / "NativeMessagingHosts" / "com.tabmcp.bridge.json"
    assert str(manifest) in done.stdout.split()
    assert json.loads(manifest.read_text())["allowed_origins"] == [f"chrome-extension://{pairing.EXTENSION_ID}/"]
    return manifest


def server_log_text(name: str) -> str:
    return (ARTIFACTS / f"{name}.server.log").read_text()


async def link_status(page: Page) -> str:
    return (await page.text_content("#linkStatus")) or ""


async def test_the_browser_links_and_is_driven_through_native_messaging(
    sites: SiteServer, server_log: object, blocked_port: int, config_dir: Path, request: pytest.FixtureRequest
) -> None:
    browser = OwnBrowser(blocked_port, transport="native")  # the launcher's config says: native
    install_host(browser.profile, config_dir)
    settings = {"ws_port": str(blocked_port), "config_dir": str(config_dir), "native_bridge": "true"}
    settings["enable_evaluate"] = "true"
    async with serve(server_log, **settings) as client, browser:
        connected = await client.call_ok("connect_browser")
        assert connected["connected"] is True
        assert connected["browser"]["name"] == "Chromium"

        opened = await client.call_ok("open_tab", {"url": sites.url("flights.html")})
        assert opened["tab"]["url"] == sites.url("flights.html")
        snapshot = await client.call("snapshot")
        assert not snapshot.is_error, text_of(snapshot)
        assert "SkyHop" in text_of(snapshot)
        tabs = (await client.call_ok("list_tabs"))["tabs"]
        assert sites.url("flights.html") in [t["url"] for t in tabs]

        # a request over Chrome's 1 MiB host-to-extension limit: the host chunks it, the extension joins it
        big = await client.call("evaluate", {"expression": "'" + "é" * 600_000 + "'.length + 1"})
        assert not big.is_error, text_of(big)
        assert "value: 600001" in text_of(big)

    log = server_log_text(request.node.name)
    assert f"127.0.0.1:{blocked_port}" in log and "native messaging only" in log  # no TCP bridge at all
    assert "extension linked from the native messaging host" in log


async def test_no_server_is_reported_then_the_link_is_made_when_one_starts(
    sites: SiteServer, server_log: object, blocked_port: int, config_dir: Path
) -> None:
    browser = OwnBrowser(blocked_port)  # a WebSocket user, who switches to native on the options page
    install_host(browser.profile, config_dir)
    async with browser:
        options = await browser.context.new_page()
        await options.goto(OPTIONS_URL)
        assert await options.input_value("#transport") == "websocket"
        assert not await options.is_disabled("#serverUrl")
        await options.select_option("#transport", "native")
        assert await options.is_disabled("#serverUrl")  # the host finds the server, not an address
        await options.click("#save")

        async def server_not_found() -> bool:
            return (await link_status(options)).startswith("server not found")

        await eventually(server_not_found, "the options page to say the server is not found")
        status = await link_status(options)
        assert str(config_dir / "bridge.sock") in status and "tabmcp serve" in status

        settings = {"ws_port": str(blocked_port), "config_dir": str(config_dir), "native_bridge": "true"}
        async with serve(server_log, **settings) as client:

            async def linked() -> bool:
                return await link_status(options) == "connected"

            await eventually(linked, "the extension to link once the server is up")
            connected = await client.call_ok("connect_browser")
            assert connected["connected"] is True
            opened = await client.call_ok("open_tab", {"url": sites.url("about.html")})
            assert opened["tab"]["url"] == sites.url("about.html")

        # the server goes away: the extension notices, and says so again (the host waits for the next one)
        await eventually(server_not_found, "the extension to notice the server left", timeout=30)

        stored = await options.evaluate("chrome.storage.local.get('transport')")
        assert stored == {"transport": "native"}


async def test_a_host_not_installed_is_said_plainly(blocked_port: int, config_dir: Path) -> None:
    async with OwnBrowser(blocked_port, transport="native") as browser:  # no install-native-host
        options = await browser.context.new_page()
        await options.goto(OPTIONS_URL)

        async def reported() -> bool:
            return (await link_status(options)).startswith("native host not installed")

        await eventually(reported, "the options page to say the native host is not installed")
        assert "tabmcp install-native-host" in await link_status(options)
        assert await options.get_attribute("#linkStatus", "data-state") == "refused"

        # installed while the browser runs: saving the options reconnects, and Chrome finds the host now
        install_host(browser.profile, config_dir)
        await options.click("#save")

        async def host_runs() -> bool:
            return (await link_status(options)).startswith("server not found")  # the host answers: no server

        await eventually(host_runs, "the freshly installed host to start without a browser restart")


async def test_a_launched_browser_can_link_through_native_messaging(
    sites: SiteServer, server_log: object, blocked_port: int, config_dir: Path, request: pytest.FixtureRequest
) -> None:
    settings = {"ws_port": str(blocked_port), "config_dir": str(config_dir), "native_bridge": "true"}
    settings["extension_transport"] = "native"
    async with serve(server_log, **settings) as client:
        connected = await client.call_ok("connect_browser", {"launch": True})  # the launcher registers the host
        assert connected["connected"] is True
        opened = await client.call_ok("open_tab", {"url": sites.url("about.html")})
        assert opened["tab"]["url"] == sites.url("about.html")
        assert (config_dir / "native-host" / "tabmcp-native-host").is_file()
    assert "extension linked from the native messaging host" in server_log_text(request.node.name)


async def test_a_launch_over_a_websocket_that_cannot_listen_says_what_to_change(
    server_log: object, blocked_port: int, config_dir: Path
) -> None:
    settings = {"ws_port": str(blocked_port), "config_dir": str(config_dir), "native_bridge": "true"}
    async with serve(server_log, **settings) as client:  # transport: websocket, the default
        result = await client.call("connect_browser", {"launch": True})
        assert result.is_error
        message = text_of(result)
        assert f"127.0.0.1:{blocked_port}" in message and "--extension-transport native" in message
        assert await client.tool_names() == ["connect_browser"]  # nothing launched, nothing changed
