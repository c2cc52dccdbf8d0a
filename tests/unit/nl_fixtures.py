"""Loading the recorded locate-mode snapshots (tests/fixtures/snapshots) for the tests of
``tabmcp.nl``, and finding their rows by what a person sees (role, name, surroundings) rather than
by ref numbers, which move whenever a fixture page changes."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from tabmcp.nl.page import PageView, Row

SNAPSHOTS = Path(__file__).resolve().parents[1] / "fixtures" / "snapshots"


@cache
def _recording(name: str) -> str:
    return (SNAPSHOTS / f"{name}.json").read_text(encoding="utf-8")


def snapshot(name: str) -> dict[str, Any]:
    """A fresh copy of the recording ``name`` ("nl", "nl-dupes"): safe to modify."""
    data = json.loads(_recording(name))
    assert isinstance(data, dict)
    return data


def view(name: str) -> PageView:
    return PageView.from_snapshot(snapshot(name))


def rows(page: PageView, role: str, name: str, within: str = "") -> list[Row]:
    """The element rows with this role and exact name (and ``within`` in their context or section)."""
    return [
        r
        for r in page.elements
        if r.role == role and r.name == name and (not within or within in r.context or within == r.section)
    ]


def one(page: PageView, role: str, name: str, within: str = "") -> Row:
    """The one element row with this role and name (and ``within`` in its context or section)."""
    found = rows(page, role, name, within)
    assert len(found) == 1, f"{len(found)} {role} rows named {name!r} within {within!r}: {found}"
    return found[0]
