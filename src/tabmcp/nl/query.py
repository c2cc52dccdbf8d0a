"""``ai_query`` without a model: data shapes answered from the page's tables and lists (pure).

A query is Midscene's ``dataShape``: a type, then what to read, e.g. ``string[], list of task names``,
``{task: string, hours: number}[], the tasks table``, ``number, the price of Sauce Labs Onesie``,
``number, how many todo items``. :func:`parse_shape` reads the type (TypeScript-like: ``string``,
``number``, ``boolean``, ``T[]``, ``Array<T>``, ``{key: T, …}``); :func:`answer` looks for it on the
page and returns ``None`` whenever it is not sure, so the caller asks the model instead of guessing:

- ``string[]`` / ``number[]``: the list or table column whose title (its name, the heading above it,
  a column header) the description names;
- ``{…}[]``: the table whose column headers name every key;
- ``number`` with "how many"/"number of"/"count": the items of the list or table it names;
- ``number`` / ``string`` "X of Y": the table row or piece of text that names Y, read for X;
- ``string`` page title or URL.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tabmcp.nl.page import PageView, Table
from tabmcp.nl.words import (
    STOPWORDS,
    Bag,
    contains_phrase,
    content_tokens,
    number_in,
    numbers_in,
    plain_number,
)

Kind = Literal["string", "number", "boolean", "array", "object", "any"]
MATCHED = 0.75  # a title or header names what was asked for
LEAD = 0.15


@dataclass(frozen=True)
class Shape:
    kind: Kind
    item: Shape | None = None  # array
    fields: tuple[tuple[str, Shape], ...] = ()  # object, in the order given

    def __str__(self) -> str:
        if self.kind == "array":
            return f"{self.item}[]"
        if self.kind == "object":
            return "{" + ", ".join(f"{k}: {v}" for k, v in self.fields) + "}"
        return self.kind


ANY = Shape("any")


class ShapeError(ValueError):
    pass


def parse_shape(text: str) -> tuple[Shape, str]:
    """``"string[], list of task names"`` → (string[], "list of task names"). Without a type in front,
    the whole text is the description and the shape is ``any``."""
    text = text.strip()
    try:
        shape, rest = _type(text, 0)
    except ShapeError:
        return ANY, text
    rest_text = text[rest:].strip()
    if rest_text and not rest_text.startswith((",", ":", "-", "–", ";")):
        return ANY, text  # "string theory notes": a word, not a type
    return shape, rest_text.lstrip(",:-–; ").strip()


_NAME = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*|\"[^\"]{1,60}\"|'[^']{1,60}')\s*")
_SCALARS = {"string": "string", "str": "string", "text": "string", "number": "number", "int": "number",
            "integer": "number", "float": "number", "boolean": "boolean", "bool": "boolean", "any": "any"}  # fmt: skip


def _type(text: str, at: int) -> tuple[Shape, int]:
    at = _skip(text, at)
    if text.startswith("Array<", at) or text.startswith("array<", at):
        item, at = _type(text, at + 6)
        at = _skip(text, at)
        if not text.startswith(">", at):
            raise ShapeError("Array<… needs >")
        shape: Shape = Shape("array", item)
        at += 1
    elif text.startswith("{", at):
        fields: list[tuple[str, Shape]] = []
        at += 1
        while True:
            at = _skip(text, at)
            if text.startswith("}", at):
                at += 1
                break
            match = _NAME.match(text, at)
            if not match:
                raise ShapeError("expected a key")
            key = match.group(1).strip("\"'")
            at = match.end()
            if text.startswith("?", at):
                at += 1
            at = _skip(text, at)
            if not text.startswith(":", at):
                raise ShapeError("expected ':'")
            value, at = _type(text, at + 1)
            fields.append((key, value))
            at = _skip(text, at)
            if text.startswith(",", at) or text.startswith(";", at):
                at += 1
        shape = Shape("object", fields=tuple(fields))
    else:
        match = re.compile(r"[A-Za-z]+").match(text, at)
        if not match or match.group(0).lower() not in _SCALARS:
            raise ShapeError("not a type")
        shape = Shape(_SCALARS[match.group(0).lower()])  # type: ignore[arg-type]
        at = match.end()
    while text.startswith("[]", _skip(text, at)):
        at = _skip(text, at) + 2
        shape = Shape("array", shape)
    return shape, at


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t":
        at += 1
    return at


# ----------------------------------------------------------------- answers


@dataclass(frozen=True)
class Answer:
    """``data``: the value, in the shape asked for; ``source``: where on the page it was read."""

    data: Any
    source: str


def answer(view: PageView, shape: Shape, description: str) -> Answer | None:
    """The value from the page, or None when the page does not say it plainly enough."""
    words = query_words(description)
    if shape.kind == "array" and shape.item is not None and shape.item.kind in ("string", "number", "any"):
        return _column_or_list(view, shape.item, words)
    if shape.kind == "array" and shape.item is not None and shape.item.kind == "object":
        return _records(view, shape.item, words)
    if shape.kind == "number" and _COUNT.search(description):
        return _count(view, words)
    if shape.kind in ("string", "number"):
        return _scalar(view, shape, description, words)
    return None


_COUNT = re.compile(r"\b(how many|number of|count of|count|total number)\b", re.IGNORECASE)
_NOISE = frozenset(
    ("list", "lists", "array", "values", "value", "items", "item", "all", "every", "each", "entries", "entry", "names",
     "data", "records", "record", "row", "rows", "table", "column", "text", "texts", "strings", "string", "numbers",
     "number", "count", "many", "how", "total", "shown", "page", "visible")
)  # fmt: skip


def query_words(description: str) -> list[str]:
    return [w for w in content_tokens(description) if w not in _NOISE]


def _fit(words: Sequence[str], *texts: str) -> float:
    """How well the texts (a title, a header) account for the words of the description."""
    if not words:
        return 0.0
    bag = Bag.of(" ".join(texts))
    return sum(bag.best(w) for w in words) / len(words)


@dataclass(frozen=True)
class Source:
    score: float
    values: list[str]
    where: str
    count: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def collections_named(view: PageView, words: Sequence[str]) -> list[Source]:
    """Every list and table column, scored by how well its title and header name the description."""
    found: list[Source] = []
    for table in view.tables:
        for index, header in enumerate(table.headers):
            column = table.column(index)
            if not any(column):
                continue
            # a column is named by its header (with the table's title); the title alone names the first column
            named = _fit(words, header)
            if named:
                score = max(named, _fit(words, table.title, header))
            else:
                score = _fit(words, table.title) * (0.9 if index == 0 else 0.4)
            where = f"table {table.title or table.row.ref!r}, column {header!r}"
            found.append(Source(score, column, where, len(table.rows)))
        if not table.headers and table.rows:
            where = f"table {table.title or table.row.ref!r}"
            found.append(Source(_fit(words, table.title) * 0.9, table.column(0), where, len(table.rows)))
    for items in view.lists:
        where = f"list {items.title or items.row.ref!r}"
        found.append(Source(_fit(words, items.title), list(items.items), where, len(items.items)))
    return sorted(found, key=lambda s: -s.score)


def pick_one(sources: list[Source]) -> Source | None:
    if not sources or sources[0].score < MATCHED:
        return None
    if len(sources) > 1 and sources[1].score > sources[0].score - LEAD and sources[1].values != sources[0].values:
        return None
    return sources[0]


def _column_or_list(view: PageView, item: Shape, words: Sequence[str]) -> Answer | None:
    source = pick_one(collections_named(view, words))
    if source is None:
        return None
    values = [v for v in source.values]
    if item.kind == "number":
        numbers = [number_in(v) for v in values]
        if any(n is None for n in numbers):
            return None
        return Answer([plain_number(n) for n in numbers if n is not None], source.where)
    return Answer(values, source.where)


def _records(view: PageView, item: Shape, words: Sequence[str]) -> Answer | None:
    """A table whose headers name every key of the object (and whose title fits, if several do)."""
    keys = [k for k, _ in item.fields]
    best: tuple[float, Table, list[int]] | None = None
    for table in view.tables:
        columns = []
        for key in keys:
            fits = [_fit(_key_words(key), h) for h in table.headers]
            if not fits or max(fits) < MATCHED:
                break
            columns.append(fits.index(max(fits)))
        else:
            if len(set(columns)) != len(columns):
                continue
            title_fit = _fit(words, table.title) if words else 1.0
            if best is None or title_fit > best[0]:
                best = (title_fit, table, columns)
    if best is None:
        return None
    _, table, columns = best
    records = []
    for line in table.rows:
        record: dict[str, Any] = {}
        for (key, kind), column in zip(item.fields, columns, strict=True):
            value = _as(kind, line[column] if column < len(line) else "")
            if value is _UNREADABLE:
                return None
            record[key] = value
        records.append(record)
    return Answer(records, f"table {table.title or table.row.ref!r}")


def _key_words(key: str) -> list[str]:
    """``departDate`` / ``depart_date`` → depart, date."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", key).replace("_", " ")
    return [w for w in content_tokens(spaced) if w not in STOPWORDS] or [key.lower()]


