"""A list page that shows no rows keeps the list's tools. Pure: no I/O.

The tools of a list (``open_row(row)``, a row action taking ``rows``, ``browse_list``) are made from
its rows: the page agent finds the openers in them, the sortable headers over them. A search with
no hits lands on the same page with none, often with no list left at all (a "No match found."
heading where the results were), so the list's tools would go and come back with the next search
that finds something: each time a different tool list for the same kind of page. Here a tab
remembers, for each kind of page it showed (origin and path: the same page whatever the query),
the list tools it had with rows; a capture of that kind that shows an empty list (a data table with
its headers and no rows, or a "no results" message) gets them back as they were listed, in place of
what it still makes of them from what is left (a ``browse_list`` without the headers' sort). Their
plans still name the rows by their text, so a call says no row shows it.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from lxml.etree import XPath
from lxml.html import HtmlElement

from tabmcp.introspect.api import PageTool, RowText
from tabmcp.introspect.lists import ListIntrospector
from tabmcp.page.capture import PageCapture

KINDS_PER_TAB = 8  # the list pages a tab remembers (the search, the inbox, the user list…)
TABS = 64
MESSAGE_MAX = 160  # a "no results" message is a line, not a paragraph that mentions it
# "No match found.", "Sorry, no pages match x", "0 items", "No results for x", "Nothing found"
_EMPTY = re.compile(
    r"\b(?:no|0|zero)\s+(?:[\w-]+\s+){0,2}?(?:results?|match(?:es|ing)?|hits?|items?|entries|records|rows|found)\b"
    r"|\bnothing\s+(?:found|match\w*|to\s+show)\b",
    re.IGNORECASE,
)
_MAIN = XPath("(//main | //*[@role='main'])[1]")
_MESSAGES = XPath(
    ".//*[self::h1 or self::h2 or self::h3 or self::h4 or self::h5 or self::h6 or self::p or self::li or self::td "
    "or self::caption or self::strong or self::em or @role='alert' or @role='status' "
    "or ((self::div or self::span) and not(*))]"
)
_TABLES = XPath(".//table")


def page_kind(url: str) -> str:
    """Pages of one kind: the same origin and path (a search's query, a list's page, a hash route aside)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


def is_list_tool(tool: PageTool) -> bool:
    """A tool made from a list's rows: it takes rows by their text, or moves the list (browse_list)."""
    return tool.source == ListIntrospector.name or any(isinstance(s.target, RowText) for s in tool.plan)


def _takes_rows(tool: PageTool) -> bool:
    return any(isinstance(s.target, RowText) for s in tool.plan)


def shows_empty_list(capture: PageCapture) -> bool:
    """The page's main part shows a list with no rows: a data table with its header row (two named
    columns at least) and no other, or a short "no results" message."""
    found = _MAIN(capture.tree)
    scope: HtmlElement = found[0] if found else capture.tree
    for table in _TABLES(scope):
        if next(table.iterancestors("table"), None) is not None:
            continue  # a table inside a table's cell lays out its footer (a pager), it is no list
        rows = [r for r in table.iter("tr") if next(r.iterancestors("table"), None) is table]
        headed = bool(rows) and sum(c.tag == "th" and bool(c.text_content().strip()) for c in rows[0]) >= 2
        if headed and not any(c.tag == "td" for r in rows for c in r) and not capture.is_hidden(table):
            return True
    for el in _MESSAGES(scope):
        text = " ".join(el.text_content().split())
        if text and len(text) <= MESSAGE_MAX and _EMPTY.search(text) and not capture.is_hidden(el):
            return True
    return False


@dataclass
class ListMemory:
    """Per tab, the list tools each kind of page had with rows (the latest of that kind)."""

    _tabs: OrderedDict[int, OrderedDict[str, tuple[PageTool, ...]]] = field(default_factory=OrderedDict)

    def keep(self, tab_id: int, capture: PageCapture, tools: tuple[PageTool, ...]) -> tuple[PageTool, ...]:
        """``tools`` of ``capture``, with the list tools its kind of page had with rows added back when it
        shows an empty list and lacks them; remembers them when it has rows."""
        kind = page_kind(capture.url)
        kinds = self._tabs.setdefault(tab_id, OrderedDict())
        self._tabs.move_to_end(tab_id)
        while len(self._tabs) > TABS:
            self._tabs.popitem(last=False)
        listed = tuple(t for t in tools if is_list_tool(t))
        if any(_takes_rows(t) for t in listed):  # rows shown: this is what the kind of page has
            kinds[kind] = listed
            kinds.move_to_end(kind)
            while len(kinds) > KINDS_PER_TAB:
                kinds.popitem(last=False)
            return tools
        remembered = kinds.get(kind)
        if not remembered or not shows_empty_list(capture):
            return tools
        # a list tool the page still makes from what is left (browse_list without the headers' sort)
        # is the one made with rows; one it no longer makes comes back
        by_name = {t.name: t for t in remembered}
        kept = tuple(by_name[t.name] if t.name in by_name and is_list_tool(t) else t for t in tools)
        names = {t.name for t in tools}
        return kept + tuple(t for t in remembered if t.name not in names)

    def forget(self, tab_id: int) -> None:
        self._tabs.pop(tab_id, None)
