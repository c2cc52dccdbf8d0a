"""The yardstick of bench/apps/quality.py on small hand-written pages and tools: each kind of finding
is raised where it should be, and not on a clean tool list."""

from __future__ import annotations

from typing import Any

from bench.apps.quality import findings, listing_chars, unstable

from tabmcp.introspect.api import Arg, PageTool, click, fill, ref, submit
from tabmcp.page.capture import PageCapture

PAGE = """<html data-tabmcp-capture="compact"><body>
<form data-tabmcp-ref="e1" role="search"><input name="q" placeholder="Search books" data-tabmcp-ref="e2">
<button data-tabmcp-ref="e3">Search</button></form>
<div class="form-group"><label>Author</label><div><div class="select2-container" data-tabmcp-ref="e4">
<a data-tabmcp-ref="e5">Please select</a></div><input type="hidden" name="author" data-tabmcp-ref="e6"></div></div>
<div><div class="CodeMirror" data-tabmcp-ref="e7"><textarea data-tabmcp-ref="e8"></textarea></div></div>
<table><tr><td>The Silent Harbor</td><td><input type="checkbox" value="17" data-tabmcp-ref="e9"></td></tr>
<tr><td>The Golden Atlas</td><td><input type="checkbox" value="18" data-tabmcp-ref="e10"></td></tr></table>
<button data-tabmcp-ref="e11">Toggle theme (current theme: light)</button>
</body></html>"""
CAPTURE = PageCapture(url="http://127.0.0.1:8000/books", title="Books", html=PAGE)


def tool(name: str, *, schema: dict[str, Any] | None = None, title: str | None = None,
         description: str = "Does it. Returns the page.", plan: tuple[Any, ...] = ()) -> PageTool:
    return PageTool(name=name, description=description, title=title,
                    input_schema=schema or {"type": "object", "properties": {}}, plan=plan)


SEARCH = tool("search_books", schema={"type": "object", "properties": {"query": {"type": "string"}}},
              plan=(fill(ref("e2"), Arg("query")), submit(ref("e1"))))


def kinds(tools: list[PageTool]) -> list[str]:
    return sorted({f.kind for f in findings(CAPTURE, tools)})


def test_a_search_tool_that_takes_its_box_leaves_only_the_widgets_no_tool_takes() -> None:
    found = findings(CAPTURE, [SEARCH])
    assert [f.kind for f in found] == ["widget_missing", "widget_missing"]
    assert {f.text for f in found} == {"autocomplete 'Author'", "code editor 'CodeMirror 5'"}


def test_numbered_twins_and_twin_descriptions() -> None:
    assert {"numbered", "same_stem", "same_description"} <= set(kinds([SEARCH, tool("delete"), tool("delete_2")]))


def test_a_title_cut_mid_word_or_mid_bracket() -> None:
    assert "cut_title" in kinds([SEARCH, tool("toggle_theme", title="Toggle theme (current theme")])
    assert "cut_title" in kinds([SEARCH, tool("toggle_theme", title="Toggle them")])
    assert "cut_title" not in kinds([SEARCH, tool("toggle_theme", title="Toggle theme (current theme: light)")])


def test_row_ids_and_row_titles_in_an_enum_and_an_empty_enum() -> None:
    ids = tool("delete_rows", schema={"type": "object", "properties": {
        "rows": {"type": "array", "items": {"type": "string", "enum": ["17", "18"]}}}})
    titles = tool("open_book", schema={"type": "object", "properties": {
        "book": {"enum": ["The Silent Harbor", "The Golden Atlas"]}}})
    empty = tool("add_book", schema={"type": "object", "properties": {"author": {"enum": []}}})
    found = findings(CAPTURE, [SEARCH, ids, titles, empty])
    assert {(f.kind, f.tool) for f in found if f.kind.endswith("enum")} == {
        ("live_enum", "delete_rows"), ("live_enum", "open_book"), ("empty_enum", "add_book")}


def test_a_description_that_does_not_say_what_comes_back() -> None:
    assert "no_returns" in kinds([SEARCH, tool("press", description="Clicks the button.")])


def test_widgets_a_tool_fills_are_not_reported() -> None:
    form = tool("add_book", schema={"type": "object", "properties": {"author": {"type": "string"},
                                                                      "notes": {"type": "string"}}},
                plan=(fill(ref("e6"), Arg("author")), fill(ref("e8"), Arg("notes")), click(ref("e3"))))
    assert "widget_missing" not in kinds([SEARCH, form])


def test_two_pages_of_one_kind_with_different_tools_are_unstable() -> None:
    other = tool("search_books", schema={"type": "object", "properties": {"query": {"type": "string", "enum": ["a"]}}})
    assert [f.text for f in unstable([SEARCH], [other], "books_2")] == ["its schema differs on books_2"]
    assert unstable([SEARCH], [SEARCH], "books_2") == []
    assert listing_chars([SEARCH]) > listing_chars([])
