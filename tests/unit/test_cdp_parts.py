"""The CDP driver's pure parts: key names, the console ring buffer, frame numbering, agent answers,
and the navigation watcher's reading of Playwright's events (fed here by hand, in the order the
browser sends them)."""

from __future__ import annotations

import asyncio
import gc
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest

from tabmcp.drivers.base import DriverError
from tabmcp.drivers.cdp.agent import TabFrames, agent_ok, prefix_ref, split_token
from tabmcp.drivers.cdp.keys import playwright_key
from tabmcp.drivers.cdp.navigation import NavigationWatcher, Network, navigation_error
from tabmcp.drivers.cdp.tabs import CONSOLE_CAPACITY, ConsoleBuffer


@pytest.mark.parametrize(
    ("combo", "key"),
    [
        ("Enter", "Enter"),
        ("Esc", "Escape"),
        ("Ctrl+a", "Control+a"),
        ("Control+Shift+a", "Control+Shift+A"),
        ("Cmd+Return", "Meta+Enter"),
        ("Space", "Space"),
        ("+", "+"),
        ("Control++", "Control++"),
        ("Up", "ArrowUp"),
        ("F5", "F5"),
    ],
)
def test_key_combinations_in_playwrights_spelling(combo: str, key: str) -> None:
    assert playwright_key(combo) == key


@pytest.mark.parametrize(("combo", "word"), [("Hyper+a", "modifier"), ("Banana", "key"), ("Control+Banana", "key")])
def test_unknown_keys_are_refused_as_the_extension_refuses_them(combo: str, word: str) -> None:
    with pytest.raises(DriverError) as info:
        playwright_key(combo)
    assert info.value.code == "BAD_MESSAGE" and f"Unknown {word}" in info.value.message


def test_the_console_buffer_keeps_the_newest_entries_and_counts_the_dropped() -> None:
    buffer = ConsoleBuffer()
    for i in range(CONSOLE_CAPACITY + 5):
        buffer.add({"level": "warn" if i == 0 else "log", "text": f"n{i}", "time": i})
    buffer.add("not an entry")
    everything = buffer.read(0, None)
    assert everything["lastSeq"] == CONSOLE_CAPACITY + 5
    assert len(everything["entries"]) == CONSOLE_CAPACITY and everything["dropped"] == 5
    assert everything["entries"][0]["text"] == "n5"
    recent = buffer.read(CONSOLE_CAPACITY + 3, None)
    assert [e["text"] for e in recent["entries"]] == [f"n{CONSOLE_CAPACITY + 3}", f"n{CONSOLE_CAPACITY + 4}"]
    assert recent["dropped"] == 0
    buffer.add({"level": "error", "text": "x" * 5000})
    errors = buffer.read(0, {"error"})["entries"]
    assert len(errors) == 1 and len(errors[0]["text"]) == 2000 and errors[0]["text"].endswith("…")


def test_frames_are_numbered_in_order_of_first_sight_and_forgotten_when_gone() -> None:
    main, first, second = object(), object(), object()
    frames = TabFrames()
    assert frames.info(main, main).ordinal == 0  # type: ignore[arg-type]
    assert frames.info(second, main).ordinal == 1  # type: ignore[arg-type]
    assert frames.info(first, main).ordinal == 2  # type: ignore[arg-type]
    assert frames.info(second, main).ordinal == 1  # type: ignore[arg-type]
    frames.prune([main, first])  # type: ignore[list-item]
    assert 1 not in frames.by_ordinal and frames.by_ordinal[2] is first
    assert frames.info(second, main).ordinal == 3  # type: ignore[arg-type]  # a new frame, a new number
    assert prefix_ref(0, "e4") == "e4" and prefix_ref(3, "e4") == "f3e4" and prefix_ref(2, "") == ""
    assert split_token("doc-1:e7") == ("doc-1", "e7") and split_token("e7") is None and split_token(None) is None


def test_agent_answers_become_protocol_errors() -> None:
    assert agent_ok({"ok": True, "x": 1}, "act") == {"ok": True, "x": 1}
    for answer, code in (
        (None, "NOT_SCRIPTABLE"),
        ({"__error": "TypeError: boom"}, "INTERNAL"),
        ({"ok": False, "code": "STALE_REF", "message": "gone"}, "STALE_REF"),
        ([1, 2], "INTERNAL"),
    ):
        with pytest.raises(DriverError) as info:
            agent_ok(answer, "act")
        assert info.value.code == code
    with pytest.raises(DriverError) as ambiguous:
        agent_ok({"ok": False, "code": "ELEMENT_AMBIGUOUS", "message": "2", "candidates": [{"ref": "e1"}]}, "find")
    assert ambiguous.value.candidates == [{"ref": "e1"}]  # type: ignore[attr-defined]


@dataclass(eq=False)  # hashable by identity, as Playwright's requests are
class FakeRequest:
    """What the watcher reads of a Playwright Request."""

    url: str
    redirected_from: Any = None
    failure: str | None = None


