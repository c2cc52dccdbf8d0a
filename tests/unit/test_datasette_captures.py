"""The introspector registry on saved captures of Datasette (tests/fixtures/apps/datasette, made by its
make_captures.py): a database browser's table page (a search box in one GET form with a filter row,
sortable columns, rows whose own page shows only their id beside links to related rows) and its SQL
page. What a person asks there: rows mentioning a word, rows where a column has a value, the top rows
by a column, one row, a query's result."""

from __future__ import annotations

import pytest
from tests.unit.saved_app import SavedApp

from tabmcp.introspect.api import resolve_plan
from tabmcp.protocol import Target

APP = SavedApp("datasette")
captured, tools_of, ref_at, writer_of = APP.captured, APP.tools_of, APP.ref_at, APP.writer_of

FILTERS = "//form[.//select[@name='_filter_column']]"
LIST_PAGES = ["books", "books_search", "books_sorted", "books_sorted_desc", "books_filtered"]






@pytest.mark.parametrize("page", ["books", "books_search"])
def test_the_search_form_filters_by_a_column_without_a_query(page: str) -> None:
    search = writer_of(page, f"{FILTERS}//input[@name='_search']")
    assert writer_of(page, f"{FILTERS}//select[@name='_filter_column']") is search
    properties = search.schema["properties"]
    assert "genre" in properties["filter_column"]["enum"]
    assert "exact" in properties["filter_op"]["enum"]
    assert not search.schema.get("required")  # a filter alone narrows the table
    steps = resolve_plan(search, {"filter_column": "genre", "filter_op": "exact", "filter_value": "poetry"})
    written = {s.target.ref: s.value for s in steps if isinstance(s.target, Target) and s.value is not None}
    assert written[ref_at(page, f"{FILTERS}//select[@name='_filter_column']")] == "genre"
    assert written[ref_at(page, f"{FILTERS}//input[@name='_filter_value']")] == "poetry"
    assert ref_at(page, f"{FILTERS}//input[@name='_search']") not in written  # the box keeps what it shows
    assert steps[-1].action == "submit"
    emptied = resolve_plan(search, {"query": "", "filter_column": "genre"})
    box = Target(ref=ref_at(page, f"{FILTERS}//input[@name='_search']"))
    assert (emptied[0].target, emptied[0].value) == (box, "")  # "" empties the box


def test_argument_names_leave_out_a_frameworks_leading_underscore() -> None:
    for tool in tools_of("books").values():
        assert not [name for name in tool.schema.get("properties", {}) if name.startswith("_")], tool.name


@pytest.mark.parametrize("page", LIST_PAGES)
def test_the_table_is_browsed_by_its_sortable_columns(page: str) -> None:
    browse = tools_of(page)["browse_list"]
    assert {"rating", "title", "year"} <= set(browse.schema["properties"]["sort"]["enum"])


@pytest.mark.parametrize("page", LIST_PAGES)
def test_a_row_opens_its_own_page_not_a_related_rows(page: str) -> None:
    # the row's own link shows only its id; the author column links to the authors table
    assert "open_row" in tools_of(page)
    opener = captured(page).tree.xpath("//*[starts-with(@data-tabmcp-list, 'open:')]")[0]
    assert opener.get("data-tabmcp-list") == "open:tbody > tr > td:nth-child(1) a"
    openers = captured(page).tree.xpath("//a[@data-tabmcp-list='open' or starts-with(@data-tabmcp-list, 'open:')]")
    assert openers and all("/books/books/" in (a.get("href") or "") for a in openers)


def test_the_sql_page_runs_a_query_from_an_argument() -> None:
    tool = writer_of("database", "//*[@data-tabmcp-field='sql']")
    assert list(tool.schema["properties"]) == ["sql"]
    assert tool.plan[-1].action == "submit"


def test_a_rows_own_page_has_no_list_tools() -> None:
    assert not {"browse_list", "open_row", "search"} & set(tools_of("book_row"))
