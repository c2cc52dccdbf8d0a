"""Snapshot text (docs/page-agent.md §9): valid TOON against the reference codec, columns, budget, cursors.

Page text is hostile, so every rendered page is decoded with ``toon_format`` (the spec's reference for
us) and re-encoded: equal text means our quoting is exactly the reference's, and the decoded cells must
be the page's strings.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
import toon_format

from tabmcp.page.snapshot import (
    MIN_BUDGET,
    NOTE,
    CursorError,
    Node,
    Snapshot,
    SnapshotStore,
    parse_cursor,
    render,
)
from tabmcp.page.toon import clean, encode_string

HOSTILE = [
    "",
    " ",
    "  leading",
    "trailing ",
    "a,b",
    'say "hi"',
    "back\\slash",
    "line\nbreak",
    "cr\rlf",
    "tab\there",
    "\ttab first",
    "key: value",
    "http://x.test/a?b=c#d",
    "[1]",
    "{x}",
    "e1,button",
    'e1,button,"OK",""',
    "  e2,link,Home",
    "-",
    "-1",
    "- item",
    "#comment",
    "# x",
    "true",
    "false",
    "null",
    "True",
    "NULL",
    "0",
    "05",
    "1.5",
    "1e5",
    "-0",
    "+1",
    "1.",
    ".5",
    "1_000",
    "Infinity",
    "NaN",
    "ünïcödé",
    "日本語のボタン",
    "emoji 😀 ok",
    "rtl \u202e text",
    "zero\u200bwidth",
    "nbsp\u00a0inside",
    "\u00a0nbsp first",
    "…",
    "|pipe|",
    "semi;colon",
    "x" + ", " * 50,
    '""',
    '"',
    "\\",
    "\\n",
    "nodes[3]{ref,role}:",
    "next: s1:2",
    "\ufeffbom",
    "w" * 300,
]
# Characters TOON cannot carry faithfully; they must come out as U+FFFD, never break the document.
UNWRITABLE = ["nul\x00here", "\ud800lone surrogate", "ls\u2028ps\u2029", "nel\x85", "\x1b[31mansi", "bell\x07"]


def snap(
    nodes: list[Node],
    *,
    mode: str = "interactive",
    sid: str = "s3",
    url: str = "http://127.0.0.1:8000/login",
    title: str = "Login",
) -> Snapshot:
    return Snapshot(id=sid, tab_id=7, url=url, title=title, mode=mode, nodes=tuple(nodes))  # type: ignore[arg-type]


def decode_page(text: str) -> dict[str, Any]:
    """Decode with the reference (strict) and require that it re-encodes to exactly our text."""
    data = toon_format.decode(text)
    assert isinstance(data, dict)
    assert toon_format.encode(data) == text, "not the reference encoder's canonical form"
    return data


def row_of(node: Node, columns: list[str]) -> dict[str, Any]:
    full = {
        "ref": clean(node.ref),
        "role": clean(node.role),
        "name": clean(node.name),
        "value": clean(node.value),
        "states": clean(" ".join(node.states)),
        "depth": node.depth,
    }
    return {column: full[column] for column in columns}


LOGIN = [
    Node("e1", "heading", "Welcome back", "", ("level=1",)),
    Node("e2", "textbox", "Email", "ada@example.com", ("focused", "required")),
    Node("e3", "textbox", "Password", "********"),
    Node("e4", "checkbox", "Remember me", "", ("unchecked",)),
    Node("e5", "button", "Sign in"),
]


def test_the_documented_example() -> None:
    page = render(snap(LOGIN), 30_000)
    assert page.text.splitlines() == [
        'url: "http://127.0.0.1:8000/login"',  # a ":" must be quoted (TOON §7.2)
        "title: Login",
        f"note: {NOTE}",
        "snapshot: s3 interactive; rows 1-5 of 5",
        "nodes[5]{ref,role,name,value,states}:",
        '  e1,heading,Welcome back,"",level=1',
        "  e2,textbox,Email,ada@example.com,focused required",
        '  e3,textbox,Password,********,""',
        '  e4,checkbox,Remember me,"",unchecked',
        '  e5,button,Sign in,"",""',
    ]
    assert page.next_cursor is None
    assert page.rows_shown == 5
    data = decode_page(page.text)
    assert data["nodes"] == [row_of(n, ["ref", "role", "name", "value", "states"]) for n in LOGIN]
    assert "untrusted" in data["note"]


@pytest.mark.parametrize(
    ("nodes", "mode", "columns"),
    [
        ([Node("e1", "link"), Node("e2", "button")], "interactive", ["ref", "role"]),
        ([Node("e1", "link", "Home"), Node("e2", "button")], "interactive", ["ref", "role", "name"]),
        ([Node("e1", "textbox", value="x"), Node("e2", "button")], "interactive", ["ref", "role", "value"]),
        ([Node("e1", "checkbox", states=("checked",))], "interactive", ["ref", "role", "states"]),
        ([Node("e1", "main"), Node("", "text", "Hi", depth=1)], "full", ["ref", "role", "name", "depth"]),
        ([Node("e1", "main"), Node("e2", "button")], "full", ["ref", "role", "depth"]),  # depth even when all 0
    ],
)
def test_columns_without_a_value_in_any_row_are_left_out(nodes: list[Node], mode: str, columns: list[str]) -> None:
    page = render(snap(nodes, mode=mode), 30_000)
    assert f"nodes[{len(nodes)}]{{{','.join(columns)}}}:" in page.text.splitlines()
    assert decode_page(page.text)["nodes"] == [row_of(n, columns) for n in nodes]


def test_columns_are_chosen_over_the_whole_snapshot_not_the_page() -> None:
    nodes = [Node(f"e{i}", "button", f"Button number {i}") for i in range(1, 200)] + [Node("e200", "textbox", "", "v")]
    first = render(snap(nodes), MIN_BUDGET)
    assert first.next_cursor is not None
    assert decode_page(first.text)["nodes"][0] == {
        "ref": "e1",
        "role": "button",
        "name": "Button number 1",
        "value": "",
    }


@pytest.mark.parametrize("text", HOSTILE)
def test_a_string_is_quoted_exactly_as_the_reference_encoder_does(text: str) -> None:
    assert "k: " + encode_string(text) == toon_format.encode({"k": text})


def test_random_strings_of_risky_characters_match_the_reference() -> None:
    alphabet = [*'ab ,:"\\-#[]{}\n\t\r|01e.+', "true", "null", "é", "😀", "\u00a0"]
    rng = random.Random(3)
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
        token = encode_string(text)
        assert "k: " + token == toon_format.encode({"k": text}), repr(text)
        assert toon_format.decode("k: " + token) == {"k": text}


def test_hostile_names_values_and_titles_survive_a_round_trip() -> None:
    nodes = [
        Node(f"e{i}", "button", name, HOSTILE[-i], tuple(t for t in name.split() if t)[:2])
        for i, name in enumerate(HOSTILE, 1)
    ]
    nodes.insert(3, Node("", "text", "a text row, with a comma"))
    for title in HOSTILE:
        page = render(snap(nodes, title=title, url='http://127.0.0.1:8000/a,b?q="x"'), 100_000)
        data = decode_page(page.text)
        assert data["title"] == title
        assert data["url"] == 'http://127.0.0.1:8000/a,b?q="x"'
        assert data["nodes"] == [row_of(n, ["ref", "role", "name", "value", "states"]) for n in nodes]


def test_unwritable_characters_become_replacement_characters() -> None:
    nodes = [Node(f"e{i}", "link", text, text) for i, text in enumerate(UNWRITABLE, 1)]
    page = render(snap(nodes, title=UNWRITABLE[1]), 30_000)
    page.text.encode("utf-8")  # a lone surrogate would raise here
    assert page.text.splitlines() == page.text.split("\n")  # no Unicode line break splits a row
    data = decode_page(page.text)
    assert [row["name"] for row in data["nodes"]] == [
        "nul\ufffdhere",
        "\ufffdlone surrogate",
        "ls\ufffdps\ufffd",
        "nel\ufffd",
        "\ufffd[31mansi",
        "bell\ufffd",
    ]
    assert data["title"] == "\ufffdlone surrogate"


def test_an_empty_snapshot() -> None:
    page = render(snap([]), MIN_BUDGET)
    data = decode_page(page.text)
    assert data["nodes"] == []
    assert data["snapshot"] == "s3 interactive; rows 0 of 0"
    assert (page.next_cursor, page.rows_shown) == (None, 0)


# ---- budget and paging ------------------------------------------------------------------------------


def generated(count: int, seed: int = 5) -> list[Node]:
    """Rows of varied length and quoting; names stay within the agent's cut (120 chars)."""
    rng = random.Random(seed)
    short = [h[:120] for h in HOSTILE]
    nodes = []
    for i in range(1, count + 1):
        name = rng.choice(short) + (f" {i}" if rng.random() < 0.5 else "")
        states = tuple(rng.sample(["focused", "checked", "disabled", "level=2", "required"], rng.randint(0, 2)))
        ref = "" if rng.random() < 0.1 else f"e{i}"
        nodes.append(
            Node(
                ref,
                rng.choice(["button", "link", "textbox", "text"]),
                name,
                rng.choice(["", "v", "1"]),
                states,
                rng.randint(0, 6),
            )
        )
    return nodes


