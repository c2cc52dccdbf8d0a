"""What the natural-language tools share (docs/nl-tools.md): reading the page, asking the model,
locating an element from a description, checking an assertion, scrolling to an end.

The page is read once per question as a locate-mode snapshot (``nl/page.py``). The deterministic
answer (``nl/locate.py``, ``nl/check.py``) comes first; the configured model is asked only when it
is unsure, and its answer is checked before anything acts on it (``nl/prompts.py``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any, Literal

from tabmcp.drivers.base import DriverError
from tabmcp.guard import untrusted
from tabmcp.introspect.text import DESTRUCTIVE_WORDS
from tabmcp.nl import check as checks
from tabmcp.nl import locate as locating
from tabmcp.nl import prompts
from tabmcp.nl.model import ChatModel, ModelError
from tabmcp.nl.page import PageView, Row, render_for_model
from tabmcp.page import images
from tabmcp.tools.base import ToolContext, ToolFailure
from tabmcp.tools.targets import focused_tab_id, page_failure

log = logging.getLogger(__name__)

NL = "nl_tools"  # CoreTool.requires: listed with nl_tools=true
NL_MODEL = "nl_model_configured"  # listed only when a model is configured too
MODEL_SCREENSHOT_SIDE = 1280
SCROLL_STEP_PX = 1_000_000  # one scroll as far as the browser lets it go
SCROLL_ROUNDS = 20
SCROLL_SETTLE_S = 0.25  # lets an infinite list load its next page before the next scroll
NEXT_STEP = "Take a snapshot to see the page, or name the element by a ref from it."


async def read_page(ctx: ToolContext) -> PageView:
    """The focused page as the natural-language tools read it (one locate-mode snapshot)."""
    tab_id = focused_tab_id(ctx)
    try:
        data = await ctx.runtime.driver.snapshot(tab_id, "locate")
    except DriverError as exc:
        raise page_failure("reading the page", exc) from None
    try:
        return PageView.from_snapshot(data)
    except ValueError as exc:
        raise ToolFailure(f"The page's snapshot could not be read: {exc}", {"code": "INTERNAL"}) from None


async def ask_model(ctx: ToolContext, question: str, view: PageView) -> str:
    """The configured model's answer to a question about the page. Raises ModelError."""
    model = ChatModel.from_settings(ctx.settings)
    if model is None:  # the tools that need one are not listed without it; a stale list may still call
        raise ModelError("MODEL_ERROR", "no model is configured (TABMCP_NL_MODEL_BASE_URL, TABMCP_NL_MODEL)")
    page = render_for_model(view, ctx.settings.nl_model_max_page_chars)
    screenshot = await _screenshot(ctx) if ctx.settings.nl_model_screenshot else None
    log.info("asking the model %s about %s", model.model, view.url)
    return await model.ask(prompts.messages(question, page, screenshot))


async def _screenshot(ctx: ToolContext) -> str | None:
    """The viewport as a JPEG data URL for a vision model; none where screenshots are not allowed or fail."""
    tab_id = focused_tab_id(ctx)
    tab = ctx.runtime.state.tabs.get(tab_id)
    if tab is None or not ctx.runtime.screenshot_origins.allows(tab.url):
        return None
    try:
        shot = await ctx.runtime.driver.screenshot(tab_id, "viewport", None, "jpeg", 70)
        fitted = images.fit_image(
            images.decode_base64(shot["data"]), fmt="jpeg", max_side=MODEL_SCREENSHOT_SIDE, quality=70
        )
    except (DriverError, images.ImageError, KeyError) as exc:
        log.info("no screenshot for the model: %s", exc)
        return None
    return f"data:{fitted.mime_type};base64,{images.encode_base64(fitted.data)}"


def model_failure(what: str, exc: ModelError | prompts.AnswerError) -> ToolFailure:
    if isinstance(exc, ModelError):
        return ToolFailure(f"{what}: {exc.message}.", {"code": exc.code})
    return ToolFailure(f"{what}: {exc}.", {"code": "MODEL_ERROR"})


# ----------------------------------------------------------------- locating


