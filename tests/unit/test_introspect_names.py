"""Page tools named and described from purpose, with schemas that hold no live data (docs/introspectors.md,
"Naming and budget" and "The built-in introspectors"): on saved captures of Django's admin
(tests/fixtures/lists) and on small pages that model the patterns real apps have."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

from tabmcp.introspect.api import PageTool, resolve_plan
from tabmcp.introspect.registry import Registry
from tabmcp.introspect.rows import ROW_ARG, ROWS_ARG
from tabmcp.page.capture import PageCapture
from tabmcp.protocol import Step, Target

ADMIN = Path(__file__).resolve().parents[1] / "fixtures" / "lists" / "django_admin"
LIST_PAGES = ["books", "books_search", "books_page2", "books_filtered"]


@cache
def registry() -> Registry:
    return Registry.discover()


def admin_tools(page: str) -> tuple[PageTool, ...]:
    meta = json.loads((ADMIN / "pages.json").read_text())[page]
    capture = PageCapture(url=meta["url"], title=meta["title"], html=(ADMIN / f"{page}.html").read_text())
    return registry().page_tools(capture)


def tools_on(body: str, url: str = "https://app.test/books") -> tuple[PageTool, ...]:
    return registry().page_tools(PageCapture(url=url, title="t", html=f"<html><body>{body}</body></html>"))


def listed(tools: tuple[PageTool, ...]) -> list[tuple[str, str | None, str, str]]:
    """What a client sees of the tools (state.visible_signature: what decides list_changed)."""
    return [(t.name, t.title, t.description, json.dumps(t.input_schema, sort_keys=True)) for t in tools]


# ----------------------------------------------------------------- Django's admin


def test_the_admin_list_page_tools_are_named_for_what_they_do() -> None:
    tools = admin_tools("books")
    assert [(t.name, t.source) for t in tools] == [
        ("search", "search"),  # the list's own search (main content) keeps the plain name
        ("filter_navigation_items", "search"),  # the sidebar's box: its label says what it does
        ("log_out", "forms"),
        ("run_selected_action", "forms"),  # "Go" says nothing: the button's tooltip does
    ]  # "Toggle theme (current theme: auto)" changes how the page looks: not a task (chrome.py)
    titles = {t.name: t.title for t in tools}
    assert titles["filter_navigation_items"] == "Filter navigation items"
    assert "in the page's navigation" in tools[1].description


@pytest.mark.parametrize("page", LIST_PAGES[1:])
def test_a_search_a_page_and_a_filter_of_the_list_keep_the_same_tools(page: str) -> None:
    """Other rows, other counts, other ids: the same tools, so no list_changed."""
    assert listed(admin_tools(page)) == listed(admin_tools("books"))


def test_the_bulk_action_takes_rows_by_their_text_and_lists_no_row() -> None:
    bulk = next(t for t in admin_tools("books") if t.name == "run_selected_action")
    rows = bulk.input_schema["properties"][ROWS_ARG]
    assert rows["type"] == "array" and rows["items"] == {"type": "string", "minLength": 1}
    text = json.dumps(bulk.input_schema) + bulk.description
    assert "Lathe" not in text and '"7"' not in text and "Select this object" not in text
    steps = resolve_plan(bulk, {"action": "delete_selected", "rows": ["Dune", "Children of Dune"]})
    selector = 'form[id="changelist-form"] input[type="checkbox"][name="_selected_action"]'
    assert steps[1:3] == [
        Step(action="check", target=Target(css=selector, row="Dune"), value=True),
        Step(action="check", target=Target(css=selector, row="Children of Dune"), value=True),
    ]
    assert steps[-1].action == "submit"


def test_add_and_change_forms_are_named_from_the_heading_they_sit_under_not_the_items_title() -> None:
    add = {t.name: t for t in admin_tools("book_add")}
    change = {t.name: t for t in admin_tools("book_change")}
    assert "add_book" in add and add["add_book"].title == "Add book"  # the submit says only "Save"
    # the author select's values are row ids ("1", "2"): the option's text is what is picked
    author = add["add_book"].input_schema["properties"]["author"]
    assert author["enum"] == ["Frank Herbert", "Ursula K. Le Guin"] and "1:" not in author["description"]
    steps = resolve_plan(add["add_book"], {"title": "T", "author": "Frank Herbert", "year": 1})
    step = next(s for s in steps if s.action == "select")
    assert step.value == "Frank Herbert"
    assert "change_book" in change  # h1 "Change book", not the h2 under it ("Dune": an item's title)
    description = change["change_book"].description
    assert "(POST this page;" in description and "/1/" not in description  # the page names the book: left out
    assert "Dune" not in description


def test_the_login_form_description_holds_no_query_string() -> None:
    (log_in,) = admin_tools("login")  # the theme toggle beside it is not a task (chrome.py)
    assert log_in.name == "log_in"
    assert "?next" not in log_in.description and "POST …/login/;" in log_in.description


@pytest.mark.parametrize("page", ["login", *LIST_PAGES, "book_add", "book_change"])
def test_names_titles_and_descriptions_on_every_admin_page(page: str) -> None:
    tools = admin_tools(page)
    names = [t.name for t in tools]
    assert not any(re.search(r"\d", n) for n in names), names  # never search_2, never an id
    assert len({t.description for t in tools}) == len(tools)  # no two alike
    for tool in tools:
        assert "Returns" in tool.description, tool.description  # what the model gets back
        assert tool.title is None or tool.title.count("(") == tool.title.count(")"), tool.title


# ----------------------------------------------------------------- search boxes


def test_two_search_boxes_are_told_apart_by_where_they_are_never_by_a_number() -> None:
    tools = tools_on("""
      <header><form action="/search" data-tabmcp-ref="e1"><input name="q" aria-label="Search" data-tabmcp-ref="e2">
        </form></header>
      <aside aria-label="Filters"><form action="/books" data-tabmcp-ref="e3">
        <input type="search" name="term" aria-label="Search" data-tabmcp-ref="e4"></form></aside>""")
    assert [t.name for t in tools] == ["search", "search_books"]  # the filter box sends to /books
    assert len({t.description for t in tools}) == 2


def test_a_box_labelled_for_what_it_searches_is_named_so() -> None:
    tools = tools_on("""<main><h1>Library</h1><form role="search" action="/books" data-tabmcp-ref="e1">
      <input type="search" name="q" placeholder="Search 1,234 books" data-tabmcp-ref="e2"></form></main>""")
    assert [(t.name, t.title) for t in tools] == [("search_books", "Search books")]  # the count left out


def test_the_same_search_twice_is_one_tool() -> None:
    """A header's box and a "quick search" that send the same field to the same place."""
    tools = tools_on("""
      <header><form action="/search" data-tabmcp-ref="e1"><input name="q" aria-label="Search" data-tabmcp-ref="e2">
        </form></header>
      <main><form action="/search" data-tabmcp-ref="e3"><input type="search" name="q" aria-label="Quick search"
        data-tabmcp-ref="e4"></form></main>""")
    assert [t.name for t in tools] == ["search"]


