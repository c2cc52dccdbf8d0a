"""The rows of a list page, taken by what a person sees in them.

A list page repeats one control per row: a checkbox to select the row for a bulk action, a small
form ("Delete") in each row. Listed one by one they would be live data (the rows' ids in an enum, a
``delete_record`` per row, each search or page a new tool list); here each repeated control becomes
one argument, the row's text, which the page agent matches when the tool runs
(``Target(css=…, row=text)``: a cell saying exactly that first, else a row containing it, and an error
naming the closest rows when none does). The tool's schema then names no row, so a search, a filter
or the next page keeps the same tool.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lxml.etree import XPath
from lxml.html import HtmlElement

from tabmcp.introspect.api import Introspector, PageTool, PlanStep, RowText, ToolHints
from tabmcp.introspect.text import UNTRUSTED_NOTE
from tabmcp.page.capture import PageCapture

ROWS_ARG = "rows"  # the rows a bulk action selects
ROW_ARG = "row"  # the row whose own form a tool submits
_ROW_TAGS = frozenset({"tr", "li", "article"})
_ROW_ROLES = frozenset({"row", "listitem", "article"})
_LIST_TAGS = frozenset({"form", "table", "ul", "ol", "body"})


def row_of(el: HtmlElement) -> HtmlElement | None:
    """The table row, list item or article ``el`` is one control of, or None."""
    for ancestor in el.iterancestors():
        if ancestor.tag in _ROW_TAGS or ancestor.get("role") in _ROW_ROLES:
            return ancestor
        if ancestor.tag in _LIST_TAGS:
            return None
    return None


_NOT_TYPED = frozenset({"hidden", "checkbox", "radio", "submit", "button", "reset", "image"})


def _typed_into(cell: HtmlElement) -> bool:
    """The cell holds a field to type into or choose from (not a tick box, a button or a hidden value)."""
    return any(
        el.tag != "input" or (el.get("type") or "text").strip().lower() not in _NOT_TYPED
        for el in cell.iter("input", "select", "textarea")
    )


def edited_in_place(row: HtmlElement) -> bool:
    """A table row that shows its record, with a column or a few edited in place (a quantity beside a
    name, a price and a date): at least twice as many cells of text as cells with fields. A row of
    mostly fields is a form's layout (a row of an inline formset), its fields the form's own."""
    if row.tag != "tr":
        return False
    fields = text = 0
    for cell in row.iterchildren("td", "th"):
        if _typed_into(cell):
            fields += 1
        elif (cell.text_content() or "").strip():
            text += 1
    return fields > 0 and text >= 2 * fields


def in_data_table(row: HtmlElement) -> bool:
    """A body row of a table whose columns are named (``thead`` or ``th scope=col``): a data table,
    not a layout table holding a form."""
    parent = row.getparent()
    if row.tag != "tr" or parent is None or parent.tag == "thead":
        return False
    table = next(row.iterancestors("table"), None)
    return table is not None and (table.find(".//thead") is not None or table.find(".//th[@scope='col']") is not None)


def one_per_row(elements: list[HtmlElement]) -> bool:
    """Each element in its own row: several of them, or one in a data table's body row (the same list
    with a single match keeps the same tool)."""
    rows = [row_of(el) for el in elements]
    if not rows or any(r is None for r in rows) or len(set(rows)) != len(rows):
        return False
    return len(rows) > 1 or in_data_table(rows[0])  # type: ignore[arg-type]


def _values_shown(boxes: list[HtmlElement]) -> bool:
    """The boxes' values are words their rows show ("title" in the row "Title ☐ show"): choices a
    person reads, which stay an enum, not rows picked by their text. Row keys ("7", "WzFd") are
    not shown. Only the rows the capture kept with their text are looked at."""
    seen = False
    for box in boxes:
        value = _letters(box.get("value") or "on")
        if not value or value.isdigit():
            return False  # a number is a row's id, whatever the row shows
        row = row_of(box)
        text = _letters(row.text_content()) if row is not None else ""
        if not text:
            continue  # a row past the capture's sample: its text is not here
        seen = True
        if value not in text:  # "assignedto" is shown as "Assigned to:"
            return False
    return seen


def _letters(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).lower()


def attribute_selector(name: str, value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name}="{escaped}"]'


def row_boxes(form: HtmlElement, raw: str, boxes: list[HtmlElement]) -> str:
    """The CSS selector of a group of row checkboxes (one per row, all named ``raw``), or "" when the
    group is not one."""
    if not one_per_row(boxes) or _values_shown(boxes):
        return ""
    inside = all(form in box.iterancestors("form") for box in boxes)  # else tied to it by form="id"
    scope = f"form{attribute_selector('id', form.get('id'))} " if form.get("id") and inside else ""
    return f'{scope}input[type="checkbox"]{attribute_selector("name", raw)}'


def row_group(name: str, selector: str) -> tuple[dict[str, Any], list[PlanStep]]:
    """The rows to act on, by a text each shows, matched in the page when the tool runs."""
    schema: dict[str, Any] = {
        "type": "array",
        "items": {"type": "string", "minLength": 1},
        "minItems": 1,
        "uniqueItems": True,
        "description": (
            "The rows to select, each by a text shown in it (a title or name as the list shows it); "
            "a cell saying exactly that wins over a row containing it"
        ),
    }
    return schema, [PlanStep("check", target=RowText(name, selector), value=True)]


def row_argument() -> dict[str, Any]:
    return {
        "type": "string",
        "minLength": 1,
        "description": "The row to act on, by a text shown in it (a title or name as the list shows it)",
    }


def row_forms(forms: list[HtmlElement]) -> str:
    """The CSS selector that finds these forms (the same form repeated in each row of a list), or ""
    when they are not one per row."""
    if not (one_per_row(forms) or _keyed_row_form(forms)):
        return ""
    first = forms[0]
    selector = "form"
    for attr in ("action", "method"):
        if first.get(attr) is not None:
            selector += attribute_selector(attr, first.get(attr))
    if selector == "form":
        selector = "tr form" if first.iterancestors("tr") else "li form"
    return selector


def _keyed_row_form(forms: list[HtmlElement]) -> bool:
    """A lone form in a row that carries the row's key (a hidden field whose value is a number: the
    item it acts on) is the row form of a list that has one row now: the same tool as with two, so a
    row added or removed keeps the tool list as it was."""
    if len(forms) != 1 or row_of(forms[0]) is None:
        return False
    return any(
        (el.get("type") or "").lower() == "hidden" and (el.get("value") or "").strip().isdigit()
        for el in forms[0].iter("input")
    )


# Named checkboxes outside any form (the page's scripts read them: "With selected → Delete"), through
# the type attribute nodes, and the cheap tests before the walk up to a form.
_LOOSE_BOXES = XPath(
    "//@type[translate(., 'CHECKBOX', 'checkbox')='checkbox']/parent::input[@name][not(@form)][not(ancestor::form)]"
)


@dataclass
class RowsIntrospector(Introspector):
    """``select_rows(rows)`` for a list whose rows have checkboxes outside any form: the page acts on
    the checked rows with its own controls (a "With selected" menu), which the model then uses."""

    name: str = "rows"
    kind: str = "generic"

    def tools(self, capture: PageCapture) -> list[PageTool]:
        groups: dict[str, list[HtmlElement]] = {}
        for box in _LOOSE_BOXES(capture.tree):
            if capture.ref(box) and not capture.is_hidden(box) and box.get("disabled") is None:
                groups.setdefault(box.get("name"), []).append(box)
        for name, boxes in groups.items():
            if one_per_row(boxes):
                schema, steps = row_group(ROWS_ARG, f'input[type="checkbox"]{attribute_selector("name", name)}')
                return [
                    PageTool(
                        name="select_rows",
                        title="Select rows",
                        description=(
                            "Check the rows' selection boxes, each row by a text it shows, for an action the page "
                            "applies to the selected rows (its own menu or button). Returns what changed on the "
                            f"page. {UNTRUSTED_NOTE}"
                        ),
                        input_schema={"type": "object", "properties": {ROWS_ARG: schema}, "required": [ROWS_ARG],
                                      "additionalProperties": False},
                        plan=tuple(steps),
                        hints=ToolHints(read_only=False, destructive=False, idempotent=True),
                        source=self.name,
                        rank=40,
                    )
                ]
        return []
