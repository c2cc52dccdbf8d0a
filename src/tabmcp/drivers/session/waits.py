"""Waiting for a condition on a page: text shown or gone, an element's state, or a fixed time."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from tabmcp import protocol as p
from tabmcp.drivers.base import DriverError
from tabmcp.drivers.session.frames import agent_ok, stale_ref
from tabmcp.drivers.session.limits import POLL_S
from tabmcp.echo import quote

if TYPE_CHECKING:
    from tabmcp.drivers.session.core import SessionCore

EVERY_FRAME_STATES = {"hidden", "detached"}  # met only when met in every frame


async def wait_for(session: SessionCore, tab_id: int, frame: p.WaitFor) -> dict[str, Any]:
    started = time.monotonic()
    if frame.timeMs is not None:
        await asyncio.sleep(frame.timeMs / 1000)
        await session.host.tab_url(tab_id)  # NO_TAB when it closed meanwhile
        return {"met": True, "elapsedMs": round((time.monotonic() - started) * 1000)}
    if frame.target is not None:
        target = frame.target.model_dump(exclude_none=True)
        probe: dict[str, Any] = {"target": target, "state": frame.state or "visible"}
    else:
        key = "text" if frame.text is not None else "textGone"
        probe = {key: getattr(frame, key)}
    elapsed = await poll_condition(session, tab_id, probe, frame.timeoutMs)
    return {"met": True, "elapsedMs": elapsed}


def describe_probe(probe: dict[str, Any]) -> str:
    if probe.get("target") is not None:
        target = probe["target"]
        shown = target.get("ref") or (
            f"css {quote(target['css'])}" if target.get("css") else f"role {quote(target.get('role'))}"
        )
        return f"{shown} to be {probe['state']}"
    if probe.get("text") is not None:
        return f"text {quote(probe['text'])}"
    return f"text {quote(probe['textGone'])} to go"


async def poll_condition(
    session: SessionCore, tab_id: int, probe: dict[str, Any], timeout_ms: int, fail_css: str | None = None
) -> int:
    """Polls ``probe`` every POLL_S until met (the ms it took) or TIMEOUT saying what was last seen.
    ``fail_css`` (a plan step's failWhen) is read first in each round: its text, once shown, is the
    step's PAGE_ERROR."""
    started = time.monotonic()
    describe = describe_probe(probe)
    while True:
        shown = await page_error_shown(session, tab_id, fail_css) if fail_css else ""
        if shown:
            raise DriverError(p.ErrorCode.PAGE_ERROR, shown)
        met, detail = await probe_tab(session, tab_id, probe)
        elapsed = (time.monotonic() - started) * 1000
        if met:
            return round(elapsed)
        if elapsed >= timeout_ms:
            raise DriverError(
                p.ErrorCode.TIMEOUT, f"Waited {timeout_ms} ms for {describe}{f': {detail}' if detail else ''}"
            )
        await asyncio.sleep(min(POLL_S, (timeout_ms - elapsed) / 1000))


async def page_error_shown(session: SessionCore, tab_id: int, css: str) -> str:
    """The visible text of the first visible match of ``css`` in the top document, or ""."""
    try:
        answer = await session.tab(tab_id).agent.call("extract", {"css": css, "limit": 1})
    except DriverError as exc:
        if exc.code == p.ErrorCode.NO_TAB:
            raise
        return ""  # between documents: the next round reads again
    if answer.get("ok") is False and answer.get("code") == p.ErrorCode.BAD_MESSAGE:
        agent_ok(answer, "extract")  # a bad selector
    items = answer.get("items") if answer.get("ok") else None
    first = items[0] if isinstance(items, list) and items else ""
    return first.strip() if isinstance(first, str) else ""


async def probe_tab(session: SessionCore, tab_id: int, probe: dict[str, Any]) -> tuple[bool, str]:
    """Whether the probe is met now (in any frame; in every frame for a state of absence), and what was seen."""
    agent = session.tab(tab_id).agent
    gone = probe.get("textGone") is not None or probe.get("state") in EVERY_FRAME_STATES
    frames = None
    arg = probe
    target = probe.get("target")
    if target is not None and target.get("ref") is not None:
        try:
            frame, agent_target = agent.parse_ref(target["ref"])
        except DriverError as exc:
            if exc.code == p.ErrorCode.STALE_REF and gone:
                return True, ""
            raise
        frames = [frame]
        arg = {**probe, "target": agent_target}
    try:
        answers = await agent.call_all("probe", arg, frames)
    except DriverError as exc:
        if exc.code in (p.ErrorCode.NO_TAB, p.ErrorCode.FRAME_TOO_LARGE):  # no later round would do better
            raise
        return False, f"the page cannot be read right now ({exc.message})"
    if frames is not None and not answers:
        live = {f.frame_id for f in await session.host.frames(tab_id)}
        if frames[0] not in live:
            if gone:
                return True, ""
            raise stale_ref(target["ref"], "its frame is gone")
    if not answers:
        return False, "no frame answered (the page is loading)"
    any_met, all_met, detail = False, True, ""
    for answer in answers.values():
        if isinstance(answer, dict) and answer.get("ok") is False:
            code = answer.get("code")
            if code == "STALE_REF" and gone:
                met = True
            elif code in ("STALE_REF", "ELEMENT_AMBIGUOUS", "BAD_MESSAGE"):
                agent_ok(answer, "probe")
                met = False
            else:
                met = False
            if not met:
                detail = str(answer.get("message") or detail)
        elif isinstance(answer, dict) and answer.get("__error"):
            agent_ok(answer, "probe")
            met = False
        else:
            met = isinstance(answer, dict) and answer.get("met") is True
            if not met and isinstance(answer, dict) and answer.get("detail"):
                detail = str(answer["detail"])
        any_met = any_met or met
        all_met = all_met and met
    return (all_met if gone else any_met), detail
