"""The rows of a list that open something become ``open_row(row)``, the row chosen by its text.

A search or list page's rows usually open a page of their own: the title cell's link, a result's
heading link, or (an app's message list) the row itself, clicked as a whole. The page agent finds
the list and each row's opener when it captures the page (``extension/agent/rowlinks.js``) and marks
the openers ``data-tabmcp-list='open'``, the first ``open:<css>`` with a selector that finds one
opener in each row. The tool's one argument is the row's text, matched when the tool runs
(``Target(css=…, row=text)``, rows.py): the schema names no row, so another search, another page of
the list or an empty list keeps the same tool. The call clicks the opener as a person would, and
its answer is the page it lands on.

No tool is made where the page already opens the list's items by their key (a "Show issue:
[number]" box over a list of issues): that tool opens the same rows, and two tools for one job make
the model guess. A box counts when it sits with the list (not in the site's navigation, header,
sidebar or footer) or names the kind of item the list's rows open (the box's "issue" in the rows'
addresses, ``issue12``); a site-wide box for another kind (issues, on a list of users) does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice
from urllib.parse import unquote, urljoin, urlsplit

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
_OPENS_BY_KEY = re.compile(r"^\s*(?:show|open|go to|jump to|view|display)\s+(\w+)", re.I)
_SEARCHY = re.compile(r"search|find|query|filter|^q$", re.I)
# The site's own frame around every page: a box there serves the whole site, not this list.
_SITE_WIDE = XPath(
    "ancestor::*[self::nav or self::header or self::footer or self::aside or @role='navigation' "
    "or @role='banner' or @role='contentinfo' or @role='complementary']"
)
# Through the mark's attribute nodes: a test on every element costs ~14x as much.
_OPENERS = XPath(f"//@{LIST_ATTR}[.='open' or starts-with(., '{OPEN_MARK}')]/..")
_WORDS = re.compile(r"[^\W\d_]+")


def key_boxes(capture: PageCapture) -> list[tuple[HtmlElement, str]]:
    """The page's forms that open one item by its key (number, id, name) typed into one box, each
    with the kind of item its button names ("Show issue:" → ``issue``)."""
    found = []
    for form in _GET_FORMS(capture.tree):
        if capture.is_hidden(form):
            continue
        boxes = [box for box in _TEXT_INPUTS(form) if not capture.is_hidden(box)]
        if len(boxes) != 1 or _SEARCHY.search(f"{boxes[0].get('name', '')} {boxes[0].get('placeholder', '')}"):
            continue
        kinds = [m.group(1) for b in _SUBMITS(form) if (m := _OPENS_BY_KEY.match(_button_text(b)))]
        if kinds:
            found.append((form, kinds[0]))
    return found


def _singular(word: str) -> str:
    word = word.lower()
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _opened_kinds(capture: PageCapture) -> set[str] | None:
    """The words of the addresses the list's rows open (``issue12`` → issue), singular; None when the
    openers have no address (rows clicked as a whole): what the rows are is not known."""
    words: set[str] = set()
    for opener in islice(_OPENERS(capture.tree), 20):
        link = opener if opener.get("href") else next(iter(opener.iterfind(".//a[@href]")), None)
        if link is None:
            return None
        path = urlsplit(urljoin(capture.url, link.get("href", ""))).path
        words.update(_singular(w) for w in _WORDS.findall(unquote(path)))
    return words or None


def opens_by_key(capture: PageCapture) -> bool:
    """A box on the page opens the list's items by their key: it sits with the list (not in the site's
    navigation, header, sidebar or footer), or it names the kind of item the rows open (or what the
    rows open is not known)."""
    boxes = key_boxes(capture)
    if not boxes:
        return False
    opened = _opened_kinds(capture)
    return any(not _SITE_WIDE(form) or opened is None or _singular(kind) in opened for form, kind in boxes)


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
