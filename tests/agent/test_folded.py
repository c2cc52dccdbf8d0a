"""Fields in a folded section (tests/fixtures/pages/folded.html): a fieldset folded by its legend's
link, a closed <details>, a part an aria-expanded=false button controls. The capture marks them
folded and names them; acting on one unfolds its section first, as a person does, and never folds
an open one again. A hidden field with no toggle right above it stays hidden."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tabmcp.page.capture import PageCapture
from tests.agent.conftest import AgentPage

OpenPage = Callable[..., AgentPage]


@pytest.fixture
def folded(open_page: OpenPage) -> AgentPage:
    return open_page("folded.html")


def capture(page: AgentPage) -> PageCapture:
    raw = page.call("capture", {"maxChars": 1_000_000})
    return PageCapture(url=raw["url"], title=raw["title"], html=raw["html"], truncated=raw["truncated"])


def ok(result: dict) -> dict:
    assert result["ok"] is True, result
    return result


def test_the_capture_marks_and_names_the_fields_of_folded_sections(folded: AgentPage) -> None:
    cap = capture(folded)
    marked = {el.get("id") for el in cap.tree.xpath("//*[@data-tabmcp-folded='1']")}
    assert marked == {"priority", "act-leave", "act-close", "notify", "tags"}
    (priority,) = cap.tree.xpath("//select[@id='priority']")
    assert priority.get("data-tabmcp-hidden") == "1" and priority.get("data-tabmcp-name") == "Priority:"
    (secret,) = cap.tree.xpath("//input[@id='secret']")  # hidden, and the link above it goes elsewhere
    assert secret.get("data-tabmcp-hidden") == "1" and secret.get("data-tabmcp-folded") is None


def test_a_field_of_a_folded_fieldset_is_filled_after_its_legends_toggle(folded: AgentPage) -> None:
    ok(folded.act("select", target={"css": "#priority"}, value="low"))
    assert folded.page.evaluate("() => [document.querySelector('#priority').value, window.folds]") == ["low", 1]
    ok(folded.act("check", target={"css": "#act-close"}))  # the section is open now: not folded again
    state = "() => [document.querySelector('#act-close').checked, window.folds]"
    assert folded.page.evaluate(state) == [True, 1]
    assert folded.page.evaluate("() => document.querySelector('#props').className") == ""


def test_a_closed_details_and_an_aria_controlled_part_are_opened(folded: AgentPage) -> None:
    ok(folded.act("check", target={"css": "#notify"}))
    opened = "() => [document.querySelector('#extra').open, document.querySelector('#notify').checked]"
    assert folded.page.evaluate(opened) == [True, True]
    ok(folded.act("fill", target={"css": "#tags"}, text="csv"))
    shown = "() => [document.querySelector('#more').hidden, document.querySelector('#tags').value]"
    assert folded.page.evaluate(shown) == [False, "csv"]


def test_a_hidden_field_without_a_toggle_is_not_reached(folded: AgentPage) -> None:
    result = folded.act("fill", target={"css": "#secret"}, text="x", timeoutMs=300)
    assert result["ok"] is False and result["code"] == "ELEMENT_NOT_INTERACTABLE", result
    assert folded.page.evaluate("() => location.pathname").endswith("folded.html")  # the link was not followed
