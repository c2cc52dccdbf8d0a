"""Controls that are how a person works the page, not tasks (introspect/chrome.py): an editor's own
toolbar, layout and look toggles, pager-only forms, dialog openers, and view switchers made one tool.
On saved captures of real apps (tests/fixtures/apps) and on small pages of the same patterns."""

from __future__ import annotations

import json
from functools import cache

from bench.apps.capture import saved_captures
from bench.apps.report import page_tools

from tabmcp.introspect.actions import ActionsIntrospector
from tabmcp.introspect.api import PageTool, resolve_plan
from tabmcp.introspect.chrome import chrome_label, editing_command
from tabmcp.introspect.registry import Registry
from tabmcp.page.capture import PageCapture
from tabmcp.protocol import Step, Target


@cache
def app_tools(app: str, page: str) -> tuple[PageTool, ...]:
    return page_tools(saved_captures(app)[page], Registry.discover())


def capture(body: str) -> PageCapture:
    return PageCapture(url="https://app.test/doc", title="t", html=f"<html><body>{body}</body></html>")


def action_names(body: str) -> list[str]:
    return [t.name for t in ActionsIntrospector().tools(capture(body))]


def listed(tools: list[PageTool] | tuple[PageTool, ...]) -> list[tuple[str, str | None, str, str]]:
    return [(t.name, t.title, t.description, json.dumps(t.input_schema, sort_keys=True)) for t in tools]


# ----------------------------------------------------------------- an editor's own controls

EDITOR = """<div class="cm-editor"><div contenteditable="true" role="textbox" id="doc" data-tabmcp-ref="e9"
  data-tabmcp-widget="editor">text</div></div>"""


def test_a_run_of_editing_buttons_beside_an_editor_is_not_a_tool() -> None:
    """Icon buttons in the page's navbar that act on its editor: the editor is the form's argument."""
    body = f"""<nav><button title="Undo" data-tabmcp-ref="e1"></button><button title="Redo" data-tabmcp-ref="e2">
      </button><button title="Bold (Ctrl-B)" data-tabmcp-ref="e3"></button><button title="Italic" data-tabmcp-ref="e4">
      </button><button title="Search and Replace" data-tabmcp-ref="e5"></button></nav>
      <div><button data-tabmcp-ref="e6">Publish page</button></div>{EDITOR}"""
    assert action_names(body) == ["publish_page"]
    without_editor = body.replace(EDITOR, "")
    assert "bold" in action_names(without_editor)  # no editor on show: nothing says they edit one


def test_a_toolbar_and_an_aria_controls_bound_to_the_editor_are_not_tools() -> None:
    toolbar = f"""<div role="toolbar"><button aria-label="Bold" data-tabmcp-ref="e1"></button>
      <span><button aria-label="Insert link" data-tabmcp-ref="e2"></button></span>
      <button aria-label="Word count" data-tabmcp-ref="e3"></button></div>{EDITOR}"""
    assert action_names(toolbar) == []  # the whole toolbar is the editor's, its word count too
    bound = f"""<div><button aria-controls="doc" data-tabmcp-ref="e1">Spell check</button></div>
      <div><button data-tabmcp-ref="e2">Archive note</button></div>{EDITOR}"""
    assert action_names(bound) == ["archive_note"]


def test_unrelated_buttons_are_not_taken_for_an_editor_toolbar_but_its_preview_is_the_editors() -> None:
    body = f"""<div><button data-tabmcp-ref="e1">Link</button><button data-tabmcp-ref="e2">Share draft</button>
      <button data-tabmcp-ref="e3">Export PDF</button><button data-tabmcp-ref="e4">Edit with live preview</button>
      </div>{EDITOR}"""
    assert action_names(body) == ["link", "share_draft", "export_pdf"]  # one editing word is not a toolbar
    assert "edit_with_live_preview" in action_names(body.replace(EDITOR, ""))  # no editor: nothing to preview


def test_otter_wiki_editor_toolbar_leaves_only_the_save_form() -> None:
    tools = {t.name: t for t in app_tools("otterwiki", "edit")}
    titles = {t.title for t in tools.values()}
    assert not titles & {"Undo", "Redo", "Bold", "Italic", "Search", "Search and Replace", "List Menu", "Preview"}
    assert "content" in tools["save"].schema["properties"]  # the editor, an argument of its form's tool
    assert "save_navigation" not in tools  # the navbar's Save only opens the dialog whose form is `save`


def test_editing_commands_are_read_without_their_shortcut() -> None:
    assert editing_command("Bold (Ctrl-B)") and editing_command("Insert table") and editing_command("Undo")
    assert not editing_command("Publish") and not editing_command("Delete page")


# ----------------------------------------------------------------- layout and look


def test_layout_and_look_toggles_are_not_tools() -> None:
    for label in ("Toggle sidebar", "Collapse all", "Hide the navigation", "Switch to dark mode",
                  "Toggle theme", "Enter full screen", "Light theme", "Switch theme", "Colour scheme"):
        assert chrome_label(label), label
    for label in ("Delete email", "Show issue", "Open ticket", "Mark all as read", "Preview", "Expense report",
                  "Activate theme", "Delete theme", "Toggle done", "Expand"):  # a CMS's themes are its data
        assert not chrome_label(label), label
    body = """<div><button aria-expanded="true" aria-label="Toggle sidebar" data-tabmcp-ref="e1"></button>
      <button data-tabmcp-ref="e2">Collapse all</button><button data-tabmcp-ref="e3">Switch to dark mode</button>
      <button aria-expanded="false" data-tabmcp-ref="e5">Toggle status</button>
      <button aria-controls="details" data-tabmcp-ref="e6">Expand</button>
      <button data-tabmcp-ref="e7">Toggle done</button>
      <button data-tabmcp-ref="e4">Refresh emails</button></div>"""
    # a disclosure (aria-expanded, aria-controls) toggles a region; a plain "Toggle done" is a task
    assert action_names(body) == ["toggle_done", "refresh_emails"]


