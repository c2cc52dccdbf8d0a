"""view: what a screenshot shows (viewport, scroll, an element) and the marks of set-of-marks, with
the snapshot's refs and the elements' rectangles (tests/fixtures/pages/marks.html places them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.agent.conftest import AgentPage

OpenPage = Callable[..., AgentPage]


def view(page: AgentPage, arg: dict[str, Any] | None = None) -> dict[str, Any]:
    result = page.call("view", arg or {})
    assert result["ok"] is True, result
    return result


def by_name(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["name"]: m for m in answer["marks"]}


def test_marks_are_the_snapshot_rows_on_screen_with_their_rectangles(open_page: OpenPage) -> None:
    page = open_page("marks.html")
    answer = view(page, {"marks": True})
    assert answer["title"] == "Marks fixture" and answer["scroll"] == {"x": 0, "y": 0}
    assert answer["viewport"]["width"] > 700 and answer["viewport"]["height"] > 400
    assert answer["dpr"] > 0
    marks = by_name(answer)
    # the heading is a row but nothing to act on, and so are a list box's options; "Covered" is under a
    # div; "Far button" is below the fold
    assert set(marks) == {"Save", "Help", "Your name", "Sizes"}, marks
    assert answer["total"] == 4 and marks["Sizes"]["role"] == "listbox"
    save = marks["Save"]
    assert (save["x"], save["y"], save["width"], save["height"]) == (100, 100, 120, 40)
    assert save["role"] == "button" and save["ref"] == page.ref("Save", "button")
    assert (marks["Help"]["role"], marks["Help"]["x"], marks["Help"]["y"]) == ("link", 400, 300)
    assert marks["Your name"]["role"] == "textbox" and marks["Your name"]["ref"] == page.ref("Your name")


def test_marks_within_an_area_of_the_page_and_after_scrolling(open_page: OpenPage) -> None:
    page = open_page("marks.html")
    whole = by_name(view(page, {"marks": True, "within": {"x": 0, "y": 0, "width": 1000, "height": 2000}}))
    assert set(whole) == {"Save", "Help", "Your name", "Sizes", "Far button"}
    assert (whole["Far button"]["x"], whole["Far button"]["y"]) == (100, 1500)  # viewport px: not scrolled
    only_far = by_name(view(page, {"marks": True, "within": {"x": 50, "y": 1400, "width": 300, "height": 200}}))
    assert set(only_far) == {"Far button"}

    page.page.evaluate("() => window.scrollTo(0, 1400)")
    scrolled = view(page, {"marks": True})
    assert scrolled["scroll"] == {"x": 0, "y": 1400}
    far = by_name(scrolled)["Far button"]
    assert set(by_name(scrolled)) == {"Far button"} and (far["x"], far["y"]) == (100, 100)
    # a page area is still page px once scrolled; off screen, what covers an element is not known
    again = by_name(view(page, {"marks": True, "within": {"x": 0, "y": 0, "width": 1000, "height": 300}}))
    assert set(again) == {"Save", "Your name", "Covered"} and again["Save"]["y"] == 100 - 1400


def test_view_names_an_element_and_changes_nothing(open_page: OpenPage) -> None:
    page = open_page("marks.html")
    before = page.page.content()
    answer = view(page, {"target": {"css": "#save"}, "marks": True})
    assert answer["element"] == {"ref": page.ref("Save", "button"), "role": "button", "name": "Save"}
    assert page.page.content() == before  # the marks are drawn by the server, never in the page
    assert view(page)["url"].startswith(page.browser.site.url("marks.html"))
    assert "marks" not in view(page)
    missing = page.call("view", {"target": {"css": "#nothing"}})
    assert missing["ok"] is False and missing["code"] == "ELEMENT_NOT_FOUND"
    bad = page.call("view", {"marks": True, "within": {"x": 0}})
    assert bad["ok"] is False and bad["code"] == "BAD_MESSAGE"
