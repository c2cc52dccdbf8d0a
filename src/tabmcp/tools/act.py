"""Acting on the focused page: navigate, interact, wait_for."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, WithJsonSchema, model_validator

from tabmcp import state as s
from tabmcp.drivers.base import DriverError
from tabmcp.echo import quote
from tabmcp.guard import untrusted
from tabmcp.guard.sensitive import note_sensitive
from tabmcp.tools.base import Args, Text, ToolContext, ToolFailure, tool
from tabmcp.tools.observe import SnapshotArgs, take_snapshot
from tabmcp.tools.page_change import page_changing_call
from tabmcp.tools.tabs import check_url, dialogs_shown
from tabmcp.tools.targets import FORMS, TARGET_HELP, TargetArgs, focused_tab_id, page_failure, toon

WaitUntil = Literal["load", "domcontentloaded", "networkidle"]
# listed as one enum: the same choice as anyOf [boolean, const "diff"] at half the characters
AfterSnapshot = Annotated[bool | Literal["diff"], WithJsonSchema({"enum": [False, True, "diff"]})]
FOCUSED = {s.Mode.FOCUSED}
MAX_WAIT_MS = 30_000


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
    url: str | None = None
    go: Literal["back", "forward", "reload"] | None = None
    wait_until: WaitUntil = Field("load", alias="waitUntil")
    snapshot: AfterSnapshot = False

    @model_validator(mode="after")
    def _url_or_go(self) -> NavigateArgs:
        if (self.url is None) == (self.go is None):
            raise ValueError("give either url or go (back, forward, reload)")
        return self


@tool(title="Navigate", available_in=FOCUSED)
async def navigate(ctx: ToolContext, args: NavigateArgs) -> Text:
    """Load url, or go back/forward/reload."""
    tab_id = focused_tab_id(ctx)
    if args.url is not None:
        check_url(args.url, ctx.policy)
    where = untrusted.line(args.url, untrusted.MAX_URL) if args.url else args.go

    async def load() -> dict[str, Any]:
        async with ctx.progress.ticking(f"loading {where} (until {args.wait_until})"):
            return await ctx.runtime.driver.navigate(
                tab_id,
                url=args.url.strip() if args.url else None,
                go=args.go,
                wait_until=args.wait_until,
                timeout_ms=ctx.settings.navigation_timeout_ms,
            )

    try:  # the new page's tools are listed when this call returns
        page = await page_changing_call(
            ctx, tab_id, load(), lambda page: page.get("url", ""), reading_tools="page loaded; finding its tools"
        )
    except DriverError as exc:
        raise page_failure(f"navigate to {args.url or args.go}", exc) from None
    answer: dict[str, Any] = {
        "url": untrusted.line(page.get("url", ""), untrusted.MAX_URL),
        "title": untrusted.line(page.get("title", "")),
        **dialogs_shown(page),  # the page's own load script may have shown some
    }
    answer["note"] = f"{'title and dialog messages are' if 'dialogs' in answer else 'title is'} {untrusted.NOTE}"
    return Text(toon(answer) + await snapshot_after(ctx, args.snapshot))


# ----------------------------------------------------------------- interact

Action = Literal["click", "dblclick", "type", "fill", "clear", "hover", "select", "check", "uncheck", "press", "scroll"]
NEEDS_TARGET = {"click", "dblclick", "type", "fill", "clear", "hover", "select", "check", "uncheck"}


class InteractArgs(TargetArgs):
    action: Action
    # the one place the target forms are listed: wait_for and screenshot take the same
    target: str | None = Field(None, description=TARGET_HELP)
    text: str | None = None
    value: str | None = Field(None, description="select option")
    values: list[str] | None = None
    key: str | None = None  # Enter, Control+A…: the names models know from Playwright
    direction: Literal["up", "down", "left", "right"] | None = None
    amount: int | None = Field(None, ge=1)
    trusted: bool | None = Field(None, description="real input events (default for fill/clear/type/press when allowed)")
    dialog: Literal["dismiss", "accept"] = "dismiss"
    prompt_text: str | None = Field(None, alias="promptText")
    snapshot: AfterSnapshot = False

    @model_validator(mode="after")
    def _fits_action(self) -> InteractArgs:
        action, has_target = self.action, self.target is not None
        if action in NEEDS_TARGET and not has_target:
            raise ValueError(f"{action} needs a target: {FORMS}")
        if action in ("type", "fill") and self.text is None:
            raise ValueError(f"{action} needs text")
        if action == "select" and self.value is None and not self.values:
            raise ValueError("select needs value (or values)")
        if action == "press" and not self.key:
            raise ValueError("press needs key (e.g. Enter, Control+A)")
        if action == "scroll" and not has_target and self.direction is None:
            raise ValueError("scroll needs an element to bring into view, or a direction")
        return self

    def wire(self, timeout_ms: int, trusted: bool | str = False) -> dict[str, Any]:
        fields = {
            "action": self.action,
            "target": self.wire_target(),
            "text": self.text,
            "value": self.value,
            "values": self.values,
            "key": self.key,
            "direction": self.direction,
            "amount": self.amount,
            "trusted": trusted,
            "dialog": self.dialog,
            "promptText": self.prompt_text,
            "timeoutMs": timeout_ms,
        }
        return {k: v for k, v in fields.items() if v is not None}


# Keyboard actions use real input by default where allowed: editors and chords answer to a person's keys
# (docs/decisions.md, Trusted input by default); clicks stay synthetic (same events, no navigation grace).
TRUSTED_BY_DEFAULT = {"fill", "clear", "type", "press"}


def trusted_input_allowed(ctx: ToolContext) -> bool:
    """The setting, or unset: tabmcp's own browser (the CDP driver, or a browser it launched) allows it."""
    setting = ctx.settings.enable_trusted_input
    return setting if setting is not None else ctx.settings.uses_cdp or ctx.launcher.running