def test_wagtail_editor_side_panel_toggles_are_not_tools() -> None:
    for page in ("edit", "add"):
        names = {t.name for t in app_tools("wagtail", page)}
        assert "save_draft" in names
        assert not {n for n in names if n.startswith(("toggle", "collapse"))}, names


def test_a_dropdown_toggle_is_not_a_tool() -> None:
    body = """<div class="dropdown"><button data-toggle="dropdown" data-tabmcp-ref="e1">Table tools</button></div>
      <div><button data-bs-toggle="dropdown" data-tabmcp-ref="e2">Export options</button></div>"""
    assert action_names(body) == []  # the menu's items are the actions


def test_a_colour_scheme_form_without_submit_is_not_a_tool_but_a_preferences_form_is() -> None:
    names = {t.name for t in app_tools("mkdocs", "home")}
    assert "palette" not in names and "search" in names
    prefs = """<form method="post" action="/account/theme" data-tabmcp-ref="e1">
      <select name="theme" aria-label="Theme" data-tabmcp-ref="e2"><option>Light</option><option>Dark</option></select>
      <button type="submit" data-tabmcp-ref="e3">Save preferences</button></form>"""
    assert [t.name for t in Registry.discover().page_tools(capture(prefs))] == ["save_preferences"]


# ----------------------------------------------------------------- pager forms and dialog openers


def test_a_pager_only_form_is_the_lists_page_argument_not_a_tool() -> None:
    tools = app_tools("sqliteweb", "query_result")
    assert [t.name for t in tools] == ["browse_list", "execute"]  # not submit_form "«"
    assert "page" in tools[0].schema["properties"]


def test_a_button_that_opens_a_dialog_with_a_form_is_not_a_tool() -> None:
    body = """<div role="dialog" id="commit-dialog"><form method="post" action="/save" data-tabmcp-ref="e1">
      <input name="message" aria-label="Message" data-tabmcp-ref="e2"><button type="submit" data-tabmcp-ref="e3">Save
      </button></form></div><div><button onclick="app.toggleModal('commit-dialog')" data-tabmcp-ref="e4">Save page
      </button><button data-target="#commit-dialog" data-tabmcp-ref="e5">Commit now</button>
      <button onclick="app.toggleModal('other')" data-tabmcp-ref="e6">Show help</button></div>"""
    assert action_names(body) == ["show_help"]


# ----------------------------------------------------------------- view switchers

SWITCHER = """<div class="tabs"><button class="tab {html}" data-tabmcp-ref="e1" {off}>HTML</button>
  <button class="tab {text}" data-tabmcp-ref="e2">Plain Text</button>
  <button class="tab {headers}" data-tabmcp-ref="e3">Headers</button></div>
  <div><button data-tabmcp-ref="e4">Reply to sender</button></div>"""


def test_a_view_switcher_is_one_tool_whose_choices_are_all_the_views() -> None:
    on_text = capture(SWITCHER.format(html="", text="tab-active", headers="", off="disabled"))
    on_headers = capture(SWITCHER.format(html="", text="", headers="tab-active", off=""))
    first = ActionsIntrospector().tools(on_text)
    assert [t.name for t in first] == ["switch_view", "reply_to_sender"]
    view = first[0]
    assert view.schema["properties"]["view"]["enum"] == ["HTML", "Plain Text", "Headers"]
    assert view.schema["required"] == ["view"] and view.hints.read_only
    assert resolve_plan(view, {"view": "Headers"}) == [Step(action="click", target=Target(ref="e3"))]
    assert listed(ActionsIntrospector().tools(on_headers)) == listed(first)  # another view: the same list


def test_a_switcher_marked_by_aria_is_one_tool_and_an_action_bar_is_not_a_switcher() -> None:
    aria = """<div><button aria-pressed="true" data-tabmcp-ref="e1">Day</button>
      <button aria-pressed="false" data-tabmcp-ref="e2">Week</button>
      <button aria-pressed="false" data-tabmcp-ref="e3">Month</button></div>"""
    assert action_names(aria) == ["switch_view"]
    actions = """<div><button class="btn btn-primary" data-tabmcp-ref="e1">New issue</button>
      <button class="btn" data-tabmcp-ref="e2">Import issues</button>
      <button class="btn" data-tabmcp-ref="e3">Export issues</button></div>"""
    assert action_names(actions) == ["new_issue", "import_issues", "export_issues"]  # actions, not views


def test_maildev_message_views_are_one_tool() -> None:
    tools = {t.name: t for t in app_tools("maildev", "message")}
    assert tools["switch_view"].schema["properties"]["view"]["enum"] == ["HTML", "Plain Text", "Headers", "Source"]
    assert not {"plain_text", "headers", "source", "html"} & set(tools)
    assert {"delete_email", "download_email", "search_emails"} <= set(tools)