# ----------------------------------------------------------------- forms


def test_two_save_forms_are_named_by_what_each_saves() -> None:
    tools = tools_on("""<main>
      <section><h2>Profile</h2><form method="post" action="/me" data-tabmcp-ref="e1">
        <input name="name" aria-label="Name" data-tabmcp-ref="e2">
        <button data-tabmcp-ref="e3">Save</button></form></section>
      <section><h2>Change your password</h2><form method="post" action="/me" data-tabmcp-ref="e4">
        <input type="password" name="pw" aria-label="New password" data-tabmcp-ref="e5">
        <button data-tabmcp-ref="e6">Save</button></form></section></main>""")
    assert [(t.name, t.title) for t in tools] == [
        ("save_profile", "Save profile"),  # a one-word heading names what the vague "Save" saves
        ("change_your_password", "Change your password"),
    ]


def test_forms_nothing_tells_apart_give_one_tool() -> None:
    same = '<form method="post" action="/like" data-tabmcp-ref="{0}"><button data-tabmcp-ref="b{0}">Like</button>'
    same += "</form>"
    tools = tools_on(same.format("e1") + same.format("e2"))
    assert [t.name for t in tools] == ["like"]


def test_a_form_with_nothing_to_fill_or_press_is_no_tool() -> None:
    """A filter form the page's scripts fill in first, its Apply button hidden until then."""
    tools = tools_on("""<form id="filter_form" method="get" action="/books" data-tabmcp-ref="e1">
      <button type="submit" data-tabmcp-ref="e2" data-tabmcp-hidden="1">Apply</button></form>""")
    assert tools == ()


