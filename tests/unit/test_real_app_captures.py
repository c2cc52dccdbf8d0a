"""The introspector registry on saved captures of real open-source apps (bench/apps, tests/fixtures/apps):
what a person would expect of the tools each page yields. The facts asserted are stable ones (which
field a tool writes from an argument, that a login tool takes the user and the password), not tool
names, which improve on their own. ``python -m bench.apps report`` lists what is still wrong."""

from __future__ import annotations

from functools import cache

import pytest
from bench.apps import NAMES
from bench.apps.capture import saved_captures
from bench.apps.quality import argument_refs
from bench.apps.report import page_tools

from tabmcp.introspect.api import PageTool, RowText
from tabmcp.introspect.registry import Registry
from tabmcp.page.capture import REF_ATTR, PageCapture

ALL_PAGES = [(app, page) for app in NAMES for page in saved_captures(app)]


@cache
def registry() -> Registry:
    return Registry.discover()


@cache
def captured(app: str, page: str) -> PageCapture:
    return saved_captures(app)[page]


@cache
def tools_of(app: str, page: str) -> tuple[PageTool, ...]:
    return page_tools(captured(app, page), registry())


def writers(app: str, page: str, xpath: str) -> list[PageTool]:
    """The tools that write the element(s) at ``xpath`` from one of their arguments."""
    capture = captured(app, page)
    refs = {str(e.get(REF_ATTR)) for e in capture.tree.xpath(xpath) if e.get(REF_ATTR)}
    assert refs, f"{app}/{page}: nothing at {xpath} (the saved capture changed?)"
    written = argument_refs(tools_of(app, page))
    return [t for t in tools_of(app, page) if written[t.name] & refs]


def argument_for(tool: PageTool, capture: PageCapture, xpath: str) -> str:
    """The argument of ``tool`` that writes the element at ``xpath``."""
    refs = {str(e.get(REF_ATTR)) for e in capture.tree.xpath(xpath)}
    for step in tool.plan:
        if getattr(step.target, "ref", None) in refs and hasattr(step.value, "name"):
            return str(step.value.name)  # type: ignore[union-attr]
    raise AssertionError(f"{tool.name} does not write {xpath} from an argument")


def test_every_app_has_saved_captures() -> None:
    for app in NAMES:
        assert len(saved_captures(app)) >= 3, f"{app}: run `python -m bench.apps capture {app}`"


@pytest.mark.parametrize(("app", "page"), ALL_PAGES)
def test_every_page_is_introspected_without_an_introspector_failing(app: str, page: str) -> None:
    tools_of(app, page)
    assert not registry().failures, registry().failures
    for tool in tools_of(app, page):
        assert tool.description and tool.schema.get("type") == "object"


# ----------------------------------------------------------------- Flask-Admin


@pytest.mark.parametrize("page", ["books", "books_search", "books_ticked"])
def test_flask_admin_list_search_box_is_an_argument(page: str) -> None:
    search = writers("flaskadmin", page, "//input[@name='search']")
    assert len(search) == 1
    assert search[0].schema["properties"]  # the query is an argument, not what the box held


@pytest.mark.parametrize("page", ["book_new", "book_new_invalid", "book_edit"])
def test_flask_admin_book_form_takes_title_and_numbers_as_arguments(page: str) -> None:
    capture = captured("flaskadmin", page)
    [form] = writers("flaskadmin", page, "//input[@name='title']")
    assert writers("flaskadmin", page, "//input[@name='year']") == [form]
    year = argument_for(form, capture, "//input[@name='year']")
    assert form.schema["properties"][year]["type"] == "integer"
    assert not form.hints.read_only


# ----------------------------------------------------------------- sqlite-web


def test_sqlite_web_login_takes_the_password() -> None:
    [login] = writers("sqliteweb", "login", "//input[@type='password']")
    password = argument_for(login, captured("sqliteweb", "login"), "//input[@type='password']")
    assert login.schema["properties"][password]["type"] == "string"


@pytest.mark.parametrize("page", ["tables", "query", "query_result"])
def test_sqlite_web_sql_box_is_a_string_argument(page: str) -> None:
    [run] = writers("sqliteweb", page, "//textarea[@name='sql']")
    sql = argument_for(run, captured("sqliteweb", page), "//textarea[@name='sql']")
    assert run.schema["properties"][sql]["type"] == "string"


def test_sqlite_web_insert_form_takes_each_column() -> None:
    [insert] = writers("sqliteweb", "insert", "//*[@name='name']")
    assert writers("sqliteweb", "insert", "//*[@name='email']") == [insert]


# ----------------------------------------------------------------- An Otter Wiki


