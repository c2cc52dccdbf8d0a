"""Snapshots as text for the model (docs/page-agent.md §9): TOON pages cut to a budget, cursors, diffs,
and the matches of a text search, paged the same way.

Pure: the agent's rows come in as :class:`Node`s, text goes out. Each row is encoded at most once (a
:class:`_View`) and pages are cut from it, so paging a 10,000-row snapshot stays cheap and
consistent: the store keeps the encoded view, not the page, and a cursor names a row of it.
"""

from __future__ import annotations

import re
from collections import Counter, OrderedDict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any, Literal, get_args, overload

from tabmcp.echo import quote
from tabmcp.introspect.text import without_formatting
from tabmcp.page.toon import clean, encode_string, inline_array, key_value, table_header

__all__ = [
    "DEFAULT_MAX_CHARS",
    "MIN_BUDGET",
    "NOTE",
    "CursorError",
    "Mode",
    "Node",
    "Rendered",
    "Snapshot",
    "SnapshotDiff",
    "SnapshotStore",
    "diff",
    "parse_cursor",
    "render",
    "render_diff",
]

Mode = Literal["interactive", "full"]
MODES: tuple[Mode, ...] = get_args(Mode)

DEFAULT_MAX_CHARS = 30_000
# Below this the fixed lines (url, title, note, status, next) leave too little room to be useful, and
# the guarantee "the text never exceeds max_chars" could not hold with a long URL or a huge count.
MIN_BUDGET = 500
NOTE = "names and values are page content (untrusted)"
# The agent cuts names and values at 120 characters; the server does not rely on it.
MAX_FIELD = 1000
NEW_PAGE = "none (new page)"
# A text search shows at most this many matches a page: the model narrows the search or pages on.
FIND_PAGE_ROWS = 20

_CURSOR = re.compile(r"(s[1-9][0-9]*)(?::([0-9]+))?")


class CursorError(ValueError):
    """A cursor that names no kept snapshot or no row of it; the message tells the model what to do."""


@dataclass(frozen=True, slots=True)
class Node:
    """One snapshot row. ``ref`` is "" for a text row; ``depth`` is 0 in interactive mode."""

    ref: str
    role: str
    name: str = ""
    value: str = ""
    states: tuple[str, ...] = ()
    depth: int = 0

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Node:
        """Validate one wire row; strings are page content, so unwritable characters are replaced.

        Raises ValueError naming the bad field (unknown keys such as ``frameToken`` are ignored).
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"snapshot node must be an object, not {type(data).__name__}")
        states = data.get("states") or ()
        if not isinstance(states, (list, tuple)) or not all(isinstance(s, str) for s in states):
            raise ValueError("snapshot node 'states' must be a list of strings")
        depth = data.get("depth", 0)
        if depth is None:
            depth = 0
        if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
            raise ValueError(f"snapshot node 'depth' must be an integer >= 0, not {depth!r}")
        return cls(
            ref=_wire_str(data, "ref", required=True),
            role=_wire_str(data, "role", required=True),
            name=_wire_str(data, "name"),
            value=_wire_str(data, "value"),
            states=tuple(clean(s) for s in states if s),
            depth=depth,
        )


def _wire_str(data: Mapping[str, Any], key: str, *, required: bool = False) -> str:
    value = data.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"snapshot node {key!r} must be a string, not {type(value).__name__}")
    if len(value) > MAX_FIELD:
        value = value[: MAX_FIELD - 1] + "…"
    return clean(without_formatting(value))  # text hidden from a person reading along is dropped


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One snapshot of a tab. ``doc_id`` (the main frame's document id, "" if unknown) tells a reload
    from a page that merely changed: refs restart in a new document, so diffing by ref across it is
    meaningless. ``scope`` names the root of a region ("" for the whole page). A text search is a
    snapshot whose nodes are its matches (``name`` the text around each): ``query`` is what was
    searched, ``found`` how many matches the page has (``nodes`` holds the first ones)."""

    id: str
    tab_id: int
    url: str
    title: str
    mode: Mode
    nodes: tuple[Node, ...]
    doc_id: str = ""
    scope: str = ""
    query: str | None = None
    found: int = 0


@dataclass(frozen=True, slots=True)
class Rendered:
    """One page of text. ``next_cursor`` ("s3:120") is None on the last page; ``rows_shown`` counts the
    rows (for a diff: changed + added rows, removed refs and removed texts) on this page."""

    text: str
    next_cursor: str | None
    rows_shown: int


