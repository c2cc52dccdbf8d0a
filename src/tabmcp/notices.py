"""Whether a ``list_changed`` notice tells a workspace's client something. Pure: no I/O.

A notice costs the model a whole re-read of the tool list, so one is sent only when the list the
client would read now has a tool it does not already have as it is: a tool added, a tool whose name,
title, description, schema or hints differ, or a change of the core tools (a new browser state).
Compared with the list the client last read, not with the state before the change, so:

- a change undone before the client heard of it (a tool gone and back) sends nothing;
- while a notice is unread (the client has not re-read since it went out), further changes send
  nothing: the read it is about to make brings the newest list;
- a change that only takes page tools away sends nothing. The client keeps listing tools the page
  no longer has; calling one answers ``isError`` saying so (``TabmcpServer._unavailable``).
  Removals reach the client with the next notice that has news. Pages of one site mostly differ by
  what they lack (a login form gone once logged in, a row action gone with the last row): each such
  page would otherwise cost a re-read that gives the model nothing it can call;
- a tool whose new version only relaxes the client's copy sends nothing (``relaxes``): every call
  the copy allows is one the new version takes, and means the same. Same name, title, description,
  hints and argument names; per argument the same type, enum, items and default, a description
  kept, dropped or given the served-value note (``SERVED_NOTE``), bounds (length, range, pattern)
  only dropped; required arguments only dropped. Anything else (another argument, another enum
  value, other hints, a new description) is something the model may need: news.

Before the client's first read there is nothing to compare with: every change is sent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tabmcp.introspect.api import served_description
from tabmcp.state import ListedTool, Signature

# Argument keywords that only bound the values taken: a version without them takes more.
_BOUNDS = frozenset(
    {"minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
    | {"minItems", "maxItems"}
)


def brings_news(read: Signature, now: Signature) -> bool:
    """Whether the list ``now`` has something the list ``read`` lacks (removals and relaxations are no
    news)."""
    core_read, page_read = read
    core_now, page_now = now
    if core_read != core_now:
        return True
    known = set(page_read)
    held = {tool.name: tool for tool in page_read}
    return any(tool not in known and not relaxes(held.get(tool.name), tool) for tool in page_now)


def relaxes(held: ListedTool | None, now: ListedTool) -> bool:
    """Whether ``now`` is the client's copy ``held`` with its input schema relaxed only: a call valid
    for ``held`` is valid for ``now`` and means the same."""
    if held is None or held.name != now.name:
        return False
    was, face = held.face, now.face
    if (was.title, was.description, was.hints) != (face.title, face.description, face.hints):
        return False
    try:
        old, new = json.loads(was.schema), json.loads(face.schema)
    except ValueError:
        return False
    return isinstance(old, dict) and isinstance(new, dict) and _schema_relaxes(old, new)


def _schema_relaxes(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    rest = {"properties", "required"}
    if {k: v for k, v in old.items() if k not in rest} != {k: v for k, v in new.items() if k not in rest}:
        return False
    if not set(new.get("required", ())) <= set(old.get("required", ())):
        return False
    old_props, new_props = old.get("properties", {}), new.get("properties", {})
    if not isinstance(old_props, dict) or not isinstance(new_props, dict) or old_props.keys() != new_props.keys():
        return False
    return all(_argument_relaxes(old_props[name], new_props[name]) for name in old_props)


def _argument_relaxes(old: Any, new: Any) -> bool:
    if not isinstance(old, dict) or not isinstance(new, dict):
        return old == new
    said = old.get("description")
    if new.get("description") not in (None, said, served_description(said)):
        return False
    for key in (old.keys() | new.keys()) - {"description"}:
        if key not in new and key in _BOUNDS:
            continue  # a bound dropped
        if old.get(key) != new.get(key) or (key in old) != (key in new):
            return False
    return True


@dataclass
class ClientView:
    """What a workspace's client has of the tool list: the signature it last read, and whether a notice
    went out since."""

    read: Signature | None = None
    unread: bool = False  # a notice went out after the last read

    def listed(self, now: Signature) -> None:
        self.read = now
        self.unread = False

    def wants_notice(self, now: Signature) -> bool:
        if self.read is None:
            return True
        if self.unread:
            return False
        return brings_news(self.read, now)

    def notified(self) -> None:
        if self.read is not None:
            self.unread = True

    def had(self, name: str) -> bool:
        """Whether the client's list has a page tool by this name (read before the page lost it)."""
        if self.read is None:
            return False
        return any(tool[0] == name for tool in self.read[1])
