"""The extension wire protocol: one pydantic discriminated union each way.

This module is the single source of truth for what crosses the WebSocket; ``docs/protocol.md``
documents it. Field names are the wire's camelCase so a frame validates as sent.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError


class ErrorCode(StrEnum):
    ELEMENT_NOT_FOUND = "ELEMENT_NOT_FOUND"
    ELEMENT_AMBIGUOUS = "ELEMENT_AMBIGUOUS"
    ELEMENT_NOT_INTERACTABLE = "ELEMENT_NOT_INTERACTABLE"
    TIMEOUT = "TIMEOUT"
    NO_TAB = "NO_TAB"
    NAVIGATION_FAILED = "NAVIGATION_FAILED"
    NOT_SCRIPTABLE = "NOT_SCRIPTABLE"
    INVALID_URL = "INVALID_URL"
    BAD_MESSAGE = "BAD_MESSAGE"
    UNKNOWN_TYPE = "UNKNOWN_TYPE"
    DISCONNECTED = "DISCONNECTED"
    INTERNAL = "INTERNAL"


class Frame(BaseModel):
    """Base for every frame: unknown extra fields are tolerated (forward compatibility)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class BrowserInfo(Frame):
    name: str = "Chromium"
    version: str = ""


class ExtensionInfo(Frame):
    version: str = ""


class TabInfo(Frame):
    id: int
    windowId: int = -1
    title: str = ""
    url: str = ""
    status: Literal["loading", "complete", "unloaded"] = "loading"
    active: bool = False


# ----------------------------------------------------------------- extension -> server


class Hello(Frame):
    type: Literal["hello"]
    extension: ExtensionInfo = ExtensionInfo()
    browser: BrowserInfo = BrowserInfo()


class Ping(Frame):
    type: Literal["ping"]


class Connected(Frame):
    type: Literal["connected"]
    id: str
    browser: BrowserInfo = BrowserInfo()
    tabs: list[TabInfo] = []


class TabCreated(Frame):
    type: Literal["tabCreated"]
    tab: TabInfo


class TabUpdated(Frame):
    type: Literal["tabUpdated"]
    tab: TabInfo


class TabClosed(Frame):
    type: Literal["tabClosed"]
    tabId: int


class TabFocused(Frame):
    type: Literal["tabFocused"]
    tabId: int


class TabCrashed(Frame):
    type: Literal["tabCrashed"]
    tabId: int


class Result(Frame):
    type: Literal["result"]
    id: str
    data: dict[str, Any] = {}


class ToolResult(Frame):
    type: Literal["toolResult"]
    id: str
    result: dict[str, Any] = {}


class Error(Frame):
    type: Literal["error"]
    id: str | None = None
    code: str = ErrorCode.INTERNAL
    message: str = ""


class Disconnected(Frame):
    type: Literal["disconnected"]


ExtensionMessage = Annotated[
    Hello
    | Ping
    | Connected
    | TabCreated
    | TabUpdated
    | TabClosed
    | TabFocused
    | TabCrashed
    | Result
    | ToolResult
    | Error
    | Disconnected,
    Field(discriminator="type"),
]
TabEvent = TabCreated | TabUpdated | TabClosed | TabFocused | TabCrashed | Disconnected
Reply = Connected | Result | ToolResult | Error

# ----------------------------------------------------------------- server -> extension


class Target(Frame):
    """How a step names its element: a capture ref, or a CSS selector."""

    ref: str | None = None
    css: str | None = None


class Step(Frame):
    """A concrete action for the page agent (arguments already substituted)."""

    action: Literal["fill", "select", "check", "click", "submit", "press"]
    target: Target | None = None
    value: str | bool | None = None
    key: str | None = None


class Pong(Frame):
    type: Literal["pong"] = "pong"


class Connect(Frame):
    type: Literal["connect"] = "connect"
    id: str = ""


class OpenTab(Frame):
    type: Literal["openTab"] = "openTab"
    id: str = ""
    url: str
    focus: bool = True


class FocusTab(Frame):
    type: Literal["focusTab"] = "focusTab"
    id: str = ""
    tabId: int


class CloseTab(Frame):
    type: Literal["closeTab"] = "closeTab"
    id: str = ""
    tabId: int


class Capture(Frame):
    type: Literal["capture"] = "capture"
    id: str = ""
    tabId: int
    maxChars: int = 1_000_000


class CallTool(Frame):
    type: Literal["callTool"] = "callTool"
    id: str = ""
    tabId: int
    toolName: str
    steps: list[Step]


class ServerError(Frame):
    type: Literal["error"] = "error"
    id: str | None = None
    code: str
    message: str


ServerMessage = Annotated[
    Pong | Connect | OpenTab | FocusTab | CloseTab | Capture | CallTool | ServerError,
    Field(discriminator="type"),
]
ServerRequest = Connect | OpenTab | FocusTab | CloseTab | Capture | CallTool

_extension_adapter: TypeAdapter[ExtensionMessage] = TypeAdapter(ExtensionMessage)
_server_adapter: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)
EXTENSION_TYPES = frozenset(
    m.model_fields["type"].annotation.__args__[0]  # type: ignore[union-attr]
    for m in (Hello, Ping, Connected, TabCreated, TabUpdated, TabClosed, TabFocused, TabCrashed,
              Result, ToolResult, Error, Disconnected)
)


class ProtocolError(Exception):
    """A frame that cannot be used; ``code`` and ``frame_id`` shape the error frame sent back."""

    def __init__(self, code: ErrorCode, message: str, frame_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.frame_id = frame_id


def parse_extension_message(raw: str | bytes) -> ExtensionMessage:
    """Validate one frame from the extension, or raise ProtocolError saying what is wrong."""
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, f"frame is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "frame must be a JSON object")
    frame_id = data.get("id") if isinstance(data.get("id"), str) else None
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in EXTENSION_TYPES:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown frame type {kind!r}", frame_id)
    try:
        return _extension_adapter.validate_python(data)
    except ValidationError as exc:
        details = "; ".join(f"{'.'.join(map(str, e['loc'][1:]))}: {e['msg']}" for e in exc.errors())
        raise ProtocolError(ErrorCode.BAD_MESSAGE, f"invalid {kind!r} frame: {details}", frame_id) from None


def parse_server_message(raw: str | bytes) -> ServerMessage:
    """The extension's side of validation; used by tests and the scenario recorder."""
    return _server_adapter.validate_json(raw)


def encode(message: Frame) -> str:
    return message.model_dump_json(exclude_none=True)
