"""list_changed carries news only: weighed against the list the client last read (notices.py), in the
pure rule and through the runtime's one notify path (the driver serves captures from a dict)."""

from __future__ import annotations

import json

import pytest
from tests.unit.test_runtime_refresh import SEARCH, TWO_FORMS, connected, make_runtime

from tabmcp.introspect.api import Face, ToolHints, check_args, served_description
from tabmcp.notices import ClientView, brings_news, relaxes
from tabmcp.state import ListedTool, Signature

CORE = ("snapshot", "interact")
PLAIN = ToolHints()


def listed(name: str, title: str | None, description: str, schema: str, hints: ToolHints = PLAIN) -> ListedTool:
    return ListedTool(name, Face(title, description, schema, hints))


SEARCH_T = listed("search", "Search", "Search the site", "{}")
SUBSCRIBE = listed("subscribe", "Subscribe", "Subscribe by email", "{}")


def sig(*page: ListedTool, core: tuple[str, ...] = CORE) -> Signature:
    return core, tuple(page)


def test_added_or_changed_tools_are_news_removed_ones_are_not() -> None:
    assert brings_news(sig(SEARCH_T), sig(SEARCH_T, SUBSCRIBE))
    assert brings_news(sig(SEARCH_T), sig(listed("search", "Search", "Search the site", '{"q": 1}')))
    assert brings_news(sig(SEARCH_T), sig(SEARCH_T, core=("snapshot",)))  # a new browser state
    assert not brings_news(sig(SEARCH_T, SUBSCRIBE), sig(SEARCH_T))
    assert not brings_news(sig(SEARCH_T, SUBSCRIBE), sig(SUBSCRIBE, SEARCH_T))  # the same tools
    assert not brings_news(sig(SEARCH_T), sig())


def test_a_client_view_sends_one_notice_per_read_and_news_only() -> None:
    view = ClientView()
    assert view.wants_notice(sig(SEARCH_T))  # never read: nothing to weigh against
    view.listed(sig(SEARCH_T))
    assert not view.wants_notice(sig(SEARCH_T))
    assert not view.wants_notice(sig())
    assert view.wants_notice(sig(SEARCH_T, SUBSCRIBE))
    view.notified()
    assert not view.wants_notice(sig(SUBSCRIBE))  # unread: the coming read brings the newest list
    view.listed(sig(SUBSCRIBE))
    assert view.had("subscribe") and not view.had("search")
    assert view.wants_notice(sig(SEARCH_T, SUBSCRIBE))


@pytest.mark.asyncio
async def test_the_runtime_notifies_a_client_that_read_the_list_of_news_only() -> None:
    runtime, driver, notified = make_runtime()
    driver.pages[1] = ("d1:0", TWO_FORMS)
    await connected(runtime, 1, focus=1)
    runtime.listed()
    assert [t.name for t in runtime.state.page_tools] == ["search_mail", "subscribe"]
    before = len(notified)

    driver.pages[1] = ("d1:1", SEARCH)  # a form went: nothing new to call
    await runtime.refresh_page_tools(1)
    assert [t.name for t in runtime.state.page_tools] == ["search_mail"]
    assert len(notified) == before

    driver.pages[1] = ("d1:2", TWO_FORMS)  # back as the client has it
    await runtime.refresh_page_tools(1)
    assert len(notified) == before

    driver.pages[1] = ("d1:3", TWO_FORMS.replace("Subscribe", "Join"))  # a new tool: news
    await runtime.refresh_page_tools(1)
    assert len(notified) == before + 1

    driver.pages[1] = ("d1:4", SEARCH.replace("Search mail", "Search letters"))
    await runtime.refresh_page_tools(1)
    assert len(notified) == before + 1  # the first notice is unread: its read brings this list

    runtime.listed()
    driver.pages[1] = ("d1:5", TWO_FORMS)
    await runtime.refresh_page_tools(1)
    assert len(notified) == before + 2


@pytest.mark.asyncio
async def test_before_any_read_every_change_is_sent() -> None:
    runtime, driver, notified = make_runtime()
    driver.pages[1] = ("d1:0", TWO_FORMS)
    await connected(runtime, 1, focus=1)
    before = len(notified)
    driver.pages[1] = ("d1:1", SEARCH)
    await runtime.refresh_page_tools(1)
    assert len(notified) == before + 1


BOXES = """<html><body><header><form action="/search" data-tabmcp-ref="e1">
<input name="q" aria-label="Search" data-tabmcp-ref="e2"></form></header>
<aside aria-label="Filters"><form action="/books" data-tabmcp-ref="e3">
<input type="search" name="term" aria-label="Search" data-tabmcp-ref="e4"></form></aside></body></html>"""


