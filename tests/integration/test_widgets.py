"""Form widgets as page-tool arguments, filled the way a person fills them: `tabmcp serve` over stdio on both
drivers, the widget libraries installed from npm (``make widgets``: select2 with jQuery, Tom Select, Choices.js,
flatpickr) and the code editors (``make editors``), served from tests/fixtures/pages. After each call the
widget's own model is read in the page (each library's API, through evaluate)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tabmcp.demo.client import StdioSession, text_of
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import serve

pytestmark = pytest.mark.usefixtures("driver_kind")

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
SETTINGS = {"enable_evaluate": "true", "rate_limit_per_minute": "0"}


@pytest.fixture(scope="module")
def pages() -> Iterator[SiteServer]:
    assert (PAGES / "widgets" / "node_modules").is_dir(), "the widgets are not installed: run `make widgets`"
    assert (PAGES / "editors" / "node_modules").is_dir(), "the editors are not installed: run `make editors`"
    with SiteServer(PAGES) as server:
        yield server


async def evaluate(client: StdioSession, expression: str) -> Any:
    result = await client.call("evaluate", {"expression": expression})
    assert not result.is_error, text_of(result)
    return json.loads(text_of(result).split("value: ", 1)[1])


async def ready(client: StdioSession, flag: str) -> None:
    with anyio.fail_after(15):
        while not await evaluate(client, f"!!window.{flag}"):
            await anyio.sleep(0.05)


async def tool_named(client: StdioSession, name: str, argument: str) -> Any:
    """The page tool once it takes ``argument`` (the page's scripts build the widgets after the first capture)."""
    with anyio.fail_after(15):
        while True:
            tools = {t.name: t for t in await client.tools()}
            if name in tools and argument in tools[name].input_schema.get("properties", {}):
                return tools[name]
            await anyio.sleep(0.1)


async def test_widgets_are_arguments_filled_like_a_person(
    server_log: object, tmp_path: Path, pages: SiteServer
) -> None:
    async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile"), **SETTINGS) as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": pages.url("widgets/form.html")})
        await ready(client, "widgetsReady")
        tool = await tool_named(client, "save_book", "author")
        props = tool.input_schema["properties"]
        # a select2 over a <select> whose options come from the server: a text, never an empty enum
        assert props["author"]["type"] == "string" and "enum" not in props["author"]
        assert props["shelves"]["type"] == "array" and props["shelves"]["items"] == {"type": "string"}
        assert props["publisher"] == {"type": "string", "description": "Publisher (the option's visible text)"}
        assert props["translators"]["type"] == "array"
        assert props["language"]["type"] == "string" and "enum" not in props["language"]
        assert props["awards"]["type"] == "array"
        assert props["published"]["format"] == "date"
        assert props["printed"]["format"] == "date"
        assert props["returned"]["format"] == "date"  # flatpickr's altInput: the named input is hidden
        assert props["formats"] == {
            "type": "array", "items": {"type": "string", "enum": ["hb", "pb", "eb"]}, "uniqueItems": True,
            "description": "Formats (hb: Hardback, pb: Paperback, eb: E-book)",
        }
        assert props["series"]["type"] == "string"

        args = {
            "title": "The Hobbit",
            "author": "J. R. R. Tolkien",
            "shelves": ["Fiction", "Fantasy"],
            "publisher": "Allen & Unwin",
            "translators": ["Edith Grossman", "Lydia Davis"],
            "language": "English",
            "awards": ["Hugo Award", "Booker Prize"],
            "published": "1937-09-21",
            "returned": "2026-01-31",
            "printed": "2024-05-01",
            "formats": ["hb", "eb"],
            "series": "The Lord of the Rings",
        }
        result = await client.call("save_book", args)
        assert not result.is_error, text_of(result)
        state = await evaluate(client, "window.widgetState()")
        assert state == {
            "author": ["J. R. R. Tolkien"], "authorValue": "1", "shelves": ["1", "2"], "publisher": "Allen & Unwin",
            "translators": ["Edith Grossman", "Lydia Davis"], "language": "en", "awards": ["hugo", "booker"],
            "published": ["1937-09-21"], "publishedValue": "1937-09-21", "returned": ["2026-01-31"],
            "printed": "2024-05-01",
            "formats": ["hb", "eb"], "series": "The Lord of the Rings",
        }
        saved = await evaluate(client, "document.getElementById('saved').textContent")
        assert '"author":["1"]' in saved and '"published":["1937-09-21"]' in saved

        # a second call replaces what the widgets hold: chosen items not wanted are removed
        again = {"title": "Earthsea", "author": "Le Guin", "shelves": ["Fantasy"], "translators": ["Lydia Davis"],
                 "awards": ["Nebula Award"], "published": "2024-02-29", "series": "Dune"}
        result = await client.call("save_book", again)
        assert not result.is_error, text_of(result)
        state = await evaluate(client, "window.widgetState()")
        assert state["author"] == ["Ursula K. Le Guin"]  # the one option holding what was typed
        assert state["shelves"] == ["2"]
        assert state["translators"] == ["Lydia Davis"]
        assert state["awards"] == ["nebula"]
        assert state["published"] == ["2024-02-29"]
        assert state["series"] == "Dune"  # a combobox of its own offering nothing takes the text as typed

        # no option matches: an error that lists the close ones, the widget left as it was
        result = await client.call("save_book", {"title": "x", "author": "Tolkein"})
        assert result.is_error
        message = text_of(result)
        assert "No option" in message and "J. R. R. Tolkien" in message, message
        result = await client.call("save_book", {"title": "x", "author": "Le Guin", "publisher": "Penguin"})
        assert not result.is_error, text_of(result)
        assert (await evaluate(client, "window.widgetState()"))["publisher"] == "Penguin Classics"
        result = await client.call("save_book", {"title": "x", "author": "Le Guin", "language": "Klingon"})
        assert result.is_error and "No option" in text_of(result)
        assert "close matches" in text_of(result) or "offered no options" in text_of(result)

        # the core interact tool fills them the same way (a date picker goes through the agent, even where
        # fill is real input by default)
        await client.call_ok("interact", {"action": "fill", "target": "css=#published", "text": "2025-03-04"})
        await client.call_ok("interact", {"action": "select", "target": "css=#author", "value": "Jane Austen"})
        state = await evaluate(client, "window.widgetState()")
        assert (state["published"], state["author"]) == (["2025-03-04"], ["Jane Austen"])