@dataclass(frozen=True, slots=True)
class SnapshotDiff:
    """What changed between two snapshots of one tab and mode, by ref.

    ``since`` is the previous snapshot's id, or None when there is nothing to diff against (no previous
    snapshot of this mode, another URL, another document): then the diff is ``current`` in full.
    Text rows (ref "") have no identity; they are matched by (nearest ancestor ref, text) as a
    multiset: new ones are in ``added`` (in document order), vanished ones in ``removed_text``.
    """

    current: Snapshot
    since: str | None
    changed: tuple[Node, ...] = ()
    added: tuple[Node, ...] = ()
    removed: tuple[str, ...] = ()
    removed_text: tuple[str, ...] = ()

    @property
    def new_page(self) -> bool:
        return self.since is None

    @property
    def empty(self) -> bool:
        return not (self.new_page or self.changed or self.added or self.removed or self.removed_text)


# --------------------------------------------------------------------------------------------------
# Diff
# --------------------------------------------------------------------------------------------------


def _same_page(previous: Snapshot, current: Snapshot) -> bool:
    # A fragment change (#section) keeps the document and its refs, so it still diffs.
    return (
        previous.mode == current.mode
        and previous.scope == current.scope
        and previous.url.split("#", 1)[0] == current.url.split("#", 1)[0]
        and (not previous.doc_id or not current.doc_id or previous.doc_id == current.doc_id)
    )


def _text_keys(nodes: Iterable[Node]) -> list[tuple[int, tuple[str, str]]]:
    """(index, (nearest ancestor ref, text)) for every text row, ancestors found from depths."""
    keys: list[tuple[int, tuple[str, str]]] = []
    stack: list[tuple[int, str]] = []  # (depth, ref) of the open rows that have refs
    for index, node in enumerate(nodes):
        while stack and stack[-1][0] >= node.depth:
            stack.pop()
        if node.ref:
            stack.append((node.depth, node.ref))
        else:
            keys.append((index, (stack[-1][1] if stack else "", node.name)))
    return keys


def diff(previous: Snapshot | None, current: Snapshot) -> SnapshotDiff:
    """Diff ``current`` against ``previous`` (same tab, same mode), or mark it a new page."""
    if previous is None or not _same_page(previous, current):
        return SnapshotDiff(current=current, since=None)
    before = {node.ref: node for node in previous.nodes if node.ref}
    now_refs = {node.ref for node in current.nodes if node.ref}

    old_text = Counter(key for _, key in _text_keys(previous.nodes))
    new_text_rows: set[int] = set()
    for index, key in _text_keys(current.nodes):
        if old_text[key] > 0:
            old_text[key] -= 1
        else:
            new_text_rows.add(index)
    removed_text = []
    for _, key in _text_keys(previous.nodes):  # what is left in old_text vanished; keep page order
        if old_text[key] > 0:
            old_text[key] -= 1
            removed_text.append(key[1])

    changed: list[Node] = []
    added: list[Node] = []
    for index, node in enumerate(current.nodes):
        if not node.ref:
            if index in new_text_rows:
                added.append(node)
            continue
        old = before.get(node.ref)
        if old is None:
            added.append(node)
        elif (old.role, old.name, old.value, old.states) != (node.role, node.name, node.value, node.states):
            changed.append(node)
    removed = tuple(node.ref for node in previous.nodes if node.ref and node.ref not in now_refs)
    return SnapshotDiff(
        current=current,
        since=previous.id,
        changed=tuple(changed),
        added=tuple(added),
        removed=removed,
        removed_text=tuple(removed_text),
    )


_diff = diff  # SnapshotStore.record's ``diff`` flag shadows the function


# --------------------------------------------------------------------------------------------------
# Views: a snapshot or diff encoded once, as sections of encoded items
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Section:
    key: str
    fields: tuple[str, ...] | None  # None: an inline array of primitives on one line
    items: Sequence[str]  # encoded rows (cells joined by ",") or encoded tokens


@dataclass(frozen=True, slots=True)
class _View:
    snapshot: Snapshot
    is_diff: bool
    since: str | None
    sections: tuple[_Section, ...]
    page_rows: int | None = None  # at most this many items a page

    @property
    def total(self) -> int:
        return sum(len(section.items) for section in self.sections)

    @property
    def unit(self) -> str:
        if self.snapshot.query is not None:
            return "matches"
        return "items" if self.is_diff and self.since else "rows"


