"""Helpers the site introspectors share: finding things in a capture, naming them for the page agent.

Not a plugin (no ``INTROSPECTORS``): the registry skips it. Site introspectors find elements with
XPath over the captured tree and name them for the browser with CSS (``css()``) when the selector
is stable across re-renders (ids the site keeps, ``data-*`` keys, aria-labels), or with the
capture's ref when the page gives nothing better; ``pin`` makes that choice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Annotated, Any, Literal

from lxml.html import HtmlElement
from pydantic import BaseModel, ConfigDict, Field, create_model

from tabmcp.introspect.api import Choice, css, ref
from tabmcp.page.capture import REF_ATTR, PageCapture
from tabmcp.protocol import Target

STRICT = ConfigDict(extra="forbid")


def has_class(name: str) -> str:
    """An XPath predicate for ``class~=name`` (XPath 1 has no class selector). The plain ``contains``
    first rules out most elements cheaply."""
    return f"contains(@class, '{name}') and contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


def with_class(name: str, tag: str = "*") -> str:
    """An XPath for every ``tag`` element of class ``name``, fast enough for a predicate (which runs on
    every page, big ones included): libxml2 walks the ``class`` attribute nodes several times faster
    than it tests a condition on every element (``//*[…]``)."""
    return f"//@class[contains(., '{name}')]/parent::{tag}[{has_class(name)}]"


def find(capture: PageCapture, xpath: str, **variables: Any) -> list[HtmlElement]:
    return [e for e in capture.tree.xpath(xpath, **variables) if isinstance(e, HtmlElement)]


def first(capture: PageCapture, xpath: str, **variables: Any) -> HtmlElement | None:
    found = find(capture, xpath, **variables)
    return found[0] if found else None


def first_in(element: HtmlElement, xpath: str) -> HtmlElement | None:
    """The first match of a relative XPath (``.//…``, ``ancestor::…``) from ``element``."""
    found = [e for e in element.xpath(xpath) if isinstance(e, HtmlElement)]
    return found[0] if found else None


def shown(element: HtmlElement) -> bool:
    """Rendered, as far as the capture says (``PageCapture.is_hidden``, which also judges elements
    without a ref by their nearest referenced ancestor)."""
    return not PageCapture.is_hidden(element)


def text(element: HtmlElement | None) -> str:
    return " ".join(element.text_content().split()) if element is not None else ""


def css_string(value: str) -> str:
    """``value`` as a CSS string literal, for attribute selectors built from page data."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ") + '"'


def pin(capture: PageCapture, selector: str, matches: Sequence[HtmlElement], chosen: HtmlElement) -> Target:
    """``selector`` when it names exactly one element of the page (``matches``: what it matches in
    the capture), else the chosen element's ref: a CSS target must match once in the browser."""
    if len(matches) == 1 or chosen.get(REF_ATTR) is None:
        return css(selector)
    return ref(chosen.get(REF_ATTR, ""))


def _model_name(tool: str) -> str:
    return "".join(part.title() for part in tool.split("_")) + "Input"


# The model factories below are cached: building a pydantic model costs about half a millisecond,
# and a site asks for the same models on every capture of its pages.


@lru_cache(maxsize=64)
def index_model(tool: str, arg: str, what: str) -> type[BaseModel]:
    """Input with one list position (1 = the first shown): a pydantic model, so a bad index is refused
    (with pydantic's message) before anything runs. The number of rows is not in the schema: a list
    that grows or shrinks must not change the tool (a ``list_changed`` and a re-read of every tool for
    the client); a position past the end is refused by the plan's ``Choice`` with the valid ones."""
    position = Field(ge=1, description=f"{what} (1 = the first shown)")
    return create_model(_model_name(tool), __config__=STRICT, **{arg: (int, position)})


@lru_cache(maxsize=64)
def indexes_model(tool: str, arg: str, what: str) -> type[BaseModel]:
    """Input with one or more list positions (1 = the first shown)."""
    position = Annotated[int, Field(ge=1)]
    positions = Field(min_length=1, description=f"{what} (1 = the first shown)")
    return create_model(_model_name(tool), __config__=STRICT, **{arg: (list[position], positions)})


def choices_model(tool: str, arg: str, names: Sequence[str], what: str) -> type[BaseModel]:
    """Input with one or more of ``names``."""
    return _choices_model(tool, arg, tuple(names), what)


@lru_cache(maxsize=64)
def _choices_model(tool: str, arg: str, names: tuple[str, ...], what: str) -> type[BaseModel]:
    chosen = Field(min_length=1, description=what)
    return create_model(_model_name(tool), __config__=STRICT, **{arg: (list[Literal[names]], chosen)})


def index_choice(arg: str, targets: Iterable[Target | None]) -> Choice:
    """A target per list position, keyed "1", "2"… (what ``resolve_plan`` matches an index against).
    A position without a target (an item the page gives no handle on) keeps its number but is not
    a choice, so the numbers stay those of the list the model was shown."""
    return Choice(arg, {str(i): target for i, target in enumerate(targets, 1) if target is not None})
