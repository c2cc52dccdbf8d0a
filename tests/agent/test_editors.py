"""Editing code and rich-text editors with synthetic input: each editor's own model is read after each
action (CodeMirror 5 and 6, Monaco, Ace, ProseMirror, a plain contenteditable; the libraries are
installed from npm by ``make editors`` into tests/fixtures/pages/editors/node_modules)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.agent.conftest import AgentPage, eventually

EDITORS = ["cm5", "cm6", "monaco", "ace", "prosemirror", "contenteditable"]
STARTS = {
    "prosemirror": "Dear team,\nthe default note.",
    "contenteditable": "first line\nsecond line",
}
QUERY = "select * from users;\n-- default query"


def open_editor(open_page: Callable[..., AgentPage], name: str) -> AgentPage:
    page = open_page(f"editors/{name}.html")
    page.page.wait_for_function("window.editorReady === true", timeout=20_000)
    return page


def model(page: AgentPage) -> str:
    """The editor's own document (its library's API, in the page)."""
    return page.page.evaluate("window.editorValue()")


def until_model(page: AgentPage, wanted: str) -> None:
    eventually(lambda: model(page) == wanted, f"the editor to hold {wanted!r} (holds {model(page)!r})")


def editor_row(page: AgentPage) -> dict:
    rows = [n for n in page.snapshot()["nodes"] if n["role"] == "textbox"]
    assert len(rows) == 1, rows
    return rows[0]


def one_line(text: str) -> str:
    return " ".join(text.split())


def ok(answer: dict) -> dict:
    assert answer.get("ok") is True, answer
    return answer


@pytest.mark.parametrize("name", EDITORS)
def test_snapshot_shows_the_editors_text(open_page: Callable[..., AgentPage], name: str) -> None:
    page = open_editor(open_page, name)
    assert model(page) == STARTS.get(name, QUERY)
    assert editor_row(page)["value"] == one_line(model(page))  # the snapshot shows a value on one line


@pytest.mark.parametrize("name", EDITORS)
def test_fill_replaces_the_editors_text(open_page: Callable[..., AgentPage], name: str) -> None:
    page = open_editor(open_page, name)
    ref = editor_row(page)["ref"]
    ok(page.act("fill", target={"ref": ref}, text="select count(*) from orders"))
    until_model(page, "select count(*) from orders")
    assert editor_row(page)["value"] == "select count(*) from orders"


@pytest.mark.parametrize("name", EDITORS)
def test_clear_empties_the_editor(open_page: Callable[..., AgentPage], name: str) -> None:
    page = open_editor(open_page, name)
    ok(page.act("clear", target={"ref": editor_row(page)["ref"]}))
    until_model(page, "")


@pytest.mark.parametrize("name", EDITORS)
def test_type_appends_at_the_documents_end(open_page: Callable[..., AgentPage], name: str) -> None:
    page = open_editor(open_page, name)
    ok(page.act("type", target={"ref": editor_row(page)["ref"]}, text=" limit 5"))
    until_model(page, STARTS.get(name, QUERY) + " limit 5")


@pytest.mark.parametrize("name", EDITORS)
def test_select_all_then_typing_replaces(open_page: Callable[..., AgentPage], name: str) -> None:
    page = open_editor(open_page, name)
    ref = editor_row(page)["ref"]
    ok(page.act("press", target={"ref": ref}, key="Control+A"))
    ok(page.act("press", key="x"))
    until_model(page, "x")
    ok(page.act("press", key="Backspace"))
    until_model(page, "")


def test_control_enter_reaches_the_editors_own_binding(open_page: Callable[..., AgentPage]) -> None:
    page = open_editor(open_page, "cm6")
    ok(page.act("fill", target={"ref": editor_row(page)["ref"]}, text="select 1"))
    ok(page.act("press", key="Control+Enter"))
    assert page.text("#ran") == "ran: select 1"
    until_model(page, "select 1")  # the binding ran instead of a line break


# ----------------------------------------------------------------- keys with a person's default actions


def test_escape_closes_a_modal_dialog(open_page: Callable[..., AgentPage]) -> None:
    page = open_page("keys.html")
    ok(page.act("click", target={"css": "#open"}))
    assert page.page.evaluate("document.getElementById('dialog').open")
    ok(page.act("press", key="Escape"))
    assert page.page.evaluate("!document.getElementById('dialog').open")
    assert page.text("#status") == "dialog closed"


def test_control_end_and_home_move_the_caret_in_a_textarea(open_page: Callable[..., AgentPage]) -> None:
    page = open_page("keys.html")
    ok(page.act("press", target={"css": "#notes"}, key="Control+End"))
    ok(page.act("press", key="!"))
    ok(page.act("press", key="Control+Home"))
    ok(page.act("press", key=">"))
    assert page.page.evaluate("document.getElementById('notes').value") == ">line one\nline two!"


def test_control_a_on_the_page_selects_the_page(open_page: Callable[..., AgentPage]) -> None:
    page = open_page("keys.html")
    ok(page.act("press", key="Control+A"))
    assert "Keys" in page.page.evaluate("getSelection().toString()")


def test_enter_in_a_form_field_submits_through_its_default_button(open_page: Callable[..., AgentPage]) -> None:
    page = open_page("keys.html")
    ok(page.act("fill", target={"css": "#user"}, text="ada"))
    ok(page.act("press", key="Enter"))
    assert page.text("#status") == "signed in as ada"


@pytest.mark.parametrize("name", ["cm5", "cm6", "monaco", "ace"])
def test_a_page_just_opened_says_what_its_editor_holds_line_for_line(
    open_page: Callable[..., AgentPage], name: str
) -> None:
    # the summary of a plan that ended in this document (its token is another document's) reads the
    # editor's text as the model would send it back: an empty line is one empty line
    page = open_editor(open_page, name)
    text = "# Runbook\n\n1. Check the lag.\n2. Promote the replica."
    ok(page.act("fill", target={"ref": editor_row(page)["ref"]}, text=text))
    until_model(page, text)
    summary = page.call("summary", {"token": "another-document:1", "results": True})
    assert summary["navigated"] is True and summary["editors"] == [text]