# ----------------------------------------------------------------- rows of a list

ROW = """<tr><td><input type="checkbox" name="rowid" value="{id}" data-tabmcp-ref="c{id}"></td>
  <td>{title}</td><td><form class="icon" method="POST" action="/admin/book/delete/" data-tabmcp-ref="f{id}">
  <input type="hidden" name="id" value="{id}" data-tabmcp-ref="h{id}" data-tabmcp-hidden="1">
  <button title="Delete Record" data-tabmcp-ref="b{id}">Delete Record</button></form></td></tr>"""


def row_list(*books: tuple[int, str]) -> str:
    rows = "".join(ROW.format(id=i, title=t) for i, t in books)
    return f"""<main><h1>Book</h1><table><thead><tr><th scope="col"></th><th scope="col">Title</th>
      <th scope="col"></th></tr></thead><tbody>{rows}</tbody></table></main>"""


def test_a_form_in_each_row_is_one_tool_taking_the_row_by_its_text() -> None:
    tools = tools_on(row_list((91, "The Bright Atlas"), (71, "Harbor Lights")), "https://app.test/admin/book/")
    delete = next(t for t in tools if t.name == "delete_record")
    assert delete.input_schema["required"] == [ROW_ARG]
    assert delete.hints.destructive
    forms = 'form[action="/admin/book/delete/"][method="POST"]'
    assert resolve_plan(delete, {ROW_ARG: "Harbor Lights"}) == [
        Step(action="submit", target=Target(css=forms, row="Harbor Lights"))
    ]
    # one row (a search with one match) or other rows: the same tools
    for books in ([(5, "Harbor Lights")], [(3, "Atlas"), (4, "Bright"), (8, "Lights")]):
        again = tools_on(row_list(*books), "https://app.test/admin/book/?search=x")
        assert listed(again) == listed(tools)


def test_row_checkboxes_outside_any_form_give_select_rows() -> None:
    tools = tools_on(row_list((91, "The Bright Atlas"), (71, "Harbor Lights")), "https://app.test/admin/book/")
    select = next(t for t in tools if t.name == "select_rows")
    assert resolve_plan(select, {ROWS_ARG: ["Harbor Lights"]}) == [
        Step(action="check", target=Target(css='input[type="checkbox"][name="rowid"]', row="Harbor Lights"), value=True)
    ]


def test_a_select_of_ids_takes_the_options_texts_unless_they_cannot_stand_for_them() -> None:
    def enum_of(options: str) -> list[str]:
        (tool,) = tools_on(f'''<form method="post" action="/issue" data-tabmcp-ref="e1">
          <select name="status" aria-label="Status" data-tabmcp-ref="e2">{options}</select>
          <button data-tabmcp-ref="e3">Create issue</button></form>''')
        return tool.input_schema["properties"]["status"]["enum"]

    ids = '<option value="-1">- no selection -</option><option value="1">unread</option>'
    ids += '<option value="2">chatting</option>'
    assert enum_of(ids) == ["- no selection -", "unread", "chatting"]
    words = '<option value="open">Open</option><option value="closed">Closed</option>'
    assert enum_of(words) == ["open", "closed"]  # plain values people could read: kept
    clashing = '<option value="1">2</option><option value="2">3</option>'
    assert enum_of(clashing) == ["1", "2"]  # a text that is another option's value would pick that one


