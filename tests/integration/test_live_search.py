"""A live search as a page tool: the query typed, the results the page then shows near the box read as rows,
and one opened by the text it shows. `tabmcp serve` over stdio on both drivers; the page
(tests/fixtures/pages/widgets/search.html) searches a lunr index installed from npm (``make widgets``), in a
form that sends nothing, beside a box that names the listbox it fills; with ``#classic`` the same form is
sent (nothing shows as the query is typed) and the page lists what the query finds. A webmail's filter
box without a form (widgets/filter-list.html) answers with its list once the page's slow answer came."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from toon_format import decode

from tabmcp.demo.client import StdioSession, text_of
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import serve

pytestmark = pytest.mark.usefixtures("driver_kind")

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"


@pytest.fixture(scope="module")
def pages() -> Iterator[SiteServer]:
    assert (PAGES / "widgets" / "node_modules" / "lunr").is_dir(), "lunr is not installed: run `make widgets`"
    with SiteServer(PAGES) as server:
        yield server


async def call(client: StdioSession, name: str, args: dict[str, object]) -> dict[str, object]:
    result = await client.call(name, args)
    assert not result.is_error, text_of(result)
    answer = decode(text_of(result))
    assert isinstance(answer, dict)
    return answer


async def search_tool(client: StdioSession, label: str) -> str:
    """The search tool of the box labelled ``label``, found by its description."""
    tools = [t for t in await client.tools() if t.name.startswith(("search", "jump")) and label in t.description]
    assert len(tools) == 1, [t.name for t in await client.tools()]
    return tools[0].name


async def test_live_results_are_rows_and_a_result_opens(server_log: object, tmp_path: Path, pages: SiteServer) -> None:
    async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile")) as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": pages.url("widgets/search.html")})
        docs = await search_tool(client, "Search the docs")
        tool = next(t for t in await client.tools() if t.name == docs)
        assert set(tool.input_schema["properties"]) == {"query", "result"}

        # the index loads and the page debounces: the answer waits for the rows, which link to the pages
        found = await call(client, docs, {"query": "bandwidth"})
        assert found["results"] == [{
            "title": "Bandwidth", "url": "/widgets/search.html?doc=bandwidth",
            "text": "Bandwidth max_upload_rate and max_download_rate limit the bandwidth Harbor uses.",
        }], found
        conflicts = await call(client, docs, {"query": "conflict"})
        titles = [row["title"] for row in conflicts["results"]]  # type: ignore[index, union-attr]
        assert set(titles) == {"Conflicts", "Commands", "Exit codes"}
        none = await call(client, docs, {"query": "zebra"})
        assert none["results"] == [] and "No results" in str(none["shown"])
        assert not none["page"]["url"].endswith("?q=zebra")  # type: ignore[index]  # nothing was sent

        # a result opened by the text its row shows: the page it links to answers
        opened = await call(client, docs, {"query": "conflict", "result": "Exit codes"})
        assert opened["page"]["url"].endswith("search.html?doc=exit")  # type: ignore[index]
        assert "Code 4 means conflicts were left unresolved." in str(opened["text"])

        missing = await client.call(docs, {"query": "conflict", "result": "Bandwidth"})
        assert missing.is_error and "no result row shows" in text_of(missing) and "Exit codes" in text_of(missing)
        assert "tools were refreshed" not in text_of(missing)  # the argument missed, the page did not move on


async def test_a_box_that_names_its_listbox_and_a_form_that_is_sent(
    server_log: object, tmp_path: Path, pages: SiteServer
) -> None:
    async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile")) as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": pages.url("widgets/search.html")})
        jump = await search_tool(client, "Jump to a page")
        found = await call(client, jump, {"query": "config"})
        # the options of the listbox it controls, each read once (the link inside the option)
        assert [row["title"] for row in found["results"]] == ["Configuration"]  # type: ignore[index, union-attr]
        opened = await call(client, jump, {"query": "exit", "result": "exit codes"})
        assert opened["page"]["url"].endswith("?doc=exit")  # type: ignore[index]

        # nothing shows as the query is typed: the box is sent with Enter, and the page's list answers
        await client.call_ok("navigate", {"url": pages.url("widgets/search.html#classic")})
        docs = await search_tool(client, "Search the docs")
        sent = await call(client, docs, {"query": "conflict"})
        assert sent["page"]["url"].split("#")[0].endswith("?q=conflict")  # type: ignore[index]
        assert len(sent["results"]) == 3 and "Conflicts" in str(sent["results"])  # type: ignore[arg-type]


async def test_an_autocomplete_library_that_names_its_listbox_once_open(
    server_log: object, tmp_path: Path, pages: SiteServer
) -> None:
    # Algolia Autocomplete: a role=search form with its own submit button, a combobox input whose
    # aria-controls appears only with the panel; its items come 100 ms after typing
    async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile")) as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": pages.url("widgets/autocomplete.html")})
        # its box is labelled by the label holding its submit button: named by its placeholder instead
        guides = await search_tool(client, "Search the guides")
        found = await call(client, guides, {"query": "con"})
        titles = [row["title"] for row in found["results"]]  # type: ignore[index, union-attr]
        assert titles == ["Configuration", "Conflicts"], found
        assert found["page"]["url"].endswith("autocomplete.html")  # type: ignore[index]  # nothing was sent
        opened = await call(client, guides, {"query": "band", "result": "Bandwidth limits"})
        assert opened["page"]["url"].endswith("search.html?doc=bandwidth")  # type: ignore[index]


async def test_a_list_filtered_as_typed_without_a_form(server_log: object, tmp_path: Path, pages: SiteServer) -> None:
    # a webmail's filter box (tests/fixtures/pages/widgets/filter-list.html): no form, a debounced
    # request answered about 2 s after typing (the list "Loading…" until then), button rows, and the
    # first row of the list as it stood opened as the query changes: the answer waits for the list
    async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile")) as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": pages.url("widgets/filter-list.html")})
        mail = await search_tool(client, "Search mail")
        found = await call(client, mail, {"query": "contract draft"})
        changed = str(found["changed"])
        assert "3 of 6 emails" in changed and "Loading" not in changed, found
        for subject in ("Contract draft v1042", "Contract draft v1030", "Contract draft v1018"):
            assert subject in changed, found
        assert "Lunch on Friday?" not in changed, found
        # the page opened a message of its own as the query was typed: the answer says where it is
        assert found["page"]["url"].endswith("#/email/m1")  # type: ignore[index]
