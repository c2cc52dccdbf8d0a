"""Reading tabmcp's snapshot text (docs/page-agent.md §9) back into rows, for refs and the coverage check.

Only what the benchmark needs: the ``nodes[N]{cols}:`` table, the ``snapshot:`` line and ``next:``.
Cells follow TOON quoting: a cell that starts with ``"`` runs to the closing quote, with backslash escapes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HEADER = re.compile(r"^(?P<key>[\w.]+)\[(?P<count>\d+)\]\{(?P<cols>[^}]*)\}:\s*$")
ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}


@dataclass(frozen=True)
class Row:
    ref: str
    role: str
    name: str
    value: str
    states: str


def split_cells(line: str) -> list[str]:
    cells: list[str] = []
    i, n = 0, len(line)
    while True:
        if i < n and line[i] == '"':
            out: list[str] = []
            i += 1
            while i < n and line[i] != '"':
                if line[i] == "\\" and i + 1 < n:
                    out.append(ESCAPES.get(line[i + 1], line[i + 1]))
                    i += 2
                else:
                    out.append(line[i])
                    i += 1
            i += 1  # the closing quote
            cells.append("".join(out))
            while i < n and line[i] != ",":
                i += 1
        else:
            end = line.find(",", i)
            end = n if end < 0 else end
            cells.append(line[i:end].strip())
            i = end
        if i >= n:
            return cells
        i += 1  # the comma


def unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return split_cells(value)[0]
    return value


def rows(text: str) -> list[Row]:
    """Every row of every ``nodes`` / ``added`` table in the document (a diff has ``added``)."""
    found: list[Row] = []
    cols: list[str] | None = None
    for line in text.splitlines():
        header = HEADER.match(line)
        if header:
            cols = [c.strip() for c in header["cols"].split(",")] if header["key"] in ("nodes", "added") else None
            continue
        if cols is None:
            continue
        if not line.startswith("  "):
            cols = None
            continue
        cells = dict(zip(cols, split_cells(line.strip()), strict=False))
        found.append(
            Row(
                ref=cells.get("ref", ""),
                role=cells.get("role", ""),
                name=cells.get("name", ""),
                value=cells.get("value", ""),
                states=cells.get("states", ""),
            )
        )
    return found


def field(text: str, key: str) -> str | None:
    """A top-level ``key: value`` line, e.g. ``next`` (the cursor) or ``title``."""
    for line in text.splitlines():
        if line.startswith(key + ":"):
            return unquote(line[len(key) + 1 :])
    return None