class FakeFrame:
    def __init__(self) -> None:
        self.loads: list[str] = []

    async def wait_for_load_state(self, state: str) -> None:
        self.loads.append(state)


async def test_a_cross_document_navigation_commits_then_loads() -> None:
    frame = FakeFrame()
    watcher = NavigationWatcher(None, frame)  # type: ignore[arg-type]
    first = FakeRequest("http://a.test/next")
    watcher.request(first)
    watcher.request(FakeRequest("http://a.test/moved", redirected_from=first))  # a redirect: the same navigation
    assert watcher.started and not watcher.same_document and watcher.outcome is None
    watcher.navigated()
    assert watcher.committed
    assert await watcher.wait_for_outcome(1)
    assert frame.loads == ["domcontentloaded", "load"] and watcher.outcome is not None
    assert watcher.outcome.kind == "complete" and watcher.reached("load") and watcher.dom_content_loaded


async def test_history_api_and_fragments_are_done_at_once() -> None:
    watcher = NavigationWatcher(None, FakeFrame())  # type: ignore[arg-type]
    assert not watcher.reached("load")
    watcher.navigated()  # no request before it
    assert watcher.same_document and watcher.outcome is not None and watcher.reached("load")


async def test_a_failed_navigation_keeps_its_error_and_an_aborted_one_settles() -> None:
    watcher = NavigationWatcher(None, FakeFrame())  # type: ignore[arg-type]
    request = FakeRequest("http://127.0.0.1:9/", failure="net::ERR_CONNECTION_REFUSED")
    watcher.request(request)
    watcher.failed(request)
    assert watcher.outcome is not None and watcher.outcome.kind == "error"
    error = navigation_error(watcher.outcome, "the page")
    assert error.code == "NAVIGATION_FAILED" and "net::ERR_CONNECTION_REFUSED" in error.message

    watcher.reset()
    download = FakeRequest("http://a.test/file.zip", failure="net::ERR_ABORTED")
    watcher.request(download)
    watcher.failed(download)
    assert watcher.outcome is None  # not yet: a replacing navigation may follow
    assert await watcher.wait_for_outcome(1) and watcher.outcome is not None and watcher.outcome.kind == "complete"

    watcher.reset()
    watcher.request(FakeRequest("http://a.test/"))
    watcher.removed()
    assert watcher.outcome is not None and watcher.outcome.kind == "removed"


async def test_no_navigation_means_no_start() -> None:
    watcher = NavigationWatcher(None, FakeFrame())  # type: ignore[arg-type]
    assert not await watcher.wait_for_start(0.05)


async def test_network_idle_waits_for_quiet() -> None:
    network = Network()
    request = FakeRequest("http://a.test/api")
    request.resource_type = "fetch"  # type: ignore[attr-defined]
    loop = asyncio.get_running_loop()
    assert await network.idle(loop.time() + 3)  # nothing was ever in flight
    network.began(request)  # type: ignore[arg-type]
    assert not await network.idle(loop.time() - 1)  # busy, and the deadline has passed
    loop.call_later(0.05, network.ended, request)
    assert await network.idle(loop.time() + 3)


async def test_no_tab_news_after_the_tab_closed() -> None:
    """A title read under way when a failed open_tab closed its tab must not bring the tab back."""
    from tabmcp import state as s
    from tabmcp.config import Settings
    from tabmcp.drivers.cdp.driver import CdpDriver
    from tabmcp.drivers.cdp.tabs import TabRecord

    driver = CdpDriver(Settings())
    driver._linked.set()
    page = SimpleNamespace(url="http://127.0.0.1:1/")
    record = TabRecord(3, page, None, 1, announced=True)  # type: ignore[arg-type]
    driver._tabs[3] = record
    driver._emit(record, s.TabUpdated(record.tab()))
    driver._tabs.pop(3)
    driver._emit(record, s.TabClosed(3))
    driver._emit(record, s.TabUpdated(record.tab()))  # late: dropped
    seen = [driver._events.get_nowait() for _ in range(driver._events.qsize())]
    assert [type(e).__name__ for e in seen] == ["TabUpdated", "TabClosed"]


async def test_a_request_playwright_let_go_of_is_no_longer_in_flight() -> None:
    """Past Playwright's object cap the oldest requests are disposed, and their end never reaches the
    tab: the tab must not wait for them for the rest of its life."""
    network = Network()
    request = FakeRequest("http://a.test/long-poll")
    request.resource_type = "fetch"  # type: ignore[attr-defined]
    network.began(request)  # type: ignore[arg-type]
    assert len(network.requests) == 1
    del request  # Playwright's registry dropped its object: nothing else holds it
    gc.collect()
    loop = asyncio.get_running_loop()
    assert not network.requests
    assert await network.idle(loop.time() + 3)