@pytest.mark.asyncio
async def test_a_tool_that_looks_the_same_keeps_its_name_and_sends_nothing() -> None:
    runtime, driver, notified = make_runtime()
    driver.pages[1] = ("d1:0", BOXES)
    await connected(runtime, 1, focus=1)
    runtime.listed()
    assert [t.name for t in runtime.state.page_tools] == ["search", "search_books"]
    before = len(notified)

    header = BOXES.split("<aside")[0] + "</body></html>"
    aside = "<html><body>" + BOXES.split("</header>")[1]
    driver.pages[1] = ("d1:1", aside)  # alone, the filter box would be "search": it stays search_books
    await runtime.refresh_page_tools(1)
    assert [t.name for t in runtime.state.page_tools] == ["search_books"]
    assert len(notified) == before

    driver.pages[1] = ("d1:2", header)
    await runtime.refresh_page_tools(1)
    assert [t.name for t in runtime.state.page_tools] == ["search"]
    assert len(notified) == before


def tool(
    schema: dict[str, object], *, description: str = "Fill and submit the form", hints: ToolHints = PLAIN
) -> ListedTool:
    return listed("execute", None, description, json.dumps(schema, sort_keys=True), hints)


def args(**properties: dict[str, object]) -> dict[str, object]:
    return {"type": "object", "properties": properties, "additionalProperties": False}


SQL = {"type": "string", "description": "SQL query", "minLength": 1}
STRICT = {**args(sql=SQL), "required": ["sql"]}


def test_a_relaxed_schema_is_no_news() -> None:
    held = tool(STRICT)
    served = {**SQL, "description": served_description("SQL query")}
    assert relaxes(held, tool(args(sql=served)))  # the page shows a value: the argument may be left out
    assert relaxes(held, tool({**args(sql={"type": "string", "minLength": 1}), "required": ["sql"]}))  # label lost
    assert relaxes(held, tool({**args(sql={"type": "string", "description": "SQL query"}), "required": ["sql"]}))
    assert relaxes(held, held)
    assert not brings_news(sig(held), sig(tool(args(sql=served))))


def test_a_changed_meaning_is_news() -> None:
    held = tool(STRICT)
    changed = [
        tool({**args(query=SQL), "required": ["query"]}),  # another argument name
        tool({**args(sql=SQL, limit={"type": "integer"}), "required": ["sql"]}),  # one more argument
        tool({**args(sql={**SQL, "description": "Table name"}), "required": ["sql"]}),  # another description
        tool({**args(sql={**SQL, "enum": ["a", "b"]}), "required": ["sql"]}),  # values bound by a list
        tool({**args(sql={**SQL, "type": "integer"}), "required": ["sql"]}),
        tool({**args(sql={**SQL, "maxLength": 5}), "required": ["sql"]}),  # a bound added
        tool({**args(sql=SQL), "required": ["sql"], "additionalProperties": True}),
        tool(STRICT, description="Fill and submit the form Run"),
        tool(STRICT, hints=ToolHints(destructive=True)),
    ]
    for now in changed:
        assert not relaxes(held, now), now
        assert brings_news(sig(held), sig(now)), now
    kinds = tool({**args(kind={"type": "string", "enum": ["a", "b"]}), "required": ["kind"]})
    assert not relaxes(kinds, tool({**args(kind={"type": "string", "enum": ["a", "c"]}), "required": ["kind"]}))
    assert not relaxes(tool(args(sql=SQL)), tool(STRICT))  # an argument made required: stricter
    assert not relaxes(tool(STRICT)._replace(name="run"), tool(STRICT))  # another tool


EDIT = """<html><body><form action="/save" method="post" data-tabmcp-ref="e1">
<label for="t">Title</label><input id="t" name="title" required data-tabmcp-ref="e2">
<button type="submit" data-tabmcp-ref="e3">Save</button></form></body></html>"""
EDIT_SERVED = EDIT.replace(
    'required data-tabmcp-ref="e2"',
    'required value="Notes" data-tabmcp-served="1" data-tabmcp-ref="e2"',
)


@pytest.mark.asyncio
async def test_a_field_the_page_now_serves_filled_in_sends_nothing_and_the_clients_call_runs() -> None:
    runtime, driver, notified = make_runtime()
    driver.pages[1] = ("d1:0", EDIT)
    await connected(runtime, 1, focus=1)
    runtime.listed()
    (held,) = runtime.state.page_tools
    assert held.schema["required"] == ["title"]
    before = len(notified)

    driver.pages[1] = ("d1:1", EDIT_SERVED)
    await runtime.refresh_page_tools(1)
    (now,) = runtime.state.page_tools
    assert now.name == held.name and "required" not in now.schema and now.face() != held.face()
    assert len(notified) == before
    assert check_args(now, {"title": "Field notes"}) == {"title": "Field notes"}  # the client's copy's call

    driver.pages[1] = ("d1:2", EDIT)  # back as the client has it
    await runtime.refresh_page_tools(1)
    assert len(notified) == before
    driver.pages[1] = ("d1:3", EDIT.replace('name="title"', 'name="heading"'))  # another argument: news
    await runtime.refresh_page_tools(1)
    assert len(notified) == before + 1
