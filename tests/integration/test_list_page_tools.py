"""A list page's tools end to end: `tabmcp serve` over stdio, a real MCP client, headless Chromium on
both drivers, tests/fixtures/pages/list-page.html on 127.0.0.1 (an admin's book list: a sidebar filter,
the list's search, a bulk action over row checkboxes, an "Archive" form in each row, pages).

The tools are named for what they do, without numbers; a search and the next page are new documents
with other rows but the same tools, so no ``list_changed`` is sent for them; rows are chosen by the
text they show, matched when the tool runs, with errors that name the rows to choose from.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tabmcp.demo.client import StdioSession, text_of
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import CORE_FOCUSED, serve

pytestmark = pytest.mark.usefixtures("driver_kind")

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
QUIET = 0.8  # how long a notification that must not come gets to show up anyway
# open_row: the rows' title links open them (row_links.py)
LIST_TOOLS = ["search", "filter_navigation_items", "browse_list", "open_row", "run_selected_action", "archive"]


@pytest.fixture(scope="module")
def pages() -> Any:
    with SiteServer(PAGES) as server:
        yield server


async def page_tools(client: StdioSession) -> dict[str, Any]:
    return {t.name: t for t in await client.tools() if t.name not in CORE_FOCUSED}


async def no_change_since(client: StdioSession, before: int) -> None:
    await anyio.sleep(QUIET)
    assert client.changes == before, "an unexpected list_changed arrived"


async def failure(client: StdioSession, name: str, args: dict[str, Any]) -> str:
    result = await client.call(name, args)
    assert result.is_error, f"{name}({args}) should have failed: {text_of(result)}"
    return str(json.loads(text_of(result))["error"])


async def test_search_and_paging_keep_the_tools_and_rows_are_chosen_by_their_text(
    pages: SiteServer, server_log: object
) -> None:
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        opened = await client.call_ok("open_tab", {"url": pages.url("list-page.html")})
        assert opened["toolsAvailable"] == LIST_TOOLS
        await client.wait_changes(2)
        before = await page_tools(client)
        assert list(before) == LIST_TOOLS
        bulk = before["run_selected_action"].input_schema["properties"]["rows"]
        assert bulk["type"] == "array" and "enum" not in bulk["items"]  # no row ids in the schema

        # the list's search: a new document with other rows, the same tools, no list_changed
        changes = client.changes
        found = await client.call_ok("search", {"query": "Dune"})
        assert found["page"]["url"].endswith("list-page.html?q=Dune")
        assert len(found["results"]) == 3
        await no_change_since(client, changes)
        # the next page: again other rows under the same controls
        await client.call_ok("navigate", {"url": pages.url("list-page.html?page=2")})
        await no_change_since(client, changes)
        assert {n: t.input_schema for n, t in (await page_tools(client)).items()} == {
            n: t.input_schema for n, t in before.items()
        }

        await client.call_ok("search", {"query": "Dune"})
        # rows by what a person sees: the cell that says exactly "Dune" wins over "Dune Messiah"
        chosen = {"action": "delete_selected", "rows": ["Dune", "Children of Dune"]}
        done = await client.call_ok("run_selected_action", chosen)
        assert done["status"] == "delete_selected: Dune, Children of Dune"  # the page's role=status banner
        archived = await client.call_ok("archive", {"row": "Dune Messiah"})
        assert archived["status"] == "archived: Dune Messiah"
        await no_change_since(client, changes)

        # no row shows the text: the error lists the rows there are, and the tools are not "stale"
        message = await failure(client, "run_selected_action", {"action": "delete_selected", "rows": ["Dunes"]})
        assert 'No row on the page shows "Dunes"' in message and "Dune Messiah | Frank Herbert | 1969" in message
        assert "tools were refreshed" not in message
        # several rows show it: the error lists them
        message = await failure(client, "archive", {"row": "Herbert"})
        assert '3 rows show "Herbert"' in message and "Children of Dune" in message
        await no_change_since(client, changes)
