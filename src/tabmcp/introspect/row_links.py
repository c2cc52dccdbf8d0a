"""The rows of a list that open something become ``open_row(row)``, the row chosen by its text.

A search or list page's rows usually open a page of their own: the title cell's link, a result's
heading link, or (an app's message list) the row itself, clicked as a whole. The page agent finds
the list and each row's opener when it captures the page (``extension/agent/rowlinks.js``) and marks
the openers ``data-tabmcp-list='open'``, the first ``open:<css>`` with a selector that finds one
opener in each row. The tool's one argument is the row's text, matched when the tool runs
(``Target(css=…, row=text)``, rows.py): the schema names no row, so another search, another page of
the list or an empty list keeps the same tool. The call clicks the opener as a person would, and
its answer is the page it lands on.

No tool is made where the page already opens an item by its key (a "Show issue: [number]" box):
that tool opens the same rows, and two tools for one job make the model guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice

from lxml.etree import XPath
from lxml.html import HtmlElement

from tabmcp.introspect.api import Introspector, PageTool, PlanStep, RowText, ToolHints
from tabmcp.introspect.lists import LIST_ATTR
from tabmcp.introspect.text import UNTRUSTED_NOTE
from tabmcp.page.capture import PageCapture, label_text

ROW_ARG = "row"
TOOL_NAME = "open_row"
OPEN_MARK = "open:"
ROW_DEPTH = 2  # ancestors of the opener that may stand for its row
_FIRST_OPENER = XPath(f"//@{LIST_ATTR}[starts-with(., '{OPEN_MARK}')]/..")
# A form that opens one item by what is typed: a GET form with one text box and a button saying so
# ("Show issue:", "Open ticket", "Go to page"), not a search ("Search", "Go").
_GET_FORMS = XPath("//form[not(@method) or translate(@method, 'GET', 'get')='get']")
_TYPE = "translate(@type, 'TEXNUMBR', 'texnumbr')"
_TEXT_INPUTS = XPath(f".//input[not(@type) or {_TYPE}='text' or {_TYPE}='number']")
_SUBMITS = XPath(".//button | .//input[translate(@type, 'SUBMIT', 'submit')='submit']")
_OPENS_BY_KEY = re.compile(r"^\s*(show|open|go to|jump to|view|display)\s+\w+", re.I)
_SEARCHY = re.compile(r"search|find|query|filter|^q$", re.I)


def opens_by_key(capture: PageCapture) -> bool:
    """The page has a form that opens one item by its key (number, id, name) typed into one box."""
    for form in _GET_FORMS(capture.tree):
        if capture.is_hidden(form):
            continue
        boxes = [box for box in _TEXT_INPUTS(form) if not capture.is_hidden(box)]
        if len(boxes) != 1 or _SEARCHY.search(f"{boxes[0].get('name', '')} {boxes[0].get('placeholder', '')}"):
            continue
        if any(_OPENS_BY_KEY.match(_button_text(b)) for b in _SUBMITS(form)):
            return True
    return False


def _ref_of(capture: PageCapture, el: HtmlElement) -> str | None:
    """The ref of ``el`` or of a close ancestor (its row) with one; a row drawn as a plain element may
    have none, and an ancestor further up would hold more than the list."""
    for node in (el, *islice(el.iterancestors(), ROW_DEPTH)):
        if ref := capture.ref(node):
            return ref
    return None


def _button_text(button: HtmlElement) -> str:
    return (button.get("value") or "") if button.tag == "input" else label_text(button)


@dataclass
class RowLinksIntrospector(Introspector):
    name: str = "row_links"
    kind: str = "generic"

    def tools(self, capture: PageCapture) -> list[PageTool]:
        first = next(iter(_FIRST_OPENER(capture.tree)), None)
        if first is None:
            return []
        selector = (first.get(LIST_ATTR) or "").removeprefix(OPEN_MARK).strip()
        if not selector or opens_by_key(capture):
            return []
        schema = {
            "type": "object",
            "properties": {
                ROW_ARG: {
                    "type": "string",
                    "minLength": 1,
                    "description": (
                        "The row to open, by a text shown in it (its title or name as the list shows it); a cell "
                        "or link saying exactly that wins over a row containing it"
                    ),
                }
            },
            "required": [ROW_ARG],
            "additionalProperties": False,
        }
        return [
            PageTool(
                name=TOOL_NAME,
                title="Open a row by what it shows",
                description=(
                    "Open one row of the page's main list (its title link, or the row itself where the row is "
                    "clicked), the row chosen by a text it shows. Returns the page it opens; when no row or "
                    f"several show the text, an error lists the closest rows. {UNTRUSTED_NOTE}"
                ),
                input_schema=schema,
                plan=(PlanStep("click", target=RowText(ROW_ARG, selector)),),
                hints=ToolHints(read_only=True, destructive=False, idempotent=True),
                source=self.name,
                # the first row's opener: a site's own tool for the list (its element around it) keeps the job
                element_ref=_ref_of(capture, first),
                rank=18,
            )
        ]
