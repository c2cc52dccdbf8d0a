"""Live updates: the top frame's agent posts ``toolsChanged`` when the page's tools may have changed.

What the agent posts over its runtime port is recorded by ``browser.listen_to_agents()``. A change
that does not count is proven not to count without waiting for a silence: ``capture()`` brings the
version up to date synchronously, so an unchanged version means no change was (or will be) seen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.agent.conftest import AgentPage, Browser, eventually

OpenPage = Callable[..., AgentPage]

# Runs in the service worker: one task in the top frame's isolated world that changes the page and
# then captures it, so the capture comes before the mutation observer (let alone the debounce) ran.
MUTATE_THEN_CAPTURE = """async ([tabId, ifChanged]) => {
  const results = await chrome.scripting.executeScript({
    target: { tabId, frameIds: [0] },
    func: (ifChanged) => {
      const button = document.createElement('button');
      button.textContent = 'Same task button';
      document.querySelector('main').append(button);
      return globalThis.__tabmcpAgent.capture({ maxChars: 200000, ifChanged });
    },
    args: [ifChanged],
  });
  return results[0].result;
}"""


def posts(page: AgentPage) -> list[dict[str, Any]]:
    """The toolsChanged messages the page's agents posted, in order."""
    return [
        {**m["message"], "frameId": m["frameId"]}
        for m in page.browser.agent_messages(page.tab_id)
        if m["message"].get("type") == "toolsChanged"
    ]


def wait_for_posts(page: AgentPage, count: int) -> list[dict[str, Any]]:
    def enough() -> list[dict[str, Any]] | None:
        found = posts(page)
        return found if len(found) >= count else None

    return eventually(enough, f"{count} toolsChanged posts")


def version(page: AgentPage) -> str:
    """The page's current version, brought up to date by capture (which sees pending changes)."""
    return page.call("capture", {"maxChars": 1000})["version"]


def start(browser: Browser, open_page: OpenPage) -> tuple[AgentPage, str]:
    """A fresh live-updates page whose baseline is taken (as the server's first capture does)."""
    browser.listen_to_agents()
    page = open_page("live-updates.html")
    first = version(page)
    doc_id = page.call("snapshot")["docId"]
    assert first == f"{doc_id}:0"  # a fresh document starts at seq 0
    return page, doc_id


def test_relevant_mutations_post_once_per_burst_with_increasing_versions(browser: Browser, open_page: OpenPage) -> None:
    page, doc_id = start(browser, open_page)
    changes = [
        # a burst: three buttons within ~50 ms are one change
        """() => {
          let n = 0;
          const add = () => {
            n += 1;
            const b = document.createElement('button');
            b.textContent = `Added ${n}`;
            document.getElementById('slot').append(b);
            if (n < 3) setTimeout(add, 20);
          };
          add();
        }""",
        "() => { document.getElementById('panel').hidden = false; }",  # a hidden form part is shown
        "() => { document.getElementById('rename').textContent = 'Renamed'; }",  # a button is renamed
        "() => document.getElementById('dialog').showModal()",  # a dialog opens
        "() => document.getElementById('reveal-zone').classList.add('reveal')",  # a class shows a button
        "() => { document.getElementById('zone-button').remove(); }",  # a button disappears
        "() => { document.getElementById('field').disabled = true; }",  # a field is disabled
        # inside an open shadow root
        """() => {
          const b = document.createElement('button');
          b.textContent = 'Shadow added';
          document.getElementById('shadow-box').shadowRoot.getElementById('inner').append(b);
        }""",
    ]
    for index, change in enumerate(changes, start=1):
        page.page.evaluate(change)
        found = wait_for_posts(page, index)
        assert found[-1] == {"type": "toolsChanged", "reason": "mutation", "version": f"{doc_id}:{index}", "frameId": 0}
    # each change was posted once: the versions count up by one, with no extra post in between
    assert [p["version"] for p in posts(page)] == [f"{doc_id}:{i}" for i in range(1, len(changes) + 1)]
    assert version(page) == f"{doc_id}:{len(changes)}"


