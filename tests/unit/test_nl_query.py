"""``ai_query`` without a model (``tabmcp.nl.query``): reading a data shape (``parse_shape``),
answering it from the real agent's locate snapshot of tests/fixtures/pages/nl.html (recorded in
tests/fixtures/snapshots), answering ``None`` whenever the page does not say it plainly (so the
model is asked instead of a guess), and checking a model's answer against the shape (``fits_shape``)."""

from __future__ import annotations

from typing import Any

import pytest

from tabmcp.nl.page import PageView
from tabmcp.nl.query import ANY, Shape, answer, fits_shape, parse_shape

STRING = Shape("string")
NUMBER = Shape("number")
BOOLEAN = Shape("boolean")



def ask(page: PageView, query: str) -> Any:
    """The data ``answer`` reads for a query, failing when it gives up."""
    shape, description = parse_shape(query)
    found = answer(page, shape, description)
    assert found is not None, f"no answer for {query!r}"
    assert fits_shape(shape, found.data), found
    assert found.source
    return found.data


# ----------------------------------------------------------------- parse_shape


@pytest.mark.parametrize(
    ("text", "shape", "description"),
    [
        ("string[], list of task names", Shape("array", STRING), "list of task names"),
        ("Array<number>, x", Shape("array", NUMBER), "x"),
        ("array<string>: names", Shape("array", STRING), "names"),
        (
            "{task: string, hours?: number}[], tasks",
            Shape("array", Shape("object", fields=(("task", STRING), ("hours", NUMBER)))),
            "tasks",
        ),
        ("number, count", NUMBER, "count"),
        ("boolean - is it on", BOOLEAN, "is it on"),
        ("int, the total", NUMBER, "the total"),
        ("string", STRING, ""),
        ("string[][], grid", Shape("array", Shape("array", STRING)), "grid"),
        ('{"first name": string}, the user', Shape("object", fields=(("first name", STRING),)), "the user"),
        (
            "{a: {b: number}}[], x",
            Shape("array", Shape("object", fields=(("a", Shape("object", fields=(("b", NUMBER),))),))),
            "x",
        ),
    ],
)
def test_parse_shape(text: str, shape: Shape, description: str) -> None:
    assert parse_shape(text) == (shape, description)


@pytest.mark.parametrize(
    "text",
    [
        "the tasks table",
        "string theory notes",  # a word that is a type name, not a type
        "numbers of the tasks",
        "Array<string, names",  # no closing >
        "{task string}[], tasks",  # no colon
        "widget[], things",
        "",
    ],
)
def test_parse_shape_without_a_type_is_any(text: str) -> None:
    assert parse_shape(text) == (ANY, text.strip())


def test_shapes_print_as_written() -> None:
    shape, _ = parse_shape("{task: string, hours?: number}[], tasks")
    assert str(shape) == "{task: string, hours: number}[]"
    assert str(parse_shape("Array<number>, x")[0]) == "number[]"


# ----------------------------------------------------------------- answer


def test_a_column_by_its_header(shop: PageView) -> None:
    assert ask(shop, "string[], list of task names") == ["Write docs", "Fix bug", "Review PR"]
    assert ask(shop, "string[], owners") == ["Ann", "Bob", "Cleo"]


def test_a_list_by_the_heading_before_it(shop: PageView) -> None:
    assert ask(shop, "string[], the todo items") == ["Buy milk", "Walk dog", "Read book"]


def test_a_number_column(shop: PageView) -> None:
    hours = ask(shop, "number[], hours of the tasks")
    assert hours == [3, 5, 1.5]
    assert [type(h) for h in hours] == [int, int, float]  # whole numbers read as ints


def test_records_from_a_table(shop: PageView) -> None:
    assert ask(shop, "{task: string, owner: string, hours: number}[], the tasks") == [
        {"task": "Write docs", "owner": "Ann", "hours": 3},
        {"task": "Fix bug", "owner": "Bob", "hours": 5},
        {"task": "Review PR", "owner": "Cleo", "hours": 1.5},
    ]


