"""The extension wire protocol: one pydantic discriminated union each way.

This module is the single source of truth for what crosses the WebSocket; ``docs/protocol.md``
documents it. Field names are the wire's camelCase so a frame validates as sent.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator


class ErrorCode(StrEnum):
    ELEMENT_NOT_FOUND = "ELEMENT_NOT_FOUND"
    ELEMENT_AMBIGUOUS = "ELEMENT_AMBIGUOUS"
    ELEMENT_NOT_INTERACTABLE = "ELEMENT_NOT_INTERACTABLE"
    STALE_REF = "STALE_REF"
    TIMEOUT = "TIMEOUT"
    NO_TAB = "NO_TAB"
    NAVIGATION_FAILED = "NAVIGATION_FAILED"
    NOT_SCRIPTABLE = "NOT_SCRIPTABLE"
    INVALID_URL = "INVALID_URL"
    SCRIPT_ERROR = "SCRIPT_ERROR"
    TOOL_NOT_FOUND = "TOOL_NOT_FOUND"
    BAD_MESSAGE = "BAD_MESSAGE"
    UNKNOWN_TYPE = "UNKNOWN_TYPE"
    DISCONNECTED = "DISCONNECTED"
    NAVIGATION_BLOCKED = "NAVIGATION_BLOCKED"
    PAGE_ERROR = "PAGE_ERROR"  # a plan's wait_for saw the page's own error message (``failWhen``)
    FRAME_TOO_LARGE = "FRAME_TOO_LARGE"  # a request or its answer would exceed the link's frame limit
    INTERNAL = "INTERNAL"


MAX_TIMEOUT_MS = 120_000


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
    openerTabId: int | None = None


# ----------------------------------------------------------------- extension -> server


class Hello(Frame):
    type: Literal["hello"]
    extension: ExtensionInfo = ExtensionInfo()
    browser: BrowserInfo = BrowserInfo()
    # the pairing token (tabmcp token); the bridge refuses a hello without the right one
    token: str | None = Field(None, max_length=512, repr=False)
    # random per browser session (chrome.storage.session): a new socket with the linked instance's
    # id is that browser's restarted service worker and replaces the old link; another id is refused
    instance: str | None = Field(None, max_length=128)


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




class Error(Frame):
    type: Literal["error"]
    id: str | None = None
    code: str = ErrorCode.INTERNAL
    message: str = ""
    frameGone: bool = False  # NOT_SCRIPTABLE because the frame asked went away (a ref into it is stale)


class Disconnected(Frame):
    type: Literal["disconnected"]




class NavigationBlocked(Frame):
    """The browser refused a tab's main-frame navigation under the navigation policy (the rules sent
    with ``connect``): a link, a form, a script, a redirect or a popup went somewhere it may not.
    ``reason`` is the rule's reason (``PolicyRule.reason`` or ``PolicyRules.allowReason``)."""

    type: Literal["navigationBlocked"]
    tabId: int
    url: str = Field("", max_length=8192)
    reason: str = Field("", max_length=2000)


class UserSettings(Frame):
    """What the user chose in the extension's options that the server acts on; sent right after ``hello``
    and again whenever it changes. ``followTabSwitches``: focus follows the tab the user activates (as
    ``TABMCP_FOLLOW_USER_TAB_SWITCHES``; either one switches it on)."""

    type: Literal["settings"]
    followTabSwitches: bool = False


# Page events: what the browser saw of its tabs' pages, for the server's page session
# (drivers/session/ over drivers/host.py). They come batched in ``pageEvents`` frames, always before
# any frame the extension sends after them, and are handed to the page host as they arrive.
NavigationEventKind = Literal[
    "start", "loading", "commit", "same_document", "dom_content_loaded", "load", "error", "aborted", "removed"
]


class FrameNavigationEvent(Frame):
    """A webNavigation event of one frame (``removed``: the frame, or with frame 0 the tab, went away)."""

    type: Literal["frameNavigation"]
    tabId: int
    frameId: int = Field(ge=0)
    kind: NavigationEventKind
    url: str = ""
    error: str = ""


class RequestStartedEvent(Frame):
    """A request of a tab's page began (websockets are not reported: they never end)."""

    type: Literal["requestStarted"]
    tabId: int
    requestId: str
    kind: str = ""  # webRequest's resource type: main_frame, sub_frame, script, xmlhttprequest, …


class RequestEndedEvent(Frame):
    type: Literal["requestEnded"]
    tabId: int
    requestId: str


