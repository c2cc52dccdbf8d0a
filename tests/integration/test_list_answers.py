"""Complete answers from a server-rendered list app (tests/integration/list_app.py): every row of a
page plus the call that shows the next one, a sort argument from the column headers, a page-size
argument from the page's select, a field's validation error under its argument, and the success
banner of the page a form redirected to. `tabmcp serve` over stdio, a real MCP client, headless
Chromium on both drivers."""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import pytest

from tabmcp.demo.client import StdioSession, text_of
from tests.integration.conftest import serve
from tests.integration.list_app import ListApp

pytestmark = pytest.mark.usefixtures("driver_kind")

QUIET = 0.8  # how long a notification that must not come gets to show up anyway


@pytest.fixture
def app() -> Iterator[ListApp]:
    with ListApp() as running:
        yield running


def names(answer: dict[str, object]) -> list[str]:
    return [row["Name"] for row in answer["results"]]  # type: ignore[index, union-attr]


async def opened(client: StdioSession, url: str) -> None:
    await client.call_ok("connect_browser", {"launch": True})
    await client.call_ok("open_tab", {"url": url})


async def test_pages_sort_and_page_size_of_a_list(app: ListApp, server_log: object) -> None:
    async with serve(server_log, ws_port="0") as client:
        await opened(client, app.url("/users/"))
        tools = {t.name: t for t in await client.tools()}
        browse = tools["browse_list"].input_schema["properties"]
        assert browse["sort"]["enum"] == ["Name", "Email address", "Role"]  # the headers, not the rows
        assert browse["order"]["enum"] == ["ascending", "descending"]
        assert browse["per_page"]["enum"] == ["20", "50"]
        assert browse["page"]["type"] == "integer"

        # a search matching all 45 users: the first page's 20 rows, and the call for the next page
        first = await client.call_ok("search_users", {"query": "user"})
        assert names(first) == [f"User {n:02d}" for n in range(1, 21)]
        assert first["results"][0] == {"Name": "User 01", "Email address": "user01@example.test", "Role": "staff"}
        assert "more: call browse_list with page=2" in first["pages"] and first["pages"].startswith("page 1")
        # every page of the list, sorted or not, has the same tools: no list_changed while paging
        changes = client.changes
        second = await client.call_ok("browse_list", {"page": 2})
        assert names(second) == [f"User {n:02d}" for n in range(21, 41)]
        last = await client.call_ok("browse_list", {"page": 3})
        assert names(last) == [f"User {n:02d}" for n in range(41, 46)]
        assert "the last page" in last["pages"] and "q=user" in last["page"]["url"]

        # the sort argument re-orders by the column's own links (both orders), back on page 1
        down = await client.call_ok("browse_list", {"sort": "Name", "order": "descending"})
        assert names(down)[:3] == ["User 45", "User 44", "User 43"] and "sort=-name" in down["page"]["url"]
        up = await client.call_ok("browse_list", {"sort": "Name", "order": "ascending", "page": 2})
        assert names(up)[0] == "User 21"
        await anyio.sleep(QUIET)
        assert client.changes == changes, "paging and sorting changed the tool list"

        # the page size from the page's select: all 45 rows in one answer
        everyone = await client.call_ok("browse_list", {"per_page": "50"})
        assert len(everyone["results"]) == 45 and "pages" not in everyone  # one page: nothing more to get

        refused = await client.call("browse_list", {"page": 9})
        assert refused.is_error and "page 9" in text_of(refused)
        wrong = await client.call("browse_list", {"sort": "Password"})
        assert wrong.is_error and "Name, Email address, Role" in text_of(wrong)


async def test_field_errors_and_the_success_banner(app: ListApp, server_log: object) -> None:
    async with serve(server_log, ws_port="0") as client:
        await opened(client, app.url("/users/add/"))
        # the browser's own validation stops the submit: its message under the argument
        blocked = await client.call_ok("add_user", {"name": "Ada", "email": "x", "website": "not a url"})
        assert set(blocked["errors"]) == {"website"} and "URL" in blocked["errors"]["website"]
        assert blocked["page"].get("navigated") is None
        # the site's error next to its field, under the argument; the page's note as its status
        invalid = await client.call_ok("add_user", {"name": "Ada", "email": "not an address", "website": ""})
        assert invalid["errors"] == {"email": "Enter a valid email address."}
        assert invalid["status"] == "Please correct the error below."
        # a valid form redirects to the list: its banner is in the answer, beside the rows
        saved = await client.call_ok("add_user", {"name": "Ada", "email": "ada@example.test"})
        assert saved["status"] == "The user “Ada” was added."
        assert "errors" not in saved and len(saved["results"]) == 20
        assert "The user" not in saved.get("text", "")


