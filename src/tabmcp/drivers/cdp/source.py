"""Where the CDP driver's browser comes from: a DevTools endpoint, or a browser it starts itself.

A launched browser is reached the same way as a remote one: Chromium is started with
``--remote-debugging-port=0`` and the driver connects to the address it prints. One code path
serves a laptop, a container and a grid, and a launched branded Chrome (which ignores
``--load-extension``) is driven without the extension.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import shutil
import tempfile
from pathlib import Path

from tabmcp.config import Settings
from tabmcp.drivers.launch import BASE_FLAGS, LaunchError, feature_flags
from tabmcp.drivers.process import BrowserProcess

log = logging.getLogger(__name__)
DEVTOOLS_LINE = re.compile(r"DevTools listening on (ws://\S+)")
START_TIMEOUT = 30.0


class LaunchedBrowser:
    """A browser process started for the CDP driver, with a private profile unless one is configured."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.browser = BrowserProcess()
        self._scratch: str | None = None

    async def start(self) -> str:
        """Start the browser; its DevTools WebSocket URL."""
        executable = self.settings.resolved_browser_path()
        if executable is None:
            raise LaunchError(
                f"No {self.settings.browser or 'chromium'} executable found. Install it (Debian/Ubuntu: "
                "`apt-get install chromium`) or set TABMCP_BROWSER_PATH / --browser-path."
            )
        profile = self.settings.user_data_dir
        if profile is None:
            self._scratch = tempfile.mkdtemp(prefix="tabmcp-cdp-")
            profile = Path(self._scratch)
        args = [executable, *BASE_FLAGS, "--remote-debugging-port=0", f"--user-data-dir={profile}"]
        args += feature_flags(self.settings)
        if self.settings.resolved_headless():
            args.append("--headless=new")
        if os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium refuses to start as root with its sandbox on
        args.append("--no-startup-window")  # the session starts with no tabs, as a launched extension browser does
        try:
            await self.browser.start(args)
        except OSError as exc:
            self.cleanup()
            raise LaunchError(f"{executable} could not be started: {exc}") from None
        try:
            match = await asyncio.wait_for(self.browser.read_until(DEVTOOLS_LINE), START_TIMEOUT)
        except TimeoutError:
            match = None
            why = f"it printed no DevTools address within {START_TIMEOUT:g} s"
        else:
            why = f"it exited ({self.browser.tail})"
        if match is None:
            await self.stop()
            raise LaunchError(f"{executable} failed to start: {why}")
        return match.group(1)

    async def stop(self) -> None:
        await self.browser.stop()
        self.cleanup()

    def cleanup(self) -> None:
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
