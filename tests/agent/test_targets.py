"""Targets: {ref, doc?}, {css}, {role, name?}; find; not found, ambiguous, stale."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.agent.conftest import AgentPage

OpenPage = Callable[..., AgentPage]


@pytest.fixture
def actions(open_page: OpenPage) -> AgentPage:
    return open_page("actions.html")


def test_click_by_ref(actions: AgentPage) -> None:
    ref = actions.ref("Plain button")
    assert actions.act("click", target={"ref": ref})["ok"] is True
    assert actions.text("#result") == "plain clicked"


def test_click_by_ref_with_the_current_doc(actions: AgentPage) -> None:
    snap = actions.snapshot()
    ref = next(n["ref"] for n in snap["nodes"] if n["name"] == "Plain button")
    assert actions.act("click", target={"ref": ref, "doc": snap["docId"]})["ok"] is True
    assert actions.text("#result") == "plain clicked"


def test_click_by_css(actions: AgentPage) -> None:
    assert actions.act("click", target={"css": "#plain"})["ok"] is True
    assert actions.text("#result") == "plain clicked"


def test_click_by_role_and_name_exact_then_substring_case_insensitive(actions: AgentPage) -> None:
    assert actions.act("click", target={"role": "button", "name": "plain  BUTTON"})["ok"] is True
    assert actions.text("#result") == "plain clicked"
    actions.page.evaluate("() => { document.getElementById('result').textContent = 'reset'; }")
    assert actions.act("click", target={"role": "button", "name": "bottom butt"})["ok"] is True  # substring
    assert actions.text("#result") == "bottom clicked"


def test_exact_name_wins_over_substring_matches(open_page: OpenPage) -> None:
    page = open_page("long-list.html")
    # "Row 1" is exact for one link and a substring of "Row 10", "Row 100"...
    found = page.call("find", {"target": {"role": "link", "name": "Row 1"}})
    assert [m["name"] for m in found["matches"]] == ["Row 1"]
    assert page.act("click", target={"role": "link", "name": "Row 1"})["navigation"]["url"].endswith("#row-1")


def test_not_found(actions: AgentPage) -> None:
    for target in ({"css": "#nope"}, {"role": "button", "name": "No such button"}, {"role": "slider"}):
        result = actions.act("click", target=target)
        assert result["ok"] is False
        assert result["code"] == "ELEMENT_NOT_FOUND"


def test_invalid_css_is_not_found_with_the_reason(actions: AgentPage) -> None:
    result = actions.act("click", target={"css": "button[["})
    assert result["code"] == "ELEMENT_NOT_FOUND"
    assert "Invalid css selector" in result["message"]


def test_ambiguous_lists_candidates(actions: AgentPage) -> None:
    result = actions.act("click", target={"css": "#small, #large"})
    assert result["ok"] is False
    assert result["code"] == "ELEMENT_AMBIGUOUS"
    assert [(c["role"], c["name"]) for c in result["candidates"]] == [("radio", "Small"), ("radio", "Large")]
    for candidate in result["candidates"]:
        assert candidate["ref"] in result["message"]
    assert '"Small"' in result["message"] and "matches 2 elements" in result["message"]


def test_ambiguous_candidates_are_capped_at_ten(open_page: OpenPage) -> None:
    page = open_page("long-list.html")
    result = page.act("click", target={"role": "button", "name": "Details"})
    assert result["code"] == "ELEMENT_AMBIGUOUS"
    assert len(result["candidates"]) == 10
    assert "matches 3000 elements" in result["message"]


def test_a_role_target_prefers_the_visible_match(actions: AgentPage) -> None:
    actions.page.evaluate(
        "() => { const b = document.createElement('button'); b.textContent = 'Plain button'; b.hidden = true;"
        " document.body.prepend(b); }"
    )
    # two elements are named "Plain button", but only one shows
    assert actions.act("click", target={"role": "button", "name": "Plain button"})["ok"] is True
    assert actions.text("#result") == "plain clicked"
    # css stays literal: the hidden match counts
    assert actions.act("click", target={"css": "button:not([id]), #plain"})["code"] == "ELEMENT_AMBIGUOUS"
    found = actions.call("find", {"target": {"role": "button", "name": "Plain button"}})
    assert sorted(m["visible"] for m in found["matches"]) == [False, True]


def test_unknown_ref_is_stale(actions: AgentPage) -> None:
    result = actions.act("click", target={"ref": "e99999"})
    assert result["ok"] is False
    assert result["code"] == "STALE_REF"
    assert "snapshot" in result["message"]


def test_ref_from_another_document_is_stale(actions: AgentPage) -> None:
    ref = actions.ref("Plain button")
    result = actions.act("click", target={"ref": ref, "doc": "zzzzzzzz"})
    assert result["code"] == "STALE_REF"
    assert actions.text("#result") == "ready"


def test_ref_after_reload_is_stale(actions: AgentPage) -> None:
    snap = actions.snapshot()
    ref = next(n["ref"] for n in snap["nodes"] if n["name"] == "Plain button")
    actions.page.reload()
    assert actions.snapshot()["docId"] != snap["docId"]
    assert actions.act("click", target={"ref": ref, "doc": snap["docId"]})["code"] == "STALE_REF"


def test_ref_of_a_removed_element_is_stale(actions: AgentPage) -> None:
    ref = actions.ref("Plain button")
    actions.page.evaluate("() => document.getElementById('plain').remove()")
    result = actions.act("click", target={"ref": ref})
    assert result["code"] == "STALE_REF"
    assert "removed" in result["message"]


def test_find_returns_every_match_up_to_the_limit(open_page: OpenPage) -> None:
    page = open_page("long-list.html")
    found = page.call("find", {"target": {"css": "li a"}, "limit": 5})
    assert found["ok"] is True
    assert found["total"] == 3000
    assert [m["name"] for m in found["matches"]] == ["Row 1", "Row 2", "Row 3", "Row 4", "Row 5"]
    assert all(m["role"] == "link" and m["ref"] for m in found["matches"])
    assert len(page.call("find", {"target": {"css": "li a"}})["matches"]) == 20  # default limit


def test_find_by_ref_and_in_shadow_roots(open_page: OpenPage) -> None:
    page = open_page("shadow.html")
    found = page.call("find", {"target": {"css": "button"}})
    # css reaches into open and closed shadow roots too
    assert {m["name"] for m in found["matches"]} >= {"Open shadow button", "Closed shadow button", "Closed div button"}
    ref = page.ref("Closed shadow button")
    assert page.call("find", {"target": {"ref": ref}})["matches"][0]["name"] == "Closed shadow button"
    assert page.act("click", target={"role": "button", "name": "Closed shadow button"})["ok"] is True
    assert page.text("#out") == "closed shadow clicked"


def test_a_malformed_target_is_a_bad_message(actions: AgentPage) -> None:
    for target in (None, {}, {"name": "x"}, "e1"):
        result = actions.act("click", target=target)
        assert result["code"] == "BAD_MESSAGE", target
