"""PageCapture: the compact document the page agent wrote, parsed once with lxml for the introspectors.

The agent keeps what introspectors read (controls, forms, headings, landmarks, the shape of tables and
lists, and the ancestors of all of those; docs/introspectors.md, "The capture") and adds attributes:
``data-tabmcp-ref`` on interactive elements, ``data-tabmcp-hidden`` on those that are not rendered,
``data-tabmcp-name`` (the accessible name, computed in the page by the snapshot's name code) on the
rendered ones, left out where it is the element's text (a link's, a button's, a label's), and
``data-tabmcp-items`` (how many rows or items) on tables and lists.

Every lookup an introspector needs per control (by ref, by id, the labels pointing at an id,
controls associated with a form through ``form=``) comes from one index, built the first time it is
needed and cached on the capture: introspection stays linear in the size of the page.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import lxml.html
from lxml import etree
from lxml.etree import XPath
from lxml.html import HtmlElement

from tabmcp.page import markup
from tabmcp.page.markup import HIDDEN_ATTR, label_text, not_rendered

__all__ = [
    "CAPTURE_ATTR", "HIDDEN_ATTR", "ITEMS_ATTR", "NAME_ATTR", "REF_ATTR", "CaptureIndex", "PageCapture", "label_text",
]

REF_ATTR = "data-tabmcp-ref"
NAME_ATTR = "data-tabmcp-name"
ITEMS_ATTR = "data-tabmcp-items"
CAPTURE_ATTR = "data-tabmcp-capture"
# The root's data-tabmcp-capture in a capture whose rendered, referenced elements without a name
# attribute are named by their text (the agent leaves out a name that is the element's text).
TEXT_NAMES = "compact-text"
# The index reads attributes, not elements: libxml2 walks attribute nodes much faster than it tests
# a predicate on every element, and only the elements found become Python objects.
_IDS = XPath("//@id")
_REFS = XPath(f"//@{REF_ATTR}")
_FORM_OWNERS = XPath("//input/@form | //select/@form | //textarea/@form | //button/@form")
_LABEL_FORS = XPath("//label/@for")
_SOME_REFS = XPath(f"//@{REF_ATTR}[contains($refs, concat(' ', ., ' '))]")


# Every element is an HtmlElement, chosen in C: lxml.html's own lookup (a Python function that picks
# FormElement, InputElement…) runs for each element that becomes a Python object, a third of the time
# a capture's index takes.
_LOOKUP = etree.ElementDefaultClassLookup(element=HtmlElement)
_PARSER = lxml.html.HTMLParser()
_PARSER.set_element_class_lookup(_LOOKUP)
# The agent writes well-formed XML (it starts with an XML declaration): libxml2 reads that about twice
# as fast as HTML. ``recover`` reads a page's prefixed attribute names (``xlink:href``, ``x-on:click``)
# as plain names, as the HTML parser does; ``huge_tree`` lifts the depth limit deep apps reach.
_XML_PARSER = etree.XMLParser(recover=True, huge_tree=True, resolve_entities=False, no_network=True)
_XML_PARSER.set_element_class_lookup(_LOOKUP)
XML_DECLARATION = "<?xml"


class CaptureIndex:
    """Lookups built once per capture, each the first time it is needed: the first element per id and
    per ref (as browsers resolve ids), the ``<label for>`` elements per id, and the controls that name
    a form in ``form=``."""

    def __init__(self, tree: HtmlElement) -> None:
        self._tree = tree

    @cached_property
    def by_id(self) -> dict[str, HtmlElement]:
        found: dict[str, HtmlElement] = {}
        for attr in _IDS(self._tree):
            found.setdefault(str(attr), attr.getparent())
        return found

    @cached_property
    def by_ref(self) -> dict[str, HtmlElement]:
        found: dict[str, HtmlElement] = {}
        for attr in _REFS(self._tree):
            found.setdefault(str(attr), attr.getparent())
        return found

    @cached_property
    def labels(self) -> dict[str, list[HtmlElement]]:
        found: dict[str, list[HtmlElement]] = {}
        for attr in _LABEL_FORS(self._tree):
            found.setdefault(str(attr), []).append(attr.getparent())
        return found

    @cached_property
    def form_owned(self) -> dict[str, list[HtmlElement]]:
        found: dict[str, list[HtmlElement]] = {}
        for attr in _FORM_OWNERS(self._tree):
            found.setdefault(str(attr), []).append(attr.getparent())
        return found


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
        if html.startswith(XML_DECLARATION):
            root = etree.fromstring(html.encode("utf-8", "replace"), parser=_XML_PARSER)
            if isinstance(root, HtmlElement):
                return root
        return lxml.html.document_fromstring(html, parser=_PARSER)

    @cached_property
    def index(self) -> CaptureIndex:
        return CaptureIndex(self.tree)

    @cached_property
    def _selected(self) -> dict[XPath, tuple[HtmlElement, ...]]:
        return {}

    def select(self, query: XPath) -> tuple[HtmlElement, ...]:
        """The elements a compiled XPath finds in the tree, in document order, evaluated once per
        capture: introspectors that ask the same question (the page's search boxes) share one pass."""
        found = self._selected.get(query)
        if found is None:
            found = tuple(e for e in query(self.tree) if isinstance(e, HtmlElement))
            self._selected[query] = found
        return found

    @cached_property
    def _memos(self) -> dict[str, dict[Any, Any]]:
        return {}

    def memo(self, name: str) -> dict[Any, Any]:
        """A dict kept with this capture under ``name``: what introspectors derive from the tree and
        would derive again (the headings before each child of a container) is worked out once per
        capture. Keys may be elements: the dict holds them, so each keeps its one Python object."""
        return self._memos.setdefault(name, {})

    @cached_property
    def _read_refs(self) -> dict[str, HtmlElement]:
        return {}

    def ref(self, element: HtmlElement) -> str | None:
        ref = element.get(REF_ATTR)
        if ref is not None:  # remembered: the tool made for this element names it by this ref
            self._read_refs.setdefault(ref, element)
        return ref

    def by_ref(self, ref: str) -> HtmlElement | None:
        return self.index.by_ref.get(ref)

    def by_refs(self, refs: Iterable[str]) -> dict[str, HtmlElement]:
        """The elements of a few refs: those ``ref`` was asked for are known already (an agent's refs
        are unique); the others are found in one pass over the ref attributes, in C, while the whole
        ref index (an object for every referenced element) is not built yet. A string predicate on
        every ref attribute costs ~1 ms at 5k controls, where most claims need none."""
        wanted = {r for r in refs if r and " " not in r}
        if not wanted:
            return {}
        if "by_ref" in self.index.__dict__:  # built: a dict lookup each
            return {r: e for r in wanted if (e := self.index.by_ref.get(r)) is not None}
        read = self._read_refs
        found = {r: read[r] for r in wanted if r in read}
        if len(found) < len(wanted):
            missing = " ".join(sorted(wanted - found.keys()))
            for attr in _SOME_REFS(self.tree, refs=f" {missing} "):
                found.setdefault(str(attr), attr.getparent())
        return found

    def by_id(self, element_id: str) -> HtmlElement | None:
        return self.index.by_id.get(element_id)

    @staticmethod
    def is_hidden(element: HtmlElement) -> bool:
        """Not rendered, as far as the capture says, or an ``<input type=hidden>``. The agent flags
        the referenced elements that are not rendered (``data-tabmcp-hidden``), which covers what is
        inside a hidden container too; an element without a ref is as hidden as its nearest
        referenced ancestor (or one with the ``hidden`` attribute)."""
        if element.tag == "input" and element.get("type", "").lower() == "hidden":
            return True
        for node in (element, *element.iterancestors()):
            if not_rendered(node):
                return True
            if node.get(REF_ATTR) is not None:
                return False
        return False

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

    @cached_property
    def named(self) -> bool:
        """Whether the page agent wrote this capture, names included (``data-tabmcp-capture`` on its
        root). A page saved or written by hand is named from its markup (``tabmcp.page.markup``)."""
        return self.tree.get(CAPTURE_ATTR) is not None or NAME_ATTR in self.html

    @cached_property
    def _text_names(self) -> bool:
        return self.tree.get(CAPTURE_ATTR) == TEXT_NAMES

    def _agent_name(self, element: HtmlElement) -> str:
        """The name the agent computed: its attribute, else (left out as the same) the element's text,
        its spaces collapsed as the agent compared it; "" for an element not named (hidden, no ref)."""
        name = element.get(NAME_ATTR)
        if name is not None:
            return name
        if not self._text_names or element.get(REF_ATTR) is None or element.get(HIDDEN_ATTR) is not None:
            return ""
        return " ".join(filter(None, element.text_content().split(" ")))

    def aria_name(self, element: HtmlElement) -> str:
        """A form's, landmark's or group's name: ``aria-labelledby``, ``aria-label`` (``title`` too in
        a capture from the agent)."""
        if self.named:
            return self._agent_name(element)
        return markup.aria_name(self.by_id, element)

    def label_for(self, element: HtmlElement) -> str:
        """A form control's label, the way assistive technology names it: ``aria-labelledby``,
        ``aria-label``, its ``<label>``s, ``title``, ``placeholder``."""
        if self.named:
            return self._agent_name(element)
        return markup.label_for(self.by_id, self.index.labels, element)

    def accessible_name(self, element: HtmlElement) -> str:
        """A button's or link's name: ``aria-labelledby``, ``aria-label``, its text (an image's
        ``alt`` counts), an input's ``value``, ``title``."""
        if self.named:
            return self._agent_name(element)
        return markup.accessible_name(self.by_id, element)
