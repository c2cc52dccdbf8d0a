"""Progress of a long tool call, for the client that asked for it (MCP ``notifications/progress``).

A client that sends ``_meta.progressToken`` with ``tools/call`` may show the steps (launching the
browser, waiting for the network to go idle, reading a big page, each check of ``ai_wait_for``)
and, in many clients, keeps the call alive past its usual timeout while they arrive. The server
builds one ``Progress`` per call and hands it to the tool through ``ToolContext``: tools say what
they are doing and never look at tokens or sessions. Without a token it does nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager, suppress
from typing import Any

log = logging.getLogger(__name__)
Send = Callable[[float, float | None, str | None], Awaitable[None]]
TICK_SECONDS = 2.0  # a wait with no steps of its own still reports this often


class Progress:
    """Numbered steps: every report counts one more, so progress only grows (as MCP requires).
    ``total`` is given by tools that know how many steps there are; a failing send (the client went
    away) never fails the call."""

    def __init__(self, send: Send | None = None) -> None:
        self._send = send
        self.done = 0
        self.total: float | None = None

    @property
    def active(self) -> bool:
        return self._send is not None

    async def step(self, message: str, *, total: float | None = None) -> None:
        if self._send is None:
            return
        self.done += 1
        if total is not None:
            self.total = max(total, self.done)
        elif self.total is not None and self.done > self.total:
            self.total = None  # more steps than announced: no total is better than a wrong one
        try:
            await self._send(self.done, self.total, message)
        except Exception as exc:  # a progress notice is a courtesy: the call goes on without it
            log.debug("progress notification not sent: %s", exc)

    @asynccontextmanager
    async def ticking(self, message: str, every: float = TICK_SECONDS) -> AsyncIterator[None]:
        """Report ``message`` now and then every ``every`` seconds while the block runs (a navigation
        waiting for ``networkidle``): a client that shows progress sees the call is alive."""
        await self.step(message)
        if self._send is None:
            yield
            return

        async def tick() -> None:
            waited = 0.0
            while True:
                await asyncio.sleep(every)
                waited += every
                await self.step(f"{message} ({waited:g} s)")

        ticker = asyncio.get_running_loop().create_task(tick())
        try:
            yield
        finally:
            ticker.cancel()
            with suppress(asyncio.CancelledError):
                await ticker


NO_PROGRESS = Progress()


def progress_token(meta: Mapping[str, Any] | None, params: Mapping[str, Any] | None = None) -> str | int | None:
    """The caller's ``_meta.progressToken``: from the SDK's parsed meta, else from the raw params.
    A boolean is no token (JSON ``true`` would pass for the integer 1)."""
    candidates: list[Any] = []
    if meta:
        candidates += [meta.get("progress_token"), meta.get("progressToken")]
    raw_meta = params.get("_meta") if params else None
    if isinstance(raw_meta, Mapping):
        candidates.append(raw_meta.get("progressToken"))
    for token in candidates:
        if isinstance(token, str | int) and not isinstance(token, bool):
            return token
    return None
