"""ai_action's steps (tabmcp.nl.steps): a prompt in plain words, and a model's plan, as ActionSteps."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tabmcp.nl.steps import MAX_STEPS, MAX_WAIT_MS, ActionStep, StepError, clauses, from_model, key_name, parse


def test_clauses_split_at_punctuation_new_lines_and_sentence_ends() -> None:
    prompt = "type hello into the name field, click Save; press Enter\nscroll down. Wait 2 seconds"
    assert clauses(prompt) == ["type hello into the name field", "click Save", "press Enter", "scroll down",
                               "Wait 2 seconds"]  # fmt: skip


def test_clauses_split_at_and_or_then_only_before_a_verb() -> None:
    assert clauses("enter bob in search and press enter") == ["enter bob in search", "press enter"]
    assert clauses("first click Login then type bob into username") == ["click Login", "type bob into username"]
    assert clauses("click the button and the link") == ["click the button and the link"]


def test_clauses_never_split_inside_quotes() -> None:
    prompt = 'Type "JavaScript, rocks" into the search box and then press Enter'
    assert clauses(prompt) == ['Type "JavaScript, rocks" into the search box', "press Enter"]
    assert clauses("Click 'Save, then close'") == ["Click 'Save, then close'"]
    assert clauses('enter "rock and roll" in search') == ['enter "rock and roll" in search']


@pytest.mark.parametrize(
    ("clause", "step"),
    [
        ('type "JavaScript" into the search box', ActionStep("input", locate="the search box", text="JavaScript")),
        ("enter bob@x.test in the email field", ActionStep("input", locate="the email field", text="bob@x.test")),
        ("fill the email with a@b.c", ActionStep("input", locate="the email", text="a@b.c")),
        ("set quantity to 3", ActionStep("input", locate="quantity", text="3")),
        ("clear the search box", ActionStep("input", locate="the search box", text="")),
        ('select "Large" from the size dropdown', ActionStep("select", locate="the size dropdown", text="Large")),
        ("check the terms checkbox", ActionStep("check", locate="the terms checkbox")),
        ("uncheck remember me", ActionStep("uncheck", locate="remember me")),
        ("hover over the menu", ActionStep("hover", locate="the menu")),
        ("click Save", ActionStep("tap", locate="Save")),
        ("tap on Sign in", ActionStep("tap", locate="Sign in")),
        ("press the Submit button", ActionStep("tap", locate="the Submit button")),  # not a key: a button
        ("press Enter", ActionStep("press", key="Enter")),
        ("press ctrl+a in the editor", ActionStep("press", key="Control+A", locate="the editor")),
        ("hit return", ActionStep("press", key="Enter")),
        ("scroll down 300px", ActionStep("scroll", direction="down", distance=300)),
        ("scroll up 100 pixels in the list", ActionStep("scroll", direction="up", distance=100, locate="the list")),
        (
            "scroll to the bottom of the list",
            ActionStep("scroll", direction="down", scroll_type="untilBottom", locate="the list"),
        ),
        ("scroll to top", ActionStep("scroll", direction="up", scroll_type="untilTop")),
        ("wait 2 seconds", ActionStep("wait", ms=2000)),
        ("wait 500ms", ActionStep("wait", ms=500)),
        ("wait 60 seconds", ActionStep("wait", ms=MAX_WAIT_MS)),  # capped
        ("wait for the spinner to disappear", ActionStep("wait", assertion="the spinner to disappear")),
        ("verify that the cart shows 1 item", ActionStep("assert", assertion="the cart shows 1 item")),
        ("check that the total is $5", ActionStep("assert", assertion="the total is $5")),  # not a checkbox
        ("go to https://example.com/x", ActionStep("navigate", url="https://example.com/x")),
        ("go to example.com", ActionStep("navigate", url="https://example.com")),
    ],
)
def test_parse_reads_each_verb(clause: str, step: ActionStep) -> None:
    parsed = parse(clause)
    assert parsed.ok
    assert parsed.steps == (step,)


def test_parse_reads_a_whole_prompt_in_order() -> None:
    parsed = parse('Type "JavaScript, rocks" into the search box and then press Enter')
    assert parsed.steps == (ActionStep("input", locate="the search box", text="JavaScript, rocks"),
                            ActionStep("press", key="Enter"))  # fmt: skip


def test_an_unreadable_clause_is_named_and_gives_no_steps() -> None:
    parsed = parse("click save, dance wildly, click ok")
    assert parsed.unread == "dance wildly"
    assert parsed.steps == ()
    assert not parsed.ok


def test_parse_refuses_more_than_max_steps() -> None:
    assert parse(", ".join(["click ok"] * MAX_STEPS)).ok
    too_many = parse(", ".join(["click ok"] * (MAX_STEPS + 1)))
    assert too_many.steps == () and too_many.unread == f"{MAX_STEPS + 1} steps (at most {MAX_STEPS})"


@pytest.mark.parametrize(
    ("text", "key"),
    [("enter", "Enter"), ("ctrl+a", "Control+A"), ("Ctrl + Shift + K", "Control+Shift+K"), ("down arrow", "ArrowDown"),
     ("f5", "F5"), ("esc", "Escape"), ("page down", "PageDown"), ("a", "a"), ("banana", None), ("f13", None),
     ("ctrl+banana", None), ("hyper+a", None)],
)  # fmt: skip
def test_key_name(text: str, key: str | None) -> None:
    assert key_name(text) == key


def plan(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"steps": list(steps)}


def test_from_model_accepts_a_good_plan() -> None:
    steps = from_model(
        plan(
            {"action": "input", "locate": "search box", "text": "js"},
            {"action": "press", "key": "enter"},  # a person's key name, made the agent's
            {"action": "scroll", "direction": "up", "distance": 200},
            {"action": "tap", "locate": "e5"},
        )
    )
    assert steps == (
        ActionStep("input", locate="search box", text="js"),
        ActionStep("press", key="Enter"),
        ActionStep("scroll", direction="up", distance=200),
        ActionStep("tap", locate="e5"),
    )


def test_from_model_takes_keys_already_in_agent_form() -> None:
    assert from_model(plan({"action": "press", "key": "ArrowDown"}))[0].key == "ArrowDown"
    assert from_model(plan({"action": "press", "key": "Control+A"}))[0].key == "Control+A"


def test_wait_is_a_time_when_ms_is_given_else_a_condition() -> None:
    assert from_model(plan({"action": "wait", "ms": 1500})) == (ActionStep("wait", ms=1500),)
    assert from_model(plan({"action": "wait", "assertion": "done"})) == (ActionStep("wait", assertion="done"),)
    with pytest.raises(StepError, match=f"ms must be a whole number from 0 to {MAX_WAIT_MS}"):
        from_model(plan({"action": "wait", "ms": MAX_WAIT_MS + 1}))  # too long: said so, not clamped
    with pytest.raises(StepError, match="ms must be"):
        from_model(plan({"action": "wait", "ms": "soon"}))


def test_then_splits_only_before_a_verb_and_a_model_key_must_be_a_key() -> None:
    assert clauses("click Back then Forward") == ["click Back then Forward"]
    assert clauses("click Back then click Forward") == ["click Back", "click Forward"]
    with pytest.raises(StepError, match="not a key name"):
        from_model(plan({"action": "press", "key": "banana"}))
    assert from_model(plan({"action": "press", "key": "F5"}))[0].key == "F5"
    assert from_model(plan({"action": "press", "key": "Shift+Tab"}))[0].key == "Shift+Tab"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (["not", "an", "object"], re.escape('the plan is not {"steps": [...]}')),
        ({"steps": "tap"}, re.escape('the plan is not {"steps": [...]}')),
        (plan(), "the plan has no steps"),
        (plan(*[{"action": "tap", "locate": "x"}] * (MAX_STEPS + 1)), f"{MAX_STEPS + 1} steps"),
        (plan("tap"), "step 1 is not an object"),
        (plan({"action": "tap", "locate": "x"}, {"action": "fly"}), "step 2: unknown action 'fly'"),
        (plan({"action": "tap"}), r"step 1 \(tap\): locate must be a string"),
        (plan({"action": "tap", "locate": "  "}), r"step 1 \(tap\): locate must be a string"),
        (plan({"action": "input", "locate": "x"}), r"step 1 \(input\): text must be a string"),
        (plan({"action": "press", "key": "not a key!"}), "is not a key name"),
        (plan({"action": "scroll", "direction": "sideways"}), "direction up/down/left/right"),
        (plan({"action": "scroll", "scrollType": "forever"}), "scrollType"),
        (plan({"action": "scroll", "distance": -5}), "distance must be a positive integer"),
        (plan({"action": "scroll", "distance": True}), "distance must be a positive integer"),
        (plan({"action": "tap", "locate": "x" * 2001}), "locate is too long"),
    ],
)
def test_from_model_refuses_a_bad_plan_naming_the_step(raw: object, message: str) -> None:
    with pytest.raises(StepError, match=message):
        from_model(raw)


@pytest.mark.parametrize(
    ("step", "text"),
    [
        (ActionStep("input", locate="box", text="hi"), "input 'hi' into 'box'"),
        (ActionStep("input", locate="box", text=""), "clear 'box'"),
        (ActionStep("press", key="Enter", locate="box"), "press Enter in 'box'"),
        (ActionStep("scroll", direction="down", distance=300), "scroll down 300px"),
        (
            ActionStep("scroll", direction="down", scroll_type="untilBottom", locate="list"),
            "scroll untilBottom in 'list'",
        ),
        (ActionStep("select", locate="size", text="L"), "select 'L' in 'size'"),
        (ActionStep("navigate", url="https://x.test"), "go to https://x.test"),
        (ActionStep("wait", ms=2000), "wait 2000 ms"),
        (ActionStep("wait", assertion="done"), "wait for 'done'"),
        (ActionStep("assert", assertion="ok"), "check that 'ok'"),
        (ActionStep("tap", locate="Save"), "tap 'Save'"),
    ],
)
def test_describe(step: ActionStep, text: str) -> None:
    assert step.describe() == text