EDITOR_FORMS = {
    "cm5": "cm5.html",
    "cm6": "form-cm6.html",
    "ace": "form-ace.html",
    "monaco": "form-monaco.html",
    "prosemirror": "form-prosemirror.html",
}


async def test_editors_are_string_arguments(server_log: object, tmp_path: Path, pages: SiteServer) -> None:
    async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile"), **SETTINGS) as client:
        await client.call_ok("connect_browser", {"launch": True})
        for name, page in EDITOR_FORMS.items():
            await client.call_ok("open_tab", {"url": pages.url(f"editors/{page}")})
            await ready(client, "editorReady")
            field = "note" if name == "prosemirror" else "sql"
            tool = await tool_named(client, "run", field)
            props = tool.input_schema["properties"]
            assert list(props) == [field], (name, props)
            assert props[field]["type"] == "string"
            text = "select count(*) from orders\nwhere paid" if field == "sql" else "Dear all, the new note."
            result = await client.call("run", {field: text})
            assert not result.is_error, (name, text_of(result))
            if name == "cm5":  # CodeMirror 5 saves into its textarea as the form submits: the form's GET sent it
                assert "sql=select+count%28*%29+from+orders%0D%0Awhere+paid" in text_of(result)
            else:  # what the page read when the form was submitted
                assert await evaluate(client, "window.editorValue()") == text, name
            await client.call_ok("close_tab")
