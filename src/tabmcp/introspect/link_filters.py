"""Groups of links that narrow the page's main list become ``filter_list``, one argument per group.

Admin sites and catalogues filter a list with links rather than a form: a sidebar of groups ("By
supplier": All, Acme, Borealis…; "By date added": Any date, Today, Past 7 days…) and a drill-down of
dates above the list (2023, 2024 → March 2024…). Each link reloads the same address with other query
parameters. A group is the links of one list (``ul``/``ol``/``role=list``), or of one element when
they sit side by side, all of them to the page's own path with a query, at least two, outside the
list's rows, its pager and its headers. It is named by the ``summary`` of the ``details`` around it,
the heading just before it or its ``aria-label``, else by the query parameter its links set.

The tool's arguments are the groups, each an enum of the links' texts (the one the page shows
chosen is named in its description). A call follows one link per argument given, in the page's
order; each link is found at call time by the text it shows inside its group
(``Target(css=group, row=text)``), since every link before it reloads the page. A group is only
offered when a selector finds it again on the reloaded page: an ``id``, a ``data-*`` attribute or
classes unique on the page, on the group's element or an ancestor holding no other group's links;
else, for a bare list, its place among the lists of an ancestor with one (``#filters ul:nth-of-type(2)``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urljoin, urlsplit

from lxml.etree import XPath
from lxml.html import HtmlElement

from tabmcp.introspect.api import Introspector, PageTool, PlanStep, RowText, ToolHints
from tabmcp.introspect.lists import LIST_ATTR
from tabmcp.introspect.text import UNTRUSTED_NOTE, clean, name_words, param_name, quoted
from tabmcp.page.capture import PageCapture, label_text

TOOL_NAME = "filter_list"
MIN_LINKS = 2
MAX_CHOICES = 40  # a group of more links lists none: its texts are still matched at call time
MAX_GROUPS = 8
_LINKS = XPath("//a[@href]")
_LIST_MARKS = XPath(f"//@{LIST_ATTR}")
_LISTS = frozenset({"ul", "ol", "menu"})
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# Where a link is part of the list itself (a row's link, a sortable header) or the page's frame.
_NOT_A_FILTER = XPath(
    f"ancestor-or-self::*[self::table or self::thead or @role='grid' or @role='row' or self::form or @{LIST_ATTR}]"
)
_BY = re.compile(r"^\s*by\s+", re.I)
_WORD_KEY = re.compile(r"[A-Za-z][A-Za-z0-9]*")


@dataclass(frozen=True)
class _Group:
    box: HtmlElement  # the element holding the group's links
    links: tuple[HtmlElement, ...]
    label: str
    keys: tuple[str, ...]  # the query parameters its links set or clear


def _same_path_query(capture: PageCapture, link: HtmlElement) -> dict[str, str] | None:
    """The link's query when it reloads the page's own path with other parameters, else None."""
    href = (link.get("href") or "").strip()
    if not href or href.startswith(("#", "javascript:")):
        return None
    here, there = urlsplit(capture.url), urlsplit(urljoin(capture.url, href))
    if (there.scheme, there.netloc, there.path) != (here.scheme, here.netloc, here.path):
        return None
    if "?" not in href and there.query == "":
        return None
    return dict(parse_qsl(there.query, keep_blank_values=True))


def _box_of(link: HtmlElement) -> HtmlElement | None:
    """The list the link is an item of, else the element it sits in."""
    for ancestor in link.iterancestors():
        if ancestor.tag != "li" and ancestor.get("role") != "listitem":
            return ancestor
    return None


def _label(capture: PageCapture, box: HtmlElement) -> str:
    """The group's name: the summary of its details, the heading just before it, its aria-label."""
    for el in (box, *box.iterancestors()):
        if name := capture.aria_name(el) or el.get("aria-label"):
            return clean(name, 60)
        before = el.getprevious()
        while before is not None and before.tag not in _HEADINGS and before.tag != "summary":
            if next(before.iter("a"), None) is not None or before.tag in _LISTS:
                before = None
                break
            before = before.getprevious()
        if before is not None and (text := clean(label_text(before), 60)):
            return text
        if el.tag == "details" or el.tag in ("nav", "aside", "section", "body"):
            return ""
    return ""


def _varying(queries: list[dict[str, str]]) -> tuple[str, ...]:
    keys = sorted({k for q in queries for k in q})
    return tuple(k for k in keys if len({q.get(k) for q in queries}) > 1)


def _key_name(keys: tuple[str, ...]) -> str:
    """A name from the parameters a group sets: their shared first word (``added__year``,
    ``added__month`` → ``added``)."""
    firsts = {m.group(0) for k in keys if (m := _WORD_KEY.search(k))}
    return firsts.pop() if len(firsts) == 1 else ""


def _unique(capture: PageCapture, selector_xpath: str) -> bool:
    return len(capture.tree.xpath(selector_xpath)) == 1


def _own_selector(capture: PageCapture, el: HtmlElement) -> str:
    """A selector for ``el`` from its own id, ``data-*`` attribute or classes, when unique on the page."""
    if (ident := el.get("id")) and re.fullmatch(r"[A-Za-z][\w-]*", ident):
        return f"#{ident}"
    for attr, value in el.attrib.items():
        keyed = attr.startswith("data-") and not attr.startswith("data-tabmcp") and "'" not in value
        if keyed and _unique(capture, f"//{el.tag}[@{attr}='{value}']"):
            return f"{el.tag}[{attr}='{value}']"
    classes = sorted((el.get("class") or "").split())
    if classes and all(re.fullmatch(r"[A-Za-z][\w-]*", c) for c in classes):
        test = " and ".join(f"contains(concat(' ', normalize-space(@class), ' '), ' {c} ')" for c in classes)
        if _unique(capture, f"//{el.tag}[{test}]"):
            return el.tag + "".join(f".{c}" for c in classes)
    return ""


