"""Screenshots a model can use, over stdio on both drivers: the caption beside the image says what it
shows, and marks draws the snapshot refs of what is on it, refs that interact then takes
(tests/fixtures/pages/marks.html places the elements)."""

from __future__ import annotations

import base64
import io
import re
from collections.abc import Iterator
from pathlib import Path

import mcp_types as types
import pytest
from PIL import Image

from tabmcp.demo.client import text_of
from tabmcp.demo.sites import SiteServer
from tests.integration.test_page_agent import focused_on, launched

pytestmark = pytest.mark.usefixtures("driver_kind")

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
AREA = re.compile(r"page area x (\d+)-(\d+), y (\d+)-(\d+) CSS px")


@pytest.fixture(scope="module")
def pages() -> Iterator[SiteServer]:
    with SiteServer(PAGES) as server:
        yield server


def shot(result: types.CallToolResult) -> tuple[Image.Image, str]:
    """The image and the text beside it (the caption a model reads)."""
    assert not result.is_error, text_of(result)
    image = next(c for c in result.content if isinstance(c, types.ImageContent))
    texts = [c.text for c in result.content if isinstance(c, types.TextContent)]
    assert len(texts) == 1, result.content
    decoded = Image.open(io.BytesIO(base64.b64decode(image.data)))
    decoded.load()
    return decoded.convert("RGB"), texts[0]


def listed(caption: str) -> dict[str, str]:
    """The marks the caption lists: "role name" by ref."""
    lines = caption.split("\n")
    assert lines[1].startswith("marks: "), caption
    return {ref: rest for ref, _, rest in (line.partition(" ") for line in lines[2:])}


def scale_of(image: Image.Image, caption: str) -> float:
    """Image px per CSS px, from the page area the caption gives."""
    x0, x1, _, _ = (int(v) for v in AREA.search(caption).groups())  # type: ignore[union-attr]
    return image.width / (x1 - x0)


async def test_marks_draw_the_refs_interact_takes(
    server_log: object, tmp_path: Path, pages: SiteServer
) -> None:
    async with launched(server_log, tmp_path) as session:
        page = await focused_on(session, pages.url("marks.html"))
        plain, caption = shot(await session.call("screenshot", {}))
        assert caption.startswith('viewport of "Marks fixture" http://') and "marks.html" in caption
        assert f": {plain.width}x{plain.height} image/png, page area x 0-" in caption and ", y 0-" in caption
        assert "\n" not in caption  # one line without marks

        # no snapshot was taken: the refs come from the screenshot alone
        marked, text = shot(await session.call("screenshot", {"marks": True}))
        assert marked.size == plain.size
        assert text.split("\n")[0] == caption
        marks = listed(text)
        expected = ['button "Save"', 'link "Help"', 'listbox "Sizes"', 'textbox "Your name"']
        assert sorted(marks.values()) == expected, text
        save = next(ref for ref, what in marks.items() if what == 'button "Save"')

        # the Save button (100, 100) 120x40 CSS px: its outline and its label differ, far pixels do not
        scale = scale_of(plain, caption)
        edge = (round(100 * scale), round(120 * scale))
        label = (round(104 * scale), round(100 * scale) - 4)
        assert marked.getpixel(edge) != plain.getpixel(edge)
        assert marked.getpixel(label) != plain.getpixel(label)
        far = (round(900 * scale), round(500 * scale))
        assert marked.getpixel(far) == plain.getpixel(far)

        await page.ok("interact", action="click", target=save)
        await page.ok("wait_for", text="saved")

        # the whole page: the button below the fold is marked too, at page px
        full, full_text = shot(await session.call("screenshot", {"fullPage": True, "marks": True}))
        assert full_text.startswith('full page of "Marks fixture"') and full.height > plain.height
        far_ref = next(ref for ref, what in listed(full_text).items() if what == 'button "Far button"')
        assert 'button "Covered"' not in listed(full_text).values()  # under a div, in the viewport
        await page.ok("interact", action="click", target=far_ref)
        await page.ok("wait_for", text="far clicked")


async def test_an_element_screenshot_names_the_element(
    server_log: object, tmp_path: Path, pages: SiteServer
) -> None:
    async with launched(server_log, tmp_path) as session:
        page = await focused_on(session, pages.url("marks.html"))
        save = await page.ref("button", "Save")
        image, caption = shot(await session.call("screenshot", {"target": "role=button[name=Save]"}))
        assert caption.startswith(f'element {save} button "Save" on "Marks fixture" http://'), caption
        x0, x1, y0, y1 = (int(v) for v in AREA.search(caption).groups())  # type: ignore[union-attr]
        assert (x0, x1, y0, y1) == (100, 220, 100, 140)
        assert image.width / image.height == pytest.approx(3, rel=0.05)

        # below the fold: scrolled to, or rendered where it is; the marks inside it are its own
        far, far_caption = shot(await session.call("screenshot", {"target": "css=#far", "marks": True}))
        assert 'button "Far button"' in far_caption.split("\n")[0]
        assert list(listed(far_caption).values()) == ['button "Far button"']
        assert far.width / far.height == pytest.approx(3, rel=0.05)

        # scrolled: the caption says where, the marks are those now in view, then none (the element
        # screenshot scrolled #far into view: back to the top first)
        await page.ok("interact", action="scroll", direction="up", amount=5000)
        await page.ok("interact", action="scroll", direction="down", amount=1400)
        _, scrolled = shot(await session.call("screenshot", {"marks": True}))
        assert ", y 1400-" in scrolled.split("\n")[0], scrolled
        assert list(listed(scrolled).values()) == ['button "Far button"']
        await page.ok("interact", action="scroll", direction="down", amount=800)
        _, empty = shot(await session.call("screenshot", {"marks": True}))
        assert ", y 2200-" in empty and empty.split("\n")[1] == "marks: none (no interactive element on this image)"
