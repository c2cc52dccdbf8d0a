"""Acting on the focused page: navigate, interact, wait_for."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from tabmcp import state as s
from tabmcp.bridge import BridgeError
from tabmcp.guard import untrusted
from tabmcp.guard.sensitive import note_sensitive
from tabmcp.tools.base import Args, Text, ToolContext, ToolFailure, tool
from tabmcp.tools.observe import SnapshotArgs, take_snapshot
from tabmcp.tools.tabs import check_landing, check_url, note_blocked
from tabmcp.tools.targets import TargetArgs, focused_tab_id, page_failure, toon

WaitUntil = Literal["load", "domcontentloaded", "networkidle"]
AfterSnapshot = bool | Literal["diff"]
FOCUSED = {s.Mode.FOCUSED}
MAX_WAIT_MS = 30_000
MAX_DIALOG = 1000  # a dialog's message, as the page wrote it
MAX_DIALOGS = 10


async def snapshot_after(ctx: ToolContext, wanted: AfterSnapshot) -> str:
    """The page after an action, appended to its result when the model asked for it."""
    if wanted is False:
        return ""
    try:
        return "\n" + await take_snapshot(ctx, SnapshotArgs(diff=wanted == "diff"))
    except ToolFailure as exc:
        return f"\nsnapshot: failed ({exc.message})"


# ----------------------------------------------------------------- navigate


class NavigateArgs(Args):
    url: str | None = Field(None, description="URL to load in the focused tab (http/https)")
    go: Literal["back", "forward", "reload"] | None = Field(None, description="Instead of url: history step or reload")
    wait_until: WaitUntil = Field("load", alias="waitUntil", description="When the navigation counts as done")
    snapshot: AfterSnapshot = Field(False, description="Append a snapshot of the new page (true or 'diff')")

    @model_validator(mode="after")
    def _url_or_go(self) -> NavigateArgs:
        if (self.url is None) == (self.go is None):
            raise ValueError("give either url or go (back, forward, reload)")
        return self


@tool(title="Navigate", available_in=FOCUSED)
async def navigate(ctx: ToolContext, args: NavigateArgs) -> Text:
    """Load a URL in the focused tab, or go back/forward/reload. Waits for waitUntil."""
    tab_id = focused_tab_id(ctx)
    if args.url is not None:
        check_url(args.url, ctx.policy)
    where = untrusted.line(args.url, untrusted.MAX_URL) if args.url else args.go
    try:
        async with ctx.progress.ticking(f"loading {where} (until {args.wait_until})"):
            page = await ctx.runtime.driver.navigate(
                tab_id,
                url=args.url.strip() if args.url else None,
                go=args.go,
                wait_until=args.wait_until,
                timeout_ms=ctx.settings.navigation_timeout_ms,
            )
    except BridgeError as exc:
        note_blocked(ctx, tab_id, exc)
        raise page_failure(f"navigate to {args.url or args.go}", exc) from None
    await check_landing(ctx, tab_id, page.get("url", ""))
    await ctx.progress.step("page loaded; finding its tools")
    await ctx.runtime.refresh_page_tools(tab_id)  # the new page's tools are listed when this call returns
    await ctx.runtime.page_changed()
    text = toon(
        {
            "url": untrusted.line(page.get("url", ""), untrusted.MAX_URL),
            "title": untrusted.line(page.get("title", "")),
            "note": f"title is {untrusted.NOTE}",
        }
    )
    return Text(text + await snapshot_after(ctx, args.snapshot))


# ----------------------------------------------------------------- interact

Action = Literal[
    "click", "dblclick", "type", "fill", "clear", "hover", "select", "check", "uncheck", "press", "scroll"
]
NEEDS_TARGET = {"click", "dblclick", "type", "fill", "clear", "hover", "select", "check", "uncheck"}


class InteractArgs(TargetArgs):
    action: Action = Field(description="What to do to the element")
    text: str | None = Field(None, description="type/fill: the text")
    value: str | None = Field(None, description="select: option value or label")
    values: list[str] | None = Field(None, description="select: several options (multiple select)")
    key: str | None = Field(None, description="press: key name with modifiers, e.g. Enter, Control+A")
    direction: Literal["up", "down", "left", "right"] | None = Field(None, description="scroll: direction")
    amount: int | None = Field(None, ge=1, description="scroll: pixels (default one screen)")
    trusted: bool = Field(
        False,
        description="Real browser input events, for pages that reject synthetic ones (needs enable_trusted_input)",
    )
    dialog: Literal["accept", "dismiss"] = Field("dismiss", description="Answer to alert/confirm/prompt it opens")
    prompt_text: str | None = Field(None, alias="promptText", description="Text for a prompt when accepting")
    snapshot: AfterSnapshot = Field(False, description="Append a snapshot after the action (true or 'diff')")

    @model_validator(mode="after")
    def _fits_action(self) -> InteractArgs:
        action, has_target = self.action, self.target() is not None
        if action in NEEDS_TARGET and not has_target:
            raise ValueError(f"{action} needs an element: ref, css, or role (+ name)")
        if action in ("type", "fill") and self.text is None:
            raise ValueError(f"{action} needs text")
        if action == "select" and self.value is None and not self.values:
            raise ValueError("select needs value (or values)")
        if action == "press" and not self.key:
            raise ValueError("press needs key (e.g. Enter, Control+A)")
        if action == "scroll" and not has_target and self.direction is None:
            raise ValueError("scroll needs an element to bring into view, or a direction")
        return self

    def wire(self, timeout_ms: int) -> dict[str, Any]:
        fields = {
            "action": self.action,
            "target": self.target(),
            "text": self.text,
            "value": self.value,
            "values": self.values,
            "key": self.key,
            "direction": self.direction,
            "amount": self.amount,
            "trusted": self.trusted,
            "dialog": self.dialog,
            "promptText": self.prompt_text,
            "timeoutMs": timeout_ms,
        }
        return {k: v for k, v in fields.items() if v is not None}


@tool(title="Interact with the page", available_in=FOCUSED)
async def interact(ctx: ToolContext, args: InteractArgs) -> Text:
    """Act on an element (by ref from snapshot, css, or role+name): click, dblclick, type, fill, clear, hover,
    select, check, uncheck, press (key), scroll. Waits until the element is actionable."""
    tab_id = focused_tab_id(ctx)
    what = f"{args.action} {args.describe_target()}"
    if args.trusted and not ctx.settings.enable_trusted_input:
        raise ToolFailure(
            "Trusted input (trusted=true: real input events through chrome.debugger) is off: the user can "
            "switch it on with enable_trusted_input (TABMCP_ENABLE_TRUSTED_INPUT=true). Try without trusted.",
            {"code": "CAPABILITY_DISABLED"},
        )
    try:
        done = await ctx.runtime.driver.act(tab_id, args.wire(ctx.settings.action_timeout_ms))
    except BridgeError as exc:
        note_blocked(ctx, tab_id, exc)
        raise page_failure(what, exc) from None
    if done.get("sensitive"):  # the agent filled a password field: the audit log must not show the text
        note_sensitive("text", "value")  # first: the landing check below may fail the call
    if done.get("navigated"):
        await check_landing(ctx, tab_id, done.get("url", ""))
    # the action may have changed the page's tools (a dialog, a WebMCP registration): listed when this call
    # returns, so the client hears of them with this answer; an unchanged page costs one round trip
    await ctx.runtime.refresh_page_tools(tab_id)
    await ctx.runtime.page_changed()
    result: dict[str, Any] = {"done": what}
    if done.get("navigated"):
        result["navigated"] = {
            "url": untrusted.line(done.get("url", ""), untrusted.MAX_URL),
            "title": untrusted.line(done.get("title", "")),
        }
    dialogs = done.get("dialogs") or []
    if dialogs:
        result["dialogs"] = [
            {
                "type": d.get("type", ""),
                "message": untrusted.line(d.get("message", ""), MAX_DIALOG),
                "answer": _answer(d.get("answer")),
            }
            for d in dialogs[:MAX_DIALOGS]
        ]
    if "navigated" in result or dialogs:
        result["note"] = f"titles and dialog messages are {untrusted.NOTE}"
    return Text(toon(result) + await snapshot_after(ctx, args.snapshot))


def _answer(answer: object) -> str:
    return "null" if answer is None else str(answer).lower() if isinstance(answer, bool) else str(answer)


# ----------------------------------------------------------------- wait_for

ElementState = Literal[
    "visible", "hidden", "attached", "detached", "enabled", "disabled", "checked", "unchecked", "focused"
]


class WaitForArgs(TargetArgs):
    text: str | None = Field(None, description="Wait until this text is on the page")
    text_gone: str | None = Field(None, alias="textGone", description="Wait until this text is gone")
    state: ElementState | None = Field(None, description="With an element: wait for this state (default visible)")
    time_ms: int | None = Field(None, alias="timeMs", ge=0, le=MAX_WAIT_MS, description="Just wait this long")
    timeout_ms: int = Field(5000, alias="timeoutMs", ge=0, le=MAX_WAIT_MS, description="Give up after this long")

    @model_validator(mode="after")
    def _one_condition(self) -> WaitForArgs:
        given = [
            name
            for name, present in (
                ("text", self.text is not None),
                ("textGone", self.text_gone is not None),
                ("element", self.target() is not None),
                ("timeMs", self.time_ms is not None),
            )
            if present
        ]
        if len(given) != 1:
            raise ValueError("give exactly one of text, textGone, an element (ref/css/role + state), timeMs")
        if self.state is not None and self.target() is None:
            raise ValueError("state needs an element: ref, css, or role (+ name)")
        return self

    def condition(self) -> dict[str, Any]:
        if self.text is not None:
            return {"text": self.text}
        if self.text_gone is not None:
            return {"textGone": self.text_gone}
        if self.time_ms is not None:
            return {"timeMs": self.time_ms}
        return {"target": self.target(), "state": self.state or "visible"}

    def describe(self) -> str:
        if self.text is not None:
            return f"text {self.text!r}"
        if self.text_gone is not None:
            return f"text {self.text_gone!r} to go"
        if self.time_ms is not None:
            return f"{self.time_ms} ms"
        return f"{self.describe_target()} {self.state or 'visible'}"


@tool(title="Wait for the page", available_in=FOCUSED, read_only=True)
async def wait_for(ctx: ToolContext, args: WaitForArgs) -> Text:
    """Wait until text appears or goes, an element reaches a state, or some time passes."""
    tab_id = focused_tab_id(ctx)
    try:
        waited = await ctx.runtime.driver.wait_for(tab_id, args.condition(), args.timeout_ms)
    except BridgeError as exc:
        raise page_failure(f"wait for {args.describe()}", exc) from None
    return Text(toon({"met": args.describe(), "afterMs": waited.get("elapsedMs", 0)}))
