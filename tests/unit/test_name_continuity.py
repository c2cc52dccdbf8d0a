"""A tool that looks the same on the next page keeps the name the client knows it by
(introspect/continuity.py): Wagtail's sidebar search is ``search`` alone on the editor and
``search_sidebar`` beside the search page's own box; over the saved captures, in both directions."""

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


@pytest.mark.parametrize(("first", "then"), [("search", "edit"), ("edit", "search")])
def test_the_sidebar_search_keeps_its_name_from_page_to_page(first: str, then: str) -> None:
    before = tools(first)
    alone = tools(then)
    assert sidebar_search(alone).name != sidebar_search(before).name  # named afresh, it would change
    after = tools(then, before)
    assert looks(sidebar_search(after)) == looks(sidebar_search(before))
    names = [t.name for t in after]
    assert len(set(names)) == len(names) and not set(names) & RESERVED
    renamed = {t.name for t in after} - {t.name for t in alone}
    assert renamed <= {sidebar_search(before).name, "search_header"}


def test_nothing_known_changes_nothing() -> None:
    plain = tools("search")
    assert tools("search", ()) == plain
    assert [json.dumps(t.face(), default=str) for t in tools("search", plain)] == [
        json.dumps(t.face(), default=str) for t in plain
    ]
