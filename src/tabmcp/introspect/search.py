"""The generic search introspector: a page's search box becomes ``search(query)``.

Search boxes are found the ways pages mark them: a ``role=search`` landmark (or a ``<search>``
element), an ``<input type=search>`` or ``role=searchbox``, and the common ``name=q`` input. The
tool fills the query and submits the box's form (``requestSubmit``), or presses Enter when there
is no form. It claims the form (or the landmark around it), so the generic form introspector,
which runs after it, does not list the same form again; other fields of the form become optional
arguments, and on a GET form sent to the page it is on (the page's own filter form: a filter row, a
category) the query is optional too. The answer is the page's generic summary, whose ``results`` list the hits.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from urllib.parse import urljoin, urlsplit

from lxml.etree import XPath
from lxml.html import HtmlElement

from tabmcp.introspect.api import Arg, Fmt, Introspector, PageTool, PlanStep, ToolHints
from tabmcp.introspect.form_names import submit_button
from tabmcp.introspect.forms import editable, form_fields, is_declarative
from tabmcp.introspect.purpose import heading_above, landmark_name, landmark_of, landmark_word, qualifiers
from tabmcp.introspect.search_scope import Scope, fuller_form, same_search, scope_of
from tabmcp.introspect.text import UNTRUSTED_NOTE, cap_words, clean, name_words, quoted, without_counters
from tabmcp.page.capture import PageCapture
from tabmcp.protocol import Target

# One XPath over the page (document order), not one per control, through attribute nodes
# (``//@role[…]/..``): libxml2 walks those far faster than it tests ``//*[@role=…]``. The boxes are the
# inputs search(query) is made for; the actions introspector leaves their buttons: both read them
# through ``PageCapture.select``, so the page is searched for them once.
_SAYS_SEARCH = " or ".join(
    f"starts-with(translate(normalize-space(@{attr}), 'SEARCH', 'search'), 'search')"
    for attr in ("placeholder", "aria-label")
)
# The inputs are tested in one pass over them (each attribute walk, ``//@name``, is a pass over the page).
SEARCH_BOXES = XPath(
    "//input[translate(@type, 'SEARCH', 'search')='search' or @name='q'"
    # a plain text box that says it searches ("Search emails…"), as apps built without forms make them
    f" or ((not(@type) or translate(@type, 'TEXT', 'text')='text') and ({_SAYS_SEARCH}))]"
    " | //textarea[@name='q'] | //@role[.='searchbox']/.."
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
        found: list[_Found] = []
        seen: set[HtmlElement] = set()
        searches: set[tuple[str, ...]] = set()
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
            if form is not None and fuller_form(capture, form) is not None:
                continue  # the page's own search form sends this query too, with its filters: its tool
            same = _same_search(capture, box, form)
            if same in searches:
                continue  # the same search again (a header's box and a "quick search" both send q to /search)
            searches.add(same)
            found.append((box, form, landmark, scope_of(capture, box, form)))
            if len(found) == 3 * MAX_SEARCH_TOOLS:
                break
        # the page's own search (in its main content) first: it keeps the plain name ``search``
        found.sort(key=lambda entry: _place(entry[0]))
        kept = _one_per_search(found)[:MAX_SEARCH_TOOLS]
        scopes = [entry[3] for entry, _ in kept] if len(kept) > 1 else []
        # searches over different sections of the site (the users list, the site's pages): each is named
        # for what it searches, not only the one whose plain name is taken
        named = {id(s): s.topic for s in scopes if s is not None and s.topic}
        topics = named if len(set(named.values())) > 1 else {}
        tools = []
        for n, (entry, same) in enumerate(kept):
            told = _told(entry[3], scopes)
            tool = self._tool(capture, *entry[:3], n, told, by_topic=told == topics.get(id(entry[3])))
            # the same search's other boxes are this tool's: no form tool lists them again
            also = (_claim(capture, *other[:3]) for other in same)
            tools.append(replace(tool, also_claims=tuple(r for r in also if r)))
        return tools

    def _tool(
        self,
        capture: PageCapture,
        box: HtmlElement,
        form: HtmlElement | None,
        landmark: HtmlElement | None,
        n: int,
        told: str = "",
        *,
        by_topic: bool = False,
    ) -> PageTool:
        label = _label(capture, box)
        if not label and landmark is not None:
            label = clean(capture.aria_name(landmark), 60)
        place = landmark_of(box)
        where, place_name = landmark_word(place), landmark_name(capture, place)
        heading = heading_above(form if form is not None else box, within=place, capture=capture)
        host = urlsplit(capture.url).hostname or "this site"
        query: dict[str, object] = {"type": "string", "minLength": 1, "description": "What to search for"}
        if label:
            query["description"] = f"What to search for (the page's search box {quoted(label)})"
        plan = [PlanStep("fill", target=Target(ref=capture.ref(box)), value=Arg("query"))]
        properties: dict[str, dict[str, object]] = {"query": query}
        required = ["query"]
        filters = False
        action = ""
        live = is_live(capture, box, form)
        if live:
            # nothing to submit: the page shows its results as the query is typed
            plan.append(PlanStep("results", target=Target(ref=capture.ref(box)), value=Fmt("{result}"), key="Enter"))
            properties["result"] = dict(RESULT_ARG)
        elif form is not None and capture.ref(form):
            extra = form_fields(capture, form, skip=frozenset({box}), taken={"query"})
            properties.update(extra.properties)
            if extra.properties and _filters_here(capture, form):
                # the page's own filter form (a column and a value, a category) narrows its list without a query
                required = []
                del query["minLength"]
                query["description"] = (
                    f"{query['description']}; left out, the box keeps what it shows, \"\" empties it: the other "
                    "arguments filter on their own"
                )
                filters = True
            required += extra.required
            plan += extra.plan
            plan.append(PlanStep("submit", target=Target(ref=capture.ref(form))))
            action = form.get("action") or ""
        else:
            plan.append(PlanStep("press", target=Target(ref=capture.ref(box)), key="Enter"))
        what = f"{host}'s search box {quoted(label)}" if label else f"{host}'s search box"
        located = f" in the page's {where}" if where else ""
        if live:
            description = (
                f"Search with {what}{located}: types the query; the page shows its results as it is typed. "
                "Returns those results (title, url); with result, opens the one that shows that text. "
                f"{UNTRUSTED_NOTE}"
            )
        elif filters:
            description = (
                f"Search with {what}{located} and the filters of its form: types the query, sets the fields "
                f"given and submits them. Returns the results the page shows. {UNTRUSTED_NOTE}"
            )
        else:
            description = (
                f"Search with {what}{located}: types the query and submits it. "
                f"Returns the results the page shows. {UNTRUSTED_NOTE}"
            )
        schema = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
        path = " ".join(p for p in urlsplit(action).path.split("/") if p and not any(c.isdigit() for c in p))
        return PageTool(
            name=f"search_{told}" if by_topic and search_name(label) == "search" else search_name(label),
            title=_title(label),
            description=description,
            input_schema=schema,
            plan=tuple(plan),
            hints=ToolHints(read_only=True, idempotent=True),
            source=self.name,
            element_ref=_claim(capture, box, form, landmark),
            rank=10 + n,
            qualifiers=qualifiers(told, place_name, heading, where, path),
        )


_Found = tuple[HtmlElement, HtmlElement | None, HtmlElement | None, Scope | None]


def _one_per_search(found: list[_Found]) -> list[tuple[_Found, list[_Found]]]:
    """The first (most the page's own) of the boxes that are one search (``same_search``), each with
    the others of its search."""
    kept: list[tuple[_Found, list[_Found]]] = []
    for entry in found:
        scope = entry[3]
        same = next((k for k in kept if scope and k[0][3] and same_search(k[0][3], scope)), None)
        if same is None:
            kept.append((entry, []))
        else:
            same[1].append(entry)
    return kept


def _told(scope: Scope | None, scopes: list[Scope | None]) -> str:
    """With several searches on the page, what tells this one apart when two want one name: what it
    searches (``pages``, ``users``; ``all_pages`` beside the page's own list of pages). A qualifier,
    not a description: the tool looks the same on a page where it is alone, so its name is kept."""
    if scope is None or not scopes or not scope.topic:
        return ""
    if any(s is not None and s is not scope and s.own != scope.own and s.topic == scope.topic for s in scopes):
        # the site's search over what this page lists a part of: "all_pages"; the page's own, where it is
        return "" if scope.own else f"all_{scope.topic}"
    return scope.topic


# Words of a search box's label that say only "search here", not what is searched.
_SEARCH_FILLER = frozenset({
    "search", "searching", "query", "find", "for", "the", "a", "an", "this", "here", "type", "start", "typing", "to",
    "keywords", "keyword", "term", "terms", "enter", "box", "input", "field", "quick", "go", "press", "everything",
    "all", "site", "website", "or", "and", "of", "in", "on", "by",
})
_VERBS = ("filter", "find", "jump", "look", "lookup", "go")


def search_name(label: str) -> str:
    """``search`` for a box that says only "Search"; else what its label says it searches
    (``search_books``), or its own verb when it does something else ("Filter navigation items" →
    ``filter_navigation_items``). Never a number: two boxes are told apart by where they are
    (the registry adds their qualifiers)."""
    words = name_words(without_counters(label)).split("_")
    if words and words[0] in _VERBS and len(words) > 1:
        return "_".join(words[:4])
    topic = [w for w in words if w and w not in _SEARCH_FILLER]
    return "_".join(["search", *topic[:3]])


RESULT_ARG: dict[str, object] = {
    "type": "string",
    "description": "A text one of the results shows (a title from an earlier answer): opens that result "
    "instead of listing them",
}


def is_live(capture: PageCapture, box: HtmlElement, form: HtmlElement | None) -> bool:
    """A search whose results the page shows as the query is typed, in a popover or a dialog near the
    box: its form sends nothing anywhere (no action, no submit button), or, with no action to send
    it to, the box names the element it fills (``aria-controls``/``aria-owns``) or is an ARIA
    combobox popping up suggestions (an autocomplete's listbox). Either way the tool types and reads
    what shows; if nothing does, it presses Enter as a person would."""
    if form is not None and (form.get("action") or "").strip():
        return False
    owned = " ".join(box.get(a) or "" for a in ("aria-controls", "aria-owns")).split()
    if any(capture.by_id(i) is not None for i in owned) or _suggests(box):
        return True
    return form is not None and submit_button(capture, form) is None


def _suggests(box: HtmlElement) -> bool:
    """An ARIA combobox (the box, or around it in ARIA 1.1's pattern) that says it pops up a list of
    suggestions: it may name the list only once open."""
    for el in (box, *box.iterancestors()):
        if el.get("role") != "combobox":
            continue
        autocomplete = (el.get("aria-autocomplete") or box.get("aria-autocomplete") or "").strip().lower()
        popup = (el.get("aria-haspopup") or "").strip().lower()
        return autocomplete in ("list", "both") or popup in ("listbox", "grid", "tree")
    return False


# Labels that name a button, not what the box searches (a box labelled by the label holding its submit
# button, as Algolia Autocomplete draws it): its placeholder says more.
_BUTTON_WORDS = frozenset({"submit", "go", "ok", "send", "enter"})


def _label(capture: PageCapture, box: HtmlElement) -> str:
    """The box's label without a count ("Search 1,234 books" is the box "Search books")."""
    label = capture.label_for(box)
    if label.strip().lower() in _BUTTON_WORDS and (box.get("placeholder") or "").strip():
        label = box.get("placeholder") or ""
    return clean(without_counters(label), 60).rstrip(" .…")  # "Search emails..." is a prompt


def _same_search(capture: PageCapture, box: HtmlElement, form: HtmlElement | None) -> tuple[str, ...]:
    """What a search sends: two boxes sending the same field to the same place are one search."""
    if form is None:
        return ("box", _label(capture, box).lower() or str(id(box)))
    action = urlsplit(form.get("action") or capture.url)
    return ("form", (form.get("method") or "get").lower(), action.netloc, action.path, box.get("name") or str(id(box)))


def _filters_here(capture: PageCapture, form: HtmlElement) -> bool:
    """A GET form sent to the page it is on: it filters the page's own list (a site's search box sends
    the query to its search page)."""
    if (form.get("method") or "get").strip().lower() != "get":
        return False
    return urlsplit(urljoin(capture.url, form.get("action") or "")).path == urlsplit(capture.url).path


_PLACES = {"": 0, "header": 1, "dialog": 1, "sidebar": 2, "navigation": 2, "footer": 3}


def _place(box: HtmlElement) -> int:
    """Where a box is, by how much it is the page's own search: main content, then the header's
    site-wide box (or a dialog's), then a sidebar or navigation (a filter of links), then the footer."""
    return _PLACES.get(landmark_word(landmark_of(box)), 1)


def _title(label: str) -> str:
    if not label:
        return "Search"
    says_it = label.lower().startswith(("search", *_VERBS))
    return cap_words(label if says_it else f"Search: {label}", 60)


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
    if not editable(capture, el) or _in_combobox(el):
        return False
    if el.tag == "input":
        return (el.get("type") or "").strip().lower() in _TEXT_TYPES
    return el.tag == "textarea" or el.get("contenteditable") in ("", "true", "plaintext-only")


def _in_combobox(el: HtmlElement) -> bool:
    """The search field of a combobox widget (Choices.js, Tom Select type into an input inside it): part
    of that form field, not a search box of the page. Inside a search landmark, an ARIA 1.1 combobox
    around the box is the search's own autocomplete (Algolia Autocomplete draws it so): its box searches."""
    ancestors = list(el.iterancestors())
    return any(a.get("role") == "combobox" for a in ancestors) and not any(_is_landmark(a) for a in ancestors)


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
