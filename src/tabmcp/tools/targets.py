"""What every page-agent tool shares: the focused tab, element targets, and failures a model can act on."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import field_validator, model_validator
from toon_format import encode

from tabmcp.drivers.base import DriverError
from tabmcp.echo import escaped, quote
from tabmcp.tools.base import Args, ToolContext, ToolFailure

# What to do next, by error code: the message from the page says what went wrong, this says how on.
NEXT_STEP = {
    "STALE_REF": "Take a new snapshot and use its refs.",
    "ELEMENT_NOT_FOUND": "Check the target against a new snapshot.",
    "ELEMENT_AMBIGUOUS": "Use one of the refs listed as target, or a narrower target.",
    "ELEMENT_NOT_INTERACTABLE": "Deal with what blocks it (close the overlay, wait_for it), or pick another element.",
    "NOT_SCRIPTABLE": "This page cannot be scripted (browser pages, the Web Store, error pages): navigate elsewhere.",
    "NO_TAB": "The tab is gone: list_tabs, then focus_tab or open_tab.",
    "DISCONNECTED": (
        "The browser link dropped. If the browser relinks by itself (within seconds), call again; "
        "if connect_browser is listed, call it."
    ),
}

# ----------------------------------------------------------------- element targets

# One string names an element: listing one argument instead of ref/css/role/name in every tool that
# targets one halves their schemas, and the model writes what it read in the snapshot.
TARGET_HELP = "ref (e12), css=<selector> or role=<role>[name=<name>]"
FORMS = (
    "a snapshot ref (e12; f1e3 in a frame), css=<selector> (css=#save) or role=<role>[name=<name>] "
    "(role=button[name=Save])"
)
MAX_TARGET = 2_000  # a CSS selector longer than this is not one a model means
MAX_SHOWN = 60  # of a bad target, in the error: enough to recognise it, never the whole input
REF = re.compile(r"(?:f[1-9]\d*)?e[1-9]\d*")
PREFIX = re.compile(r"([A-Za-z_-]{1,20})\s*=")
CSS_LIKE = re.compile(r"[#.\[\]>:*]")
ROLE = re.compile(r"([A-Za-z][\w-]*)\s*(?:\[\s*name\s*=\s*(.*)\])?", re.DOTALL)
# Separate element fields, as other browser tools (and models used to them) name an element: the
# call fails with the target string that says the same.
SPLIT_FIELDS = ("ref", "css", "role", "name")


@dataclass(frozen=True)
class Target:
    """A parsed target: exactly one of ref, css, role (name only with role)."""

    ref: str | None = None
    css: str | None = None
    role: str | None = None
    name: str | None = None

    def wire(self) -> dict[str, str]:
        """As the drivers take it (protocol.py): {ref}, {css} or {role, name?}."""
        if self.ref is not None:
            return {"ref": self.ref}
        if self.css is not None:
            return {"css": self.css}
        return {"role": self.role or "", **({"name": self.name} if self.name is not None else {})}

    def __str__(self) -> str:
        if self.ref is not None:
            return self.ref
        if self.css is not None:
            return f"css={_cut(self.css)}"
        return f"role={self.role}" + (f"[name={_cut(self.name)}]" if self.name is not None else "")


def parse_target(raw: str) -> Target:
    """``e12`` / ``f1e3`` (a snapshot ref), ``css=<selector>``, ``role=<role>`` or
    ``role=<role>[name=<name>]`` (the name matched exactly, else as a substring; quotes optional).
    A ValueError says which forms exist, with examples, and shows at most MAX_SHOWN characters."""
    text = raw.strip()
    if len(text) > MAX_TARGET:
        raise ValueError(f"target is {len(text)} characters long (at most {MAX_TARGET}): give {FORMS}")
    if not text:
        raise ValueError(f"target is empty: give {FORMS}")
    prefix = PREFIX.match(text)
    kind = prefix.group(1).lower() if prefix else None
    rest = text[prefix.end() :].strip() if prefix else ""
    if kind == "css":
        if not rest:
            raise ValueError("css= needs a selector after it, e.g. css=#save or css=form button[type=submit]")
        return Target(css=rest)
    if kind == "role":
        return _role(rest)
    if kind == "ref":
        text = rest
    if REF.fullmatch(text.lower()):
        return Target(ref=text.lower())
    if kind not in (None, "ref"):
        raise ValueError(f"unknown target form {kind}= in {_quoted(text)}: give {FORMS}")
    if CSS_LIKE.search(text):  # a bare selector, the commonest slip
        raise ValueError(
            f"{_quoted(text)} is not a target: for a CSS selector write css={_cut(text)}; else give {FORMS}"
        )
    raise ValueError(f"{_quoted(text)} is not a target: give {FORMS}")


def _role(rest: str) -> Target:
    form = ROLE.fullmatch(rest)
    if form is None:
        raise ValueError(
            f"role={_cut(rest)} is not a role target: give role=<role> or role=<role>[name=<name>], "
            "e.g. role=button[name=Save] or role=textbox[name=Email]"
        )
    role, name = form.group(1).lower(), form.group(2)
    if name is None:
        return Target(role=role)
    name = name.strip()
    if len(name) >= 2 and name[0] == name[-1] and name[0] in "\"'":
        name = name[1:-1]
    if not name:
        raise ValueError(
            f"role={role}[name=] has an empty name: give one (role={role}[name=Save]) or none (role={role})"
        )
    return Target(role=role, name=name)


def _as_target(data: dict[str, Any]) -> str:
    """The target string for separate ref/css/role/name fields, for the error that asks for it."""
    ref, css, role, name = (data.get(k) for k in SPLIT_FIELDS)
    if isinstance(ref, str):
        shown = _cut(ref.strip())
    elif isinstance(css, str):
        shown = f"css={_cut(css)}"
    else:
        role_text = role.strip().lower() if isinstance(role, str) and role.strip() else "<role>"
        shown = f"role={_cut(role_text)}" + (f"[name={_cut(name)}]" if isinstance(name, str) else "")
    return f'"target": "{shown}" (a target is {FORMS})'


def _cut(text: str | None) -> str:
    """A short label of caller text (its hidden characters escaped); an ellipsis marks a cut."""
    text = text or ""
    return escaped(text[:MAX_SHOWN], MAX_SHOWN * 10) + ("…" if len(text) > MAX_SHOWN else "")


def _quoted(text: str) -> str:
    return quote(text, MAX_SHOWN)


class TargetArgs(Args):
    """An element, named by one target string (parse_target)."""

    target: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _one_string(cls, data: Any) -> Any:
        if isinstance(data, dict) and any(k in data for k in SPLIT_FIELDS):
            given = [k for k in SPLIT_FIELDS if k in data]
            what = f"{given[0]} is not an argument" if len(given) == 1 else f"{' and '.join(given)} are not arguments"
            raise ValueError(f"{what}: give {_as_target(data)}")
        return data

    @field_validator("target")
    @classmethod
    def _parses(cls, target: str | None) -> str | None:
        if target is not None:
            parse_target(target)
        return target

    def element(self) -> Target | None:
        return None if self.target is None else parse_target(self.target)

    def wire_target(self) -> dict[str, str] | None:
        element = self.element()
        return None if element is None else element.wire()

    def describe_target(self) -> str:
        element = self.element()
        return "the page" if element is None else str(element)


def focused_tab_id(ctx: ToolContext) -> int:
    tab_id = ctx.runtime.state.focused_tab_id
    if tab_id is None:  # the tools are listed only while FOCUSED; a stale client list may still call
        raise ToolFailure("No focused tab: call focus_tab or open_tab first.", {"code": "NO_TAB"})
    return tab_id


def page_failure(what: str, exc: DriverError) -> ToolFailure:
    hint = NEXT_STEP.get(str(exc.code), "")
    message = f"{what} failed ({exc.code}): {exc.message.rstrip('.')}." + (f" {hint}" if hint else "")
    return ToolFailure(message, {"code": str(exc.code)})


def toon(data: dict[str, Any]) -> str:
    """Small results as TOON, like snapshots: what a model reads, in few tokens."""
    return encode(data)
