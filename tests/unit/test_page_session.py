"""The page session over a FakeHost: frames and refs, snapshot splicing, targets across frames, and
what follows an action (no navigation, same-document, a load, a failure, the tab closing, no end)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from tests.unit.page_session_host import MISSING, FakeHost

from tabmcp.drivers.base import DriverError, PageChanged
from tabmcp.drivers.host import AgentMessage
from tabmcp.drivers.session import PageSession, actions
from tabmcp.drivers.session.frames import agent_ok, prefix_ref, split_token
from tabmcp.policy import NavigationPolicy

MAIN_DOC, CHILD_DOC = "doc-main", "doc-child"


def framed_page(host: FakeHost) -> int:
    """A page with one iframe (host frame 7) shown after a button, and a hidden one (frame 9)."""
    tab = host.add_tab(frames=[(7, 0), (9, 0)])
    main = {
        "url": "http://a.test/",
        "title": "Framed",
        "docId": MAIN_DOC,
        "nodes": [
            {"ref": "e1", "role": "button", "name": "Top", "depth": 0},
            {"ref": "e2", "role": "iframe", "name": "", "depth": 0, "frameToken": f"{MAIN_DOC}:e2"},
            {"ref": "e3", "role": "link", "name": "After", "depth": 0},
        ],
    }
    child = {
        "docId": CHILD_DOC,
        "parentToken": f"{MAIN_DOC}:e2",
        "nodes": [{"ref": "e1", "role": "textbox", "name": "Inner", "depth": 1, "states": ["focused"]}],
    }
    hidden = {"docId": "doc-hidden", "parentToken": None, "nodes": [{"ref": "e1", "role": "button", "name": "X"}]}
    host.answer("snapshot", lambda _t, frame, _a: {0: main, 7: child, 9: hidden}[frame])
    return tab


async def test_snapshot_splices_frames_in_document_order_with_prefixed_refs() -> None:
    host = FakeHost()
    tab = framed_page(host)
    session = PageSession(host)
    snap = await session.snapshot(tab)
    assert [(n["ref"], n["depth"]) for n in snap["nodes"]] == [("e1", 0), ("e2", 0), ("f1e1", 2), ("e3", 0)]
    assert snap["frames"] == 2 and snap["docId"] == MAIN_DOC and snap["title"] == "Framed"
    assert snap["nodes"][2]["states"] == ["focused"]
    # the hidden frame is numbered too (after the shown one), for css and role targets
    assert session.tab(tab).agent.frames.by_ordinal == {0: 0, 1: 7, 2: 9}


async def test_a_child_without_its_token_yet_is_asked_once_more() -> None:
    host = FakeHost()
    tab = framed_page(host)
    asked: list[int] = []
    first = host.agent["snapshot"]

    def late_token(t: int, frame: int, arg: Any) -> Any:
        asked.append(frame)
        answer = dict(first(t, frame, arg))
        if frame == 7 and asked.count(7) == 1:
            answer["parentToken"] = None  # its parent's message has not reached it yet
        return answer

    host.answer("snapshot", late_token)
    snap = await PageSession(host).snapshot(tab)
    assert asked.count(7) == 2 and "f1e1" in [n["ref"] for n in snap["nodes"]]


async def test_a_frame_ref_acts_in_that_frame_with_the_document_it_was_read_from() -> None:
    host = FakeHost()
    tab = framed_page(host)
    session = PageSession(host)
    await session.snapshot(tab)
    host.answer("act", {"ok": True, "dialogs": []})
    done = await session.act(tab, {"action": "click", "target": {"ref": "f1e1"}})
    assert done == {"navigated": False, "url": "http://a.test/", "title": "Title", "dialogs": [], "sensitive": False}
    act_calls = [(frame, arg) for _, frame, method, arg in host.calls if method == "act"]
    assert act_calls == [(7, {"action": "click", "target": {"ref": "e1", "doc": CHILD_DOC}})]
    # the hot path: the ref is resolved locally, one agent call
    assert host.methods().count("act") == 1 and "find" not in host.methods()


async def test_refs_of_unknown_or_removed_frames_are_stale() -> None:
    host = FakeHost()
    tab = framed_page(host)
    session = PageSession(host)
    await session.snapshot(tab)
    with pytest.raises(DriverError) as unknown:
        await session.act(tab, {"action": "click", "target": {"ref": "f5e1"}})
    assert unknown.value.code == "STALE_REF" and "no frame f5" in unknown.value.message
    host.tabs[tab] = host.tabs[tab][:1] + host.tabs[tab][2:]  # frame 7 goes away
    host.navigation(tab, "removed", frame_id=7)
    with pytest.raises(DriverError) as removed:
        await session.act(tab, {"action": "click", "target": {"ref": "f1e1"}})
    assert removed.value.code == "STALE_REF"
    with pytest.raises(DriverError) as malformed:
        await session.act(tab, {"action": "click", "target": {"ref": "button"}})
    assert malformed.value.code == "ELEMENT_NOT_FOUND"


async def test_a_ref_whose_frame_vanishes_during_the_call_is_stale() -> None:
    host = FakeHost()
    tab = framed_page(host)
    session = PageSession(host)
    await session.snapshot(tab)

    def gone(t: int, frame: int, _a: Any) -> Any:
        host.tabs[t] = [f for f in host.tabs[t] if f.frame_id != 7]
        return MISSING

    host.answer("act", gone)
    with pytest.raises(DriverError) as info:
        await session.act(tab, {"action": "click", "target": {"ref": "f1e1"}})
    assert info.value.code == "STALE_REF" and "its frame is gone" in info.value.message


async def test_css_and_role_targets_must_match_once_across_frames() -> None:
    host = FakeHost()
    tab = framed_page(host)
    session = PageSession(host)
    await session.snapshot(tab)
    matches = {0: [{"ref": "e1", "role": "button", "name": "Go"}], 7: [{"ref": "e4", "role": "button", "name": "Go"}]}
    host.answer("find", lambda _t, frame, _a: {"ok": True, "matches": matches.get(frame, [])})
    with pytest.raises(DriverError) as ambiguous:
        await session.act(tab, {"action": "click", "target": {"role": "button", "name": "Go"}})
    assert ambiguous.value.code == "ELEMENT_AMBIGUOUS"
    assert ambiguous.value.candidates == [
        {"ref": "e1", "role": "button", "name": "Go"},
        {"ref": "f1e4", "role": "button", "name": "Go"},
    ]
    assert 'role=button[name=Go] matches 2 elements: e1 button "Go", f1e4 button "Go"' in ambiguous.value.message

    del matches[0]
    await session.act(tab, {"action": "click", "target": {"role": "button", "name": "Go"}})
    assert [(f, a["target"]) for _, f, m, a in host.calls if m == "act"] == [(7, {"ref": "e4"})]

    matches.clear()
    with pytest.raises(DriverError) as missing:
        await session.act(tab, {"action": "click", "target": {"css": "#nothing"}})
    assert missing.value.code == "ELEMENT_NOT_FOUND" and "css=#nothing" in missing.value.message

    host.answer("find", {"ok": False, "code": "BAD_MESSAGE", "message": "invalid selector"})
    with pytest.raises(DriverError) as bad:
        await session.act(tab, {"action": "click", "target": {"css": "##"}})
    assert bad.value.code == "BAD_MESSAGE"


async def test_press_without_a_target_goes_to_the_deepest_focused_frame() -> None:
    host = FakeHost()
    tab = host.add_tab(frames=[(3, 0), (4, 3)])
    host.answer("holdsFocus", lambda _t, frame, _a: {"ok": True, "focused": frame in (3, 4)})
    await PageSession(host).act(tab, {"action": "press", "key": "Enter"})
    assert [f for _, f, m, _ in host.calls if m == "act"] == [4]


# ----------------------------------------------------------------- after an action


async def click(host: FakeHost, session: PageSession, tab: int, wait_until: Any = "load") -> dict[str, Any]:
    return await session.act(tab, {"action": "click", "target": {"ref": "e1"}}, wait_until)


async def test_an_action_without_navigation_answers_at_once() -> None:
    host = FakeHost()
    tab = host.add_tab()
    host.answer("act", {"ok": True, "dialogs": [{"type": "alert", "message": "hi", "answer": None}]})
    started = time.monotonic()
    done = await click(host, PageSession(host), tab)
    assert time.monotonic() - started < 0.35  # no grace period for a start (that is for trusted input)
    assert done["navigated"] is False and done["dialogs"] == [{"type": "alert", "message": "hi", "answer": None}]


async def test_a_same_document_navigation_is_done_at_once() -> None:
    host = FakeHost()
    tab = host.add_tab()
    host.answer("act", {"ok": True, "dialogs": [], "navigation": {"url": "http://a.test/#x", "sameDocument": True}})
    assert (await click(host, PageSession(host), tab))["navigated"] is True


async def test_a_cross_document_navigation_is_followed_to_its_load() -> None:
    host = FakeHost()
    tab = host.add_tab()
    session = PageSession(host)
    load_at = {"s": 0.15}

    def navigating(t: int, _f: int, _a: Any) -> Any:
        host.later(0.05, (t, "start"), (t, "commit"), (t, "dom_content_loaded"))
        host.later(load_at["s"], (t, "load"))
        return {"ok": True, "dialogs": [], "navigation": {"url": "http://a.test/next", "sameDocument": False}}

    host.answer("act", navigating)
    started = time.monotonic()
    assert (await click(host, session, tab))["navigated"] is True
    assert time.monotonic() - started >= 0.15  # waited for the load, not the commit
    load_at["s"] = 2.0
    started = time.monotonic()
    assert (await click(host, session, tab, "domcontentloaded"))["navigated"] is True
    assert time.monotonic() - started < 1.5  # not the load


async def test_the_previous_documents_late_load_does_not_end_a_navigation_that_has_not_committed() -> None:
    """The browser may report the old document's load after the next navigation started (a page the
    server sent to about:blank a moment before): the navigation ends with its own commit and load."""
    host = FakeHost()
    tab = host.add_tab()
    session = PageSession(host)

    def navigating(t: int, _f: int, _a: Any) -> Any:
        host.later(0.02, (t, "start"), (t, "load"))  # the old document's load, after the new start
        host.later(0.2, (t, "commit"), (t, "dom_content_loaded"), (t, "load"))
        return {"ok": True, "dialogs": [], "navigation": {"url": "http://a.test/next", "sameDocument": False}}

    host.answer("act", navigating)
    started = time.monotonic()
    assert (await click(host, session, tab))["navigated"] is True
    assert time.monotonic() - started >= 0.2  # the stale load did not end it


async def test_a_navigation_the_agent_did_not_report_is_followed_too() -> None:
    host = FakeHost()
    tab = host.add_tab()

    def navigating(t: int, _f: int, _a: Any) -> Any:
        host.navigation(t, "start")  # the browser's news came before the agent's answer
        host.later(0.05, (t, "commit"), (t, "load"))
        return {"ok": True, "dialogs": []}

    host.answer("act", navigating)
    assert (await click(host, PageSession(host), tab))["navigated"] is True


@pytest.mark.parametrize(
    ("error", "policy", "code", "said"),
    [
        ("net::ERR_CONNECTION_REFUSED", None, "NAVIGATION_FAILED", "Could not load http://b.test/: net::ERR_"),
        ("net::ERR_BLOCKED_BY_CLIENT", ["http://b.test"], "NAVIGATION_BLOCKED", "TABMCP_BLOCK_URLS"),
        ("net::ERR_BLOCKED_BY_CLIENT", None, "NAVIGATION_BLOCKED", "blocked by tabmcp's navigation policy"),
    ],
)
async def test_a_failed_navigation_is_the_actions_error(
    error: str, policy: list[str] | None, code: str, said: str
) -> None:
    host = FakeHost()
    tab = host.add_tab()
    rules = NavigationPolicy.from_patterns(block=policy) if policy else None

    def failing(t: int, _f: int, _a: Any) -> Any:
        host.later(0.02, (t, "start", 0, "http://b.test/"), (t, "error", 0, "http://b.test/", error))
        return {"ok": True, "dialogs": [], "navigation": {"url": "http://b.test/", "sameDocument": False}}

    host.answer("act", failing)
    with pytest.raises(DriverError) as info:
        await click(host, PageSession(host, rules), tab)
    assert info.value.code == code and said in info.value.message, info.value.message


async def test_a_tab_closed_while_the_next_page_loads_is_no_tab() -> None:
    host = FakeHost()
    tab = host.add_tab()

    def closing(t: int, _f: int, _a: Any) -> Any:
        host.later(0.02, (t, "start"), (t, "removed"))
        return {"ok": True, "dialogs": [], "navigation": {"url": "http://a.test/next", "sameDocument": False}}

    host.answer("act", closing)
    with pytest.raises(DriverError) as info:
        await click(host, PageSession(host), tab)
    assert info.value.code == "NO_TAB" and "closed while http://a.test/next loaded" in info.value.message


async def test_a_navigation_that_never_loads_is_a_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(actions, "NAVIGATION_TIMEOUT_S", 0.2)
    host = FakeHost()
    tab = host.add_tab()

    def stuck(t: int, _f: int, _a: Any) -> Any:
        host.later(0.02, (t, "start"), (t, "commit"))
        return {"ok": True, "dialogs": [], "navigation": {"url": "http://a.test/slow", "sameDocument": False}}

    host.answer("act", stuck)
    with pytest.raises(DriverError) as info:
        await click(host, PageSession(host), tab)
    assert info.value.code == "TIMEOUT" and 'started but did not reach "load" within 200 ms' in info.value.message


async def test_an_aborted_navigation_settles_as_done_once_the_tab_stopped_loading() -> None:
    host = FakeHost()
    tab = host.add_tab()

    def download(t: int, _f: int, _a: Any) -> Any:
        host.later(0.02, (t, "start"), (t, "aborted", 0, "http://a.test/file.zip", "net::ERR_ABORTED"))
        return {"ok": True, "dialogs": [], "navigation": {"url": "http://a.test/file.zip", "sameDocument": False}}

    host.answer("act", download)
    assert (await click(host, PageSession(host), tab))["navigated"] is True


async def test_the_action_navigating_its_frame_away_before_answering_is_success() -> None:
    host = FakeHost()
    tab = host.add_tab()

    def gone(t: int, _f: int, _a: Any) -> Any:
        host.navigation(t, "start")
        host.later(0.02, (t, "commit"), (t, "load"))
        return MISSING  # the document went away before the agent could answer

    host.answer("act", gone)
    assert (await click(host, PageSession(host), tab))["navigated"] is True
    host.answer("act", MISSING)  # no navigation: the page just cannot be scripted
    with pytest.raises(DriverError) as info:
        await click(host, PageSession(host), tab)
    assert info.value.code == "NOT_SCRIPTABLE"


async def test_trusted_input_goes_through_cdp_at_the_agents_point() -> None:
    host = FakeHost()
    tab = host.add_tab()
    host.answer("point", {"ok": True, "x": 10, "y": 20})
    done = await PageSession(host).act(tab, {"action": "fill", "target": {"ref": "e1"}, "text": "hé", "trusted": True})
    assert done["navigated"] is False
    sent = [(m, p.get("type"), p.get("key")) for m, p in host.cdp_calls]
    assert sent[:3] == [
        ("Input.dispatchMouseEvent", "mouseMoved", None),
        ("Input.dispatchMouseEvent", "mousePressed", None),
        ("Input.dispatchMouseEvent", "mouseReleased", None),
    ]
    assert ("Input.dispatchKeyEvent", "rawKeyDown", "Control") in sent and host.cdp_calls[-1] == (
        "Input.insertText",
        {"text": "hé"},
    )
    with pytest.raises(DriverError) as info:
        await PageSession(host).act(tab, {"action": "press", "key": "Hyper+a", "trusted": True})
    assert info.value.code == "BAD_MESSAGE"


async def test_top_frame_tools_changes_become_page_changed_events() -> None:
    host = FakeHost()
    tab = host.add_tab(frames=[(2, 0)])
    seen: list[object] = []
    PageSession(host, on_event=seen.append)
    host.emit(AgentMessage(tab, 2, {"type": "toolsChanged", "reason": "mutation", "version": "v1"}))
    host.emit(AgentMessage(tab, 0, {"type": "toolsChanged", "reason": "odd", "version": "v2"}))
    assert seen == [PageChanged(tab, "mutation", "v2")]


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
    assert prefix_ref(0, "e4") == "e4" and prefix_ref(3, "e4") == "f3e4" and prefix_ref(2, "") == ""
    assert split_token("doc-1:e7") == ("doc-1", "e7") and split_token("e7") is None and split_token(None) is None


async def test_a_snapshot_of_a_loading_tab_waits_for_its_load() -> None:
    host = FakeHost()
    tab = framed_page(host)
    session = PageSession(host)
    host.navigation(tab, "start")
    host.navigation(tab, "commit")
    host.urls[tab] = ("http://a.test/", "Framed", True)

    def loaded() -> None:
        host.urls[tab] = ("http://a.test/", "Framed", False)
        host.navigation(tab, "load")

    asyncio.get_running_loop().call_later(0.15, loaded)
    started = time.monotonic()
    await session.snapshot(tab)
    assert time.monotonic() - started >= 0.15
    # the tab says it is not loading (a hint left over): no wait
    host.navigation(tab, "start")
    host.urls[tab] = ("http://a.test/", "Framed", False)
    started = time.monotonic()
    await session.snapshot(tab)
    assert time.monotonic() - started < 1
