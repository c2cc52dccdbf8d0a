"""A blank page made ahead in a browser context, for the next ``open_tab`` there.

A new page costs its renderer's start and Playwright's set-up of it (the context's init scripts, its
binding, its routes) before its load can begin; a page made ahead has paid both, so an open is only
its load. The browser cannot be asked to load a new page's URL while Playwright sets it up: its first
requests and scripts would run before the routes and the agent are in it (docs/decisions.md, "What
`open_tab` is measured against"). Only for a headless browser tabmcp launched: nobody sees the blank
page, and no other client makes pages in it.

The spare is no tab: the driver records a page only when ``open_tab`` takes it. While one is being
made, the context's new pages that have no opener are held here (the spare is among them); every one
that is not the spare is handed back to the driver once ``new_page`` answers.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from playwright.async_api import BrowserContext, Page
from playwright.async_api import Error as PlaywrightError

log = logging.getLogger(__name__)


def _opener(page: Page) -> object:
    """The page's opener as Playwright already holds it (``Page.opener`` makes no round trip): popups
    have one, ``noopener`` ones included; a page made by ``new_page`` has none."""
    return getattr(getattr(page, "_impl_obj", None), "_opener", None)


class SparePages:
    def __init__(self, record: Callable[[Page], object]) -> None:
        self._record = record  # the driver's: a page that turned out not to be the spare
        self._ready: dict[BrowserContext, Page] = {}
        self._held: dict[BrowserContext, list[Page]] = {}  # contexts whose spare is being made
        self._making: dict[BrowserContext, asyncio.Future[None]] = {}

    def holds(self, context: BrowserContext, page: Page) -> bool:
        """For the context's ``page`` event: True when ``page`` may be the spare being made (it is
        recorded later if it is not)."""
        held = self._held.get(context)
        if held is None or _opener(page) is not None:
            return False
        held.append(page)
        return True

    async def take(self, context: BrowserContext) -> Page | None:
        """The context's spare, once the one being made is ready (it began before this open); None
        when there is none."""
        making = self._making.get(context)
        if making is not None:
            await asyncio.shield(making)
        page = self._ready.pop(context, None)
        return page if page is not None and not page.is_closed() else None

    async def refill(self, context: BrowserContext) -> Page | None:
        """Make the context's next spare, unless it has one or one is being made: the page made, or None."""
        if context in self._ready or context in self._held:
            return None
        self._held[context] = []
        made = self._making[context] = asyncio.get_running_loop().create_future()
        page: Page | None = None
        try:
            page = await context.new_page()
        except PlaywrightError as exc:  # the context or the link went away meanwhile
            log.debug("no spare page: %s", exc)
        finally:
            others = self._held.pop(context, [])
            self._making.pop(context, None)
            if page is not None:
                self._ready[context] = page
            made.set_result(None)
        for other in others:
            if other is not page:
                self._record(other)
        return page

    def forget(self, context: BrowserContext) -> None:
        """The context is closing (its pages with it)."""
        self._ready.pop(context, None)

    def clear(self) -> None:
        """The link went away."""
        self._ready.clear()
