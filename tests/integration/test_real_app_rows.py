"""Opening one row of a real app's list by the text it shows, end to end, on both drivers: An Otter
Wiki's search results (linked titles), MailDev's message list (rows drawn as buttons, opened beside
the list by the app's script) and Wagtail's page search (a table's title cell). Each app (bench/apps,
installed by `make apps`) is started on fresh demo data; `tabmcp serve` over stdio with a real MCP
client searches, then calls the tool that takes a row, and the test checks the page it opened. The
tool is found by what it takes (a row), not by name (tests/integration/real_apps.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from bench.apps import load
from bench.apps.runner import Running, running
from mcp import types
from toon_format import decode

from tabmcp.demo.client import StdioSession, text_of
from tests.integration.conftest import eventually, serve
from tests.integration.real_apps import argument, call_text, fetch, page_tools, tool_taking

pytestmark = pytest.mark.usefixtures("driver_kind")


def listing(tools: list[types.Tool]) -> dict[str, str]:
    """The page tools as the client lists them: name → title, description and schema."""
    return {t.name: json.dumps([t.title, t.description, t.input_schema], sort_keys=True) for t in page_tools(tools)}


async def no_row_there(client: StdioSession, name: str, args: dict[str, object]) -> None:
    """The list's tool kept on a page with no rows answers that no row shows the text."""
    missed = await client.call(name, args)
    assert missed.is_error, text_of(missed)
    assert "row" in text_of(missed) and "no longer" not in text_of(missed), text_of(missed)


@pytest.fixture
def app(request: pytest.FixtureRequest) -> Iterator[Running]:
    """The app the test names (``indirect``), started on fresh data; stopped with all it started."""
    with running(load(request.param)) as live:
        yield live


@pytest.mark.parametrize("app", ["otterwiki"], indirect=True)
async def test_otter_wiki_opens_a_search_result_by_its_title(app: Running, server_log: object) -> None:
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": app.url("/-/login")})
        login, [email, password] = await tool_taking(client, ("email",), ("password",))
        await call_text(client, login.name, {email: "ada@example.org", password: "corpus-wiki"})
        search, [query] = await tool_taking(client, ("query", "search"))
        await call_text(client, search.name, {query: "failover"})
        opener, [row] = await tool_taking(client, ("row",))
        assert "enum" not in opener.input_schema["properties"][row]
        with_rows = listing(await client.tools())

        missed = await client.call(opener.name, {row: "Runbooks/Disaster Recovery"})
        assert missed.is_error
        said = text_of(missed)
        assert "Runbooks/Database Failover" in said  # the closest rows, to choose from

        opened = await call_text(client, opener.name, {row: "Runbooks/Database Failover"})
        assert "/Runbooks/Database%20Failover" in opened  # the page it landed on
        assert "Promote the replica" in fetch(app.url("/Runbooks/Database%20Failover"))

        # a search with no hits ("No match found.", no list at all) keeps the tool: the same tool list
        search, [query] = await tool_taking(client, ("query", "search"), first=True)
        await call_text(client, search.name, {query: "quasar"})
        assert listing(await client.tools()) == with_rows
        await no_row_there(client, opener.name, {row: "Runbooks/Database Failover"})


