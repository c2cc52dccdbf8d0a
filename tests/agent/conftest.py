"""The page agent in a real Chromium: the repo's extension loaded, fixture pages served over http.

The agent is called the way background.js's callAgent does: from the extension's service worker with
``chrome.scripting.executeScript`` running ``globalThis.__tabmcpAgent[method](arg)`` in a frame.
One browser for the whole package (launching is the slow part); a fresh page per test.
The service worker points at a dead port, so it never reaches a tabmcp server and just retries.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, Playwright, Worker, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from tabmcp.config import Settings
from tabmcp.demo.sites import SiteServer
from tabmcp.drivers.launch import chromium_args, prepare_extension

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
DEAD_SERVER = "ws://127.0.0.1:1"

# Runs in the service worker. The injected function must be self-contained (it is serialised).
CALL_AGENT = """async ([tabId, frameIds, allFrames, method, arg]) => {
  const target = allFrames ? { tabId, allFrames: true } : { tabId, frameIds };
  const results = await chrome.scripting.executeScript({
    target,
    func: (m, a) => {
      const agent = globalThis.__tabmcpAgent;
      return agent ? agent[m](a) : { __missing: true };
    },
    args: [method, arg],
  });
  return results.map((r) => ({ frameId: r.frameId, result: r.result }));
}"""

FIND_TAB = """async (url) => {
  const tab = (await chrome.tabs.query({})).find((t) => t.url === url);
  return tab ? tab.id : null;
}"""

# Records every message agents send over their runtime port (console batches, dialogs).
LISTEN_TO_AGENTS = """() => {
  if (globalThis.__agentMessages) return;
  globalThis.__agentMessages = [];
  chrome.runtime.onConnect.addListener((port) => {
    if (port.name !== 'tabmcp-agent') return;
    const sender = port.sender || {};
    port.onMessage.addListener((message) => {
      globalThis.__agentMessages.push({
        tabId: sender.tab ? sender.tab.id : null, frameId: sender.frameId, url: sender.url, message,
      });
    });
  });
}"""


class Browser:
    """The session's Chromium, its extension service worker and the fixture site."""

    def __init__(self, context: BrowserContext, worker: Worker, site: SiteServer) -> None:
        self.context = context
        self.worker = worker
        self.site = site
        self._ids = itertools.count(1)

    def url(self, page: str, query: str = "") -> str:
        """A unique URL for the page, so its tab can be found by URL."""
        unique = f"tid={next(self._ids)}"
        return self.site.url(f"{page}?{unique}" + (f"&{query}" if query else ""))

    def listen_to_agents(self) -> None:
        self.worker.evaluate(LISTEN_TO_AGENTS)

    def agent_messages(self, tab_id: int) -> list[dict[str, Any]]:
        messages = self.worker.evaluate("() => globalThis.__agentMessages || []")
        return [m for m in messages if m["tabId"] == tab_id]


class AgentPage:
    """One tab with a fixture page, and calls into its frames' agents."""

    def __init__(self, browser: Browser, page: Page, tab_id: int) -> None:
        self.browser = browser
        self.page = page
        self.tab_id = tab_id

    def call(self, method: str, arg: Any = None, frame_id: int = 0) -> Any:
        results = self.browser.worker.evaluate(CALL_AGENT, [self.tab_id, [frame_id], False, method, arg])
        assert len(results) == 1, results
        result = results[0]["result"]
        assert not (isinstance(result, dict) and result.get("__missing")), f"no agent in frame {frame_id}"
        return result

    def call_all(self, method: str, arg: Any = None) -> dict[int, Any]:
        results = self.browser.worker.evaluate(CALL_AGENT, [self.tab_id, None, True, method, arg])
        return {r["frameId"]: r["result"] for r in results}

    def snapshot(self, mode: str = "interactive", frame_id: int = 0) -> dict[str, Any]:
        return self.call("snapshot", {"mode": mode}, frame_id)

    def act(self, action: str, frame_id: int = 0, **fields: Any) -> dict[str, Any]:
        return self.call("act", {"action": action, **fields}, frame_id)

    def ref(self, name: str, role: str | None = None, mode: str = "interactive", frame_id: int = 0) -> str:
        """The ref of the one snapshot row with this name (and role)."""
        rows = [
            n
            for n in self.snapshot(mode, frame_id)["nodes"]
            if n["name"] == name and (role is None or n["role"] == role)
        ]
        assert len(rows) == 1, f"{len(rows)} rows named {name!r}"
        return rows[0]["ref"]

    def frames(self) -> list[dict[str, Any]]:
        return self.browser.worker.evaluate(
            "async (tabId) => chrome.webNavigation.getAllFrames({ tabId })", self.tab_id
        )

    def text(self, selector: str) -> str:
        return self.page.locator(selector).inner_text()


def eventually(check: Callable[[], Any], what: str, timeout: float = 5.0) -> Any:
    """Poll until check() returns something truthy (bounded: never hangs)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for: {what}")
        time.sleep(0.05)


# Package scope, not session: sync Playwright keeps its event loop running in this thread while
# it is open, and pytest-asyncio cannot run the async tests of other packages meanwhile.
@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    with agent_browser(viewport={"width": 1000, "height": 700}) as browser:
        yield browser


@contextmanager
def agent_browser(*extra_args: str, **launch: Any) -> Iterator[Browser]:
    """Chromium with the extension (linked to no server) and the fixture pages on 127.0.0.1."""
    with tempfile.TemporaryDirectory(prefix="tabmcp-agent-") as scratch, SiteServer(PAGES) as site:
        root = Path(scratch)
        extension = prepare_extension(root / "extension", DEAD_SERVER)
        pw: Playwright
        with sync_playwright() as pw:
            context = pw.chromium.launch_persistent_context(
                str(root / "profile"),
                executable_path=Settings().resolved_browser_path(),
                headless=True,
                args=[*chromium_args(extension, as_root=os.geteuid() == 0), *extra_args],
                ignore_default_args=["--disable-extensions"],
                **launch,
            )
            try:
                workers = context.service_workers
                worker = workers[0] if workers else context.wait_for_event("serviceworker")
                yield Browser(context, worker, site)
            finally:
                context.close()


@pytest.fixture
def open_page(browser: Browser) -> Iterator[Callable[..., AgentPage]]:
    """open_page("actions.html", query="a=1") -> AgentPage; pages are closed after the test."""
    pages: list[Page] = []
    opened: list[tuple[Page, int]] = []  # with the tab id the extension knows it by

    def open_(name: str, query: str = "") -> AgentPage:
        url = browser.url(name, query)
        page = browser.context.new_page()
        pages.append(page)
        page.goto(url)
        tab_id = browser.worker.evaluate(FIND_TAB, url)
        assert tab_id is not None, f"no tab for {url}"
        opened.append((page, tab_id))
        return AgentPage(browser, page, tab_id)

    yield open_
    for page, tab_id in opened:
        # the browser closes the tab: Playwright's own close can wait for good on a page whose new
        # document commits meanwhile (a click on a link the test did not wait for)
        if page.is_closed():
            continue
        with page.expect_event("close", timeout=10_000):
            browser.worker.evaluate("(tabId) => chrome.tabs.remove(tabId).catch(() => {})", tab_id)
    for page in pages:
        if not page.is_closed():  # one whose tab was never found (its goto failed)
            with contextlib.suppress(PlaywrightError):
                page.close()
