"""Regions and text searches as text (docs/page-agent.md §9): scope in the status line, diffs per
region, search matches paged by rows and characters, and the snapshot tool's arguments."""

from __future__ import annotations

from typing import Any

import pytest
import toon_format

from tabmcp.page.snapshot import FIND_PAGE_ROWS, SnapshotStore
from tabmcp.tools.catalog import CATALOG

SNAPSHOT_ARGS = next(t for t in CATALOG if t.name == "snapshot").args_model


def page(nodes: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"url": "http://x.test/", "title": "T", "docId": "d1", "nodes": nodes, **extra}


def match(i: int, text: str | None = None) -> dict[str, Any]:
    return {"ref": f"e{i}", "role": "paragraph", "name": text or f"…the needle number {i} in its text…"}


def decoded(text: str) -> dict[str, Any]:
    data = toon_format.decode(text)
    assert toon_format.encode(data) == text  # our encoding is the reference's
    return data


def test_a_region_says_its_root_and_diffs_only_against_the_same_region() -> None:
    store = SnapshotStore()
    whole = store.take(1, page([{"ref": "e1", "role": "button", "name": "A"}]), mode="full")
    assert decoded(whole.text)["snapshot"] == "s1 full; rows 1-1 of 1"
    rows = [{"ref": "e5", "role": "table", "name": "Prices"}, {"ref": "e6", "role": "cell", "name": "1.00"}]
    region = decoded(store.take(1, page(rows), mode="full", scope="css=#prices").text)
    assert region["snapshot"] == "s2 full in css=#prices; rows 1-2 of 2"
    # a diff of the region compares with the last snapshot of that region, not the whole page
    rows[1]["name"] = "2.00"
    again = decoded(store.take(1, page(rows), mode="full", scope="css=#prices", diff=True).text)
    assert again["snapshot"] == "s3 full in css=#prices; diff since s2; items 1-1 of 1"
    assert again["changed"] == [{"ref": "e6", "role": "cell", "name": "2.00", "depth": 0}]
    assert store.latest(1, "full").id == "s1" and store.latest(1, "full", "css=#prices").id == "s3"
    other = decoded(store.take(1, page(rows), mode="full", scope="e5", diff=True).text)
    assert other["diff"] == "none (new page)"


def test_matches_are_paged_by_rows_and_cursor() -> None:
    store = SnapshotStore()
    answer = page([match(i) for i in range(1, 46)], total=45)
    first = decoded(store.take_matches(1, answer, query="needle").text)
    assert first["snapshot"] == f"s1 find needle; matches 1-{FIND_PAGE_ROWS} of 45"
    assert first["matches"][0] == {"ref": "e1", "role": "paragraph", "text": "…the needle number 1 in its text…"}
    assert len(first["matches"]) == FIND_PAGE_ROWS and first["next"] == f"s1:{FIND_PAGE_ROWS}"
    last = decoded(store.continue_from("s1:40", 30_000, tab_id=1).text)
    assert last["snapshot"] == "s1 find needle; matches 41-45 of 45" and "next" not in last
    # characters cap a page too: the budget holds whatever the rows
    small = store.take_matches(1, page([match(i, "x" * 150) for i in range(1, 30)], total=29), query="x", max_chars=800)
    assert len(small.text) <= 800 and small.next_cursor is not None and 0 < small.rows_shown < FIND_PAGE_ROWS


def test_a_search_says_when_matches_were_left_out_and_when_there_are_none() -> None:
    store = SnapshotStore()
    capped = decoded(store.take_matches(1, page([match(i) for i in range(1, 101)], total=1234), query="the").text)
    assert capped["snapshot"] == "s1 find the; matches 1-20 of 1234 (the first 100 kept: narrow the search)"
    none = decoded(store.take_matches(1, page([], total=0), query="zebra", scope="e7").text)
    assert none["snapshot"] == "s2 find zebra in e7; no matches" and none["matches"] == []
    with pytest.raises(ValueError, match="nodes"):
        store.take_matches(1, {"url": "", "nodes": None}, query="x")
    # a search is never what a diff compares with
    assert store.latest(1, "interactive") is None


def test_snapshot_arguments() -> None:
    assert SNAPSHOT_ARGS.model_validate({"root": "css=#prices", "find": "Apple"}).root == "css=#prices"
    for bad, said in (
        ({"root": "#prices"}, "for a CSS selector write css=#prices"),
        ({"find": "  "}, "find needs some text"),
        ({"find": "x" * 201}, "at most 200"),
    ):
        with pytest.raises(ValueError, match=said):
            SNAPSHOT_ARGS.model_validate(bad)


def test_a_ref_is_named_from_the_page_snapshot_first_then_from_regions() -> None:
    store = SnapshotStore()
    store.take(1, page([{"ref": "e1", "role": "button", "name": "Save"}]), mode="interactive")
    store.take(1, page([{"ref": "e9", "role": "button", "name": "Delete account"}]), mode="full", scope="css=#danger")
    assert store.name_of(1, "e1") == "Save" and store.name_of(1, "e9") == "Delete account"
    assert store.name_of(1, "e5") is None and store.name_of(2, "e1") is None