_UNREADABLE = object()


def _as(shape: Shape, text: str) -> Any:
    if shape.kind == "number":
        value = number_in(text)
        return _UNREADABLE if value is None else plain_number(value)
    if shape.kind == "boolean":
        folded = text.strip().lower()
        if folded in ("yes", "true", "on", "✓", "✔", "checked", "enabled"):
            return True
        if folded in ("no", "false", "off", "", "✗", "✘", "unchecked", "disabled"):
            return False
        return _UNREADABLE
    if shape.kind in ("string", "any"):
        return text
    return _UNREADABLE


def _count(view: PageView, words: Sequence[str]) -> Answer | None:
    source = pick_one(collections_named(view, words))
    if source is None:
        return None
    return Answer(source.count or len(source.values), source.where)


# "the price of Sauce Labs Onesie", "Sauce Labs Onesie's price", "the hours for Fix bug"
_OF = re.compile(r"^(?:the\s+)?(?P<attr>.+?)\s+(?:of|for)\s+(?:the\s+)?(?P<entity>.+)$", re.IGNORECASE)
_POSSESSIVE = re.compile(r"^(?:the\s+)?(?P<entity>.+?)['’]s\s+(?P<attr>.+)$", re.IGNORECASE)
_MONEY = frozenset(["price", "cost", "total", "amount", "subtotal", "fee", "fare", "sum", "balance"])
_TITLE = re.compile(r"^(?:the\s+)?(?:page(?:'s)?\s+)?(?:title|page title)(?:\s+of the page)?$", re.IGNORECASE)
_URL = re.compile(r"^(?:the\s+)?(?:page(?:'s)?\s+)?(?:url|address|link of the page)$", re.IGNORECASE)
_HEADING = re.compile(r"^(?:the\s+)?(?:main\s+|page\s+|first\s+)?(?:heading|headline|h1)$", re.IGNORECASE)


