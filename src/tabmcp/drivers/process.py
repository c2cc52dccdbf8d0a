"""One browser process started by tabmcp: spawned with its arguments, stderr drained, stopped on close.

The launched browser is a plain child process, whichever driver links to it: no automation library
sits between tabmcp and it, so nothing keeps per-navigation objects on tabmcp's side.
"""

from __future__ import annotations

import asyncio
import re
from collections import deque

STOP_GRACE_S = 5.0
TAIL_LINES = 3


class BrowserProcess:
    def __init__(self) -> None:
        self.process: asyncio.subprocess.Process | None = None
        self._stderr: asyncio.Task[None] | None = None
        self._tail: deque[str] = deque(maxlen=TAIL_LINES)

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None

    @property
    def tail(self) -> str:
        """The browser's last few stderr lines, for an error saying why it stopped."""
        return " | ".join(self._tail) or "no output"

    async def start(self, args: list[str]) -> None:
        """Spawn ``args``; OSError when the executable cannot be run."""
        self.process = await asyncio.create_subprocess_exec(
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )

    async def read_until(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        """The first stderr line matching ``pattern``; None when the browser exits first.
        The rest of stderr is drained from then on."""
        assert self.process is not None and self.process.stderr is not None
        while True:
            raw = await self.process.stderr.readline()
            if not raw:
                return None
            line = raw.decode(errors="replace").strip()
            self._tail.append(line)
            match = pattern.search(line)
            if match:
                self.drain()
                return match

    def drain(self) -> None:
        """Keep reading the browser's stderr so a full pipe never blocks it."""
        if self._stderr is None:
            self._stderr = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        while raw := await self.process.stderr.readline():
            self._tail.append(raw.decode(errors="replace").strip())

    async def wait(self) -> int:
        """Until the browser exits; its exit code."""
        assert self.process is not None
        return await self.process.wait()

    async def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), STOP_GRACE_S)
            except TimeoutError:
                process.kill()
                await process.wait()
        if self._stderr is not None:
            self._stderr.cancel()
            self._stderr = None
