"""The generic list introspector: a page's main list that has pages, sortable columns or a page size
becomes ``browse_list(page, sort, order, per_page)``.

The page agent finds those parts when it captures the page (``extension/agent/lists.js``) and marks
them ``data-tabmcp-list``: ``pager`` (a numbered, next or previous link), ``more`` (a "Load more"
button), ``long`` (a list with more rows than one answer holds and no pagination: read 100 rows a
page), ``sort:<column>`` (a sortable column header), ``perpage`` (the page-size select) and
``perpage:<size>`` (a page-size link); ``open`` marks are the rows' openers (row_links.py). The
arguments are made from the marks alone: column names and page sizes are the page's structure, never
its rows, so the same kind of page keeps the same tool. At call time the plan's one ``browse`` step
moves the list there through the page's own links and controls, and the answer (tools/page_tools.py)
gives the rows and says how to reach the next page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lxml.etree import XPath

from tabmcp.introspect.api import ALL_ARGS, Introspector, PageTool, PlanStep, ToolHints
from tabmcp.introspect.text import UNTRUSTED_NOTE, clean
from tabmcp.page.capture import PageCapture, label_text

LIST_ATTR = "data-tabmcp-list"
# the rows' openers (``open``) are row_links.py's: they give no list arguments
_MARKED = XPath(f"//@{LIST_ATTR}[not(starts-with(., 'open'))]/..")
MAX_CHOICE = 40
MAX_CHOICES = 30
TOOL_NAME = "browse_list"
PAGE_NOTE = "the answer says whether there are more pages and how to get the next"


@dataclass
class ListIntrospector(Introspector):
    name: str = "lists"
    kind: str = "generic"

    def tools(self, capture: PageCapture) -> list[PageTool]:
        marked = _MARKED(capture.tree)
        if not marked:
            return []
        sorts: list[str] = []
        sizes: list[str] = []
        for el in marked:
            mark = el.get(LIST_ATTR) or ""
            if mark.startswith("sort:"):
                _add(sorts, mark.removeprefix("sort:"))
            elif mark == "perpage" and el.tag == "select":
                for option in el.iter("option"):
                    _add(sizes, label_text(option))
            elif mark.startswith("perpage:"):
                _add(sizes, mark.removeprefix("perpage:"))
        properties: dict[str, dict[str, Any]] = {
            "page": {
                "type": "integer", "minimum": 1,
                "description": f"The page of the list to show, 1 first; {PAGE_NOTE}",
            },
        }
        offers = ["pages"]
        if sorts:
            properties["sort"] = {"type": "string", "enum": sorts, "description": "The column to sort the list by"}
            properties["order"] = {
                "type": "string",
                "enum": ["ascending", "descending"],
                "description": "The sort order (with sort; else the page's own order for that column)",
            }
            offers.append("sorting by a column")
        if sizes:
            properties["per_page"] = {"type": "string", "enum": sizes, "description": "How many rows a page shows"}
            offers.append("a page size")
        description = (
            f"Move through the page's main list with its own controls ({', '.join(offers)}); arguments left out "
            f"stay as the page shows them. Returns the list's rows on that page and whether more pages follow. "
            f"{UNTRUSTED_NOTE}"
        )
        schema = {"type": "object", "properties": properties, "additionalProperties": False}
        return [
            PageTool(
                name=TOOL_NAME,
                title="Browse the list",
                description=description,
                input_schema=schema,
                plan=(PlanStep("browse", args=ALL_ARGS),),
                hints=ToolHints(read_only=True, idempotent=True),
                source=self.name,
                rank=15,
            )
        ]


def _add(choices: list[str], text: str) -> None:
    value = clean(text, MAX_CHOICE)
    if value and value not in choices and len(choices) < MAX_CHOICES:
        choices.append(value)
