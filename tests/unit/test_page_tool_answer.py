"""What the model reads after a page tool ran: the most specific result the plan has, not "ok"."""

from __future__ import annotations

from typing import Any

from tabmcp.introspect.api import PageTool, click
from tabmcp.protocol import Target
from tabmcp.tools.page_tools import SHORT_CHANGE, answer, webmcp_result
from tabmcp.tools.targets import toon

TOOL = PageTool(name="search_inbox", description="d", input_schema={"type": "object", "properties": {}},
                plan=(click(Target(css="#go")),))


def outcome(**page: Any) -> dict[str, Any]:
    return {"steps": [{"action": "click", "ok": True}], "page": {"url": "http://x.test/", "title": "X", **page}}


def test_extracted_data_comes_first_and_a_long_change_beside_it_is_left_out() -> None:
    long_change = "row " * (SHORT_CHANGE // 2)
    result = answer(TOOL, 2, {**outcome(changed=long_change, text="whole page", results=["a", "b"]),
                              "extracted": {"messages": [{"subject": "Hi"}]}})
    assert result["messages"] == [{"subject": "Hi"}]
    assert "changed" not in result and "results" not in result and "text" not in result
    assert result["page"] == {"url": "http://x.test/", "title": "X"}
    assert result["tool"] == "search_inbox" and result["steps"] == 2 and "data" in result["note"]


def test_a_short_change_is_kept_beside_extracted_data() -> None:
    result = answer(TOOL, 1, {**outcome(changed="Name already taken"), "extracted": {"repository": []}})
    assert result["repository"] == [] and result["changed"] == "Name already taken"


def test_without_extracted_data_the_change_and_the_result_list_answer() -> None:
    result = answer(TOOL, 1, outcome(changed="Message sent Undo", results=["r1", "r2"], text="all of it"))
    assert result["changed"] == "Message sent Undo" and result["results"] == ["r1", "r2"]
    assert "text" not in result


def test_a_navigation_with_nothing_else_answers_with_the_page_text() -> None:
    result = answer(TOOL, 1, outcome(navigated=True, text="Review your trip. Trip total $656"))
    assert result["page"]["navigated"] is True
    assert result["text"] == "Review your trip. Trip total $656"


def test_a_webmcp_result_is_the_pages_answer_and_mcp_content_is_unwrapped() -> None:
    content = {"content": [{"type": "text", "text": "3 to-dos"}, {"type": "image", "data": "…"}]}
    result = answer(TOOL, 1, {**outcome(results=["noise", "noise"], text="page"), "webmcp": content})
    assert result["result"] == "3 to-dos"
    assert "results" not in result and "text" not in result
    assert webmcp_result({"todos": [1, 2]}) == {"todos": [1, 2]}
    assert webmcp_result(None) is None


def test_after_a_navigation_the_new_pages_text_comes_beside_its_result_list() -> None:
    """The review page lists two flight legs; the trip total is in its text."""
    result = answer(TOOL, 1, outcome(navigated=True, results=["SFO→JFK", "JFK→SFO"], text="Trip total $656.00"))
    assert result["results"] == ["SFO→JFK", "JFK→SFO"] and result["text"] == "Trip total $656.00"


def test_a_long_change_is_kept_when_every_extract_came_back_empty() -> None:
    error = "The repository name bad name! is invalid. " + "Fork form " * 20
    result = answer(TOOL, 1, {**outcome(changed=error), "extracted": {"repository": []}})
    assert result["repository"] == [] and result["changed"] == error


FORM = PageTool(
    name="save",
    description="d",
    input_schema={"type": "object", "properties": {"username": {"type": "string"}, "user_email": {"type": "string"}}},
    plan=(click(Target(css="#go")),),
)
ROWS = [{"Name": f"User {n:02d}", "Role": "staff"} for n in range(1, 21)]


def test_the_rows_and_the_call_for_the_next_page() -> None:
    pages = {"page": 1, "next": True, "last": 3}
    result = answer(TOOL, 2, outcome(navigated=True, results=ROWS, pages=pages), pager="browse_list")
    assert result["results"] == ROWS  # every row, in the compact rows of TOON
    assert result["pages"] == "page 1 of at least 3; more: call browse_list with page=2"
    last = answer(TOOL, 1, outcome(navigated=True, results=ROWS[:5], pages={"page": 3, "next": False}))
    assert last["pages"] == "page 3; the last page"
    stated = {"page": 2, "next": True, "of": 8, "shown": "1-100 of 250 rows"}
    assert answer(TOOL, 1, outcome(results=ROWS, pages=stated), pager="browse_list")["pages"] == (
        "page 2 of 8; 1-100 of 250 rows; more: call browse_list with page=3"
    )
    toon_text = toon(answer(TOOL, 1, outcome(navigated=True, results=ROWS, pages=pages), pager="browse_list"))
    assert "results[20]{Name,Role}:\n  User 01,staff\n" in toon_text


def test_the_pages_text_leaves_out_the_rows_it_lists() -> None:
    text = "Users Add user Name Role User 01 staff User 02 staff User 20 staff 45 users Page 1 2 3"
    rows = [ROWS[0], ROWS[1], {"Name": "User 20", "Role": "staff"}]
    result = answer(TOOL, 1, outcome(navigated=True, results=rows, text=text))
    assert result["text"] == "Users Add user 45 users Page 1 2 3"  # the column names head the rows already
    cut = "Users Name Role User 01 staff User 02"  # the text ends inside the list
    assert answer(TOOL, 1, outcome(navigated=True, results=rows, text=cut))["text"] == "Users"


def test_the_banner_and_the_field_errors_under_their_arguments() -> None:
    errors = [
        {"field": "user[email]", "message": "Enter a valid email address."},
        {"field": "username", "message": "This field is required."},
        {"field": "other_form_field", "message": "Too short."},
    ]
    page = outcome(changed="Please correct the errors below. This field is required.", errors=errors,
                   status=["Please correct the errors below."])
    result = answer(FORM, 3, page)
    assert result["errors"] == {
        "user_email": "Enter a valid email address.",  # the argument the field became
        "username": "This field is required.",
        "other_form_field": "Too short.",  # not one of this tool's: the field's own name
    }
    assert result["status"] == "Please correct the errors below."
    assert "changed" not in result  # it said only what status and errors say
    saved = answer(FORM, 1, outcome(navigated=True, status=["Saved.", "2 users were changed."],
                                    text="Saved. 2 users were changed. Users"))
    assert saved["status"] == ["Saved.", "2 users were changed."] and saved["text"] == "Users"


def test_rows_are_found_in_the_text_by_their_cells_in_order_not_by_one_short_cell() -> None:
    rows = [{"ID": "5", "Title": "Bug five"}, {"ID": "6", "Title": "Bug six"}]
    text = "Issues 5 to 6 of 80 ID Title 5 Bug five 6 Bug six Download as CSV"
    result = answer(TOOL, 1, outcome(navigated=True, results=rows, text=text))
    assert result["text"] == "Issues 5 to 6 of 80 Download as CSV"


def test_a_page_just_opened_says_what_its_editor_holds() -> None:
    # a form's editor argument replaces the whole text: the model reads what it holds first
    result = answer(TOOL, 1, outcome(navigated=True, text="Edit Travel", editors=["# Travel\n\nBook trains."]))
    assert result["editor"] == "# Travel\n\nBook trains." and result["text"] == "Edit Travel"
    two = answer(TOOL, 1, outcome(navigated=True, text="Compare", editors=["left", "right"]))
    assert two["editor"] == ["left", "right"]
    assert "editor" not in answer(TOOL, 1, outcome(changed="Saved", editors=["# Travel"]))  # seen already


def test_what_a_same_origin_frame_shows_is_in_the_answer_bounded_and_labelled() -> None:
    # a message opened beside its list: its body is in a frame, which the page's own text leaves out
    result = answer(TOOL, 1, outcome(changed="Travel plans from Ben", frames=["Flights are booked."]))
    assert result["frame"] == "Flights are booked." and result["changed"] == "Travel plans from Ben"
    assert "data" in result["note"]
    two = answer(TOOL, 1, outcome(changed="Compare", frames=["left", "right"]))
    assert two["frame"] == ["left", "right"]
    huge = answer(TOOL, 1, outcome(changed="Opened", frames=["word " * 10_000]))
    assert len(huge["frame"]) < 20_100  # bounded with the rest of the page's text
    read = answer(TOOL, 1, {**outcome(changed="Opened", frames=["body"]), "extracted": {"subject": ["Hi"]}})
    assert "frame" not in read  # the plan read what it wanted itself


def test_a_live_searchs_results_answer_without_the_pages_text() -> None:
    rows = [{"title": "Bandwidth", "url": "/guide/configuration/#bandwidth"}]
    result = answer(TOOL, 2, {**outcome(changed="1 matching document Bandwidth", text="the whole page"),
                              "extracted": {"results": rows}})
    assert result["results"] == rows and "text" not in result