def page_through(store: SnapshotStore, tab_id: int, first: str, max_chars: int, total: int) -> list[dict[str, Any]]:
    """Every row of every page from ``first`` on, checking each page's budget, counts and cursor."""
    rows: list[dict[str, Any]] = []
    cursor: str | None = first
    while cursor is not None:
        page = store.continue_from(cursor, max_chars, tab_id=tab_id)
        assert len(page.text) <= max_chars
        assert page.rows_shown > 0, page.text
        data = decode_page(page.text)
        assert len(data["nodes"]) == page.rows_shown
        start = parse_cursor(cursor)[1]
        assert data["snapshot"].endswith(f"; rows {start + 1}-{start + page.rows_shown} of {total}")
        assert data.get("next") == page.next_cursor
        if page.next_cursor is not None:
            assert page.next_cursor == f"{first.split(':')[0]}:{start + page.rows_shown}"
        rows.extend(data["nodes"])
        cursor = page.next_cursor
    return rows


@pytest.mark.parametrize("max_chars", [MIN_BUDGET, 2_000, 30_000])
def test_ten_thousand_rows_page_within_budget_and_every_row_comes_once_in_order(max_chars: int) -> None:
    nodes = generated(10_000)
    store = SnapshotStore()
    snapshot = store.record(4, "full", "http://127.0.0.1:8000/big", "Big", nodes)
    rows = page_through(store, 4, snapshot.id, max_chars, len(nodes))
    assert rows == [row_of(n, ["ref", "role", "name", "value", "states", "depth"]) for n in nodes]