class AgentMessageEvent(Frame):
    """What a frame's page agent posted on its port: console entries, a dialog, toolsChanged."""

    type: Literal["agentMessage"]
    tabId: int
    frameId: int = Field(0, ge=0)
    message: dict[str, Any]


class PopupOpenedEvent(Frame):
    type: Literal["popupOpened"]
    tabId: int
    openerId: int


PageEventFrame = Annotated[
    FrameNavigationEvent | RequestStartedEvent | RequestEndedEvent | AgentMessageEvent | PopupOpenedEvent,
    Field(discriminator="type"),
]


class PageEvents(Frame):
    type: Literal["pageEvents"]
    events: list[PageEventFrame] = []


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
    | Error
    | Disconnected
    | NavigationBlocked
    | UserSettings
    | PageEvents,
    Field(discriminator="type"),
]
Reply = Connected | Result | Error

# ----------------------------------------------------------------- server -> extension


class Target(Frame):
    """How a request names its element: a ref (capture or snapshot, ``f2e3`` in a frame), a CSS
    selector, or an ARIA role with an optional accessible name. Exactly one way, so the extension
    never has to guess which one wins. ``row`` narrows a css target to the match whose table row,
    list item or article shows that text (a cell or link saying exactly it first)."""

    ref: str | None = Field(None, min_length=1)
    css: str | None = Field(None, min_length=1)
    role: str | None = Field(None, min_length=1)
    name: str | None = None
    row: str | None = Field(None, min_length=1)

    @model_validator(mode="after")
    def _one_way(self) -> Target:
        ways = [way for way in ("ref", "css", "role") if getattr(self, way) is not None]
        if len(ways) != 1:
            raise ValueError(f"a target is exactly one of ref, css, role (got {', '.join(ways) or 'none'})")
        if self.name is not None and self.role is None:
            raise ValueError("name goes with role")
        if self.row is not None and self.css is None:
            raise ValueError("row goes with css")
        return self


StepAction = Literal[
    "fill", "select", "check", "uncheck", "click", "submit", "press", "wait_for", "extract", "navigate", "webmcp",
    "browse", "results",
]
STEP_TARGETED = frozenset({"fill", "select", "check", "uncheck", "click", "submit", "extract", "results"})
MAX_EXTRACT_ITEMS = 100


class Step(Frame):
    """A concrete step of a page tool's plan (arguments already substituted); docs/protocol.md.

    - fill/select: ``target`` + ``value`` (text / option value or label); select also ``values`` (several options,
      of a multiple select or combobox); check/uncheck/click/submit: ``target``;
      press: ``key`` (+ ``target``, else the focused element).
    - wait_for: ``condition`` = ``{"text"}`` | ``{"textGone"}`` | ``{"state"}`` (of ``target``, default visible).
      ``failWhen`` (a ``{css}`` target in the top document): the site's error message; once a match
      is visible the wait ends with ``PAGE_ERROR`` and that text, instead of a ``TIMEOUT`` later.
    - extract: ``target.css`` names every element to read (all matches, not one); ``fields`` maps an output
      key to a CSS selector inside each match (the item is then an object); ``label`` is the key of the
      result in the plan result's ``extracted``; at most ``limit`` items.
    - navigate: ``value`` is the URL (absolute, or relative to the page).
    - webmcp: ``name`` of a tool the page declared, ``args`` its input; the page's result comes back in
      the plan result's ``webmcp``.
    - browse: ``args`` (``page``, ``sort``, ``order``, ``per_page``, each optional): the page's main list
      is moved there through the page's own pagination, sortable headers and page-size control.
    - results: ``target`` is a live search's box (the query typed into it by the step before): the results
      the page then shows near it are the answer's ``results``; ``value``, when not empty, is a text one
      of them shows: that result is clicked; ``key``: when nothing shows near the box, the box is sent with
      that key instead (a search that was not live after all).
    """

    action: StepAction
    target: Target | None = None
    value: str | bool | None = None
    values: list[str] | None = None
    key: str | None = Field(None, min_length=1)
    condition: dict[str, str] | None = None
    timeoutMs: int | None = Field(None, ge=0, le=MAX_TIMEOUT_MS)
    label: str | None = Field(None, min_length=1, max_length=40)
    fields: dict[str, str] | None = None
    limit: int | None = Field(None, ge=1, le=MAX_EXTRACT_ITEMS)
    name: str | None = Field(None, min_length=1, max_length=128)
    args: dict[str, Any] | None = None
    failWhen: Target | None = None

    @model_validator(mode="after")
    def _fits_action(self) -> Step:
        action = self.action
        if action in STEP_TARGETED and self.target is None:
            raise ValueError(f"{action} needs a target")
        if action == "select" and self.values is not None:
            pass  # several options; none at all leaves none chosen
        elif action in ("fill", "select") and not isinstance(self.value, str):
            raise ValueError(f"{action} needs a string value")
        if action == "press" and self.key is None:
            raise ValueError("press needs key")
        if action == "extract" and (self.target is None or self.target.css is None):
            raise ValueError("extract needs a css target")
        if action == "navigate" and not (isinstance(self.value, str) and self.value):
            raise ValueError("navigate needs a URL value")
        if action == "webmcp" and self.name is None:
            raise ValueError("webmcp needs the page tool's name")
        if action == "browse" and self.args is None:
            raise ValueError("browse needs args")
        if action == "wait_for":
            keys = set(self.condition or {})
            if len(keys) != 1 or not keys <= {"text", "textGone", "state"}:
                raise ValueError("wait_for needs a condition with exactly one of text, textGone, state")
            if "state" in keys and self.target is None:
                raise ValueError("a wait_for state needs a target")
        if self.failWhen is not None and (action != "wait_for" or self.failWhen.css is None):
            raise ValueError("failWhen is a {css} target of a wait_for step")
        return self