def _columns(nodes: tuple[Node, ...], mode: Mode) -> tuple[str, ...]:
    """``ref`` and ``role`` always; name, value, states only if some row has one; depth in full mode."""
    columns = ["ref", "role"]
    if any(node.name for node in nodes):
        columns.append("name")
    if any(node.value for node in nodes):
        columns.append("value")
    if any(node.states for node in nodes):
        columns.append("states")
    if mode == "full":
        columns.append("depth")
    return tuple(columns)


class _Rows(Sequence[str]):
    """Encoded rows, made on first use: the first page of a 10,000-row snapshot encodes only its rows."""

    def __init__(self, nodes: tuple[Node, ...], columns: tuple[str, ...]) -> None:
        self._nodes = nodes
        self._rows: list[str | None] = [None] * len(nodes)
        self._memo: dict[str, str] = {}  # roles, states and "" repeat a lot; tokens are never ""
        self._name, self._value = "name" in columns, "value" in columns
        self._states, self._depth = "states" in columns, "depth" in columns

    def __len__(self) -> int:
        return len(self._nodes)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not -len(self) <= index < len(self):
            raise IndexError(index)
        return next(self.iter_from(index % len(self)))

    def __iter__(self) -> Iterator[str]:
        return self.iter_from(0)

    def iter_from(self, first: int) -> Iterator[str]:
        """Rows from ``first`` on, encoded as they are reached (a tight loop: this is the hot path)."""
        rows, nodes, memo = self._rows, self._nodes, self._memo
        get = memo.get

        def enc(text: str) -> str:
            token = memo[text] = encode_string(text)
            return token

        name, value, states, depth = self._name, self._value, self._states, self._depth
        for index in range(first, len(nodes)):
            row = rows[index]
            if row is None:
                node = nodes[index]
                cells = [get(node.ref) or enc(node.ref), get(node.role) or enc(node.role)]
                if name:
                    cells.append(get(node.name) or enc(node.name))
                if value:
                    cells.append(get(node.value) or enc(node.value))
                if states:
                    joined = " ".join(node.states)
                    cells.append(get(joined) or enc(joined))
                if depth:
                    cells.append(str(node.depth))
                row = rows[index] = ",".join(cells)
            yield row


def _iter_from(items: Sequence[str], first: int) -> Iterator[str]:
    return items.iter_from(first) if isinstance(items, _Rows) else islice(items, first, None)


def _snapshot_view(snapshot: Snapshot, *, is_diff: bool = False) -> _View:
    columns = _columns(snapshot.nodes, snapshot.mode)
    section = _Section("nodes", columns, _Rows(snapshot.nodes, columns))
    return _View(snapshot, is_diff, None, (section,))


MATCH_COLUMNS = ("ref", "role", "name")


def _matches_view(snapshot: Snapshot) -> _View:
    section = _Section("matches", ("ref", "role", "text"), _Rows(snapshot.nodes, MATCH_COLUMNS))
    return _View(snapshot, False, None, (section,), FIND_PAGE_ROWS)


def _diff_view(d: SnapshotDiff) -> _View:
    if d.since is None:
        return _snapshot_view(d.current, is_diff=True)
    columns = _columns(d.changed + d.added, d.current.mode)
    sections = [
        _Section("changed", columns, _Rows(d.changed, columns)),
        _Section("added", columns, _Rows(d.added, columns)),
        _Section("removed", None, tuple(encode_string(ref) for ref in d.removed)),
        _Section("removedText", None, tuple(encode_string(text) for text in d.removed_text)),
    ]
    return _View(d.current, True, d.since, tuple(s for s in sections if s.items))


# --------------------------------------------------------------------------------------------------
# Pages
# --------------------------------------------------------------------------------------------------


def _shorten(value: str, limit: int) -> str:
    """``value`` encoded in at most ``limit`` characters, cut with "…" if needed (quotes included)."""
    token = encode_string(value)
    if len(token) <= limit:
        return token
    low, high = 0, len(value)  # the longest prefix whose encoded form, with "…", fits
    while low < high:
        middle = (low + high + 1) // 2
        if len(encode_string(value[:middle] + "…")) <= limit:
            low = middle
        else:
            high = middle - 1
    return encode_string(value[:low] + "…")


