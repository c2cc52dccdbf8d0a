"""Kayak-style flight search: search_flights on the search form, select_flight on the result cards.

Matches ``https://www.kayak.com/*`` and, by structure, pages built like Kayak's flight search (the
bundled Skyscan demo, ``src/tabmcp/demo/sites/flights``, reproduces it). What the selectors come
from, on Kayak:

- origin and destination are comboboxes, ``input[aria-label="Flight origin input"]`` and
  ``input[aria-label="Flight destination input"]``: typing shows a ``[role=listbox]`` of airport
  ``[role=option]``s (the input's ``aria-controls`` names it), and an airport counts only once an
  option is picked. The plan types the airport and picks the first suggestion, as a user does.
- dates are the inputs labelled "Departure date" and "Return date" (an empty return is a one-way
  trip); travelers and cabin are the controls labelled "Travelers" and "Cabin class".
- Search, ``button[type=submit][aria-label="Search"]``, does not load a page: the app routes to the
  results (history.pushState), shows "Searching flights…" while the fares come in, then the cards.
- each result is a ``div[data-resultid]`` card (Kayak's ``nrc6``) with the airline
  (``.J0g6-operator-text``), the legs (``.hJSA-item``: times ``.vmXl-mod-variant-large``, stops
  ``.JWEO-stops-text``, duration), the price ``.f8F1-price-text`` and a Select button whose
  aria-label starts with "Select". Kayak's hashed class names change from time to time: the card
  key (``data-resultid``) and the aria-labels carry the plans; the class names only name the fields
  read back.
"""

from __future__ import annotations

from typing import Any

from lxml.etree import XPath
from lxml.html import HtmlElement

from introspectors.sitekit import css_string, find, first, first_in, index_choice, index_model, shown, text
from tabmcp.introspect.api import (
    Arg,
    Introspector,
    PageTool,
    PlanStep,
    ToolHints,
    click,
    css,
    extract,
    fill,
    ref,
    select,
    wait_for,
)
from tabmcp.introspect.text import clean
from tabmcp.page.capture import PageCapture
from tabmcp.protocol import Target

ORIGIN = "Flight origin input"
DESTINATION = "Flight destination input"
CARD = "div[data-resultid]"
FLIGHT_FIELDS = {
    "airline": ".J0g6-operator-text",
    "times": ".hJSA-item:first-child .vmXl-mod-variant-large",
    "stops": ".hJSA-item:first-child .JWEO-stops-text",
    "duration": ".hJSA-item:first-child .xdW8 .vmXl",
    "flight": ".hJSA-item:first-child .flight-number",
    "return_leg": ".hJSA-item + .hJSA-item",
    "price": ".f8F1-price-text",
    "total": ".f8F1-multiple-ptc-total-price",
    "cabin": ".DOum-name",
}
MAX_RESULTS = 15
MAX_OPTION = 40
SEARCH_TIMEOUT_MS = 20_000


def _labelled(capture: PageCapture, tag: str, label: str) -> HtmlElement | None:
    return first(capture, f"//{tag}[@aria-label=$label]", label=label)


def looks_like_flight_search(capture: PageCapture) -> bool:
    """Kayak's shape: the origin and destination comboboxes, or flight result cards."""
    if _ORIGIN_AND_DESTINATION(capture.tree, o=ORIGIN, d=DESTINATION):
        return True
    return bool(_RESULT_CARDS(capture.tree))


# Through attribute nodes, compiled once, and the cards only when the form is not there: this runs on
# every page.
_ORIGIN_AND_DESTINATION = XPath(
    "boolean(//@aria-label[.=$o]/parent::input) and boolean(//@aria-label[.=$d]/parent::input)"
)
_RESULT_CARDS = XPath("boolean(//@data-resultid/parent::div/descendant::*/@aria-label[starts-with(., 'Select')])")


class FlightSearchIntrospector(Introspector):
    """search_flights wherever the search form is; select_flight while result cards are listed."""

    def tools(self, capture: PageCapture) -> list[PageTool]:
        tools = []
        search = _search_flights(capture)
        if search is not None:
            tools.append(search)
        pick = _select_flight(capture)
        if pick is not None:
            tools.append(pick)
        return tools


# ----------------------------------------------------------------- search


def _airport_steps(field: HtmlElement, arg: str) -> tuple[PlanStep, ...]:
    """Type the airport, wait for the suggestions, pick the first: Kayak takes only a picked airport.
    An entry of the list that is not an option is the site's message ("No airports match …"): it
    ends the wait with those words instead of a timeout."""
    label = field.get("aria-label", "")
    box = css(f"input[aria-label={css_string(label)}]")
    listbox = field.get("aria-controls")
    scope = f"[id={css_string(listbox)}]" if listbox else "[role=listbox]"
    option = css(f"{scope} [role=option]:first-child")
    no_match = css(f"{scope} > :not([role=option])")
    return (fill(box, Arg(arg)), wait_for(target=option, fail_when=no_match), click(option))


def _option_values(control: HtmlElement) -> list[str]:
    """The select's option values that can go into the schema as they are: the page wrote them, so
    only short, plain text (a value a clean-up would change is left out)."""
    values = [o.get("value", text(o)) for o in control.iter("option")]
    return [v for v in values if clean(v, MAX_OPTION) == v]


