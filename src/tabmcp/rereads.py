"""Tool lists delivered in the same turn: a call that changed the tool list answers only once its
client has re-read ``tools/list`` (bounded).

A client such as Claude Code re-reads the list shortly after ``list_changed`` but builds the model's
next request as soon as the call's result is in: without the hold, the model sees the new page's
tools one turn late. The hold applies to clients that use the list (they have read it at least once)
and that re-read after a notice. A client that let a hold run out is not held again until it shows a
prompt re-read once more: within the bound of a notice that no call has answered yet (a change the
page made by itself). A read after the answer proves nothing: a client that ignores notices reads the
list again when it pleases, often right after a call. Keys are client keys (the workspace a client
works in).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field

log = logging.getLogger(__name__)


@dataclass
class _Client:
    notices: int = 0  # list_changed notices sent so far
    read: int = 0  # the notice count at the client's last tools/list
    listed: bool = False  # it has read the list at least once
    ignores: bool = False  # a hold ran out: it does not re-read promptly
    answered: int = 0  # the notice count when a call last answered
    noticed_at: float = 0.0
    waiters: list[asyncio.Event] = field(default_factory=list)


class ListRereads:
    """``bound``: the longest a call's answer waits for the re-read (0: never held)."""

    def __init__(self, bound: float) -> None:
        self.bound = bound
        self._clients: dict[str, _Client] = {}

    def _of(self, key: str) -> _Client:
        return self._clients.setdefault(key, _Client())

    def notified(self, key: str) -> None:
        """A ``list_changed`` went out to this client."""
        client = self._of(key)
        client.notices += 1
        client.noticed_at = time.monotonic()

    def listed(self, key: str) -> None:
        """The client read ``tools/list``: it has the list as of every notice sent so far."""
        client = self._of(key)
        client.listed = True
        unanswered = client.answered < client.notices  # no call's answer has gone out since the last notice
        if unanswered and client.read < client.notices and time.monotonic() - client.noticed_at <= self.bound:
            client.ignores = False  # a prompt re-read: it is worth holding for again
        client.read = client.notices
        for waiter in client.waiters:
            waiter.set()

    def mark(self, key: str) -> int:
        """Where the client stands before a call: compared by ``settle`` after it."""
        return self._of(key).notices

    async def settle(self, key: str, mark: int) -> float:
        """After a call: if it was notified of a change since ``mark`` and has not re-read yet, wait
        (at most ``bound``) until it has. Returns the seconds it waited for a re-read that came (0 when
        none was needed, or none came)."""
        client = self._of(key)
        try:
            if client.notices == mark or client.read >= client.notices or self.bound <= 0:
                return 0.0
            if not client.listed or client.ignores:
                return 0.0
            return await self._hold(key, client)
        finally:
            client.answered = client.notices

    async def _hold(self, key: str, client: _Client) -> float:
        waiter = asyncio.Event()
        client.waiters.append(waiter)
        started = time.monotonic()
        try:
            async with asyncio.timeout(self.bound):
                while client.read < client.notices:
                    waiter.clear()
                    await waiter.wait()
        except TimeoutError:
            client.ignores = True
            log.info("client %s did not re-read the tool list within %.1f s; its answers are not held", key, self.bound)
            return 0.0
        finally:
            client.waiters.remove(waiter)
        return time.monotonic() - started

    def forget(self, key: str) -> None:
        self._clients.pop(key, None)
