"""Reading a long page in parts: the snapshot of one element's subtree, long texts, the text search."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.agent.conftest import AgentPage, eventually

OpenPage = Callable[..., AgentPage]


@pytest.fixture
def page(open_page: OpenPage) -> AgentPage:
    page = open_page("long-page.html")
    eventually(lambda: len(page.frames()) == 2 and len(page.call_all("probe", {"text": "Needle"})) == 2, "the frame")
    return page


def region(page: AgentPage, root: dict[str, Any], mode: str = "full", frame_id: int = 0) -> dict[str, Any]:
    return page.call("snapshot", {"mode": mode, "root": root}, frame_id)


def find(page: AgentPage, text: str, frame_id: int = 0, **arg: Any) -> dict[str, Any]:
    answer = page.call("findText", {"text": text, **arg}, frame_id)
    assert answer["ok"] is True, answer
    return answer


def texts(snap: dict[str, Any]) -> list[str]:
    return [n["name"] for n in snap["nodes"] if n["role"] == "text"]


def test_a_region_is_its_root_and_subtree_only(page: AgentPage) -> None:
    intro = region(page, {"css": "#intro"})
    first = intro["nodes"][0]
    assert (first["role"], first["name"], first["depth"]) == ("region", "Intro", 0)
    assert [n["name"] for n in intro["nodes"] if n["role"] == "link"] == ["price table"]
    assert not [n for n in intro["nodes"] if n["role"] in ("table", "heading", "button")]
    # a generic root is a row too, so the model sees what it asked for
    filler = region(page, {"css": "#filler"}, mode="interactive")
    assert [(n["role"], n["ref"] != "") for n in filler["nodes"]] == [("generic", True)]
    # an interactive region: only what interactive mode shows, under the root
    notes = region(page, {"css": "#notes"}, mode="interactive")
    assert [(n["role"], n["name"]) for n in notes["nodes"]] == [
        ("region", "Notes"), ("heading", "Notes"), ("button", "More notes"), ("button", "Needle button"),
    ]


def test_a_region_by_ref_and_its_errors(page: AgentPage) -> None:
    ref = page.ref("price table", "link")
    rows = region(page, {"ref": ref, "doc": page.snapshot()["docId"]})["nodes"]
    assert [(n["ref"], n["role"]) for n in rows] == [(ref, "link")]
    stale = region(page, {"ref": ref, "doc": "otherdoc"})
    assert (stale["ok"], stale["code"]) == (False, "STALE_REF")
    assert region(page, {"ref": "e99999"})["code"] == "STALE_REF"
    assert region(page, {"css": "p"})["code"] == "ELEMENT_AMBIGUOUS"
    assert region(page, {"css": "#nothing"})["code"] == "ELEMENT_NOT_FOUND"
    hidden = region(page, {"css": "#hidden-para"})
    assert hidden["code"] == "ELEMENT_NOT_INTERACTABLE" and "hidden attribute" in hidden["message"]


def test_a_long_text_is_cut_with_the_way_to_the_rest(page: AgentPage) -> None:
    full = page.snapshot("full")
    cut = next(t for t in texts(full) if t.startswith("The opening paragraph"))
    shown, marker = cut.split("… (+")
    assert len(shown) == 199
    total = len(page.text("#long-para"))
    count, root = marker.rstrip(")").split(" chars: root=")
    assert int(count) == total - 199
    # the marker's root holds the whole text: in that region it is split into rows, not cut
    whole = region(page, {"ref": root})
    paragraph = whole["nodes"][0]
    assert (paragraph["ref"], paragraph["role"]) == (root, "paragraph")
    chunks = texts(whole)
    assert len(chunks) > 1 and all(len(c) <= 500 for c in chunks)
    assert " ".join(chunks) == " ".join(page.text("#long-para").split())
    assert chunks[-1].endswith("closing marker sentence.")


def test_table_cells_are_read_from_the_table_region(page: AgentPage) -> None:
    interactive = page.snapshot()
    assert not [n for n in interactive["nodes"] if n["role"] == "cell"]  # not rows in interactive mode
    table = region(page, {"css": "#prices"})["nodes"]
    assert (table[0]["role"], table[0]["name"]) == ("table", "Prices")
    cells = [n["name"] for n in table if n["role"] == "cell"]
    assert cells[:3] == ["Item 1", "1.00", ""] and "Item 200" in cells
    # a long cell: its name is cut at 120, the text row under it has all of it
    note = next(i for i, n in enumerate(table) if n["role"] == "cell" and n["name"].startswith("Note 10:"))
    assert len(table[note]["name"]) == 120
    assert table[note + 1]["role"] == "text" and table[note + 1]["name"] == page.text("#row-10 td:nth-child(3)")


def test_find_answers_matches_with_refs_and_context(page: AgentPage) -> None:
    top = find(page, "needle")
    matches = [n for n in top["nodes"] if not n.get("skip")]
    haystack = "Haystack text before the Needle word and haystack text after it."
    # a short block is shown with its group: the button with its section's text
    assert [(m["role"], m["name"]) for m in matches] == [
        ("paragraph", haystack), ("button", f"Notes {haystack} More notes Needle button"),
    ]
    assert top["total"] == 2  # hidden, invisible and closed-details text is not rendered text
    # the iframe is where the frame's matches go; its document searches itself
    frame = next(n for n in top["nodes"] if n.get("skip"))
    assert frame["frameToken"] == f"{top['docId']}:{frame['ref']}"
    child_id = next(f["frameId"] for f in page.frames() if f["frameId"] != 0)
    child = eventually(lambda: find(page, "NEEDLE", child_id) if find(page, "x", child_id)["parentToken"] else None,
                       "the child's token")
    assert child["parentToken"] == frame["frameToken"]
    assert [(m["role"], m["name"]) for m in child["nodes"]] == [
        ("heading", "Child frame needle"), ("button", "Frame button needle"),
    ]
    # a ref answered resolves to the element the match is in
    para = matches[0]["ref"]
    assert region(page, {"ref": para}, mode="interactive")["nodes"][0]["role"] == "paragraph"


def test_find_windows_caps_and_roots(page: AgentPage) -> None:
    # context: at most 60 characters each side, cut at a word, … where cut
    word = find(page, "word300")["nodes"][0]
    assert word["role"] == "paragraph"
    assert word["name"].startswith("…word29") and word["name"].endswith("…") and "word300" in word["name"]
    assert len(word["name"]) <= 60 * 2 + len("word300") + 2
    # a match across inline elements is one match, shown as the element where it starts
    whole = "A short paragraph mentions the price table and nothing else."
    across = [n for n in find(page, "the price table and")["nodes"] if not n.get("skip")]
    assert [(n["role"], n["name"]) for n in across] == [("paragraph", whole)]
    in_link = [n for n in find(page, "price table and")["nodes"] if not n.get("skip")]
    assert [(n["role"], n["name"]) for n in in_link] == [("link", whole)]
    # the cap: 200 "Item" cells (and the header), the first `limit` kept, all counted; a cell is
    # shown with its row
    items = find(page, "item", limit=5)
    shown = [n["name"] for n in items["nodes"] if not n.get("skip")]
    assert shown == ["Item Price Note", "Item 1 1.00", "Item 2 2.00", "Item 3 3.00", "Item 4 4.00"]
    assert items["total"] == 201
    assert len([n for n in find(page, "item")["nodes"] if not n.get("skip")]) == 100
    # within a root only
    table = find(page, "note 1", root={"css": "#prices"})
    assert table["total"] == 11 and {n["role"] for n in table["nodes"]} == {"cell"}  # Note 10, 100…190
    assert find(page, "needle", root={"css": "#prices"})["total"] == 0
    bad = page.call("findText", {"text": "x", "root": {"css": "#nothing"}})
    assert bad["code"] == "ELEMENT_NOT_FOUND"
    assert page.call("findText", {"text": "  "})["code"] == "BAD_MESSAGE"


def test_find_reads_shadow_trees(open_page: OpenPage) -> None:
    page = open_page("shadow.html")
    found = [(n["role"], n["name"]) for n in find(page, "shadow")["nodes"]]
    assert found == [
        ("heading", "Shadow fixture"),
        ("button", "Open card Open shadow button Slotted link"),  # in an open shadow root
        ("button", "Closed card Closed shadow button Closed shadow text"),  # in a closed one
        ("paragraph", "Closed card Closed shadow button Closed shadow text"),
    ]
    assert find(page, "unslotted")["total"] == 0  # light DOM no slot shows is not rendered


def test_a_long_value_says_how_much_is_cut(open_page: OpenPage) -> None:
    page = open_page("semantics.html")
    page.page.fill("textarea", "y" * 3000)
    row = next(n for n in page.snapshot()["nodes"] if n["value"].startswith("yyy"))
    assert row["value"] == "y" * 119 + f"… (+2881 chars: root={row['ref']})"
    # its region shows more of it (as much as a field holds)
    own = region(page, {"ref": row["ref"]})["nodes"][0]
    assert own["value"] == "y" * 959 + "… (+2041 chars)"
