"""The yardstick for page tools on real apps: what a page's tool list gets wrong, as plain findings.

Pure functions over a capture and the tools the introspector registry made of it (no browser), so the
report (report.py) and the unit tests read the same findings. Each finding has a kind (below), the
tool it is about, and a short text saying what was seen.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from lxml.etree import XPath
from lxml.html import HtmlElement

from tabmcp.introspect.api import Arg, Choice, Fmt, PageTool, Target
from tabmcp.page.capture import HIDDEN_ATTR, REF_ATTR, PageCapture
from tabmcp.tools.listing import page_tool_listing

# what each kind of finding means, in the order the report lists them
KINDS = {
    "numbered": "a name told apart by a number (search_2)",
    "same_stem": "two names with one stem (search / search_quick_search, delete / delete_2)",
    "same_description": "two tools with the same description",
    "cut_title": "a title or description cut mid-word or mid-parenthesis",
    "live_enum": "live data in an enum (row ids, numbers, item titles)",
    "live_number": "a number from the page in a name, title or description (a count, an id)",
    "row_tool": "a tool for one row of a list, named after the row's text (the rows are data)",
    "empty_enum": "an enum with no values (the tool cannot be called)",
    "widget_missing": "a code editor, autocomplete or search box on show that no tool takes as an argument",
    "no_returns": "a description that does not say what the tool returns",
    "unstable": "a page of the same kind with a different tool list (a list_changed for nothing)",
}

_CLASS = "contains(concat(' ', normalize-space(@class), ' '), ' {} ')"
WIDGETS: dict[str, XPath] = {
    "code editor": XPath(
        "//*[" + " or ".join(_CLASS.format(c) for c in ("CodeMirror", "cm-editor", "monaco-editor", "ace_editor"))
        + "]"
    ),
    "autocomplete": XPath(
        "//*["
        + " or ".join(_CLASS.format(c) for c in ("select2-container", "ts-wrapper", "choices", "tagify", "tagit"))
        + " or @role='combobox' or (self::input and (@list or @aria-autocomplete))]"
    ),
    "rich text": XPath("//*[@contenteditable='true' or @contenteditable='' or @contenteditable='plaintext-only']"),
    "search box": XPath(
        "//input[@type='search' or @role='searchbox' or contains(translate(@placeholder, 'SEARCH', 'search'), 'search')"
        " or contains(translate(@aria-label, 'SEARCH', 'search'), 'search')]"
    ),
}
# how the report names a widget that has no label
LIBRARIES = {"CodeMirror": "CodeMirror 5", "cm-editor": "CodeMirror 6", "monaco-editor": "Monaco", "ace_editor": "Ace",
             "select2-container": "select2", "ts-wrapper": "Tom Select", "choices": "Choices.js", "tagify": "Tagify",
             "tagit": "Tag-it", "public-DraftEditor-content": "Draft.js", "ProseMirror": "ProseMirror",
             "ql-editor": "Quill", "ck-editor__editable": "CKEditor"}
_OPTIONS = XPath("//option")
_DATA_CELLS = XPath("//td | //li | //a | //h1 | //h2 | //h3 | //h4")
# the list's own controls, not its data: column headers, and what the agent marked as the list's pager,
# sortable headers and page-size control
_LIST_CONTROLS = XPath("//th | //*[@role='columnheader'] | //*[@data-tabmcp-list] | //*[@data-tabmcp-list]//*")
_ID_LIKE = re.compile(r"\d|^[\w+/=-]{12,}$")
_NUMBER = re.compile(r"(?<![\w./=?&%-])\d[\d,]*(?![\w/=%-])")
_URL = re.compile(r"\b(?:GET|POST)\s+\S+|https?://\S+|/\S*|\b\d+(?:\.\d+){3}(?::\d+)?\S*")


@dataclass(frozen=True)
class Finding:
    kind: str
    tool: str
    text: str


def listing_chars(tools: Sequence[PageTool]) -> int:
    """Characters of the page tools as tools/list sends them (a JSON array of MCP tools)."""
    return len(json.dumps([page_tool_listing(t).model_dump(by_alias=True, exclude_none=True, mode="json")
                           for t in tools]))


def findings(capture: PageCapture, tools: Sequence[PageTool]) -> list[Finding]:
    found: list[Finding] = []
    found += _names(tools)
    found += _descriptions(tools)
    found += _cut(capture, tools)
    found += _live(capture, tools)
    found += _widgets(capture, tools)
    found += _row_tools(capture, tools)
    return found


def unstable(tools: Sequence[PageTool], other: Sequence[PageTool], other_name: str) -> list[Finding]:
    """Differences between the tool lists of two pages of the same kind (names and schemas)."""
    mine = {t.name: json.dumps(t.schema, sort_keys=True) for t in tools}
    theirs = {t.name: json.dumps(t.schema, sort_keys=True) for t in other}
    out: list[Finding] = []
    for name in sorted(mine.keys() - theirs.keys()):
        out.append(Finding("unstable", name, f"not on {other_name}"))
    for name in sorted(theirs.keys() - mine.keys()):
        out.append(Finding("unstable", name, f"only on {other_name}"))
    for name in sorted(mine.keys() & theirs.keys()):
        if mine[name] != theirs[name]:
            out.append(Finding("unstable", name, f"its schema differs on {other_name}"))
    return out


# ----------------------------------------------------------------- names and descriptions


def _stem(name: str) -> str:
    return re.sub(r"_\d+$", "", name)


def _names(tools: Sequence[PageTool]) -> Iterator[Finding]:
    names = [t.name for t in tools]
    for name in names:
        if re.search(r"_\d+$", name):
            yield Finding("numbered", name, f"told apart from {_stem(name)} by a number")
    stems = Counter(_stem(n) for n in names)
    seen: set[str] = set()
    for stem, count in stems.items():
        if count > 1:
            seen.add(stem)
            yield Finding("same_stem", stem, f"{count} tools named {stem}…")
    for a in sorted(set(map(_stem, names))):
        for b in sorted(set(map(_stem, names))):
            if a != b and b.startswith(a + "_") and a not in seen:
                yield Finding("same_stem", b, f"{b} and {a}")


def _descriptions(tools: Sequence[PageTool]) -> Iterator[Finding]:
    by_text = Counter(t.description for t in tools)
    for text, count in by_text.items():
        if count > 1:
            names = [t.name for t in tools if t.description == text]
            yield Finding("same_description", names[0], f"{count} tools: {', '.join(names[:4])}")
    for tool in tools:
        if not re.search(r"\breturns?\b", tool.description, re.I):
            yield Finding("no_returns", tool.name, tool.description[:80])


def _agent_names(capture: PageCapture) -> list[str]:
    """The agent's names of the referenced elements, read as introspectors read them (a name the agent
    left out as the element's text is that text)."""
    return [capture.accessible_name(e) for e in capture.tree.xpath(f"//*[@{REF_ATTR}]")]