@dataclass(frozen=True)
class Located:
    """The element a description meant: found by the scorer (``confidence``) or named by the model."""

    row: Row
    by: Literal["page", "model"]
    confidence: float | None = None
    reason: str = ""

    def summary(self) -> dict[str, Any]:
        found: dict[str, Any] = {"ref": self.row.ref, "role": self.row.role, "name": untrusted.line(self.row.name)}
        if self.by == "page":
            found["confidence"] = self.confidence
        else:
            found["by"] = "model"
        return found


async def locate(ctx: ToolContext, description: str, purpose: locating.Purpose) -> Located:
    """The element a description means, or a failure listing the candidates (ELEMENT_AMBIGUOUS,
    ELEMENT_NOT_FOUND) the model can pick from by ref."""
    view = await read_page(ctx)
    decision = locating.decide(view, description, purpose)
    if decision.outcome == "found" and decision.best is not None:
        return Located(decision.best.row, "page", decision.confidence)
    note = ""
    if ctx.settings.nl_model_configured and decision.description.ref is None:
        try:
            answer = await ask_model(ctx, prompts.locate_question(description, decision.candidates), view)
            ref, reason = prompts.read_locate(answer, view)
        except ModelError as exc:
            note = f" The model could not help: {exc.message}."
        except prompts.AnswerError as exc:
            note = f" The model's answer could not be used: {exc}."
        else:
            row = view.by_ref(ref) if ref is not None else None
            if row is not None:
                return Located(row, "model", reason=reason)
            note = " The model found no such element either" + (f" ({reason})." if reason else ".")
    raise locate_failure(description, decision, note)


def locate_failure(description: str, decision: locating.Decision, note: str = "") -> ToolFailure:
    shown = [c.shown() for c in decision.candidates]
    listed = "; ".join(
        f"{c.row.describe()}" + (f" in {c.row.context!r}" if c.row.context else "") for c in decision.candidates
    )
    if decision.outcome == "ambiguous":
        message = (
            f'"{description}" does not pick out one element ({decision.why}): {listed}. Call again with locate set to '
            'the ref of the one you mean (e.g. "' + decision.candidates[0].row.ref + '"), or say which one '
            '("the second …", "… in the row of X").' + note
        )
        return ToolFailure(message, {"code": "ELEMENT_AMBIGUOUS", "candidates": shown, "note": untrusted.NOTE})
    closest = f" Closest: {listed}." if listed else ""
    message = f'No element fits "{description}": {decision.why}.{closest}{note} {NEXT_STEP}'
    data: dict[str, Any] = {"code": "ELEMENT_NOT_FOUND"}
    if shown:
        data.update(candidates=shown, note=untrusted.NOTE)
    return ToolFailure(message, data)


def check_not_destructive(ctx: ToolContext, located: Located, description: str) -> None:
    """With ``confirm_destructive`` on, a description that did not say "delete" (so the user was not
    asked) must not land on a Delete button: the model is sent to ``interact``, which asks first."""
    if not ctx.settings.confirm_destructive:
        return
    name = located.row.name
    if DESTRUCTIVE_WORDS.search(name) and not DESTRUCTIVE_WORDS.search(description):
        raise ToolFailure(
            f'"{description}" is {located.row.describe()}, a destructive control the user has not confirmed. '
            f"Call interact with ref={located.row.ref} and the action, so the user is asked to confirm it.",
            {"code": "CONFIRMATION_NEEDED", "ref": located.row.ref},
        )


# ----------------------------------------------------------------- assertions


@dataclass(frozen=True)
class Checked:
    passed: bool | None  # None: the model could not say (it timed out)
    evidence: str
    source: Literal["page", "model"]


