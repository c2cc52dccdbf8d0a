"""The generic primary-actions introspector: clearly named buttons outside forms → no-argument tools.

A page's toolbar ("Archive", "Mark as read", "Star") is what a user clicks most, and it lives
outside forms, so the form introspector never sees it. Only buttons a model can tell apart by
name are listed: 2 to 40 characters of real words (not "x", "...", "More", or an icon), visible and
enabled, not inside a form, a search landmark, a menu, or one row or cell of a table or grid, not
beside a search box. A name several buttons share ("Reply" under every message) says which one
only with the item it sits in: where each is the one button of that name in its own list item or
article (a wiki's "Edit" on each open page), they are one tool whose ``item`` argument names the
item by its heading or a text it shows, matched when the tool runs (``RowText``, rows.py); other
shared names are left out. A name that says nothing ("close") gives way to the button's ``title``
when that does ("Close this tiddler"). Menu toggles (``aria-haspopup``) are left out, dialog
openers need a name of at least two words.
Destructive ones (delete, remove, discard…) are marked so. At most ``MAX_ACTIONS``, ranked after
the search and form tools.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from lxml.etree import XPath
from lxml.html import HtmlElement

from tabmcp.introspect.api import Choice, Introspector, PageTool, PlanStep, RowText, ToolHints
from tabmcp.introspect.chrome import ViewSwitcher, chrome_label, editor_controls, view_switchers
from tabmcp.introspect.dialogs import closed_dialog, named_ids
from tabmcp.introspect.forms import operable
from tabmcp.introspect.lists import LIST_ATTR
from tabmcp.introspect.purpose import heading_above, landmark_name, landmark_of, landmark_word, qualifiers
from tabmcp.introspect.rows import attribute_selector, row_of
from tabmcp.introspect.search import SEARCH_BOXES
from tabmcp.introspect.text import (
    DESTRUCTIVE_WORDS,
    UNTRUSTED_NOTE,
    balanced,
    cap_words,
    clean,
    name_words,
    quoted,
    without_counters,
)
from tabmcp.page.capture import PageCapture
from tabmcp.protocol import Target

_CONTAINERS_NOT_ACTIONS = frozenset({"search", "menu", "menubar", "listbox", "tablist", "tree", "combobox"})
# Controls of one item among many (a table row, a grid cell, a list option): "Star" on each message
# of an inbox is not one action of the page.
_PER_ITEM_TAGS = ("td", "th", "tr")
_PER_ITEM_ROLES = frozenset({"row", "gridcell", "cell", "rowheader", "columnheader", "option", "treeitem", "feed"})
# Cells first (most buttons of a big page sit in table rows: the test stops at their first ancestor),
# and one walk up for all the roles.
_ROLES_NOT_INSIDE = " or ".join(f"@role='{role}'" for role in sorted(_CONTAINERS_NOT_ACTIONS | _PER_ITEM_ROLES))
_NOT_INSIDE = " or ".join(
    [f"ancestor::{tag}" for tag in (*_PER_ITEM_TAGS, "form", "search")] + [f"ancestor::*[@role][{_ROLES_NOT_INSIDE}]"]
)
# ``//@role[…]/..``: through the attribute nodes, far faster in libxml2 than ``//*[@role='button']``.
# Buttons inside a form, a search landmark, a menu or one item of a list are ruled out here, in C:
# on a page of thousands of row buttons, only the few left become Python objects. Each kind is ruled
# on before the union: libxml2 merges small node sets much faster than large ones.
_BUTTONS = XPath(
    " | ".join(
        f"{kind}[not({_NOT_INSIDE})]"
        for kind in (
            "//button",
            "//@role[.='button']/parent::*",
            "//@type[translate(., 'BUTON', 'buton')='button']/parent::input",
        )
    )
)
# Names that say nothing about what the button does.
VAGUE = frozenset({
    "more", "menu", "options", "more options", "more actions", "actions", "toggle", "open", "close", "dismiss",
    "ok", "show", "hide", "expand", "collapse", "settings", "open menu", "toggle menu", "toggle navigation",
    "click here", "button", "go",
})
MAX_ACTIONS = 10
ITEM_ARG = "item"  # the item whose own button an item action clicks
_KEY = re.compile(r"(^|[-_])(id|key|uid|uuid)$")  # data-email-id, data-key, data-row-uid
MIN_KEYED_SIBLINGS = 2  # other items beside this one with their own keys
MIN_NAME, MAX_NAME = 2, 40
# aria-haspopup values of a button that only opens a menu (a dialog opener is kept).
_MENU_POPUPS = frozenset({"true", "menu", "listbox", "tree", "grid"})


@dataclass
class ActionsIntrospector(Introspector):
    name: str = "actions"
    kind: str = "generic"

    def tools(self, capture: PageCapture) -> list[PageTool]:
        beside_search = {box.getparent() for box in capture.select(SEARCH_BOXES)}
        buttons = [
            b for b in _BUTTONS(capture.tree)
            if not keyed_item(b) and not (b.get(LIST_ATTR) or "").startswith("open")  # a row: open_row opens it
            and closed_dialog(b) is None  # a closed dialog drawn out of sight asks nothing yet (dialogs.py)
        ]
        # an editor's own controls (its bold, undo…) are how a person edits: the editor is an argument
        editing = editor_controls(capture, buttons)
        buttons = [b for b in buttons if b not in editing]
        switchers = view_switchers(capture, buttons, lambda b: self._label(capture, b, beside_search))
        switching = {button: s for s in switchers for _, button in s.views}
        forms_in_dialogs = _form_dialog_ids(capture)
        found: list[tuple[HtmlElement, str, str]] = []
        for button in buttons:
            if button in switching or (forms_in_dialogs and _opens(button, forms_in_dialogs)):
                continue  # one of a view switcher's, or it opens a dialog whose form is a tool of its own
            label = self._label(capture, button, beside_search)
            if label and (name := name_words(label)):
                found.append((button, label, name))
        # A name on several buttons ("Reply" under each message) says which one only with its item.
        counts = Counter(name for _, _, name in found)
        items = {name: item for name in counts if counts[name] > 1 and (item := item_buttons(found, name))}
        tools: list[PageTool] = [self._switcher_tool(capture, s, n) for n, s in enumerate(switchers)]
        for button, label, name in found:
            if len(tools) >= MAX_ACTIONS:
                break
            if counts[name] == 1:
                tools.append(self._tool(capture, button, label, name, len(tools)))
            elif name in items and button is items[name][0]:
                tools.append(self._item_tool(capture, button, label, name, items[name][1], len(tools)))
        return tools

    def _label(self, capture: PageCapture, button: HtmlElement, beside_search: set[HtmlElement | None]) -> str:
        """The button's name when it should be a tool, else ""."""
        if not operable(capture, button):
            return ""
        if button.get("aria-disabled") == "true" or button.get("form") is not None:
            return ""
        if button.getparent() in beside_search:
            return ""  # the "Search" button beside a search box: search(query) covers it
        # (not inside a form, a search landmark, a menu or a list item: _BUTTONS left those out)
        label = stable_label(capture.accessible_name(button))
        if not clear_name(label) and clear_name(titled := stable_label(clean(button.get("title") or ""))):
            label = titled  # "close" titled "Close this tiddler"
        if not clear_name(label) or chrome_label(label, button):
            return ""  # says nothing, or changes the page's layout or look: not a task
        if button.get("aria-haspopup") in _MENU_POPUPS or "dropdown" in (
            (button.get("data-toggle") or ""), (button.get("data-bs-toggle") or "")
        ):
            return ""  # it only opens a menu: the menu's items are the actions, not the toggle
        if button.get("aria-haspopup") not in (None, "false") and len(label.split()) < 2:
            return ""
        return label

    def _tool(self, capture: PageCapture, button: HtmlElement, label: str, name: str, n: int) -> PageTool:
        destructive = bool(DESTRUCTIVE_WORDS.search(label))
        warning = "Destructive: " if destructive else ""
        place = landmark_of(button)
        where = landmark_word(place)
        located = f" in the page's {where}" if where else " on this page"
        description = (
            f"{warning}Click the {quoted(label)} button{located}. Returns what changed on the page. "
            f"{UNTRUSTED_NOTE}"
        )
        return PageTool(
            name=name,
            title=cap_words(label, 60),
            qualifiers=qualifiers(
                landmark_name(capture, place), heading_above(button, within=place, capture=capture), where
            ),
            description=description,
            input_schema={"type": "object", "properties": {}, "additionalProperties": False},
            plan=(PlanStep("click", target=Target(ref=capture.ref(button))),),
            hints=ToolHints(read_only=False, destructive=destructive, idempotent=False),
            source=self.name,
            element_ref=capture.ref(button),
            rank=50 + n,
        )

    def _item_tool(
        self, capture: PageCapture, button: HtmlElement, label: str, name: str, selector: str, n: int
    ) -> PageTool:
        destructive = bool(DESTRUCTIVE_WORDS.search(label))
        warning = "Destructive: " if destructive else ""
        place = landmark_of(button)
        return PageTool(
            name=name,
            title=cap_words(label, 60),
            qualifiers=qualifiers(landmark_name(capture, place), landmark_word(place)),
            description=(
                f"{warning}Click the {quoted(label)} button of one item of the page (each item shown has its own). "
                f"Returns what changed on the page. {UNTRUSTED_NOTE}"
            ),
            input_schema={
                "type": "object",
                "properties": {ITEM_ARG: {
                    "type": "string",
                    "minLength": 1,
                    "description": "The item, by its title as the page shows it (its heading) or a text shown in it",
                }},
                "required": [ITEM_ARG],
                "additionalProperties": False,
            },
            plan=(PlanStep("click", target=RowText(ITEM_ARG, selector)),),
            hints=ToolHints(read_only=False, destructive=destructive, idempotent=False),
            source=self.name,
            element_ref=capture.ref(button),
            rank=50 + n,
        )

    def _switcher_tool(self, capture: PageCapture, switcher: ViewSwitcher, n: int) -> PageTool:
        """One tool for a group of buttons that each show one view: the view is an argument whose
        choices are all the views, so the list stays the same whichever view is shown."""
        names = [name for name, _ in switcher.views]
        place = landmark_of(switcher.parent)
        listed = ", ".join(quoted(name, 30) for name in names)
        targets = {name: Target(ref=capture.ref(button)) for name, button in switcher.views}
        description = (
            f"Show one of the views the page offers with its buttons ({listed}). "
            f"Returns what changed on the page. {UNTRUSTED_NOTE}"
        )
        return PageTool(
            name="switch_view",
            title="Switch the view",
            qualifiers=qualifiers(
                landmark_name(capture, place), heading_above(switcher.parent, within=place, capture=capture)
            ),
            description=description,
            input_schema={
                "type": "object",
                "properties": {"view": {"type": "string", "enum": names, "description": "The view to show"}},
                "required": ["view"],
                "additionalProperties": False,
            },
            plan=(PlanStep("click", target=Choice("view", targets)),),
            hints=ToolHints(read_only=True, destructive=False, idempotent=True),
            source=self.name,
            element_ref=capture.ref(switcher.parent) or capture.ref(switcher.views[0][1]),
            rank=50 + n,
        )


