"""Opening a tab and navigating one: load, wait for ``waitUntil``, and what the page did as it loaded
(its dialogs, a navigation it started at once that the navigation policy blocked)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tabmcp import protocol as p
from tabmcp import trace
from tabmcp.drivers.base import DriverError, OpenedTab
from tabmcp.drivers.session.actions import await_navigation
from tabmcp.drivers.session.limits import FOLLOW_ON_S, REPLACED_NAVIGATION_S
from tabmcp.drivers.session.navigation import (
    BLOCKED_BY_CLIENT,
    NavigationWatcher,
    blocked_error,
    navigation_error,
    policy_reason,
)

if TYPE_CHECKING:
    from tabmcp.drivers.session.core import SessionCore

log = logging.getLogger(__name__)
SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
NAVIGABLE_SCHEMES = ("http", "https", "about")
ERROR_EVENT_S = 3.0  # a goto the browser refused: how long the failure's own event (naming the hop) may take


async def open_tab(
    session: SessionCore, url: str, focus: bool, group: str | None, workspace: str | None, timeout_ms: int
) -> OpenedTab:
    if not SCHEME.match(url):
        raise DriverError(p.ErrorCode.INVALID_URL, f"Not an absolute URL: {url}")
    watcher = session.watch(None)  # listening before the tab exists
    since = time.monotonic()
    try:
        with trace.phase("load"):
            with trace.phase("create_tab"):  # the browser's answer: the tab exists, its page is loading
                tab_id = await session.host.create_tab(url, focus, group, workspace)
            watcher.set_tab(tab_id)
            if not watcher.loaded:  # its load may have come before the answer that named the tab
                session.tab(tab_id).loading = True
            if not await watcher.wait_for_outcome(timeout_ms / 1000):
                log.info("open_tab: %s still loading after %d ms", url, timeout_ms)  # answered as loading
        outcome = watcher.outcome
        if outcome is not None and outcome.kind == "error":
            await _close_quietly(session, tab_id)
            raise navigation_error(outcome, url, session.policy)
        if outcome is not None and outcome.kind == "removed":
            raise DriverError(p.ErrorCode.NAVIGATION_FAILED, f"The tab for {url} was closed while it loaded")
        loaded_at = watcher.navigations
        with trace.phase("dialogs"):  # the tab as it loaded, read meanwhile: both wait for a busy page alike
            (dialogs, refresh), info = await asyncio.gather(
                session.after_load(tab_id, since), session.host.tab_info(tab_id)
            )
        with trace.phase("follow_on"):
            followed_by = await blocked_follow_on(session, watcher, loaded_at, refresh) if outcome is not None else None
        if followed_by is not None:
            await _close_quietly(session, tab_id)
            raise followed_by
        moved_on = watcher.navigations != loaded_at
    finally:
        session.unwatch(watcher)
    if moved_on:  # the page went on to another (allowed) page: the tab as it is now
        with trace.phase("tab_info"):
            info = await session.host.tab_info(tab_id)
    return OpenedTab(info, tuple(dialogs))


async def _close_quietly(session: SessionCore, tab_id: int) -> None:
    with contextlib.suppress(DriverError):
        await session.host.close_tab(tab_id)


def check_navigable(session: SessionCore, url: str) -> None:
    """Only web pages, unless the navigation policy opts a page in (file:, chrome:…)."""
    parsed = SCHEME.match(url)
    if not parsed:
        raise DriverError(p.ErrorCode.INVALID_URL, f"Not an absolute URL: {url}")
    scheme = parsed.group(1).lower()
    if scheme not in NAVIGABLE_SCHEMES and (session.policy is None or not session.policy.check(url).allowed):
        raise DriverError(p.ErrorCode.INVALID_URL, f"Cannot navigate to a {parsed.group(1)}: URL: {url}")


async def navigate(
    session: SessionCore, tab_id: int, url: str | None, go: str | None, wait_until: str, timeout_ms: int
) -> dict[str, Any]:
    """Loads ``url`` or moves in history (``go``) and waits for ``wait_until``: the navigate request and
    the navigate plan step. Answers the tab's ``{url, title}`` afterwards (and the load's dialogs)."""
    if url is not None:
        check_navigable(session, url)
    what = url or ("the reloaded page" if go == "reload" else f"the {'previous' if go == 'back' else 'next'} page")
    watcher = session.watch(tab_id)
    since = time.monotonic()
    try:
        with trace.phase("load"):
            if url is not None:
                followed = await _goto(session, tab_id, url, watcher)
                what = f"the page that replaced {url}" if followed else what
            else:
                await session.host.go(tab_id, go)  # type: ignore[arg-type]
            left = timeout_ms / 1000 - (time.monotonic() - since)
            await await_navigation(session, watcher, wait_until, max(left, 0.0), what)
        loaded_at = watcher.navigations
        with trace.phase("dialogs"):  # the tab's URL and title read meanwhile, as in open_tab
            (dialogs, refresh), (page_url, title, _) = await asyncio.gather(
                session.after_load(tab_id, since), session.host.tab_url(tab_id)
            )
        with trace.phase("follow_on"):
            followed_by = await blocked_follow_on(session, watcher, loaded_at, refresh)
        if followed_by is not None:
            raise followed_by
        moved_on = watcher.navigations != loaded_at
    finally:
        session.unwatch(watcher)
    if moved_on:
        with trace.phase("tab_info"):
            page_url, title, _ = await session.host.tab_url(tab_id)
    answer: dict[str, Any] = {"url": page_url, "title": title}
    return {**answer, "dialogs": dialogs} if dialogs else answer


async def _goto(session: SessionCore, tab_id: int, url: str, watcher: NavigationWatcher) -> bool:
    """Starts loading ``url``; True when a navigation the page or the user started meanwhile replaced it
    (it wins, as a user's would: it is followed instead). A refusal is raised as the navigation's
    error, naming the page that failed (a redirect's refused hop rather than ``url``)."""
    try:
        await session.host.goto(tab_id, url)
        return False
    except DriverError as exc:
        if exc.code != p.ErrorCode.NAVIGATION_FAILED:
            raise
        if "ERR_ABORTED" in exc.message:
            if await watcher.wait(lambda: watcher.navigations > 1, REPLACED_NAVIGATION_S):
                return True
            raise
        await watcher.wait_for_outcome(ERROR_EVENT_S)
        outcome = watcher.outcome
        if outcome is not None and outcome.kind == "error":
            raise navigation_error(outcome, url, session.policy) from None
        if BLOCKED_BY_CLIENT in exc.message:
            raise blocked_error(url, session.policy) from None
        raise


def refresh_target(refresh: Mapping[str, Any] | None) -> str:
    """Where the page's meta refresh will go within FOLLOW_ON_S (the agent's ``pendingRefresh``
    answer); "" without one."""
    if refresh is None or not isinstance(refresh.get("url"), str):
        return ""
    delay = refresh.get("delayS")
    return refresh["url"] if isinstance(delay, int | float) and delay <= FOLLOW_ON_S else ""


async def blocked_follow_on(
    session: SessionCore, watcher: NavigationWatcher, loaded_at: int, refresh: Mapping[str, Any] | None
) -> DriverError | None:
    """After a load: a navigation the page started as soon as it loaded (a meta refresh, ``location =``
    on load) that the navigation policy blocked. Its NAVIGATION_BLOCKED error, for the call that loaded
    the page, as for a blocked redirect; None when there is none. ``refresh``: the loaded document's
    ``pendingRefresh`` answer, read after the load (``SessionCore.after_load``)."""
    if watcher.navigations == loaded_at:
        # a meta refresh starts its navigation only after the load, maybe after this check
        target = refresh_target(refresh)
        return blocked_error(target, session.policy) if policy_reason(target, session.policy) else None
    if watcher.outcome is None:
        await watcher.wait_for_outcome(FOLLOW_ON_S)
    outcome = watcher.outcome
    if outcome is None or outcome.kind != "error" or BLOCKED_BY_CLIENT not in outcome.error:
        return None
    if policy_reason(outcome.url, session.policy) is None:
        return None
    return navigation_error(outcome, outcome.url, session.policy)
