"""Snapshot diffs (docs/page-agent.md §9): by ref, text rows by (ancestor, text), new pages, budget, cursors."""

from __future__ import annotations

import random
from typing import Any

import pytest
import toon_format

from tabmcp.page.snapshot import (
    MIN_BUDGET,
    CursorError,
    Node,
    Snapshot,
    SnapshotDiff,
    SnapshotStore,
    diff,
    parse_cursor,
    render_diff,
)

URL = "http://127.0.0.1:8000/login"


def snap(
    nodes: list[Node], *, sid: str = "s2", url: str = URL, mode: str = "interactive", doc_id: str = ""
) -> Snapshot:
    return Snapshot(sid, 7, url, "Login", mode, tuple(nodes), doc_id)  # type: ignore[arg-type]


def decode_page(text: str) -> dict[str, Any]:
    data = toon_format.decode(text)
    assert isinstance(data, dict)
    assert toon_format.encode(data) == text, "not the reference encoder's canonical form"
    return data


BEFORE = [
    Node("e1", "heading", "Sign in", states=("level=1",)),
    Node("e2", "textbox", "Email"),
    Node("e3", "checkbox", "Remember me", states=("unchecked",)),
    Node("e4", "button", "Sign in"),
    Node("e5", "link", "Help"),
]


def test_changed_added_and_removed_by_ref() -> None:
    after = [
        Node("e1", "heading", "Sign in", states=("level=1",)),
        Node("e2", "textbox", "Email", "ada@example.com", ("focused",)),  # value and states
        Node("e3", "checkbox", "Remember me", states=("checked",)),  # states
        Node("e4", "button", "Signing in…"),  # name
        Node("e6", "alert", "Checking"),  # new
    ]
    d = diff(snap(BEFORE, sid="s1"), snap(after))
    assert d.since == "s1"
    assert [n.ref for n in d.changed] == ["e2", "e3", "e4"]
    assert [n.ref for n in d.added] == ["e6"]
    assert d.removed == ("e5",)
    assert d.removed_text == ()


def test_role_change_counts_and_depth_alone_does_not() -> None:
    before = [Node("e1", "button", "Menu", depth=1), Node("e2", "link", "x", depth=2)]
    after = [Node("e1", "button", "Menu", depth=3), Node("e2", "menuitem", "x", depth=2)]
    d = diff(snap(before, sid="s1", mode="full"), snap(after, mode="full"))
    assert [n.ref for n in d.changed] == ["e2"]


def test_nothing_changed() -> None:
    d = diff(snap(BEFORE, sid="s1"), snap(list(BEFORE)))
    assert d.empty and not d.new_page
    page = render_diff(d, MIN_BUDGET)
    data = decode_page(page.text)
    assert data["snapshot"] == "s2 interactive; diff since s1; no changes"
    assert set(data) == {"url", "title", "note", "snapshot"}
    assert (page.rows_shown, page.next_cursor) == (0, None)


@pytest.mark.parametrize(
    ("previous", "why"),
    [
        (None, "no previous snapshot"),
        (snap(BEFORE, sid="s1", url="http://127.0.0.1:8000/other"), "another URL"),
        (snap(BEFORE, sid="s1", url=URL + "?next=1"), "another query"),
        (snap(BEFORE, sid="s1", mode="full"), "another mode"),
        (snap(BEFORE, sid="s1", doc_id="aaaa1111"), "another document (a reload)"),
    ],
)
def test_a_new_page_is_the_full_snapshot(previous: Snapshot | None, why: str) -> None:
    current = snap(BEFORE[:3], doc_id="bbbb2222")
    d = diff(previous, current)
    assert d.new_page, why
    assert (d.changed, d.added, d.removed) == ((), (), ())
    data = decode_page(render_diff(d, 30_000).text)
    assert data["diff"] == "none (new page)"
    assert data["snapshot"] == "s2 interactive; rows 1-3 of 3"
    assert [row["ref"] for row in data["nodes"]] == ["e1", "e2", "e3"]


