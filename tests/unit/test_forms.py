"""The generic form introspector, on HTML serialised the way extension/agent.js writes it."""

from __future__ import annotations

import pytest

from tabmcp.introspect.api import Arg, Choice, PageTool, PlanError, PlanStep, ToolHints, resolve_plan
from tabmcp.introspect.forms import FormIntrospector
from tabmcp.page.capture import PageCapture
from tabmcp.protocol import Step, Target

# src/tabmcp/demo/sites/flights.html as agent.js serialises it: no doctype, no comments, live values
# written as attributes, a ref on every interactive element, the hidden CSRF input flagged hidden.
FLIGHTS_HTML = """<html lang="en"><head><meta charset="utf-8">
<title>SkyHop \u2013 search flights</title></head>
<body><main>
<h1>SkyHop</h1>
<form id="flight-search" action="results.html" method="get" aria-label="Search flights" data-tabmcp-ref="e1">
  <input type="hidden" name="csrf" value="token-123" data-tabmcp-ref="e2" data-tabmcp-hidden="1">
  <label for="from" data-tabmcp-ref="e3">From (airport code)</label> <input id="from" name="from" required=""
    placeholder="SFO" value="" data-tabmcp-ref="e4">
  <label for="to" data-tabmcp-ref="e5">To (airport code)</label> <input id="to" name="to" required=""
    placeholder="JFK" value="" data-tabmcp-ref="e6">
  <label for="depart" data-tabmcp-ref="e7">Departure date</label> <input id="depart" name="departDate"
    type="date" required="" value="" data-tabmcp-ref="e8">
  <label for="pax" data-tabmcp-ref="e9">Passengers</label> <input id="pax" name="passengers" type="number"
    min="1" value="1" data-tabmcp-ref="e10">
  <label for="cabin" data-tabmcp-ref="e11">Cabin</label>
  <select id="cabin" name="cabin" data-tabmcp-ref="e12"><option value="economy" selected="">Economy</option>
    <option value="business">Business</option></select>
  <button type="submit" data-tabmcp-ref="e13">Search flights</button>
</form>
<p><a href="index.html" data-tabmcp-ref="e14">All demo sites</a></p>
</main></body></html>"""


def capture(body: str, url: str = "https://site.test/page") -> PageCapture:
    return PageCapture(url=url, title="Test page", html=f"<html><head></head><body>{body}</body></html>")


def only_tool(cap: PageCapture) -> PageTool:
    tools = FormIntrospector().tools(cap)
    assert len(tools) == 1, [t.name for t in tools]
    return tools[0]


@pytest.fixture
def flights() -> PageTool:
    return only_tool(PageCapture(url="http://127.0.0.1:8800/flights.html", title="SkyHop", html=FLIGHTS_HTML))


# ----------------------------------------------------------------- the flight search form


def test_flight_form_becomes_search_flights(flights: PageTool) -> None:
    assert flights.name == "search_flights"
    assert flights.title == "Search flights"
    assert flights.element_ref == "e1"
    assert flights.source == "forms"


def test_flight_form_parameters(flights: PageTool) -> None:
    schema = flights.input_schema
    assert schema["type"] == "object"
    assert schema["properties"] == {
        "from": {"type": "string", "description": "From (airport code)"},
        "to": {"type": "string", "description": "To (airport code)"},
        "departDate": {"type": "string", "format": "date", "description": "Departure date"},
        "passengers": {"type": "number", "description": "Passengers"},
        "cabin": {"type": "string", "enum": ["economy", "business"], "description": "Cabin"},
    }
    assert schema["required"] == ["from", "to", "departDate"]
    assert schema["additionalProperties"] is False


def test_flight_form_csrf_token_is_not_a_parameter(flights: PageTool) -> None:
    assert "csrf" not in flights.input_schema["properties"]
    assert all(step.target != Target(ref="e2") for step in flights.plan)


def test_a_hidden_input_is_never_a_parameter_even_without_the_hidden_flag() -> None:
    html = FLIGHTS_HTML.replace(' data-tabmcp-hidden="1"', "")
    tool = only_tool(PageCapture(url="http://127.0.0.1:8800/flights.html", title="SkyHop", html=html))
    assert "csrf" not in tool.input_schema["properties"]


def test_get_form_is_read_only_and_idempotent(flights: PageTool) -> None:
    assert flights.hints == ToolHints(read_only=True, destructive=False, idempotent=True, open_world=True)


def test_flight_form_description_says_what_it_does(flights: PageTool) -> None:
    assert "Search flights" in flights.description
    assert "untrusted" in flights.description


