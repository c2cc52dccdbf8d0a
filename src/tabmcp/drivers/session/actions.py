"""An action on a page (interact), what follows it, and its trusted form (real input events)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tabmcp import protocol as p
from tabmcp.drivers.base import DriverError
from tabmcp.drivers.host import MAIN_FRAME
from tabmcp.drivers.session.frames import Resolved
from tabmcp.drivers.session.keys import mouse_click, mouse_move, parse_key_combo, press_key
from tabmcp.drivers.session.limits import (
    DEFAULT_ACT_TIMEOUT_MS,
    NAVIGATION_GRACE_S,
    NAVIGATION_START_S,
    NAVIGATION_TIMEOUT_S,
    WENT_AWAY_S,
)
from tabmcp.drivers.session.navigation import NavigationWatcher, first_start, navigated_meanwhile, navigation_error

if TYPE_CHECKING:
    from tabmcp.drivers.session.core import SessionCore

# Actions with a trusted form; select, scroll and submit have no input-event semantics to fake.
TRUSTED_ACTIONS = {"click", "dblclick", "hover", "fill", "type", "clear", "press", "check", "uncheck"}
# Trusted actions that may navigate (no agent watches the Navigation API for them).
TRUSTED_NAVIGATING = {"click", "dblclick", "press", "check", "uncheck"}


async def act(session: SessionCore, tab_id: int, frame: p.Act) -> dict[str, Any]:
    if frame.action == "press" and frame.trusted:
        parse_key_combo(frame.key or "")  # refused before anything happens
    action = frame.model_dump(exclude_none=True, exclude={"type", "id", "tabId", "waitUntil"})
    target = frame.target.model_dump(exclude_none=True) if frame.target is not None else None
    agent = session.tab(tab_id).agent
    if target is not None:
        resolved = await agent.resolve(target)
    else:
        where = await agent.focused_frame() if frame.action == "press" else MAIN_FRAME
        resolved = Resolved(where, None, "the page")
    # listening before the action, so a navigation it starts cannot be missed
    top = session.watch(tab_id)
    in_frame = session.watch(tab_id, resolved.frame) if resolved.frame != MAIN_FRAME else None
    since = time.monotonic()
    try:
        try:
            answer = None
            if frame.trusted and frame.action in TRUSTED_ACTIONS:
                answer = await trusted_act(session, tab_id, resolved, action, auto=frame.trusted == "auto")
            if answer is None:
                agent_action = {k: v for k, v in action.items() if k not in ("trusted", "target")}
                if resolved.target is not None:
                    agent_action["target"] = resolved.target
                stale = target.get("ref") if target else None
                answer = await agent.call_frame(resolved.frame, "act", agent_action, stale)
        except DriverError as exc:
            # the action itself navigated the frame before the agent could answer: that is success
            went = exc.code == p.ErrorCode.NOT_SCRIPTABLE
            if not went or not await navigated_meanwhile([top, in_frame], WENT_AWAY_S):
                raise
            answer = {"ok": True, "dialogs": []}
        navigated = await settle_action(session, answer, top, in_frame, frame.waitUntil, frame)
        await session.popups_settled(tab_id, since)
    finally:
        session.unwatch(top)
        session.unwatch(in_frame)
    # the top frame's agent says where its page is after an action that did not navigate
    here = not navigated and resolved.frame == MAIN_FRAME and isinstance(answer.get("url"), str)
    if here and isinstance(answer.get("title"), str):
        url, title = answer["url"], answer["title"]
    else:
        url, title, _ = await session.host.tab_url(tab_id)
    dialogs = answer.get("dialogs") if isinstance(answer.get("dialogs"), list) else []
    done = {
        "navigated": navigated,
        "url": url,
        "title": title,
        "dialogs": dialogs,
        "sensitive": answer.get("sensitive") is True,  # a password field (docs/security.md, Audit log)
    }
    if here and isinstance(answer.get("version"), str):
        done["version"] = answer["version"]  # the page's version after the action (docs/protocol.md)
    if isinstance(answer.get("scroll"), dict):  # scroll: where the page (or the element) is now
        done["scroll"] = answer["scroll"]
    return done


async def settle_action(
    session: SessionCore,
    answer: Mapping[str, Any],
    top: NavigationWatcher,
    in_frame: NavigationWatcher | None,
    wait_until: str,
    frame: p.Act,
) -> bool:
    """After an action: when the agent reports a navigation (or the browser shows one starting), wait
    for it to reach ``wait_until``. A same-document navigation is done already; an action that did not
    navigate returns at once. Trusted input has no agent watching the Navigation API, so for the
    actions that may navigate the browser gets a short grace period to report a start."""
    reported = answer.get("navigation") if isinstance(answer.get("navigation"), dict) else None
    if reported and reported.get("sameDocument"):
        return True
    if not reported and frame.trusted and frame.action in TRUSTED_NAVIGATING:
        await first_start([top, in_frame], NAVIGATION_GRACE_S)
    if not reported and not top.started and not (in_frame and in_frame.started):
        return False
    watcher = top
    if in_frame is not None and not top.started:
        if not in_frame.started:
            await first_start([top, in_frame], NAVIGATION_START_S)
        if not top.started:
            watcher = in_frame
    elif not top.started:
        await top.wait_for_start(NAVIGATION_START_S)
    if not watcher.started:
        return False  # announced, then cancelled (the navigate event prevented)
    what = reported.get("url") if reported and reported.get("url") else "the next page"
    await await_navigation(session, watcher, wait_until, NAVIGATION_TIMEOUT_S, what)
    return True


async def await_navigation(
    session: SessionCore, watcher: NavigationWatcher, wait_until: str, seconds: float, what: str
) -> None:
    """Until the followed navigation reaches ``wait_until`` (a navigation not started yet must start in
    that time too): NAVIGATION_FAILED / NAVIGATION_BLOCKED, NO_TAB (the tab closed) or TIMEOUT."""
    deadline = time.monotonic() + seconds
    reached = await watcher.wait(lambda: watcher.reached(wait_until), seconds)
    outcome = watcher.outcome
    if outcome is not None and outcome.kind == "error":
        raise navigation_error(outcome, what, session.policy)
    if outcome is not None and outcome.kind == "removed" and watcher.frame_id == MAIN_FRAME:
        raise DriverError(p.ErrorCode.NO_TAB, f"The tab closed while {what} loaded")
    if not reached:
        state = "started but did not reach" if watcher.started else "did not start, or did not reach"
        raise DriverError(
            p.ErrorCode.TIMEOUT, f'The navigation to {what} {state} "{wait_until}" within {seconds * 1000:.0f} ms'
        )
    if wait_until == "networkidle" and not watcher.same_document and watcher.tab_id is not None:
        network = session.tab(watcher.tab_id).network
        if not await network.idle(deadline):
            raise DriverError(
                p.ErrorCode.TIMEOUT,
                f"{what} loaded, but the network was not idle for 500 ms within {seconds * 1000:.0f} ms "
                f"({len(network.requests)} requests in flight)",
            )


async def trusted_act(
    session: SessionCore, tab_id: int, resolved: Resolved, action: Mapping[str, Any], auto: bool = False
) -> dict[str, Any] | None:
    """Real input events (CDP ``Input.*``) at the point the agent gives; answers like the agent's act
    (without navigation). ``auto`` (trusted by default, not asked for): None for a fill, clear or type on a
    field typed text does not set (a date, number or range input), which the agent's act sets instead."""
    name = action["action"]
    since = time.monotonic()
    state = session.tab(tab_id)
    agent = state.agent
    sensitive = False  # filled a password field: the server keeps the text out of its audit log

    async def send(method: str, params: Mapping[str, Any]) -> Any:
        return await session.host.cdp(tab_id, method, params)

    async def point(checks: str = name) -> tuple[float, float, bool, bool]:
        """The target's actionable centre in the tab's viewport, after the agent's checks for ``checks``;
        the agent also takes the dialog policy, which then answers dialogs the input opens."""
        arg: dict[str, Any] = {
            "target": resolved.target,
            "action": checks,
            "timeoutMs": action.get("timeoutMs", DEFAULT_ACT_TIMEOUT_MS),
        }
        for key in ("dialog", "promptText"):
            if key in action:
                arg[key] = action[key]
        answer = await agent.call_frame(resolved.frame, "point", arg, resolved.label)
        x, y = await agent.point_in_tab(resolved.frame, float(answer["x"]), float(answer["y"]))
        return x, y, answer.get("sensitive") is True, answer.get("textEntry") is not False

    async def probe(state_name: str) -> bool:
        arg = {"target": resolved.target, "state": state_name}
        return (await agent.call_frame(resolved.frame, "probe", arg, resolved.label)).get("met") is True

    if name in ("check", "uncheck"):
        want = name == "check"
        if await probe("checked") != want:
            x, y, _, _ = await point()
            await mouse_click(send, x, y)
            if await probe("checked") != want:
                raise DriverError(
                    p.ErrorCode.ELEMENT_NOT_INTERACTABLE,
                    f"{resolved.label} is still {'unchecked' if want else 'checked'} after the click",
                )
    elif name == "press":
        if resolved.target is not None and not await probe("focused"):
            x, y, _, _ = await point("click")  # focus it the way a user would
            await mouse_click(send, x, y)
        await press_key(send, action["key"])
    else:
        x, y, sensitive, text_entry = await point()
        if auto and not text_entry:
            return None
        if name == "hover":
            await mouse_move(send, x, y)
        else:
            await mouse_click(send, x, y, 2 if name == "dblclick" else 1)
            if name in ("fill", "clear"):
                await press_key(send, "Control+A")
                if name == "fill" and action.get("text"):
                    await send("Input.insertText", {"text": action["text"]})
                else:
                    await press_key(send, "Delete")
            elif name == "type":
                await press_key(send, "Control+End")  # the end of the text, not of the caret's line
                if action.get("text"):
                    await send("Input.insertText", {"text": action["text"]})
    # the agent reports dialogs while the page handles the input; one round trip to the frame lets
    # those reports arrive before they are read
    with contextlib.suppress(DriverError):
        await session.host.flush_reports(tab_id, resolved.frame)
    return {"ok": True, "dialogs": state.dialogs_since(since), "sensitive": sensitive}