def test_every_budget_near_the_edges_holds() -> None:
    nodes = generated(60, seed=9)
    whole = render(snap(nodes, mode="full"), 1_000_000)
    assert whole.next_cursor is None
    for max_chars in [*range(MIN_BUDGET, MIN_BUDGET + 300), *range(len(whole.text) - 300, len(whole.text) + 3)]:
        start, seen = 0, 0
        while True:
            page = render(snap(nodes, mode="full"), max_chars, start)
            assert len(page.text) <= max_chars
            seen += page.rows_shown
            if page.next_cursor is None:
                break
            assert page.rows_shown > 0
            start = parse_cursor(page.next_cursor)[1]
        assert seen == len(nodes)


def test_a_page_that_fits_exactly_needs_no_cursor_and_one_char_less_does() -> None:
    nodes = generated(40, seed=2)
    text = render(snap(nodes), 1_000_000).text
    exact = render(snap(nodes), len(text))
    assert (exact.text, exact.next_cursor) == (text, None)
    short = render(snap(nodes), len(text) - 1)
    assert short.next_cursor == f"s3:{short.rows_shown}"
    assert len(short.text) <= len(text) - 1
    assert decode_page(short.text)["next"] == short.next_cursor


def test_a_row_too_long_for_the_budget_says_so_and_keeps_the_cursor() -> None:
    nodes = [Node("e1", "button", "ok"), Node("e2", "textbox", "x" * 2_000), Node("e3", "button", "after")]
    store = SnapshotStore()
    snapshot = store.record(1, "interactive", "http://127.0.0.1/", "t", nodes)
    first = store.continue_from(snapshot.id, 600, tab_id=1)
    assert (first.rows_shown, first.next_cursor) == (1, f"{snapshot.id}:1")
    stuck = store.continue_from(first.next_cursor, 600, tab_id=1)
    assert len(stuck.text) <= 600
    assert (stuck.rows_shown, stuck.next_cursor) == (0, f"{snapshot.id}:1")
    data = decode_page(stuck.text)
    assert "row 2 is too long for maxChars 600" in data["problem"]
    assert "nodes" not in data
    bigger = store.continue_from(stuck.next_cursor, 5_000, tab_id=1)
    assert [r["ref"] for r in decode_page(bigger.text)["nodes"]] == ["e2", "e3"]


