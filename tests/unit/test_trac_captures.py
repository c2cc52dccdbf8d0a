"""The introspector registry on saved captures of Trac (tests/fixtures/apps/trac, made by its
make_captures.py): an issue tracker of classic server-rendered forms. What a person asks there:
create a ticket, change one's status or properties with a comment, pick a query's columns, find
tickets mentioning a word, read the timeline, edit a wiki page. The facts hold for any app of the
same shape: a form with a Preview button before its commit button, fields in a section folded
until its heading's link is clicked, results in a definition list, a menu bar of links in a
nav-classed block, a field sheet of label and value pairs, a select of numbers that sets an
editor's height."""

from __future__ import annotations

import pytest
from tests.unit.saved_app import SavedApp

from tabmcp.introspect.api import PageTool, resolve_plan
from tabmcp.protocol import Target

APP = SavedApp("trac")
captured, tools_of, ref_at, writer_of = APP.captured, APP.tools_of, APP.ref_at, APP.writer_of






def written_refs(tool: PageTool, args: dict[str, object]) -> dict[str | None, object]:
    return {s.target.ref: s.value for s in resolve_plan(tool, args) if isinstance(s.target, Target)}


@pytest.mark.parametrize(
    ("page", "field", "commit"),
    [("newticket", "field_summary", "create_ticket"), ("wiki_edit", "text", "submit_changes"),
     ("ticket", "comment", "submit_changes")],
)
def test_a_form_with_a_preview_button_is_named_after_its_commit_button(page: str, field: str, commit: str) -> None:
    # Preview (and Review Changes) come first in the form; the tool's submit does what the form is for
    tool = writer_of(page, f"//form//*[@name='{field}']")
    assert tool.name == commit
    assert "preview" not in tool.name and "review" not in tool.name
    assert "Preview" not in tool.description.split("(")[0]


def test_the_new_ticket_form_takes_its_summary_type_and_component() -> None:
    tool = tools_of("newticket")["create_ticket"]
    properties = tool.schema["properties"]
    assert {"defect", "enhancement", "task"} == set(properties["field_type"]["enum"])
    assert "backend" in properties["field_component"]["enum"]
    assert properties["field_summary"]["description"] == "Summary:"


def test_fields_in_a_folded_section_are_arguments_the_agent_unfolds() -> None:
    # "Modify Ticket" is folded: its properties and the workflow's actions are hidden until clicked
    tool = writer_of("ticket", "//form//*[@name='comment']")
    properties = tool.schema["properties"]
    assert {"field_priority", "field_summary", "action", "comment"} <= set(properties)
    assert "accept" in properties["action"]["enum"] and "resolve" in properties["action"]["enum"]
    assert properties["field_priority"]["description"] == "Priority:"  # named although hidden
    priority = ref_at("ticket", "//select[@name='field_priority']")
    written = written_refs(tool, {"field_priority": "minor", "comment": "lowered"})
    assert written[priority] == "minor"
    (folded,) = captured("ticket").tree.xpath("//select[@name='field_priority']")
    assert folded.get("data-tabmcp-folded") == "1" and folded.get("data-tabmcp-hidden") == "1"


def test_the_unfolded_and_the_folded_ticket_give_one_tool() -> None:
    folded = tools_of("ticket")["submit_changes"].schema["properties"]
    unfolded = tools_of("ticket_modify")["submit_changes"].schema["properties"]
    assert folded == unfolded


@pytest.mark.parametrize("page", ["query", "query_columns"])
def test_the_querys_folded_columns_are_an_argument(page: str) -> None:
    tool = writer_of(page, "//form//select[@name='group']")
    columns = tool.schema["properties"]["col"]
    assert columns["type"] == "array"
    assert {"summary", "priority", "component", "owner"} <= set(columns["items"]["enum"])
    assert columns["description"].startswith("Columns")


def test_a_hidden_field_outside_any_fold_stays_out() -> None:
    # the new-ticket form's owner field shows only once "assign" is chosen: no toggle unfolds it
    for tool in tools_of("newticket").values():
        assert not [name for name in tool.schema.get("properties", {}) if "reassign_owner" in name]
    assert not captured("newticket").tree.xpath("//*[@data-tabmcp-folded]")


