"""Whether a ``list_changed`` notice tells a workspace's client something. Pure: no I/O.

A notice costs the model a whole re-read of the tool list, so one is sent only when the list the
client would read now has a tool it does not already have as it is: a tool added, a tool whose name,
title, description, schema or hints differ, or a change of the core tools (a new browser state).
Compared with the list the client last read, not with the state before the change, so:

- a change undone before the client heard of it (a tool gone and back) sends nothing;
- while a notice is unread (the client has not re-read since it went out), further changes send
  nothing: the read it is about to make brings the newest list;
- a change that only takes page tools away sends nothing. The client keeps listing tools the page
  no longer has; calling one answers ``isError`` saying so (``TabmcpServer._unavailable``).
  Removals reach the client with the next notice that has news. Pages of one site mostly differ by
  what they lack (a login form gone once logged in, a row action gone with the last row): each such
  page would otherwise cost a re-read that gives the model nothing it can call.

Before the client's first read there is nothing to compare with: every change is sent.
"""

from __future__ import annotations

from dataclasses import dataclass

from tabmcp.state import Signature


def brings_news(read: Signature, now: Signature) -> bool:
    """Whether the list ``now`` has something the list ``read`` lacks (removals are no news)."""
    core_read, page_read = read
    core_now, page_now = now
    if core_read != core_now:
        return True
    known = set(page_read)
    return any(tool not in known for tool in page_now)


@dataclass
class ClientView:
    """What a workspace's client has of the tool list: the signature it last read, and whether a notice
    went out since."""

    read: Signature | None = None
    unread: bool = False  # a notice went out after the last read

    def listed(self, now: Signature) -> None:
        self.read = now
        self.unread = False

    def wants_notice(self, now: Signature) -> bool:
        if self.read is None:
            return True
        if self.unread:
            return False
        return brings_news(self.read, now)

    def notified(self) -> None:
        if self.read is not None:
            self.unread = True

    def had(self, name: str) -> bool:
        """Whether the client's list has a page tool by this name (read before the page lost it)."""
        if self.read is None:
            return False
        return any(tool[0] == name for tool in self.read[1])
