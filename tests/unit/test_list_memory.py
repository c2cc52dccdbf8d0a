"""A list page with no rows keeps the tools it has with rows (introspect/list_memory.py): over the
saved captures of real apps' searches with hits and without (an Otter Wiki's "No match found.",
Wagtail's "Sorry, no pages match", Roundup's user table with its headers and no row), and over small
pages for what must not carry a tool over."""

from __future__ import annotations

from functools import cache

import pytest
from bench.apps.capture import saved_captures
from bench.apps.report import page_tools

from tabmcp.introspect.api import PageTool
from tabmcp.introspect.list_memory import ListMemory, shows_empty_list
from tabmcp.introspect.registry import Registry
from tabmcp.page.capture import PageCapture


@cache
def registry() -> Registry:
    return Registry.discover()


def faces(tools: tuple[PageTool, ...]) -> dict[str, tuple[object, ...]]:
    return {t.name: t.face() for t in tools}


def read_in_one_tab(*captures: PageCapture) -> list[tuple[PageTool, ...]]:
    """The tools of each capture as the server lists them for one tab visiting them in turn."""
    memory = ListMemory()
    return [memory.keep(1, c, page_tools(c, registry())) for c in captures]


@pytest.mark.parametrize(
    ("app", "rows", "empty"),
    [
        ("otterwiki", "search", "search_none"),  # "No match found.": no list left at all
        ("wagtail", "search", "search_none"),  # "Sorry, no pages match quasar"
        ("roundup", "users", "users_none"),  # the table's header row and no other
        ("flaskadmin", "books", "books_none"),  # "There are no items in the table.", no sortable headers
    ],
)
def test_a_search_with_no_hits_keeps_the_lists_tools(app: str, rows: str, empty: str) -> None:
    saved = saved_captures(app)
    alone = page_tools(saved[empty], registry())
    assert shows_empty_list(saved[empty]) and not shows_empty_list(saved[rows])
    with_rows, without = read_in_one_tab(saved[rows], saved[empty])
    assert faces(alone) != faces(with_rows)  # the page alone has no rows to make them from
    assert faces(without) == faces(with_rows)  # the same tool list: nothing for the client to re-read
    again, = read_in_one_tab(saved[empty])
    assert faces(again) == faces(alone)  # a tab that never saw the rows has nothing to keep


def page(url: str, body: str) -> PageCapture:
    return PageCapture(url=url, title="t", html=f"<html><body><main>{body}</main></body></html>")


ROWS = "".join(
    f'<tr><td><a href="/item{n}" data-tabmcp-list="{"open:tbody > tr a" if n == 1 else "open"}" '
    f'data-tabmcp-ref="e{n}">Item number {n}</a></td><td>x</td></tr>'
    for n in (1, 2, 3)
)
LIST = f"<table><thead><tr><th>Name</th><th>Other</th></tr></thead><tbody>{ROWS}</tbody></table>"


def test_only_an_empty_list_of_the_same_kind_of_page_keeps_them() -> None:
    listed = page("https://site.test/items?q=item", LIST)
    same_empty = page("https://site.test/items?q=zz#top", "<h2>No results for zz</h2>")
    other_path = page("https://site.test/other?q=zz", "<h2>No results for zz</h2>")
    not_empty = page("https://site.test/items?q=zz", "<p>Choose a filter.</p>")
    mentions = page("https://site.test/items?q=zz", "<p>" + "A long paragraph that says no results, " * 6 + "</p>")
    with_rows, *rest = read_in_one_tab(listed, same_empty, other_path, not_empty, mentions)
    assert "open_row" in faces(with_rows)
    assert [("open_row" in faces(t)) for t in rest] == [True, False, False, False]


def test_an_empty_table_with_its_headers_is_an_empty_list_and_a_layout_table_is_not() -> None:
    headers = "<table><tr><th>Username</th><th>Real name</th></tr></table>"
    assert shows_empty_list(page("https://site.test/u", headers))
    assert not shows_empty_list(page("https://site.test/u", "<table><tr><td>a</td><td>b</td></tr></table>"))
    assert not shows_empty_list(page("https://site.test/u", "<table><tr><th>Only</th></tr></table>"))
    hidden = '<table data-tabmcp-hidden="1"><tr><th>A</th><th>B</th></tr></table>'
    assert not shows_empty_list(page("https://site.test/u", hidden))


def test_a_forgotten_tab_keeps_nothing() -> None:
    memory = ListMemory()
    listed = page("https://site.test/items", LIST)
    memory.keep(1, listed, page_tools(listed, registry()))
    memory.forget(1)
    empty = page("https://site.test/items", "<p>0 items</p>")
    assert memory.keep(1, empty, ()) == ()
    assert memory.keep(2, empty, ()) == ()  # another tab never saw the rows
