"""snapshot: roles, names, values, states, what is left out, refs, modes, the composed tree."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.agent.conftest import AgentPage

OpenPage = Callable[..., AgentPage]


def rows_by_name(snapshot: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {n["name"]: n for n in snapshot["nodes"] if n["ref"]}


def names(snapshot: dict[str, Any]) -> list[str]:
    return [n["name"] for n in snapshot["nodes"]]


@pytest.fixture
def semantics(open_page: OpenPage) -> AgentPage:
    return open_page("semantics.html")


def test_snapshot_reports_the_document(semantics: AgentPage) -> None:
    snap = semantics.snapshot()
    assert snap["url"] == semantics.page.url
    assert snap["title"] == "Semantics"
    assert len(snap["docId"]) == 8
    assert snap["parentToken"] is None  # the top frame has no parent
    assert all(set(n) >= {"ref", "role", "name", "value", "states", "depth"} for n in snap["nodes"])


@pytest.mark.parametrize(
    ("name", "role"),
    [
        ("Home link", "link"),
        ("Semantics fixture", "heading"),
        ("Content button", "button"),
        ("Submit", "button"),  # <input type=submit> without a value
        ("Value button", "button"),
        ("Filled text", "textbox"),
        ("Single select", "combobox"),
        ("Multi select", "listbox"),
        ("One", "option"),
        ("Volume", "slider"),
        ("Quantity", "spinbutton"),
        ("Site search", "searchbox"),
        ("Checked box", "checkbox"),
        ("Radio A", "radio"),
        ("Aria switch", "switch"),
        ("More details", "button"),  # summary
        ("Selected tab", "tab"),
        ("Editor", "textbox"),  # contenteditable
        ("Focusable div", "generic"),  # tabindex=0 without a role
        ("Aria heading", "heading"),
    ],
)
def test_roles(semantics: AgentPage, name: str, role: str) -> None:
    assert rows_by_name(semantics.snapshot())[name]["role"] == role


@pytest.mark.parametrize(
    ("element_id", "name"),
    [
        ("by-for", "Label by for"),
        ("by-wrap", "Wrapped label"),
        ("by-labelledby", "Labelled by ids"),
        ("by-aria", "Aria label"),
        ("by-title", "Title label"),
        ("by-placeholder", "Placeholder label"),
        ("img-link", "Alt label"),  # an img's alt inside a link
        ("content-button", "Content button"),  # content across inline elements
        ("in-fieldset", "Street"),
    ],
)
def test_names_by_each_labelling_method(semantics: AgentPage, element_id: str, name: str) -> None:
    found = semantics.call("find", {"target": {"css": f"#{element_id}"}})
    assert found["ok"] is True
    [match] = found["matches"]
    assert match["name"] == name
    assert rows_by_name(semantics.snapshot())[name]["ref"] == match["ref"]


def test_full_mode_names_groups_tables_and_images(semantics: AgentPage) -> None:
    rows = rows_by_name(semantics.snapshot("full"))
    assert rows["Shipping"]["role"] == "group"  # fieldset by its legend
    assert rows["Prices"]["role"] == "table"  # table by its caption
    assert rows["Company logo"]["role"] == "img"
    assert rows["Main menu"]["role"] == "navigation"
    assert rows["Apple"]["role"] == "cell"
    assert rows["Item"]["role"] == "columnheader"


def test_values_and_a_masked_password(semantics: AgentPage) -> None:
    rows = rows_by_name(semantics.snapshot())
    assert rows["Filled text"]["value"] == "hello world"
    assert rows["Password"]["value"] == "********"
    assert rows["Empty password"]["value"] == ""
    assert rows["Notes"]["value"] == "line one line two"
    assert rows["Single select"]["value"] == "Green"
    assert rows["Multi select"]["value"] == "One, Three"
    assert rows["Volume"]["value"] == "30"
    assert rows["Quantity"]["value"] == "3"
    assert rows["Editor"]["value"] == "Editable text"
    assert rows["Content button"]["value"] == ""


def test_the_password_text_never_leaves_the_page(semantics: AgentPage) -> None:
    for mode in ("interactive", "full"):
        assert "secret123" not in str(semantics.snapshot(mode))


@pytest.mark.parametrize(
    ("name", "states"),
    [
        ("Checked box", ["checked"]),
        ("Unchecked box", ["unchecked"]),
        ("Mixed box", ["mixed"]),
        ("Radio B", ["unchecked"]),
        ("Aria switch", ["checked"]),
        ("Disabled button", ["disabled"]),
        ("Aria disabled button", ["disabled"]),
        ("More details", ["collapsed"]),
        ("Open details", ["expanded"]),
        ("Expanded menu", ["expanded"]),
        ("Collapsed menu", ["collapsed"]),
        ("Pressed toggle", ["pressed"]),
        ("Required field", ["required"]),
        ("Invalid field", ["invalid"]),
        ("Readonly field", ["readonly"]),
        ("Selected tab", ["selected"]),
        ("Other tab", []),
        ("Focused field", ["focused"]),
        ("Semantics fixture", ["level=1"]),
        ("Third level", ["level=3"]),
        ("Aria heading", ["level=4"]),
        ("Three", ["selected"]),
        ("Two", []),
    ],
)
def test_states(semantics: AgentPage, name: str, states: list[str]) -> None:
    assert rows_by_name(semantics.snapshot())[name]["states"] == states


HIDDEN = [
    "Hidden display none",
    "Hidden visibility",
    "Hidden attribute",
    "Hidden aria",
    "Hidden zero size",
    "Hidden in display none parent",
    "Hidden content visibility",
    "Button in closed details",
    "Inside closed details",
    "Hidden paragraph text",
]


@pytest.mark.parametrize("mode", ["interactive", "full"])
def test_hidden_elements_are_left_out(semantics: AgentPage, mode: str) -> None:
    snap = semantics.snapshot(mode)
    text = str(snap)
    for name in HIDDEN:
        assert name not in text, name
    assert "s3cret" not in text  # <input type=hidden>
    listed = names(snap)
    # a visible child of a visibility:hidden parent, and an offscreen element, are not hidden
    assert "Visible inside hidden" in listed
    assert "Offscreen button" in listed


def test_hidden_elements_are_found_but_not_visible(semantics: AgentPage) -> None:
    found = semantics.call("find", {"target": {"css": "#h-display, #h-zero, #offscreen"}})
    assert [(m["name"], m["visible"]) for m in found["matches"]] == [
        ("Hidden display none", False),
        ("Hidden zero size", False),
        ("Offscreen button", True),
    ]


def test_interactive_mode_lists_controls_headings_only_with_depth_zero(semantics: AgentPage) -> None:
    snap = semantics.snapshot()
    roles = {n["role"] for n in snap["nodes"]}
    assert roles.isdisjoint({"text", "paragraph", "list", "listitem", "main", "navigation", "table", "cell"})
    assert {"heading", "link", "button", "textbox"} <= roles
    assert {n["depth"] for n in snap["nodes"]} == {0}
    assert all(n["ref"] for n in snap["nodes"])


def test_full_mode_has_structure_text_rows_and_depths(semantics: AgentPage) -> None:
    nodes = semantics.snapshot("full")["nodes"]
    by_name = {n["name"]: n for n in nodes}
    main = next(n for n in nodes if n["role"] == "main")
    assert main["depth"] == 0
    paragraph_text = by_name["Plain paragraph text."]
    assert paragraph_text["role"] == "text" and paragraph_text["ref"] == ""
    # the text row sits under its paragraph, under main
    index = nodes.index(paragraph_text)
    assert nodes[index - 1]["role"] == "paragraph"
    assert paragraph_text["depth"] == nodes[index - 1]["depth"] + 1 == main["depth"] + 2
    # text already in a row's name is not repeated as a text row
    texts = [n["name"] for n in nodes if n["role"] == "text"]
    assert "Nav one" not in texts and "Checked box" not in texts and "Footer text" in texts
    # a listitem is not named from its content: its text is a row of its own
    assert "First item" in texts


def test_refs_are_stable_across_snapshots_and_modes(semantics: AgentPage) -> None:
    first = rows_by_name(semantics.snapshot())
    second = rows_by_name(semantics.snapshot())
    full = {(n["name"], n["role"]): n["ref"] for n in semantics.snapshot("full")["nodes"] if n["ref"]}
    assert {k: v["ref"] for k, v in first.items()} == {k: v["ref"] for k, v in second.items()}
    for name, row in first.items():
        assert full[(name, row["role"])] == row["ref"]
    refs = [row["ref"] for row in first.values()]
    assert len(refs) == len(set(refs))  # different elements, different refs


def test_a_new_element_gets_a_new_ref_and_old_refs_stay(semantics: AgentPage) -> None:
    before = rows_by_name(semantics.snapshot())
    semantics.page.evaluate(
        "() => { const b = document.createElement('button'); b.textContent = 'Added later';"
        " document.querySelector('main').prepend(b); }"
    )
    after = rows_by_name(semantics.snapshot())
    assert after["Added later"]["ref"] not in {row["ref"] for row in before.values()}
    assert after["Content button"]["ref"] == before["Content button"]["ref"]


def test_state_changes_show_in_the_next_snapshot(semantics: AgentPage) -> None:
    semantics.page.check("#unchecked-box")
    semantics.page.fill("#by-for", "typed")
    rows = rows_by_name(semantics.snapshot())
    assert rows["Unchecked box"]["states"] == ["checked"]
    assert rows["Label by for"]["value"] == "typed"
    assert rows["Label by for"]["states"] == ["focused"]


def test_names_are_cut_to_120_characters(semantics: AgentPage) -> None:
    semantics.page.evaluate("() => { document.getElementById('content-button').textContent = 'x'.repeat(300); }")
    row = next(n for n in semantics.snapshot()["nodes"] if n["name"].startswith("xxx"))
    assert len(row["name"]) == 120 and row["name"].endswith("…")


@pytest.mark.parametrize("mode", ["interactive", "full"])
def test_shadow_dom_open_closed_and_slots(open_page: OpenPage, mode: str) -> None:
    page = open_page("shadow.html")
    listed = names(page.snapshot(mode))
    for name in (
        "Open card",
        "Open shadow button",
        "Slotted link",
        "Closed card",
        "Closed shadow button",
        "Closed shadow input",
        "Fallback button",
        "Closed div button",
    ):
        assert name in listed, name
    assert "Unslotted button" not in listed  # a light child no slot takes is not rendered
    # the composed order: the open card's heading and button, then its slotted link
    assert listed.index("Open card") < listed.index("Open shadow button") < listed.index("Slotted link")
    if mode == "full":
        assert "Closed shadow text" in listed


def test_long_list(open_page: OpenPage) -> None:
    page = open_page("long-list.html")
    nodes = page.snapshot()["nodes"]
    links = [n for n in nodes if n["role"] == "link"]
    buttons = [n for n in nodes if n["role"] == "button"]
    assert len(links) == len(buttons) == 3000
    assert links[0]["name"] == "Row 1" and links[-1]["name"] == "Row 3000"
    assert len({n["ref"] for n in nodes}) == len(nodes)