def test_a_long_url_and_title_are_cut_to_leave_room_for_rows() -> None:
    nodes = generated(30, seed=4)
    url = "http://127.0.0.1:8000/" + "p" * 5_000
    title = '"' * 3_000  # every character doubles when escaped
    page = render(snap(nodes, url=url, title=title), MIN_BUDGET)
    assert len(page.text) <= MIN_BUDGET
    assert page.rows_shown > 0
    data = decode_page(page.text)
    assert data["url"].startswith("http://127.0.0.1:8000/ppp") and data["url"].endswith("…")
    assert data["title"].endswith("…") and set(data["title"][:-1]) == {'"'}
    roomy = decode_page(render(snap(nodes, url=url, title=title), 100_000).text)
    assert len(roomy["url"]) > len(data["url"])


def test_budgets_below_the_minimum_are_refused() -> None:
    with pytest.raises(ValueError, match=str(MIN_BUDGET)):
        render(snap(LOGIN), MIN_BUDGET - 1)
    with pytest.raises(ValueError):
        SnapshotStore().continue_from("s1", 10, tab_id=1)


def test_a_start_outside_the_rows_is_a_cursor_error() -> None:
    for start in (-1, 5, 6):
        with pytest.raises(CursorError, match="new snapshot"):
            render(snap(LOGIN), 30_000, start)
    assert render(snap(LOGIN), 30_000, 4).rows_shown == 1


# ---- wire rows -------------------------------------------------------------------------------------


def test_node_from_wire() -> None:
    node = Node.from_wire(
        {
            "ref": "f2e3",
            "role": "textbox",
            "name": "Email",
            "value": "a@b",
            "states": ["focused"],
            "depth": 2,
            "frameToken": "ignored",
        }
    )
    assert node == Node("f2e3", "textbox", "Email", "a@b", ("focused",), 2)
    assert Node.from_wire({"ref": "", "role": "text", "name": "hi"}) == Node("", "text", "hi")
    assert Node.from_wire({"ref": "e1", "role": "link", "name": "a\ud800b", "states": ["x\x00"]}) == Node(
        "e1", "link", "a\ufffdb", states=("x\ufffd",)
    )


@pytest.mark.parametrize(
    "wire",
    [
        {"role": "button"},
        {"ref": "e1"},
        {"ref": 1, "role": "button"},
        {"ref": "e1", "role": "button", "name": 3},
        {"ref": "e1", "role": "button", "states": "checked"},
        {"ref": "e1", "role": "button", "states": [1]},
        {"ref": "e1", "role": "button", "depth": -1},
        {"ref": "e1", "role": "button", "depth": "2"},
        {"ref": "e1", "role": "button", "depth": True},
        ["e1", "button"],
    ],
)
def test_node_from_wire_rejects_bad_rows(wire: Any) -> None:
    with pytest.raises(ValueError, match="snapshot node"):
        Node.from_wire(wire)


# ---- store and cursors -------------------------------------------------------------------------------


def test_parse_cursor() -> None:
    assert parse_cursor("s3:120") == ("s3", 120)
    assert parse_cursor("s3") == ("s3", 0)
    assert parse_cursor(' "s12:0" ') == ("s12", 0)  # copied with the quotes of the next: line
    for bad in ("", "3:120", "s3:", "s3:-1", "s0:1", "s3:1:2", "e3:1", "s3: 1"):
        with pytest.raises(CursorError, match="new snapshot"):
            parse_cursor(bad)


def test_store_ids_are_unique_across_tabs_and_cursors_are_checked() -> None:
    store = SnapshotStore(keep=2)
    a = store.record(1, "interactive", "http://127.0.0.1/a", "A", LOGIN)
    b = store.record(2, "interactive", "http://127.0.0.1/b", "B", LOGIN[:2])
    assert (a.id, b.id) == ("s1", "s2")
    assert store.latest(1, "interactive") == a and store.latest(1, "full") is None
    assert decode_page(store.continue_from("s1:3", 30_000, tab_id=1).text)["nodes"][0]["ref"] == "e4"
    with pytest.raises(CursorError, match="another tab"):
        store.continue_from(b.id, 30_000, tab_id=1)
    with pytest.raises(CursorError, match="outside snapshot s2"):
        store.continue_from("s2:2", 30_000, tab_id=2)
    with pytest.raises(CursorError, match="no longer kept"):
        store.continue_from("s99", 30_000, tab_id=1)


