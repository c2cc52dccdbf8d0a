"""A page tool's plan: its steps in order, each the agent's own action, wait, extract, navigation or
WebMCP call; between steps a navigation a step started is waited for, and the answer ends with the
page summary the agent writes (docs/protocol.md, Step)."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from tabmcp import protocol as p
from tabmcp.drivers.base import DriverError
from tabmcp.drivers.host import MAIN_FRAME
from tabmcp.drivers.session.frames import agent_ok
from tabmcp.drivers.session.limits import (
    NAVIGATION_GRACE_S,
    NAVIGATION_START_S,
    NAVIGATION_TIMEOUT_MS,
    NAVIGATION_TIMEOUT_S,
    STEP_TIMEOUT_MS,
    SUMMARY_NETWORK_S,
    UNWATCH_S,
    WAIT_TIMEOUT_MS,
    WEBMCP_TIMEOUT_MS,
    WENT_AWAY_S,
)
from tabmcp.drivers.session.navigation import NavigationWatcher, navigated_meanwhile, navigation_error
from tabmcp.drivers.session.tabs import navigate
from tabmcp.drivers.session.waits import poll_condition

if TYPE_CHECKING:
    from tabmcp.drivers.session.core import SessionCore

log = logging.getLogger(__name__)
# Actions that may start a navigation, which the agent schedules on a timer after returning.
NAVIGATING_ACTIONS = {"click", "submit", "press"}
MAX_BROWSE_MOVES = 6  # page size, sort (twice for the other order), then the page by a link


@dataclass
class Run:
    tab_id: int
    watcher: NavigationWatcher  # reset before each step
    has_extract: bool
    started_at: float = field(default_factory=time.monotonic)
    start_url: str = ""
    watch_token: str | None = None
    extracted: dict[str, Any] | None = None
    webmcp: Any = ...  # ... until a webmcp step ran
    skip: int = 0  # rows of the main list a browse step's "Load more" had shown before the page asked for
    actions: list[str] = field(default_factory=list)  # of the plan's steps, in order


async def run_plan(session: SessionCore, tab_id: int, steps: list[p.Step]) -> dict[str, Any]:
    await session.wait_while_loading(tab_id)
    actions = [s.action for s in steps]
    run = Run(tab_id, session.watch(tab_id), any(a in ("extract", "results") for a in actions), actions=actions)
    try:
        run.watch_token = await _start_watch(session, tab_id)
        if run.watch_token is None:  # the summary will tell a navigation by the URL
            run.start_url = (await session.host.tab_url(tab_id))[0]
        outcomes = []
        for index, step in enumerate(steps):
            run.watcher.reset()
            outcome = await _run_step(session, step, index, run)
            outcomes.append({"action": step.action, "ok": True})
            await _settle(session, run.watcher, step, index, index == len(steps) - 1, outcome)
        page = await _summary(session, run)
        version = page.pop("version", None)
        result: dict[str, Any] = {"steps": outcomes, "page": page}
        if version is not None:
            result["version"] = version
        if run.extracted:
            result["extracted"] = run.extracted
        if run.webmcp is not ...:
            result["webmcp"] = run.webmcp
        return result
    except BaseException:
        if run.watch_token:
            await _unwatch(session, tab_id, run.watch_token)
        raise
    finally:
        session.unwatch(run.watcher)


async def _start_watch(session: SessionCore, tab_id: int) -> str | None:
    try:
        answer = await session.tab(tab_id).agent.call("watchChanges")
    except DriverError as exc:
        if exc.code == p.ErrorCode.NO_TAB:
            raise
        log.debug("watchChanges failed: %s", exc.message)  # about:blank, an error page: the summary does without
        return None
    token = answer.get("token")
    return token if isinstance(token, str) else None


async def _unwatch(session: SessionCore, tab_id: int, token: str) -> None:
    """Ends the watch of a plan that failed. Best effort: a page that went away took the watch with it."""
    try:
        await asyncio.wait_for(session.host.call_agent(tab_id, [MAIN_FRAME], "unwatch", {"token": token}), UNWATCH_S)
    except (DriverError, TimeoutError) as exc:
        log.debug("unwatch failed: %s", exc)


async def _summary(session: SessionCore, run: Run) -> dict[str, Any]:
    """Read once the requests the plan started have come back (bounded), so that results a search
    fetches are in it. A page that cannot be scripted still gets its URL and title."""
    await session.tab(run.tab_id).network.fetches_done(run.started_at, SUMMARY_NETWORK_S)
    try:
        request = {"token": run.watch_token, "results": not run.has_extract}
        if run.skip:
            request["skip"] = run.skip
        page = await session.tab(run.tab_id).agent.call("summary", request)
    except DriverError as exc:
        if exc.code == p.ErrorCode.NO_TAB:
            raise
        url, title, _ = await session.host.tab_url(run.tab_id)
        return {"url": url, "title": title, "navigated": url != run.start_url, "text": ""}
    url = page.get("url") if isinstance(page.get("url"), str) else ""
    # without a token (the start page could not be scripted) a different URL is the best guess
    navigated = page.get("navigated") is True if run.watch_token else url != run.start_url
    summary: dict[str, Any] = {
        "url": url,
        "title": page.get("title") if isinstance(page.get("title"), str) else "",
        "navigated": navigated,
    }
    if isinstance(page.get("changed"), str) and page["changed"]:
        summary["changed"] = page["changed"]
    summary["text"] = page.get("text") if isinstance(page.get("text"), str) else ""
    for key in ("results", "status", "errors", "editors", "frames"):
        if isinstance(page.get(key), list) and page[key]:
            summary[key] = page[key]
    if isinstance(page.get("pages"), dict):
        summary["pages"] = page["pages"]
    if not navigated and isinstance(page.get("version"), str):
        summary["version"] = page["version"]  # taken out by run_plan: the answer's, not the page's
    return summary


async def _settle(
    session: SessionCore, watcher: NavigationWatcher, step: p.Step, index: int, is_last: bool, outcome: dict[str, Any]
) -> None:
    """Let a navigation the step started finish before the next step (which must run in the new
    document) or the summary. An agent watching the Navigation API says whether the step navigated;
    otherwise, after the last step and after a step that may navigate, the browser gets a short grace
    period to report a start."""
    if "navigation" in outcome or isinstance(outcome.get("dialogs"), list):
        navigation = outcome.get("navigation")
        if isinstance(navigation, dict) and not navigation.get("sameDocument"):
            await watcher.wait_for_start(NAVIGATION_START_S)
    elif is_last or step.action in NAVIGATING_ACTIONS:
        await watcher.wait_for_start(NAVIGATION_GRACE_S)
    if watcher.started and not watcher.same_document:
        await watcher.wait_for_outcome(NAVIGATION_TIMEOUT_S)
    if watcher.outcome is not None and watcher.outcome.kind == "error":
        error = navigation_error(watcher.outcome, "the page", session.policy)
        raise DriverError(error.code, f"step {index + 1} ({step.action}): {error.message}")


def _action_for(step: p.Step) -> dict[str, Any]:
    """A plan step as an agent action: the same checks, pointer sequence and navigation report as interact."""
    action: dict[str, Any] = {"timeoutMs": step.timeoutMs if step.timeoutMs is not None else STEP_TIMEOUT_MS}
    if step.target is not None:
        action["target"] = step.target.model_dump(exclude_none=True)
    if step.action == "fill":
        action.update(action="fill", text=step.value)
    elif step.action == "check":
        action["action"] = "uncheck" if step.value is False else "check"
    elif step.action == "select" and step.values is not None:
        action.update(action="select", values=step.values)
    elif step.action == "select":
        action.update(action="select", value=step.value)
    elif step.action == "press":
        action.update(action="press", key=step.key)
    else:
        action["action"] = step.action
    return action


async def _run_step(session: SessionCore, step: p.Step, index: int, run: Run) -> dict[str, Any]:
    prefix = f"step {index + 1} ({step.action}):"
    ok: dict[str, Any] = {"ok": True, "dialogs": []}
    try:
        if step.action == "webmcp":
            outcome = await _webmcp_step(session, step, run)
        elif step.action == "wait_for":
            await _wait_step(session, run.tab_id, step)
            outcome = ok
        elif step.action == "extract":
            await _extract_step(session, step, run)
            outcome = ok
        elif step.action == "navigate":
            await _navigate_step(session, run.tab_id, step)
            outcome = ok
        elif step.action == "browse":
            await _browse_step(session, step, run)
            outcome = ok
        elif step.action == "results":
            outcome = await _results_step(session, step, run) or ok
        else:
            outcome = await _act(session, step, run)
    except DriverError as exc:
        raise DriverError(exc.code, f"{prefix} {exc.message}") from None
    if outcome.get("ok") is False:
        raise DriverError(str(outcome.get("code") or p.ErrorCode.INTERNAL), f"{prefix} {outcome.get('message')}")
    return outcome


async def _act(session: SessionCore, step: p.Step, run: Run) -> dict[str, Any]:
    """The agent's ``act`` for a step; an action whose own navigation took its document before the
    agent answered is done, with that navigation."""
    try:
        return await session.tab(run.tab_id).agent.call("act", _action_for(step))
    except DriverError as exc:
        if not await _went_away(exc, run):
            raise
        return _went_away_outcome()


def _went_away_outcome() -> dict[str, Any]:
    """A step whose document navigated away before its agent answered: done, with that navigation."""
    return {"ok": True, "dialogs": [], "navigation": {"url": "", "sameDocument": False}}


async def _went_away(exc: DriverError, run: Run) -> bool:
    """The agent gave no answer because a cross-document navigation took its document."""
    if exc.code != p.ErrorCode.NOT_SCRIPTABLE:
        return False
    return await navigated_meanwhile([run.watcher], WENT_AWAY_S) and not run.watcher.same_document


async def _webmcp_step(session: SessionCore, step: p.Step, run: Run) -> dict[str, Any]:
    """The page's own execute() of a WebMCP tool; one that navigates its page away before it answers
    counts as done with null (as the spec's executeTool() resolves null)."""
    timeout_ms = step.timeoutMs if step.timeoutMs is not None else WEBMCP_TIMEOUT_MS
    arg = {"name": step.name, "args": step.args, "timeoutMs": timeout_ms}
    try:
        answer = await session.tab(run.tab_id).agent.call("webmcpCall", arg)
    except DriverError as exc:
        if not await _went_away(exc, run):
            raise
        run.webmcp = None
        return _went_away_outcome()
    if not answer.get("ok"):
        raise DriverError(
            str(answer.get("code") or p.ErrorCode.INTERNAL),
            str(answer.get("message") or f"WebMCP tool {step.name} failed"),
        )
    run.webmcp = answer.get("result")
    dialogs = answer.get("dialogs") if isinstance(answer.get("dialogs"), list) else []
    return {"ok": True, "dialogs": dialogs, "navigation": answer.get("navigation")}


async def _wait_step(session: SessionCore, tab_id: int, step: p.Step) -> None:
    condition = {k: v for k, v in (step.condition or {}).items() if v is not None}
    expected = "an object with exactly one of text, textGone, state"
    if len(condition) != 1 or next(iter(condition)) not in ("text", "textGone", "state"):
        raise DriverError(p.ErrorCode.BAD_MESSAGE, f'"{step.action}" needs "condition" as {expected}')
    timeout_ms = step.timeoutMs if step.timeoutMs is not None else WAIT_TIMEOUT_MS
    key, value = next(iter(condition.items()))
    if key == "state":
        if step.target is None:
            raise DriverError(p.ErrorCode.BAD_MESSAGE, '"wait_for" needs "target" for a state condition')
        probe: dict[str, Any] = {"target": step.target.model_dump(exclude_none=True), "state": value}
    else:
        probe = {key: value}
    fail_css = step.failWhen.css if step.failWhen is not None else None
    await poll_condition(session, tab_id, probe, timeout_ms, fail_css)


async def _extract_step(session: SessionCore, step: p.Step, run: Run) -> None:
    if step.target is None or step.target.css is None:
        raise DriverError(p.ErrorCode.BAD_MESSAGE, '"extract" needs a {css} target (every match is read)')
    arg: dict[str, Any] = {"css": step.target.css}
    if step.fields is not None:
        arg["fields"] = step.fields
    if step.limit is not None:
        arg["limit"] = step.limit
    answer = agent_ok(await session.tab(run.tab_id).agent.call("extract", arg), "extract")
    run.extracted = run.extracted or {}
    run.extracted[step.label or "items"] = answer.get("items") if isinstance(answer.get("items"), list) else []


async def _results_step(session: SessionCore, step: p.Step, run: Run) -> dict[str, Any] | None:
    """The results a live search shows near its box, once the page has done its work; with a text
    in ``value``, the result showing it is clicked as interact clicks (its outcome: a navigation).
    With ``key``, a box near which nothing showed is sent with that key instead."""
    assert step.target is not None  # the Step checks it
    arg: dict[str, Any] = {"target": step.target.model_dump(exclude_none=True), "token": run.watch_token}
    if isinstance(step.value, str) and step.value.strip():
        arg["open"] = step.value
    if step.timeoutMs is not None:
        arg["timeoutMs"] = step.timeoutMs
    answer = agent_ok(await session.tab(run.tab_id).agent.call("liveResults", arg), "liveResults")
    if step.key and not answer.get("rows") and answer.get("answered") is not True:
        # nothing showed as the query was typed: the box is sent as a person would, with its key, and
        # the page's own summary (the list it shows) answers
        run.has_extract = any(s == "extract" for s in run.actions)
        press = p.Step(action="press", target=step.target, key=step.key)
        return await _act(session, press, run)
    if not isinstance(answer.get("open"), str):
        rows = answer.get("rows") if isinstance(answer.get("rows"), list) else []
        found: dict[str, Any] = {"results": rows}
        total = answer.get("total")
        if rows and isinstance(total, int) and total > len(rows):
            found["more"] = f"the first {len(rows)} of {total} results: a longer query narrows them"
        if not rows and isinstance(answer.get("text"), str) and answer["text"]:
            found["shown"] = answer["text"]  # the page's own words where results show: none, and maybe why
        run.extracted = {**(run.extracted or {}), **found}
        return None
    # the page the result opens answers the call, not the list it was chosen from
    click = p.Step(action="click", target=p.Target(ref=answer["open"]))
    return await _act(session, click, run)


async def _navigate_step(session: SessionCore, tab_id: int, step: p.Step) -> None:
    if not isinstance(step.value, str) or not step.value:
        raise DriverError(p.ErrorCode.BAD_MESSAGE, '"navigate" needs "value" as a URL string')
    url = urljoin((await session.host.tab_url(tab_id))[0], step.value)
    timeout_ms = step.timeoutMs if step.timeoutMs is not None else NAVIGATION_TIMEOUT_MS
    await navigate(session, tab_id, url, None, "load", timeout_ms)


async def _browse_step(session: SessionCore, step: p.Step, run: Run) -> None:
    """Moves the main list to the page, sort and page size asked for, one move of the agent's at a
    time (a link it names is loaded, a button it clicked is given time to load): each move is read
    from the page as it is then, so a sort that starts the list again is followed by the page."""
    for _ in range(MAX_BROWSE_MOVES):
        since = time.monotonic()
        watcher = session.watch(run.tab_id)  # before the move: a click's navigation may start at once
        try:
            answer = await session.tab(run.tab_id).agent.call("browse", {"args": step.args or {}})
            answer = agent_ok(answer, "browse")
            if answer.get("done"):
                run.skip = answer["skip"] if isinstance(answer.get("skip"), int) else 0
                return
            if not isinstance(answer.get("url"), str):  # clicked here: a navigation, or rows fetched
                await watcher.wait_for_start(NAVIGATION_GRACE_S)
                if watcher.started and not watcher.same_document:
                    await watcher.wait_for_outcome(NAVIGATION_TIMEOUT_S)
        finally:
            session.unwatch(watcher)
        if isinstance(answer.get("url"), str):
            timeout_ms = step.timeoutMs if step.timeoutMs is not None else NAVIGATION_TIMEOUT_MS
            await navigate(session, run.tab_id, answer["url"], None, "load", timeout_ms)
        else:
            await session.wait_while_loading(run.tab_id)
            await session.tab(run.tab_id).network.fetches_done(since, SUMMARY_NETWORK_S)
    raise DriverError(p.ErrorCode.TIMEOUT, f"the list did not reach {step.args} in {MAX_BROWSE_MOVES} moves")