def _page_words(capture: PageCapture) -> str:
    tree = capture.tree
    attrs = " ".join([*tree.xpath("//@aria-label | //@placeholder | //@title | //@value"), *_agent_names(capture)])
    return f"{tree.text_content()} {attrs} {capture.title}"


def _cut_word(word: str, words: str) -> bool:
    """True when ``word`` is on the page only as the start of a longer word (cut mid-word)."""
    if len(word) < 2:
        return False
    escaped = re.escape(word)
    return not re.search(rf"\b{escaped}\b", words, re.I) and bool(re.search(rf"\b{escaped}\w", words, re.I))


def _labels(capture: PageCapture) -> set[str]:
    """Every whole label on the page: accessible names, label-like attributes, controls' text."""
    tree = capture.tree
    found = {str(v).strip() for v in tree.xpath("//@aria-label | //@placeholder | //@title | //@value")}
    found |= {name for name in _agent_names(capture) if name}
    found |= {" ".join((e.text_content() or "").split()) for e in tree.xpath(f"//*[@{REF_ATTR}] | //label")}
    return found


def _cut(capture: PageCapture, tools: Sequence[PageTool]) -> Iterator[Finding]:
    words = _page_words(capture)
    labels = _labels(capture)
    for tool in tools:
        texts = [("title", tool.title or ""), ("description", tool.description)]
        texts += [(f"argument {name}", str(prop.get("description", "")))
                  for name, prop in tool.schema.get("properties", {}).items() if isinstance(prop, dict)]
        for what, text in texts:
            if not text:
                continue
            # a whole label the page itself shows, brackets and all ("Toggle Sidebar ([)"), is not cut
            shown = re.sub(r'"([^"]*)"', lambda m: "" if m.group(1) in labels else m.group(0), text)
            shown = "" if shown in labels else shown
            if shown.count("(") > shown.count(")") or shown.count("[") > shown.count("]"):
                yield Finding("cut_title", tool.name, f"{what} {text[:60]!r}: a bracket left open")
            for word in re.findall(r"(\w+)(?:…|\.\.\.)", text):
                if _cut_word(word, words):
                    yield Finding("cut_title", tool.name, f"{what}: {word}… is cut mid-word")
        tokens = re.findall(r"\w+", tool.title or "")
        if tokens and _cut_word(tokens[-1], words):
            yield Finding("cut_title", tool.name, f"title {tool.title!r}: its last word is cut")


