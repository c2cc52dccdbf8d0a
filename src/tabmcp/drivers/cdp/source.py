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

log = logging.getLogger(__name__)
DEVTOOLS_LINE = re.compile(r"DevTools listening on (ws://\S+)")
START_TIMEOUT = 30.0
WINDOW_SIZE = "--window-size=1280,720"  # what Playwright's own launch emulates by default


class LaunchedBrowser:
    """A browser process started for the CDP driver, with a private profile unless one is configured."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.process: asyncio.subprocess.Process | None = None
        self._scratch: str | None = None
        self._stderr: asyncio.Task[None] | None = None

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
        args = [executable, *BASE_FLAGS, "--remote-debugging-port=0", f"--user-data-dir={profile}", WINDOW_SIZE]
        args += feature_flags(self.settings)
        if self.settings.resolved_headless():
            args.append("--headless=new")
        if os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium refuses to start as root with its sandbox on
        args.append("--no-startup-window")  # the session starts with no tabs, as a launched extension browser does
        try:
            self.process = await asyncio.create_subprocess_exec(
                *args,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
            )
        except OSError as exc:
            self.cleanup()
            raise LaunchError(f"{executable} could not be started: {exc}") from None
        try:
            return await asyncio.wait_for(self._devtools_url(), START_TIMEOUT)
        except (TimeoutError, LaunchError) as exc:
            await self.stop()
            why = str(exc) or f"it printed no DevTools address within {START_TIMEOUT:g} s"
            raise LaunchError(f"{executable} failed to start: {why}") from None

    async def _devtools_url(self) -> str:
        assert self.process is not None and self.process.stderr is not None
        tail: list[str] = []
        while True:
            raw = await self.process.stderr.readline()
            if not raw:
                raise LaunchError(f"it exited ({' | '.join(tail[-3:]) or 'no output'})")
            line = raw.decode(errors="replace").strip()
            tail.append(line)
            match = DEVTOOLS_LINE.search(line)
            if match:
                self._stderr = asyncio.get_running_loop().create_task(self._drain())
                return match.group(1)

    async def _drain(self) -> None:
        """Keep reading the browser's stderr so a full pipe never blocks it."""
        assert self.process is not None and self.process.stderr is not None
        while await self.process.stderr.readline():
            pass

    async def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 5)
            except TimeoutError:
                process.kill()
                await process.wait()
        if self._stderr is not None:
            self._stderr.cancel()
            self._stderr = None
        self.cleanup()

    def cleanup(self) -> None:
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
