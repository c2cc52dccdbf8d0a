"""list_changed carries news only: weighed against the list the client last read (notices.py), in the
pure rule and through the runtime's one notify path (the driver serves captures from a dict)."""

from __future__ import annotations

import pytest
from tests.unit.test_runtime_refresh import SEARCH, TWO_FORMS, connected, make_runtime

from tabmcp.notices import ClientView, brings_news
from tabmcp.state import Signature

CORE = ("snapshot", "interact")
SEARCH_T = ("search", "Search", "Search the site", "{}", None)
SUBSCRIBE = ("subscribe", "Subscribe", "Subscribe by email", "{}", None)


def sig(*page: tuple[object, ...], core: tuple[str, ...] = CORE) -> Signature:
    return core, tuple(page)


def test_added_or_changed_tools_are_news_removed_ones_are_not() -> None:
    assert brings_news(sig(SEARCH_T), sig(SEARCH_T, SUBSCRIBE))
    assert brings_news(sig(SEARCH_T), sig(("search", "Search", "Search the site", '{"q": 1}', None)))
    assert brings_news(sig(SEARCH_T), sig(SEARCH_T, core=("snapshot",)))  # a new browser state
    assert not brings_news(sig(SEARCH_T, SUBSCRIBE), sig(SEARCH_T))
    assert not brings_news(sig(SEARCH_T, SUBSCRIBE), sig(SUBSCRIBE, SEARCH_T))  # the same tools
    assert not brings_news(sig(SEARCH_T), sig())


def test_a_client_view_sends_one_notice_per_read_and_news_only() -> None:
    view = ClientView()
    assert view.wants_notice(sig(SEARCH_T))  # never read: nothing to weigh against
    view.listed(sig(SEARCH_T))
    assert not view.wants_notice(sig(SEARCH_T))
    assert not view.wants_notice(sig())
    assert view.wants_notice(sig(SEARCH_T, SUBSCRIBE))
    view.notified()
    assert not view.wants_notice(sig(SUBSCRIBE))  # unread: the coming read brings the newest list
    view.listed(sig(SUBSCRIBE))
    assert view.had("subscribe") and not view.had("search")
    assert view.wants_notice(sig(SEARCH_T, SUBSCRIBE))


@pytest.mark.asyncio
async def test_the_runtime_notifies_a_client_that_read_the_list_of_news_only() -> None:
    runtime, driver, notified = make_runtime()
    driver.pages[1] = ("d1:0", TWO_FORMS)
    await connected(runtime, 1, focus=1)
    runtime.listed()
    assert [t.name for t in runtime.state.page_tools] == ["search_mail", "subscribe"]
    before = len(notified)

    driver.pages[1] = ("d1:1", SEARCH)  # a form went: nothing new to call
    await runtime.refresh_page_tools(1)
    assert [t.name for t in runtime.state.page_tools] == ["search_mail"]
    assert len(notified) == before

    driver.pages[1] = ("d1:2", TWO_FORMS)  # back as the client has it
    await runtime.refresh_page_tools(1)
    assert len(notified) == before

    driver.pages[1] = ("d1:3", TWO_FORMS.replace("Subscribe", "Join"))  # a new tool: news
    await runtime.refresh_page_tools(1)
    assert len(notified) == before + 1

    driver.pages[1] = ("d1:4", SEARCH.replace("Search mail", "Search letters"))
    await runtime.refresh_page_tools(1)
    assert len(notified) == before + 1  # the first notice is unread: its read brings this list

    runtime.listed()
    driver.pages[1] = ("d1:5", TWO_FORMS)
    await runtime.refresh_page_tools(1)
    assert len(notified) == before + 2


@pytest.mark.asyncio
async def test_before_any_read_every_change_is_sent() -> None:
    runtime, driver, notified = make_runtime()
    driver.pages[1] = ("d1:0", TWO_FORMS)
    await connected(runtime, 1, focus=1)
    before = len(notified)
    driver.pages[1] = ("d1:1", SEARCH)
    await runtime.refresh_page_tools(1)
    assert len(notified) == before + 1


BOXES = """<html><body><header><form action="/search" data-tabmcp-ref="e1">
<input name="q" aria-label="Search" data-tabmcp-ref="e2"></form></header>
<aside aria-label="Filters"><form action="/books" data-tabmcp-ref="e3">
<input type="search" name="term" aria-label="Search" data-tabmcp-ref="e4"></form></aside></body></html>"""


@pytest.mark.asyncio
async def test_a_tool_that_looks_the_same_keeps_its_name_and_sends_nothing() -> None:
    runtime, driver, notified = make_runtime()
    driver.pages[1] = ("d1:0", BOXES)
    await connected(runtime, 1, focus=1)
    runtime.listed()
    assert [t.name for t in runtime.state.page_tools] == ["search", "search_filters"]
    before = len(notified)

    header = BOXES.split("<aside")[0] + "</body></html>"
    aside = "<html><body>" + BOXES.split("</header>")[1]
    driver.pages[1] = ("d1:1", aside)  # alone, the filter box would be "search": it stays search_filters
    await runtime.refresh_page_tools(1)
    assert [t.name for t in runtime.state.page_tools] == ["search_filters"]
    assert len(notified) == before

    driver.pages[1] = ("d1:2", header)
    await runtime.refresh_page_tools(1)
    assert [t.name for t in runtime.state.page_tools] == ["search"]
    assert len(notified) == before
