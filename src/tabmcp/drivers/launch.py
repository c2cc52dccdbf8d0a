"""Launching Chromium with tabmcp's extension loaded, for ``connect_browser(launch=true)``.

The extension is copied to a scratch folder with a ``tabmcp-config.json`` naming this server's
bridge and its pairing token, so a launched browser finds the right port and is paired without the
user touching the options page.
Playwright's persistent context is used because extensions need a real profile, and Playwright's
default ``--disable-extensions`` must be dropped or the extension silently never loads.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path

from tabmcp.config import Settings

log = logging.getLogger(__name__)
CONFIG_FILE = "tabmcp-config.json"
BASE_FLAGS = [
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-gpu",
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
        self._playwright = None
        self._context = None
        self._scratch: tempfile.TemporaryDirectory[str] | None = None

    @property
    def running(self) -> bool:
        return self._context is not None

    async def launch(self, server_url: str) -> None:
        from playwright.async_api import Error as PlaywrightError
        from playwright.async_api import async_playwright

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
        self._playwright = await async_playwright().start()
        try:
            self._context = await self._playwright.chromium.launch_persistent_context(
                str(profile),
                executable_path=executable,
                headless=self.settings.resolved_headless(),
                args=[*chromium_args(extension_dir, as_root=os.geteuid() == 0), *feature_flags(self.settings)],
                ignore_default_args=["--disable-extensions"],
            )
        except PlaywrightError as exc:
            await self.close()
            raise LaunchError(f"Chromium at {executable} failed to start: {exc}") from None
        self._context.on("close", lambda _ctx: log.info("launched browser closed"))
        log.info("launched %s (headless=%s)", executable, self.settings.resolved_headless())

    async def close_initial_pages(self) -> None:
        """Close the blank page a fresh browser opens, so the session starts with no tabs."""
        if self._context is not None:
            for page in list(self._context.pages):
                if page.url in ("about:blank", "chrome://newtab/", "chrome://new-tab-page/"):
                    await page.close()

    async def close(self) -> None:
        context, playwright, scratch = self._context, self._playwright, self._scratch
        self._context = self._playwright = self._scratch = None
        if context is not None:
            try:
                await context.close()
            except Exception as exc:  # already gone is fine
                log.debug("closing the browser: %s", exc)
        if playwright is not None:
            await playwright.stop()
        if scratch is not None:
            scratch.cleanup()
