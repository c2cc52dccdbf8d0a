"""A page tool's plan on the CDP driver: the extension's ``callTool`` (background.js) step for step.

Each step is the agent's own action, wait, extract or WebMCP call; between steps a navigation a
step started is waited for, and the answer ends with the page summary the agent writes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from tabmcp import protocol as p
from tabmcp.drivers.base import DriverError
from tabmcp.drivers.cdp.agent import agent_ok
from tabmcp.drivers.cdp.navigation import NavigationWatcher

if TYPE_CHECKING:
    from tabmcp.drivers.cdp.driver import CdpDriver
    from tabmcp.drivers.cdp.tabs import TabRecord

log = logging.getLogger(__name__)
SUMMARY_NETWORK_S = 2.0  # how long the summary waits for the requests a plan started
UNWATCH_S = 1.0
STEP_TIMEOUT_MS = 5_000
WEBMCP_TIMEOUT_MS = 30_000
WAIT_TIMEOUT_MS = 5_000
NAVIGATION_TIMEOUT_MS = 15_000
NAVIGATION_START_S = 2.0
NAVIGATION_GRACE_S = 0.4
NAVIGATING_ACTIONS = {"click", "submit", "press"}


@dataclass
class Run:
    watcher: NavigationWatcher
    has_extract: bool
    started_at: float = field(default_factory=time.monotonic)
    start_url: str = ""
    watch_token: str | None = None
    extracted: dict[str, Any] | None = None
    webmcp: Any = ...  # ... until a webmcp step ran


async def run_plan(driver: CdpDriver, record: TabRecord, steps: list[p.Step]) -> dict[str, Any]:
    run = Run(record.watch(), any(s.action == "extract" for s in steps))
    try:
        run.start_url = record.url
        run.watch_token = await _start_watch(record)
        outcomes = []
        for index, step in enumerate(steps):
            run.watcher.reset()
            outcome = await _run_step(driver, record, step, index, run)
            outcomes.append({"action": step.action, "ok": True})
            await _settle(driver, run.watcher, step, index, index == len(steps) - 1, outcome)
        result: dict[str, Any] = {"steps": outcomes, "page": await _summary(record, run)}
        if run.extracted:
            result["extracted"] = run.extracted
        if run.webmcp is not ...:
            result["webmcp"] = run.webmcp
        return result
    except BaseException:
        if run.watch_token:
            await _unwatch(record, run.watch_token)
        raise
    finally:
        record.unwatch(run.watcher)


async def _start_watch(record: TabRecord) -> str | None:
    try:
        answer = await record.agent.call("watchChanges")
    except DriverError as exc:
        if exc.code == p.ErrorCode.NO_TAB:
            raise
        log.debug("watchChanges failed: %s", exc.message)  # about:blank, an error page
        return None
    token = answer.get("token")
    return token if isinstance(token, str) else None


async def _unwatch(record: TabRecord, token: str) -> None:
    """Best effort: a page that went away took the watch with it."""
    try:
        await asyncio.wait_for(record.agent.call_in(record.page.main_frame, "unwatch", {"token": token}), UNWATCH_S)
    except (DriverError, TimeoutError) as exc:
        log.debug("unwatch failed: %s", exc)


async def _summary(record: TabRecord, run: Run) -> dict[str, Any]:
    await record.network.fetches_done(run.started_at, SUMMARY_NETWORK_S)
    try:
        page = await record.agent.call("summary", {"token": run.watch_token, "results": not run.has_extract})
    except DriverError as exc:
        if exc.code == p.ErrorCode.NO_TAB:
            raise
        url = record.url
        return {"url": url, "title": record.title, "navigated": url != run.start_url, "text": ""}
    url = page.get("url") if isinstance(page.get("url"), str) else ""
    navigated = page.get("navigated") is True if run.watch_token else url != run.start_url
    summary: dict[str, Any] = {
        "url": url,
        "title": page.get("title") if isinstance(page.get("title"), str) else "",
        "navigated": navigated,
    }
    if isinstance(page.get("changed"), str) and page["changed"]:
        summary["changed"] = page["changed"]
    summary["text"] = page.get("text") if isinstance(page.get("text"), str) else ""
    if isinstance(page.get("results"), list) and page["results"]:
        summary["results"] = page["results"]
    return summary


async def _settle(
    driver: CdpDriver, watcher: NavigationWatcher, step: p.Step, index: int, is_last: bool, outcome: dict[str, Any]
) -> None:
    """Let a navigation the step started finish before the next step or the summary."""
    if "navigation" in outcome or isinstance(outcome.get("dialogs"), list):
        navigation = outcome.get("navigation")
        if isinstance(navigation, dict) and not navigation.get("sameDocument"):
            await watcher.wait_for_start(NAVIGATION_START_S)
    elif is_last or step.action in NAVIGATING_ACTIONS:
        await watcher.wait_for_start(NAVIGATION_GRACE_S)
    if watcher.started and not watcher.same_document:
        await watcher.wait_for_outcome(NAVIGATION_TIMEOUT_MS / 1000)
    if watcher.outcome is not None and watcher.outcome.kind == "error":
        error = driver._navigation_error(watcher.outcome, "the page")
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
    elif step.action == "select":
        action.update(action="select", value=step.value)
    elif step.action == "press":
        action.update(action="press", key=step.key)
    else:
        action["action"] = step.action
    return action


async def _run_step(driver: CdpDriver, record: TabRecord, step: p.Step, index: int, run: Run) -> dict[str, Any]:
    prefix = f"step {index + 1} ({step.action}):"
    try:
        if step.action == "webmcp":
            outcome = await _webmcp_step(record, step, run)
        elif step.action == "wait_for":
            await _wait_step(driver, record, step)
            outcome = {"ok": True, "dialogs": []}
        elif step.action == "extract":
            await _extract_step(record, step, run)
            outcome = {"ok": True, "dialogs": []}
        elif step.action == "navigate":
            await _navigate_step(driver, record, step)
            outcome = {"ok": True, "dialogs": []}
        else:
            outcome = await record.agent.call("act", _action_for(step))
    except DriverError as exc:
        raise DriverError(exc.code, f"{prefix} {exc.message}") from None
    if outcome.get("ok") is False:
        raise DriverError(str(outcome.get("code") or p.ErrorCode.INTERNAL), f"{prefix} {outcome.get('message')}")
    return outcome


async def _webmcp_step(record: TabRecord, step: p.Step, run: Run) -> dict[str, Any]:
    """The page's own execute() of a WebMCP tool; one that navigates its page away counts as done with null."""
    timeout_ms = step.timeoutMs if step.timeoutMs is not None else WEBMCP_TIMEOUT_MS
    try:
        answer = await record.agent.call("webmcpCall", {"name": step.name, "args": step.args, "timeoutMs": timeout_ms})
    except DriverError as exc:
        if not (exc.code == p.ErrorCode.NOT_SCRIPTABLE and run.watcher.started and not run.watcher.same_document):
            raise
        run.webmcp = None
        return {"ok": True, "dialogs": [], "navigation": {"url": "", "sameDocument": False}}
    if not answer.get("ok"):
        raise DriverError(
            str(answer.get("code") or p.ErrorCode.INTERNAL),
            str(answer.get("message") or f"WebMCP tool {step.name} failed"),
        )
    run.webmcp = answer.get("result")
    dialogs = answer.get("dialogs") if isinstance(answer.get("dialogs"), list) else []
    return {"ok": True, "dialogs": dialogs, "navigation": answer.get("navigation")}


