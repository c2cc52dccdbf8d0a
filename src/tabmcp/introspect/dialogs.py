"""Dialogs the page keeps drawn while they are closed.

A CSS library may close a modal by moving it out of sight (``top: -100%``, a transform) rather than
hiding it, so the browser still calls its buttons rendered. What the capture holds says it is closed:
a dialog (``role=dialog``/``alertdialog``, ``aria-modal``, ``<dialog>``, a ``modal`` class) with
``aria-hidden=true``, a ``<dialog>`` without ``open``, or a ``modal`` that carries none of the classes
libraries add to show one (``show``, ``in``, ``open``, ``is-active``…) and no ``aria-modal=true``.

Its buttons are no tools of the page (the dialog asks them only once something opens it). A form
inside it stays a tool when a control of the page opens the dialog: the form's tool fills and submits
it as it stands.
"""

from __future__ import annotations

import re

from lxml.etree import XPath
from lxml.html import HtmlElement

from tabmcp.page.capture import PageCapture

_DIALOG_ROLES = frozenset({"dialog", "alertdialog"})
# Classes the usual libraries (Bootstrap, Halfmoon, Bulma, Foundation, Materialize…) add to a shown modal.
_OPEN_CLASSES = frozenset({
    "show", "in", "open", "opened", "shown", "active", "visible", "is-active", "is-open", "is-visible",
    "is-shown", "modal-open", "modal-show", "modal-visible",
})
_QUOTED_ID = re.compile(r"""['"]#?([A-Za-z][\w:.-]*)['"]""")
_OPENERS = XPath(
    "//*[@aria-controls or @data-target or @data-bs-target or starts-with(@href, '#') or @onclick]"
)


def _classes(el: HtmlElement) -> set[str]:
    return set((el.get("class") or "").split())


def is_dialog(el: HtmlElement) -> bool:
    """A modal or dialog box, by its tag, role, ``aria-modal`` or a ``modal`` class."""
    role = (el.get("role") or "").split()[:1]
    return (
        el.tag == "dialog" or (bool(role) and role[0] in _DIALOG_ROLES) or el.get("aria-modal") == "true"
        or "modal" in _classes(el)
    )


def is_closed(dialog: HtmlElement) -> bool:
    """Whether the dialog says it is closed (see the module's docstring)."""
    if dialog.get("aria-hidden") == "true":
        return True
    if dialog.tag == "dialog":
        return dialog.get("open") is None
    if "modal" in _classes(dialog):
        return dialog.get("aria-modal") != "true" and not (_classes(dialog) & _OPEN_CLASSES)
    return False


def closed_dialog(el: HtmlElement) -> HtmlElement | None:
    """The closed dialog the element is in (itself included), or None."""
    for node in (el, *el.iterancestors()):
        if is_dialog(node) and is_closed(node):
            return node
    return None


def named_ids(control: HtmlElement) -> set[str]:
    """The ids a control names as what it acts on: ``aria-controls``, a ``data-*target``, its
    ``href`` fragment, a quoted id in its ``onclick``."""
    named = set((control.get("aria-controls") or "").split())
    for attr in ("data-target", "data-bs-target", "href"):
        value = control.get(attr) or ""
        if value.startswith("#"):
            named.add(value[1:])
    named.update(_QUOTED_ID.findall(control.get("onclick") or ""))
    return named


def opened_on_page(capture: PageCapture, dialog: HtmlElement) -> bool:
    """Whether a control outside the dialog, shown on the page, names it (its opener)."""
    ident = dialog.get("id")
    if not ident:
        return False
    for control in _OPENERS(capture.tree):
        if ident in named_ids(control) and control is not dialog and dialog not in control.iterancestors() \
                and capture.ref(control) and not capture.is_hidden(control) and closed_dialog(control) is None:
            return True
    return False
