"""PageCapture: what the page agent serialised, parsed once with lxml for the introspectors.

The agent writes ``data-tabmcp-ref`` on interactive elements and ``data-tabmcp-hidden`` on those
that are not rendered, so introspectors can name elements by ref without touching the browser.

Every lookup an introspector needs per control (by ref, by id, the labels pointing at an id,
controls associated with a form through ``form=``) comes from one index built in a single pass
over the tree the first time it is needed, and cached on the capture: introspection stays linear
in the size of the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import lxml.html
from lxml.etree import XPath
from lxml.html import HtmlElement

REF_ATTR = "data-tabmcp-ref"
HIDDEN_ATTR = "data-tabmcp-hidden"
_LABELS = XPath("//label[@for]")
# Content that is never part of a label or a button's name: other controls' own text.
_NOT_LABEL_TEXT = frozenset({"select", "option", "optgroup", "textarea", "button", "datalist", "svg"})


@dataclass
class CaptureIndex:
    """Lookups built in one pass: the first element per id and per ref (as browsers resolve ids),
    the ``<label for>`` elements per id, and the controls outside a form that name it in ``form=``."""

    by_id: dict[str, HtmlElement] = field(default_factory=dict)
    by_ref: dict[str, HtmlElement] = field(default_factory=dict)
    labels: dict[str, list[HtmlElement]] = field(default_factory=dict)
    form_owned: dict[str, list[HtmlElement]] = field(default_factory=dict)


@dataclass(frozen=True)
class PageCapture:
    """``version`` is the agent's ``docId:seq`` (same version, same tools); ``webmcp`` the tools the page
    declared through WebMCP, raw and untrusted: ``{name, title?, description, inputSchema?, annotations?}``."""

    url: str
    title: str
    html: str
    truncated: bool = False
    version: str = ""
    webmcp: tuple[dict[str, Any], ...] = ()

    @cached_property
    def tree(self) -> HtmlElement:
        html = self.html.strip() or "<html><body></body></html>"
        return lxml.html.document_fromstring(html)

    @cached_property
    def index(self) -> CaptureIndex:
        index = CaptureIndex()
        for el in self.tree.iter():  # measured: faster than an XPath selecting the same elements
            element_id = el.get("id")
            if element_id is not None:
                index.by_id.setdefault(element_id, el)
            ref = el.get(REF_ATTR)
            if ref is not None:
                index.by_ref.setdefault(ref, el)
            owner = el.get("form")
            if owner is not None and el.tag in ("input", "select", "textarea", "button"):
                index.form_owned.setdefault(owner, []).append(el)
        for label in _LABELS(self.tree):
            index.labels.setdefault(label.get("for"), []).append(label)
        return index

    def ref(self, element: HtmlElement) -> str | None:
        return element.get(REF_ATTR)

    def by_ref(self, ref: str) -> HtmlElement | None:
        return self.index.by_ref.get(ref)

    def by_id(self, element_id: str) -> HtmlElement | None:
        return self.index.by_id.get(element_id)

    @staticmethod
    def is_hidden(element: HtmlElement) -> bool:
        return element.get(HIDDEN_ATTR) == "1" or element.get("type", "").lower() == "hidden"

    def form_of(self, control: HtmlElement) -> HtmlElement | None:
        """The control's form owner: its ``form=`` attribute, else the nearest ancestor form."""
        owner = control.get("form")
        if owner is not None:
            found = self.by_id(owner)
            return found if found is not None and found.tag == "form" else None
        for ancestor in control.iterancestors("form"):
            return ancestor
        return None

    def controls_of(self, form: HtmlElement) -> list[HtmlElement]:
        """The form's controls in document order: those inside it that are not owned by another
        form through ``form=``, then those elsewhere that name it (``<input form="f">``)."""
        controls = []
        form_id = form.get("id")
        for el in form.iter("input", "select", "textarea"):
            owner = el.get("form")
            if owner is None or owner == form_id:
                controls.append(el)
        if form_id:
            controls += [el for el in self.index.form_owned.get(form_id, []) if el.tag != "button"]
        return controls

    def labelled_by(self, element: HtmlElement) -> str:
        ids = (element.get("aria-labelledby") or "").split()
        parts = [self.by_id(i) for i in ids]
        return _clean(" ".join(label_text(p) for p in parts if p is not None))

    def label_for(self, element: HtmlElement) -> str:
        """The human label of a form control, the way assistive technology names it:
        ``aria-labelledby``, ``aria-label``, ``<label for>`` (several joined by "; "), an enclosing
        ``<label>``, ``title``, ``placeholder``."""
        if text := self.labelled_by(element):
            return text
        if text := _clean(element.get("aria-label")):
            return text
        control_id = element.get("id")
        if control_id:
            texts = [t for t in (label_text(lb) for lb in self.index.labels.get(control_id, [])) if t]
            if texts:
                return "; ".join(dict.fromkeys(texts))
        for ancestor in element.iterancestors("label"):
            if text := label_text(ancestor):
                return text
        return _clean(element.get("title")) or _clean(element.get("placeholder"))

    def accessible_name(self, element: HtmlElement) -> str:
        """A button's or link's name: ``aria-labelledby``, ``aria-label``, its text (an image's
        ``alt`` counts), an input's ``value``, ``title``."""
        if text := self.labelled_by(element):
            return text
        if text := _clean(element.get("aria-label")):
            return text
        if element.tag == "input":
            return _clean(element.get("value")) or _clean(element.get("title")) or _clean(element.get("alt"))
        return label_text(element, alt=True) or _clean(element.get("title"))


def label_text(element: HtmlElement, *, alt: bool = False) -> str:
    """An element's visible text without other controls' text (a ``<select>`` inside a label does
    not become part of the label); with ``alt``, images count with their ``alt`` text."""
    parts: list[str] = []
    _gather(element, parts, alt)
    return _clean(" ".join(parts))


def _gather(element: HtmlElement, parts: list[str], alt: bool) -> None:
    if element.text:
        parts.append(element.text)
    for child in element:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag and tag not in _NOT_LABEL_TEXT and child.get(HIDDEN_ATTR) != "1":
            if alt and tag == "img" and child.get("alt"):
                parts.append(child.get("alt"))
            _gather(child, parts, alt)
        if child.tail:
            parts.append(child.tail)


def _clean(text: str | None) -> str:
    return " ".join((text or "").split())
