"""The generic primary-actions introspector: clearly named buttons outside forms."""

from __future__ import annotations

from tabmcp.introspect.actions import MAX_ACTIONS, ActionsIntrospector
from tabmcp.introspect.api import PlanStep, ToolHints, resolve_plan
from tabmcp.introspect.registry import Registry
from tabmcp.page.capture import PageCapture
from tabmcp.protocol import Step, Target


def capture(body: str) -> PageCapture:
    return PageCapture(url="https://repo.test/acme/widgets", title="t", html=f"<html><body>{body}</body></html>")


def action_names(body: str) -> list[str]:
    return [t.name for t in ActionsIntrospector().tools(capture(body))]


# A repository header as on a code-hosting site: toolbar buttons outside any form.
REPO_HEADER = """<div class="pagehead-actions">
  <button data-tabmcp-ref="e1" aria-pressed="false"><svg aria-hidden="true"></svg> Star</button>
  <button data-tabmcp-ref="e2"><svg></svg>Fork</button>
  <span role="button" tabindex="0" data-tabmcp-ref="e3">Watch</span>
  <button data-tabmcp-ref="e4" aria-label="Delete repository"><svg></svg></button>
  <input type="button" value="Download ZIP" data-tabmcp-ref="e5">
</div>"""


def test_clearly_named_buttons_become_no_argument_tools() -> None:
    tools = ActionsIntrospector().tools(capture(REPO_HEADER))
    assert [t.name for t in tools] == ["star", "fork", "watch", "delete_repository", "download_zip"]
    star = tools[0]
    assert star.title == "Star"
    assert star.input_schema == {"type": "object", "properties": {}, "additionalProperties": False}
    assert star.plan == (PlanStep("click", target=Target(ref="e1")),)
    assert star.element_ref == "e1"
    assert star.hints == ToolHints(read_only=False, destructive=False, idempotent=False)
    assert star.description.startswith('Click the "Star" button on this page.')
    assert resolve_plan(star, {}) == [Step(action="click", target=Target(ref="e1"))]
    assert [t.rank for t in tools] == [50, 51, 52, 53, 54]


def test_destructive_buttons_are_marked_and_say_so() -> None:
    tools = {t.name: t for t in ActionsIntrospector().tools(capture(REPO_HEADER))}
    delete = tools["delete_repository"]
    assert delete.hints.destructive is True
    assert delete.description.startswith("Destructive: ")
    assert not tools["fork"].hints.destructive


def test_vague_icon_only_and_too_long_names_are_skipped() -> None:
    body = """<button data-tabmcp-ref="e1">×</button><button data-tabmcp-ref="e2">…</button>
      <button data-tabmcp-ref="e3">More</button><button data-tabmcp-ref="e4"><svg></svg></button>
      <button data-tabmcp-ref="e5">X</button><button data-tabmcp-ref="e6">Close</button>
      <button data-tabmcp-ref="e7">{long}</button><button data-tabmcp-ref="e8">42</button>
      <button data-tabmcp-ref="e9"><img src="i.png" alt="Refresh feed"></button>""".replace("{long}", "word " * 12)
    assert action_names(body) == ["refresh_feed"]  # an image's alt text names its button


def test_buttons_in_forms_search_landmarks_and_menus_are_skipped() -> None:
    body = """<form data-tabmcp-ref="e1"><button data-tabmcp-ref="e2">Save draft</button></form>
      <button form="f" data-tabmcp-ref="e3">Submit order</button>
      <div role="search"><button data-tabmcp-ref="e4">Search the docs</button></div>
      <div role="menu"><div role="button" data-tabmcp-ref="e5">Rename file</div></div>
      <div><input type="text" name="q" data-tabmcp-ref="e6"><button data-tabmcp-ref="e7">Find it</button></div>
      <button data-tabmcp-ref="e8">Archive</button>"""
    assert action_names(body) == ["archive"]


def test_hidden_disabled_and_unreferenced_buttons_are_skipped() -> None:
    body = """<button data-tabmcp-ref="e1" data-tabmcp-hidden="1">Hidden one</button>
      <button disabled="" data-tabmcp-ref="e2">Disabled one</button>
      <div role="button" aria-disabled="true" data-tabmcp-ref="e3">Aria disabled</div>
      <button>No ref</button><button data-tabmcp-ref="e4">Mark as read</button>"""
    assert action_names(body) == ["mark_as_read"]


def test_menu_toggles_are_not_actions_but_dialog_openers_with_a_clear_name_are() -> None:
    """A menu toggle only opens its menu (the items are the actions); a dialog opener starts a task."""
    body = """<button aria-haspopup="menu" data-tabmcp-ref="e1">Labels</button>
      <button aria-haspopup="true" data-tabmcp-ref="e2">Move to folder</button>
      <button aria-haspopup="dialog" data-tabmcp-ref="e3">New issue</button>
      <button aria-haspopup="dialog" data-tabmcp-ref="e4">Share</button>"""
    assert action_names(body) == ["new_issue"]


def test_a_name_on_several_buttons_is_ambiguous_and_skipped() -> None:
    repeated = "".join(f'<div class="message"><button data-tabmcp-ref="r{i}">Reply</button></div>' for i in range(3))
    assert action_names(repeated + '<button data-tabmcp-ref="c1">Compose</button>') == ["compose"]


def test_buttons_of_one_row_among_many_are_skipped() -> None:
    body = """<table><tr role="row"><td><div role="button" aria-label="Not starred" data-tabmcp-ref="s1"></div></td>
      <td>Build failed</td></tr></table>
      <div role="grid"><div role="row"><span role="gridcell"><button data-tabmcp-ref="g1">Open item</button></span>
      </div></div><button data-tabmcp-ref="b1">Select all</button>"""
    assert action_names(body) == ["select_all"]


