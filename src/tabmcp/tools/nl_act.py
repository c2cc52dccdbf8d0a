"""Natural-language actions (docs/nl-tools.md): act on an element named in plain words.

``ai_tap``, ``ai_input``, ``ai_hover``, ``ai_keyboard_press`` and ``ai_scroll`` locate their element
with the deterministic scorer (no model needed) and then act exactly as ``interact`` does, by the
ref they found (same actionability checks, navigation waits, dialogs, audit redaction of
passwords). ``ai_action`` runs an action in plain words, step by step; it needs the model only for
prompts it cannot read itself.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from tabmcp import state as s
from tabmcp.guard import untrusted
from tabmcp.nl import prompts
from tabmcp.nl import steps as nl_steps
from tabmcp.nl.locate import Purpose
from tabmcp.nl.model import ModelError
from tabmcp.tools import act
from tabmcp.tools.base import Args, Text, ToolContext, ToolFailure, tool
from tabmcp.tools.nl_common import (
    NL,
    NL_MODEL,
    Located,
    ask_model,
    check_assertion,
    check_not_destructive,
    locate,
    model_failure,
    read_page,
    scroll,
    wait_until,
)
from tabmcp.tools.targets import toon

FOCUSED = {s.Mode.FOCUSED}
WAIT_STEP_MS = 15_000  # "wait for …" in an action: as long as ai_wait_for's default
MAX_REPLANS = 2  # a model's plan whose step finds no element is planned again from the page, this often
REPLAN_CODES = frozenset({"ELEMENT_NOT_FOUND", "ELEMENT_AMBIGUOUS"})  # failures that did nothing to the page
LOCATE = Field(
    min_length=1,
    max_length=500,
    description='The element in plain words, e.g. "the login button", "Add to cart for the Onesie" (or a ref)',
)


class LocateArgs(Args):
    locate: str = LOCATE


class InputArgs(Args):
    text: str = Field(max_length=20_000, description="Text to enter; an empty string clears the field")
    locate: str = LOCATE


class KeyArgs(Args):
    key: str = Field(min_length=1, max_length=60, description="Key to press: Enter, Tab, Escape, ArrowDown…")
    locate: str | None = Field(
        None, min_length=1, max_length=500, description="Element to press it in (default: focused)"
    )


class ScrollArgs(Args):
    direction: Literal["up", "down", "left", "right"] = Field(description="Direction to scroll")
    scroll_type: Literal["once", "untilBottom", "untilTop", "untilLeft", "untilRight"] = Field(
        "once", alias="scrollType", description="once, or until the end in that direction"
    )
    distance: int | None = Field(None, ge=1, le=100_000, description="Pixels, for once (default: one screen)")
    locate: str | None = Field(None, min_length=1, max_length=500, description="Element to scroll (default: page)")


async def _act_on(
    ctx: ToolContext, description: str, purpose: Purpose, action: str, *, check: bool = True, **fields: Any
) -> tuple[Located, Text]:
    """Locate, then act by ref as ``interact`` does."""
    located = await locate(ctx, description, purpose)
    if check:
        check_not_destructive(ctx, located, description)
    return located, await act.interact(ctx, act.InteractArgs(target=located.row.ref, action=action, **fields))


async def _acted(ctx: ToolContext, description: str, purpose: Purpose, action: str, **fields: Any) -> Text:
    """The tool's answer: which element the description meant, then what ``interact`` says."""
    located, done = await _act_on(ctx, description, purpose, action, **fields)
    return Text(toon({"located": located.summary()}) + "\n" + done.text)


@tool(title="AI tap", available_in=FOCUSED, requires=NL)
async def ai_tap(ctx: ToolContext, args: LocateArgs) -> Text:
    """Click the element described in plain words (the page's own words are matched, no screenshot)."""
    return await _acted(ctx, args.locate, "click", "click")


@tool(title="AI input", available_in=FOCUSED, requires=NL)
async def ai_input(ctx: ToolContext, args: InputArgs) -> Text:
    """Type text into the field described in plain words, replacing its value ("" clears it)."""
    if args.text == "":
        return await _acted(ctx, args.locate, "input", "clear")
    return await _acted(ctx, args.locate, "input", "fill", text=args.text)


@tool(title="AI hover", available_in=FOCUSED, requires=NL)
async def ai_hover(ctx: ToolContext, args: LocateArgs) -> Text:
    """Move the mouse over the element described in plain words."""
    return await _acted(ctx, args.locate, "hover", "hover")


@tool(title="AI keyboard press", available_in=FOCUSED, requires=NL)
async def ai_keyboard_press(ctx: ToolContext, args: KeyArgs) -> Text:
    """Press a key, in the element described in plain words or in the focused one."""
    key = nl_steps.key_name(args.key) or args.key
    if args.locate is None:
        return await act.interact(ctx, act.InteractArgs(action="press", key=key))
    activating = key.lower() in ("enter", "space")
    return await _acted(ctx, args.locate, "any", "press", check=activating, key=key)


@tool(title="AI scroll", available_in=FOCUSED, requires=NL)
async def ai_scroll(ctx: ToolContext, args: ScrollArgs) -> Text:
    """Scroll the page, or the element described in plain words, once or until an end."""
    located = await locate(ctx, args.locate, "scroll") if args.locate is not None else None
    ref = located.row.ref if located is not None else None
    result = await scroll(ctx, args.direction, args.scroll_type, args.distance, ref)
    if located is not None:
        result = {"located": located.summary(), **result}
    return Text(toon(result))


