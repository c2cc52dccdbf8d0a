"""The page as the natural-language tools read it: a locate-mode snapshot as rows, with its tree,
tables, lists and text (pure).

The agent's locate mode is its full snapshot (every row with text, ``depth`` giving the tree, hidden
things left out) plus, on interactive rows, ``hint`` (placeholder, title, input type and name) and
``context`` (the text of the small group around the element: a product card, a table row). Only
what a person can see is here, so nothing hidden is ever located, counted or quoted.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from tabmcp.introspect.text import without_formatting
from tabmcp.nl.words import Bag, join_texts, normal
from tabmcp.page.toon import clean

MAX_FIELD = 500

# Roles a person acts on; the others are structure or text.
INTERACTIVE_ROLES = frozenset(
    {
        "button", "link", "textbox", "searchbox", "combobox", "listbox", "option", "checkbox", "radio", "switch",
        "slider", "spinbutton", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "treeitem", "generic",
    }
)  # fmt: skip
EDITABLE_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})
TABLE_ROLES = frozenset({"table", "grid", "treegrid"})
CELL_ROLES = frozenset({"cell", "gridcell", "columnheader", "rowheader"})
LIST_ROLES = frozenset({"list", "listbox", "menu", "menubar", "tablist", "tree", "feed", "radiogroup"})
ITEM_ROLES = frozenset({"listitem", "option", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "treeitem",
                        "article", "radio"})  # fmt: skip


@dataclass(frozen=True)
class Row:
    """One snapshot row; ``index`` is its place in document order, ``parent`` the index of the row it
    is inside (-1 at the top)."""

    index: int
    ref: str
    role: str
    name: str
    value: str = ""
    states: tuple[str, ...] = ()
    depth: int = 0
    hint: str = ""
    context: str = ""
    parent: int = -1
    section: str = ""  # the nearest heading above it: what the part of the page it is in is called

    @property
    def is_text(self) -> bool:
        return not self.ref

    @property
    def interactive(self) -> bool:
        return bool(self.ref) and self.role in INTERACTIVE_ROLES

    @property
    def editable(self) -> bool:
        return self.role in EDITABLE_ROLES and "readonly" not in self.states and "disabled" not in self.states

    def describe(self) -> str:
        """``e5 button "Save"``: how messages name an element."""
        text = f'{self.ref} {self.role} "{self.name}"' if self.name else f"{self.ref} {self.role}"
        return text + (f' = "{self.value}"' if self.value else "")

    @cached_property
    def name_bag(self) -> Bag:
        return Bag.of(self.name)

    @cached_property
    def hint_bag(self) -> Bag:
        return Bag.of(self.hint)

    @cached_property
    def value_bag(self) -> Bag:
        return Bag.of(self.value)

    @cached_property
    def context_bag(self) -> Bag:
        return Bag.of(self.context)

    @cached_property
    def section_bag(self) -> Bag:
        return Bag.of(self.section)

    @cached_property
    def tokens(self) -> frozenset[str]:
        """Every token (and joined pair) of its texts: a row sharing none with a description is skipped."""
        bags = (self.name_bag, self.hint_bag, self.value_bag, self.context_bag, self.section_bag)
        return frozenset().union(*(b.word_set | b.joined_set for b in bags))


@dataclass(frozen=True)
class Table:
    """A table as a person reads it: header cells (may be empty) and data rows of cell texts."""

    row: Row
    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def column(self, index: int) -> list[str]:
        return [r[index] if index < len(r) else "" for r in self.rows]


@dataclass(frozen=True)
class ItemList:
    """A list (``ul``, listbox, menu…): its title (name or the heading before it) and item texts."""

    row: Row
    title: str
    items: tuple[str, ...]


@dataclass
class PageView:
    url: str
    title: str
    rows: tuple[Row, ...]
    _children: dict[int, list[int]] = field(default_factory=dict, repr=False)

    @classmethod
    def from_snapshot(cls, data: Mapping[str, Any]) -> PageView:
        """The driver's ``snapshot(mode="locate")`` answer. Raises ValueError for a malformed one."""
        nodes = data.get("nodes")
        if not isinstance(nodes, list):
            raise ValueError("the snapshot has no rows")
        rows: list[Row] = []
        stack: list[Row] = []
        heading = ""
        for index, node in enumerate(nodes):
            if not isinstance(node, Mapping):
                raise ValueError("a snapshot row is not an object")
            depth = node.get("depth") if isinstance(node.get("depth"), int) else 0
            while stack and stack[-1].depth >= depth:
                stack.pop()
            states = node.get("states") or ()
            row = Row(
                index=index,
                ref=_text(node.get("ref")),
                role=_text(node.get("role")) or "generic",
                name=_text(node.get("name")),
                value=_text(node.get("value")),
                states=tuple(str(s) for s in states if isinstance(s, str)) if isinstance(states, list) else (),
                depth=max(0, depth),
                hint=_text(node.get("hint")),
                context=_text(node.get("context")),
                parent=stack[-1].index if stack else -1,
                section=heading,
            )
            rows.append(row)
            if row.role == "heading" and row.name:
                heading = row.name
            if row.ref:
                stack.append(row)
        view = cls(url=_text(data.get("url")), title=_text(data.get("title")), rows=tuple(rows))
        for row in view.rows:
            view._children.setdefault(row.parent, []).append(row.index)
        return view

    # ------------------------------------------------------------- structure

    @property
    def elements(self) -> list[Row]:
        return [r for r in self.rows if r.ref]

    def by_ref(self, ref: str) -> Row | None:
        return next((r for r in self.rows if r.ref == ref), None)

    def children(self, row: Row) -> list[Row]:
        return [self.rows[i] for i in self._children.get(row.index, [])]

    def descendants(self, row: Row) -> Iterator[Row]:
        for child in self.children(row):
            yield child
            yield from self.descendants(child)

    def text_of(self, row: Row) -> str:
        """What a person reads in a row: its name, or its descendants' names and text."""
        if row.name and (row.is_text or not self.children(row)):
            return row.name
        inner = join_texts(d.name or d.value for d in self.descendants(row) if d.is_text or not self.children(d))
        # a name taken from the content is read once: a cell "Edit" holding an Edit button reads "Edit"
        from_content = f"{normal(inner)} ".startswith(f"{normal(row.name)} ")
        if not row.name or row.role in TABLE_ROLES | LIST_ROLES or from_content:
            return inner
        return join_texts((row.name, inner))

    @cached_property
    def vocabulary(self) -> frozenset[str]:
        """Every token (and joined pair) of every element's name, hint, value, context and section."""
        tokens: set[str] = set()
        for row in self.elements:
            tokens |= row.tokens
        return frozenset(tokens)

    @cached_property
    def text(self) -> str:
        """Everything visible as one text, in page order: text rows, the names of rows with no rows
        inside (a container's name repeats its content: a cell "Edit" holds the button "Edit", a region
        is named by its heading), and values."""
        return join_texts(
            join_texts((r.name if r.is_text or not self._children.get(r.index) else "", r.value)) for r in self.rows
        )

    # ------------------------------------------------------------- collections

    @cached_property
    def tables(self) -> list[Table]:
        tables = []
        for row in self.rows:
            if row.role not in TABLE_ROLES:
                continue
            headers: tuple[str, ...] = ()
            data: list[tuple[str, ...]] = []
            for line in (d for d in self.descendants(row) if d.role == "row"):
                cells = [c for c in self.children(line) if c.role in CELL_ROLES]
                texts = tuple(self.text_of(c) for c in cells)
                if cells and all(c.role == "columnheader" for c in cells) and not headers and not data:
                    headers = texts
                elif texts:
                    data.append(texts)
            tables.append(Table(row, row.name or row.section, headers, tuple(data)))
        return tables

    @cached_property
    def lists(self) -> list[ItemList]:
        lists = []
        for row in self.rows:
            if row.role not in LIST_ROLES:
                continue
            items = tuple(text for c in self.children(row) if c.role in ITEM_ROLES and (text := self.text_of(c)))
            if items:
                lists.append(ItemList(row, row.name or row.section, items))
        return lists

    def regions(self) -> Iterator[tuple[str, Row | None]]:
        """Small pieces of text that belong together, smallest first within each kind: text rows,
        table rows, list items, and the groups around interactive elements (their context)."""
        for row in self.rows:
            if row.is_text:
                yield row.name, None
        for table in self.tables:
            for line in (d for d in self.descendants(table.row) if d.role == "row"):
                yield self.text_of(line), line
        for row in self.rows:
            if row.role in ITEM_ROLES and row.ref:
                yield self.text_of(row), row
        for row in self.rows:
            if row.context:
                yield row.context, row


