"""The page as the natural-language tools read it (``tabmcp.nl.page``): a ``PageView`` built from
the real agent's locate snapshots of tests/fixtures/pages/nl.html and nl-dupes.html (recorded in
tests/fixtures/snapshots): the tree from depths, tables, lists, visible text, sections, the
rendering for a model's prompt within a budget, and malformed snapshots."""

from __future__ import annotations

from typing import Any

import pytest
from tests.unit.nl_fixtures import one, snapshot

from tabmcp.nl.page import PageView, Row, render_for_model


def text_row(page: PageView, name: str) -> Row:
    found = [r for r in page.rows if r.is_text and r.name == name]
    assert len(found) == 1, found
    return found[0]


# ----------------------------------------------------------------- the recordings


def test_the_recordings_hold_the_pages(shop: PageView, settings: PageView) -> None:
    assert (shop.url, shop.title) == ("http://127.0.0.1:8000/nl.html", "Swag Shop")
    assert (settings.url, settings.title) == ("http://127.0.0.1:8000/nl-dupes.html", "Account settings")
    assert len(shop.rows) == len(snapshot("nl")["nodes"])
    assert [r.index for r in shop.rows] == list(range(len(shop.rows)))


def test_rows_keep_the_agents_fields(shop: PageView) -> None:
    sort = one(shop, "combobox", "Sort by")
    assert sort.value == "Name (A to Z)"
    assert sort.describe() == f'{sort.ref} combobox "Sort by" = "Name (A to Z)"'
    news = one(shop, "checkbox", "Subscribe to newsletter")
    assert news.states == ("unchecked",)
    box = next(r for r in shop.elements if r.role == "searchbox")
    assert (box.name, box.hint) == ("Query", "Search products")
    assert one(shop, "heading", "Products").states == ("level=1",)


def test_text_rows_and_elements(shop: PageView) -> None:
    cart = text_row(shop, "Cart: empty")
    assert cart.ref == "" and cart.role == "text"
    assert cart.is_text and not cart.interactive
    assert cart not in shop.elements
    assert all(r.ref for r in shop.elements)
    login = one(shop, "button", "Login")
    assert login.interactive and not login.editable
    assert one(shop, "textbox", "Username").editable
    assert shop.by_ref(login.ref) == login
    assert shop.by_ref("e999") is None


# ----------------------------------------------------------------- the tree


def test_parents_from_depth(shop: PageView) -> None:
    edit = one(shop, "button", "Edit", within="Fix bug")
    cell = shop.rows[edit.parent]
    assert (cell.role, cell.name) == ("cell", "Edit")
    line = shop.rows[cell.parent]
    assert line.role == "row"
    table = shop.rows[line.parent]
    assert table.role == "table"
    assert [shop.text_of(c) for c in shop.children(line)] == ["Fix bug", "Bob", "5", "Edit"]
    assert shop.rows[0].parent == -1
    assert all(r.parent == -1 for r in shop.rows if r.depth == 0)


def test_text_rows_hang_from_the_element_above(shop: PageView) -> None:
    milk = text_row(shop, "Buy milk")
    item = shop.rows[milk.parent]
    assert item.role == "listitem"
    assert shop.rows[item.parent].role == "list"
    assert shop.children(item) == [milk]


def test_a_text_row_is_never_a_parent() -> None:
    page = PageView.from_snapshot(
        {
            "nodes": [
                {"ref": "e1", "role": "main", "name": "", "depth": 0},
                {"ref": "", "role": "text", "name": "Intro", "depth": 1},
                {"ref": "e2", "role": "button", "name": "Go", "depth": 2},
                {"ref": "e3", "role": "group", "name": "", "depth": 1},
                {"ref": "e4", "role": "link", "name": "Deep", "depth": 3},
                {"ref": "e5", "role": "link", "name": "Top", "depth": 0},
            ]
        }
    )
    assert [r.parent for r in page.rows] == [-1, 0, 0, 0, 3, -1]
    assert [r.index for r in page.descendants(page.rows[0])] == [1, 2, 3, 4]  # in document order


def test_text_of(shop: PageView) -> None:
    line = shop.rows[one(shop, "button", "Edit", within="Review PR").parent]
    assert shop.text_of(shop.rows[line.parent]) == "Review PR Cleo 1.5 Edit"
    assert shop.text_of(one(shop, "region", "Login")) == "Login Username Password Login Log in with Google"
    assert shop.text_of(text_row(shop, "Walk dog")) == "Walk dog"


# ----------------------------------------------------------------- collections


def test_tables(shop: PageView, settings: PageView) -> None:
    assert len(shop.tables) == 1
    table = shop.tables[0]
    assert table.title == "Tasks"  # the heading before it
    assert table.headers == ("Task", "Owner", "Hours", "Action")
    assert table.rows == (
        ("Write docs", "Ann", "3", "Edit"),
        ("Fix bug", "Bob", "5", "Edit"),
        ("Review PR", "Cleo", "1.5", "Edit"),
    )
    assert table.column(2) == ["3", "5", "1.5"]
    assert table.column(9) == ["", "", ""]
    assert settings.tables == []


