"""The page session over a FakeHost: open_tab (with events before the tab's id is known), navigate,
plan steps, wait_for, the console buffer, key combinations and the requests in flight."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from tests.unit.page_session_host import MISSING, FakeHost

from tabmcp import protocol as p
from tabmcp.drivers.base import DriverError
from tabmcp.drivers.host import AgentMessage, RequestEnded, RequestStarted
from tabmcp.drivers.session import PageSession
from tabmcp.drivers.session.core import ConsoleBuffer
from tabmcp.drivers.session.keys import parse_key_combo, press_key
from tabmcp.drivers.session.limits import CONSOLE_CAPACITY
from tabmcp.drivers.session.navigation import Network
from tabmcp.policy import NavigationPolicy

# ----------------------------------------------------------------- open_tab


async def test_open_tab_takes_the_events_that_came_before_the_tab_id() -> None:
    host = FakeHost()

    def loads_at_once(tab: int) -> None:  # the whole load is over before create_tab answers
        for kind in ("start", "commit", "dom_content_loaded", "load"):
            host.navigation(tab, kind)
        host.emit(AgentMessage(tab, 0, {"type": "dialog", "dialog": {"type": "alert", "message": "Hi"}}))
        host.urls[tab] = ("http://a.test/", "Loaded", False)

    host.on_create = loads_at_once
    started = time.monotonic()
    opened = await PageSession(host).open_tab("http://a.test/", focus=True)
    assert time.monotonic() - started < 1
    assert opened.tab.title == "Loaded" and opened.tab.status == "complete"
    assert opened.dialogs == ({"type": "alert", "message": "Hi", "answer": None},)


async def test_open_tab_waits_for_the_load_then_answers_a_slow_page_as_loading() -> None:
    host = FakeHost()
    host.on_create = lambda tab: host.later(0.1, (tab, "start"), (tab, "commit"))
    opened = await PageSession(host).open_tab("http://a.test/slow", focus=False, timeout_ms=300)
    assert opened.tab.status == "loading" and not host.closed


async def test_open_tab_of_a_failing_or_blocked_page_closes_the_tab() -> None:
    host = FakeHost()
    host.on_create = lambda tab: (
        host.navigation(tab, "start"),
        host.navigation(tab, "error", 0, "http://b.test/", "net::ERR_NAME_NOT_RESOLVED"),
    )
    with pytest.raises(DriverError) as failed:
        await PageSession(host).open_tab("http://b.test/", focus=True)
    assert failed.value.code == "NAVIGATION_FAILED" and "net::ERR_NAME_NOT_RESOLVED" in failed.value.message
    assert host.closed == [1]

    # a redirect into a blocked origin: the error names the refused hop and the rule
    policy = NavigationPolicy.from_patterns(block=["http://blocked.test"])
    host.on_create = lambda tab: host.later(
        0.02, (tab, "start"), (tab, "error", 0, "http://blocked.test/x", "net::ERR_BLOCKED_BY_CLIENT")
    )
    with pytest.raises(DriverError) as blocked:
        await PageSession(host, policy).open_tab("http://a.test/redirect", focus=True)
    assert blocked.value.code == "NAVIGATION_BLOCKED" and "http://blocked.test/x" in blocked.value.message
    assert host.closed == [1, 2]
    with pytest.raises(DriverError) as relative:
        await PageSession(host).open_tab("/relative", focus=True)
    assert relative.value.code == "INVALID_URL"


async def test_a_page_that_sends_itself_to_a_blocked_origin_as_it_loads_is_refused() -> None:
    host = FakeHost()
    policy = NavigationPolicy.from_patterns(block=["http://blocked.test"])

    def loads(tab: int) -> None:
        for kind in ("start", "commit", "load"):
            host.navigation(tab, kind)

    def meta_refresh(tab: int, _f: int, _a: Any) -> Any:  # the page leaves as it is read after its load
        host.navigation(tab, "start")
        host.later(0.05, (tab, "error", 0, "http://blocked.test/?meta", "net::ERR_BLOCKED_BY_CLIENT"))
        return MISSING

    host.on_create = loads
    host.answer("pendingRefresh", meta_refresh)
    with pytest.raises(DriverError) as info:
        await PageSession(host, policy).open_tab("http://a.test/meta", focus=True)
    assert info.value.code == "NAVIGATION_BLOCKED" and "?meta" in info.value.message


async def test_a_meta_refresh_not_started_yet_into_a_blocked_origin_is_refused_after_one_read() -> None:
    host = FakeHost()
    policy = NavigationPolicy.from_patterns(block=["http://blocked.test"])

    def loads(tab: int) -> None:
        for kind in ("start", "commit", "load"):
            host.navigation(tab, kind)

    host.on_create = loads
    host.answer("pendingRefresh", {"ok": True, "url": "http://blocked.test/?soon", "delayS": 0})
    with pytest.raises(DriverError) as info:
        await PageSession(host, policy).open_tab("http://a.test/meta", focus=True)
    assert info.value.code == "NAVIGATION_BLOCKED" and "?soon" in info.value.message
    # the read after the load is the one round trip that also lets the load's dialog reports arrive
    assert host.methods() == ["pendingRefresh"]
    host.answer("pendingRefresh", {"ok": True, "url": "http://blocked.test/?later", "delayS": 30})
    opened = await PageSession(host, policy).open_tab("http://a.test/slow-refresh", focus=True)
    assert opened.tab.url == "http://a.test/slow-refresh"  # a refresh due later is not the load's


# ----------------------------------------------------------------- navigate


async def test_navigate_waits_for_the_load_and_refuses_other_schemes() -> None:
    host = FakeHost()
    tab = host.add_tab()
    host.on_goto = lambda t, url: host.later(0.03, (t, "start", 0, url), (t, "commit"), (t, "load"))
    assert await PageSession(host).navigate(tab, url="http://a.test/b") == {"url": "http://a.test/", "title": "Title"}
    for url in ("javascript:alert(1)", "not a url"):
        with pytest.raises(DriverError) as info:
            await PageSession(host).navigate(tab, url=url)
        assert info.value.code == "INVALID_URL"


async def test_a_refused_goto_names_the_hop_that_failed() -> None:
    host = FakeHost()
    tab = host.add_tab()
    policy = NavigationPolicy.from_patterns(block=["http://blocked.test"])

    def refused(t: int, url: str) -> None:
        host.later(0.02, (t, "start", 0, url), (t, "error", 0, "http://blocked.test/hop", "net::ERR_BLOCKED_BY_CLIENT"))
        raise DriverError(p.ErrorCode.NAVIGATION_FAILED, f"Could not load {url}: net::ERR_BLOCKED_BY_CLIENT")

    host.on_goto = refused
    with pytest.raises(DriverError) as info:
        await PageSession(host, policy).navigate(tab, url="http://a.test/redirect")
    assert info.value.code == "NAVIGATION_BLOCKED" and "http://blocked.test/hop" in info.value.message


async def test_a_goto_the_page_replaced_follows_the_replacing_navigation() -> None:
    host = FakeHost()
    tab = host.add_tab()

    def replaced(t: int, url: str) -> None:
        host.navigation(t, "start", 0, url)
        host.navigation(t, "start", 0, "http://a.test/other")  # the page's own navigation wins
        host.later(0.05, (t, "commit"), (t, "load"))
        raise DriverError(p.ErrorCode.NAVIGATION_FAILED, f"Could not load {url}: net::ERR_ABORTED")

    host.on_goto = replaced
    assert (await PageSession(host).navigate(tab, url="http://a.test/b"))["url"] == "http://a.test/"


# ----------------------------------------------------------------- plans


async def test_a_plan_runs_its_steps_and_ends_with_the_page_summary() -> None:
    host = FakeHost()
    tab = host.add_tab()
    host.answer("watchChanges", {"ok": True, "token": "w1"})
    host.answer("extract", {"ok": True, "items": ["a", "b"]})
    host.answer("summary", {"ok": True, "url": "http://a.test/", "title": "T", "navigated": False, "text": "hi"})
    steps = [
        p.Step(action="fill", target=p.Target(css="#q"), value="shoes"),
        p.Step(action="extract", target=p.Target(css=".hit"), label="hits"),
    ]
    result = await PageSession(host).run_steps(tab, "search", steps)
    assert result == {
        "steps": [{"action": "fill", "ok": True}, {"action": "extract", "ok": True}],
        "page": {"url": "http://a.test/", "title": "T", "navigated": False, "text": "hi"},
        "extracted": {"hits": ["a", "b"]},
    }
    acts = [a for _, _, m, a in host.calls if m == "act"]
    assert acts == [{"timeoutMs": 5000, "target": {"css": "#q"}, "action": "fill", "text": "shoes"}]
    assert host.calls[-1][2] == "summary" and host.calls[-1][3] == {"token": "w1", "results": False}


async def test_a_failing_step_says_which_and_stops_the_watch() -> None:
    host = FakeHost()
    tab = host.add_tab()
    host.answer("watchChanges", {"ok": True, "token": "w1"})
    host.answer("act", {"ok": False, "code": "ELEMENT_NOT_FOUND", "message": "No element matches css=#q"})
    steps = [p.Step(action="click", target=p.Target(css="#q"))]
    with pytest.raises(DriverError) as info:
        await PageSession(host).run_steps(tab, "search", steps)
    assert info.value.code == "ELEMENT_NOT_FOUND" and info.value.message.startswith("step 1 (click):")
    assert ("unwatch", {"token": "w1"}) in [(m, a) for _, _, m, a in host.calls]


async def test_a_step_whose_navigation_fails_fails_the_plan() -> None:
    host = FakeHost()
    tab = host.add_tab()

    def navigating(t: int, _f: int, _a: Any) -> Any:
        host.later(0.02, (t, "start"), (t, "error", 0, "http://a.test/x", "net::ERR_CONNECTION_RESET"))
        return {"ok": True, "dialogs": [], "navigation": {"url": "http://a.test/x", "sameDocument": False}}

    host.answer("act", navigating)
    with pytest.raises(DriverError) as info:
        await PageSession(host).run_steps(tab, "go", [p.Step(action="click", target=p.Target(css="a"))])
    assert info.value.code == "NAVIGATION_FAILED" and "step 1 (click)" in info.value.message


async def test_a_webmcp_tool_whose_document_goes_before_its_navigation_is_seen_counts_as_done() -> None:
    # the page's answer is lost with its document, and the navigation's events come a moment after
    # (over CDP they travel another connection than the agent's call)
    host = FakeHost()
    tab = host.add_tab()
    host.answer("watchChanges", {"ok": True, "token": "w1"})
    host.answer("summary", {"ok": True, "url": "http://a.test/next", "title": "Next", "navigated": True, "text": ""})

    def navigates_away(t: int, _f: int, _a: Any) -> Any:
        host.later(0.05, (t, "start", 0, "http://a.test/next"), (t, "commit"), (t, "load"))
        return MISSING

    host.answer("webmcpCall", navigates_away)
    result = await PageSession(host).run_steps(tab, "go", [p.Step(action="webmcp", name="navigate_away", args={})])
    assert result["webmcp"] is None and result["page"]["url"] == "http://a.test/next"


async def test_a_submit_step_whose_document_goes_before_its_navigation_is_seen_counts_as_done() -> None:
    # a form's GET submit: its act answer is lost with the document it ran in, and the navigation's
    # events come a moment after (over CDP they travel another connection than the agent's call)
    host = FakeHost()
    tab = host.add_tab()
    host.answer("watchChanges", {"ok": True, "token": "w1"})
    host.answer("summary", {"ok": True, "url": "http://a.test/?q=x", "title": "Hits", "navigated": True, "text": ""})

    def submits(t: int, _f: int, arg: Any) -> Any:
        if arg["action"] != "submit":
            return {"ok": True, "dialogs": []}
        host.later(0.05, (t, "start", 0, "http://a.test/?q=x"), (t, "commit"), (t, "load"))
        return MISSING

    host.answer("act", submits)
    steps = [
        p.Step(action="fill", target=p.Target(css="#q"), value="x"),
        p.Step(action="submit", target=p.Target(css="form")),
    ]
    result = await PageSession(host).run_steps(tab, "search", steps)
    assert result["steps"] == [{"action": "fill", "ok": True}, {"action": "submit", "ok": True}]
    assert result["page"]["url"] == "http://a.test/?q=x" and result["page"]["navigated"] is True


async def test_a_step_whose_agent_does_not_answer_and_nothing_navigates_fails() -> None:
    host = FakeHost()
    tab = host.add_tab()
    host.answer("watchChanges", {"ok": True, "token": "w1"})
    host.answer("act", MISSING)
    with pytest.raises(DriverError) as info:
        await PageSession(host).run_steps(tab, "search", [p.Step(action="submit", target=p.Target(css="form"))])
    assert info.value.code == "NOT_SCRIPTABLE" and info.value.message.startswith("step 1 (submit):")


async def test_an_action_whose_document_goes_before_its_navigation_is_seen_navigated() -> None:
    host = FakeHost()
    tab = host.add_tab()
    host.answer("find", {"ok": True, "matches": [{"ref": "e1", "role": "link", "name": "Next"}]})

    def clicks(t: int, _f: int, _a: Any) -> Any:
        host.urls[t] = ("http://a.test/next", "Next", False)
        host.later(0.05, (t, "start", 0, "http://a.test/next"), (t, "commit"), (t, "load"))
        return MISSING

    host.answer("act", clicks)
    done = await PageSession(host).act(tab, {"action": "click", "target": {"css": "a"}})
    assert done["navigated"] is True and done["url"] == "http://a.test/next"
    host.answer("act", MISSING)  # no navigation follows: the lost answer is the call's error
    with pytest.raises(DriverError) as info:
        await PageSession(host).act(tab, {"action": "click", "target": {"css": "a"}})
    assert info.value.code == "NOT_SCRIPTABLE"


async def test_a_wait_step_ends_early_on_the_sites_error_message() -> None:
    host = FakeHost()
    tab = host.add_tab()
    host.answer("probe", {"ok": True, "met": False})
    host.answer("extract", {"ok": True, "items": [" Card declined "]})
    step = p.Step(action="wait_for", condition={"text": "Thanks"}, failWhen=p.Target(css=".error"), timeoutMs=2000)
    with pytest.raises(DriverError) as info:
        await PageSession(host).run_steps(tab, "pay", [step])
    assert info.value.code == "PAGE_ERROR" and info.value.message.endswith("Card declined")


# ----------------------------------------------------------------- wait_for


async def test_wait_for_polls_until_met_in_some_frame_or_times_out() -> None:
    host = FakeHost()
    tab = host.add_tab(frames=[(2, 0)])
    rounds = {"n": 0}

    def probe(_t: int, frame: int, _a: Any) -> Any:
        rounds["n"] += frame == 0
        return {"ok": True, "met": frame == 2 and rounds["n"] >= 3}

    host.answer("probe", probe)
    met = await PageSession(host).wait_for(tab, {"text": "Done"}, timeout_ms=3000)
    assert met["met"] is True and met["elapsedMs"] >= 150 and rounds["n"] == 3

    host.answer("probe", {"ok": True, "met": False, "detail": "the page says Loading"})
    with pytest.raises(DriverError) as info:
        await PageSession(host).wait_for(tab, {"text": "Done"}, timeout_ms=200)
    assert info.value.code == "TIMEOUT" and 'text "Done": the page says Loading' in info.value.message

    # gone means gone from every frame; a ref whose frame is not known is gone already
    host.answer("probe", lambda _t, frame, _a: {"ok": True, "met": frame == 0})
    with pytest.raises(DriverError):
        await PageSession(host).wait_for(tab, {"textGone": "Busy"}, timeout_ms=150)
    assert (await PageSession(host).wait_for(tab, {"target": {"ref": "f3e1"}, "state": "detached"}))["met"]


# ----------------------------------------------------------------- console, keys, network


async def test_console_reads_the_tabs_buffer_with_what_the_agents_still_hold() -> None:
    host = FakeHost()
    tab = host.add_tab(frames=[(2, 0)])
    session = PageSession(host)
    host.emit(AgentMessage(tab, 0, {"type": "console", "entries": [{"level": "warn", "text": "early", "time": 1}]}))
    host.answer("takeConsole", lambda _t, f, _a: {"ok": True, "entries": [{"level": "error", "text": f"frame {f}"}]})
    read = await session.console(tab)
    assert [(e["seq"], e["level"], e["text"]) for e in read["entries"]] == [
        (1, "warning", "early"),
        (2, "error", "frame 0"),
        (3, "error", "frame 2"),
    ]
    host.answer("takeConsole", {"ok": True, "entries": []})
    assert [e["text"] for e in (await session.console(tab, after_seq=1, levels=["error"]))["entries"]] == [
        "frame 0",
        "frame 2",
    ]


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


@pytest.mark.parametrize(
    ("combo", "key", "code", "modifiers"),
    [
        ("Enter", "Enter", "Enter", ()),
        ("Esc", "Escape", "Escape", ()),
        ("Ctrl+a", "a", "KeyA", ("Control",)),
        ("Control+Shift+a", "A", "KeyA", ("Control", "Shift")),
        ("Cmd+Return", "Enter", "Enter", ("Meta",)),
        ("Space", " ", "Space", ()),
        ("+", "+", "", ()),
        ("Control++", "+", "", ("Control",)),
        ("Up", "ArrowUp", "ArrowUp", ()),
        ("F5", "F5", "F5", ()),
        ("7", "7", "Digit7", ()),
    ],
)
def test_key_combinations(combo: str, key: str, code: str, modifiers: tuple[str, ...]) -> None:
    parsed = parse_key_combo(combo)
    assert (parsed.key, parsed.code, parsed.modifiers) == (key, code, modifiers)


@pytest.mark.parametrize(("combo", "word"), [("Hyper+a", "modifier"), ("Banana", "key"), ("Control+Banana", "key")])
def test_unknown_keys_are_refused(combo: str, word: str) -> None:
    with pytest.raises(DriverError) as info:
        parse_key_combo(combo)
    assert info.value.code == "BAD_MESSAGE" and f"Unknown {word}" in info.value.message


async def test_a_shortcut_types_no_text_and_select_all_is_a_command() -> None:
    sent: list[dict[str, Any]] = []

    async def send(_method: str, params: Any) -> None:
        sent.append(dict(params))

    await press_key(send, "Control+a")
    assert [(e["type"], e["key"]) for e in sent] == [
        ("rawKeyDown", "Control"),
        ("rawKeyDown", "a"),
        ("keyUp", "a"),
        ("keyUp", "Control"),
    ]
    assert sent[1]["commands"] == ["selectAll"] and "text" not in sent[1] and sent[1]["modifiers"] == 2
    sent.clear()
    await press_key(send, "Shift+b")
    assert sent[1]["type"] == "keyDown" and sent[1]["text"] == "B"


async def test_network_idle_waits_for_quiet() -> None:
    network = Network()
    loop = asyncio.get_running_loop()
    assert await network.idle(loop.time() + 3)  # nothing was ever in flight
    network.receive(RequestStarted(1, "r1", "fetch"))
    assert not await network.idle(loop.time() - 1)  # busy, and the deadline has passed
    loop.call_later(0.05, network.receive, RequestEnded(1, "r1"))
    assert await network.idle(loop.time() + 3)
    assert not network.requests
