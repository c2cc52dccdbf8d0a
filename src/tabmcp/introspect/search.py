"""The generic search introspector: a page's search box becomes ``search(query)``.

Search boxes are found the ways pages mark them: a ``role=search`` landmark (or a ``<search>``
element), an ``<input type=search>`` or ``role=searchbox``, and the common ``name=q`` input. The
tool fills the query and submits the box's form (``requestSubmit``), or presses Enter when there
is no form. It claims the form (or the landmark around it), so the generic form introspector,
which runs after it, does not list the same form again; other fields of the form become optional
arguments. The answer is the page's generic summary, whose ``results`` list the hits.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from lxml.etree import XPath
from lxml.html import HtmlElement

from tabmcp.introspect.api import Arg, Introspector, PageTool, PlanStep, ToolHints
from tabmcp.introspect.forms import editable, form_fields, is_declarative
from tabmcp.introspect.text import UNTRUSTED_NOTE, clean, quoted, snake
from tabmcp.page.capture import PageCapture
from tabmcp.protocol import Target

# One XPath over the page (document order), not one per control, through attribute nodes
# (``//@role[…]/..``): libxml2 walks those far faster than it tests ``//*[@role=…]``. The boxes are the
# inputs search(query) is made for; the actions introspector leaves their buttons: both read them
# through ``PageCapture.select``, so the page is searched for them once.
SEARCH_BOXES = XPath(
    "//@role[.='searchbox']/.. | //@type[translate(., 'SEARCH', 'search')='search']/parent::input"
    " | //@name[.='q']/parent::*[self::input or self::textarea]"
)
_LANDMARKS = XPath("//@role[.='search']/.. | //search")
_IN_ORDER = XPath("$a | $b")  # two small lists merged in document order
_TEXT_TYPES = frozenset({"", "text", "search"})
MAX_SEARCH_TOOLS = 3


@dataclass
class SearchIntrospector(Introspector):
    name: str = "search"
    kind: str = "generic"

    def tools(self, capture: PageCapture) -> list[PageTool]:
        tools: list[PageTool] = []
        seen: set[HtmlElement] = set()
        candidates = _IN_ORDER(capture.tree, a=list(capture.select(_LANDMARKS)), b=list(capture.select(SEARCH_BOXES)))
        for candidate in candidates:
            landmark = candidate if _is_landmark(candidate) else None
            box = _box_in(capture, candidate) if landmark is not None else candidate
            if box is None or box in seen or not _fillable(capture, box):
                continue
            seen.add(box)
            if landmark is None:
                landmark = next((a for a in box.iterancestors() if _is_landmark(a)), None)
            form = capture.form_of(box)
            if form is not None and (is_declarative(form) or capture.is_hidden(form)):
                continue  # a WebMCP form is the page's own tool
            tools.append(self._tool(capture, box, form, landmark, len(tools)))
            if len(tools) == MAX_SEARCH_TOOLS:
                break
        return tools

    def _tool(
        self, capture: PageCapture, box: HtmlElement, form: HtmlElement | None, landmark: HtmlElement | None, n: int
    ) -> PageTool:
        label = clean(capture.label_for(box), 60)
        if not label and landmark is not None:
            label = clean(capture.aria_name(landmark), 60)
        host = urlsplit(capture.url).hostname or "this site"
        query: dict[str, object] = {"type": "string", "minLength": 1, "description": "What to search for"}
        if label:
            query["description"] = f"What to search for (the page's search box {quoted(label)})"
        plan = [PlanStep("fill", target=Target(ref=capture.ref(box)), value=Arg("query"))]
        properties: dict[str, dict[str, object]] = {"query": query}
        required = ["query"]
        if form is not None and capture.ref(form):
            extra = form_fields(capture, form, skip=frozenset({box}), taken={"query"})
            properties.update(extra.properties)
            required += extra.required
            plan += extra.plan
            plan.append(PlanStep("submit", target=Target(ref=capture.ref(form))))
        else:
            plan.append(PlanStep("press", target=Target(ref=capture.ref(box)), key="Enter"))
        what = f"{host}'s search box {quoted(label)}" if label else f"{host}'s search box"
        description = (
            f"Search with {what}: types the query and submits it. Returns the results the page shows. {UNTRUSTED_NOTE}"
        )
        schema = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
        return PageTool(
            name=_name(label, n),
            title=_title(label),
            description=description,
            input_schema=schema,
            plan=tuple(plan),
            hints=ToolHints(read_only=True, idempotent=True),
            source=self.name,
            element_ref=_claim(capture, box, form, landmark),
            rank=10 + n,
        )


def _name(label: str, n: int) -> str:
    """``search`` for the page's first search box; the others say what they search: ``search_docs``."""
    words = snake(label).removeprefix("search").strip("_")
    return "search" if n == 0 or not words else f"search_{words}"[:40].rstrip("_")


def _title(label: str) -> str:
    if not label:
        return "Search"
    return label if label.lower().startswith("search") else clean(f"Search: {label}", 60)


def _is_landmark(el: HtmlElement) -> bool:
    return el.get("role") == "search" or (el.tag == "search" and not el.get("role"))


def _box_in(capture: PageCapture, landmark: HtmlElement) -> HtmlElement | None:
    """The query input of a search landmark: a search-typed one, else ``name=q``, else the first text input."""
    best: tuple[int, HtmlElement] | None = None
    for el in landmark.iter("input", "textarea"):
        if not _fillable(capture, el):
            continue
        kind = (el.get("type") or "").lower()
        score = 0 if kind == "search" or el.get("role") == "searchbox" else 1 if el.get("name") == "q" else 2
        if best is None or score < best[0]:
            best = (score, el)
    return best[1] if best else None


def _fillable(capture: PageCapture, el: HtmlElement) -> bool:
    if not editable(capture, el):
        return False
    if el.tag == "input":
        return (el.get("type") or "").strip().lower() in _TEXT_TYPES
    return el.tag == "textarea" or el.get("contenteditable") in ("", "true", "plaintext-only")


def _claim(
    capture: PageCapture, box: HtmlElement, form: HtmlElement | None, landmark: HtmlElement | None
) -> str | None:
    """The outermost of the landmark and the form (so neither the form introspector nor a button
    inside the landmark lists it again), else the box."""
    outside_form = landmark is not None and (form is None or form not in landmark.iterancestors())
    if landmark is not None and capture.ref(landmark) and outside_form:
        return capture.ref(landmark)
    if form is not None and capture.ref(form):
        return capture.ref(form)
    return capture.ref(box)