def test_flight_form_plan_fills_then_submits_the_form(flights: PageTool) -> None:
    assert flights.plan == (
        PlanStep("fill", target=Target(ref="e4"), value=Arg("from")),
        PlanStep("fill", target=Target(ref="e6"), value=Arg("to")),
        PlanStep("fill", target=Target(ref="e8"), value=Arg("departDate")),
        PlanStep("fill", target=Target(ref="e10"), value=Arg("passengers")),
        PlanStep("select", target=Target(ref="e12"), value=Arg("cabin")),
        PlanStep("submit", target=Target(ref="e1")),
    )


# ----------------------------------------------------------------- other forms

DELETE_ACCOUNT = """
<form method="post" action="/account/delete" data-tabmcp-ref="e1">
  <h2>Danger zone</h2>
  <label data-tabmcp-ref="e2">Password <input type="password" name="password" required="" value=""
    data-tabmcp-ref="e3"></label>
  <button type="submit" data-tabmcp-ref="e4">Delete account</button>
</form>"""

CONTACT = """
<form method="post" action="/contact" data-tabmcp-ref="e1">
  <label data-tabmcp-ref="e2">Email <input type="email" name="email" value="" data-tabmcp-ref="e3"></label>
  <textarea name="message" aria-label="Your message" data-tabmcp-ref="e4"></textarea>
  <label data-tabmcp-ref="e5"><input type="checkbox" name="newsletter" value="on" data-tabmcp-ref="e6">
    Send me the newsletter</label>
  <input type="submit" value="Send message" data-tabmcp-ref="e7">
</form>"""

CABIN_RADIOS = """
<form action="/search" data-tabmcp-ref="e1">
  <fieldset><legend>Cabin class</legend>
    <label data-tabmcp-ref="e2"><input type="radio" name="cabin" value="economy" checked="" required=""
      data-tabmcp-ref="e3"> Economy</label>
    <label data-tabmcp-ref="e4"><input type="radio" name="cabin" value="business" data-tabmcp-ref="e5">
      Business</label>
  </fieldset>
  <button data-tabmcp-ref="e6">Find fares</button>
</form>"""


def test_post_form_with_a_delete_button_is_destructive() -> None:
    tool = only_tool(capture(DELETE_ACCOUNT))
    assert tool.name == "delete_account"
    assert tool.hints.destructive
    assert not tool.hints.read_only
    assert not tool.hints.idempotent
    assert tool.input_schema["properties"] == {"password": {"type": "string", "description": "Password"}}


def test_ordinary_post_form_is_neither_read_only_nor_destructive() -> None:
    tool = only_tool(capture(CONTACT))
    assert tool.name == "send_message"
    assert tool.hints == ToolHints(read_only=False, destructive=False, idempotent=False)


def test_checkbox_is_a_boolean_checked_with_the_argument() -> None:
    tool = only_tool(capture(CONTACT))
    props = tool.input_schema["properties"]
    assert props["newsletter"] == {"type": "boolean", "description": "Send me the newsletter"}
    assert props["email"] == {"type": "string", "format": "email", "description": "Email"}
    assert props["message"] == {"type": "string", "description": "Your message"}
    assert PlanStep("check", target=Target(ref="e6"), value=Arg("newsletter")) in tool.plan
    assert "required" not in tool.input_schema


def test_radio_group_is_an_enum_with_one_target_per_value() -> None:
    tool = only_tool(capture(CABIN_RADIOS))
    assert tool.input_schema["properties"] == {
        "cabin": {"type": "string", "enum": ["economy", "business"], "description": "Cabin class"}
    }
    assert tool.input_schema["required"] == ["cabin"]
    choice = Choice("cabin", {"economy": Target(ref="e3"), "business": Target(ref="e5")})
    assert tool.plan == (
        PlanStep("check", target=choice, value=True),
        PlanStep("submit", target=Target(ref="e1")),
    )


def test_hidden_form_gives_no_tool() -> None:
    html = DELETE_ACCOUNT.replace('data-tabmcp-ref="e1"', 'data-tabmcp-ref="e1" data-tabmcp-hidden="1"')
    assert FormIntrospector().tools(capture(html)) == []


def test_form_without_a_ref_gives_no_tool() -> None:
    html = DELETE_ACCOUNT.replace(' data-tabmcp-ref="e1"', "")
    assert FormIntrospector().tools(capture(html)) == []


def test_every_visible_form_with_a_ref_gives_a_tool() -> None:
    tools = FormIntrospector().tools(capture(DELETE_ACCOUNT + CONTACT.replace('"e1"', '"e11"')))
    assert [(t.name, t.element_ref) for t in tools] == [("delete_account", "e1"), ("send_message", "e11")]