class Pong(Frame):
    type: Literal["pong"] = "pong"
    # the largest frame the server accepts: the extension answers a request whose answer is larger
    # with FRAME_TOO_LARGE instead of sending it (a larger frame would end the whole link)
    maxFrameBytes: int | None = None


class PolicyRule(Frame):
    """One navigation-policy pattern (``policy.py``): ``regex`` matches a URL as the browser writes it
    (anchored; the syntax JavaScript and RE2 read alike). ``web``: it can match http(s) pages, so it
    becomes a declarativeNetRequest rule; the others (chrome:, file:…) only opt pages in."""

    pattern: str = Field(max_length=1000)
    regex: str = Field(min_length=1, max_length=4000)
    web: bool = True
    reason: str = Field("", max_length=1000)  # block rules: why, for the model (without the URL)


class PolicyRules(Frame):
    """The navigation policy the extension enforces while linked; empty lists: no rules."""

    block: list[PolicyRule] = []
    allow: list[PolicyRule] = []
    allowReason: str = Field("", max_length=1000)  # why a URL no allow rule matches is refused


class Connect(Frame):
    """``policy``: installed (replacing any earlier rules) before ``connected`` is answered; absent
    or empty: no navigation rules."""

    type: Literal["connect"] = "connect"
    id: str = ""
    policy: PolicyRules | None = None




class FocusTab(Frame):
    type: Literal["focusTab"] = "focusTab"
    id: str = ""
    tabId: int


class ActiveTab(Frame):
    """Which tab the user is looking at: the active tab of the last focused window (``ai_connect_current_tab``)."""

    type: Literal["activeTab"] = "activeTab"
    id: str = ""


class CloseTab(Frame):
    type: Literal["closeTab"] = "closeTab"
    id: str = ""
    tabId: int


# ----------------------------------------------------------------- page calls
# The arguments of the Driver's page calls (docs/page-agent.md §7), checked by the page session
# (drivers/session/) before it runs them: a call the models refuse is a BAD_MESSAGE naming the field.

# locate: full, plus per row a ``hint`` (placeholder, title…) and ``context`` (its group's text): docs/nl-tools.md
SnapshotMode = Literal["interactive", "full", "locate"]
WaitUntil = Literal["load", "domcontentloaded", "networkidle"]
ActionName = Literal[
    "click", "dblclick", "hover", "fill", "type", "clear", "select", "check", "uncheck", "press", "scroll", "submit"
]
ElementState = Literal[
    "visible", "hidden", "attached", "detached", "enabled", "disabled", "checked", "unchecked", "focused"
]
ConsoleLevel = Literal["debug", "log", "info", "warning", "error", "dialog"]
MAX_WAIT_TIME_MS = 30_000
# Actions that act on an element; the others have a default (press: the focused element, scroll: the page).
TARGETED_ACTIONS = frozenset({"click", "dblclick", "hover", "fill", "type", "clear", "select", "check", "uncheck",
                              "submit"})


