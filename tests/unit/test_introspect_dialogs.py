"""Dialogs drawn out of sight while closed (introspect/dialogs.py): their buttons are no tools, a form
in one stays a tool when a control of the page opens it. Small pages in the markup of several CSS
libraries (Halfmoon, Bootstrap 3/4/5, Bulma, native ``<dialog>``)."""

from __future__ import annotations

import pytest

from tabmcp.introspect.actions import ActionsIntrospector
from tabmcp.introspect.dialogs import closed_dialog
from tabmcp.introspect.forms import FormIntrospector
from tabmcp.page.capture import PageCapture


def capture(body: str) -> PageCapture:
    return PageCapture(url="https://app.test/doc", title="t", html=f"<html><body>{body}</body></html>")


def action_names(body: str) -> list[str]:
    return [t.name for t in ActionsIntrospector().tools(capture(body))]


def form_names(body: str) -> list[str]:
    return [t.name for t in FormIntrospector().tools(capture(body))]


BUTTONS = """<div class="modal-content"><h5>Unsaved changes</h5>
  <button type="button" data-tabmcp-ref="e2">Keep editing</button>
  <button type="button" data-tabmcp-ref="e3">Discard changes</button></div>"""
PAGE = '<main><button type="button" data-tabmcp-ref="e9">Publish page</button></main>'


@pytest.mark.parametrize(
    ("dialog", "closed"),
    [
        ('<div class="modal" role="dialog" data-tabmcp-ref="e1">', True),  # Halfmoon: moved off-screen
        ('<div class="modal show" role="dialog" data-tabmcp-ref="e1">', False),
        ('<div class="modal fade" aria-hidden="true" data-tabmcp-ref="e1">', True),  # Bootstrap 4
        ('<div class="modal fade in" role="dialog" data-tabmcp-ref="e1">', False),  # Bootstrap 3, shown
        ('<div class="modal fade show" aria-modal="true" role="dialog" data-tabmcp-ref="e1">', False),  # 5
        ('<div class="modal" data-tabmcp-ref="e1">', True),  # Bulma, closed
        ('<div class="modal is-active" data-tabmcp-ref="e1">', False),
        ('<div role="dialog" aria-hidden="true" data-tabmcp-ref="e1">', True),
        ('<div role="dialog" data-tabmcp-ref="e1">', False),  # drawn on the page: nothing says it is closed
        ('<div role="alertdialog" aria-modal="true" data-tabmcp-ref="e1">', False),
    ],
)
def test_the_buttons_of_a_closed_dialog_are_no_tools(dialog: str, closed: bool) -> None:
    names = action_names(f"{dialog}{BUTTONS}</div>{PAGE}")
    assert "publish_page" in names
    assert ("keep_editing" in names) is not closed and ("discard_changes" in names) is not closed


def test_a_native_dialog_is_closed_without_its_open_attribute() -> None:
    page = capture('<dialog data-tabmcp-ref="e1"><button data-tabmcp-ref="e2">Keep editing</button></dialog>')
    [button] = page.tree.xpath("//button")
    assert closed_dialog(button) is not None
    opened = capture('<dialog open="" data-tabmcp-ref="e1"><button data-tabmcp-ref="e2">Keep</button></dialog>')
    assert closed_dialog(opened.tree.xpath("//button")[0]) is None


COMMIT = """<div class="modal" id="modal-commit" role="dialog" data-tabmcp-ref="e1"><div class="modal-content">
  <h5>Save page</h5><form id="saveform" action="/save" method="post" data-tabmcp-ref="e2">
  <label for="m" data-tabmcp-ref="e3">Commit message</label>
  <input id="m" name="commit" type="text" data-tabmcp-ref="e4" data-tabmcp-name="Commit message"/>
  <input type="submit" value="Save" data-tabmcp-ref="e5" data-tabmcp-name="Save"/></form></div></div>"""


@pytest.mark.parametrize(
    "opener",
    [
        """<button onclick="app.toggleModal('modal-commit')" data-tabmcp-ref="e8">Save</button>""",
        '<button data-toggle="modal" data-target="#modal-commit" data-tabmcp-ref="e8">Save</button>',
        '<button data-bs-toggle="modal" data-bs-target="#modal-commit" data-tabmcp-ref="e8">Save</button>',
        '<a href="#modal-commit" data-tabmcp-ref="e8">Save</a>',
        '<button aria-controls="modal-commit" data-tabmcp-ref="e8">Save</button>',
    ],
)
def test_a_form_in_a_closed_dialog_is_a_tool_when_the_page_opens_it(opener: str) -> None:
    body = f"{COMMIT}<main>{opener}</main>"
    assert len(form_names(body)) == 1
    assert "save" not in action_names(body)  # the opener gives way to the form's tool


def test_a_form_in_a_closed_dialog_nothing_opens_is_no_tool() -> None:
    assert form_names(f"{COMMIT}<main><p>text</p></main>") == []
    hidden_opener = """<button onclick="app.toggleModal('modal-commit')" data-tabmcp-ref="e8"
      data-tabmcp-hidden="1">Save</button>"""
    assert form_names(f"{COMMIT}<main>{hidden_opener}</main>") == []
