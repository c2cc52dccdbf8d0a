"""The CDP driver's page made ahead (``SparePages``), fed by hand with stand-ins for Playwright's
context and pages: which new pages it holds back, which it hands to the driver, and an open that
comes while the page is being made."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from tabmcp.drivers.cdp.spares import SparePages


def page(opener: object = None) -> Any:
    return SimpleNamespace(_impl_obj=SimpleNamespace(_opener=opener), is_closed=lambda: False)


class Context:
    """``new_page`` answers when the test says so; the test fires the context's ``page`` events."""

    def __init__(self) -> None:
        self.answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.made = 0

    async def new_page(self) -> Any:
        self.made += 1
        return await self.answer


async def test_the_page_made_ahead_is_no_tab_and_other_pages_are() -> None:
    recorded: list[Any] = []
    spares = SparePages(recorded.append)
    context = Context()
    making = asyncio.create_task(spares.refill(context))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    spare, popup, other = page(), page(opener=page()), page()
    assert spares.holds(context, spare)  # type: ignore[arg-type]
    assert not spares.holds(context, popup)  # type: ignore[arg-type]  # a popup: the driver records it now
    assert spares.holds(context, other)  # type: ignore[arg-type]  # no opener: held until new_page answers
    context.answer.set_result(spare)
    await making
    assert recorded == [other]
    assert not spares.holds(context, page())  # type: ignore[arg-type]  # nothing is being made any more
    assert await spares.take(context) is spare  # type: ignore[arg-type]
    assert await spares.take(context) is None  # type: ignore[arg-type]


async def test_an_open_while_the_page_is_made_waits_for_it() -> None:
    spares = SparePages(lambda _page: None)
    context = Context()
    making = asyncio.create_task(spares.refill(context))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    taking = asyncio.create_task(spares.take(context))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    assert not taking.done()
    spare = page()
    context.answer.set_result(spare)
    assert await taking is spare
    await making
    await spares.refill(context)  # type: ignore[arg-type]
    await spares.refill(context)  # type: ignore[arg-type]  # one is ready: none made
    assert context.made == 2


async def test_a_context_that_closes_while_its_page_is_made() -> None:
    from playwright.async_api import Error as PlaywrightError

    spares = SparePages(lambda _page: None)
    context = Context()
    making = asyncio.create_task(spares.refill(context))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    taking = asyncio.create_task(spares.take(context))  # type: ignore[arg-type]
    context.answer.set_exception(PlaywrightError("Target page, context or browser has been closed"))
    await making
    assert await taking is None
