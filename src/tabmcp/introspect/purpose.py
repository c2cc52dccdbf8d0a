"""Where a control sits, in words: the landmark around it and the heading above it.

The generic introspectors name a tool for what it does ("Search books", "Log in"); when two tools of a
page would do the same thing by name (two search boxes, two "Save" forms), what tells them apart is
where they are: the sidebar's navigation filter and the list's own search, the "Add comment" form and
the "Edit profile" one. These functions read that from the capture, for names, qualifiers and
descriptions. Numbers never come through (``name_words``): a heading's count or a row's id would make
the tool change with the page's data.
"""

from __future__ import annotations

from lxml.html import HtmlElement

from tabmcp.introspect.text import clean, name_words
from tabmcp.page.capture import PageCapture, label_text

HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
# Landmarks by tag and role, with the word that says where a control in them is.
_LANDMARK_TAGS = {"nav": "navigation", "aside": "sidebar", "header": "header", "footer": "footer", "main": ""}
_LANDMARK_ROLES = {
    "navigation": "navigation",
    "complementary": "sidebar",
    "banner": "header",
    "contentinfo": "footer",
    "main": "",
    "dialog": "dialog",
    "alertdialog": "dialog",
    "region": "",
}
MAX_HEADING_WORDS = 6  # a longer heading is a sentence or an item's title, not what a tool is for
MAX_TEXT = 60
MAX_WALK = 400  # siblings and headings looked at per control: linear work on a page of thousands of forms


def landmark_of(el: HtmlElement) -> HtmlElement | None:
    """The nearest landmark around ``el``: ``nav``, ``aside``, ``header``, ``footer``, ``main``, a
    ``dialog`` or an element with a landmark role (a ``header`` inside an article is not the page's)."""
    for ancestor in el.iterancestors():
        role = ancestor.get("role")
        if role in _LANDMARK_ROLES or ancestor.tag == "dialog":
            return ancestor
        if ancestor.tag in _LANDMARK_TAGS and not role:
            if ancestor.tag in ("header", "footer") and _in_section(ancestor):
                continue
            return ancestor
    return None


def landmark_word(landmark: HtmlElement | None) -> str:
    """Where a landmark is, in one word: ``navigation``, ``sidebar``, ``header``, ``footer``,
    ``dialog``; "" for the main content (the page's own subject) and for none."""
    if landmark is None:
        return ""
    role = landmark.get("role")
    if role in _LANDMARK_ROLES:
        return _LANDMARK_ROLES[role]
    if landmark.tag == "dialog":
        return "dialog"
    return _LANDMARK_TAGS.get(landmark.tag, "")


def landmark_name(capture: PageCapture, landmark: HtmlElement | None) -> str:
    """The landmark's own name (``aria-label``, ``aria-labelledby``), "" without one."""
    if landmark is None:
        return ""
    name = capture.aria_name(landmark) or landmark.get("aria-label") or ""
    if not name and (ids := landmark.get("aria-labelledby")):
        name = " ".join(label_text(e) for i in ids.split() if (e := capture.by_id(i)) is not None)
    return clean(name, MAX_TEXT)


def heading_above(el: HtmlElement, *, within: HtmlElement | None = None, capture: PageCapture | None = None) -> str:
    """The most important heading of the nearest section above ``el``: walking out from ``el``, the
    first level whose earlier siblings hold headings gives its highest-ranked one (the page's "Change
    book" rather than the item's title under it; the nearest of equal rank). Headings of more than
    ``MAX_HEADING_WORDS`` words are sentences or titles, not names: "" then. With ``capture``, what each
    container's children hold is read once per capture: sibling forms share the scan of the siblings
    before them."""
    scans: dict[HtmlElement, _Scan] = capture.memo("heading_above") if capture is not None else {}
    node = el
    budget = MAX_WALK
    while node is not None and node is not within and budget > 0:
        parent = node.getparent()
        if parent is None:
            return ""  # the root: what precedes it is never a heading
        scan = scans.get(parent)
        if scan is None:
            scan = scans[parent] = _Scan(parent)
        best: HtmlElement | None = None
        best_level = 0
        read = scan.read
        for i in range(scan.position[node] - 1, -1, -1):
            budget -= 1
            if budget <= 0:
                break
            held = read[i]
            if held is None:
                held = scan.read_child(i)
            if not held:
                continue
            heading, level, cost = held
            if best is None or level < best_level:
                best, best_level = heading, level
            budget -= cost
        if best is not None:
            text = clean(label_text(best), MAX_TEXT)
            return text if 0 < len(text.split()) <= MAX_HEADING_WORDS else ""
        node = parent
    return ""


# A child's highest-ranked heading (the first of its rank), its level and cost; () for a child without one.
_Held = tuple[HtmlElement, int, int] | tuple[()]


class _Scan:
    """A container's children (comments too: each costs the walk's budget) and, read the first time a
    walk reaches each, the highest-ranked heading it is or holds with what its headings cost the budget
    beyond the child's own step (a heading itself nothing more; each heading inside another element one)."""

    def __init__(self, parent: HtmlElement) -> None:
        self.children = list(parent)
        self.position = {child: i for i, child in enumerate(self.children)}
        self.read: list[_Held | None] = [None] * len(self.children)

    def read_child(self, i: int) -> _Held:
        child = self.children[i]
        held: _Held = ()
        if not isinstance(child.tag, str):
            pass
        elif _is_heading(child):
            held = (child, _level(child), 0)
        elif len(child):
            inside = list(child.iter(*HEADINGS))
            if inside:
                best = min(inside, key=_level)
                held = (best, _level(best), len(inside))
        self.read[i] = held
        return held


# What a person fills in: a heading after one of these titles a part of the form, not the form.
_FIELD_TAGS = ("input", "select", "textarea")


def heading_inside(el: HtmlElement) -> str:
    """The first heading or legend inside ``el`` before its first shown field (a form's own title).
    A heading below fields titles a part of the form (a group of rows added inline, a section):
    it would name the whole form after that part."""
    for h in el.iter(*HEADINGS, "legend", *_FIELD_TAGS):
        if h.tag in _FIELD_TAGS:
            if h.tag != "input" or (h.get("type") or "").lower() != "hidden":
                return ""
            continue
        text = clean(label_text(h), MAX_TEXT)
        if text:
            return text
    return ""


def qualifiers(*texts: str) -> tuple[str, ...]:
    """Name words from each text, in order, without repeats or empties (``name_words``: no numbers)."""
    seen: list[str] = []
    for text in texts:
        words = name_words(text or "")
        if words and words not in seen:
            seen.append(words)
    return tuple(seen)


def _in_section(el: HtmlElement) -> bool:
    return any(a.tag in ("article", "section") for a in el.iterancestors())


def _is_heading(el: HtmlElement) -> bool:
    return el.tag in HEADINGS or el.get("role") == "heading"


def _level(h: HtmlElement) -> int:
    if h.tag in HEADINGS:
        return int(h.tag[1])
    try:
        return int(h.get("aria-level") or 2)
    except ValueError:
        return 2