_TRAILING_BRACKETS = re.compile(r"\s*[(\[][^()\[\]]*[)\]]\s*$")


# Through the role attribute nodes and the dialog elements: a test on every element costs ~2.5x as much.
_FORM_DIALOGS = XPath(
    "//@role[.='dialog' or .='alertdialog']/parent::*[@id][.//form] | //dialog[@id][.//form]"
)


def _form_dialog_ids(capture: PageCapture) -> frozenset[str]:
    """The ids of the dialogs that hold a form (the form's tool is the task, not the dialog's opener)."""
    return frozenset(str(d.get("id")) for d in _FORM_DIALOGS(capture.tree))


def _opens(button: HtmlElement, dialog_ids: frozenset[str]) -> bool:
    """Whether the button names one of those dialogs (``dialogs.named_ids``)."""
    return bool(named_ids(button) & dialog_ids)


def item_buttons(found: list[tuple[HtmlElement, str, str]], name: str) -> tuple[HtmlElement, str] | None:
    """(the first, the CSS selector of them all) when the buttons named ``name`` that sit in list
    items or articles are one per item, at least two, and a selector tells them from the items' other
    buttons; else None. Those outside any item (the same "close" in a sidebar) are not the tool's."""
    buttons = [b for b, _, n in found if n == name and row_of(b) is not None]
    rows = [row_of(b) for b in buttons]
    if len(buttons) < 2 or len(set(rows)) != len(rows):
        return None
    row_part, button_part = _alike(rows), _alike(buttons)
    first = buttons[0]
    marks = [(a, v) for a in ("aria-label", "title") if (v := first.get(a)) and all(b.get(a) == v for b in buttons)]
    if not (row_part and button_part and marks):
        return None
    attr, value = marks[0]
    by_role = button_part.startswith("[")

    def marked(el: HtmlElement) -> bool:
        same_kind = el.get("role") == first.get("role") if by_role else el.tag == first.tag
        return same_kind and el.get(attr) == value

    # each item holds this one button of that mark: the page agent finds one match per item
    if any(sum(1 for b in row.iter(first.tag) if marked(b)) != 1 for row in rows):
        return None
    return first, f"{row_part} {button_part}{attribute_selector(attr, value)}"