def test_disabled_hidden_and_unreferenced_controls_are_not_parameters() -> None:
    html = """
    <form action="/search" data-tabmcp-ref="e1">
      <input name="q" aria-label="Search" value="" data-tabmcp-ref="e2">
      <input name="promo" aria-label="Promo code" disabled="" value="" data-tabmcp-ref="e3">
      <input name="website" aria-label="Website" value="" data-tabmcp-ref="e4" data-tabmcp-hidden="1">
      <input name="untracked" aria-label="Untracked" value="">
      <input aria-label="Nameless" value="" data-tabmcp-ref="e5">
      <input type="reset" name="reset" value="Clear" data-tabmcp-ref="e6">
      <button data-tabmcp-ref="e7">Search</button>
    </form>"""
    tool = only_tool(capture(html))
    assert list(tool.input_schema["properties"]) == ["q"]
    assert [step.target for step in tool.plan] == [Target(ref="e2"), Target(ref="e1")]


def test_controls_in_a_disabled_fieldset_are_not_parameters() -> None:
    # Regression: per HTML, every control inside <fieldset disabled> (outside its first legend) is
    # disabled and never submitted; agent.js serialises attributes, not the :disabled state, so the
    # introspector must look at the ancestors (forms._disabled).
    html = """
    <form action="/book" data-tabmcp-ref="e1">
      <input name="name" aria-label="Name" value="" data-tabmcp-ref="e2">
      <fieldset disabled=""><legend>Seat (sold out)</legend>
        <input name="seat" aria-label="Seat" value="" data-tabmcp-ref="e3">
      </fieldset>
      <button data-tabmcp-ref="e4">Book</button>
    </form>"""
    assert list(only_tool(capture(html)).input_schema["properties"]) == ["name"]


# ----------------------------------------------------------------- resolve_plan


def test_resolve_plan_substitutes_arguments_and_skips_missing_optional_ones(flights: PageTool) -> None:
    steps = resolve_plan(flights, {"from": "SFO", "to": "JFK", "departDate": "2025-06-01"})
    assert steps == [
        Step(action="fill", target=Target(ref="e4"), value="SFO"),
        Step(action="fill", target=Target(ref="e6"), value="JFK"),
        Step(action="fill", target=Target(ref="e8"), value="2025-06-01"),
        Step(action="submit", target=Target(ref="e1")),
    ]


def test_resolve_plan_turns_numbers_into_strings_for_fill(flights: PageTool) -> None:
    args = {"from": "SFO", "to": "JFK", "departDate": "2025-06-01", "passengers": 2, "cabin": "business"}
    steps = resolve_plan(flights, args)
    assert Step(action="fill", target=Target(ref="e10"), value="2") in steps
    assert Step(action="select", target=Target(ref="e12"), value="business") in steps
    assert all(isinstance(step.value, str) for step in steps if step.action in ("fill", "select"))


def test_resolve_plan_names_every_missing_required_argument(flights: PageTool) -> None:
    with pytest.raises(PlanError) as info:
        resolve_plan(flights, {"from": "SFO", "departDate": ""})
    listed = str(info.value).rsplit(":", 1)[1]
    assert {name.strip() for name in listed.split(",")} == {"to", "departDate"}  # "" counts as missing


def test_resolve_plan_rejects_unknown_arguments(flights: PageTool) -> None:
    with pytest.raises(PlanError) as info:
        resolve_plan(flights, {"from": "SFO", "to": "JFK", "departDate": "2025-06-01", "returnDate": "x"})
    assert "returnDate" in str(info.value)
    assert "departDate" in str(info.value)  # the expected names are listed for the model


def test_resolve_plan_picks_the_radio_for_the_value() -> None:
    tool = only_tool(capture(CABIN_RADIOS))
    assert resolve_plan(tool, {"cabin": "business"}) == [
        Step(action="check", target=Target(ref="e5"), value=True),
        Step(action="submit", target=Target(ref="e1")),
    ]


def test_resolve_plan_rejects_a_radio_value_outside_the_enum() -> None:
    tool = only_tool(capture(CABIN_RADIOS))
    with pytest.raises(PlanError) as info:
        resolve_plan(tool, {"cabin": "first"})
    assert "cabin" in str(info.value)
    assert "economy, business" in str(info.value)


def test_resolve_plan_keeps_checkbox_values_boolean() -> None:
    tool = only_tool(capture(CONTACT))
    steps = resolve_plan(tool, {"email": "a@b.test", "newsletter": False})
    assert Step(action="check", target=Target(ref="e6"), value=False) in steps
    assert [s.action for s in steps] == ["fill", "check", "submit"]