def test_a_checkbox_in_a_layout_table_is_not_a_row_pick() -> None:
    """An old login form laid out in a table: "Remember me" is a boolean, not a row."""
    tools = tools_on("""<form method="post" action="/login" data-tabmcp-ref="e1"><table>
      <tr><td><input name="user" aria-label="User" data-tabmcp-ref="e2"></td></tr>
      <tr><td><input type="checkbox" name="remember" aria-label="Remember me" data-tabmcp-ref="e3"></td></tr>
      </table><button data-tabmcp-ref="e4">Log in</button></form>""")
    assert tools[0].input_schema["properties"]["remember"]["type"] == "boolean"


# ----------------------------------------------------------------- the pieces


def test_row_text_steps_one_per_text_and_refuse_an_empty_one() -> None:
    from tabmcp.introspect.api import PlanError, PlanStep, RowText

    tool = PageTool(
        name="pick",
        description="d",
        input_schema={"type": "object", "properties": {"rows": {"type": "array"}, "row": {"type": "string"}}},
        plan=(PlanStep("check", target=RowText("rows", "input.pick"), value=True),
              PlanStep("submit", target=RowText("row", "form.one"))),
    )
    assert resolve_plan(tool, {"row": " Dune "}) == [Step(action="submit", target=Target(css="form.one", row="Dune"))]
    assert resolve_plan(tool, {}) == []  # not given: skipped, like any argument's step
    with pytest.raises(PlanError, match="texts shown in the rows"):
        resolve_plan(tool, {"rows": ["Dune", " "]})


def test_a_row_goes_with_a_css_target_only() -> None:
    with pytest.raises(ValueError, match="row goes with css"):
        Target(role="checkbox", row="Dune")


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("Toggle theme (current theme", 60, "Toggle theme"),
        ("Export the selected invoices as a spreadsheet", 30, "Export the selected invoices…"),
        ("Short", 60, "Short"),
        ("Archive (3 selected) now and forever", 25, "Archive (3 selected) now…"),
    ],
)
def test_titles_are_cut_at_a_word(text: str, limit: int, expected: str) -> None:
    from tabmcp.introspect.text import cap_words

    assert cap_words(text, limit) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("Save 2", "save"), ("Search 1,234 books", "search_books"), ("Page 3 of 10", "page_of"), ("H2O fix", "h2o_fix")],
)
def test_names_leave_numbers_out(text: str, expected: str) -> None:
    from tabmcp.introspect.text import name_words

    assert name_words(text) == expected


def test_checkboxes_whose_values_their_rows_show_stay_an_enum() -> None:
    """A search form's "show this column" boxes, one per row of a layout: readable choices, not rows."""
    rows = "".join(
        f'<tr><th>{label}:</th><td><input name="{key}" data-tabmcp-ref="i{key}"></td>'
        f'<td><input type="checkbox" name="@columns" value="{key}" data-tabmcp-ref="c{key}"></td></tr>'
        for key, label in (("title", "Title"), ("assignedto", "Assigned to"), ("status", "Status"))
    )
    (tool,) = tools_on(f"""<form method="get" action="/issue" data-tabmcp-ref="e1"><table><thead><tr>
      <th scope="col">Field</th><th scope="col">Value</th><th scope="col">Show</th></tr></thead><tbody>{rows}</tbody>
      </table><button data-tabmcp-ref="e2">Search issues</button></form>""")
    columns = tool.input_schema["properties"]["columns"]
    assert columns["items"]["enum"] == ["title", "assignedto", "status"]


