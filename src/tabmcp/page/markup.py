"""Reading elements from markup alone: an element's visible text (``label_text``), whether the capture
marks it not rendered, and names for a page that carries none from the page agent.

A capture from the agent names its elements itself (``data-tabmcp-name``, computed in the page by the
snapshot's name code) and ``PageCapture`` reads that. A page saved from a browser or written by hand
for a test (``tabmcp doctor --page``, ``tests/unit``) has no browser behind it: its names are read from
the markup: ``aria-labelledby``, ``aria-label``, ``<label for>`` (several joined by "; "), an enclosing
``<label>``, the text of a button or link, ``title``, ``placeholder``.
"""

from __future__ import annotations

from collections.abc import Callable

from lxml.html import HtmlElement

from tabmcp.introspect.text import clean

HIDDEN_ATTR = "data-tabmcp-hidden"
# Content that is never part of a label or a button's name: other controls' own text.
_NOT_LABEL_TEXT = frozenset({"select", "option", "optgroup", "textarea", "button", "datalist", "svg"})
ById = Callable[[str], HtmlElement | None]


def aria_name(by_id: ById, element: HtmlElement) -> str:
    """The text of its ``aria-labelledby`` elements, else its ``aria-label``."""
    ids = (element.get("aria-labelledby") or "").split()
    parts = [by_id(i) for i in ids]
    return clean(" ".join(label_text(p) for p in parts if p is not None)) or clean(element.get("aria-label"))


def label_for(by_id: ById, labels: dict[str, list[HtmlElement]], element: HtmlElement) -> str:
    """``labels``: the ``<label for>`` elements per id."""
    if text := aria_name(by_id, element):
        return text
    control_id = element.get("id")
    if control_id:
        texts = [t for t in (label_text(lb) for lb in labels.get(control_id, [])) if t]
        if texts:
            return "; ".join(dict.fromkeys(texts))
    for ancestor in element.iterancestors("label"):
        if text := label_text(ancestor):
            return text
    return clean(element.get("title")) or clean(element.get("placeholder"))


def accessible_name(by_id: ById, element: HtmlElement) -> str:
    if text := aria_name(by_id, element):
        return text
    if element.tag == "input":
        return clean(element.get("value")) or clean(element.get("title")) or clean(element.get("alt"))
    return label_text(element, alt=True) or clean(element.get("title"))


def label_text(element: HtmlElement, *, alt: bool = False) -> str:
    """An element's visible text without other controls' text (a ``<select>`` inside a label does
    not become part of the label); with ``alt``, images count with their ``alt`` text."""
    parts: list[str] = []
    _gather(element, parts, alt)
    return clean(" ".join(parts))


def _gather(element: HtmlElement, parts: list[str], alt: bool) -> None:
    if element.text:
        parts.append(element.text)
    for child in element:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag and tag not in _NOT_LABEL_TEXT and not not_rendered(child):
            if alt and tag == "img" and child.get("alt"):
                parts.append(child.get("alt"))
            _gather(child, parts, alt)
        if child.tail:
            parts.append(child.tail)


def not_rendered(node: HtmlElement) -> bool:
    return node.get(HIDDEN_ATTR) == "1" or node.get("hidden") is not None