async def test_load_more_pages_of_a_feed(app: ListApp, server_log: object) -> None:
    async with serve(server_log, ws_port="0") as client:
        await opened(client, app.url("/feed/"))
        tools = {t.name: t for t in await client.tools()}
        assert list(tools["browse_list"].input_schema["properties"]) == ["page"]
        posts = [f"Post number {n}" for n in range(1, 31)]
        # each page clicks "Load more" and waits for the posts it fetches: the answer has only the new ones
        second = await client.call_ok("browse_list", {"page": 2})
        assert second["results"] == posts[10:20]
        assert second["pages"] == "page 2; more: call browse_list with page=3"
        third = await client.call_ok("browse_list", {"page": 3})
        assert third["results"] == posts[20:30] and third["pages"] == "page 3; the last page"


async def test_a_run_of_buttons_is_no_list_of_results(app: ListApp, server_log: object) -> None:
    """A toolbar's icon buttons with their tooltips hold more text than the notes found: the notes,
    rows with text and links, are the results."""
    async with serve(server_log, ws_port="0") as client:
        await opened(client, app.url("/notes/"))
        tools = {t.name: t for t in await client.tools()}
        [search] = [name for name, t in tools.items() if list(t.input_schema["properties"]) == ["query"]]
        found = await client.call_ok(search, {"query": "the"})
        assert found["results"] == ["Call the plumber", "Book the train", "Renew the passport"]


async def test_a_table_with_a_column_edited_in_place_is_the_list(app: ListApp, server_log: object) -> None:
    """Rows that show their record with one cell editable in place (a quantity) are the results, that
    cell read as its field's value; the rows to add below them, only fields, are a form's layout."""
    async with serve(server_log, ws_port="0") as client:
        await opened(client, app.url("/stock/"))
        tools = {t.name: t for t in await client.tools()}
        [search] = [name for name, t in tools.items() if list(t.input_schema["properties"]) == ["query"]]
        found = await client.call_ok(search, {"query": "o"})
        assert found["results"] == [  # a yes/no column drawn as icons reads as their alternative text
            {"Item": "Copper kettle", "Kind": "kitchen", "Quantity": "12", "In stock": "Yes"},
            {"Item": "Bamboo spoon", "Kind": "kitchen", "Quantity": "7", "In stock": "Yes"},
            {"Item": "Folding saw", "Kind": "tools", "Quantity": "3", "In stock": "No"},
        ]


async def test_filter_links_narrow_the_list_across_reloads(app: ListApp, server_log: object) -> None:
    """A sidebar of links that reload the list with another query is one filter argument; a call
    following a link after a search keeps the search (the link carries it) and reads the rows."""
    async with serve(server_log, ws_port="0") as client:
        await opened(client, app.url("/users/?q=User+1"))
        tools = {t.name: t for t in await client.tools()}
        role = tools["filter_list"].input_schema["properties"]["role"]
        assert role["enum"] == ["All", "admin", "staff"] and '"All"' in role["description"]
        # the years above the table are numbers in a nav, yet set no page: a filter, not the pager
        assert tools["filter_list"].input_schema["properties"]["joined_in"]["enum"] == ["2023", "2024"]
        admins = await client.call_ok("filter_list", {"role": "admin"})
        assert names(admins) == ["User 10", "User 15"]
        assert "role=admin" in admins["page"]["url"] and "q=User" in admins["page"]["url"]
        everyone = await client.call_ok("filter_list", {"role": "All"})
        assert names(everyone) == [f"User {n}" for n in range(10, 20)]
        wrong = await client.call("filter_list", {"role": "guest"})
        assert wrong.is_error