def test_a_fragment_change_or_an_unknown_document_still_diffs() -> None:
    assert not diff(snap(BEFORE, sid="s1"), snap(BEFORE[:2], url=URL + "#help")).new_page
    assert not diff(snap(BEFORE, sid="s1", doc_id="aaaa1111"), snap(BEFORE[:2])).new_page


def test_diff_text_lists_changed_and_added_tables_and_removed_refs() -> None:
    after = [
        Node("e1", "heading", "Sign in", states=("level=1",)),
        Node("e2", "textbox", "Email", "a,b@example.com"),
        Node("e3", "checkbox", "Remember me", states=("unchecked",)),
        Node("e4", "button", "Sign in"),
        Node("e7", "alert", 'Wrong "password"'),
    ]
    page = render_diff(diff(snap(BEFORE, sid="s1"), snap(after)), 30_000)
    assert page.text.splitlines()[3:] == [
        "snapshot: s2 interactive; diff since s1; items 1-3 of 3",
        "changed[1]{ref,role,name,value}:",  # no states column: neither table has states
        '  e2,textbox,Email,"a,b@example.com"',
        "added[1]{ref,role,name,value}:",
        '  e7,alert,"Wrong \\"password\\"",""',
        "removed[1]: e5",
    ]
    data = decode_page(page.text)
    assert data["added"] == [{"ref": "e7", "role": "alert", "name": 'Wrong "password"', "value": ""}]
    assert (page.rows_shown, page.next_cursor) == (3, None)


def full(*rows: tuple[str, str, str, int]) -> list[Node]:
    return [Node(ref, role, name, depth=depth) for ref, role, name, depth in rows]


def test_text_rows_are_matched_by_ancestor_and_text() -> None:
    before = full(
        ("e1", "main", "", 0),
        ("e2", "paragraph", "", 1),
        ("", "text", "Loading…", 2),
        ("e3", "list", "", 1),
        ("e4", "listitem", "", 2),
        ("", "text", "Same", 3),
        ("e5", "listitem", "", 2),
        ("", "text", "Same", 3),
        ("", "text", "top level", 0),
    )
    after = full(
        ("e1", "main", "", 0),
        ("e9", "button", "New", 1),  # an inserted row does not disturb the text that follows
        ("e2", "paragraph", "", 1),
        ("", "text", "3 results", 2),
        ("e3", "list", "", 1),
        ("e4", "listitem", "", 2),
        ("", "text", "Same", 3),
        ("", "text", "Same", 3),  # a second "Same" under e4: new (multiset)
        ("e5", "listitem", "", 2),
        ("", "text", "top level", 0),
    )
    d = diff(snap(before, sid="s1", mode="full"), snap(after, mode="full"))
    assert d.changed == ()
    assert [(n.ref, n.name) for n in d.added] == [("e9", "New"), ("", "3 results"), ("", "Same")]
    assert d.removed_text == ("Loading…", "Same")  # the old "Same" of e5 moved to e4
    data = decode_page(render_diff(d, 30_000).text)
    assert data["added"][1] == {"ref": "", "role": "text", "name": "3 results", "depth": 2}
    assert data["removedText"] == ["Loading…", "Same"]


def test_text_of_an_added_row_is_added_even_if_the_text_exists_elsewhere() -> None:
    before = full(("e1", "list", "", 0), ("e2", "listitem", "", 1), ("", "text", "Delete", 2))
    after = [*before, *full(("e3", "listitem", "", 1), ("", "text", "Delete", 2))]
    d = diff(snap(before, sid="s1", mode="full"), snap(after, mode="full"))
    assert [(n.ref, n.name) for n in d.added] == [("e3", ""), ("", "Delete")]


# ---- store, budget and cursors ----------------------------------------------------------------------


