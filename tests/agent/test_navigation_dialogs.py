"""What an action started: a navigation (Navigation API), dialogs (answered by page_hooks.js)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.agent.conftest import AgentPage, eventually

OpenPage = Callable[..., AgentPage]


@pytest.fixture
def nav(open_page: OpenPage) -> AgentPage:
    return open_page("navigation.html")


@pytest.fixture
def dialogs(open_page: OpenPage) -> AgentPage:
    return open_page("dialogs.html")


def test_a_link_click_reports_a_cross_document_navigation(nav: AgentPage) -> None:
    result = nav.act("click", target={"role": "link", "name": "Go to target"})
    assert result["ok"] is True
    target = nav.browser.site.url("navigation-target.html?by=link")
    assert result["navigation"] == {"url": target, "sameDocument": False}
    nav.page.wait_for_url("**/navigation-target.html?by=link")
    assert nav.text("#query") == "query: ?by=link"


def test_a_location_href_button_reports_its_navigation(nav: AgentPage) -> None:
    result = nav.act("click", target={"css": "#script-nav"})
    assert result["navigation"] == {
        "url": nav.browser.site.url("navigation-target.html?by=script"),
        "sameDocument": False,
    }
    nav.page.wait_for_url("**/navigation-target.html?by=script")


def test_a_plain_button_reports_no_navigation(nav: AgentPage) -> None:
    result = nav.act("click", target={"css": "#plain"})
    assert result["ok"] is True
    assert "navigation" not in result
    assert nav.text("#out") == "plain clicked"


def test_same_document_navigations(nav: AgentPage) -> None:
    hash_result = nav.act("click", target={"css": "#hash-link"})
    assert hash_result["navigation"]["sameDocument"] is True
    assert hash_result["navigation"]["url"].endswith("#section")
    pushed = nav.act("click", target={"css": "#push-state"})
    assert pushed["navigation"]["sameDocument"] is True
    assert pushed["navigation"]["url"].endswith("?pushed=1")


def test_enter_in_a_get_form_navigates(nav: AgentPage) -> None:
    nav.page.fill("#term", "kiwi")
    result = nav.act("press", target={"css": "#term"}, key="Enter")
    assert result["navigation"]["url"] == nav.browser.site.url("navigation-target.html?term=kiwi")
    assert result["navigation"]["sameDocument"] is False
    nav.page.wait_for_url("**/navigation-target.html?term=kiwi")


def test_a_form_submitted_a_tick_after_the_click_reports_its_navigation(nav: AgentPage) -> None:
    # the submission's navigation starts in a task after the timer that submitted it: awaited, not missed
    nav.page.fill("#term", "plum")
    result = nav.act("click", target={"css": "#submit-later"})
    assert result["navigation"] == {
        "url": nav.browser.site.url("navigation-target.html?term=plum"),
        "sameDocument": False,
    }
    nav.page.wait_for_url("**/navigation-target.html?term=plum")


def test_a_form_submit_the_page_cancels_reports_no_navigation(nav: AgentPage) -> None:
    nav.page.fill("#filter", "pears")
    result = nav.act("press", target={"css": "#filter"}, key="Enter")
    assert result["ok"] is True
    assert "navigation" not in result
    assert nav.text("#out") == "filtered: pears"


def test_confirm_is_dismissed_by_default_and_reported(dialogs: AgentPage) -> None:
    result = dialogs.act("click", target={"css": "#confirm"})
    assert result["dialogs"] == [{"type": "confirm", "message": "Are you sure?", "answer": False}]
    assert dialogs.text("#answer") == "confirm: false"


def test_confirm_accepted(dialogs: AgentPage) -> None:
    result = dialogs.act("click", target={"css": "#confirm"}, dialog="accept")
    assert result["dialogs"] == [{"type": "confirm", "message": "Are you sure?", "answer": True}]
    assert dialogs.text("#answer") == "confirm: true"
    # the policy lasts for one action only
    dialogs.act("click", target={"css": "#confirm"})
    assert dialogs.text("#answer") == "confirm: false"


def test_prompt_answers(dialogs: AgentPage) -> None:
    dismissed = dialogs.act("click", target={"css": "#prompt"})
    assert dismissed["dialogs"] == [{"type": "prompt", "message": "Your name?", "answer": None}]
    assert dialogs.text("#answer") == "prompt: null"
    typed = dialogs.act("click", target={"css": "#prompt"}, dialog="accept", promptText="Ada")
    assert typed["dialogs"][0]["answer"] == "Ada"
    assert dialogs.text("#answer") == "prompt: Ada"
    default = dialogs.act("click", target={"css": "#prompt"}, dialog="accept")
    assert default["dialogs"][0]["answer"] == "default name"
    assert dialogs.text("#answer") == "prompt: default name"


def test_alert_never_blocks_and_is_reported(dialogs: AgentPage) -> None:
    result = dialogs.act("click", target={"css": "#alert"})
    assert result["dialogs"] == [{"type": "alert", "message": "Hello from alert", "answer": None}]
    assert dialogs.text("#answer") == "alert done"


def test_a_dialog_outside_an_action_is_dismissed_and_sent_over_the_port(open_page: OpenPage) -> None:
    page = open_page("dialogs.html")
    page.browser.listen_to_agents()
    page.page.reload()  # the agent's port opens with the listener in place
    result = page.act("click", target={"css": "#later"}, dialog="accept")
    assert result["dialogs"] == []  # the confirm comes 200 ms later, after the action
    eventually(lambda: page.text("#answer") == "later: false", "the late confirm to be dismissed")
    messages = eventually(
        lambda: [m["message"] for m in page.browser.agent_messages(page.tab_id) if m["message"]["type"] == "dialog"],
        "the dialog message",
    )
    assert messages[-1] == {"type": "dialog", "dialog": {"type": "confirm", "message": "Later?", "answer": False}}