def _search_flights(capture: PageCapture) -> PageTool | None:
    origin = _labelled(capture, "input", ORIGIN)
    destination = _labelled(capture, "input", DESTINATION)
    depart = _labelled(capture, "input", "Departure date")
    button = first(capture, "//button[@type='submit'][@aria-label='Search']")
    if origin is None or destination is None or depart is None or button is None:
        return None
    if not all(shown(e) for e in (origin, destination, depart, button)):
        return None
    properties: dict[str, Any] = {
        "from": {"type": "string", "minLength": 2, "description": "Origin airport code or city, e.g. SFO"},
        "to": {"type": "string", "minLength": 2, "description": "Destination airport code or city, e.g. JFK"},
        "departDate": {"type": "string", "format": "date", "description": "Departure date, YYYY-MM-DD"},
    }
    plan: list[PlanStep] = [
        *_airport_steps(origin, "from"),
        *_airport_steps(destination, "to"),
        fill(css('input[aria-label="Departure date"]'), Arg("departDate")),
    ]
    if _labelled(capture, "input", "Return date") is not None:
        properties["returnDate"] = {
            "type": "string",
            "format": "date",
            "description": "Return date, YYYY-MM-DD; leave out for a one-way trip",
        }
        back = css('input[aria-label="Return date"]')
        plan += [fill(back, ""), fill(back, Arg("returnDate"))]  # cleared first: no stale return date
    plan += _choice_steps(capture, "Travelers", "passengers", properties)
    plan += _choice_steps(capture, "Cabin class", "cabin", properties)
    plan += [
        click(css('button[type=submit][aria-label="Search"]')),
        wait_for(text_gone="Searching flights", timeout_ms=SEARCH_TIMEOUT_MS),
        extract("flights", CARD, fields=FLIGHT_FIELDS, limit=MAX_RESULTS),
    ]
    form = first_in(button, "ancestor::form[1]")
    return PageTool(
        name="search_flights",
        title="Search flights",
        description=(
            "Search flights: picks the airports (the first suggestion for what you type), dates, travelers "
            "and cabin, then returns the results, cheapest first: airline, times, stops, duration, price. "
            "A search the site refuses returns its message."
        ),
        input_schema={
            "type": "object",
            "properties": properties,
            "required": ["from", "to", "departDate"],
            "additionalProperties": False,
        },
        plan=tuple(plan),
        hints=ToolHints(read_only=True, idempotent=True, open_world=True),
        element_ref=capture.ref(form if form is not None else button),
        rank=10,
    )


def _choice_steps(capture: PageCapture, label: str, arg: str, properties: dict[str, Any]) -> list[PlanStep]:
    """A select the tool drives: reset to its first option, then the argument's value if given."""
    control = _labelled(capture, "select", label)
    if control is None:
        return []
    values = _option_values(control)
    if not values:
        return []
    if arg == "passengers" and all(v.isdigit() for v in values):
        numbers = [int(v) for v in values]
        properties[arg] = {
            "type": "integer",
            "enum": numbers,
            "description": f"Adults traveling (default {numbers[0]})",
        }
    else:
        properties[arg] = {"type": "string", "enum": values, "description": f"{label} (default {values[0]})"}
    target = css(f"select[aria-label={css_string(label)}]")
    return [select(target, values[0]), select(target, Arg(arg))]


# ----------------------------------------------------------------- results


def _select_button(capture: PageCapture, card: HtmlElement) -> Target | None:
    """The card's Select button: by the card's key and the button's label, else by its ref."""
    buttons = [
        b
        for b in card.xpath(".//button | .//a | .//*[@role='button' or @role='link']")
        if (b.get("aria-label") or "").startswith("Select") or text(b) == "Select"
    ]
    if not buttons:
        return None
    key = card.get("data-resultid", "")
    if len(find(capture, "//div[@data-resultid=$key]", key=key)) != 1:
        button_ref = capture.ref(buttons[0])
        return ref(button_ref) if button_ref else None
    labelled = [b for b in buttons if (b.get("aria-label") or "").startswith("Select")]
    inside = '[aria-label^="Select"]' if len(labelled) == 1 else buttons[0].tag
    return css(f"div[data-resultid={css_string(key)}] {inside}")


def _select_flight(capture: PageCapture) -> PageTool | None:
    cards = [c for c in find(capture, "//div[@data-resultid]") if shown(c)][:MAX_RESULTS]
    targets = [_select_button(capture, c) for c in cards]
    if not any(targets):
        return None
    choice = index_choice("index", targets)  # numbered as the extracted list is: every card counts
    listing = first_in(cards[0], "..")
    return PageTool(
        name="select_flight",
        title="Select flight",
        description=(
            "Choose one of the listed flights (the order search_flights returned) and go on to its "
            "review page. Returns what that page shows: the itinerary and the price breakdown."
        ),
        input_schema=index_model("select_flight", "index", "Result number"),
        plan=(click(choice),),
        hints=ToolHints(idempotent=False, open_world=True),
        element_ref=capture.ref(listing) if listing is not None else None,
        rank=20,
    )


INTROSPECTORS = [
    FlightSearchIntrospector(
        name="flight_search",
        kind="site",
        url_patterns=["https://www.kayak.com/*"],
        predicate=looks_like_flight_search,
    )
]