@pytest.mark.parametrize("page", ["login", "login_failed"])
def test_otterwiki_login_takes_email_and_password(page: str) -> None:
    capture = captured("otterwiki", page)
    [login] = writers("otterwiki", page, "//input[@name='password']")
    assert writers("otterwiki", page, "//input[@name='email']") == [login]
    for xpath in ("//input[@name='password']", "//input[@name='email']"):
        assert login.schema["properties"][argument_for(login, capture, xpath)]["type"] == "string"


@pytest.mark.parametrize("page", ["home", "page", "index", "search"])
def test_otterwiki_search_box_is_an_argument(page: str) -> None:
    [search] = writers("otterwiki", page, "//input[@name='query' and not(@data-tabmcp-hidden)]")
    assert search.hints.read_only or "search" in search.name


def test_otterwiki_new_page_takes_its_name() -> None:
    assert len(writers("otterwiki", "create", "//input[@name='pagename']")) == 1


def test_otterwiki_save_takes_the_editor_outside_its_form() -> None:
    # CodeMirror 6 stands outside the save form, whose script copies it into the hidden `content` field
    capture = captured("otterwiki", "edit")
    [save] = writers("otterwiki", "edit", "//*[@data-tabmcp-widget='editor']")
    assert save.element_ref == capture.tree.xpath("//input[@name='content']")[0].getparent().get(REF_ATTR)
    content = argument_for(save, capture, "//*[@data-tabmcp-widget='editor']")
    assert content == "content" and content not in save.schema.get("required", [])
    assert [s.action for s in save.plan][-2:] == ["fill", "submit"]  # the editor filled, then the form sent


def test_otterwiki_edit_lists_no_button_of_its_closed_dialogs() -> None:
    # both modals are drawn out of sight while closed: the "Unsaved changes" buttons are no tools, the
    # commit dialog's form (opened by the page's Save button) stays one
    capture = captured("otterwiki", "edit")
    leave = {str(e.get(REF_ATTR)) for e in capture.tree.xpath("//*[@id='modal-leave']//button")}
    assert leave and not {t.element_ref for t in tools_of("otterwiki", "edit")} & leave
    assert len(writers("otterwiki", "edit", "//input[@name='commit']")) == 1


# ----------------------------------------------------------------- Roundup


def test_roundup_login_box_takes_user_and_password() -> None:
    capture = captured("roundup", "home_anonymous")
    [login] = writers("roundup", "home_anonymous", "//input[@name='__login_password']")
    assert writers("roundup", "home_anonymous", "//input[@name='__login_name']") == [login]
    for field in ("__login_name", "__login_password"):
        assert argument_for(login, capture, f"//input[@name='{field}']") in login.schema.get("required", [])


@pytest.mark.parametrize("page", ["home_anonymous", "issues", "issues_page2", "issue", "users"])
def test_roundup_quick_search_is_an_argument(page: str) -> None:
    assert len(writers("roundup", page, "//input[@name='@search_text' and @id='search-text']")) == 1


@pytest.mark.parametrize("page", ["issue", "issue_new", "issue_new_invalid"])
def test_roundup_issue_form_takes_title_and_message(page: str) -> None:
    [form] = writers("roundup", page, "//input[@name='title']")
    assert writers("roundup", page, "//textarea[@name='@note']") == [form]
    assert not form.hints.read_only


def test_roundup_search_page_takes_text_and_title() -> None:
    [search] = writers("roundup", "search", "//input[@name='title']")
    assert writers("roundup", "search", "//input[@name='@search_text' and not(@id='search-text')]") == [search]


# ----------------------------------------------------------------- MailDev


def clickers(app: str, page: str, xpath: str) -> list[PageTool]:
    """The tools that press the element at ``xpath``."""
    capture = captured(app, page)
    refs = {str(e.get(REF_ATTR)) for e in capture.tree.xpath(xpath)}
    assert refs, f"{app}/{page}: nothing at {xpath}"
    return [t for t in tools_of(app, page)
            if t.element_ref in refs or any(getattr(s.target, "ref", None) in refs for s in t.plan)]


@pytest.mark.parametrize("page", ["inbox", "search", "message"])
def test_maildev_delete_all_is_a_tool_that_writes(page: str) -> None:
    [delete_all] = clickers("maildev", page, "//button[@aria-label='Delete all emails']")
    assert not delete_all.hints.read_only


def test_maildev_open_message_offers_its_own_delete() -> None:
    [delete] = clickers("maildev", "message", "//button[@aria-label='Delete email']")
    assert not delete.hints.read_only


# ----------------------------------------------------------------- MkDocs Material