async def check_assertion(ctx: ToolContext, assertion: str, *, model_timeout: float | None = None) -> Checked:
    """An assertion checked on the page as it is now: from the page when it says it plainly, else by
    the model. Raises ToolFailure for a model that answers nonsense; a model that times out is
    ``passed=None`` (the caller may try again)."""
    view = await read_page(ctx)
    verdict = checks.check(view, assertion)
    if verdict.status != "unknown":
        return Checked(verdict.passed, verdict.evidence, "page")
    if not ctx.settings.nl_model_configured:
        raise ToolFailure(
            f'"{assertion}" cannot be checked from the page text alone, and no model is configured.',
            {"code": "MODEL_ERROR"},
        )
    try:
        answer = await asyncio.wait_for(ask_model(ctx, prompts.assertion_question(assertion), view), model_timeout)
        passed, reason = prompts.read_assertion(answer)
    except TimeoutError:
        return Checked(None, "the model did not answer in time", "model")
    except ModelError as exc:
        if exc.code == "MODEL_TIMEOUT":
            return Checked(None, exc.message, "model")
        raise model_failure("Checking the assertion failed", exc) from None
    except prompts.AnswerError as exc:
        raise model_failure("Checking the assertion failed", exc) from None
    return Checked(passed, reason, "model")


# ----------------------------------------------------------------- scrolling


ScrollDirection = Literal["up", "down", "left", "right"]
UNTIL = {"untilBottom": "down", "untilTop": "up", "untilLeft": "left", "untilRight": "right"}


async def scroll(
    ctx: ToolContext,
    direction: ScrollDirection,
    scroll_type: str = "once",
    distance: int | None = None,
    ref: str | None = None,
) -> dict[str, Any]:
    """Scroll the page (or the element ``ref`` scrolls in) once, or until it stops moving."""
    tab_id = focused_tab_id(ctx)
    until = scroll_type != "once"
    if until:
        direction = UNTIL[scroll_type]  # type: ignore[assignment]
    action: dict[str, Any] = {"action": "scroll", "direction": direction, "timeoutMs": ctx.settings.action_timeout_ms}
    if ref is not None:
        action["target"] = {"ref": ref}
    if until:
        action["amount"] = SCROLL_STEP_PX
    elif distance is not None:
        action["amount"] = distance
    where = ref or "the page"
    position: dict[str, Any] | None = None
    rounds = 0
    try:
        while True:
            rounds += 1
            done = await ctx.runtime.driver.act(tab_id, action)
            now = done.get("scroll")
            if not until or now is None or now == position or rounds >= SCROLL_ROUNDS:
                position = now if now is not None else position
                break
            position = now
            await asyncio.sleep(SCROLL_SETTLE_S)  # more content may load at the end (an infinite list)
    except DriverError as exc:
        raise page_failure(f"scroll {direction} in {where}", exc) from None
    await ctx.runtime.page_changed()
    result: dict[str, Any] = {"scrolled": f"{scroll_type if until else direction} in {where}"}
    if position is not None:
        result["position"] = {"x": round(position.get("x", 0)), "y": round(position.get("y", 0))}
    if until:
        result["reachedEnd"] = rounds < SCROLL_ROUNDS
    return result


# ----------------------------------------------------------------- waiting


async def wait_until(ctx: ToolContext, assertion: str, timeout_ms: int, interval_ms: int) -> str:
    """Check until the assertion holds; the source of the passing check. TIMEOUT when it never does:
    the model's own answers are bounded by the time left, so the wait never overruns by a model call."""
    deadline = time.monotonic() + timeout_ms / 1000
    checks = 0
    last = ""
    while True:
        checks += 1
        left = deadline - time.monotonic()
        checked = await check_assertion(ctx, assertion, model_timeout=max(0.1, left))
        await ctx.progress.step(f"check {checks}: {'met' if checked.passed else 'not yet'}")
        if checked.passed:
            return checked.source
        last = checked.evidence
        left = deadline - time.monotonic()
        if left <= 0:
            break
        await asyncio.sleep(min(interval_ms / 1000, left))  # then one more check, at the deadline at the latest
    shown = untrusted.line(last, untrusted.MAX_TITLE * 2)
    raise ToolFailure(
        f"Timed out after {timeout_ms} ms ({checks} checks) waiting for: {assertion}. Last check: {shown}",
        {"code": "TIMEOUT", "checks": checks, "note": untrusted.NOTE},
    )
