"""Reading a long page without flooding, as a client does it: `snapshot` of one region (root by ref
or css), `snapshot {find}` (a bounded text search with refs and context), the cut marker of a long
text and the region that holds all of it. Over stdio, on the extension and on the CDP driver."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from toon_format import decode

from tabmcp.demo.sites import SiteServer
from tests.integration.test_page_agent import focused_on, launched, names, rows

pytestmark = pytest.mark.usefixtures("driver_kind")

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"


@pytest.fixture(scope="module")
def pages() -> Iterator[SiteServer]:
    with SiteServer(PAGES) as server:
        yield server


async def test_regions_searches_and_long_texts(server_log: object, tmp_path: Path, pages: SiteServer) -> None:
    async with launched(server_log, tmp_path) as session:
        page = await focused_on(session, pages.url("long-page.html"))
        await page.ok("wait_for", text="Frame button needle")  # the iframe's document is there

        # a region by css: full by default, its root the first row, only its subtree
        table_text = await page.ok("snapshot", root="css=#prices", maxChars=3000)
        assert len(table_text) <= 3000
        table = decode(table_text)
        assert table["snapshot"].startswith("s1 full in css=#prices; rows 1-")
        assert (table["nodes"][0]["role"], table["nodes"][0]["name"]) == ("table", "Prices")
        assert names(table, "cell")[:2] == ["Item 1", "1.00"] and not names(table, "button")
        # paged on with the cursor like any snapshot
        rest = await page.snapshot(cursor=table["next"], maxChars=30000)
        assert "Item 200" in names(rest, "cell")

        # a region by ref, interactive on request
        whole = await page.snapshot()
        link = next(n["ref"] for n in rows(whole, "link") if n["name"] == "price table")
        alone = await page.snapshot(root=link, mode="interactive")
        assert [(n["ref"], n["role"]) for n in alone["nodes"]] == [(link, "link")]

        # a long text in a full snapshot of the page says how much is cut and where all of it is
        full = await page.snapshot(mode="full")
        cut = next(n["name"] for n in rows(full, "text") if n["name"].startswith("The opening paragraph"))
        assert "… (+" in cut and cut.endswith(")")
        root = cut.rsplit("root=", 1)[1].rstrip(")")
        paragraph = await page.snapshot(root=root)
        texts = names(paragraph, "text")
        assert texts[-1].endswith("closing marker sentence.") and "word599" in " ".join(texts)

        # a text search: matches in page order with refs and context, the frame's spliced where it is
        found = await page.snapshot(find="needle")
        assert found["snapshot"].endswith("find needle; matches 1-4 of 4")
        haystack = "Haystack text before the Needle word and haystack text after it."
        assert [(m["role"], m["text"]) for m in found["matches"]] == [
            ("paragraph", haystack),
            ("button", f"Notes {haystack} More notes Needle button"),  # a short block with its group
            ("heading", "Child frame needle"),
            ("button", "Frame button needle"),
        ]
        frame_button = found["matches"][3]["ref"]
        assert frame_button.startswith("f")
        # a region in a frame (its url), and a region holding an iframe (the frame's rows spliced in)
        in_frame = await page.snapshot(root=frame_button)
        assert [(n["ref"], n["role"]) for n in in_frame["nodes"]] == [(frame_button, "button")]
        assert "frame-child.html" in in_frame["url"]
        main = await page.snapshot(root="css=main", mode="interactive")
        assert {"Needle button", "Frame button needle"} <= set(names(main, "button"))
        await page.ok("interact", action="click", target=frame_button)  # a match's ref is a target
        assert "clicked needle synthetic" in [m["text"] for m in (await page.snapshot(find="clicked"))["matches"]]

        # the cap: 20 a page, a cursor beyond; all of them counted
        items = await page.snapshot(find="item")
        assert items["snapshot"].endswith("find item; matches 1-20 of 201 (the first 100 kept: narrow the search)")
        assert len(items["matches"]) == 20 and items["matches"][1]["text"] == "Item 1 1.00"  # a cell with its row
        more = await page.snapshot(cursor=items["next"])
        assert more["matches"][0]["text"] == "Item 20"  # its row is too long to show: the cell alone
        # a search in one region
        notes = await page.snapshot(find="note 1", root="css=#prices")
        assert notes["snapshot"].endswith("find note 1 in css=#prices; matches 1-11 of 11")
        assert {m["role"] for m in notes["matches"]} == {"cell"}
        assert (await page.snapshot(find="zebra"))["matches"] == []


async def test_bad_roots_fail_with_the_next_step(server_log: object, tmp_path: Path, pages: SiteServer) -> None:
    async with launched(server_log, tmp_path) as session:
        page = await focused_on(session, pages.url("long-page.html"))
        stale = await page.error("snapshot", root="e99999")
        assert "snapshot of e99999 failed (STALE_REF)" in stale and "Take a new snapshot" in stale
        assert "(ELEMENT_NOT_FOUND)" in await page.error("snapshot", root="css=#nothing")
        ambiguous = await page.error("snapshot", root="css=p")
        assert "(ELEMENT_AMBIGUOUS)" in ambiguous and "Use one of the refs listed" in ambiguous
        hidden = await page.error("snapshot", root="css=#hidden-para")
        assert "(ELEMENT_NOT_INTERACTABLE)" in hidden and "hidden attribute" in hidden
        assert "text search failed (STALE_REF)" in await page.error("snapshot", find="x", root="f9e1")
        assert "for a CSS selector write css=#prices" in await page.error("snapshot", root="#prices")
        assert "diff does not go with find" in await page.error("snapshot", find="x", diff=True)
