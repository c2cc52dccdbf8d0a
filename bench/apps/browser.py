"""Debian's Chromium with the real extension, for saving what the page agent captures of an app's pages.

The agent is called the way the extension's background calls it: from the service worker with
``chrome.scripting.executeScript`` (as tests/fixtures/captures/make_captures.py does for the demo sites).
The service worker points at a dead port, so it never reaches a tabmcp server.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, Worker, sync_playwright

from tabmcp.config import Settings
from tabmcp.drivers.launch import chromium_args, prepare_extension
from tabmcp.page.capture import PageCapture

DEAD_SERVER = "ws://127.0.0.1:1"
CALL_AGENT = """async ([tabId, method, arg]) => {
  const [r] = await chrome.scripting.executeScript({
    target: { tabId, frameIds: [0] },
    func: (m, a) => (globalThis.__tabmcpAgent ? globalThis.__tabmcpAgent[m](a) : { __missing: true }),
    args: [method, arg],
  });
  return r.result;
}"""
FIND_TAB = """async (url) => {
  const tab = (await chrome.tabs.query({})).find((t) => t.url === url);
  return tab ? tab.id : null;
}"""


@dataclass
class Lab:
    context: BrowserContext
    worker: Worker

    def tab_of(self, page: Page) -> int:
        tab_id = self.worker.evaluate(FIND_TAB, page.url)
        if tab_id is None:
            raise RuntimeError(f"no tab for {page.url}")
        return int(tab_id)

    def capture(self, page: Page) -> PageCapture:
        raw: Any = self.worker.evaluate(CALL_AGENT, [self.tab_of(page), "capture", {"maxChars": 2_000_000}])
        if isinstance(raw, dict) and raw.get("__missing"):
            raise RuntimeError(f"no page agent in {page.url}")
        return PageCapture(url=raw["url"], title=raw["title"], html=raw["html"], truncated=raw["truncated"])


@contextmanager
def lab() -> Iterator[Lab]:
    """A fresh profile (its own cookies: apps on one host share cookies across ports) and the extension."""
    with tempfile.TemporaryDirectory(prefix="tabmcp-apps-") as scratch, sync_playwright() as pw:
        root = Path(scratch)
        extension = prepare_extension(root / "extension", DEAD_SERVER)
        context = pw.chromium.launch_persistent_context(
            str(root / "profile"),
            executable_path=Settings().resolved_browser_path(),
            headless=True,
            args=chromium_args(extension, as_root=os.geteuid() == 0),
            ignore_default_args=["--disable-extensions"],
            viewport={"width": 1280, "height": 800},
            timezone_id="UTC",
            locale="en-US",
        )
        try:
            workers = context.service_workers
            yield Lab(context, workers[0] if workers else context.wait_for_event("serviceworker"))
        finally:
            context.close()