def test_old_snapshots_expire_and_a_closed_tab_is_forgotten() -> None:
    store = SnapshotStore(keep=2)
    ids = [store.record(1, "interactive", "http://127.0.0.1/", "t", LOGIN).id for _ in range(3)]
    with pytest.raises(CursorError, match="no longer kept"):
        store.continue_from(ids[0], 30_000, tab_id=1)
    assert store.continue_from(ids[1], 30_000, tab_id=1).rows_shown == 5
    store.forget(1)
    assert store.latest(1, "interactive") is None
    with pytest.raises(CursorError, match="take a new snapshot"):
        store.continue_from(ids[2], 30_000, tab_id=1)


def test_a_kept_snapshot_pages_the_same_after_newer_ones() -> None:
    store = SnapshotStore()
    old = store.record(1, "interactive", "http://127.0.0.1/", "t", LOGIN)
    first = store.continue_from(old.id, 30_000, tab_id=1).text
    store.record(1, "interactive", "http://127.0.0.1/", "t", LOGIN[:1])
    assert store.continue_from(old.id, 30_000, tab_id=1).text == first


def test_store_refuses_an_unknown_mode() -> None:
    with pytest.raises(ValueError, match="mode"):
        SnapshotStore().record(1, "everything", "http://x/", "t", [])  # type: ignore[arg-type]


def test_the_too_long_page_fits_the_smallest_budget_even_with_a_long_url_and_title() -> None:
    nodes = [Node("e1", "textbox", "\\" * 5_000, states=("focused", "required", "invalid", "readonly"))] * 3
    snapshot = Snapshot("s123456789", 1, "http://127.0.0.1/" + ":" * 9_000, '"' * 9_000, "full", tuple(nodes))
    for start in range(3):
        page = render(snapshot, MIN_BUDGET, start)
        assert len(page.text) <= MIN_BUDGET
        assert (page.rows_shown, page.next_cursor) == (0, f"s123456789:{start}")
        assert decode_page(page.text)["snapshot"] == "s123456789 full; no rows shown of 3"


def test_take_records_the_drivers_answer_and_returns_the_first_page() -> None:
    store = SnapshotStore()
    wire = {
        "url": "http://127.0.0.1/",
        "title": "T",
        "frames": 1,
        "nodes": [{"ref": "e1", "role": "button", "name": "Go", "value": "", "states": [], "depth": 0}],
    }
    page = store.take(2, wire, mode="interactive", max_chars=MIN_BUDGET)
    data = decode_page(page.text)
    assert data["nodes"] == [{"ref": "e1", "role": "button", "name": "Go"}]
    assert store.latest(2, "interactive") is not None
    with pytest.raises(ValueError, match="nodes"):
        store.take(2, {"url": "u", "title": "t"}, mode="interactive")
    before = store.latest(2, "interactive")
    with pytest.raises(ValueError, match="maxChars"):
        store.take(2, wire, mode="interactive", max_chars=10)
    assert store.latest(2, "interactive") is before  # a refused budget records nothing


def test_a_snapshot_not_remembered_is_no_diff_base_and_expires_no_cursor() -> None:
    store = SnapshotStore(keep=1)
    kept = store.record(1, "interactive", "http://127.0.0.1/", "t", LOGIN)
    aside = store.record(1, "interactive", "http://127.0.0.1/", "t", LOGIN[:1], remember=False)
    assert store.latest(1, "interactive") == kept
    assert store.continue_from(kept.id, MIN_BUDGET, tab_id=1).rows_shown == 5
    assert store.continue_from(aside.id, MIN_BUDGET, tab_id=1).rows_shown == 1
    newer = store.record(1, "interactive", "http://127.0.0.1/", "t", LOGIN[:1], remember=False)
    assert store.continue_from(newer.id, MIN_BUDGET, tab_id=1).rows_shown == 1
    with pytest.raises(CursorError, match="no longer kept"):  # one view aside per tab
        store.continue_from(aside.id, MIN_BUDGET, tab_id=1)
    with pytest.raises(CursorError, match="another tab"):
        store.continue_from(newer.id, MIN_BUDGET, tab_id=2)
