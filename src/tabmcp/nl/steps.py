"""``ai_action``: an action in plain words as steps (pure).

"type JavaScript into the search box, click search" is two steps, each a verb a person uses on a
page and what it acts on, described in words. :func:`parse` reads a whole prompt into
:class:`ActionStep`s, or says which clause it could not read (then the model plans the steps, in
the same vocabulary: :func:`from_model`). Each step locates its element just before it runs, on
the page as it is then.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from tabmcp.nl.words import QUOTED, QUOTES

StepKind = Literal[
    "tap", "input", "hover", "press", "scroll", "select", "check", "uncheck", "navigate", "wait", "assert"
]
ScrollType = Literal["once", "untilBottom", "untilTop", "untilLeft", "untilRight"]
KINDS: tuple[str, ...] = ("tap", "input", "hover", "press", "scroll", "select", "check", "uncheck", "navigate",
                          "wait", "assert")  # fmt: skip
SCROLL_TYPES = ("once", "untilBottom", "untilTop", "untilLeft", "untilRight")
MAX_STEPS = 20
MAX_TEXT = 2000
MAX_WAIT_MS = 30_000


class StepError(ValueError):
    """A step that cannot be run as given; the message says which and why."""


@dataclass(frozen=True)
class ActionStep:
    kind: StepKind
    locate: str | None = None  # the element, in words (or a ref)
    text: str | None = None  # input: the text ("" clears); select: the option
    key: str | None = None  # press
    direction: Literal["up", "down", "left", "right"] | None = None  # scroll
    scroll_type: ScrollType = "once"
    distance: int | None = None
    url: str | None = None  # navigate
    assertion: str | None = None  # wait (for a condition), assert
    ms: int | None = None  # wait (a time)

    def describe(self) -> str:
        where = f" {self.locate!r}" if self.locate else ""
        match self.kind:
            case "input":
                return f"input {self.text!r} into{where}" if self.text else f"clear{where}"
            case "press":
                return f"press {self.key}" + (f" in{where}" if where else "")
            case "scroll":
                how = self.scroll_type if self.scroll_type != "once" else f"{self.direction}"
                return (
                    f"scroll {how}"
                    + (f" {self.distance}px" if self.distance else "")
                    + (f" in{where}" if where else "")
                )
            case "select":
                return f"select {self.text!r} in{where}"
            case "navigate":
                return f"go to {self.url}"
            case "wait":
                return f"wait {self.ms} ms" if self.ms is not None else f"wait for {self.assertion!r}"
            case "assert":
                return f"check that {self.assertion!r}"
        return f"{self.kind}{where}"


# ----------------------------------------------------------------- plain words

_Q = QUOTES
_VERBS = (
    r"type|enter|input|write|put|fill|set|clear|empty|press|hit|push|click|tap|select|choose|pick|check|tick|uncheck|"
    r"untick|hover|mouse|scroll|go|navigate|open|visit|load|wait|verify|assert|ensure|confirm|make|double"
)
_AND_VERB = re.compile(rf"\s+(?:and then|and|then|after that|afterwards|finally)\s+(?=(?:{_VERBS})\b)", re.IGNORECASE)
_SEPARATORS = re.compile(r"\s*(?:[,;\n]|\.\s+)\s*")
_LEAD = re.compile(r"^(?:and|then|first|next|finally|after that|afterwards|please)\s+", re.IGNORECASE)
KEY_NAMES = {
    "enter": "Enter", "return": "Enter", "tab": "Tab", "escape": "Escape", "esc": "Escape", "space": "Space",
    "spacebar": "Space", "backspace": "Backspace", "delete": "Delete", "del": "Delete", "home": "Home", "end": "End",
    "pageup": "PageUp", "page up": "PageUp", "pagedown": "PageDown", "page down": "PageDown", "up": "ArrowUp",
    "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight", "arrowup": "ArrowUp", "arrowdown": "ArrowDown",
    "arrowleft": "ArrowLeft", "arrowright": "ArrowRight", "arrow up": "ArrowUp", "arrow down": "ArrowDown",
    "arrow left": "ArrowLeft", "arrow right": "ArrowRight", "up arrow": "ArrowUp", "down arrow": "ArrowDown",
    "f5": "F5", "insert": "Insert",
}  # fmt: skip
_MODIFIERS = {"ctrl": "Control", "control": "Control", "shift": "Shift", "alt": "Alt", "option": "Alt",
              "cmd": "Meta", "command": "Meta", "meta": "Meta"}  # fmt: skip
_TEXT = rf"(?P<text>[{_Q}][^{_Q}]*[{_Q}]|.+?)"
_WHERE = r"(?:\s+(?:in|on|into|inside|within|of)\s+(?P<locate>.+))?"
_URL = r"(?P<url>(?:https?://|www\.)\S+|[a-z0-9-]+(?:\.[a-z0-9-]+)+(?:/\S*)?)"
_KEY = r"(?P<key>[a-z0-9]+(?:\s*\+\s*[a-z0-9]+)*(?:\s+(?:arrow|up|down|left|right))?)"
_VERIFY = r"(?:verify|assert|ensure|confirm|make sure|check)"
_END = r"(?P<end>bottom|top|end|start|very bottom|very top|left|right)"
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        ("navigate", rf"^(?:go to|navigate to|open|visit|load|browse to)\s+(?:the\s+)?(?:url\s+|page\s+)?{_URL}$"),
        ("input", rf"^(?:type|enter|input|write|put)\s+{_TEXT}\s+(?:into|in|on)\s+(?P<locate>.+)$"),
        ("input", r"^(?:fill(?:\s+in)?|set)\s+(?P<locate>.+?)\s+(?:with|to)\s+(?P<text>.+)$"),
        ("clear", r"^(?:clear|empty)\s+(?P<locate>.+)$"),
        ("select", rf"^(?:select|choose|pick)\s+(?:the\s+option\s+)?{_TEXT}\s+(?:from|in|on)\s+(?P<locate>.+)$"),
        ("uncheck", r"^(?:uncheck|untick|deselect)\s+(?P<locate>.+)$"),
        ("check", r"^(?:check|tick)\s+(?!that\b|if\b|whether\b)(?P<locate>.+)$"),
        ("hover", r"^(?:hover|mouse)\s+(?:over\s+|on\s+|onto\s+)?(?P<locate>.+)$"),
        (
            "scroll",
            rf"^scroll\s+(?P<direction>up|down|left|right)(?:\s+(?:by\s+)?(?P<distance>\d+)\s*(?:px|pixels)?)?{_WHERE}$",
        ),
        ("scroll_end", rf"^scroll\s+(?:(?:up|down|all the way)\s+)?(?:to\s+)?(?:the\s+)?{_END}{_WHERE}$"),
        ("wait_ms", r"^wait\s+(?:for\s+)?(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>ms|milliseconds?|s|secs?|seconds?)$"),
        ("wait", r"^wait\s+(?:for|until)\s+(?P<assertion>.+)$"),
        ("assert", rf"^{_VERIFY}\s+(?:that\s+|if\s+|whether\s+)(?P<assertion>.+)$"),
        ("assert", r"^(?:verify|assert|ensure|make sure)\s+(?P<assertion>.+)$"),
        ("press", rf"^(?:press|hit|push)\s+(?:the\s+)?{_KEY}(?:\s+key)?{_WHERE}$"),
        ("tap", r"^(?:click|tap|press|hit|push|select|choose|open|activate)\s+(?:on\s+)?(?P<locate>.+)$"),
    )
)


@dataclass(frozen=True)
class Parsed:
    steps: tuple[ActionStep, ...]
    unread: str | None = None  # the first clause that is not a step in plain words

    @property
    def ok(self) -> bool:
        return self.unread is None and bool(self.steps)


def parse(prompt: str) -> Parsed:
    """The steps of a prompt, or the clause that could not be read (then ``steps`` is empty)."""
    steps: list[ActionStep] = []
    for clause in clauses(prompt):
        step = parse_clause(clause)
        if step is None:
            return Parsed((), clause)
        steps.append(step)
    if len(steps) > MAX_STEPS:
        return Parsed((), f"{len(steps)} steps (at most {MAX_STEPS})")
    return Parsed(tuple(steps))


def clauses(prompt: str) -> list[str]:
    """Split at commas, semicolons, new lines, sentence ends and "and"/"then" before a verb, never
    inside quotes."""
    kept: list[str] = []

    def protect(match: re.Match[str]) -> str:
        kept.append(match.group(0))
        return f"\x00{len(kept) - 1}\x00"

    text = QUOTED.sub(protect, prompt.strip())
    text = _AND_VERB.sub(", ", text)
    parts = [p.strip().rstrip(".!") for p in _SEPARATORS.split(text)]
    restored = [re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], p) for p in parts]
    return [_LEAD.sub("", p).strip() for p in restored if p.strip()]


def parse_clause(clause: str) -> ActionStep | None:
    for kind, pattern in _PATTERNS:
        match = pattern.match(clause)
        if match is None:
            continue
        step = _step(kind, match)
        if step is not None:
            return step
    return None


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] in _Q and text[-1] in _Q:
        return text[1:-1]
    return text


def _step(kind: str, match: re.Match[str]) -> ActionStep | None:
    fields = {k: v for k, v in match.groupdict().items() if v is not None}
    locate = _unquote(fields["locate"]) if "locate" in fields else None
    match kind:
        case "navigate":
            url = fields["url"]
            return ActionStep("navigate", url=url if "://" in url else f"https://{url}")
        case "input":
            return ActionStep("input", locate=locate, text=_unquote(fields["text"]))
        case "clear":
            return ActionStep("input", locate=locate, text="")
        case "select":
            return ActionStep("select", locate=locate, text=_unquote(fields["text"]))
        case "check" | "uncheck" | "hover" | "tap":
            return ActionStep(kind, locate=locate)  # type: ignore[arg-type]
        case "scroll":
            distance = int(fields["distance"]) if "distance" in fields else None
            return ActionStep("scroll", locate=locate, direction=fields["direction"].lower(), distance=distance)  # type: ignore[arg-type]
        case "scroll_end":
            end = fields["end"].lower().replace("very ", "")
            scroll_type, direction = {
                "bottom": ("untilBottom", "down"), "end": ("untilBottom", "down"), "top": ("untilTop", "up"),
                "start": ("untilTop", "up"), "left": ("untilLeft", "left"), "right": ("untilRight", "right"),
            }[end]  # fmt: skip
            return ActionStep("scroll", locate=locate, direction=direction, scroll_type=scroll_type)  # type: ignore[arg-type]
        case "wait_ms":
            seconds = fields["unit"].lower().startswith("s")
            ms = int(float(fields["n"]) * (1000 if seconds else 1))
            return ActionStep("wait", ms=min(ms, MAX_WAIT_MS))
        case "wait" | "assert":
            return ActionStep(kind, assertion=_unquote(fields["assertion"]))  # type: ignore[arg-type]
        case "press":
            key = key_name(fields["key"])
            return ActionStep("press", key=key, locate=locate) if key is not None else None
    return None


def key_name(text: str) -> str | None:
    """ "enter" → Enter, "ctrl+a" → Control+A, "down arrow" → ArrowDown; None if it is not a key."""
    parts = [p.strip().lower() for p in text.split("+")]
    *mods, last = parts
    modifiers = []
    for mod in mods:
        if mod not in _MODIFIERS:
            return None
        modifiers.append(_MODIFIERS[mod])
    key = KEY_NAMES.get(last)
    if key is None and len(last) == 1 and last.isalnum():
        key = last.upper() if modifiers else last
    if key is None and re.fullmatch(r"f([1-9]|1[0-2])", last):
        key = last.upper()
    return "+".join([*modifiers, key]) if key is not None else None


# ----------------------------------------------------------------- from a model


def from_model(raw: object, *, may_be_empty: bool = False) -> tuple[ActionStep, ...]:
    """A model's plan, checked: ``{"steps": [{"action": "tap", "locate": "…"}, …]}``. Raises StepError
    naming the first bad step (the model's answer is untrusted input like any other).
    ``may_be_empty``: a re-plan may say that nothing is left to do."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("steps"), list):
        raise StepError('the plan is not {"steps": [...]}')
    steps = raw["steps"]
    if not steps and not may_be_empty:
        raise StepError("the plan has no steps")
    if len(steps) > MAX_STEPS:
        raise StepError(f"the plan has {len(steps)} steps (at most {MAX_STEPS})")
    return tuple(_model_step(i + 1, s) for i, s in enumerate(steps))


def _model_step(number: int, raw: object) -> ActionStep:
    if not isinstance(raw, Mapping):
        raise StepError(f"step {number} is not an object")
    kind = raw.get("action")
    if kind not in KINDS:
        raise StepError(f"step {number}: unknown action {kind!r} (one of {', '.join(KINDS)})")

    def text(field: str, required: bool = False) -> str | None:
        value = raw.get(field)
        if value is None and not required:
            return None
        if not isinstance(value, str) or (required and not value.strip() and field != "text"):
            raise StepError(f"step {number} ({kind}): {field} must be a string")
        if len(value) > MAX_TEXT:
            raise StepError(f"step {number} ({kind}): {field} is too long")
        return value

    match kind:
        case "tap" | "hover" | "check" | "uncheck":
            return ActionStep(kind, locate=text("locate", True))
        case "input":
            return ActionStep("input", locate=text("locate", True), text=text("text", True))
        case "select":
            return ActionStep("select", locate=text("locate", True), text=text("text", True))
        case "press":
            key = key_name(text("key", True) or "") or _plain_key(raw.get("key"))
            if key is None:
                raise StepError(f"step {number} (press): {raw.get('key')!r} is not a key name")
            return ActionStep("press", key=key, locate=text("locate"))
        case "scroll":
            direction = raw.get("direction", "down")
            scroll_type = raw.get("scrollType", "once")
            if direction not in ("up", "down", "left", "right") or scroll_type not in SCROLL_TYPES:
                raise StepError(f"step {number} (scroll): direction up/down/left/right, scrollType {SCROLL_TYPES}")
            distance = raw.get("distance")
            if distance is not None and (not isinstance(distance, int) or isinstance(distance, bool) or distance < 1):
                raise StepError(f"step {number} (scroll): distance must be a positive integer")
            return ActionStep("scroll", locate=text("locate"), direction=direction, scroll_type=scroll_type,
                              distance=distance)  # fmt: skip
        case "navigate":
            return ActionStep("navigate", url=text("url", True))
        case "wait":
            ms = raw.get("ms")
            if ms is None:
                return ActionStep("wait", assertion=text("assertion", True))
            if not isinstance(ms, int) or isinstance(ms, bool) or not 0 <= ms <= MAX_WAIT_MS:
                raise StepError(f"step {number} (wait): ms must be a whole number from 0 to {MAX_WAIT_MS}")
            return ActionStep("wait", ms=ms)
        case _:
            return ActionStep("assert", assertion=text("assertion", True))


_AGENT_KEYS = frozenset(KEY_NAMES.values())


def _plain_key(value: object) -> str | None:
    """A key the model wrote the way the page agent names it already ("ArrowDown", "Control+A")."""
    match = (
        re.fullmatch(r"((?:(?:Control|Shift|Alt|Meta)\+)*)([A-Za-z0-9]+)", value) if isinstance(value, str) else None
    )
    if match is None:
        return None
    key = match.group(2)
    return value if key in _AGENT_KEYS or len(key) == 1 or re.fullmatch(r"F(?:[1-9]|1[0-2])", key) else None


def plan_schema() -> dict[str, Any]:
    """What the model is told a step may be (prompts.py)."""
    return {
        "tap": {"locate": "the element, in words or its ref"},
        "input": {"locate": "a text field", "text": "text to type; empty string clears"},
        "hover": {"locate": "the element"},
        "press": {"key": "Enter, Tab, Escape, ArrowDown, Control+A…", "locate": "optional element"},
        "scroll": {
            "direction": "up|down|left|right",
            "scrollType": "|".join(SCROLL_TYPES),
            "distance": "px",
            "locate": "optional scrollable element",
        },
        "select": {"locate": "a dropdown", "text": "the option's label"},
        "check": {"locate": "a checkbox"},
        "uncheck": {"locate": "a checkbox"},
        "navigate": {"url": "http(s) URL"},
        "wait": {"ms": "milliseconds, or", "assertion": "a condition to wait for"},
        "assert": {"assertion": "a fact that must hold"},
    }
