"""PageCapture: what the page agent serialised, parsed once with lxml for the introspectors.

The agent writes ``data-tabmcp-ref`` on interactive elements and ``data-tabmcp-hidden`` on those
that are not rendered, so introspectors can name elements by ref without touching the browser.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import lxml.html
from lxml.html import HtmlElement

REF_ATTR = "data-tabmcp-ref"
HIDDEN_ATTR = "data-tabmcp-hidden"


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

    def ref(self, element: HtmlElement) -> str | None:
        return element.get(REF_ATTR)

    def by_ref(self, ref: str) -> HtmlElement | None:
        found = self.tree.xpath(f"//*[@{REF_ATTR}=$ref]", ref=ref)
        return found[0] if found else None

    @staticmethod
    def is_hidden(element: HtmlElement) -> bool:
        return element.get(HIDDEN_ATTR) == "1" or element.get("type", "").lower() == "hidden"

    def label_for(self, element: HtmlElement) -> str:
        """The human label of a form control, the way a sighted user would read it."""
        for attr in ("aria-label", "title"):
            if element.get(attr):
                return _clean(element.get(attr))
        labelled_by = element.get("aria-labelledby")
        if labelled_by:
            parts = [self.tree.get_element_by_id(i, None) for i in labelled_by.split()]
            text = " ".join(_clean(p.text_content()) for p in parts if p is not None)
            if text:
                return text
        control_id = element.get("id")
        if control_id:
            for label in self.tree.xpath("//label[@for=$id]", id=control_id):
                if text := _clean(label.text_content()):
                    return text
        for ancestor in element.iterancestors("label"):
            if text := _clean(ancestor.text_content()):
                return text
        return _clean(element.get("placeholder", ""))


def _clean(text: str | None) -> str:
    return " ".join((text or "").split())