class Snapshot(Frame):
    """``root``: only that element's subtree (the element its first row)."""

    type: Literal["snapshot"] = "snapshot"
    id: str = ""
    tabId: int
    mode: SnapshotMode = "interactive"
    root: Target | None = None


MAX_FIND_TEXT = 200
MAX_FIND_MATCHES = 100


class FindText(Frame):
    """A search of the rendered text (of ``root``'s subtree): the first ``limit`` matches, all counted."""

    type: Literal["findText"] = "findText"
    id: str = ""
    tabId: int
    text: str = Field(min_length=1, max_length=MAX_FIND_TEXT)
    root: Target | None = None
    limit: int = Field(MAX_FIND_MATCHES, ge=1, le=MAX_FIND_MATCHES)


class Act(Frame):
    """One action (page-agent.md §3); the fields an action needs are checked here, as in the extension."""

    type: Literal["act"] = "act"
    id: str = ""
    tabId: int
    action: ActionName
    target: Target | None = None
    text: str | None = None
    value: str | None = None
    values: list[str] | None = None
    key: str | None = Field(None, min_length=1)
    direction: Literal["up", "down", "left", "right"] | None = None
    amount: int | None = Field(None, ge=1)
    # "auto": trusted where the target takes typed text, the agent's synthetic input elsewhere
    trusted: bool | Literal["auto"] = False
    dialog: Literal["accept", "dismiss"] | None = None
    promptText: str | None = None
    timeoutMs: int | None = Field(None, ge=0, le=MAX_TIMEOUT_MS)
    waitUntil: WaitUntil = "load"

    @model_validator(mode="after")
    def _fits_action(self) -> Act:
        action = self.action
        if action in TARGETED_ACTIONS and self.target is None:
            raise ValueError(f"{action} needs a target")
        if action in ("fill", "type") and self.text is None:
            raise ValueError(f"{action} needs text")
        if action == "select" and self.value is None and not self.values:
            raise ValueError("select needs value or values")
        if action == "press" and self.key is None:
            raise ValueError("press needs key")
        if action == "scroll" and self.target is None and self.direction is None:
            raise ValueError("scroll needs a target or a direction")
        return self


class Navigate(Frame):
    type: Literal["navigate"] = "navigate"
    id: str = ""
    tabId: int
    url: str | None = Field(None, min_length=1)
    go: Literal["back", "forward", "reload"] | None = None
    waitUntil: WaitUntil = "load"
    timeoutMs: int = Field(15_000, ge=0, le=MAX_TIMEOUT_MS)

    @model_validator(mode="after")
    def _url_or_go(self) -> Navigate:
        if (self.url is None) == (self.go is None):
            raise ValueError("navigate needs exactly one of url, go")
        return self


class WaitFor(Frame):
    """Exactly one condition: text, textGone, target (+ state, default visible), or timeMs."""

    type: Literal["waitFor"] = "waitFor"
    id: str = ""
    tabId: int
    text: str | None = Field(None, min_length=1)
    textGone: str | None = Field(None, min_length=1)
    target: Target | None = None
    state: ElementState | None = None
    timeMs: int | None = Field(None, ge=0, le=MAX_WAIT_TIME_MS)
    timeoutMs: int = Field(5_000, ge=0, le=MAX_TIMEOUT_MS)

    @model_validator(mode="after")
    def _one_condition(self) -> WaitFor:
        given = [f for f in ("text", "textGone", "target", "timeMs") if getattr(self, f) is not None]
        if len(given) != 1:
            raise ValueError(f"waitFor needs exactly one of text, textGone, target, timeMs (got {given or 'none'})")
        if self.state is not None and self.target is None:
            raise ValueError("state goes with target")
        return self


class Screenshot(Frame):
    type: Literal["screenshot"] = "screenshot"
    id: str = ""
    tabId: int
    kind: Literal["viewport", "full", "element"] = "viewport"
    target: Target | None = None
    format: Literal["png", "jpeg"] = "png"
    quality: int | None = Field(None, ge=0, le=100)

    @model_validator(mode="after")
    def _target_iff_element(self) -> Screenshot:
        if (self.kind == "element") != (self.target is not None):
            raise ValueError("a target is needed for kind 'element', and only then")
        if self.quality is not None and self.format != "jpeg":
            raise ValueError("quality is for jpeg only")
        return self


class Console(Frame):
    type: Literal["console"] = "console"
    id: str = ""
    tabId: int
    afterSeq: int = Field(0, ge=0)
    levels: list[ConsoleLevel] | None = None


