"""A tool that looks the same on the next page keeps the name the client knows it by
(introspect/continuity.py): Wagtail's sidebar search is ``search`` alone on the editor and
``search_all_pages`` beside the explorer's own box; over the saved captures, in both directions."""

from __future__ import annotations

import json

import pytest
from bench.apps.capture import saved_captures

from tabmcp.introspect.api import PageTool
from tabmcp.introspect.continuity import keep_known_names
from tabmcp.introspect.registry import Registry
from tabmcp.tools.catalog import CATALOG

RESERVED = frozenset(t.name for t in CATALOG)


def tools(page: str, after: tuple[PageTool, ...] = ()) -> tuple[PageTool, ...]:
    made = Registry.discover().page_tools(saved_captures("wagtail")[page], reserved=RESERVED)
    return keep_known_names(made, {t.face(): t.name for t in after}, reserved=RESERVED)


def sidebar_search(listed: tuple[PageTool, ...]) -> PageTool:
    return next(t for t in listed if "in the page's sidebar" in t.description and t.source == "search")


def looks(tool: PageTool) -> tuple[object, ...]:
    return (tool.name, *tool.face())


@pytest.mark.parametrize(("first", "then"), [("explorer", "edit"), ("edit", "explorer")])
def test_the_sidebar_search_keeps_its_name_from_page_to_page(first: str, then: str) -> None:
    before = tools(first)
    alone = tools(then)
    assert sidebar_search(alone).name != sidebar_search(before).name  # named afresh, it would change
    after = tools(then, before)
    assert looks(sidebar_search(after)) == looks(sidebar_search(before))
    names = [t.name for t in after]
    assert len(set(names)) == len(names) and not set(names) & RESERVED
    renamed = {t.name for t in after} - {t.name for t in alone}
    # besides the sidebar's search, only the page's own search (its plain name kept by the sidebar's) is renamed
    others = renamed - {sidebar_search(before).name}
    assert len(others) <= 1 and all(n.startswith("search_") for n in others), renamed


def test_nothing_known_changes_nothing() -> None:
    plain = tools("search")
    assert tools("search", ()) == plain
    assert [json.dumps(t.face(), default=str) for t in tools("search", plain)] == [
        json.dumps(t.face(), default=str) for t in plain
    ]


def wiki(page: str, read: tuple[PageTool, ...] = ()) -> tuple[PageTool, ...]:
    """Otter Wiki's tools for ``page`` after the client read ``read`` on the page before."""
    made = Registry.discover().page_tools(saved_captures("otterwiki")[page], reserved=RESERVED)
    return keep_known_names(
        made, {t.face(): t.name for t in read}, reserved=RESERVED, held={t.name: t.face() for t in read}
    )


def named(listed: tuple[PageTool, ...], name: str) -> PageTool:
    return next(t for t in listed if t.name == name)


def test_a_name_the_client_holds_keeps_its_meaning_from_page_to_page() -> None:
    page = wiki("page")
    box = named(page, "search")
    assert box.schema["required"] == ["query"] and box.hints.read_only
    assert [t.name for t in wiki("search") if t.source == "search"] == ["search"]  # alone, the plain name

    results = wiki("search", page)  # the search page's own form with options is another control
    form = next(t for t in results if t.source == "search")
    assert form.name == "search_term" and "is_regexp" in form.schema["properties"]
    assert "search" not in {t.name for t in results}
    assert looks(named(wiki("page", results), "search")) == looks(box)  # back: the box, as it was

    editor = wiki("edit", page)  # the editor's own Search button works the editor: no tool (chrome.py)
    assert not [t for t in editor if t.title == "Search"]
    assert looks(named(wiki("page", editor), "search")) == looks(box)
    names = [t.name for t in editor]
    assert len(set(names)) == len(names) and not set(names) & RESERVED


def test_a_tool_that_keeps_its_title_and_hints_keeps_its_name() -> None:
    page = wiki("page")
    box = named(page, "search")
    grown = PageTool(
        name="search",
        title=box.title,
        description=box.description,
        input_schema={**box.schema, "properties": {**box.schema["properties"], "in_titles": {"type": "boolean"}}},
        plan=box.plan,
        hints=box.hints,
        qualifiers=box.qualifiers,
    )
    (kept,) = keep_known_names((grown,), {}, reserved=RESERVED, held={t.name: t.face() for t in page})
    assert kept.name == "search"  # one more option on the same box: news, under the same name
