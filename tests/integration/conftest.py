"""Real parts: `tabmcp serve` over stdio, the demo sites on 127.0.0.1, headless Chromium with the
real extension (launched by tabmcp, or by the test playing the user's own browser).

Every server here is started with ``PAIRING_TOKEN`` and every browser the tests start themselves is
paired with it, as a user who pasted `tabmcp token` into the options page would be."""

from __future__ import annotations

import os
import signal
import socket
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import anyio
import pytest
from playwright.async_api import BrowserContext, Page, Playwright, async_playwright

from tabmcp.config import Settings
from tabmcp.demo.client import StdioSession
from tabmcp.demo.sites import SiteServer
from tabmcp.drivers.launch import chromium_args, prepare_extension

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
PAIRING_TOKEN = "integration-test-pairing-token"
# what a client sees while a tab is focused, before the page's own tools
CORE_FOCUSED = [
    *["list_tabs", "open_tab", "focus_tab", "close_tab"],
    *["snapshot", "interact", "navigate", "wait_for", "screenshot", "console"],
]


# The backends the suites run on (docs/scaling.md): a module opts in with
# ``pytestmark = pytest.mark.usefixtures("driver_kind")``; a test that is about the extension itself
# (its service worker, its pairing) is marked ``extension_only`` and runs on the extension alone.
DRIVERS = ["extension", "cdp"]
_active_driver = "extension"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "extension_only: a test of the extension itself, not run on the CDP driver")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "driver_kind" in metafunc.fixturenames:
        only = metafunc.definition.get_closest_marker("extension_only")
        metafunc.parametrize("driver_kind", ["extension"] if only else DRIVERS, indirect=True)


@pytest.fixture
def driver_kind(request: pytest.FixtureRequest) -> Iterator[str]:
    """Which driver ``serve()`` (and ``connect_browser(launch=true)``) uses in this test."""
    global _active_driver
    _active_driver = request.param
    try:
        yield request.param
    finally:
        _active_driver = "extension"


def driver_settings(kind: str) -> dict[str, str]:
    """The settings that select a driver: the CDP one launches Debian's Chromium without the extension."""
    return {"browser": "chromium"} if kind == "cdp" else {}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/integration" in str(item.fspath):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def sites() -> Iterator[SiteServer]:
    with SiteServer() as server:
        yield server


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def server_log(request: pytest.FixtureRequest) -> Iterator[object]:
    """The server's stderr, kept as a test artefact (and shown when a test fails)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{request.node.name}.server.log"
    with path.open("w+") as log:
        yield log


def serve(server_log: object, *, client_name: str | None = None, **settings: str) -> StdioSession:
    """`tabmcp serve` over stdio with these settings, on the driver the test runs on (``driver_kind``);
    ``client_name``: the clientInfo name the client gives (the SDK's default otherwise)."""
    env = {f"TABMCP_{k.upper()}": v for k, v in {**driver_settings(_active_driver), **settings}.items()}
    env.setdefault("TABMCP_LOG_LEVEL", "DEBUG")
    env.setdefault("TABMCP_PAIRING_TOKEN", PAIRING_TOKEN)
    # not the user's real socket in ~/.config/tabmcp: the native messaging tests turn it on in a temp config dir
    env.setdefault("TABMCP_NATIVE_BRIDGE", "false")
    return StdioSession(env=env, errlog=server_log, client_name=client_name)  # type: ignore[arg-type]


class OwnBrowser:
    """Chromium started by the test with the extension loaded, as a user's own browser would be."""

    def __init__(self, ws_port: int, token: str | None = PAIRING_TOKEN, transport: str = "websocket") -> None:
        self.ws_port = ws_port
        self.token = token
        self.transport = transport
        self.scratch = tempfile.TemporaryDirectory(prefix="tabmcp-test-")
        self.profile = Path(self.scratch.name) / "profile"
        self.context: BrowserContext
        self._pw: Playwright | None = None

    async def __aenter__(self) -> OwnBrowser:
        root = Path(self.scratch.name)
        url = f"ws://127.0.0.1:{self.ws_port}"
        extension = prepare_extension(root / "extension", url, self.token, self.transport)
        self._pw = await async_playwright().start()
        try:
            self.context = await self._pw.chromium.launch_persistent_context(
                str(self.profile),
                executable_path=Settings().resolved_browser_path(),
                headless=True,
                args=chromium_args(extension, as_root=os.geteuid() == 0),
                ignore_default_args=["--disable-extensions"],
            )
        except BaseException:  # `async with` calls __aexit__ only after __aenter__ returned
            await self._pw.stop()
            self._pw = None
            self.scratch.cleanup()
            raise
        return self

    async def close(self) -> None:
        if self._pw is not None:
            try:
                await self.context.close()
            finally:
                await self._pw.stop()
                self._pw = None
                self.scratch.cleanup()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


@pytest.fixture
async def own_browser_port() -> AsyncIterator[int]:
    yield free_port()


async def eventually(
    check: Callable[[], Awaitable[bool]], what: str, timeout: float = 15.0, every: float = 0.1
) -> None:
    """Poll a condition the browser makes true asynchronously (bounded: never hangs)."""
    with anyio.move_on_after(timeout):
        while not await check():
            await anyio.sleep(every)
        return
    raise AssertionError(f"timed out waiting for: {what}")


async def page_at(context: BrowserContext, url: str) -> Page:
    """The Playwright page showing ``url`` in a browser the test also drives: a tab the extension
    opened reaches Playwright's page list, with its URL, a little after the tool call answered."""

    def find() -> Page | None:
        return next((p for p in context.pages if p.url == url), None)

    async def seen() -> bool:
        return find() is not None

    await eventually(seen, f"a page at {url} among Playwright's pages")
    page = find()
    assert page is not None
    return page


async def tab_id_for(client: StdioSession, url: str) -> int:
    """The id of the tab at ``url``, once list_tabs shows it (a tab the user opened)."""
    found: list[int] = []

    async def listed() -> bool:
        tabs = (await client.call_ok("list_tabs"))["tabs"]
        found[:] = [t["id"] for t in tabs if t["url"] == url]
        return bool(found)

    await eventually(listed, f"a tab at {url} in list_tabs")
    return found[0]


def kill_browser_using(profile: Path) -> int:
    """SIGKILL the Chromium processes started with this profile: the browser vanishes."""
    killed = 0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"--user-data-dir={profile}".encode() in cmdline or (
            str(profile).encode() in cmdline and any(b"chrom" in part for part in cmdline[:1])
        ):
            try:
                os.kill(int(proc.name), signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                pass
    return killed