# ----------------------------------------------------------------- live data


def _enums(schema: Any, path: str = "") -> Iterator[tuple[str, list[Any]]]:
    if isinstance(schema, dict):
        if "enum" in schema and isinstance(schema["enum"], list):
            yield path or "(schema)", schema["enum"]
        for key, value in schema.items():
            yield from _enums(value, f"{path}.{key}" if path and key not in ("properties", "items") else
                              (path if key in ("properties", "items") else key))
    elif isinstance(schema, list):
        for item in schema:
            yield from _enums(item, path)


def _seen_text(capture: PageCapture) -> str:
    """What a person reads on the page (no attribute values, which hold ids)."""
    tree = capture.tree
    names = " ".join([*tree.xpath("//@aria-label | //@placeholder | //@title"), *_agent_names(capture)])
    return f"{tree.text_content()} {names}".lower()


def _live(capture: PageCapture, tools: Sequence[PageTool]) -> Iterator[Finding]:
    options = {(o.text_content() or "").strip().lower() for o in _OPTIONS(capture.tree)}
    controls = {(e.text_content() or "").strip().lower() for e in _LIST_CONTROLS(capture.tree)}
    data = {(e.text_content() or "").strip().lower() for e in _DATA_CELLS(capture.tree)} - options - controls
    seen = _seen_text(capture)
    for tool in tools:
        for where, values in _enums(tool.schema):
            if not values:
                yield Finding("empty_enum", tool.name, f"{where}: enum []")
                continue
            texts = [str(v).strip().lower() for v in values if v not in (None, "")]
            if len(texts) < 2:
                continue
            numeric = [v for v in texts if re.fullmatch(r"[\d.,-]+", v)]
            # a word the page does not show is a fixed choice ("ascending"); an unseen token is an id
            unseen = [v for v in texts if v not in seen and _ID_LIKE.search(v)]
            rows = [v for v in texts if v in data]
            if len(numeric) >= 0.8 * len(texts) and not set(numeric) <= controls:  # page sizes are controls
                yield Finding("live_enum", tool.name, f"{where}: {len(values)} numbers {_few(values)}")
            elif len(unseen) >= 0.5 * len(texts):
                yield Finding("live_enum", tool.name, f"{where}: {len(values)} values the page does not show "
                              f"{_few(values)}")
            elif len(rows) >= 0.5 * len(texts):
                yield Finding("live_enum", tool.name, f"{where}: {len(values)} texts of the page's rows {_few(values)}")
        for what, text in (("name", tool.name), ("title", tool.title or ""), ("description", tool.description)):
            numbers = [n for n in _NUMBER.findall(_URL.sub(" ", text)) if not re.fullmatch(r"(19|20)\d\d", n)]
            if what == "name":
                numbers = [n for n in re.findall(r"\d+", _stem(text))]
            if numbers:
                yield Finding("live_number", tool.name, f"{what}: {', '.join(numbers[:5])}")


def _few(values: Sequence[Any]) -> str:
    shown = ", ".join(repr(v) for v in values[:3])
    return f"({shown}{', …' if len(values) > 3 else ''})"


# ----------------------------------------------------------------- widgets as arguments


def _rendered(element: HtmlElement) -> bool:
    return not any(e.get(HIDDEN_ATTR) is not None for e in element.iterancestors()) and element.get(HIDDEN_ATTR) is None


