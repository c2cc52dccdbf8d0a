"""The agent and the hooks load at document start in every frame, and loading them twice is harmless."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urljoin

from tests.agent.conftest import AgentPage, Browser, eventually

OpenPage = Callable[..., AgentPage]

INJECT_AGAIN = """async (tabId) => {
  const agentFiles = chrome.runtime.getManifest().content_scripts.find((s) => s.world !== 'MAIN').js;
  await chrome.scripting.executeScript({ target: { tabId, allFrames: true }, files: agentFiles });
  await chrome.scripting.executeScript({ target: { tabId, allFrames: true }, files: ['page_hooks.js'], world: 'MAIN' });
}"""


def test_injecting_agent_and_hooks_again_changes_nothing(browser: Browser, open_page: OpenPage) -> None:
    browser.listen_to_agents()
    page = open_page("semantics.html")
    before = page.snapshot()
    browser.worker.evaluate(INJECT_AGAIN, page.tab_id)
    after = page.snapshot()
    assert after["docId"] == before["docId"]
    assert after["nodes"] == before["nodes"]  # same refs: the first agent answered
    page.page.evaluate("() => console.log('logged once')")
    eventually(
        lambda: any("logged once" in str(m["message"]) for m in browser.agent_messages(page.tab_id)),
        "the console entry",
    )
    page.page.evaluate("() => console.log('flush marker')")
    eventually(
        lambda: any("flush marker" in str(m["message"]) for m in browser.agent_messages(page.tab_id)),
        "the marker",
    )
    texts = [
        entry["text"]
        for m in browser.agent_messages(page.tab_id)
        if m["message"]["type"] == "console"
        for entry in m["message"]["entries"]
    ]
    assert texts.count("logged once") == 1  # console.log is wrapped once, not twice


def test_every_frame_has_an_agent_from_the_manifest(open_page: OpenPage) -> None:
    page = open_page("frames.html")
    eventually(lambda: len(page.frames()) == 6, "six frames")
    answers = eventually(lambda: all(page.call_all("snapshot").values()) and page.call_all("snapshot"), "answers")
    assert len(answers) == 6
    assert all("__missing" not in answer and "docId" in answer for answer in answers.values())


def test_pending_refresh_names_where_a_meta_refresh_goes(open_page: OpenPage) -> None:
    page = open_page("semantics.html")
    assert page.call("pendingRefresh") == {"ok": True, "url": None}
    add_meta = """(content) => {
      document.querySelector('meta[http-equiv]')?.remove();
      const meta = document.createElement('meta');
      meta.httpEquiv = 'Refresh';
      meta.content = content;
      document.head.append(meta);
    }"""
    page.page.evaluate(add_meta, "3600; URL='next.html?from=meta'")  # an hour: it never fires here
    answer = page.call("pendingRefresh")
    assert answer == {"ok": True, "url": urljoin(page.page.url, "next.html?from=meta"), "delayS": 3600}, answer
    page.page.evaluate(add_meta, "3600")  # a reload, no other page
    assert page.call("pendingRefresh") == {"ok": True, "url": None}
