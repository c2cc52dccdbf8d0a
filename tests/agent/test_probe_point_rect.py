"""probe (wait_for's conditions), point (trusted input) and rect (element screenshots)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.agent.conftest import AgentPage, eventually

OpenPage = Callable[..., AgentPage]


def probe(page: AgentPage, **condition: Any) -> dict[str, Any]:
    result = page.call("probe", condition)
    assert result["ok"] is True, result
    return result


def test_text_conditions(open_page: OpenPage) -> None:
    page = open_page("delayed.html", "delay=600000")  # nothing changes during this test
    assert probe(page, text="Delayed fixture")["met"] is True
    assert probe(page, text="  delayed   FIXTURE ")["met"] is True  # case and whitespace do not matter
    assert probe(page, text="Loaded later")["met"] is False
    assert probe(page, textGone="Vanishing text")["met"] is False
    assert probe(page, textGone="Loaded later")["met"] is True
    page.page.evaluate("() => { document.getElementById('vanishing').style.visibility = 'hidden'; }")
    assert probe(page, text="Vanishing text")["met"] is False  # in the DOM, not visible
    assert probe(page, textGone="Vanishing text")["met"] is True


def test_text_in_shadow_roots(open_page: OpenPage) -> None:
    page = open_page("shadow.html")
    assert probe(page, text="Closed shadow text")["met"] is True
    assert probe(page, text="Open card")["met"] is True
    assert probe(page, text="Unslotted button")["met"] is False


def test_conditions_become_true_after_a_delay(open_page: OpenPage) -> None:
    page = open_page("delayed.html", "delay=400")
    assert probe(page, target={"css": "#appeared"}, state="attached")["met"] is False
    eventually(lambda: probe(page, text="Loaded later")["met"], "text to appear")
    assert probe(page, target={"role": "button", "name": "Appeared button"}, state="visible")["met"] is True
    assert probe(page, target={"css": "#enable-later"}, state="enabled")["met"] is True
    assert probe(page, target={"css": "#check-later"}, state="checked")["met"] is True
    assert probe(page, textGone="Vanishing text")["met"] is True


@pytest.mark.parametrize(
    ("css", "state", "met"),
    [
        ("#enable-later", "disabled", True),
        ("#enable-later", "enabled", False),
        ("#enable-later", "visible", True),
        ("#enable-later", "hidden", False),
        ("#check-later", "unchecked", True),
        ("#check-later", "checked", False),
        ("#appeared", "attached", False),
        ("#appeared", "detached", True),
        ("#appeared", "hidden", True),  # nothing there is hidden
        ("#appeared", "visible", False),
        ("#vanishing", "attached", True),
    ],
)
def test_target_states(open_page: OpenPage, css: str, state: str, met: bool) -> None:
    page = open_page("delayed.html", "delay=600000")
    result = probe(page, target={"css": css}, state=state)
    assert result["met"] is met
    assert result["detail"]


def test_focused_state_and_removed_refs(open_page: OpenPage) -> None:
    page = open_page("delayed.html", "delay=600000")
    ref = page.call("find", {"target": {"css": "#check-later"}})["matches"][0]["ref"]
    assert probe(page, target={"ref": ref}, state="focused")["met"] is False
    page.page.focus("#check-later")
    assert probe(page, target={"ref": ref}, state="focused")["met"] is True
    page.page.evaluate("() => document.getElementById('check-later').remove()")
    assert probe(page, target={"ref": ref}, state="detached")["met"] is True
    assert probe(page, target={"ref": ref}, state="hidden")["met"] is True
    assert page.call("probe", {"target": {"ref": ref}, "state": "visible"})["code"] == "STALE_REF"


def test_presence_states_accept_several_matches_others_do_not(open_page: OpenPage) -> None:
    page = open_page("long-list.html")
    result = probe(page, target={"css": "li a"}, state="visible")
    assert result["met"] is True and result["count"] == 3000
    assert page.call("probe", {"target": {"css": "li button"}, "state": "enabled"})["code"] == "ELEMENT_AMBIGUOUS"


def test_bad_conditions(open_page: OpenPage) -> None:
    page = open_page("delayed.html")
    assert page.call("probe", {"nothing": 1})["code"] == "BAD_MESSAGE"
    assert page.call("probe", {"target": {"css": "p"}, "state": "shiny"})["code"] == "BAD_MESSAGE"


def test_point_is_where_a_trusted_click_hits(open_page: OpenPage) -> None:
    page = open_page("actions.html")
    point = page.call("point", {"target": {"role": "button", "name": "Bottom button"}})
    assert point["ok"] is True
    assert 0 <= point["x"] <= 1000 and 0 <= point["y"] <= 700  # scrolled into the viewport
    rect = point["rect"]
    assert point["x"] == pytest.approx(rect["x"] + rect["width"] / 2)
    page.page.mouse.click(point["x"], point["y"])
    assert page.text("#result") == "bottom clicked"
    trusted = page.call("point", {"target": {"css": "#trusted-only"}})
    page.page.mouse.click(trusted["x"], trusted["y"])
    assert page.text("#result") == "accepted"


def test_point_checks_actionability(open_page: OpenPage) -> None:
    page = open_page("actions.html")
    covered = page.call("point", {"target": {"css": "#covered"}, "timeoutMs": 100})
    assert covered["code"] == "ELEMENT_NOT_INTERACTABLE" and "covers it" in covered["message"]
    disabled = page.call("point", {"target": {"css": "#disabled"}, "timeoutMs": 100})
    assert disabled["code"] == "ELEMENT_NOT_INTERACTABLE"
    hover = page.call("point", {"target": {"css": "#disabled"}, "action": "hover"})
    assert hover["ok"] is True
    page.page.mouse.move(hover["x"], hover["y"])  # the worker's trusted hover goes to that point
    assert page.text("#result") == "disabled hovered"


def test_point_can_arm_the_dialog_policy_for_trusted_input(open_page: OpenPage) -> None:
    page = open_page("dialogs.html")
    point = page.call("point", {"target": {"css": "#confirm"}, "dialog": "accept"})
    page.page.mouse.click(point["x"], point["y"])
    assert page.text("#answer") == "confirm: true"


def test_rect(open_page: OpenPage) -> None:
    page = open_page("actions.html")
    result = page.call("rect", {"target": {"css": "#fixed-box"}})
    assert result == {"ok": True, "rect": {"x": 10, "y": 20, "width": 100, "height": 30}, "dpr": 1}
    bottom = page.call("rect", {"target": {"css": "#bottom"}})
    assert 0 <= bottom["rect"]["y"] < 700  # scrolled into view first
    assert page.call("rect", {"target": {"css": "#hidden-action"}})["code"] == "ELEMENT_NOT_INTERACTABLE"