def _alike(elements: list[HtmlElement]) -> str:
    """A CSS selector part every element matches by its role or tag: ``[role="article"]``, ``li``."""
    roles = {el.get("role") for el in elements}
    tags = {el.tag for el in elements}
    if len(roles) == 1 and (role := next(iter(roles))):
        return attribute_selector("role", role)
    return next(iter(tags)) if roles == {None} and len(tags) == 1 else ""


def keyed_item(button: HtmlElement) -> bool:
    """One item of a list the page draws with bare buttons (a mail list: each message a button
    with its ``data-email-id``): a ``data-*`` key naming an id, and alike siblings (same tag and
    class) keyed too. Its name is the item's data ("OP ops@example.org Newsletter"), not an action."""
    keys = [k for k in button.attrib if k.startswith("data-") and _KEY.search(k) and not k.startswith("data-tabmcp")]
    parent = button.getparent()
    if not keys or parent is None:
        return False
    alike = [
        b for b in parent.iterchildren(button.tag)
        if b.get("class") == button.get("class") and any(b.get(k) not in (None, button.get(k)) for k in keys)
    ]
    return len(alike) >= MIN_KEYED_SIBLINGS


def stable_label(name: str) -> str:
    """A button's name without what changes while it stays the same button: counters, shortcut
    hints, and a current state after a colon ("Watch: All activity" is the "Watch" button)."""
    label = clean(without_counters(name))
    head, colon, _state = label.partition(": ")
    label = balanced(head) if colon and clear_name(balanced(head)) else label
    # a state in brackets at the end ("Toggle theme (current theme: auto)") is not the button's name
    bare = balanced(_TRAILING_BRACKETS.sub("", label))
    return bare if bare != label and clear_name(bare) else label


def clear_name(label: str) -> bool:
    """2 to 40 characters with at least two letters, and not one of the names that say nothing."""
    if not MIN_NAME <= len(label) <= MAX_NAME or sum(c.isalpha() for c in label) < 2:
        return False
    return label.lower().strip(" .…:!?") not in VAGUE
