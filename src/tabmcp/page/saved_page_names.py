"""Names on a page that carries none from the page agent: a page saved from a browser, or written by
hand for a test (``tabmcp doctor --page``, ``tests/unit``).

A capture from the agent names its elements itself (``data-tabmcp-name``, computed by the snapshot's
name code in the page) and never comes here. A saved page has no browser behind it, so its names are
read from the markup alone: ``aria-labelledby``, ``aria-label``, ``<label for>`` (several joined by
"; "), an enclosing ``<label>``, the text of a button or link, ``title``, ``placeholder``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lxml.html import HtmlElement

from tabmcp.introspect.text import clean

if TYPE_CHECKING:
    from tabmcp.page.capture import PageCapture


def aria_name(capture: PageCapture, element: HtmlElement) -> str:
    """The text of its ``aria-labelledby`` elements, else its ``aria-label``."""
    from tabmcp.page.capture import label_text

    ids = (element.get("aria-labelledby") or "").split()
    parts = [capture.by_id(i) for i in ids]
    return clean(" ".join(label_text(p) for p in parts if p is not None)) or clean(element.get("aria-label"))


def label_for(capture: PageCapture, element: HtmlElement) -> str:
    from tabmcp.page.capture import label_text

    if text := aria_name(capture, element):
        return text
    control_id = element.get("id")
    if control_id:
        texts = [t for t in (label_text(lb) for lb in capture.index.labels.get(control_id, [])) if t]
        if texts:
            return "; ".join(dict.fromkeys(texts))
    for ancestor in element.iterancestors("label"):
        if text := label_text(ancestor):
            return text
    return clean(element.get("title")) or clean(element.get("placeholder"))


def accessible_name(capture: PageCapture, element: HtmlElement) -> str:
    from tabmcp.page.capture import label_text

    if text := aria_name(capture, element):
        return text
    if element.tag == "input":
        return clean(element.get("value")) or clean(element.get("title")) or clean(element.get("alt"))
    return label_text(element, alt=True) or clean(element.get("title"))
