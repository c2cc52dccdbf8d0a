"""A browser link that drops and comes back by itself (a cut-off, a restarted service worker): what
the runtime remembers of it, and whether a new link is the same browser. Pure: the runtime owns the
timer and the requests (docs/security.md, "What is enforced when").

The same browser is the one whose extension sent the same ``instance`` in its hello: a random id
kept in ``chrome.storage.session``, so it survives a worker restart and ends with the browser.
"""

from __future__ import annotations

from dataclasses import dataclass

from tabmcp import state as s


@dataclass(frozen=True)
class HeldLink:
    """A lost link's state, kept for its browser's return."""

    instance: str
    focused_tab_id: int | None


class Relinks:
    def __init__(self) -> None:
        self.instance = ""  # the linked browser's, while linked
        self.held: HeldLink | None = None

    def lost(self, state: s.BrowserState, relink: bool) -> bool:
        """The link dropped. True: keep the state for a while (the same browser may come back);
        False: the client sees the browser disconnected now (its user unlinked it, or nobody
        connected, or the browser cannot be told from another)."""
        instance, self.instance = self.instance, ""
        if relink and state.connected and instance:
            self.held = HeldLink(instance, state.focused_tab_id)
            return True
        self.held = None
        return False

    def linked(self, instance: str) -> HeldLink | None:
        """A browser linked: the held link to restore when it is the same browser, else None (and
        whatever was held is dropped)."""
        held, self.held = self.held, None
        self.instance = instance
        if held is not None and instance and held.instance == instance:
            return held
        return None
