"""The extension's page primitives (``ExtensionHost``): a real Bridge, headless Chromium with the real
extension, the fixture pages of tests/fixtures/pages on 127.0.0.1. Each primitive is one browser call;
the events are what the browser saw, in its order, ahead of the answers that followed them."""

from __future__ import annotations

import base64
import tempfile
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import pytest_asyncio

from tabmcp.demo.sites import SiteServer
from tabmcp.drivers.extension import ExtensionDriver
from tabmcp.drivers.extension.host import ExtensionHost
from tabmcp.drivers.host import (
    MAIN_FRAME,
    AgentMessage,
    FrameGone,
    FrameNavigation,
    PageEvent,
    PopupOpened,
    RequestEnded,
    RequestStarted,
)
from tests.integration.conftest import eventually
from tests.integration.linked import Linked, fails, linked_browser

pytestmark = pytest.mark.asyncio(loop_scope="module")

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"


@dataclass
class Env:
    linked: Linked
    host: ExtensionHost
    events: list[PageEvent] = field(default_factory=list)

    def url(self, page: str) -> str:
        return self.linked.url(page)

    async def loaded(self, page: str) -> int:
        """A new tab at ``page``, once its main frame's load event was seen."""
        tab = await self.host.create_tab(self.url(page), True, None, None)
        await self.wait_for(lambda e: _nav(e, tab, "load"), f"the load of {page}")
        return tab

    async def wait_for(self, match: Callable[[PageEvent], bool], what: str, since: int = 0) -> PageEvent:
        """The first event from ``since`` on that matches (waiting for it, bounded)."""

        async def seen() -> bool:
            return any(match(e) for e in self.events[since:])

        await eventually(seen, what, timeout=10)
        return next(e for e in self.events[since:] if match(e))


def _nav(event: PageEvent, tab: int, kind: str, frame: int = MAIN_FRAME) -> bool:
    return isinstance(event, FrameNavigation) and event.tab_id == tab and event.frame_id == frame and event.kind == kind


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def env() -> AsyncIterator[Env]:
    with tempfile.TemporaryDirectory(prefix="tabmcp-host-") as scratch, SiteServer(PAGES) as sites:
        async with linked_browser(Path(scratch), sites.base_url) as linked:
            assert isinstance(linked.driver, ExtensionDriver)
            host = linked.driver.host  # the driver's own: its page session listens beside this test
            env = Env(linked, host)
            host.subscribe(env.events.append)
            yield env


async def test_frames_of_a_page_with_iframes(env: Env) -> None:
    tab = await env.loaded("frames.html")

    async def all_there() -> bool:
        return len(await env.host.frames(tab)) == 6

    await eventually(all_there, "the main frame and its five subframes")
    frames = await env.host.frames(tab)
    assert frames[0].frame_id == MAIN_FRAME and frames[0].parent_id is None
    assert frames[0].url == env.url("frames.html")
    by_id = {f.frame_id: f for f in frames}
    nest = next(f for f in frames if f.url.endswith("frame-nest.html"))
    inner = next(f for f in frames if f.url.endswith("name=inner"))
    assert nest.parent_id == MAIN_FRAME and inner.parent_id == nest.frame_id
    assert {f.parent_id for f in frames[1:]} <= set(by_id)
    cross = next(f for f in frames if "name=cross" in f.url)
    assert cross.url.startswith("http://localhost:")

    # the agent in every frame (the cross-origin one included), one answer per frame, keyed by frame id
    answers = await env.host.call_agent(tab, None, "flushConsole")
    assert set(answers) == set(by_id)
    assert all(a["ok"] is True for a in answers.values())
    # in chosen frames only; a method the agent lacks is its error, as it gave it
    answers = await env.host.call_agent(tab, [inner.frame_id, MAIN_FRAME], "noSuchMethod", {"x": None})
    assert set(answers) == {inner.frame_id, MAIN_FRAME}
    assert "__error" in answers[inner.frame_id]
    # a frame that is not there: the ref into it is stale
    with pytest.raises(FrameGone):
        await env.host.call_agent(tab, [987654], "flushConsole")
    await env.host.close_tab(tab)


