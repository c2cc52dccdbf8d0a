"""What every page-agent tool shares: the focused tab, element targets, and failures a model can act on."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator
from toon_format import encode

from tabmcp.bridge import BridgeError
from tabmcp.tools.base import Args, ToolContext, ToolFailure

# What to do next, by error code: the message from the page says what went wrong, this says how on.
NEXT_STEP = {
    "STALE_REF": "Take a new snapshot and use its refs.",
    "ELEMENT_NOT_FOUND": "Check the target against a new snapshot.",
    "ELEMENT_AMBIGUOUS": "Use one of the refs listed, or a narrower target.",
    "ELEMENT_NOT_INTERACTABLE": "Deal with what blocks it (close the overlay, wait_for it), or pick another element.",
    "NOT_SCRIPTABLE": "This page cannot be scripted (browser pages, the Web Store, error pages): navigate elsewhere.",
    "NO_TAB": "The tab is gone: list_tabs, then focus_tab or open_tab.",
    "DISCONNECTED": "The browser link dropped: call connect_browser again.",
}


class TargetArgs(Args):
    """An element, named one way: a snapshot ref, a CSS selector, or an ARIA role and name."""

    ref: str | None = Field(None, description="Element ref from snapshot (e5; f1e3 inside a frame)")
    css: str | None = Field(None, description="CSS selector matching exactly one element")
    role: str | None = Field(None, description="ARIA role (button, link, textbox…); with name")
    name: str | None = Field(None, description="Accessible name to go with role (exact, else substring)")

    @model_validator(mode="after")
    def _one_way(self) -> TargetArgs:
        ways = [w for w in ("ref", "css", "role") if getattr(self, w) is not None]
        if len(ways) > 1:
            raise ValueError(f"name the element one way only (got {' and '.join(ways)})")
        if self.name is not None and self.role is None:
            raise ValueError("name goes with role: give role too (e.g. role=button, name=Save)")
        return self

    def target(self) -> dict[str, Any] | None:
        if self.ref is not None:
            return {"ref": self.ref.strip()}
        if self.css is not None:
            return {"css": self.css}
        if self.role is not None:
            return {"role": self.role.strip().lower(), **({"name": self.name} if self.name is not None else {})}
        return None

    def describe_target(self) -> str:
        if self.ref is not None:
            return self.ref
        if self.css is not None:
            return f"css {self.css!r}"
        if self.role is not None:
            return f"{self.role} {self.name!r}" if self.name is not None else self.role
        return "the page"


def focused_tab_id(ctx: ToolContext) -> int:
    tab_id = ctx.runtime.state.focused_tab_id
    if tab_id is None:  # the tools are listed only while FOCUSED; a stale client list may still call
        raise ToolFailure("No focused tab: call focus_tab or open_tab first.", {"code": "NO_TAB"})
    return tab_id


def page_failure(what: str, exc: BridgeError) -> ToolFailure:
    hint = NEXT_STEP.get(str(exc.code), "")
    message = f"{what} failed ({exc.code}): {exc.message.rstrip('.')}." + (f" {hint}" if hint else "")
    return ToolFailure(message, {"code": str(exc.code)})


def toon(data: dict[str, Any]) -> str:
    """Small results as TOON, like snapshots: what a model reads, in few tokens."""
    return encode(data)
