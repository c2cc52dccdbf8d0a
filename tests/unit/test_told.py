"""The static mode's page tools told in answers: what a client was told against the page's tools now
(told.py), the block an answer carries (server.with_page_tools_news, page_proxy.page_tools_news), and
the task bench's model taking them from answers (bench/task_meter.py). Pure: no browser."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import mcp_types as types
from bench.mcp_stdio import Call
from bench.task_meter import Meter

from tabmcp.introspect.api import PageTool, ToolHints
from tabmcp.results import json_result
from tabmcp.server import with_page_tools_news
from tabmcp.sessions import SessionRegistry
from tabmcp.told import Told
from tabmcp.tools.listing import page_tool_listing
from tabmcp.tools.page_proxy import NEWS_KEY, UNTRUSTED_NOTE, listing, page_tools_news


def tool(name: str, description: str = "Do it.", **fields: Any) -> PageTool:
    schema = fields.pop("input_schema", {"type": "object", "properties": {}})
    return PageTool(name=name, description=description, input_schema=schema, plan=(), **fields)


SEARCH = tool("search_books", "Search the books by title.", input_schema={
    "type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]})  # fmt: skip
DELETE = tool("delete_book", "Delete a book by the title its row shows.", hints=ToolHints(destructive=True))
LOG_IN = tool("log_in", "Log in.")


def test_a_client_told_nothing_gets_every_tool() -> None:
    delta = Told().delta((SEARCH, DELETE))
    assert delta.new == (SEARCH, DELETE) and delta.gone == () and delta


def test_tools_told_as_they_are_are_not_told_again() -> None:
    told = Told()
    told.tell((SEARCH, DELETE))
    assert not told.delta((SEARCH, DELETE))
    assert not told.delta((DELETE, SEARCH))  # the order is no news


def test_a_tool_redefined_under_its_name_is_told_again_a_lost_one_is_gone() -> None:
    told = Told()
    told.tell((SEARCH, LOG_IN))
    wider = tool("search_books", "Search the books by title or author.", input_schema=SEARCH.schema)
    delta = told.delta((wider, DELETE))
    assert delta.new == (wider, DELETE) and delta.gone == ("log_in",)
    told.tell((wider, DELETE))
    assert not told.delta((wider, DELETE))
    # once told gone, a tool back again is news
    assert told.delta((wider, DELETE, LOG_IN)).new == (LOG_IN,)


def test_the_focus_lost_tells_every_tool_gone() -> None:
    told = Told()
    told.tell((SEARCH,))
    delta = told.delta(())
    assert delta.new == () and delta.gone == ("search_books",) and delta


def test_news_lists_tools_as_list_page_tools_does_and_marks_page_written_ones() -> None:
    page_written = tool("page_navigate", "Go somewhere.", title="Page: Navigate", untrusted=True)
    told = Told()
    told.tell((LOG_IN,))
    news = page_tools_news(told.delta((SEARCH, page_written)))
    assert news["tools"] == [listing(SEARCH), listing(page_written)]
    assert news["tools"][0] == page_tool_listing(SEARCH).model_dump(mode="json", by_alias=True, exclude_none=True)
    assert news["tools"][1]["untrusted"] is True and news["note"] == UNTRUSTED_NOTE
    assert news["gone"] == ["log_in"] and "call_page_tool" in news["hint"]
    only_gone = page_tools_news(told.delta(()))
    assert "tools" not in only_gone and "note" not in only_gone and only_gone["gone"] == ["log_in"]


def text_result(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


def test_an_answer_carries_what_changed_once() -> None:
    told = Told()
    answered = with_page_tools_news(text_result("results[1]: a"), told, (SEARCH,))
    first, block = answered.content
    assert first.text == "results[1]: a"
    assert json.loads(block.text) == {NEWS_KEY: page_tools_news(Told().delta((SEARCH,)))}
    assert answered.structured_content is None
    # the next answer on the same page carries nothing more
    again = text_result("results[2]: a,b")
    assert with_page_tools_news(again, told, (SEARCH,)) is again


def test_a_json_answer_carries_it_in_its_structured_content_too() -> None:
    told = Told()
    answered = with_page_tools_news(json_result({"focused": True}), told, (SEARCH, DELETE))
    assert json.loads(answered.content[0].text) == {"focused": True}
    news = json.loads(answered.content[1].text)[NEWS_KEY]
    assert answered.structured_content == {"focused": True, NEWS_KEY: news}
    assert [t["name"] for t in news["tools"]] == ["search_books", "delete_book"]


class Answers:
    """A StdioServer stand-in: each call answers the next of ``answers`` (its text blocks)."""

    list_changed = 0

    def __init__(self, *answers: tuple[str, ...]) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[str, dict[str, Any] | None]] = []

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> Call:
        self.calls.append((name, arguments))
        parts = self.answers.pop(0)
        return Call("".join(parts), 0.01, {}, parts)


def told_block(told: Told, *tools: PageTool) -> str:
    text = json.dumps({NEWS_KEY: page_tools_news(told.delta(tools))}, ensure_ascii=False)
    told.tell(tools)
    return text


async def test_the_bench_model_takes_page_tools_from_answers_and_calls_them_by_the_proxy() -> None:
    told = Told()
    connected = '{"connected": true}'
    server = Answers((connected, told_block(told, SEARCH, LOG_IN)), ("results[1]: a", told_block(told, SEARCH, DELETE)))
    meter = Meter(server, static=True)  # type: ignore[arg-type]
    assert await meter.call("connect_browser", {"launch": True}) == connected  # the block is the model's, not the text
    assert list(meter.listed()) == ["search_books", "log_in"]
    assert meter.listed()["search_books"]["inputSchema"]["required"] == ["query"]
    assert await meter.call("search_books", {"query": "x"}) == "results[1]: a"
    assert server.calls[1] == ("call_page_tool", {"name": "search_books", "arguments": {"query": "x"}})
    assert list(meter.listed()) == ["search_books", "delete_book"]
    first, second = meter.entries
    assert first.change == "+search_books +log_in" and first.told_chars == first.chars - len(connected)
    assert second.name == "call_page_tool search_books" and second.chars > len("results[1]: a")
    assert second.change == "+delete_book -log_in"


async def test_the_bench_model_takes_a_listing_whole() -> None:
    listed = json.dumps({"focusedTab": {"id": 1}, "tools": [listing(DELETE)]})
    meter = Meter(Answers((told_block(Told(), SEARCH),), (listed,)), static=True)  # type: ignore[arg-type]
    await meter.call("connect_browser", {})
    await meter.call("list_page_tools")
    assert list(meter.listed()) == ["delete_book"]


async def test_each_session_is_told_apart_and_forgotten_with_its_connection() -> None:
    from tests.unit.test_workspaces import FakeSession

    def ctx(session: FakeSession, sid: str) -> Any:
        return SimpleNamespace(session=session, request=SimpleNamespace(headers={"mcp-session-id": sid}))

    registry = SessionRegistry()
    alice, bob = FakeSession(), FakeSession()
    assert registry.told(ctx(alice, "a")) is None  # not remembered: the caller keeps it per workspace
    registry.remember(ctx(alice, "a"), "name:team", static=True)
    registry.remember(ctx(bob, "b"), "name:team", static=True)
    told = registry.told(ctx(alice, "a"))
    assert told is not None and told is registry.told(ctx(alice, "a"))
    told.tell((SEARCH,))
    other = registry.told(ctx(bob, "b"))
    assert other is not None and other.delta((SEARCH,)).new == (SEARCH,)  # one workspace, told apart
    await alice._connection.exit_stack.aclose()  # the connection ends
    assert registry.told(ctx(alice, "a")) is None