def argument_refs(tools: Sequence[PageTool]) -> dict[str, set[str]]:
    """Per tool, the refs its plan writes from an argument: a step whose value is an argument (or built
    from arguments), or a target chosen by an argument."""
    out: dict[str, set[str]] = {}
    for tool in tools:
        mine = out.setdefault(tool.name, set())
        for step in tool.plan:
            target = step.target
            if isinstance(target, Choice):
                mine.update(t.ref for t in target.targets.values() if isinstance(t.ref, str))
            elif isinstance(target, Target) and isinstance(target.ref, str) and isinstance(step.value, (Arg, Fmt)):
                mine.add(target.ref)
    return out


def widgets_on_show(capture: PageCapture) -> list[tuple[str, HtmlElement]]:
    """The outermost code editors, autocompletes and rich-text fields that are rendered."""
    found: list[tuple[str, HtmlElement]] = []
    taken: set[HtmlElement] = set()
    for kind, query in WIDGETS.items():
        for element in query(capture.tree):
            if not _rendered(element) or any(a in taken for a in element.iterancestors()) or element in taken:
                continue
            taken.add(element)
            found.append((kind, element))
    return found


def _widgets(capture: PageCapture, tools: Sequence[PageTool]) -> Iterator[Finding]:
    written = set().union(*argument_refs(tools).values()) if tools else set()
    # a box of a search another box's tool stands for (``PageTool.also_claims``) is that tool's
    standing = {ref for tool in tools for ref in tool.also_claims}
    for kind, element in widgets_on_show(capture):
        if any(a.get(REF_ATTR) in standing for a in (element, *element.iterancestors())):
            continue
        scope = element.getparent() if element.getparent() is not None else element
        refs = {str(r) for r in scope.xpath(f".//@{REF_ATTR}")}
        if scope.get(REF_ATTR):
            refs.add(str(scope.get(REF_ATTR)))
        if refs & written:
            continue
        label = _widget_label(capture, element, scope)
        yield Finding("widget_missing", "-", f"{kind} {label!r}")


def _widget_label(capture: PageCapture, element: HtmlElement, scope: HtmlElement) -> str:
    """The widget's label as a person reads it: its field's label, the form group's, else a name."""
    for field in scope.xpath(".//input[@id] | .//select[@id] | .//textarea[@id]"):
        for label in capture.tree.xpath("//label[@for=$id]", id=field.get("id")):
            text = " ".join((label.text_content() or "").split())
            if text:
                return text[:40]
    group = scope.getparent()
    # the label of a form group: the scope's parent when that holds little more than the label
    for around in (scope, group if group is not None and len(group) <= 3 else None):
        if around is None:
            continue
        labels = around.xpath(".//label")
        if labels and (labels[0].text_content() or "").strip():
            return " ".join((labels[0].text_content() or "").split())[:40]
    for candidate in (element, *scope.xpath(f".//*[@{REF_ATTR}]")):
        name = capture.accessible_name(candidate) if candidate.get(REF_ATTR) else ""
        if name:
            return name[:40]
    classes = f" {element.get('class', '')} "
    for cls, library in LIBRARIES.items():
        if f" {cls} " in classes:
            return library
    return element.tag


# ----------------------------------------------------------------- tools for one row


ROWS = 6  # alike siblings that make a list of data rather than a toolbar


def _signature(element: HtmlElement) -> tuple[str, str]:
    return element.tag, " ".join(sorted(str(element.get("class", "")).split()))


def _row_tools(capture: PageCapture, tools: Sequence[PageTool]) -> Iterator[Finding]:
    """A tool whose element is one of many alike siblings (rows of a list or table; a toolbar has a
    few), and whose title is that row's text: the tool list changes with the data."""
    for tool in tools:
        element = capture.by_ref(tool.element_ref) if tool.element_ref else None
        if element is None or not tool.title:
            continue
        for row in (element, *element.iterancestors()):
            parent = row.getparent()
            if parent is None or row.tag in ("form", "body", "html"):
                break
            alike = [s for s in parent if _signature(s) == _signature(row)]
            if len(alike) >= ROWS:
                text = " ".join((row.text_content() or "").split())
                if tool.title and tool.title.split()[0] in text:
                    yield Finding("row_tool", tool.name, f"one of {len(alike)} alike rows: {tool.title[:50]!r}")
                break
