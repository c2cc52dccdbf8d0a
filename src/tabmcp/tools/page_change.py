"""The one path after a call that may change the focused page (navigate, interact, a page tool).

In this order: a navigation the browser blocked is the failing call's to report; where the page
ended must be allowed too; the page's tools are read again, so the client hears of a change the
call caused with its answer; and ``dom://current-page`` subscribers are told to re-read.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from tabmcp.drivers.base import DriverError
from tabmcp.tools.base import ToolContext, ToolFailure

Answer = TypeVar("Answer")


async def page_changing_call(
    ctx: ToolContext,
    tab_id: int,
    call: Awaitable[Answer],
    landed_at: Callable[[Answer], str | None],
    *,
    reading_tools: str | None = None,
    version_of: Callable[[Answer], str | None] | None = None,
) -> Answer:
    """Run a driver call that may change the page of ``tab_id``, then follow it up. ``landed_at``: the
    URL the call's answer says the tab ended at (None: it did not navigate, nothing to check).
    ``reading_tools``: a progress step told to the client before the page's tools are read.
    ``version_of``: the page version the answer says the page is at (None: unknown); when the tools
    listed were made from it, the page is not read again.

    A ``DriverError`` is raised again, for the tool to say in its own words, once a navigation the
    browser blocked is noted as reported; a landing the policy refuses fails the call
    (``ToolFailure``, the tab sent to about:blank)."""
    began = ctx.runtime.policy_mark()
    try:
        answer = await call
    except DriverError as exc:
        note_blocked(ctx, tab_id, exc)
        raise
    url = landed_at(answer)
    if url is not None:
        await check_landing(ctx, tab_id, url, began)
    if not ctx.runtime.tools_current(tab_id, version_of(answer) if version_of is not None else None):
        if reading_tools is not None:
            await ctx.progress.step(reading_tools)
        await ctx.runtime.refresh_page_tools(tab_id)
    await ctx.runtime.page_changed()
    return answer


def note_blocked(ctx: ToolContext, tab_id: int, exc: DriverError) -> None:
    """A navigation the browser blocked (``NAVIGATION_BLOCKED``) is the failing tool's to report: the
    browser's own event about it adds no second note to the next result."""
    if str(exc.code) == "NAVIGATION_BLOCKED":
        ctx.runtime.blocked_reported(tab_id)


async def check_landing(ctx: ToolContext, tab_id: int, url: str, began: int) -> None:
    """Where a navigation ended must be allowed too: back/forward (the back/forward cache asks no
    server), a page served by its service worker. A tab at a refused page is sent to about:blank and
    the call fails saying why. ``began``: the policy mark taken as the call began."""
    verdict = ctx.policy.check(url) if url else None
    if verdict is not None and not verdict.allowed:
        await ctx.runtime.stop_tab(tab_id, url, verdict, by_tool=True)
        reason: str | None = verdict.reason
    else:
        # the runtime may have seen the refused landing first (the tab's load event came during the
        # call) and sent the tab away already: the call reports it all the same
        reason = ctx.runtime.take_stop(tab_id, began)
    if reason is not None:
        raise ToolFailure(f"{reason} tabmcp sent the tab to about:blank.", {"code": "NAVIGATION_BLOCKED"})
