"""What the model is asked and what is made of its answers (tabmcp.nl.prompts): every answer is checked."""

from __future__ import annotations

import pytest

from tabmcp.nl.locate import Candidate
from tabmcp.nl.page import PageView
from tabmcp.nl.prompts import (
    SYSTEM,
    AnswerError,
    locate_question,
    messages,
    parse_json,
    read_assertion,
    read_locate,
    read_plan,
    read_query,
    replan_question,
)
from tabmcp.nl.query import parse_shape
from tabmcp.nl.steps import ActionStep


def node(ref: str, role: str, name: str, value: str = "") -> dict[str, object]:
    return {"ref": ref, "role": role, "name": name, "value": value, "states": [], "depth": 0}


VIEW = PageView.from_snapshot(
    {
        "url": "https://shop.test/",
        "title": "Shop",
        "nodes": [
            node("", "text", "Welcome back"),  # text rows have no ref
            node("e1", "button", "Save"),
            node("e2", "textbox", "Email", "a@b.test"),
        ],
    }
)


@pytest.mark.parametrize(
    "answer",
    [
        '{"ref": "e1"}',
        '```json\n{"ref": "e1"}\n```',
        '```\n{"ref": "e1"}\n```',
        'Sure! Here it is: {"ref": "e1"} Hope that helps.',
    ],
)
def test_parse_json_finds_the_object_in_an_answer(answer: str) -> None:
    assert parse_json(answer) == {"ref": "e1"}


def test_parse_json_refuses_an_answer_without_json_quoting_it() -> None:
    with pytest.raises(AnswerError, match="did not answer with JSON") as caught:
        parse_json("I cannot help with that.")
    assert "I cannot help with that." in str(caught.value)


def test_messages_are_the_system_prompt_and_the_question_with_the_page() -> None:
    system, user = messages("Which one?", 'e1 button "Save"')
    assert system == {"role": "system", "content": SYSTEM}
    assert user == {"role": "user", "content": 'Which one?\n\nThe page:\ne1 button "Save"'}


def test_messages_with_a_screenshot_send_it_as_an_image_part() -> None:
    url = "data:image/png;base64,iVBORw0KGgo="
    _, user = messages("Which one?", "PAGE", screenshot=url)
    assert user["content"] == [
        {"type": "text", "text": "Which one?\n\nThe page:\nPAGE"},
        {"type": "image_url", "image_url": {"url": url}},
    ]


def test_read_locate_takes_a_ref_on_the_page_and_the_reason() -> None:
    assert read_locate('{"ref": "e1", "reason": "it says Save"}', VIEW) == ("e1", "it says Save")
    assert read_locate('{"ref": " e2 ", "thought": "the email field"}', VIEW) == ("e2", "the email field")
    assert read_locate('{"ref": null, "reason": "no such button"}', VIEW) == (None, "no such button")


@pytest.mark.parametrize("answer", ['{"ref": "e9"}', '{"ref": 1}', '{"ref": ""}', '{"ref": "  "}', '["e1"]'])
def test_read_locate_refuses_what_is_not_an_element_of_the_page(answer: str) -> None:
    # "" is the ref of every text row, so by_ref("") finds one: it must still not count as an element
    with pytest.raises(AnswerError):
        read_locate(answer, VIEW)


def test_read_query_accepts_data_of_the_shape_asked_for() -> None:
    names, _ = parse_shape("string[], the product names")
    assert read_query('{"data": ["Onesie", "Backpack"]}', names) == ["Onesie", "Backpack"]
    rows, _ = parse_shape("{name: string, price: number}[], the products")
    assert read_query('{"data": [{"name": "Onesie", "price": 7.99}]}', rows) == [{"name": "Onesie", "price": 7.99}]
    price, _ = parse_shape("number, the price")
    assert read_query('```json\n{"data": 7.99}\n```', price) == 7.99


@pytest.mark.parametrize(
    ("shape_text", "answer", "message"),
    [
        ("string[], names", '{"data": "x"}', "is not a string"),
        ("string[], names", '{"value": ["x"]}', 'has no "data"'),
        ("{name: string, price: number}[], products", '{"data": [{"name": "Onesie"}]}', "is not a {name"),
        ("number, the price", '{"data": "7.99"}', "is not a number"),
        ("number, the price", '{"data": true}', "is not a number"),
    ],
)
def test_read_query_refuses_data_of_another_shape(shape_text: str, answer: str, message: str) -> None:
    shape, _ = parse_shape(shape_text)
    with pytest.raises(AnswerError, match=message):
        read_query(answer, shape)


def test_read_assertion_wants_a_boolean_verdict() -> None:
    assert read_assertion('{"pass": true, "reason": "the cart shows 1"}') == (True, "the cart shows 1")
    assert read_assertion('{"pass": false}') == (False, "")
    assert read_assertion('{"passed": true}') == (True, "")
    assert read_assertion('{"result": false}') == (False, "")
    for answer in ('{"pass": "true"}', '{"pass": 1}', '{"reason": "unsure"}'):
        with pytest.raises(AnswerError, match='"pass": true/false'):
            read_assertion(answer)


def test_read_plan_gives_steps_or_says_why_they_cannot_run() -> None:
    assert read_plan('{"steps": [{"action": "tap", "locate": "Save"}]}') == (ActionStep("tap", locate="Save"),)
    with pytest.raises(AnswerError, match="the model's plan cannot be run: step 1: unknown action 'fly'"):
        read_plan('{"steps": [{"action": "fly"}]}')
    with pytest.raises(AnswerError, match="not a JSON object"):
        read_plan('[{"action": "tap"}]')


def test_a_replan_may_say_nothing_is_left_a_first_plan_may_not() -> None:
    assert read_plan('{"steps": []}', may_be_empty=True) == ()
    with pytest.raises(AnswerError, match="the plan has no steps"):
        read_plan('{"steps": []}')


def test_replan_question_says_what_was_done_and_what_failed() -> None:
    question = replan_question("buy a light", ['tap "Add" → button "Add"'], 'tap "Checkout"', "No element matches")
    assert 'do: "buy a light". Done so far: tap "Add" → button "Add".' in question
    assert 'The next step, tap "Checkout", could not be done: No element matches.' in question
    assert '{"steps": []} if nothing is left to do' in question and '"tap"' in question  # the vocabulary
    assert "Done so far: nothing yet." in replan_question("x", [], "tap y", "gone")


def test_locate_question_lists_the_candidates_by_ref() -> None:
    save, email = VIEW.by_ref("e1"), VIEW.by_ref("e2")
    assert save is not None and email is not None
    question = locate_question('the "save" button', [Candidate(save, 0.9), Candidate(email, 0.2)])
    assert 'Which element does this description mean: "the \\"save\\" button"?' in question
    assert '\n- e1 button "Save"\n- e2 textbox "Email" = "a@b.test"\n' in question
    assert '{"ref": null' in question
    assert "closest matches" not in locate_question("the save button", [])