@pytest.mark.parametrize(("page", "path"), [("search", "/wiki/"), ("timeline", "/")])
def test_results_in_a_definition_list_are_the_main_list_not_the_menu_bar(page: str, path: str) -> None:
    assert "open_row" in tools_of(page)
    openers = captured(page).tree.xpath("//a[@data-tabmcp-list='open' or starts-with(@data-tabmcp-list, 'open:')]")
    assert len(openers) >= 5
    assert all(a.getparent().tag == "dt" for a in openers)
    assert all((a.get("href") or "").startswith(path) for a in openers)
    menu = captured(page).tree.xpath("//*[@id='mainnav']//a[@data-tabmcp-list]")
    assert not menu


def test_the_timelines_days_are_one_list() -> None:
    # one definition list per day, under the day's heading: the rows open by one selector for all days
    tree = captured("timeline").tree
    assert len(tree.xpath("//dl[dt/a]")) > 2
    (mark,) = [a.get("data-tabmcp-list") for a in tree.xpath("//a[starts-with(@data-tabmcp-list, 'open:')]")]
    assert mark == "open:dt a"


def test_a_sheet_of_label_and_value_pairs_is_no_list() -> None:
    # the ticket's properties: two header cells a row ("Reported by:", "Owned by:"), values beside them
    assert "open_row" not in tools_of("ticket")
    assert not captured("ticket").tree.xpath("//table[contains(@class, 'properties')]//*[@data-tabmcp-list]")


def test_an_editors_height_select_is_no_page_size() -> None:
    # "Adjust edit area height:" offers 8…40 under the name `editrows`: no list, no browse_list
    assert "browse_list" not in tools_of("wiki_edit")
    assert not captured("wiki_edit").tree.xpath("//*[@data-tabmcp-list='perpage']")
    tool = writer_of("wiki_edit", "//form//textarea[@name='text']")
    assert "editrows" in tool.schema["properties"]


def test_the_query_still_browses_and_filters() -> None:
    tools = tools_of("query_component")
    assert {"Priority", "Summary"} <= set(tools["browse_list"].schema["properties"]["sort"]["enum"])
    filters = writer_of("query_component", "//form//select[@name='0_component']")
    assert "backend" in filters.schema["properties"]["0_component"]["enum"]


@pytest.mark.parametrize("page", ["ticket", "ticket_modify"])
def test_a_form_under_the_items_heading_is_not_named_after_the_item(page: str) -> None:
    # on /ticket/4 the heading above the comment-order form is the ticket's summary, which the
    # page's title holds: a name from it would change from ticket to ticket
    tool = writer_of(page, "//form//input[@name='trac-comments-order'][1]")
    summary = captured(page).title.split("(")[1].split(")")[0]
    assert summary.lower().replace(" ", "_") not in tool.name
    assert tool.name == "prefs"


def test_an_empty_valued_option_that_is_a_choice_stays_in_the_enum() -> None:
    # a filter's operator: "is" (value "") and "is not" ("!"); a model switching back needs "is"
    filters = writer_of("query_component", "//form//select[@name='0_component_mode']")
    mode = filters.schema["properties"]["0_component_mode"]
    assert mode["enum"] == ["", "!"]
    assert mode["description"] == '"": is, !: is not'
    written = written_refs(filters, {"0_component_mode": ""})
    assert written[ref_at("query_component", "//select[@name='0_component_mode']")] == ""


@pytest.mark.parametrize(("page", "button"), [("ticket", "submit"), ("newticket", "submit"), ("wiki_edit", "save")])
def test_the_form_is_submitted_with_its_named_commit_button(page: str, button: str) -> None:
    # Trac saves a ticket's changes only when `submit` comes with the form (without it: a preview)
    tool = writer_of(page, "//form//*[@name='comment' or @name='field_summary' or @name='text']")
    last = tool.plan[-1]
    assert last.action == "submit" and isinstance(last.target, Target)
    assert last.target.ref == ref_at(page, f"//form//input[@type='submit'][@name='{button}']")