async def test_navigation_events_in_order(env: Env) -> None:
    tab = await env.loaded("navigation.html")
    own = [e for e in env.events if isinstance(e, FrameNavigation) and e.tab_id == tab and e.frame_id == 0]
    kinds = [e.kind for e in own]
    for earlier, later in [("start", "commit"), ("commit", "dom_content_loaded"), ("dom_content_loaded", "load")]:
        assert kinds.index(earlier) < kinds.index(later), kinds
    assert own[kinds.index("commit")].url == env.url("navigation.html")

    mark = len(env.events)
    await env.host.goto(tab, env.url("navigation-target.html?by=goto"))
    await env.wait_for(lambda e: _nav(e, tab, "load"), "the load of the target", mark)
    assert (await env.host.tab_url(tab))[0] == env.url("navigation-target.html?by=goto")
    kinds = [e.kind for e in env.events[mark:] if isinstance(e, FrameNavigation) and e.tab_id == tab]
    assert kinds.index("start") < kinds.index("commit") < kinds.index("load"), kinds

    mark = len(env.events)
    await env.host.go(tab, "back")
    await env.wait_for(lambda e: _nav(e, tab, "load"), "back", mark)
    assert (await env.host.tab_url(tab))[0] == env.url("navigation.html")
    mark = len(env.events)
    await env.host.go(tab, "forward")
    await env.wait_for(lambda e: _nav(e, tab, "load"), "forward", mark)
    assert (await env.host.tab_url(tab))[0] == env.url("navigation-target.html?by=goto")
    mark = len(env.events)
    await env.host.go(tab, "reload")
    await env.wait_for(lambda e: _nav(e, tab, "load"), "the reload's load", mark)
    await fails(env.host.go(tab, "forward"), "NAVIGATION_FAILED")  # no next page

    # a fragment: a same-document navigation, nothing to load
    mark = len(env.events)
    await env.host.goto(tab, env.url("navigation-target.html?by=goto#part"))
    same = await env.wait_for(lambda e: _nav(e, tab, "same_document"), "the fragment", mark)
    assert isinstance(same, FrameNavigation) and same.url.endswith("#part")

    # refused at once: not a web page, not an absolute URL
    await fails(env.host.goto(tab, "javascript:alert(1)"), "INVALID_URL")
    await fails(env.host.goto(tab, "/relative"), "INVALID_URL")

    await env.host.close_tab(tab)
    await env.wait_for(lambda e: _nav(e, tab, "removed"), "the closed tab's removal")
    await fails(env.host.tab_url(tab), "NO_TAB")
    await fails(env.host.frames(tab), "NO_TAB")
    await fails(env.host.call_agent(tab, None, "flushConsole"), "NO_TAB")


async def test_failed_navigation_is_an_error_event(env: Env) -> None:
    tab = await env.host.create_tab("http://127.0.0.1:9/", False, None, None)  # nothing listens on port 9
    error = await env.wait_for(lambda e: _nav(e, tab, "error"), "the failed navigation")
    assert isinstance(error, FrameNavigation) and error.error.startswith("net::ERR_")
    await env.host.close_tab(tab)


async def test_cdp_commands_and_requests(env: Env) -> None:
    tab = await env.loaded("navigation.html")
    value = await env.host.cdp(tab, "Runtime.evaluate", {"expression": "1 + 2", "returnByValue": True})
    assert value["result"]["value"] == 3
    history = await env.host.cdp(tab, "Page.getNavigationHistory")
    assert history["entries"][history["currentIndex"]]["url"] == env.url("navigation.html")
    await fails(env.host.cdp(tab, "No.such"), "INTERNAL")

    mark = len(env.events)
    fetched = "fetch('frame-child.html?fetched=1').then((r) => r.status)"
    answer = await env.host.cdp(tab, "Runtime.evaluate", {"expression": fetched, "awaitPromise": True})
    assert answer["result"]["value"] == 200
    started = await env.wait_for(lambda e: isinstance(e, RequestStarted) and e.tab_id == tab, "the fetch", mark)
    assert isinstance(started, RequestStarted) and started.kind == "xhr"
    await env.wait_for(
        lambda e: isinstance(e, RequestEnded) and e.request_id == started.request_id, "the fetch's end"
    )

    image = base64.b64decode(await env.host.capture_viewport(tab, "png", None))
    assert image[:8] == b"\x89PNG\r\n\x1a\n"
    jpeg = base64.b64decode(await env.host.capture_viewport(tab, "jpeg", 50))
    assert jpeg[:2] == b"\xff\xd8"
    await env.host.close_tab(tab)


async def test_agent_messages_arrive_before_later_answers(env: Env) -> None:
    tab = await env.loaded("navigation.html")
    await env.host.cdp(tab, "Runtime.evaluate", {"expression": "console.warn('seen first')"})
    # the page's console entries go out on the agent's port before flushConsole answers: the
    # message is the listeners' before the answer resumes this call
    await env.host.call_agent(tab, [MAIN_FRAME], "flushConsole")
    messages = [e.message for e in env.events if isinstance(e, AgentMessage) and e.tab_id == tab]
    entries = [entry for m in messages if m.get("type") == "console" for entry in m["entries"]]
    assert any(entry.get("text") == "seen first" for entry in entries), messages

    # a popup the page opens: its opener is this tab
    popup = "window.open('navigation-target.html?by=popup'); 0"
    await env.host.cdp(tab, "Runtime.evaluate", {"expression": popup, "userGesture": True})
    opened = await env.wait_for(lambda e: isinstance(e, PopupOpened) and e.opener_id == tab, "the popup")
    assert isinstance(opened, PopupOpened)
    await env.wait_for(lambda e: _nav(e, opened.tab_id, "load"), "the popup's load")
    assert (await env.host.tab_url(opened.tab_id))[0] == env.url("navigation-target.html?by=popup")
    await env.host.close_tab(opened.tab_id)
    await env.host.close_tab(tab)