def test_the_store_diffs_against_the_previous_snapshot_of_the_same_mode() -> None:
    store = SnapshotStore()
    first = store.record(3, "interactive", URL, "Login", BEFORE)
    store.record(3, "full", URL, "Login", full(("e1", "main", "", 0)))
    second = store.record(3, "interactive", URL, "Login", BEFORE[:4], diff=True)
    data = decode_page(store.continue_from(second.id, 30_000, tab_id=3).text)
    assert data["snapshot"] == f"{second.id} interactive; diff since {first.id}; items 1-1 of 1"
    assert data["removed"] == ["e5"]
    third = store.record(3, "interactive", URL, "Login", BEFORE[:4], diff=True)
    assert decode_page(store.continue_from(third.id, 30_000, tab_id=3).text)["snapshot"].endswith(
        f"diff since {second.id}; no changes"
    )


def test_the_first_diff_of_a_tab_is_a_new_page() -> None:
    store = SnapshotStore()
    s = store.record(3, "interactive", URL, "Login", BEFORE, diff=True)
    data = decode_page(store.continue_from(s.id, 30_000, tab_id=3).text)
    assert data["diff"] == "none (new page)"
    assert len(data["nodes"]) == len(BEFORE)


def test_a_large_diff_pages_within_budget_and_every_item_comes_once_in_order() -> None:
    rng = random.Random(11)
    before = [Node(f"e{i}", "button", f"Button {i}", states=("unchecked",)) for i in range(1, 3001)]
    after = []
    for node in before:
        roll = rng.random()
        if roll < 0.3:
            continue  # removed
        if roll < 0.6:
            node = Node(node.ref, node.role, node.name + ', "now"', states=("checked",))
        after.append(node)
        if rng.random() < 0.2:
            after.append(Node(f"n{len(after)}", "link", "new: " + "x" * rng.randint(0, 150)))
    store = SnapshotStore()
    store.record(5, "interactive", URL, "t", before)
    current = store.record(5, "interactive", URL, "t", after, diff=True)
    d = diff(Snapshot("s0", 5, URL, "t", "interactive", tuple(before)), current)
    expected = [("changed", n.ref) for n in d.changed] + [("added", n.ref) for n in d.added]
    expected += [("removed", ref) for ref in d.removed]
    assert {kind for kind, _ in expected} == {"changed", "added", "removed"}

    for max_chars in (MIN_BUDGET, 1_500, 30_000):
        seen: list[tuple[str, str]] = []
        cursor: str | None = current.id
        while cursor is not None:
            page = store.continue_from(cursor, max_chars, tab_id=5)
            assert len(page.text) <= max_chars
            assert page.rows_shown > 0
            data = decode_page(page.text)
            start = parse_cursor(cursor)[1]
            assert data["snapshot"].endswith(f"items {start + 1}-{start + page.rows_shown} of {len(expected)}")
            items = [("changed", r["ref"]) for r in data.get("changed", [])]
            items += [("added", r["ref"]) for r in data.get("added", [])]
            items += [("removed", ref) for ref in data.get("removed", [])]
            assert len(items) == page.rows_shown
            seen += items
            assert data.get("next") == page.next_cursor
            cursor = page.next_cursor
        assert seen == expected


def test_a_diff_cursor_past_the_end_is_an_error() -> None:
    store = SnapshotStore()
    store.record(5, "interactive", URL, "t", BEFORE)
    current = store.record(5, "interactive", URL, "t", BEFORE[:3], diff=True)
    assert store.continue_from(f"{current.id}:1", 30_000, tab_id=5).rows_shown == 1
    with pytest.raises(CursorError, match="new snapshot"):
        store.continue_from(f"{current.id}:2", 30_000, tab_id=5)


def test_render_diff_takes_a_start() -> None:
    d = SnapshotDiff(current=snap(BEFORE), since="s1", removed=("e7", "e8", "e9"))
    data = decode_page(render_diff(d, MIN_BUDGET, 1).text)
    assert data["removed"] == ["e8", "e9"]