def test_the_list_is_capped() -> None:
    many = "".join(f'<button data-tabmcp-ref="m{i}">Run task {chr(97 + i)}</button>' for i in range(20))
    tools = ActionsIntrospector().tools(capture(many))
    assert [t.name for t in tools][:2] == ["run_task_a", "run_task_b"]
    assert len(tools) == MAX_ACTIONS


def test_counters_are_not_part_of_the_name() -> None:
    body = """<button data-tabmcp-ref="e1">Star <span class="Counter">1.2k</span></button>
      <button data-tabmcp-ref="e2">Inbox (3)</button><button data-tabmcp-ref="e3">Issues 12,345</button>
      <button data-tabmcp-ref="e4">Step 2 of 3</button><button data-tabmcp-ref="e5">404</button>"""
    tools = ActionsIntrospector().tools(capture(body))
    assert [(t.name, t.title) for t in tools] == [
        ("star", "Star"),
        ("inbox", "Inbox"),
        ("issues", "Issues"),
        ("step_of", "Step of"),
    ]
    again = ActionsIntrospector().tools(capture(body.replace("1.2k", "1.3k").replace("(3)", "(4)")))
    assert [(t.name, t.title, t.description) for t in again] == [(t.name, t.title, t.description) for t in tools]


def test_shortcut_hints_and_current_state_are_not_part_of_the_name() -> None:
    body = """<div role="button" aria-label="Send ‪(Ctrl-Enter)‬" data-tabmcp-ref="e1"></div>
      <div role="button" aria-label="Discard draft ‪(Ctrl-Shift-D)‬" data-tabmcp-ref="e2"></div>
      <summary role="button" aria-haspopup="menu" aria-label="Watch: Participating and @mentions"
        data-tabmcp-ref="e3"></summary>
      <button aria-label="Sort: Newest first" data-tabmcp-ref="e4"></button>"""
    tools = ActionsIntrospector().tools(capture(body))
    assert [(t.name, t.title) for t in tools] == [
        ("send", "Send"),
        ("discard_draft", "Discard draft"),
        ("sort", "Sort"),  # the Watch menu toggle is one word once its state is left out: skipped
    ]
    assert tools[1].hints.destructive


def test_labels_from_the_page_are_cleaned() -> None:
    body = '<button aria-label="Star\u202e\u200b this&#10;repo" data-tabmcp-ref="e1"></button>'
    (tool,) = ActionsIntrospector().tools(capture(body))
    assert tool.title == "Star this repo"
    assert tool.name == "star_this_repo"


def test_actions_rank_after_search_and_forms() -> None:
    body = """<button data-tabmcp-ref="b1">Compose</button>
      <form role="search" action="/s" data-tabmcp-ref="e1"><input type="search" name="q" data-tabmcp-ref="e2"></form>
      <form method="post" action="/settings" data-tabmcp-ref="e3"><input name="theme" data-tabmcp-ref="e4">
        <button data-tabmcp-ref="e5">Save settings</button></form>"""
    tools = Registry.discover().page_tools(capture(body))
    assert [(t.name, t.source) for t in tools] == [
        ("search", "search"),
        ("save_settings", "forms"),
        ("compose", "actions"),
    ]


def test_a_button_each_item_has_is_one_tool_that_takes_the_item() -> None:
    notes = "".join(
        f'<div role="article"><span><button aria-label="Edit this note" data-tabmcp-ref="e{i}">✎</button>'
        f'<button aria-label="close" title="Close this note" data-tabmcp-ref="c{i}">×</button></span>'
        f"<h2>Note {i}</h2></div>"
        for i in range(3)
    )
    sidebar = '<aside><button aria-label="close" title="Close this note" data-tabmcp-ref="s1">×</button></aside>'
    tools = {t.name: t for t in ActionsIntrospector().tools(capture(sidebar + notes))}
    assert set(tools) == {"edit_this_note", "close_this_note"}  # "close" named by its title
    edit = tools["edit_this_note"]
    assert edit.input_schema["required"] == ["item"]
    assert resolve_plan(edit, {"item": "Note 1"}) == [
        Step(action="click", target=Target(css='[role="article"] button[aria-label="Edit this note"]', row="Note 1"))
    ]
    # the sidebar's "close" is in no item: the selector leaves it out
    assert tools["close_this_note"].plan[0].target.selector == '[role="article"] button[aria-label="close"]'


def test_a_shared_name_is_an_item_tool_only_when_each_item_holds_one_such_button() -> None:
    twice = "".join(
        f'<li><button aria-label="Edit entry" data-tabmcp-ref="a{i}"></button><h3>Entry {i}</h3>'
        f'<p><button aria-label="Edit entry" data-tabmcp-ref="b{i}"></button></p></li>'
        for i in range(2)
    )
    assert action_names(f"<ul>{twice}</ul>") == []  # two in one item: which one is not known
    by_text = "".join(f'<li><h3>Entry {i}</h3><button data-tabmcp-ref="t{i}">Reply</button></li>' for i in range(2))
    assert action_names(f"<ul>{by_text}</ul>") == []  # no attribute tells the button apart in CSS
    titled = "".join(
        f'<li><h3>Entry {i}</h3><button title="Reply" data-tabmcp-ref="r{i}">↩</button></li>' for i in range(2)
    )
    assert action_names(f"<ul>{titled}</ul>") == ["reply"]