def test_lists(shop: PageView, settings: PageView) -> None:
    assert [(lst.title, lst.items) for lst in shop.lists] == [("Todo", ("Buy milk", "Walk dog", "Read book"))]
    assert shop.lists[0].row.role == "list"
    assert [(lst.title, lst.items) for lst in settings.lists] == [
        ("Saved addresses", ("Home: 12 Oak Street Edit Delete", "Work: 1 Main Road Edit Delete"))
    ]


def test_regions_hold_the_cards_and_rows(shop: PageView) -> None:
    regions = [text for text, _ in shop.regions()]
    assert "Sauce Labs Onesie Rib snap infant onesie $7.99" in regions
    assert "Fix bug Bob 5 Edit" in regions
    assert "Walk dog" in regions
    onesie = one(shop, "button", "Add to cart", within="Onesie")
    assert (onesie.context, onesie) in list(shop.regions())


# ----------------------------------------------------------------- text and sections


def test_text_is_what_a_person_sees(shop: PageView, settings: PageView) -> None:
    for seen in ("Cart: empty", "Sauce Labs Onesie", "$7.99", "Log in with Google", "Name (A to Z)", "End of page"):
        assert seen in shop.text, seen
    assert "Logout" not in shop.text  # in the closed account menu (display:none)
    assert "hidden login" not in shop.text
    assert "Price (low to high)" not in shop.text  # an option of the closed select
    assert "Delete account" not in settings.text  # inside a display:none div
    assert "Submit order" in settings.text


def test_sections_are_the_nearest_heading_above(shop: PageView, settings: PageView) -> None:
    for section in ("Profile", "Password", "Notifications"):
        assert one(settings, "button", "Save", within=section).section == section
    assert one(settings, "textbox", "Confirm email").section == "Profile"
    assert one(settings, "checkbox", "Email me about news").section == "Notifications"
    assert one(settings, "link", "Delete", within="Work:").section == "Saved addresses"
    assert one(settings, "searchbox", "Search site").section == ""  # above every heading
    assert {r.section for r in shop.elements if r.name == "Edit"} == {"Tasks"}
    assert one(shop, "button", "Login").section == "Login"
    assert shop.tables[0].row.section == "Tasks"


# ----------------------------------------------------------------- for a model


def test_render_for_model_everything(shop: PageView) -> None:
    text = render_for_model(shop, 100_000)
    lines = text.splitlines()
    assert lines[:2] == ["url: http://127.0.0.1:8000/nl.html", "title: Swag Shop"]
    assert len(lines) == 2 + len(shop.rows)
    assert "cut" not in lines[-1]
    box = next(r for r in shop.elements if r.role == "searchbox")
    assert f'    {box.ref} searchbox "Query" (hint: Search products) (in: Search)' in lines
    news = one(shop, "checkbox", "Subscribe to newsletter")
    assert f'  {news.ref} checkbox "Subscribe to newsletter" [unchecked]' in lines
    assert "    text: Buy milk" not in lines and "      text: Buy milk" in lines  # indented by depth


@pytest.mark.parametrize("budget", [120, 300, 400, 1000, 2000])
def test_render_for_model_keeps_to_its_budget(shop: PageView, budget: int) -> None:
    text = render_for_model(shop, budget)
    assert len(text) <= budget
    lines = text.splitlines()
    shown = len(lines) - 3
    assert lines[-1] == f"… ({len(shop.rows) - shown} more rows cut)"
    whole = render_for_model(shop, 100_000).splitlines()
    assert shown >= 1 and lines[:-1] == whole[: 2 + shown]  # the first rows, in order
    one_more = [*whole[: 3 + shown], f"… ({len(shop.rows) - shown - 1} more rows cut)"]
    assert len("\n".join(one_more)) > budget  # the next row would not have fitted


def test_render_for_model_cuts_as_late_as_it_can(shop: PageView) -> None:
    whole = render_for_model(shop, 100_000).splitlines()
    note = "… (1 more rows cut)"
    assert len(whole[-1]) >= len(note)  # "      text: End of page": the note fits in its place
    budget = len("\n".join(whole)) - 1
    assert render_for_model(shop, budget) == "\n".join([*whole[:-1], note])


# ----------------------------------------------------------------- malformed snapshots


@pytest.mark.parametrize(
    "data",
    [{}, {"nodes": None}, {"nodes": "rows"}, {"nodes": {"ref": "e1"}}, {"nodes": [1]}, {"nodes": [{"ref": "e1"}, "x"]}],
)
def test_malformed_snapshots_raise(data: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        PageView.from_snapshot(data)


def test_odd_fields_are_read_safely() -> None:
    page = PageView.from_snapshot(
        {
            "url": 5,
            "nodes": [
                {"ref": 7, "role": None, "name": "Plain text", "depth": "deep", "states": "checked"},
                {"ref": "e2", "role": "button", "name": "x" * 800, "states": ["disabled", 3], "depth": -2},
            ],
        }
    )
    first, second = page.rows
    assert (page.url, page.title) == ("", "")
    assert (first.ref, first.role, first.depth, first.states) == ("", "generic", 0, ())
    assert first.name == "Plain text"
    assert second.states == ("disabled",)
    assert second.depth == 0
    assert len(second.name) == 500 and second.name.endswith("…")
    assert page.elements == [second]
    assert page.tables == [] and page.lists == []