def test_records_source_names_the_table(shop: PageView) -> None:
    shape, description = parse_shape("{task: string, hours: number}[], tasks")
    found = answer(shop, shape, description)
    assert found is not None
    assert found.data[1] == {"task": "Fix bug", "hours": 5}
    assert "Tasks" in found.source


@pytest.mark.parametrize(
    ("query", "value"),
    [
        ("number, the price of Sauce Labs Onesie", 7.99),
        ("number, the price of Bike Light", 9.99),
        ("number, the price of the Backpack", 29.99),
        ("number, the hours of Review PR", 1.5),
    ],
)
def test_a_number_next_to_a_name(shop: PageView, query: str, value: float) -> None:
    assert ask(shop, query) == pytest.approx(value)


def test_the_price_source_is_the_card(shop: PageView) -> None:
    shape, description = parse_shape("number, the price of Sauce Labs Onesie")
    found = answer(shop, shape, description)
    assert found is not None
    assert "Sauce Labs Onesie" in found.source and "$7.99" in found.source


@pytest.mark.parametrize(("query", "count"), [("number, how many todo items", 3), ("number, how many tasks", 3)])
def test_counts(shop: PageView, query: str, count: int) -> None:
    assert ask(shop, query) == count


@pytest.mark.parametrize(
    ("query", "value"),
    [
        ("string, the owner of Fix bug", "Bob"),
        ("string, the owner of Review PR", "Cleo"),
        ("string, the page title", "Swag Shop"),
        ("string, the title", "Swag Shop"),
        ("string, the url", "http://127.0.0.1:8000/nl.html"),
        ("string, the main heading", "Products"),
    ],
)
def test_strings(shop: PageView, query: str, value: str) -> None:
    assert ask(shop, query) == value


@pytest.mark.parametrize(
    "query",
    [
        "{name: string, hours: number}[], tasks",  # no Name column
        "{task: string, owner: number}[], tasks",  # the owners are not numbers
        "string[], product names",  # the products are cards, not a list
        "number[], the todo items",  # not numbers
        "boolean, is the user logged in",
        "number, the price of the Fleece Jacket",  # not on the page
        "number, the price of Sauce Labs",  # three cards name it
        "string, the owner of Buy milk",  # not a task
        "number, how many reviews",
        "the tasks",  # no shape
        "string, what the shop is about",
    ],
)
def test_unsure_answers_are_none(shop: PageView, query: str) -> None:
    shape, description = parse_shape(query)
    assert answer(shop, shape, description) is None


# ----------------------------------------------------------------- fits_shape


@pytest.mark.parametrize(
    ("text", "data", "fits"),
    [
        ("string, x", "Bob", True),
        ("string, x", 5, False),
        ("number, x", 7.99, True),
        ("number, x", 3, True),
        ("number, x", True, False),  # a bool is not a number
        ("number, x", "7.99", False),
        ("boolean, x", False, True),
        ("boolean, x", 0, False),
        ("string[], x", ["a", "b"], True),
        ("string[], x", [], True),
        ("string[], x", ["a", 1], False),
        ("string[], x", "a", False),
        ("{task: string, hours: number}[], x", [{"task": "Fix bug", "hours": 5}], True),
        ("{task: string, hours: number}[], x", [{"task": "Fix bug", "hours": 5, "extra": 1}], True),
        ("{task: string, hours: number}[], x", [{"task": "Fix bug"}], False),
        ("{task: string, hours: number}[], x", [{"task": "Fix bug", "hours": "5"}], False),
        ("the tasks", None, True),
        ("the tasks", {"anything": [1]}, True),
    ],
)
def test_fits_shape(text: str, data: Any, fits: bool) -> None:
    assert fits_shape(parse_shape(text)[0], data) is fits
