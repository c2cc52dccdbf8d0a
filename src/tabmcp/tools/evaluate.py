"""Running JavaScript in the page: only when the settings switch it on (``TABMCP_ENABLE_EVALUATE``).

Arbitrary code in a logged-in browser is the most dangerous thing a model can be handed, so the
tool does not exist (is absent from ``tools/list``) unless the user asked for it.
"""

from __future__ import annotations

import json

from pydantic import Field

from tabmcp import state as s
from tabmcp.drivers.base import DriverError
from tabmcp.tools.base import Args, Text, ToolContext, tool
from tabmcp.tools.targets import focused_tab_id, page_failure

MAX_RESULT_CHARS = 20_000
EVALUATE_TIMEOUT_MS = 10_000


class EvaluateArgs(Args):
    expression: str = Field(description="JavaScript expression or IIFE; a promise is awaited; result as JSON")


@tool(title="Run JavaScript", available_in={s.Mode.FOCUSED}, destructive=True, requires="enable_evaluate")
async def evaluate(ctx: ToolContext, args: EvaluateArgs) -> Text:
    """Evaluate JavaScript in the focused page's main frame and return the JSON-serialisable result."""
    tab_id = focused_tab_id(ctx)
    try:
        got = await ctx.runtime.driver.evaluate(tab_id, args.expression, EVALUATE_TIMEOUT_MS)
    except DriverError as exc:
        raise page_failure("evaluate", exc) from None
    await ctx.runtime.page_changed()
    text = json.dumps(got.get("json"), ensure_ascii=False) if "json" in got else "undefined"
    if len(text) > MAX_RESULT_CHARS:
        text = text[:MAX_RESULT_CHARS] + f"… (cut at {MAX_RESULT_CHARS} of {len(text)} chars)"
    return Text(f"type: {got.get('type', 'undefined')}\nvalue: {text}")
