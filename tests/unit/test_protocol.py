"""The extension wire protocol: frames as the extension sends them, errors, server encoding."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from tabmcp import protocol as p

PROTOCOL_DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
TAB = {
    "id": 7,
    "windowId": 1,
    "title": "Inbox",
    "url": "https://mail.test/",
    "status": "complete",
    "active": True,
}
BROWSER = {"name": "Chrome", "version": "126.0"}

# One realistic frame per extension -> server type of docs/protocol.md, with the model it must become.
EXTENSION_FRAMES: dict[str, tuple[dict[str, Any], type[p.Frame]]] = {
    "hello": (
        {"type": "hello", "extension": {"version": "0.1.0"}, "browser": BROWSER},
        p.Hello,
    ),
    "ping": ({"type": "ping"}, p.Ping),
    "connected": (
        {"type": "connected", "id": "r1", "browser": BROWSER, "tabs": [TAB]},
        p.Connected,
    ),
    "tabCreated": ({"type": "tabCreated", "tab": {**TAB, "status": "loading", "title": ""}}, p.TabCreated),
    "tabUpdated": ({"type": "tabUpdated", "tab": TAB}, p.TabUpdated),
    "tabClosed": ({"type": "tabClosed", "tabId": 7}, p.TabClosed),
    "tabFocused": ({"type": "tabFocused", "tabId": 7}, p.TabFocused),
    "tabCrashed": ({"type": "tabCrashed", "tabId": 7}, p.TabCrashed),
    "result": ({"type": "result", "id": "r2", "data": {"tab": TAB}}, p.Result),
    "error": (
        {"type": "error", "id": "r4", "code": "ELEMENT_NOT_FOUND", "message": "Ref e9 is stale"},
        p.Error,
    ),
    "disconnected": ({"type": "disconnected"}, p.Disconnected),
    "navigationBlocked": (
        {"type": "navigationBlocked", "tabId": 7, "url": "https://b.test/", "reason": "blocked by tabmcp's …"},
        p.NavigationBlocked,
    ),
    "settings": ({"type": "settings", "followTabSwitches": True}, p.UserSettings),
    "pageEvents": (
        {
            "type": "pageEvents",
            "events": [
                {"type": "frameNavigation", "tabId": 7, "frameId": 0, "kind": "start", "url": "https://a.test/"},
                {"type": "frameNavigation", "tabId": 7, "frameId": 3, "kind": "error", "url": "https://b.test/",
                 "error": "net::ERR_NAME_NOT_RESOLVED"},
                {"type": "requestStarted", "tabId": 7, "requestId": "41", "kind": "xmlhttprequest"},
                {"type": "requestEnded", "tabId": 7, "requestId": "41"},
                {"type": "agentMessage", "tabId": 7, "frameId": 0,
                 "message": {"type": "console", "entries": [{"level": "log", "text": "hi"}]}},
                {"type": "popupOpened", "tabId": 9, "openerId": 7},
            ],
        },
        p.PageEvents,
    ),
}


def documented_extension_types() -> set[str]:
    """The `type` column of the "Extension → server" table in docs/protocol.md."""
    text = PROTOCOL_DOC.read_text(encoding="utf-8")
    section = text.split("## Extension → server", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `(\w+)` \|", section, flags=re.MULTILINE))


def bad(raw: str | bytes) -> p.ProtocolError:
    with pytest.raises(p.ProtocolError) as info:
        p.parse_extension_message(raw)
    return info.value


def test_examples_cover_every_documented_and_every_accepted_type() -> None:
    assert documented_extension_types() == set(EXTENSION_FRAMES)
    assert set(p.EXTENSION_TYPES) == set(EXTENSION_FRAMES)


@pytest.mark.parametrize("kind", sorted(EXTENSION_FRAMES))
def test_every_extension_frame_validates(kind: str) -> None:
    frame, model = EXTENSION_FRAMES[kind]
    message = p.parse_extension_message(json.dumps(frame))
    assert type(message) is model
    assert message.type == kind
    dumped = message.model_dump(mode="json", exclude_unset=True)  # optional fields left out stay out
    assert {key: dumped[key] for key in frame} == frame  # every field sent is kept, as sent


def test_frames_keep_their_values() -> None:
    connected = p.parse_extension_message(json.dumps(EXTENSION_FRAMES["connected"][0]))
    assert isinstance(connected, p.Connected)
    assert connected.id == "r1"
    assert connected.browser == p.BrowserInfo(name="Chrome", version="126.0")
    assert connected.tabs == [p.TabInfo(**TAB)]

    error = p.parse_extension_message(json.dumps(EXTENSION_FRAMES["error"][0]))
    assert isinstance(error, p.Error)
    assert (error.id, error.code, error.message) == ("r4", "ELEMENT_NOT_FOUND", "Ref e9 is stale")

    closed = p.parse_extension_message(json.dumps(EXTENSION_FRAMES["tabClosed"][0]))
    assert isinstance(closed, p.TabClosed)
    assert closed.tabId == 7


def test_bytes_frames_are_accepted() -> None:
    assert isinstance(p.parse_extension_message(b'{"type": "ping"}'), p.Ping)


def test_unknown_extra_fields_are_tolerated() -> None:
    message = p.parse_extension_message('{"type": "tabClosed", "tabId": 3, "windowId": 1, "new": [1]}')
    assert isinstance(message, p.TabClosed)
    assert message.tabId == 3


@pytest.mark.parametrize("raw", ["not json", "{'type': 'ping'}", '{"type": "ping"', b"\xff\xfe{", ""])
def test_non_json_is_a_bad_message(raw: str | bytes) -> None:
    error = bad(raw)
    assert error.code is p.ErrorCode.BAD_MESSAGE
    assert error.frame_id is None


@pytest.mark.parametrize("raw", ["[1, 2]", '"ping"', "42", "null", "true"])
def test_non_object_is_a_bad_message(raw: str) -> None:
    error = bad(raw)
    assert error.code is p.ErrorCode.BAD_MESSAGE
    assert "object" in error.message


def test_unknown_type_is_reported_with_the_frame_id() -> None:
    error = bad('{"type": "teleport", "id": "x42"}')
    assert error.code is p.ErrorCode.UNKNOWN_TYPE
    assert error.frame_id == "x42"
    assert "teleport" in error.message


@pytest.mark.parametrize("raw", ['{"id": "x1"}', '{"type": "pong"}', '{"type": "connect", "id": "x1"}'])
def test_missing_type_and_server_only_types_are_unknown(raw: str) -> None:
    assert bad(raw).code is p.ErrorCode.UNKNOWN_TYPE


def test_a_non_string_id_is_not_echoed() -> None:
    error = bad('{"type": "teleport", "id": 42}')
    assert error.code is p.ErrorCode.UNKNOWN_TYPE
    assert error.frame_id is None


def test_an_unhashable_type_is_a_protocol_error() -> None:
    # Regression: a JSON list/object as `type` once raised TypeError("unhashable type") from the
    # frozenset membership test instead of ProtocolError, and the bridge dropped the connection.
    error = bad('{"type": ["hello"], "id": "x1"}')
    assert error.code in (p.ErrorCode.UNKNOWN_TYPE, p.ErrorCode.BAD_MESSAGE)


def test_tab_closed_without_tab_id_is_a_bad_message_naming_the_field() -> None:
    error = bad('{"type": "tabClosed"}')
    assert error.code is p.ErrorCode.BAD_MESSAGE
    assert "tabId" in error.message
    assert "tabClosed" in error.message


def test_a_tab_with_a_non_numeric_id_is_a_bad_message_naming_the_field() -> None:
    error = bad(json.dumps({"type": "tabCreated", "tab": {**TAB, "id": "abc"}}))
    assert error.code is p.ErrorCode.BAD_MESSAGE
    assert "tab.id" in error.message


def test_a_bad_answer_echoes_its_id() -> None:
    error = bad('{"type": "result", "id": "r9", "data": "not an object"}')
    assert error.code is p.ErrorCode.BAD_MESSAGE
    assert error.frame_id == "r9"
    assert "data" in error.message


def test_an_answer_without_id_is_a_bad_message() -> None:
    error = bad('{"type": "connected", "tabs": []}')
    assert error.code is p.ErrorCode.BAD_MESSAGE
    assert re.search(r"\bid: Field required", error.message), error.message  # "invalid" also holds "id"


def test_an_unknown_tab_status_is_a_bad_message() -> None:
    error = bad(json.dumps({"type": "tabUpdated", "tab": {**TAB, "status": "sleeping"}}))
    assert error.code is p.ErrorCode.BAD_MESSAGE
    assert "tab.status" in error.message


# ----------------------------------------------------------------- server -> extension

SERVER_MESSAGES: list[p.Frame] = [
    p.Pong(),
    p.Connect(id="r1"),
    p.FocusTab(id="r3", tabId=7),
    p.CloseTab(id="r4", tabId=7),
    p.ActiveTab(id="r12"),
    p.CreateTab(id="r23", url="https://flights.test/", focus=False, group="tabmcp"),
    p.TabUrl(id="r24", tabId=7),
    p.Frames(id="r25", tabId=7),
    p.CallAgent(id="r26", tabId=7, frameIds=[0, 4], method="act", arg={"action": "click", "target": {"ref": "e3"}}),
    p.CallAgent(id="r27", tabId=7, method="snapshot", arg={"mode": "interactive"}),
    p.Cdp(id="r28", tabId=7, method="Input.dispatchMouseEvent", params={"type": "mousePressed", "x": 4, "y": 5}),
    p.CaptureViewport(id="r29", tabId=7, format="jpeg", quality=60),
    p.Goto(id="r30", tabId=7, url="https://flights.test/search"),
    p.Go(id="r31", tabId=7, where="back"),
    p.Controlled(tabs=[p.ControlledTab(tabId=7, group="tabmcp"), p.ControlledTab(tabId=9, group="claude 1f2e")]),
    p.Controlled(),
    p.ServerError(id="x1", code=p.ErrorCode.UNKNOWN_TYPE, message="unknown frame type 'teleport'"),
    p.ServerError(code=p.ErrorCode.BAD_MESSAGE, message="frame is not valid JSON"),
]


@pytest.mark.parametrize("message", SERVER_MESSAGES, ids=lambda m: m.type)
def test_encode_round_trips_through_parse_server_message(message: p.Frame) -> None:
    assert p.parse_server_message(p.encode(message)) == message


def test_encode_uses_the_wire_field_names() -> None:
    frame = json.loads(p.encode(p.CallAgent(id="r6", tabId=7, frameIds=[0], method="summary")))
    assert frame == {"type": "callAgent", "id": "r6", "tabId": 7, "frameIds": [0], "method": "summary"}
    assert json.loads(p.encode(p.CaptureViewport(id="r5", tabId=7)))["format"] == "png"


def test_encode_omits_none_fields_but_not_inside_the_agents_and_the_debuggers_arguments() -> None:
    error = json.loads(p.encode(p.ServerError(code=p.ErrorCode.BAD_MESSAGE, message="bad")))
    assert error == {"type": "error", "code": "BAD_MESSAGE", "message": "bad"}

    call = json.loads(p.encode(p.CallAgent(id="r1", tabId=7, method="act", arg={"text": None, "n": [None]})))
    assert call == {"type": "callAgent", "id": "r1", "tabId": 7, "method": "act", "arg": {"text": None, "n": [None]}}
    cdp = json.loads(p.encode(p.Cdp(id="r2", tabId=7, method="Page.navigate", params={"referrer": None})))
    assert cdp["params"] == {"referrer": None}


def test_encode_keeps_false_values() -> None:
    assert json.loads(p.encode(SERVER_MESSAGES[5]))["focus"] is False
    assert json.loads(p.encode(p.CallAgent(id="r1", tabId=7, method="act", arg=False)))["arg"] is False


def documented_server_types() -> set[str]:
    """The `type` column of the "Server → extension" table in docs/protocol.md."""
    text = PROTOCOL_DOC.read_text(encoding="utf-8")
    section = text.split("## Server → extension", 1)[1].split("\n### ", 1)[0]
    return set(re.findall(r"^\| `(\w+)` \|", section, flags=re.MULTILINE))


def test_every_server_type_is_documented_and_has_an_example() -> None:
    accepted = {
        m.__name__: m
        for m in (
            p.Pong,
            p.Connect,
            p.FocusTab,
            p.ActiveTab,
            p.CloseTab,
            p.CreateTab,
            p.TabUrl,
            p.Frames,
            p.CallAgent,
            p.Cdp,
            p.CaptureViewport,
            p.Goto,
            p.Go,
            p.Controlled,
            p.ServerError,
        )
    }
    types = {m.model_fields["type"].default for m in accepted.values()}
    assert documented_server_types() == types
    assert {m.type for m in SERVER_MESSAGES} == types


def test_the_new_error_codes_exist() -> None:
    assert p.ErrorCode("STALE_REF") is p.ErrorCode.STALE_REF
    assert p.ErrorCode("SCRIPT_ERROR") is p.ErrorCode.SCRIPT_ERROR


def test_page_call_arguments_keep_their_names_and_defaults() -> None:
    act = json.loads(p.encode(p.Act(id="r1", tabId=3, action="click", target=p.Target(role="link", name="Home"))))
    assert act == {
        "type": "act",
        "id": "r1",
        "tabId": 3,
        "action": "click",
        "target": {"role": "link", "name": "Home"},
        "trusted": False,
        "waitUntil": "load",
    }
    assert json.loads(p.encode(p.Navigate(id="r2", tabId=3, go="reload"))) == {
        "type": "navigate",
        "id": "r2",
        "tabId": 3,
        "go": "reload",
        "waitUntil": "load",
        "timeoutMs": 15000,
    }
    console = json.loads(p.encode(p.Console(id="r3", tabId=3)))
    assert console == {"type": "console", "id": "r3", "tabId": 3, "afterSeq": 0}
    assert json.loads(p.encode(p.Snapshot(id="r4", tabId=3)))["mode"] == "interactive"
    assert json.loads(p.encode(p.WaitFor(id="r5", tabId=3, text="x")))["timeoutMs"] == 5000


BAD_SERVER_FRAMES: list[tuple[dict[str, Any], str]] = [
    ({"type": "snapshot", "tabId": 1, "mode": "everything"}, "mode"),
    ({"type": "act", "tabId": 1, "action": "teleport"}, "action"),
    ({"type": "act", "tabId": 1, "action": "click"}, "needs a target"),
    ({"type": "act", "tabId": 1, "action": "fill", "target": {"ref": "e1"}}, "needs text"),
    ({"type": "act", "tabId": 1, "action": "select", "target": {"ref": "e1"}}, "value or values"),
    ({"type": "act", "tabId": 1, "action": "press"}, "needs key"),
    ({"type": "act", "tabId": 1, "action": "scroll"}, "target or a direction"),
    ({"type": "act", "tabId": 1, "action": "scroll", "direction": "down", "amount": 0}, "amount"),
    ({"type": "act", "tabId": 1, "action": "click", "target": {"ref": "e1", "css": "a"}}, "exactly one of"),
    ({"type": "act", "tabId": 1, "action": "click", "target": {}}, "exactly one of"),
    ({"type": "act", "tabId": 1, "action": "click", "target": {"css": "a", "name": "x"}}, "name goes with role"),
    ({"type": "act", "tabId": 1, "action": "click", "target": {"ref": ""}}, "target.ref"),
    ({"type": "act", "tabId": 1, "action": "click", "target": {"ref": "e1"}, "dialog": "maybe"}, "dialog"),
    ({"type": "act", "tabId": 1, "action": "click", "target": {"ref": "e1"}, "waitUntil": "never"}, "waitUntil"),
    ({"type": "navigate", "tabId": 1}, "exactly one of url, go"),
    ({"type": "navigate", "tabId": 1, "url": "https://a.test/", "go": "back"}, "exactly one of url, go"),
    ({"type": "navigate", "tabId": 1, "go": "sideways"}, "go"),
    ({"type": "navigate", "tabId": 1, "go": "back", "timeoutMs": -1}, "timeoutMs"),
    ({"type": "waitFor", "tabId": 1}, "exactly one of"),
    ({"type": "waitFor", "tabId": 1, "text": "a", "timeMs": 5}, "exactly one of"),
    ({"type": "waitFor", "tabId": 1, "text": "a", "state": "visible"}, "state goes with target"),
    ({"type": "waitFor", "tabId": 1, "target": {"ref": "e1"}, "state": "shiny"}, "state"),
    ({"type": "waitFor", "tabId": 1, "timeMs": 60_000}, "timeMs"),
    ({"type": "screenshot", "tabId": 1, "kind": "element"}, "target"),
    ({"type": "screenshot", "tabId": 1, "kind": "full", "target": {"ref": "e1"}}, "target"),
    ({"type": "screenshot", "tabId": 1, "format": "png", "quality": 50}, "jpeg"),
    ({"type": "screenshot", "tabId": 1, "format": "gif"}, "format"),
    ({"type": "console", "tabId": 1, "afterSeq": -1}, "afterSeq"),
    ({"type": "console", "tabId": 1, "levels": ["verbose"]}, "levels"),
    ({"type": "evaluate", "tabId": 1, "expression": ""}, "expression"),
    ({"type": "evaluate", "tabId": 1}, "expression"),
    ({"type": "evaluate", "tabId": "seven", "expression": "1"}, "tabId"),
]


PAGE_CALLS: dict[str, type[p.Frame]] = {
    m.model_fields["type"].default: m
    for m in (p.Snapshot, p.Act, p.Navigate, p.WaitFor, p.Screenshot, p.Console, p.Evaluate)
}


@pytest.mark.parametrize(("frame", "says"), BAD_SERVER_FRAMES, ids=lambda v: v if isinstance(v, str) else v["type"])
def test_invalid_page_call_arguments_are_refused(frame: dict[str, Any], says: str) -> None:
    with pytest.raises(ValidationError) as info:
        PAGE_CALLS[frame["type"]].model_validate(frame)
    assert says in str(info.value)


@pytest.mark.parametrize("kind", sorted(PAGE_CALLS))
def test_page_calls_are_not_wire_frames(kind: str) -> None:
    with pytest.raises(ValidationError):
        p.parse_server_message(json.dumps({"type": kind, "id": "r1", "tabId": 1}))


def test_snapshot_rows_are_checked_where_they_are_used() -> None:
    from tabmcp.page.snapshot import Node

    with pytest.raises(ValueError, match="role"):
        Node.from_wire({"ref": "e1"})  # the agent's rows are passed on as they came (speed)