@tool(title="Interact with the page", available_in=FOCUSED)
async def interact(ctx: ToolContext, args: InteractArgs) -> Text:
    """Act on target (press: the focused one by default; scroll: the page)."""
    tab_id = focused_tab_id(ctx)
    what = f"{args.action} {args.describe_target()}"
    allowed = trusted_input_allowed(ctx)
    if args.trusted and not allowed:
        raise ToolFailure(
            "Trusted input (real input events) is off in the user's own browser, and no tool can switch it on. "
            "Try without trusted; if only real input works, ask the user to start tabmcp with "
            "--enable-trusted-input (setting enable_trusted_input, TABMCP_ENABLE_TRUSTED_INPUT=true).",
            {"code": "CAPABILITY_DISABLED"},
        )
    trusted: bool | str = args.trusted
    if args.trusted is None:
        trusted = "auto" if allowed and args.action in TRUSTED_BY_DEFAULT else False

    async def perform() -> dict[str, Any]:
        done = await ctx.runtime.driver.act(tab_id, args.wire(ctx.settings.action_timeout_ms, trusted))
        if done.get("sensitive"):  # the agent filled a password field: the audit log must not show the text
            note_sensitive("text", "value")  # first: the landing check that follows may fail the call
        return done

    # the action may have changed the page's tools (a dialog, a WebMCP registration): listed when this call
    # returns, so the client hears of them with this answer; an unchanged page costs one round trip
    try:
        done = await page_changing_call(
            ctx,
            tab_id,
            perform(),
            lambda done: done.get("url", "") if done.get("navigated") else None,
            version_of=lambda done: done.get("version"),
        )
    except DriverError as exc:
        raise page_failure(what, exc) from None
    result: dict[str, Any] = {"done": what}
    if done.get("navigated"):
        result["navigated"] = {
            "url": untrusted.line(done.get("url", ""), untrusted.MAX_URL),
            "title": untrusted.line(done.get("title", "")),
        }
    result.update(dialogs_shown(done))
    if "navigated" in result or "dialogs" in result:
        result["note"] = f"titles and dialog messages are {untrusted.NOTE}"
    return Text(toon(result) + await snapshot_after(ctx, args.snapshot))


# ----------------------------------------------------------------- wait_for

ElementState = Literal[
    "visible", "hidden", "attached", "detached", "enabled", "disabled", "checked", "unchecked", "focused"
]


WaitMs = Annotated[int, Field(ge=0, le=MAX_WAIT_MS)]


class WaitForArgs(TargetArgs):
    text: str | None = None
    text_gone: str | None = Field(None, alias="textGone")
    state: ElementState | None = None
    time_ms: WaitMs | None = Field(None, alias="timeMs")
    timeout_ms: WaitMs = Field(5000, alias="timeoutMs")

    @model_validator(mode="after")
    def _one_condition(self) -> WaitForArgs:
        given = [
            name
            for name, present in (
                ("text", self.text is not None),
                ("textGone", self.text_gone is not None),
                ("target", self.target is not None),
                ("timeMs", self.time_ms is not None),
            )
            if present
        ]
        if len(given) != 1:
            raise ValueError(
                'give exactly one of text, textGone, target (+ state) or timeMs, e.g. {"text": "Saved"} or '
                '{"target": "role=button[name=Save]", "state": "enabled"}'
            )
        if self.state is not None and self.target is None:
            raise ValueError(f"state needs a target: {FORMS}")
        return self

    def condition(self) -> dict[str, Any]:
        if self.text is not None:
            return {"text": self.text}
        if self.text_gone is not None:
            return {"textGone": self.text_gone}
        if self.time_ms is not None:
            return {"timeMs": self.time_ms}
        return {"target": self.wire_target(), "state": self.state or "visible"}

    def describe(self) -> str:
        if self.text is not None:
            return f"text {quote(self.text)}"
        if self.text_gone is not None:
            return f"text {quote(self.text_gone)} to go"
        if self.time_ms is not None:
            return f"{self.time_ms} ms"
        return f"{self.describe_target()} {self.state or 'visible'}"


@tool(title="Wait for the page", available_in=FOCUSED, read_only=True)
async def wait_for(ctx: ToolContext, args: WaitForArgs) -> Text:
    """Wait for text, textGone, target state (default visible) or timeMs."""
    tab_id = focused_tab_id(ctx)
    try:
        waited = await ctx.runtime.driver.wait_for(tab_id, args.condition(), args.timeout_ms)
    except DriverError as exc:
        raise page_failure("wait_for", exc) from None  # the browser's message names the condition
    return Text(toon({"met": args.describe(), "afterMs": waited.get("elapsedMs", 0)}))
