"""Input schemas: a quick structural check for plugin tools, and a sanitiser for page-given ones.

``schema_problem`` runs on every tool on every capture, so it is a cheap structural check (what a
client needs to list and call the tool), not a full JSON-Schema meta-validation (milliseconds per
schema). ``sanitize_schema`` takes a WebMCP ``inputSchema`` written by the page: it keeps an
allow-list of keywords, bounds depth, size, enums and strings, drops properties whose names
clients would reject, and falls back to an open object schema rather than losing the tool.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tabmcp.introspect.text import PARAM_NAME, clean

OPEN_SCHEMA: dict[str, Any] = {"type": "object", "additionalProperties": True}
TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})
MAX_DEPTH = 5  # object → property → array → items → …: deeper subtrees become "any value"
MAX_NODES = 200  # schema objects in one tool's input schema
MAX_PROPERTIES = 40  # per object
MAX_ENUM = 100
MAX_STRING = 120  # enum values, consts, defaults
MAX_PARAM_DESCRIPTION = 200
MAX_PATTERN = 200
_NUMBER_KEYS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_COUNT_KEYS = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties")
_FORMATS = frozenset({"date", "date-time", "time", "email", "uri", "url", "uuid", "hostname", "ipv4", "ipv6"})


def schema_problem(schema: Mapping[str, Any]) -> str | None:
    """Why a tool's input schema cannot be listed, or None: the top is an object schema, its
    properties are schemas with names clients accept, ``required`` names listed properties."""
    if schema.get("type") != "object":
        return 'the input schema must have "type": "object"'
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        return "properties must be an object"
    for name, prop in properties.items():
        if not isinstance(name, str) or not PARAM_NAME.match(name):
            return f"property name {name!r} is not ^[A-Za-z0-9_.-]{{1,64}}$"
        if not isinstance(prop, Mapping):
            return f"property {name} must be a schema object"
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        return "required must be a list of property names"
    missing = [r for r in required if r not in properties]
    if missing:
        return f"required names unknown properties: {', '.join(missing)}"
    return None


def sanitize_schema(raw: object) -> dict[str, Any]:
    """A page-given input schema made safe to list; ``OPEN_SCHEMA`` when nothing usable is left."""
    if raw is None:
        return {"type": "object", "properties": {}}
    if not isinstance(raw, Mapping) or raw.get("type", "object") != "object":
        return dict(OPEN_SCHEMA)
    budget = _Budget()
    try:
        schema = _node(raw, 0, budget)
    except _TooBig:
        return dict(OPEN_SCHEMA)
    schema["type"] = "object"
    schema.setdefault("properties", {})
    return schema if schema_problem(schema) is None else dict(OPEN_SCHEMA)


class _TooBig(Exception):
    pass


class _Budget:
    def __init__(self) -> None:
        self.nodes = 0

    def spend(self) -> None:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _TooBig


def _node(raw: Mapping[str, Any], depth: int, budget: _Budget) -> dict[str, Any]:
    budget.spend()
    if depth > MAX_DEPTH:
        return {}  # any value: the page's deeper structure is not shown, the call still goes through
    out: dict[str, Any] = {}
    kind = raw.get("type")
    if isinstance(kind, str) and kind in TYPES:
        out["type"] = kind
    elif isinstance(kind, list):
        kinds = [k for k in kind if isinstance(k, str) and k in TYPES][:7]
        if kinds:
            out["type"] = kinds
    for key in ("title", "description"):
        if isinstance(raw.get(key), str) and (text := clean(raw[key], MAX_PARAM_DESCRIPTION)):
            out[key] = text
    for key in _NUMBER_KEYS:
        if _is_number(raw.get(key)):
            out[key] = raw[key]
    for key in _COUNT_KEYS:
        value = raw.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            out[key] = value
    if isinstance(raw.get("uniqueItems"), bool):
        out["uniqueItems"] = raw["uniqueItems"]
    if isinstance(raw.get("format"), str) and raw["format"] in _FORMATS:
        out["format"] = raw["format"]
    if isinstance(raw.get("pattern"), str) and len(raw["pattern"]) <= MAX_PATTERN:
        out["pattern"] = raw["pattern"]
    if isinstance(raw.get("enum"), list):
        values = [v for v in (_scalar(v) for v in raw["enum"][:MAX_ENUM]) if v is not _DROP]
        if values:
            out["enum"] = values
    for key in ("const", "default"):
        if key in raw and (value := _scalar(raw[key])) is not _DROP:
            out[key] = value
    if isinstance(raw.get("properties"), Mapping):
        props: dict[str, Any] = {}
        for name, sub in list(raw["properties"].items())[:MAX_PROPERTIES]:
            if isinstance(name, str) and PARAM_NAME.match(name) and isinstance(sub, Mapping):
                props[name] = _node(sub, depth + 1, budget)
        out["properties"] = props
        if isinstance(raw.get("required"), list):
            required = [r for r in raw["required"] if isinstance(r, str) and r in props]
            if required:
                out["required"] = list(dict.fromkeys(required))
    additional = raw.get("additionalProperties")
    if isinstance(additional, bool):
        out["additionalProperties"] = additional
    elif isinstance(additional, Mapping):
        out["additionalProperties"] = _node(additional, depth + 1, budget)
    items = raw.get("items")
    if isinstance(items, Mapping):
        out["items"] = _node(items, depth + 1, budget)
    for key in ("anyOf", "oneOf"):
        if isinstance(raw.get(key), list):
            subs = [_node(s, depth + 1, budget) for s in raw[key][:10] if isinstance(s, Mapping)]
            if subs:
                out[key] = subs
    return out


_DROP = object()


def _scalar(value: object) -> object:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return clean(value, MAX_STRING)
    if _is_number(value):
        return value
    return _DROP


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
