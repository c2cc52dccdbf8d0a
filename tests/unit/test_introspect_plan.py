"""resolve_plan: from a tool's plan and the model's arguments to the steps the page agent runs."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from tabmcp.introspect.api import (
    ALL_ARGS,
    Arg,
    Choice,
    Contains,
    Fmt,
    PageTool,
    PlanError,
    PlanStep,
    call_webmcp,
    check,
    click,
    css,
    extract,
    fill,
    model_schema,
    navigate,
    press,
    ref,
    resolve_plan,
    role,
    select,
    submit,
    uncheck,
    wait_for,
)
from tabmcp.protocol import Step, Target


def tool(schema: dict[str, Any] | type[BaseModel], *plan: PlanStep) -> PageTool:
    return PageTool(name="t", description="d", input_schema=schema, plan=plan)


def props(**kinds: Any) -> dict[str, Any]:
    return {"type": "object", "properties": kinds, "additionalProperties": False}


def test_every_helper_resolves_to_its_wire_step() -> None:
    t = tool(
        props(to={"type": "string"}, urgent={"type": "boolean"}, state={"type": "string"}),
        fill(ref("e1"), Arg("to")),
        select(css("#folder"), "inbox"),
        check(ref("e2"), Arg("urgent")),
        uncheck(ref("e3")),
        click(role("button", "Send")),
        submit(ref("e4")),
        press("Enter"),
        press("Escape", ref("e5")),
        wait_for(text="Message sent", timeout_ms=3000),
        wait_for(text_gone="Sending…"),
        wait_for(target=css(".toast"), state="hidden"),
        extract("rows", "table tr", fields={"from": ".from", "subject": ".subject"}, limit=5),
        navigate(Fmt("/search?q={to}&s={state}", url=True)),
        call_webmcp("sendMail"),
    )
    steps = resolve_plan(t, {"to": "ada@example.test", "urgent": True, "state": "open & closed"})
    assert [s.model_dump(exclude_none=True) for s in steps] == [
        {"action": "fill", "target": {"ref": "e1"}, "value": "ada@example.test"},
        {"action": "select", "target": {"css": "#folder"}, "value": "inbox"},
        {"action": "check", "target": {"ref": "e2"}, "value": True},
        {"action": "uncheck", "target": {"ref": "e3"}},
        {"action": "click", "target": {"role": "button", "name": "Send"}},
        {"action": "submit", "target": {"ref": "e4"}},
        {"action": "press", "key": "Enter"},
        {"action": "press", "target": {"ref": "e5"}, "key": "Escape"},
        {"action": "wait_for", "condition": {"text": "Message sent"}, "timeoutMs": 3000},
        {"action": "wait_for", "condition": {"textGone": "Sending…"}},
        {"action": "wait_for", "target": {"css": ".toast"}, "condition": {"state": "hidden"}},
        {
            "action": "extract",
            "target": {"css": "table tr"},
            "label": "rows",
            "fields": {"from": ".from", "subject": ".subject"},
            "limit": 5,
        },
        {"action": "navigate", "value": "/search?q=ada%40example.test&s=open%20%26%20closed"},
        {
            "action": "webmcp",
            "name": "sendMail",
            "args": {"to": "ada@example.test", "urgent": True, "state": "open & closed"},
        },
    ]


def test_fmt_drops_the_parts_of_missing_arguments() -> None:
    t = tool(
        props(query={"type": "string"}, state={"type": "string", "enum": ["open", "closed"]}),
        fill(css("#q"), Fmt("is:issue is:{state} {query}")),
    )
    assert resolve_plan(t, {"query": "crash"})[0].value == "is:issue is: crash"
    assert resolve_plan(t, {"query": "crash", "state": "open"})[0].value == "is:issue is:open crash"
    assert resolve_plan(t, {})[0].value == "is:issue is:"


def test_wait_for_with_an_argument_waits_for_what_the_model_asked() -> None:
    t = tool(
        props(subject={"type": "string"}),
        click(ref("e1")),
        wait_for(text=Arg("subject")),
        wait_for(text_gone=Fmt("Loading {subject}")),
    )
    assert resolve_plan(t, {"subject": "Invoice"}) == [
        Step(action="click", target=Target(ref="e1")),
        Step(action="wait_for", condition={"text": "Invoice"}),
        Step(action="wait_for", condition={"textGone": "Loading Invoice"}),
    ]
    # not given: the wait on it is skipped, the Fmt one still renders
    assert [s.action for s in resolve_plan(t, {})] == ["click", "wait_for"]


def test_a_wait_can_name_where_the_site_shows_its_error() -> None:
    t = tool(props(), wait_for(text="Message sent", fail_when=css("[role=alertdialog]")))
    assert resolve_plan(t, {}) == [
        Step(action="wait_for", condition={"text": "Message sent"}, failWhen=Target(css="[role=alertdialog]"))
    ]
    with pytest.raises(ValueError, match="fail_when is a css"):
        wait_for(text="Message sent", fail_when=ref("e3"))  # a ref is gone once the page re-renders
    with pytest.raises(ValueError, match=r"failWhen is a \{css\} target of a wait_for step"):
        Step(action="click", target=Target(ref="e1"), failWhen=Target(css=".error"))


def test_choice_over_an_array_runs_once_per_element_in_order() -> None:
    rows = {str(i): Target(ref=f"row{i}") for i in range(4)}
    t = tool(
        props(rows={"type": "array", "items": {"type": "string", "enum": list(rows)}}),
        check(Choice("rows", rows)),
        click(ref("archive")),
    )
    assert resolve_plan(t, {"rows": ["2", "0"]}) == [
        Step(action="check", target=Target(ref="row2"), value=True),
        Step(action="check", target=Target(ref="row0"), value=True),
        Step(action="click", target=Target(ref="archive")),
    ]
    assert resolve_plan(t, {"rows": []}) == [Step(action="click", target=Target(ref="archive"))]
    with pytest.raises(PlanError, match="rows must be one of: 0, 1, 2, 3"):
        resolve_plan(t, {"rows": ["9"]})


def test_choice_over_an_integer_index() -> None:
    rows = {"0": Target(ref="r0"), "1": Target(ref="r1")}
    t = tool(props(index={"type": "integer"}), click(Choice("index", rows)))
    assert resolve_plan(t, {"index": 1}) == [Step(action="click", target=Target(ref="r1"))]
    assert resolve_plan(t, {"index": 1.0}) == [Step(action="click", target=Target(ref="r1"))]
    with pytest.raises(PlanError, match="index must be one of: 0, 1"):
        resolve_plan(t, {"index": 5})


def test_contains_sets_each_box_from_the_array() -> None:
    t = tool(
        props(labels={"type": "array", "items": {"type": "string"}}),
        check(ref("a"), Contains("labels", "work")),
        check(ref("b"), Contains("labels", "home")),
    )
    assert [s.value for s in resolve_plan(t, {"labels": ["home"]})] == [False, True]
    assert resolve_plan(t, {}) == []


def test_all_args_passes_exactly_what_the_model_sent() -> None:
    t = tool({"type": "object", "additionalProperties": True}, PlanStep("webmcp", name="x", args=ALL_ARGS))
    sent = {"nested": {"list": [1, 2]}, "flag": False}
    assert resolve_plan(t, sent) == [Step(action="webmcp", name="x", args=sent)]


def test_check_with_a_text_argument_is_a_boolean() -> None:
    t = tool(props(on={"type": "boolean"}), check(ref("e1"), Arg("on")))
    assert resolve_plan(t, {"on": "false"})[0].value is False
    assert resolve_plan(t, {"on": "true"})[0].value is True


@pytest.mark.parametrize(
    ("kind", "value", "message"),
    [
        ("integer", "two", "n must be an integer (got 'two')"),
        ("integer", 2.5, "n must be an integer (got 2.5)"),
        ("integer", True, "n must be an integer (got True)"),
        ("number", [1], "n must be a number"),
        ("string", {"a": 1}, "n must be a string"),
        ("string", False, "n must be a string"),
        ("boolean", "yes", "n must be a boolean"),
        ("array", "a,b", "n must be an array"),
    ],
)
def test_wrongly_typed_arguments_get_a_message_the_model_can_act_on(kind: str, value: Any, message: str) -> None:
    t = tool(props(n={"type": kind}), fill(ref("e1"), Arg("n")))
    with pytest.raises(PlanError) as info:
        resolve_plan(t, {"n": value})
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("kind", "value", "filled"),
    [
        ("integer", "3", "3"),
        ("integer", 3.0, "3"),
        ("number", "2.5", "2.5"),
        ("number", 4, "4"),
        ("boolean", "true", "true"),
    ],
)
def test_numbers_and_booleans_as_text_are_accepted(kind: str, value: Any, filled: str) -> None:
    t = tool(props(n={"type": kind}), fill(ref("e1"), Arg("n")))
    assert resolve_plan(t, {"n": value})[0].value == filled


# ----------------------------------------------------------------- pydantic input models


class Cabin(StrEnum):
    ECONOMY = "economy"
    BUSINESS = "business"


class Passenger(BaseModel):
    name: str


class Booking(BaseModel):
    """Developer notes that are not for the model."""

    flight: str = Field(description="Flight number", pattern=r"^[A-Z]{2}\d+$")
    seats: int = Field(1, ge=1, le=9)
    cabin: Cabin = Cabin.ECONOMY
    meal: Literal["veg", "any"] | None = None
    lead: Passenger | None = None


def booking_tool() -> PageTool:
    return tool(
        Booking,
        fill(ref("flight"), Arg("flight")),
        fill(ref("seats"), Arg("seats")),
        select(ref("cabin"), Arg("cabin")),
        select(ref("meal"), Arg("meal")),
    )


def test_a_pydantic_model_gives_an_inline_schema() -> None:
    schema = booking_tool().input_schema
    assert "$defs" not in schema and "$ref" not in str(schema)
    assert "title" not in schema and "description" not in schema
    assert schema["properties"]["cabin"] == {"enum": ["economy", "business"], "type": "string", "default": "economy"}
    assert schema["properties"]["lead"]["anyOf"][0] == {
        "properties": {"name": {"title": "Name", "type": "string"}},
        "required": ["name"],
        "type": "object",
    }
    assert schema["required"] == ["flight"]
    assert schema["additionalProperties"] is False
    assert model_schema(Booking) == schema


def test_a_pydantic_model_fills_in_its_defaults_and_validates() -> None:
    steps = resolve_plan(booking_tool(), {"flight": "SH100"})
    assert [(s.target.ref if s.target else None, s.value) for s in steps] == [
        ("flight", "SH100"),
        ("seats", "1"),  # the model's default is used
        ("cabin", "economy"),
    ]
    with pytest.raises(PlanError) as info:
        resolve_plan(booking_tool(), {"flight": "sh-100", "seats": 12})
    assert "flight: String should match pattern" in str(info.value)
    assert "seats: Input should be less than or equal to 9" in str(info.value)
    with pytest.raises(PlanError, match="unknown argument"):
        resolve_plan(booking_tool(), {"flight": "SH100", "wifi": True})


def test_a_model_tool_is_equal_to_its_schema_tool_in_listing() -> None:
    from_model = booking_tool()
    from_schema = tool(model_schema(Booking), *from_model.plan)
    assert from_model.input_schema == from_schema.input_schema
    assert from_model.input_model is Booking and from_schema.input_model is None


def test_an_integer_enum_accepts_its_numbers_as_text_like_the_type_check_does() -> None:
    t = tool(props(adults={"type": "integer", "enum": [1, 2, 3]}), select(css("#adults"), Arg("adults")))
    assert resolve_plan(t, {"adults": "2"})[0].value == "2"
    with pytest.raises(PlanError, match="adults must be one of: 1, 2, 3"):
        resolve_plan(t, {"adults": "4"})


def test_additional_properties_given_as_a_schema_let_other_arguments_through() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "additionalProperties": {"type": "string"}}
    t = tool(schema, call_webmcp("search"))
    assert resolve_plan(t, {"q": "x", "lang": "en"})[0].args == {"q": "x", "lang": "en"}
    closed = tool(props(q={"type": "string"}), call_webmcp("search"))
    with pytest.raises(PlanError, match="unknown argument"):
        resolve_plan(closed, {"q": "x", "lang": "en"})