class Evaluate(Frame):
    type: Literal["evaluate"] = "evaluate"
    id: str = ""
    tabId: int
    expression: str = Field(min_length=1)
    timeoutMs: int = Field(10_000, ge=1, le=MAX_TIMEOUT_MS)


# ----------------------------------------------------------------- page primitives
# One browser call each, for the server's page session (drivers/extension/host.py): it does the
# orchestration (waits, frames and refs, settling) and asks the browser only for these.


class CreateTab(Frame):
    """A new tab that starts loading ``url``; answered with its ``tab`` at once (not after its load)."""

    type: Literal["createTab"] = "createTab"
    id: str = ""
    url: str
    focus: bool = True
    group: str | None = Field(None, max_length=40)


class TabUrl(Frame):
    """The tab as it is now: answered with its ``tab``."""

    type: Literal["tabUrl"] = "tabUrl"
    id: str = ""
    tabId: int


class Frames(Frame):
    """The tab's frames: answered with ``frames``, a list of ``FrameData``, the main frame first."""

    type: Literal["frames"] = "frames"
    id: str = ""
    tabId: int


class CallAgent(Frame):
    """``agent[method](arg)`` in ``frameIds`` (every frame when absent), the agent injected where it is
    missing: answered with ``answers``, an object from frame id to the agent's answer as it gave it; a
    frame that could not answer is left out."""

    type: Literal["callAgent"] = "callAgent"
    id: str = ""
    tabId: int
    frameIds: list[int] | None = None
    method: str = Field(min_length=1, max_length=64)
    arg: Any = None


class Cdp(Frame):
    """A DevTools protocol command on the tab's page (the debugger attached on use, detached when idle):
    answered with its ``result``."""

    type: Literal["cdp"] = "cdp"
    id: str = ""
    tabId: int
    method: str = Field(min_length=1, max_length=128)
    params: dict[str, Any] = {}


class CaptureViewport(Frame):
    """The visible part of the tab: answered with ``image``, the base64 image data."""

    type: Literal["captureViewport"] = "captureViewport"
    id: str = ""
    tabId: int
    format: Literal["png", "jpeg"] = "png"
    quality: int | None = Field(None, ge=0, le=100)


class Goto(Frame):
    """Start loading ``url`` in the tab (web pages only); answered once it started."""

    type: Literal["goto"] = "goto"
    id: str = ""
    tabId: int
    url: str = Field(min_length=1)


class Go(Frame):
    """One history step (exactly one entry, through the debugger) or a reload; answered once it started."""

    type: Literal["go"] = "go"
    id: str = ""
    tabId: int
    where: Literal["back", "forward", "reload"]


class FrameData(Frame):
    frameId: int = Field(ge=0)
    parentFrameId: int | None = None
    url: str = ""


class ControlledTab(Frame):
    tabId: int
    group: str = Field("", max_length=40)  # the tab group of the client it works for (OpenTab.group)


class Controlled(Frame):
    """A notice, not a request (no ``id``, no answer): the tabs the server's clients have focused now, one
    per client that has one (stdio: at most one). Sent whenever a focus changes; an empty list when none
    is left. The extension shows them in its popup and puts an ungrouped one in its client's tab group."""

    type: Literal["controlled"] = "controlled"
    tabs: list[ControlledTab] = []


class ServerError(Frame):
    type: Literal["error"] = "error"
    id: str | None = None
    code: str
    message: str


ServerMessage = Annotated[
    Pong
    | Connect
    | FocusTab
    | ActiveTab
    | CloseTab
    | CreateTab
    | TabUrl
    | Frames
    | CallAgent
    | Cdp
    | CaptureViewport
    | Goto
    | Go
    | Controlled
    | ServerError,
    Field(discriminator="type"),
]
ServerRequest = (
    Connect | FocusTab | ActiveTab | CloseTab | CreateTab | TabUrl | Frames | CallAgent | Cdp | CaptureViewport
    | Goto | Go
)

_extension_adapter: TypeAdapter[ExtensionMessage] = TypeAdapter(ExtensionMessage)
_server_adapter: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)
EXTENSION_TYPES = frozenset(
    m.model_fields["type"].annotation.__args__[0]  # type: ignore[union-attr]
    for m in (Hello, Ping, Connected, TabCreated, TabUpdated, TabClosed, TabFocused, TabCrashed,
              Result, Error, Disconnected, NavigationBlocked, UserSettings, PageEvents)
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
