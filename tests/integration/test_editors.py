"""Code and rich-text editors through interact, as a client uses it: `tabmcp serve` over stdio on both
drivers, the editors installed from npm (``make editors``) and served from tests/fixtures/pages/editors.
In a browser tabmcp launched, fill/clear/type/press use real input by default; trusted=false takes the
page agent's synthetic input. Each editor's own model is read after each action."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import serve
from tests.integration.test_page_agent import Page, rows

pytestmark = pytest.mark.usefixtures("driver_kind")

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
EDITORS = ["cm5", "cm6", "monaco", "ace", "prosemirror"]
START = {"prosemirror": "Dear team, the default note."}
QUERY = "select * from users; -- default query"


@pytest.fixture(scope="module")
def pages() -> Iterator[SiteServer]:
    with SiteServer(PAGES) as server:
        yield server


async def editor(page: Page) -> dict[str, Any]:
    found = rows(await page.snapshot(), "textbox")
    assert len(found) == 1, found
    return found[0]


async def until_value(page: Page, wanted: str) -> dict[str, Any]:
    """The editor's row once its snapshot value is ``wanted`` (editors draw a moment after the input)."""
    for _ in range(100):
        row = await editor(page)
        if row.get("value", "") == wanted:
            return row
        await page.ok("wait_for", timeMs=50)
    raise AssertionError(f"the editor shows {row.get('value', '')!r}, not {wanted!r}")


@pytest.mark.parametrize("trusted", [None, False], ids=["default", "synthetic"])
async def test_editors_edit_like_a_person(
    server_log: object, tmp_path: Path, pages: SiteServer, trusted: bool | None
) -> None:
    extra = {} if trusted is None else {"trusted": trusted}
    async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile")) as client:
        await client.call_ok("connect_browser", {"launch": True})
        page = Page(client)
        for name in EDITORS:
            await client.call_ok("open_tab", {"url": pages.url(f"editors/{name}.html")})
            await page.ok("wait_for", target="role=textbox", state="attached")
            row = await until_value(page, START.get(name, QUERY))
            ref = row["ref"]

            await page.ok("interact", action="fill", target=ref, text="select count(*) from orders", **extra)
            await until_value(page, "select count(*) from orders")
            await page.ok("interact", action="type", target=ref, text=" where paid", **extra)
            await until_value(page, "select count(*) from orders where paid")
            await page.ok("interact", action="press", target=ref, key="Control+A", **extra)
            await page.ok("interact", action="press", key="x", **extra)
            await until_value(page, "x")
            await page.ok("interact", action="clear", target=ref, **extra)
            await until_value(page, "")
            await page.ok("close_tab")
