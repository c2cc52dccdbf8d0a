"""The extension wire protocol: frames as the extension sends them, errors, server encoding."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

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
    "toolResult": (
        {
            "type": "toolResult",
            "id": "r3",
            "result": {
                "steps": [{"action": "fill", "ok": True}, {"action": "submit", "ok": True}],
                "page": {"url": "https://mail.test/?q=x", "title": "Results", "text": "2 results"},
            },
        },
        p.ToolResult,
    ),
    "error": (
        {"type": "error", "id": "r4", "code": "ELEMENT_NOT_FOUND", "message": "Ref e9 is stale"},
        p.Error,
    ),
    "disconnected": ({"type": "disconnected"}, p.Disconnected),
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
    dumped = message.model_dump(mode="json")
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
    assert "id" in error.message


def test_an_unknown_tab_status_is_a_bad_message() -> None:
    error = bad(json.dumps({"type": "tabUpdated", "tab": {**TAB, "status": "sleeping"}}))
    assert error.code is p.ErrorCode.BAD_MESSAGE
    assert "tab.status" in error.message


# ----------------------------------------------------------------- server -> extension

SERVER_MESSAGES: list[p.Frame] = [
    p.Pong(),
    p.Connect(id="r1"),
    p.OpenTab(id="r2", url="https://flights.test/", focus=False),
    p.FocusTab(id="r3", tabId=7),
    p.CloseTab(id="r4", tabId=7),
    p.Capture(id="r5", tabId=7, maxChars=50_000),
    p.CallTool(
        id="r6",
        tabId=7,
        toolName="search_flights",
        steps=[
            p.Step(action="fill", target=p.Target(ref="e4"), value="SFO"),
            p.Step(action="select", target=p.Target(css="#cabin"), value="business"),
            p.Step(action="check", target=p.Target(ref="e9"), value=False),
            p.Step(action="press", key="Enter"),
            p.Step(action="submit", target=p.Target(ref="e1")),
        ],
    ),
    p.ServerError(id="x1", code=p.ErrorCode.UNKNOWN_TYPE, message="unknown frame type 'teleport'"),
    p.ServerError(code=p.ErrorCode.BAD_MESSAGE, message="frame is not valid JSON"),
]


@pytest.mark.parametrize("message", SERVER_MESSAGES, ids=lambda m: m.type)
def test_encode_round_trips_through_parse_server_message(message: p.Frame) -> None:
    assert p.parse_server_message(p.encode(message)) == message


def test_encode_uses_the_wire_field_names() -> None:
    frame = json.loads(p.encode(p.CallTool(id="r6", tabId=7, toolName="t", steps=[])))
    assert frame == {"type": "callTool", "id": "r6", "tabId": 7, "toolName": "t", "steps": []}
    assert json.loads(p.encode(p.Capture(id="r5", tabId=7)))["maxChars"] == 1_000_000


def test_encode_omits_none_fields() -> None:
    error = json.loads(p.encode(p.ServerError(code=p.ErrorCode.BAD_MESSAGE, message="bad")))
    assert error == {"type": "error", "code": "BAD_MESSAGE", "message": "bad"}

    call = json.loads(p.encode(SERVER_MESSAGES[6]))
    assert call["steps"][0] == {"action": "fill", "target": {"ref": "e4"}, "value": "SFO"}
    assert call["steps"][3] == {"action": "press", "key": "Enter"}
    assert call["steps"][4] == {"action": "submit", "target": {"ref": "e1"}}


def test_encode_keeps_false_values() -> None:
    call = json.loads(p.encode(SERVER_MESSAGES[6]))
    assert call["steps"][2]["value"] is False
    assert json.loads(p.encode(SERVER_MESSAGES[2]))["focus"] is False
