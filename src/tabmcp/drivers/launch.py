"""Launching Chromium with tabmcp's extension loaded, for ``connect_browser(launch=true)``.

The extension is copied to a scratch folder with a ``tabmcp-config.json`` naming this server's
bridge and its pairing token, so a launched browser finds the right port and is paired without the
user touching the options page.
The browser is a plain child process (``BrowserProcess``): the extension link drives it, so no
automation library holds a connection to it (one would keep objects for every navigation).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Awaitable
from pathlib import Path

from tabmcp.config import Settings
from tabmcp.drivers.process import BrowserProcess

log = logging.getLogger(__name__)
CONFIG_FILE = "tabmcp-config.json"
BASE_FLAGS = [
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-gpu",
    "--window-size=1280,720",
    # a browser a model drives: a click it makes may open a popup (no user gesture reaches the page
    # from an extension's or a protocol's click), and tabs it is not looking at keep running
    "--disable-popup-blocking",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
]


WEBMCP_FLAG = "--enable-features=WebMCP"  # Chromium's own WebMCP (document.modelContext, CDP WebMCP domain)


class LaunchError(RuntimeError):
    pass


def extension_source() -> Path:
    """The extension folder: packaged beside the code (wheel) or at the repository root (source)."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "extension", here.parent.parent / "extension"):
        if (candidate / "manifest.json").exists():
            return candidate
    raise LaunchError("tabmcp's extension/ folder was not found next to the package")


def prepare_extension(dest: Path, server_url: str, token: str | None = None, transport: str = "websocket") -> Path:
    """Copy the extension to ``dest`` and point it at ``server_url``, paired with ``token`` if given.

    The copy keeps the manifest's ``key``, so its extension id (and Origin) is tabmcp's own.
    ``transport="native"`` makes it connect through the native messaging host instead
    (docs/native-messaging.md; the profile needs the host manifest: ``install_native_host``).
    """
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(extension_source(), dest)
    config: dict[str, str] = {"serverUrl": server_url}
    if token:
        config["token"] = token
    if transport != "websocket":
        config["transport"] = transport
    config_file = dest / CONFIG_FILE
    config_file.write_text(json.dumps(config))
    config_file.chmod(0o600)  # the token is a secret; the folder is a private temp dir anyway
    return dest


def install_native_host(profile: Path, settings: Settings) -> None:
    """Register the native messaging host in ``profile`` (Chromium reads ``profile/NativeMessagingHosts``)."""
    from tabmcp import pairing
    from tabmcp.native import install as native
    from tabmcp.native import socket_path

    launcher = native.launcher_path(pairing.resolve_config_dir(settings.config_dir)).absolute()
    socket = socket_path(settings.native_socket, settings.config_dir).absolute()
    target = native.Target("profile", profile.absolute() / "NativeMessagingHosts")
    native.install([target], launcher, sys.executable, socket, settings.extension_ids)


def chromium_args(extension_dir: Path, *, as_root: bool) -> list[str]:
    args = [*BASE_FLAGS, f"--disable-extensions-except={extension_dir}", f"--load-extension={extension_dir}"]
    if as_root:
        args.append("--no-sandbox")  # Chromium refuses to start as root with its sandbox on
    return args


def feature_flags(settings: Settings) -> list[str]:
    """Browser features a launched browser gets from the settings, whichever driver launches it."""
    return [WEBMCP_FLAG] if settings.webmcp_native else []


class ChromiumLauncher:
    """Owns one launched browser at a time; closing the server closes it."""

    def __init__(self, settings: Settings, pairing_token: str | None = None) -> None:
        self.settings = settings
        self.pairing_token = pairing_token  # the bridge's, written into the launched extension
        # held from the decision to launch until the browser linked: several clients (HTTP) may
        # ask at once, and a second launch would close the first browser while it starts
        self.lock = asyncio.Lock()
        self._browser: BrowserProcess | None = None
        self._scratch: tempfile.TemporaryDirectory[str] | None = None

    @property
    def running(self) -> bool:
        return self._browser is not None and self._browser.running

    async def launch(self, server_url: str) -> None:
        await self.close()
        executable = self.settings.resolved_browser_path()
        if executable is None:
            raise LaunchError(
                "No Chromium found. Install it (Debian/Ubuntu: `apt-get install chromium`) "
                "or set TABMCP_BROWSER_PATH to a Chromium/Chrome executable."
            )
        self._scratch = tempfile.TemporaryDirectory(prefix="tabmcp-")
        scratch = Path(self._scratch.name)
        transport = self.settings.extension_transport
        extension_dir = prepare_extension(scratch / "extension", server_url, self.pairing_token, transport)
        profile = self.settings.user_data_dir or scratch / "profile"
        if transport == "native":
            try:
                install_native_host(profile, self.settings)
            except OSError as exc:
                await self.close()
                raise LaunchError(f"cannot register the native messaging host in {profile}: {exc}") from None
        args = [executable, *chromium_args(extension_dir, as_root=os.geteuid() == 0), *feature_flags(self.settings)]
        args.append(f"--user-data-dir={profile}")
        if self.settings.resolved_headless():
            args.append("--headless=new")
        # the session starts with no tabs (the extension opens a window for the first), and the browser
        # stays up when its last window closes, as a browser the user keeps open does
        args += ["--no-startup-window", "--keep-alive-for-test"]
        self._browser = BrowserProcess()
        try:
            await self._browser.start(args)
        except OSError as exc:
            await self.close()
            raise LaunchError(f"Chromium at {executable} failed to start: {exc}") from None
        self._browser.drain()
        log.info("launched %s (headless=%s)", executable, self.settings.resolved_headless())

    async def until_linked(self, linked: Awaitable[bool]) -> bool:
        """``linked`` (the driver's wait for the extension), cut short with LaunchError when the
        browser exits first: a browser that cannot start says so at once, not at the timeout."""
        browser = self._browser
        waiting = asyncio.ensure_future(linked)
        if browser is None or browser.process is None:
            return await waiting
        exited = asyncio.ensure_future(browser.wait())
        try:
            await asyncio.wait({waiting, exited}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            exited.cancel()
        if waiting.done():
            return waiting.result()
        waiting.cancel()
        raise LaunchError(f"Chromium exited before its extension connected ({browser.tail})")

    async def close(self) -> None:
        browser, scratch = self._browser, self._scratch
        self._browser = self._scratch = None
        if browser is not None:
            await browser.stop()
        if scratch is not None:
            scratch.cleanup()