# ----------------------------------------------------------------- ai_action


class ActionArgs(Args):
    prompt: str = Field(
        min_length=1,
        max_length=4000,
        description='Steps in plain words, e.g. "type JavaScript into the search box, click search"',
    )


@tool(title="AI action", available_in=FOCUSED, requires=NL_MODEL, destructive=True)
async def ai_action(ctx: ToolContext, args: ActionArgs) -> Text:
    """Do a series of steps described in plain words (type, click, select, check, hover, press, scroll,
    wait, verify). Steps are read without the model when they can be; otherwise the model plans them."""
    parsed = nl_steps.parse(args.prompt)
    planned_by = "page"
    if parsed.ok:
        plan = parsed.steps
    else:
        planned_by = "model"
        try:
            answer = await ask_model(ctx, prompts.plan_question(args.prompt), await read_page(ctx))
            plan = prompts.read_plan(answer)
        except (ModelError, prompts.AnswerError) as exc:
            raise model_failure("Planning the steps failed", exc) from None
    done: list[str] = []
    left = list(plan)
    replans = 0
    while left:
        step = left.pop(0)
        try:
            done.append(f"{step.describe()} → {await _run_step(ctx, step)}")
        except ToolFailure as exc:
            code = (exc.data or {}).get("code")
            if planned_by == "model" and code in REPLAN_CODES and replans < MAX_REPLANS:
                # nothing was done by this step; the page it was planned on may be gone: plan the rest again
                replans += 1
                left = await _replan(ctx, args.prompt, done, step, exc.message)
                continue
            number = len(done) + 1
            exc.message = f"Step {number} of {number + len(left)} ({step.describe()}) failed: {exc.message}"
            exc.data = {**(exc.data or {}), "done": done, "plannedBy": planned_by}
            if replans:
                exc.data["replanned"] = replans
            raise
    result: dict[str, object] = {"plannedBy": planned_by, "done": done}
    if replans:
        result["replanned"] = replans
    return Text(toon({**result, "note": f"element names are {untrusted.NOTE}"}))


async def _replan(
    ctx: ToolContext, prompt: str, done: list[str], failed: nl_steps.ActionStep, why: str
) -> list[nl_steps.ActionStep]:
    question = prompts.replan_question(prompt, done, failed.describe(), why)
    try:
        answer = await ask_model(ctx, question, await read_page(ctx))
        return list(prompts.read_plan(answer, may_be_empty=True))
    except (ModelError, prompts.AnswerError) as exc:
        step = f"Step {len(done) + 1} ({failed.describe()})"
        what = f"{step} found no element ({why.rstrip('.')}), and planning the rest again failed"
        failure = model_failure(what, exc)
        failure.data = {**(failure.data or {}), "done": done, "plannedBy": "model"}
        raise failure from None


async def _run_step(ctx: ToolContext, step: nl_steps.ActionStep) -> str:
    """One step; what it acted on (the ai_action call as a whole was confirmed: no per-element check)."""
    where = step.locate or ""
    match step.kind:
        case "tap":
            return _on(await _act_on(ctx, where, "click", "click", check=False))
        case "input":
            if not step.text:
                return _on(await _act_on(ctx, where, "input", "clear", check=False))
            return _on(await _act_on(ctx, where, "input", "fill", check=False, text=step.text))
        case "hover":
            return _on(await _act_on(ctx, where, "hover", "hover", check=False))
        case "select":
            return _on(await _act_on(ctx, where, "select", "select", check=False, value=step.text))
        case "check" | "uncheck":
            return _on(await _act_on(ctx, where, "check", step.kind, check=False))
        case "press":
            if step.locate:
                return _on(await _act_on(ctx, where, "any", "press", check=False, key=step.key))
            await act.interact(ctx, act.InteractArgs(action="press", key=step.key))
            return "the focused element"
        case "scroll":
            located = await locate(ctx, where, "scroll") if step.locate else None
            ref = located.row.ref if located is not None else None
            result = await scroll(ctx, step.direction or "down", step.scroll_type, step.distance, ref)
            position = result.get("position", {})
            return f"{located.row.describe() if located else 'the page'} at x={position.get('x')} y={position.get('y')}"
        case "navigate":
            await act.navigate(ctx, act.NavigateArgs(url=step.url))
            tab = ctx.runtime.state.focused_tab
            return tab.url if tab is not None else str(step.url)
        case "wait":
            if step.ms is not None:
                await act.wait_for(ctx, act.WaitForArgs(time_ms=step.ms, timeout_ms=max(step.ms, 1)))
                return "done"
            return f"met ({await wait_until(ctx, step.assertion or '', WAIT_STEP_MS, 1_000)})"
        case "assert":
            checked = await check_assertion(ctx, step.assertion or "")
            if checked.passed is not True:
                raise ToolFailure(
                    f"Assertion failed: {step.assertion}. The page shows: {checked.evidence}",
                    {"code": "ASSERTION_FAILED"},
                )
            return f"holds ({checked.source})"
    raise ToolFailure(f"unknown step {step.kind!r}")


def _on(acted: tuple[Located, Text]) -> str:
    located, _ = acted
    by = f"confidence {located.confidence}" if located.by == "page" else "named by the model"
    return f"{untrusted.line(located.row.describe())} ({by})"
