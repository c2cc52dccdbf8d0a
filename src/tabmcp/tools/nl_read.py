"""Natural-language reading (docs/nl-tools.md): data, facts and waits described in plain words.

``ai_query`` answers a data shape, ``ai_assert`` checks a fact, ``ai_wait_for`` waits until one
holds. Each reads the page first (tables, lists, text, element states: ``nl/query.py``,
``nl/check.py``) and asks the configured model only when the page does not say it plainly; the
answer says which (``source``). These tools are listed only when a model is configured.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import Field

from tabmcp import state as s
from tabmcp.guard import untrusted
from tabmcp.nl import prompts
from tabmcp.nl import query as queries
from tabmcp.nl.model import ModelError
from tabmcp.tools.base import Args, ToolContext, ToolFailure, tool
from tabmcp.tools.nl_common import NL_MODEL, ask_model, check_assertion, model_failure, read_page, wait_until

FOCUSED = {s.Mode.FOCUSED}
MAX_WAIT_MS = 120_000


class QueryArgs(Args):
    data_shape: str = Field(
        alias="dataShape",
        min_length=1,
        max_length=2000,
        description='Type, then what to read: "string[], task names", "{name: string, price: number}[], products"',
    )


@tool(title="AI query", available_in=FOCUSED, requires=NL_MODEL, read_only=True, idempotent=True)
async def ai_query(ctx: ToolContext, args: QueryArgs) -> dict[str, Any]:
    """Extract data from the page in the shape described (TypeScript-like type, then what to read).
    Tables and lists are read directly; the model is asked for the rest."""
    shape, description = queries.parse_shape(args.data_shape)
    view = await read_page(ctx)
    found = queries.answer(view, shape, description)
    if found is not None:
        return {"data": untrusted.bounded(found.data), "source": "page", "from": found.source, "note": untrusted.NOTE}
    try:
        answer = await ask_model(ctx, prompts.query_question(shape, description), view)
        data = prompts.read_query(answer, shape)
    except (ModelError, prompts.AnswerError) as exc:
        raise model_failure("Reading the data failed", exc) from None
    return {"data": untrusted.bounded(data), "source": "model", "note": untrusted.NOTE}


class AssertArgs(Args):
    assertion: str = Field(
        min_length=1, max_length=2000, description='A fact about the page, e.g. "the price of the Onesie is 7.99"'
    )
    error_msg: str | None = Field(None, alias="errorMsg", max_length=500, description="Prefix for the failure message")


@tool(title="AI assert", available_in=FOCUSED, requires=NL_MODEL, read_only=True, idempotent=True)
async def ai_assert(ctx: ToolContext, args: AssertArgs) -> dict[str, Any]:
    """Check that a fact described in plain words holds on the page; an error (with what the page
    shows) if it does not. Plain text facts are checked directly; the model judges the rest."""
    checked = await check_assertion(ctx, args.assertion)
    if checked.passed is None:
        raise ToolFailure(f"Checking the assertion failed: {checked.evidence}.", {"code": "MODEL_TIMEOUT"})
    evidence = untrusted.line(checked.evidence, untrusted.MAX_TITLE * 2)
    if not checked.passed:
        prefix = f"{args.error_msg}: " if args.error_msg else ""
        raise ToolFailure(
            f"{prefix}Assertion failed: {args.assertion}. The page shows: {evidence}",
            {"code": "ASSERTION_FAILED", "source": checked.source, "pageShows": evidence, "note": untrusted.NOTE},
        )
    return {"passed": True, "source": checked.source, "evidence": evidence, "note": untrusted.NOTE}


class WaitForArgs(Args):
    assertion: str = Field(
        min_length=1, max_length=2000, description='The condition, e.g. "the results table is visible"'
    )
    timeout_ms: int = Field(15_000, alias="timeoutMs", ge=100, le=MAX_WAIT_MS, description="Give up after this long")
    check_interval_ms: int = Field(1_000, alias="checkIntervalMs", ge=100, le=60_000, description="Time between checks")


@tool(title="AI wait for", available_in=FOCUSED, requires=NL_MODEL, read_only=True)
async def ai_wait_for(ctx: ToolContext, args: WaitForArgs) -> dict[str, Any]:
    """Wait until a condition described in plain words holds on the page (checked every
    checkIntervalMs); a TIMEOUT error with what the page last showed if it never does."""
    started = time.monotonic()
    met = await wait_until(ctx, args.assertion, args.timeout_ms, args.check_interval_ms)
    return {"met": args.assertion, "afterMs": round((time.monotonic() - started) * 1000), "source": met}