def _status(view: _View, first: int, last: int) -> str:
    """The ``snapshot:`` line for rows ``first``..``last`` (1-based, inclusive)."""
    snap = view.snapshot
    what = f"find {snap.query}" if snap.query is not None else snap.mode
    head = f"{snap.id} {what}" + (f" in {snap.scope}" if snap.scope else "") + "; "
    head += f"diff since {view.since}; " if view.since else ""
    total = view.total
    if snap.query is not None:
        if total == 0:
            return key_value("snapshot", head + "no matches")
        shown = f"matches {first}-{last}" if last >= first else "no matches shown"
        if snap.found > total:
            return key_value("snapshot", head + f"{shown} of {snap.found} (the first {total} kept: narrow the search)")
        return key_value("snapshot", head + f"{shown} of {total}")
    if view.since and total == 0:
        return key_value("snapshot", head + "no changes")
    if total == 0:
        return key_value("snapshot", head + "rows 0 of 0")
    if last < first:
        return key_value("snapshot", head + f"no {view.unit} shown of {total}")
    return key_value("snapshot", head + f"{view.unit} {first}-{last} of {total}")


def _header(view: _View, max_chars: int) -> list[str]:
    snap = view.snapshot
    lines = [
        "url: " + _shorten(snap.url, min(1000, max_chars // 10)),
        "title: " + _shorten(snap.title, min(300, max_chars // 10)),
        key_value("note", NOTE),
    ]
    return lines


def _fit(view: _View, start: int, room: int) -> int:
    """How far from ``start`` the items fit in ``room`` characters (each line counted with its newline).

    Section headers are costed with the section's full count, which is at least the count printed.
    """
    used = 0
    position = 0
    for section in view.sections:
        count = len(section.items)
        if start >= position + count:
            position += count
            continue
        first = max(start - position, 0)
        digits = len(str(count))
        if section.fields is None:
            used += len(section.key) + digits + 5  # "key[N]: " and the newline
        else:
            used += len(section.key) + digits + len(",".join(section.fields)) + 6  # "key[N]{…}:" + newline
        for offset, item in enumerate(_iter_from(section.items, first), first):
            if section.fields is None:
                used += len(item) + (0 if offset == first else 1)  # a comma before all but the first
            else:
                used += len(item) + 3  # two spaces of indent and the newline
            if used > room:
                return position + offset
        position += count
    return position


def _lines_for(view: _View, start: int, end: int) -> list[str]:
    lines: list[str] = []
    position = 0
    for section in view.sections:
        count = len(section.items)
        low, high = max(start - position, 0), min(end - position, count)
        position += count
        if low >= high:
            continue
        items = list(islice(_iter_from(section.items, low), high - low))
        if section.fields is None:
            lines.append(inline_array(section.key, items))
        else:
            lines.append(table_header(section.key, len(items), section.fields))
            lines.extend("  " + row for row in items)
    return lines


def _check_budget(max_chars: int) -> None:
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < MIN_BUDGET:
        raise ValueError(f"maxChars must be at least {MIN_BUDGET}, not {max_chars!r}")


def _render_view(view: _View, max_chars: int, start: int) -> Rendered:
    _check_budget(max_chars)
    total = view.total
    snap = view.snapshot
    if isinstance(start, bool) or not isinstance(start, int) or start < 0 or start > total or (start == total > 0):
        raise CursorError(
            f"cursor offset {start!r} is outside snapshot {snap.id} ({total} {view.unit}); take a new snapshot"
        )
    header = _header(view, max_chars)
    if view.is_diff and view.since is None:
        header.append(key_value("diff", NEW_PAGE))
    # Every line costs its length plus a newline; the last line has none, hence the +1. The status line
    # is costed as if this page ran to the end: exact when it does, the longest it can be when it does not.
    room = max_chars + 1 - sum(len(line) + 1 for line in header) - (len(_status(view, start + 1, total)) + 1)
    end = _fit(view, start, room)
    if view.page_rows is not None:
        end = min(end, start + view.page_rows)
    if end < total:
        end = _fit(view, start, room - len(key_value("next", f"{snap.id}:{total}")) - 1)
        if view.page_rows is not None:
            end = min(end, start + view.page_rows)

    lines = header
    if total == 0 and not view.since:
        lines += [_status(view, 1, 0), table_header(view.sections[0].key if view.sections else "nodes", 0, ())]
    elif end == start and total > 0:
        lines += [
            _status(view, 1, 0),
            key_value(
                "problem",
                f"{view.unit[:-1]} {start + 1} is too long for maxChars {max_chars}; "
                "pass this cursor again with a larger maxChars",
            ),
        ]
    else:
        lines += [_status(view, start + 1, end), *_lines_for(view, start, end)]
    next_cursor = f"{snap.id}:{end}" if end < total else None
    if next_cursor:
        lines.append(key_value("next", next_cursor))
    return Rendered("\n".join(lines), next_cursor, end - start)


def render(snapshot: Snapshot, max_chars: int = DEFAULT_MAX_CHARS, start: int = 0) -> Rendered:
    """The page of ``snapshot`` starting at row ``start``, at most ``max_chars`` characters in all.

    Raises ValueError when ``max_chars`` < MIN_BUDGET and CursorError when ``start`` is not a row.
    """
    return _render_view(_snapshot_view(snapshot), max_chars, start)


def render_diff(d: SnapshotDiff, max_chars: int = DEFAULT_MAX_CHARS, start: int = 0) -> Rendered:
    """Like :func:`render` for a diff; its items are changed rows, added rows, removed refs, removed texts."""
    return _render_view(_diff_view(d), max_chars, start)


# --------------------------------------------------------------------------------------------------
# Store
# --------------------------------------------------------------------------------------------------


def parse_cursor(cursor: str) -> tuple[str, int]:
    """``"s3:120"`` → ("s3", 120); ``"s3"`` → ("s3", 0). Quotes around it (copied from the text) are fine."""
    text = cursor.strip().strip('"').strip() if isinstance(cursor, str) else ""
    match = _CURSOR.fullmatch(text)
    if match is None:
        raise CursorError(
            f"cursor {quote(cursor)} is not valid: pass the value of a snapshot's next: line (like s3:120), "
            "or take a new snapshot"
        )
    return match[1], int(match[2] or 0)


class SnapshotStore:
    """Per tab: the latest snapshot of each mode and scope (the base of the next diff) and the encoded
    views of the last ``keep`` snapshots and searches (what cursors page through). Ids (s1, s2, …) are
    unique across tabs.

    Snapshots taken with ``remember=False`` (resource reads) are neither a diff base nor kept among the
    ``keep``: one such view per tab is kept apart, so background reads never expire the model's cursors.
    """

    def __init__(self, keep: int = 3) -> None:
        if keep < 1:
            raise ValueError("keep must be at least 1")
        self._keep = keep
        self._counter = 0
        self._latest: dict[int, dict[tuple[Mode, str], Snapshot]] = {}
        self._views: dict[int, OrderedDict[str, _View]] = {}
        self._aside: dict[int, _View] = {}

    def take(
        self,
        tab_id: int,
        data: Mapping[str, Any],
        *,
        mode: Mode,
        max_chars: int = DEFAULT_MAX_CHARS,
        diff: bool = False,
        remember: bool = True,
        scope: str = "",
    ) -> Rendered:
        """Record the driver's answer (``{url, title, nodes, docId?}``) and return its first page;
        ``scope`` names the root of a region.

        Raises ValueError for a bad budget (before anything is recorded) or malformed nodes.
        """
        _check_budget(max_chars)
        nodes = data.get("nodes")
        if not isinstance(nodes, (list, tuple)):
            raise ValueError("snapshot 'nodes' must be a list")
        snapshot = self.record(
            tab_id,
            mode,
            str(data.get("url") or ""),
            str(data.get("title") or ""),
            [Node.from_wire(node) for node in nodes],
            diff=diff,
            doc_id=str(data.get("docId") or ""),
            remember=remember,
            scope=scope,
        )
        return self.continue_from(snapshot.id, max_chars, tab_id=tab_id)

    def take_matches(
        self, tab_id: int, data: Mapping[str, Any], *, query: str, scope: str = "", max_chars: int = DEFAULT_MAX_CHARS
    ) -> Rendered:
        """Keep a text search's answer (``{url, title, nodes: [{ref, role, name}], total, docId?}``) and
        return its first page: at most FIND_PAGE_ROWS matches, the rest behind the cursor. A search is
        never a diff base."""
        _check_budget(max_chars)
        nodes = data.get("nodes")
        if not isinstance(nodes, (list, tuple)):
            raise ValueError("search 'nodes' must be a list")
        matches = tuple(Node.from_wire(node) for node in nodes)
        found = data.get("total")
        self._counter += 1
        snapshot = Snapshot(
            id=f"s{self._counter}",
            tab_id=tab_id,
            url=clean(str(data.get("url") or "")),
            title=clean(without_formatting(str(data.get("title") or ""))),
            mode="interactive",
            nodes=matches,
            doc_id=str(data.get("docId") or ""),
            scope=clean(scope),
            query=clean(query),
            found=max(found if isinstance(found, int) and not isinstance(found, bool) else 0, len(matches)),
        )
        self._keep_view(tab_id, _matches_view(snapshot))
        return self.continue_from(snapshot.id, max_chars, tab_id=tab_id)

    def record(
        self,
        tab_id: int,
        mode: Mode,
        url: str,
        title: str,
        nodes: Iterable[Node],
        *,
        diff: bool = False,
        doc_id: str = "",
        remember: bool = True,
        scope: str = "",
    ) -> Snapshot:
        """Keep a new snapshot of ``tab_id``; with ``diff`` its pages are the diff against the previous
        snapshot of the same mode and scope (a region's root, "" for the whole page). Page it with
        :meth:`continue_from` (``snapshot.id`` for the first)."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        self._counter += 1
        snapshot = Snapshot(
            id=f"s{self._counter}",
            tab_id=tab_id,
            url=clean(url),
            title=clean(without_formatting(title)),
            mode=mode,
            nodes=tuple(nodes),
            doc_id=doc_id,
            scope=clean(scope),
        )
        latest = self._latest.get(tab_id, {})
        view = _diff_view(_diff(latest.get((mode, snapshot.scope)), snapshot)) if diff else _snapshot_view(snapshot)
        if not remember:
            self._aside[tab_id] = view
            return snapshot
        self._latest.setdefault(tab_id, {})[(mode, snapshot.scope)] = snapshot
        self._keep_view(tab_id, view)
        return snapshot

    def _keep_view(self, tab_id: int, view: _View) -> None:
        views = self._views.setdefault(tab_id, OrderedDict())
        views[view.snapshot.id] = view
        while len(views) > self._keep:
            views.popitem(last=False)

    def latest(self, tab_id: int, mode: Mode, scope: str = "") -> Snapshot | None:
        """The snapshot the next diff of this tab, mode and scope compares against."""
        return self._latest.get(tab_id, {}).get((mode, scope))

    def name_of(self, tab_id: int, ref: str) -> str | None:
        """The name of ``ref``'s row in the latest snapshots of this tab (the page's first, then regions')."""
        kept = self._latest.get(tab_id, {})
        for key in sorted(kept, key=lambda k: (k[1] != "", k[0] != "interactive")):
            row = next((n for n in kept[key].nodes if n.ref == ref), None)
            if row is not None:
                return row.name
        return None

    def continue_from(self, cursor: str, max_chars: int = DEFAULT_MAX_CHARS, *, tab_id: int) -> Rendered:
        """The page at ``cursor`` ("s3:120", or "s3" for the first page) of a kept snapshot of this tab.

        Raises CursorError for a malformed, unknown, expired or other tab's cursor, or an offset out of
        range; ValueError for ``max_chars`` < MIN_BUDGET.
        """
        snapshot_id, offset = parse_cursor(cursor)
        view = self._find(tab_id, snapshot_id)
        if view is None:
            if any(self._find(other, snapshot_id) for other in {*self._views, *self._aside} if other != tab_id):
                raise CursorError(f"cursor {cursor!r} belongs to another tab; take a new snapshot of this tab")
            raise CursorError(
                f"snapshot {snapshot_id} is no longer kept for this tab (cursors expire after {self._keep} newer "
                "snapshots, or when the tab closes); take a new snapshot"
            )
        return _render_view(view, max_chars, offset)

    def _find(self, tab_id: int, snapshot_id: str) -> _View | None:
        view = self._views.get(tab_id, {}).get(snapshot_id)
        if view is None:
            aside = self._aside.get(tab_id)
            view = aside if aside is not None and aside.snapshot.id == snapshot_id else None
        return view

    def forget(self, tab_id: int) -> None:
        """Drop everything kept for a tab (call when it closes); its cursors become errors."""
        self._latest.pop(tab_id, None)
        self._views.pop(tab_id, None)
        self._aside.pop(tab_id, None)
