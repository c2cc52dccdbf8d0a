"""What the CDP driver keeps per tab: its id, page agent, requests, console and dialogs."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import CDPSession, Frame, Page

from tabmcp import state as s
from tabmcp.drivers.cdp.agent import PageAgent
from tabmcp.drivers.cdp.navigation import NavigationWatcher, Network

CONSOLE_CAPACITY = 1000
CONSOLE_TEXT_MAX = 2000
CONSOLE_LEVELS = {"debug", "log", "info", "warning", "error", "dialog"}
RECENT_DIALOGS = 20


@dataclass
class ConsoleBuffer:
    """The tab's console ring buffer (docs/page-agent.md §5), across its navigations."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    next_seq: int = 1

    def add(self, entry: object) -> None:
        if not isinstance(entry, dict):
            return
        level = entry.get("level")
        level = "warning" if level == "warn" else level if level in CONSOLE_LEVELS else "log"
        text = str(entry.get("text", ""))
        if len(text) > CONSOLE_TEXT_MAX:
            text = text[: CONSOLE_TEXT_MAX - 1] + "…"
        stamp = entry.get("time")
        source = entry.get("source")
        self.entries.append(
            {
                "seq": self.next_seq,
                "level": level,
                "text": text,
                "time": stamp if isinstance(stamp, int | float) else int(time.time() * 1000),
                "source": source[:500] if isinstance(source, str) else "",
            }
        )
        self.next_seq += 1
        del self.entries[:-CONSOLE_CAPACITY]

    def read(self, after_seq: int, levels: set[str] | None) -> dict[str, Any]:
        entries = [e for e in self.entries if e["seq"] > after_seq and (levels is None or e["level"] in levels)]
        oldest = self.entries[0]["seq"] if self.entries else self.next_seq
        return {"entries": entries, "lastSeq": self.next_seq - 1, "dropped": max(0, oldest - max(after_seq + 1, 1))}


@dataclass
class TabRecord:
    id: int
    page: Page
    agent: PageAgent
    window_id: int
    opener_id: int | None = None
    status: str = "loading"
    title: str = ""
    announced: bool = False
    closing: bool = False  # the driver closes it (close_tab, a failed open_tab)
    failed_url: str = ""  # the page Chrome shows its error page for
    session: CDPSession | None = None
    network: Network = field(default_factory=Network)
    console: ConsoleBuffer = field(default_factory=ConsoleBuffer)
    dialogs: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    watchers: set[NavigationWatcher] = field(default_factory=set)

    @property
    def url(self) -> str:
        """As Chrome's tab strip shows it: the URL that failed, not its chrome-error:// page."""
        url = self.page.url
        return self.failed_url if url.startswith("chrome-error:") and self.failed_url else url

    def tab(self) -> s.Tab:
        return s.Tab(
            id=self.id,
            title=self.title,
            url=self.url,
            status="complete" if self.status == "complete" else "loading",
            window_id=self.window_id,
            opener_id=self.opener_id,
        )

    def watch(self, frame: Frame | None = None) -> NavigationWatcher:
        watcher = NavigationWatcher(self.page, frame or self.page.main_frame)
        self.watchers.add(watcher)
        return watcher

    def unwatch(self, watcher: NavigationWatcher | None) -> None:
        if watcher is not None:
            self.watchers.discard(watcher)

    def note_dialog(self, dialog: object) -> None:
        if not isinstance(dialog, dict):
            return
        answer = dialog.get("answer")
        kept = {"type": str(dialog.get("type", "")), "message": str(dialog.get("message", "")), "answer": answer}
        self.dialogs = [*self.dialogs, (time.monotonic(), kept)][-RECENT_DIALOGS:]

    def dialogs_since(self, since: float) -> list[dict[str, Any]]:
        return [d for at, d in self.dialogs if at >= since]