def test_irrelevant_changes_post_nothing(browser: Browser, open_page: OpenPage) -> None:
    page, doc_id = start(browser, open_page)
    page.page.fill("#field", "typed text")  # typing into an input
    page.page.type("#field", " and more")
    page.page.check("#box")  # checking a box
    page.page.focus("#rename")
    page.page.evaluate("""() => {
      document.getElementById('para').textContent = 'A paragraph with new text';  // plain text
      document.getElementById('decor').classList.add('fancy');  // a class on something without controls
      document.getElementById('decor').style.color = 'red';
      document.getElementById('zone').classList.add('fancy');  // a class around a button: rendered the same
      document.getElementById('field').setAttribute('value', 'attribute value');  // a text field's value
      const span = document.createElement('span');
      span.textContent = ' and a span';
      document.getElementById('para').append(span);  // an element without controls
    }""")
    assert version(page) == f"{doc_id}:0"
    assert posts(page) == []

    page.page.evaluate("() => document.getElementById('slot').append(document.createElement('button'))")
    found = wait_for_posts(page, 1)
    assert [p["version"] for p in found] == [f"{doc_id}:1"]


def test_history_changes_post_with_reason_history(browser: Browser, open_page: OpenPage) -> None:
    page, doc_id = start(browser, open_page)
    page.page.evaluate("() => history.pushState({}, '', location.pathname + '?route=2')")
    first = wait_for_posts(page, 1)[-1]
    assert (first["reason"], first["version"]) == ("history", f"{doc_id}:1")

    page.page.evaluate("() => { location.hash = 'part'; }")
    second = wait_for_posts(page, 2)[-1]
    assert (second["reason"], second["version"]) == ("history", f"{doc_id}:2")

    # a route change that also renders new controls is one change, named for the route
    page.page.evaluate("""() => {
      history.pushState({}, '', location.pathname + '?route=3');
      document.getElementById('slot').append(document.createElement('button'));
    }""")
    third = wait_for_posts(page, 3)[-1]
    assert (third["reason"], third["version"]) == ("history", f"{doc_id}:3")
    assert len(posts(page)) == 3


def test_capture_if_changed_and_a_change_not_yet_debounced(browser: Browser, open_page: OpenPage) -> None:
    page, doc_id = start(browser, open_page)
    v0 = f"{doc_id}:0"
    full = page.call("capture", {"maxChars": 200000})
    assert full["version"] == v0 and "Live updates fixture" in full["html"]
    assert page.call("capture", {"maxChars": 200000, "ifChanged": v0}) == {"unchanged": True, "version": v0}

    # the change and the capture in one task: the capture still sees it, with the next version
    fresh = browser.worker.evaluate(MUTATE_THEN_CAPTURE, [page.tab_id, v0])
    assert fresh["version"] == f"{doc_id}:1"
    assert "Same task button" in fresh["html"]
    unchanged = page.call("capture", {"maxChars": 200000, "ifChanged": f"{doc_id}:1"})
    assert unchanged == {"unchanged": True, "version": f"{doc_id}:1"}

    # that change was handed over by the capture, not posted: the next post is the next change's
    page.page.evaluate("() => document.getElementById('slot').append(document.createElement('button'))")
    assert [p["version"] for p in wait_for_posts(page, 1)] == [f"{doc_id}:2"]


def test_a_new_document_starts_again_and_subframes_never_post(browser: Browser, open_page: OpenPage) -> None:
    page, doc_id = start(browser, open_page)
    page.page.evaluate("() => document.getElementById('slot').append(document.createElement('button'))")
    wait_for_posts(page, 1)
    page.page.reload()
    again = version(page)
    new_doc = page.call("snapshot")["docId"]
    assert new_doc != doc_id and again == f"{new_doc}:0"

    frames = open_page("frames.html")
    version(frames)
    # a subframe's change first: were it posted, it would come no later than the top frame's
    frames.page.frame_locator("#same").locator("body").evaluate("body => body.append(document.createElement('button'))")
    frames.page.evaluate("() => document.body.append(document.createElement('button'))")
    found = wait_for_posts(frames, 1)
    assert {p["frameId"] for p in found} == {0}