@pytest.mark.parametrize("page", ["home", "page", "search", "reference"])
def test_mkdocs_site_search_is_an_argument(page: str) -> None:
    [search] = writers("mkdocs", page, "//input[contains(@class, 'md-search__input')]")
    assert search.schema.get("required")
    # its form sends nothing: the results the page shows as the query is typed answer, and one opens
    assert [s.action for s in search.plan] == ["fill", "results"]
    assert "result" in search.schema["properties"] and "result" not in search.schema["required"]


# ----------------------------------------------------------------- Wagtail


def test_wagtail_login_takes_username_and_password() -> None:
    [login] = writers("wagtail", "login", "//input[@name='password']")
    assert writers("wagtail", "login", "//input[@name='username']") == [login]
    assert set(login.schema.get("required", [])) >= {
        argument_for(login, captured("wagtail", "login"), f"//input[@name='{n}']") for n in ("username", "password")}


@pytest.mark.parametrize("page", ["dashboard", "explorer", "explorer_page2", "search", "users"])
def test_wagtail_admin_search_is_an_argument(page: str) -> None:
    assert writers("wagtail", page, "//input[@name='q' and not(@data-tabmcp-hidden)]")


def test_wagtail_fields_the_page_filled_are_optional() -> None:
    # the edit page serves the story's title, date and intro: required by the form, not by its tool
    [edit] = writers("wagtail", "edit", "//input[@name='date']")
    assert not set(edit.schema.get("required", [])) & {"title", "date", "intro"}
    assert "filled in already" in edit.schema["properties"]["date"]["description"]
    [add] = writers("wagtail", "add", "//input[@name='date']")
    assert {"title", "date", "intro"} <= set(add.schema["required"])  # the add page serves them empty


@pytest.mark.parametrize("page", ["edit", "add"])
def test_wagtail_story_form_takes_title_and_intro(page: str) -> None:
    [form] = writers("wagtail", page, "//input[@name='title']")
    assert writers("wagtail", page, "//input[@name='intro']") == [form]
    assert not form.hints.read_only


# ----------------------------------------------------------------- rows that open (any app)


def row_openers(app: str, page: str) -> list[PageTool]:
    """The tools that click one row of a list, the row picked by the text the model gives."""
    return [
        t for t in tools_of(app, page)
        if any(s.action == "click" and isinstance(s.target, RowText) for s in t.plan)
    ]


@pytest.mark.parametrize(
    ("app", "page", "title"),
    [
        ("otterwiki", "search", "Runbooks/Database Failover"),  # results written as linked titles
        ("wagtail", "search", "Birds of the Harbor"),  # a table's title cell
        ("maildev", "inbox", "Contract draft v1042"),  # rows drawn as buttons beside the message
        ("roundup", "users", "carol"),  # the sidebar's "Show issue: [number]" opens issues, not users
    ],
)
def test_a_list_whose_rows_open_has_one_tool_taking_the_row_text(app: str, page: str, title: str) -> None:
    found = row_openers(app, page)
    assert len(found) == 1, [t.name for t in tools_of(app, page)]
    tool = found[0]
    props = tool.schema["properties"]
    assert tool.schema["required"] == list(props) and len(props) == 1
    arg = next(iter(props.values()))
    assert arg["type"] == "string" and "enum" not in arg  # no live data: the row is resolved when it runs
    assert title.lower() not in f"{tool.description} {tool.title} {arg}".lower()
    assert "returns the page it opens" in tool.description.lower()
    assert title in captured(app, page).tree.text_content()  # the row the model would name is on the page


@pytest.mark.parametrize(
    ("app", "page"),
    [
        ("sqliteweb", "customers_content"),  # a plain data table: its rows open nothing
        ("roundup", "issues"),  # the sidebar's "Show issue: [number]" opens these rows already
        ("otterwiki", "login"),  # two links under a form are no list
        ("otterwiki", "edit"),  # nor is a dialog's row of buttons
        ("flaskadmin", "books"),  # rows whose only links are icons (edit, delete)
    ],
)
def test_no_row_tool_where_no_row_opens_or_another_tool_opens_them(app: str, page: str) -> None:
    assert row_openers(app, page) == []


def test_maildev_search_keeps_the_inbox_row_tool_and_no_row_is_a_tool_of_its_own() -> None:
    inbox, searched, message = (row_openers("maildev", p) for p in ("inbox", "search", "message"))
    assert [t.schema for t in inbox] == [t.schema for t in searched] == [t.schema for t in message]
    # the open message's row (marked selected, so unlike its siblings) is no button tool named after the mail
    assert not [t.name for t in tools_of("maildev", "message") if "example" in t.name or "reminder" in t.name]