def _scalar(view: PageView, shape: Shape, description: str, words: Sequence[str]) -> Answer | None:
    text = description.strip().rstrip(".?")
    if shape.kind == "string":
        if _TITLE.match(text):
            return Answer(view.title, "the page title")
        if _URL.match(text):
            return Answer(view.url, "the page URL")
        if _HEADING.match(text):
            heading = next((r for r in view.rows if r.role == "heading" and "level=1" in r.states), None)
            return Answer(heading.name, f"heading {heading.ref}") if heading is not None else None
    match = _OF.match(text) or _POSSESSIVE.match(text)
    if match is None:
        return None
    attribute, entity = content_tokens(match.group("attr")), content_tokens(match.group("entity"))
    if not attribute or not entity:
        return None
    cell = table_cell(view, attribute, entity)
    if cell is not None:
        value = _as(shape, cell[0])
        return None if value is _UNREADABLE else Answer(value, cell[1])
    if shape.kind != "number":
        return None
    region = smallest_region(view, entity)
    if region is None:
        return None
    numbers = numbers_in(region)
    if set(attribute) & _MONEY:
        numbers = _currency_numbers(region) or numbers  # "$7.99" over the "2" of "2 left"
    if len(numbers) != 1:
        return None
    return Answer(plain_number(numbers[0]), f"the text {region!r}")


def _currency_numbers(text: str) -> list[float]:
    return [n for m in re.finditer(r"[$€£¥]\s?[0-9][0-9,]*(?:\.[0-9]+)?|[0-9][0-9,]*(?:\.[0-9]+)?\s?[€$]", text)
            for n in numbers_in(m.group(0))]  # fmt: skip


def table_cell(view: PageView, attribute: Sequence[str], entity: Sequence[str]) -> tuple[str, str] | None:
    """The cell in the column the attribute names, on the one row that names the entity."""
    found = []
    for table in view.tables:
        fits = [_fit(attribute, h) for h in table.headers]
        if not fits or max(fits) < MATCHED:
            continue
        column = fits.index(max(fits))
        for line in table.rows:
            if _fit(entity, " ".join(line)) >= 0.95 and column < len(line):
                found.append(
                    (
                        line[column],
                        f"table {table.title or table.row.ref!r}, row {line[0]!r}, column {table.headers[column]!r}",
                    )
                )
    return found[0] if len(found) == 1 else None


def smallest_region(view: PageView, entity: Sequence[str]) -> str | None:
    """The shortest piece of text on the page (a text row, a table row, a list item, a card) that
    names every word of the entity; None when none does, or when two that name it are apart (not one
    inside the other: "Sauce Labs" names three product cards)."""
    matches = sorted(
        {text for text, _ in view.regions() if text and _fit(entity, text) >= 0.95},
        key=len,
    )
    if not matches:
        return None
    if any(not contains_phrase(other, matches[0]) for other in matches[1:]):
        return None
    return matches[0]


def fits_shape(shape: Shape, data: Any) -> bool:
    """Whether a value (a model's answer) has the shape asked for; ``any`` takes anything."""
    match shape.kind:
        case "any":
            return True
        case "string":
            return isinstance(data, str)
        case "number":
            return isinstance(data, int | float) and not isinstance(data, bool)
        case "boolean":
            return isinstance(data, bool)
        case "array":
            return isinstance(data, list) and (shape.item is None or all(fits_shape(shape.item, d) for d in data))
        case "object":
            return isinstance(data, dict) and all(k in data and fits_shape(v, data[k]) for k, v in shape.fields)
    return False