def _text(value: object) -> str:
    if not isinstance(value, str):
        return ""
    if len(value) > MAX_FIELD:
        value = value[: MAX_FIELD - 1] + "…"
    return clean(without_formatting(value))


def render_for_model(view: PageView, max_chars: int) -> str:
    """The page for a model's prompt: one line per row, indented by depth, refs first, within a budget
    (the rest is cut with a note: the model must not think it saw everything)."""
    lines = [f"url: {view.url}", f"title: {view.title}"]
    used = sum(len(line) + 1 for line in lines)
    for shown, row in enumerate(view.rows):
        line = "  " * min(row.depth, 8) + _row_line(row)
        if used + len(line) + 1 > max_chars:
            # the note counts too: drop shown rows until it fits
            while len(lines) > 2 and used + len(_cut_note(len(view.rows) - shown)) > max_chars:
                used -= len(lines.pop()) + 1
                shown -= 1
            lines.append(_cut_note(len(view.rows) - shown))
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)


def _cut_note(rows: int) -> str:
    return f"… ({rows} more rows cut)"


def _row_line(row: Row) -> str:
    if row.is_text:
        return f"text: {row.name}"
    line = row.describe()
    if row.states:
        line += f" [{', '.join(row.states)}]"
    if row.hint:
        line += f" (hint: {row.hint})"
    if row.context and row.context != row.name:
        line += f" (in: {row.context})"
    return line
