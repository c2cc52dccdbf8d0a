"""act: every action, as the page's own listeners see it, and the actionability checks."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.agent.conftest import AgentPage

OpenPage = Callable[..., AgentPage]


@pytest.fixture
def actions(open_page: OpenPage) -> AgentPage:
    return open_page("actions.html")


def ok(result: dict) -> dict:
    assert result["ok"] is True, result
    return result


def test_click_dispatches_the_full_pointer_sequence_in_order(actions: AgentPage) -> None:
    result = ok(actions.act("click", target={"css": "#log-events"}))
    assert result["dialogs"] == [] and "navigation" not in result
    events = actions.page.evaluate("() => window.events")
    assert [e.split(":")[0] for e in events] == [
        "pointerover", "pointerenter", "mouseover", "mouseenter", "pointermove", "mousemove",
        "pointerdown", "mousedown", "focus", "pointerup", "mouseup", "click",
    ]  # fmt: skip
    by_type = {e.split(":")[0]: e.split(":")[1:] for e in events}
    assert by_type["mousedown"][:3] == ["1", "0", "1"]  # detail, button, buttons
    assert by_type["mouseup"][:3] == ["1", "0", "0"]
    assert by_type["click"][:3] == ["1", "0", "0"]
    box = actions.page.locator("#log-events").bounding_box()
    assert box is not None
    assert abs(int(by_type["click"][3]) - (box["x"] + box["width"] / 2)) <= 1  # at the centre
    assert actions.page.evaluate("() => document.activeElement.id") == "log-events"


def test_dblclick(actions: AgentPage) -> None:
    ok(actions.act("dblclick", target={"css": "#log-events"}))
    events = [e.split(":")[0] + e.split(":")[1] for e in actions.page.evaluate("() => window.events")]
    assert events[6:] == [
        "pointerdown0", "mousedown1", "focus0", "pointerup0", "mouseup1", "click1",
        "pointerdown0", "mousedown2", "pointerup0", "mouseup2", "click2", "dblclick2",
    ]  # fmt: skip
    ok(actions.act("dblclick", target={"role": "button", "name": "Double click me"}))
    assert actions.text("#result") == "double-clicked detail=2"


def test_hover(actions: AgentPage) -> None:
    ok(actions.act("hover", target={"css": "#hover"}))
    assert actions.text("#result") == "hovered"


def test_hover_does_not_need_an_enabled_element(actions: AgentPage) -> None:
    ok(actions.act("hover", target={"css": "#disabled"}))
    assert actions.text("#result") == "disabled hovered"


def test_click_is_synthetic(actions: AgentPage) -> None:
    ok(actions.act("click", target={"css": "#trusted-only"}))
    assert actions.text("#result") == "rejected"  # the fixture can tell; trusted input is the worker's job


def test_fill_updates_a_controlled_input(actions: AgentPage) -> None:
    ok(actions.act("fill", target={"css": "#controlled"}, text="hello"))
    assert actions.text("#controlled-state") == "state: hello"
    assert actions.page.input_value("#controlled") == "hello"
    ok(actions.act("fill", target={"css": "#controlled"}, text="bye"))
    assert actions.text("#controlled-state") == "state: bye"


def test_the_controlled_fixture_rejects_a_plain_value_assignment(actions: AgentPage) -> None:
    # proves the fixture behaves like React: without the prototype setter, state does not change
    actions.page.evaluate(
        "() => { const i = document.getElementById('controlled'); i.value = 'plain';"
        " i.dispatchEvent(new Event('input', { bubbles: true })); }"
    )
    assert actions.page.text_content("#controlled-state") == "state: "
    assert actions.page.input_value("#controlled") == ""


def test_fill_replaces_the_value_and_fires_change(actions: AgentPage) -> None:
    actions.page.fill("#plain-input", "old")
    ok(actions.act("fill", target={"css": "#plain-input"}, text="new value"))
    assert actions.page.input_value("#plain-input") == "new value"
    assert actions.text("#result") == "changed: new value"


def test_fill_a_textarea_and_a_contenteditable(actions: AgentPage) -> None:
    ok(actions.act("fill", target={"css": "#notes"}, text="line 1\nline 2"))
    assert actions.page.input_value("#notes") == "line 1\nline 2"
    ok(actions.act("fill", target={"role": "textbox", "name": "Editable area"}, text="New text"))
    assert actions.text("#editable") == "New text"
    assert actions.text("#result") == "editable: New text"


def test_fill_a_number_input_rejects_text(actions: AgentPage) -> None:
    ok(actions.act("fill", target={"css": "#amount"}, text="42"))
    assert actions.page.input_value("#amount") == "42"
    result = actions.act("fill", target={"css": "#amount"}, text="abc")
    assert result["code"] == "ELEMENT_NOT_INTERACTABLE"
    assert "number" in result["message"]


def test_fill_refuses_what_is_not_a_text_field(actions: AgentPage) -> None:
    result = actions.act("fill", target={"css": "#plain"}, text="x")
    assert result["code"] == "ELEMENT_NOT_INTERACTABLE"
    assert "not a text field" in result["message"]


def test_fill_refuses_a_readonly_field(actions: AgentPage) -> None:
    result = actions.act("fill", target={"css": "#readonly-input"}, text="x", timeoutMs=200)
    assert result["code"] == "ELEMENT_NOT_INTERACTABLE"
    assert "read-only" in result["message"]
    assert actions.page.input_value("#readonly-input") == "fixed"


def test_type_sends_key_events_per_character(actions: AgentPage) -> None:
    actions.page.fill("#key-field", "ab")
    ok(actions.act("type", target={"css": "#key-field"}, text="cD1"))
    assert actions.page.input_value("#key-field") == "abcD1"
    assert actions.text("#keys") == "[c:KeyC:67][D:KeyD:68][1:Digit1:49]"


def test_type_into_a_controlled_input_and_a_contenteditable(actions: AgentPage) -> None:
    ok(actions.act("type", target={"css": "#controlled"}, text="abc"))
    assert actions.text("#controlled-state") == "state: abc"
    ok(actions.act("type", target={"css": "#editable"}, text="!"))
    assert actions.text("#editable") == "Old text!"


def test_clear(actions: AgentPage) -> None:
    actions.page.fill("#plain-input", "something")
    ok(actions.act("clear", target={"css": "#plain-input"}))
    assert actions.page.input_value("#plain-input") == ""
    ok(actions.act("clear", target={"css": "#editable"}))
    assert actions.page.text_content("#editable") == ""


def test_select_by_value_and_by_label(actions: AgentPage) -> None:
    assert ok(actions.act("select", target={"css": "#color"}, value="b"))["selected"] == ["b"]
    assert actions.text("#result") == "color: b"
    ok(actions.act("select", target={"role": "combobox", "name": "Color"}, value="green"))
    assert actions.page.input_value("#color") == "g"
    assert actions.text("#result") == "color: g"


def test_select_several_in_a_multiple_select(actions: AgentPage) -> None:
    ok(actions.act("select", target={"css": "#toppings"}, values=["ham", "Olive"]))
    assert actions.text("#result") == "toppings: ham,olive"
    ok(actions.act("select", target={"css": "#toppings"}, values=["egg"]))  # replaces the selection
    assert actions.text("#result") == "toppings: egg"


def test_select_an_unknown_option_lists_the_options(actions: AgentPage) -> None:
    result = actions.act("select", target={"css": "#color"}, value="purple")
    assert result["code"] == "ELEMENT_NOT_FOUND"
    assert '"Red" (value "r")' in result["message"] and '"Blue" (value "b")' in result["message"]


def test_select_refuses_several_in_a_single_select_and_a_disabled_option(actions: AgentPage) -> None:
    assert actions.act("select", target={"css": "#color"}, values=["r", "g"])["code"] == "ELEMENT_NOT_INTERACTABLE"
    assert actions.act("select", target={"css": "#toppings"}, value="corn")["code"] == "ELEMENT_NOT_INTERACTABLE"


def test_check_and_uncheck(actions: AgentPage) -> None:
    ok(actions.act("check", target={"role": "checkbox", "name": "Subscribe"}))
    assert actions.page.is_checked("#subscribe")
    assert actions.text("#result") == "subscribe: true"
    ok(actions.act("check", target={"css": "#subscribe"}))  # already checked: nothing happens
    assert actions.page.is_checked("#subscribe")
    ok(actions.act("uncheck", target={"css": "#subscribe"}))
    assert not actions.page.is_checked("#subscribe")
    assert actions.text("#result") == "subscribe: false"


def test_check_a_radio_and_refuse_to_uncheck_one(actions: AgentPage) -> None:
    ok(actions.act("check", target={"role": "radio", "name": "Large"}))
    assert actions.page.is_checked("#large") and not actions.page.is_checked("#small")
    result = actions.act("uncheck", target={"css": "#large"})
    assert result["code"] == "ELEMENT_NOT_INTERACTABLE"


def test_check_a_visually_hidden_checkbox_through_its_label(actions: AgentPage) -> None:
    ok(actions.act("check", target={"css": "#styled"}))
    assert actions.page.is_checked("#styled")


def test_check_an_aria_checkbox(actions: AgentPage) -> None:
    ok(actions.act("check", target={"role": "checkbox", "name": "Aria checkbox"}))
    assert actions.page.get_attribute("#aria-check", "aria-checked") == "true"
    ok(actions.act("uncheck", target={"css": "#aria-check"}))
    assert actions.page.get_attribute("#aria-check", "aria-checked") == "false"


def test_check_refuses_what_is_not_checkable(actions: AgentPage) -> None:
    assert actions.act("check", target={"css": "#plain"})["code"] == "ELEMENT_NOT_INTERACTABLE"


def test_press_control_a_then_backspace_clears_a_field(actions: AgentPage) -> None:
    actions.page.fill("#key-field", "some text")
    ok(actions.act("press", target={"css": "#key-field"}, key="Control+A"))
    ok(actions.act("press", key="Backspace"))  # no target: the focused element
    assert actions.page.input_value("#key-field") == ""
    assert actions.text("#keys").endswith("[ctrl+Control:ControlLeft:17][ctrl+a:KeyA:65][Backspace:Backspace:8]")


def test_press_edits_at_the_caret(actions: AgentPage) -> None:
    actions.page.fill("#key-field", "abc")
    ok(actions.act("press", target={"css": "#key-field"}, key="End"))
    ok(actions.act("press", key="ArrowLeft"))
    ok(actions.act("press", key="Backspace"))
    ok(actions.act("press", key="x"))
    ok(actions.act("press", key="Shift+y"))
    assert actions.page.input_value("#key-field") == "axYc"


def test_press_enter_submits_the_form(actions: AgentPage) -> None:
    actions.page.fill("#query", "cats")
    ok(actions.act("press", target={"css": "#query"}, key="Enter"))
    assert actions.text("#result") == "submitted: cats"


def test_press_tab_moves_focus(actions: AgentPage) -> None:
    ok(actions.act("press", target={"css": "#query"}, key="Tab"))
    assert actions.page.evaluate("() => document.activeElement.id") == "second"
    ok(actions.act("press", key="Shift+Tab"))
    assert actions.page.evaluate("() => document.activeElement.id") == "query"


def test_press_enter_on_a_button_clicks_it(actions: AgentPage) -> None:
    ok(actions.act("press", target={"css": "#plain"}, key="Enter"))
    assert actions.text("#result") == "plain clicked"


def test_press_an_unknown_key_is_a_bad_message(actions: AgentPage) -> None:
    assert actions.act("press", key="Hyper+x")["code"] == "BAD_MESSAGE"
    assert actions.act("press", key="NoSuchKey")["code"] == "BAD_MESSAGE"


def test_scroll_a_target_into_view_and_by_direction(actions: AgentPage) -> None:
    scrolled = ok(actions.act("scroll", target={"css": "#bottom"}))["scroll"]
    assert scrolled["y"] > 1000
    assert actions.page.evaluate("() => Math.round(window.scrollY)") == scrolled["y"]
    up = ok(actions.act("scroll", direction="up", amount=300))["scroll"]
    assert up["y"] == scrolled["y"] - 300
    actions.page.evaluate("() => window.scrollTo(0, 0)")
    page_down = ok(actions.act("scroll", direction="down"))["scroll"]
    assert page_down["y"] == 700  # one viewport by default


def test_scroll_inside_a_scrollable_element(actions: AgentPage) -> None:
    box = ok(actions.act("scroll", target={"css": "#scroll-box"}, direction="down", amount=100))["scroll"]
    assert box == {"x": 0, "y": 100}
    assert actions.page.evaluate("() => document.getElementById('scroll-box').scrollTop") == 100
    assert actions.page.evaluate("() => window.scrollY") == 0


def test_click_scrolls_the_element_into_view(actions: AgentPage) -> None:
    ok(actions.act("click", target={"css": "#bottom"}))
    assert actions.text("#result") == "bottom clicked"
    assert actions.page.evaluate("() => window.scrollY") > 1000
    ok(actions.act("click", target={"css": "#box-bottom"}))  # inside a scrolled box
    assert actions.text("#result") == "box bottom clicked"


def test_submit(actions: AgentPage) -> None:
    actions.page.fill("#query", "dogs")
    ok(actions.act("submit", target={"css": "#query"}))
    assert actions.text("#result") == "submitted: dogs"


def test_unknown_action(actions: AgentPage) -> None:
    assert actions.act("explode", target={"css": "#plain"})["code"] == "BAD_MESSAGE"
    assert actions.act("fill", target={"css": "#plain-input"})["code"] == "BAD_MESSAGE"  # no text


# -- actionability ------------------------------------------------------------------------


def test_disabled_element(actions: AgentPage) -> None:
    result = actions.act("click", target={"css": "#disabled"}, timeoutMs=200)
    assert result["code"] == "ELEMENT_NOT_INTERACTABLE"
    assert "disabled" in result["message"] and "Disabled action" in result["message"]


def test_covered_element_names_what_covers_it(actions: AgentPage) -> None:
    result = actions.act("click", target={"css": "#covered"}, timeoutMs=200)
    assert result["code"] == "ELEMENT_NOT_INTERACTABLE"
    assert '<div id="overlay" class="overlay">' in result["message"] and "covers it" in result["message"]
    overlay_ref = actions.call("find", {"target": {"css": "#overlay"}})["matches"][0]["ref"]
    assert overlay_ref in result["message"]
    assert actions.text("#result") == "ready"  # neither the button nor the overlay got a click


def test_hidden_element(actions: AgentPage) -> None:
    result = actions.act("click", target={"css": "#hidden-action"}, timeoutMs=200)
    assert result["code"] == "ELEMENT_NOT_INTERACTABLE"
    assert "display:none" in result["message"]


def test_element_detached_while_waiting(actions: AgentPage) -> None:
    actions.page.evaluate("() => setTimeout(() => document.getElementById('disabled').remove(), 150)")
    result = actions.act("click", target={"css": "#disabled"}, timeoutMs=3000)
    assert result["code"] == "ELEMENT_NOT_INTERACTABLE"
    assert "detached" in result["message"]


def test_actionability_is_retried_until_the_element_is_ready(actions: AgentPage) -> None:
    actions.page.evaluate("() => setTimeout(() => { document.getElementById('disabled').disabled = false; }, 200)")
    actions.page.evaluate(
        "() => document.getElementById('disabled').addEventListener('click', () => {"
        " document.getElementById('result').textContent = 'enabled clicked'; })"
    )
    ok(actions.act("click", target={"css": "#disabled"}, timeoutMs=3000))
    assert actions.text("#result") == "enabled clicked"


def test_waits_for_a_moving_element_to_stop(actions: AgentPage) -> None:
    actions.page.evaluate(
        "() => { const b = document.getElementById('moving'); b.style.animation = 'none'; b.offsetWidth;"
        " b.style.animation = ''; }"
    )  # restart the 400 ms slide
    ok(actions.act("click", target={"css": "#moving"}, timeoutMs=3000))
    assert actions.text("#result") == "moving clicked"


def test_an_element_that_never_stops_is_not_stable(actions: AgentPage) -> None:
    result = actions.act("click", target={"css": "#always-moving"}, timeoutMs=300)
    assert result["code"] == "ELEMENT_NOT_INTERACTABLE"
    assert "not stable" in result["message"]