async def _wait_step(driver: CdpDriver, record: TabRecord, step: p.Step) -> None:
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
    await driver.poll_condition(record, probe, timeout_ms, fail_css)


async def _extract_step(record: TabRecord, step: p.Step, run: Run) -> None:
    if step.target is None or step.target.css is None:
        raise DriverError(p.ErrorCode.BAD_MESSAGE, '"extract" needs a {css} target (every match is read)')
    arg: dict[str, Any] = {"css": step.target.css}
    if step.fields is not None:
        arg["fields"] = step.fields
    if step.limit is not None:
        arg["limit"] = step.limit
    answer = agent_ok(await record.agent.call("extract", arg), "extract")
    run.extracted = run.extracted or {}
    run.extracted[step.label or "items"] = answer.get("items") if isinstance(answer.get("items"), list) else []


async def _navigate_step(driver: CdpDriver, record: TabRecord, step: p.Step) -> None:
    if not isinstance(step.value, str) or not step.value:
        raise DriverError(p.ErrorCode.BAD_MESSAGE, '"navigate" needs "value" as a URL string')
    url = urljoin(record.url, step.value)
    timeout_ms = step.timeoutMs if step.timeoutMs is not None else NAVIGATION_TIMEOUT_MS
    await driver.navigate_record(record, url, None, "load", timeout_ms)