def test_a_heading_that_is_the_button_and_the_pages_item_does_not_name_the_form() -> None:
    """A wiki's save dialog: "Save Travel" on /Handbook/Travel/edit would be a new tool on every page."""
    body = """<div role="dialog"><h5>Save Travel</h5><form id="saveform" action="/Handbook/Travel/save" method="post"
      data-tabmcp-ref="e1"><input name="commit" aria-label="Commit Message" data-tabmcp-ref="e2">
      <button data-tabmcp-ref="e3">Save</button></form></div>"""
    travel = tools_on(body, "https://wiki.test/Handbook/Travel/edit")
    holidays = tools_on(body.replace("Travel", "Holidays"), "https://wiki.test/Handbook/Holidays/edit")
    assert [(t.name, t.title) for t in travel] == [("save", "Save")]
    assert "Travel" not in travel[0].description
    assert listed(travel) == listed(holidays)


def test_items_of_a_list_drawn_as_bare_buttons_are_not_actions() -> None:
    """A mail list whose messages are buttons keyed by id: their names are data, not actions."""
    items = "".join(
        f'<button class="item" data-email-id="k{i}" data-tabmcp-ref="m{i}">OP ops@example.org {subject}</button>'
        for i, subject in enumerate(["Newsletter", "Reminder", "Invoice"])
    )
    tools = tools_on(f"""<header><button class="btn" data-tabmcp-ref="e1">Refresh emails</button>
      <button class="btn" data-tabmcp-ref="e2">Mark all as read</button></header><aside>
      <input placeholder="Search emails..." data-tabmcp-ref="e3"><div>{items}</div></aside>""")
    assert [(t.name, t.title) for t in tools] == [
        ("search_emails", "Search emails"),  # a text box that says it searches, without form or name
        ("refresh_emails", "Refresh emails"),
        ("mark_all_as_read", "Mark all as read"),
    ]


def test_a_form_posting_to_its_own_page_is_not_named_after_that_page() -> None:
    """A form on every page of a docs site: the page's address names the page, not the form."""
    body = """<form data-tabmcp-ref="e1">
      <input type="email" name="newsletter" aria-label="Your email" data-tabmcp-ref="e2">
      <button type="submit" data-tabmcp-ref="e3">Subscribe</button></form>"""
    configuration = tools_on(body, "https://docs.test/guide/configuration/")
    options = tools_on(body, "https://docs.test/reference/options/")
    assert [t.name for t in configuration] == ["subscribe"]
    assert listed(configuration) == listed(options)


def test_a_colour_scheme_switch_is_not_a_tool() -> None:
    """A docs site's colour scheme radios on every page: how the page looks, not a task (chrome.py)."""
    body = """<form data-md-component="palette" data-tabmcp-ref="e1">
      <input type="radio" name="__palette" value="0" aria-label="Switch to dark mode" data-tabmcp-ref="e2">
      <input type="radio" name="__palette" value="1" aria-label="Switch to light mode" data-tabmcp-ref="e3"></form>"""
    assert tools_on(body, "https://docs.test/guide/configuration/") == ()


def test_the_heading_above_a_form_is_not_in_its_description() -> None:
    """A post's title above its comment form: every post would otherwise have its own tool."""
    body = """<main><article><h1>{title}</h1><form method="post" action="/comments" data-tabmcp-ref="e1">
      <textarea name="body" aria-label="Comment" data-tabmcp-ref="e2"></textarea>
      <button data-tabmcp-ref="e3">Post comment</button></form></article></main>"""
    first = tools_on(body.format(title="Hello world"), "https://blog.test/posts/hello-world")
    second = tools_on(body.format(title="Second post"), "https://blog.test/posts/second-post")
    assert [t.name for t in first] == ["post_comment"]
    assert listed(first) == listed(second)


def test_a_heading_that_is_the_pages_address_does_not_name_the_form() -> None:
    body = """<main><h1>{title}</h1><form method="post" action="/comments" data-tabmcp-ref="e1">
      <textarea name="body" aria-label="Comment" data-tabmcp-ref="e2"></textarea>
      <button data-tabmcp-ref="e3">Submit</button></form></main>"""
    first = tools_on(body.format(title="Hello world"), "https://blog.test/posts/hello-world")
    second = tools_on(body.format(title="Second post"), "https://blog.test/posts/second-post")
    assert listed(first) == listed(second)
    assert first[0].name == "submit_comments"  # the vague button with what its action names