def _nth_of_type(el: HtmlElement) -> int:
    return 1 + sum(1 for s in el.itersiblings(preceding=True) if s.tag == el.tag)


def _selector(capture: PageCapture, group: _Group, others: set[HtmlElement]) -> str:
    """A CSS selector that finds the group's element again after a reload (see the module doc). A bare
    list is counted among its kind inside the closest ancestor with a selector of its own: the
    capture keeps every list, so the count is the page's."""
    for el in (group.box, *group.box.iterancestors()):
        if any(link in others for link in el.iter("a")):
            break  # further up holds another group's links
        if own := _own_selector(capture, el):
            return own
    if group.box.tag not in _LISTS:
        return ""
    nth = _nth_of_type(group.box)
    for ancestor in group.box.iterancestors():
        if own := _own_selector(capture, ancestor):
            alike = [d for d in ancestor.iter(group.box.tag) if d is not ancestor and _nth_of_type(d) == nth]
            return f"{own} {group.box.tag}:nth-of-type({nth})" if alike == [group.box] else ""
    return ""


def link_groups(capture: PageCapture) -> list[_Group]:
    """The page's groups of filter links, in document order."""
    boxes: dict[HtmlElement, list[tuple[HtmlElement, dict[str, str]]]] = {}
    for link in _LINKS(capture.tree):
        if _NOT_A_FILTER(link) or capture.is_hidden(link):
            continue
        query = _same_path_query(capture, link)
        box = _box_of(link)
        if query is None or box is None:
            continue
        boxes.setdefault(box, []).append((link, query))
    groups = []
    for box, found in boxes.items():
        every = [a for a in box.iter("a") if a.get("href")]
        if len(found) < MIN_LINKS or len(found) != len(every):
            continue  # a filter group is links to this page only (not a menu that holds one or two)
        keys = _varying([q for _, q in found])
        if not keys:
            continue
        groups.append(_Group(box, tuple(a for a, _ in found), _label(capture, box), keys))
    return groups


def _current(capture: PageCapture, group: _Group) -> str:
    """The text of the group's link that sets its parameters as the page has them, if any (the other
    parameters, a page number or a sort, left aside: they change as the list is browsed)."""
    here = dict(parse_qsl(urlsplit(capture.url).query, keep_blank_values=True))
    for link in group.links:
        query = _same_path_query(capture, link) or {}
        if all(query.get(k) == here.get(k) for k in group.keys):
            return clean(label_text(link), 60)
    return ""


@dataclass
class LinkFiltersIntrospector(Introspector):
    name: str = "link_filters"
    kind: str = "generic"

    def tools(self, capture: PageCapture) -> list[PageTool]:
        if not _LIST_MARKS(capture.tree):
            return []  # no main list on the page: nothing these links would narrow
        groups = link_groups(capture)[:MAX_GROUPS]
        properties: dict[str, dict[str, object]] = {}
        plan: list[PlanStep] = []
        taken: set[str] = set()
        titles: list[str] = []
        # the groups the page names take their names first: one named by its parameter gets the suffix
        named = {id(g): n for g in groups if (n := name_words(_BY.sub("", g.label)))}
        for group in sorted(groups, key=lambda g: id(g) not in named):
            # its parameters' shared word, else (a group the page names has it) the first parameter in words
            key = _key_name(group.keys)
            if key in named.values() or not key:
                key = name_words(group.keys[0].replace("__", "_"))
            named.setdefault(id(group), param_name(key, set(named.values())) if key else "")
        for group in groups:
            others = {a for g in groups if g is not group for a in g.links}
            selector = _selector(capture, group, others)
            raw = named[id(group)]
            if not selector or not raw:
                continue
            name = param_name(raw, taken)
            taken.add(name)
            texts = list(dict.fromkeys(t for a in group.links if (t := clean(label_text(a), 60))))
            shown = _current(capture, group)
            what = group.label or f"the links setting {', '.join(group.keys)}"
            about = f"{what}: the link to follow"
            about += f" (the page shows {quoted(shown)} now)" if shown else ""
            schema: dict[str, object] = {"type": "string", "minLength": 1, "description": about}
            if len(texts) <= MAX_CHOICES:
                schema["enum"] = texts
            properties[name] = schema
            plan.append(PlanStep("click", target=RowText(name, f"{selector} a[href]")))
            titles.append(group.label or name)
        if not properties:
            return []
        return [
            PageTool(
                name=TOOL_NAME,
                title="Filter the list",
                description=(
                    "Narrow the page's main list with its filter links (" + ", ".join(titles)[:200] + "): "
                    "each argument follows that group's link, in the page's order; groups left out stay as "
                    f"the page shows them. Returns the list's rows afterwards. {UNTRUSTED_NOTE}"
                ),
                input_schema={"type": "object", "properties": properties, "additionalProperties": False},
                plan=tuple(plan),
                hints=ToolHints(read_only=True, destructive=False, idempotent=True),
                source=self.name,
                element_ref=capture.ref(groups[0].box),
                rank=17,
            )
        ]