@pytest.mark.parametrize("app", ["maildev"], indirect=True)
async def test_maildev_opens_a_message_of_the_list_by_its_subject(app: Running, server_log: object) -> None:
    mails = json.loads(fetch(app.url("/api/email")))
    wanted = next(m for m in mails if m["subject"] == "Contract draft v1042")
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": app.url("/")})
        search, [query] = await tool_taking(client, ("query", "search"))

        async def listed() -> bool:  # the app draws its list after the page loaded
            return any(argument(t, "row") for t in page_tools(await client.tools()))

        await eventually(listed, "a tool taking a row of MailDev's list")
        before = {t.name: t.input_schema for t in await client.tools()}
        await call_text(client, search.name, {query: "contract draft"})
        opener, [row] = await tool_taking(client, ("row",))
        assert before[opener.name] == opener.input_schema  # the same tool on the whole inbox and a search

        many = await client.call(opener.name, {row: "Contract draft"})
        assert many.is_error and "v1042" in text_of(many) and "v1006" in text_of(many)  # each row by its text

        opened = await call_text(client, opener.name, {row: "Contract draft v1042"})
        assert f"#/email/{wanted['id']}" in opened  # the message's own address, opened beside the list
        assert "Contract draft v1042" in opened
        body = decode(opened)["frame"]  # the app shows the message's body in an iframe of its own origin
        assert "Contract draft v1042. Details below." in body and "Priya Raman" in body

        # with a message open, its toolbar (icon buttons and their tooltips) is no list of results
        again = decode(await call_text(client, search.name, {query: "contract draft"}))
        assert "Download as .eml" not in json.dumps(again.get("results", []))


@pytest.mark.parametrize("app", ["wagtail"], indirect=True)
async def test_wagtail_opens_a_page_of_the_search_by_its_title(app: Running, server_log: object) -> None:
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": app.url("/admin/login/")})
        login, [user, password] = await tool_taking(client, ("user",), ("password",))
        await call_text(client, login.name, {user: "admin", password: "corpus-cms"})
        await client.call_ok("navigate", {"url": app.url("/admin/pages/search/?q=glacier")})
        opener, [row] = await tool_taking(client, ("row",))
        # several pages have this title: the error says what tells them apart, and the row with the
        # draft is named by its title and its status, as the rows read
        many = await client.call(opener.name, {row: "Tides of the Glacier (2)"})
        assert many.is_error and "live + draft" in text_of(many)
        opened = await call_text(client, opener.name, {row: "Tides of the Glacier (2) | live + draft"})
        assert "/edit/" in opened and "Tides of the Glacier (2)" in opened  # the page's editor

        # the search finding nothing ("Sorry, no pages match") keeps the list's tools as they were
        await client.call_ok("navigate", {"url": app.url("/admin/pages/search/?q=glacier")})
        with_rows = listing(await client.tools())
        await client.call_ok("navigate", {"url": app.url("/admin/pages/search/?q=quasar")})
        assert listing(await client.tools()) == with_rows
        await no_row_there(client, opener.name, {row: "Tides of the Glacier (2)"})


@pytest.mark.parametrize("app", ["roundup"], indirect=True)
async def test_roundup_opens_a_user_of_the_list_but_an_issue_by_its_number(app: Running, server_log: object) -> None:
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": app.url("/")})
        login, [user, password] = await tool_taking(client, ("name", "user"), ("password",))
        await call_text(client, login.name, {user: "alice", password: "corpus-tracker"})

        # the issue list: the sidebar's "Show issue: [number]" opens its rows, the only tool doing so
        await client.call_ok("navigate", {"url": app.url("/issue")})
        assert not [t for t in page_tools(await client.tools()) if argument(t, "row")]
        show, [number] = await tool_taking(client, ("number",))
        assert "/issue3" in await call_text(client, show.name, {number: "3"})

        # the user list: that box opens issues, not users, so the list has its own tool
        await client.call_ok("navigate", {"url": app.url("/user")})
        opener, [row] = await tool_taking(client, ("row",))
        opened = await call_text(client, opener.name, {row: "carol"})
        assert "/user5" in opened and "carol" in opened  # carol's own page
        assert show.name in {t.name for t in await client.tools()}  # the sidebar's box is still there

        # the user search finding nobody (the table's headers, no row) keeps the list's tools
        await client.call_ok("navigate", {"url": app.url("/user")})
        with_rows = listing(await client.tools())
        await client.call_ok("navigate", {"url": app.url("/user?username=quasar&@action=search")})
        assert listing(await client.tools()) == with_rows
        await no_row_there(client, opener.name, {row: "carol"})
