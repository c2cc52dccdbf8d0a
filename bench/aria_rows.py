"""Reading Playwright MCP's snapshot (its YAML aria snapshot) back into rows, as a model reads it for refs.

A line is ``- role "name" [attr] [ref=e5]: text`` (the key single-quoted when YAML needs it, ``''`` for a
quote), ``- text: words`` or ``- /url: …``; children are indented under their parent. Only what the scripted
tasks need: role, name, ref, the inline text, the depth and the other attributes (``[checked]``, ``[level=2]``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

LINE = re.compile(r"^(?P<indent> *)- (?P<body>.*)$")
KEY = re.compile(r'^(?P<role>[\w/-]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?(?P<attrs>(?: \[[^\]]*\])*)$')
ATTR = re.compile(r"\[([^\]=]+)(?:=([^\]]*))?\]")


@dataclass(frozen=True)
class AriaRow:
    depth: int
    role: str
    name: str
    ref: str
    text: str  # the inline value after ``:``, unquoted
    attrs: dict[str, str] = field(default_factory=dict)


def _scalar(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            return str(json.loads(value))
        except ValueError:
            return value[1:-1]
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    return value


def _split(body: str) -> tuple[str, str]:
    """The key and the inline value of one line (``key: value``, ``key:`` or ``key``)."""
    if body.startswith("'"):
        i = 1
        while i < len(body):
            if body[i] == "'" and body[i + 1 : i + 2] == "'":
                i += 2
                continue
            if body[i] == "'":
                break
            i += 1
        key, rest = body[1:i].replace("''", "'"), body[i + 1 :]
        return key, rest[1:].strip() if rest.startswith(":") else ""
    if body.startswith(("text:", "/url:")):
        head, _, rest = body.partition(":")
        return head, rest.strip()
    # the key ends at the first ": " (or a final ":") outside the quoted name and the [attrs]
    quoted = bracket = False
    for i, ch in enumerate(body):
        if ch == '"' and not bracket and (i == 0 or body[i - 1] != "\\"):
            quoted = not quoted
        elif ch == "[" and not quoted:
            bracket = True
        elif ch == "]" and not quoted:
            bracket = False
        elif ch == ":" and not quoted and not bracket and (i + 1 == len(body) or body[i + 1] == " "):
            return body[:i], body[i + 1 :].strip()
    return body, ""


def rows(snapshot: str) -> list[AriaRow]:
    out: list[AriaRow] = []
    for line in snapshot.splitlines():
        found = LINE.match(line)
        if not found:
            continue
        key, value = _split(found.group("body"))
        depth = len(found.group("indent")) // 2
        parsed = KEY.match(key)
        if not parsed:
            continue
        attrs = {k: (v or "") for k, v in ATTR.findall(parsed.group("attrs") or "")}
        name = parsed.group("name") or ""
        name = json.loads(f'"{name}"') if "\\" in name else name
        out.append(AriaRow(depth, parsed.group("role"), name, attrs.pop("ref", ""), _scalar(value), attrs))
    return out


def subtree(all_rows: list[AriaRow], root: AriaRow) -> list[AriaRow]:
    """``root`` and the rows indented under it."""
    start = all_rows.index(root)
    inside = [root]
    for row in all_rows[start + 1 :]:
        if row.depth <= root.depth:
            break
        inside.append(row)
    return inside


def text_of(all_rows: list[AriaRow], root: AriaRow) -> str:
    """Every name and inline text under ``root``, in order, as one string (what a model reads there)."""
    parts = [p for r in subtree(all_rows, root) if r.role != "/url" for p in (r.name, r.text) if p]
    return " ".join(parts)
