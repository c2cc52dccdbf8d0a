"""Is an incoming message one the MCP SDK will take? If not, the JSON-RPC error that answers it (pure).

The SDK's transports drop a line they cannot read (stdio) without answering it, so a client that
sent it with an id waits forever. Every message is checked here first, with the SDK's own model of
a JSON-RPC message; what fails gets the error JSON-RPC 2.0 prescribes: ``-32700`` for text that is
not JSON, ``-32600`` for JSON that is not one request, notification or response, with the
request's id when it can be read (an id may only be a string or an integer; otherwise ``null``).
Batches (arrays) are refused: MCP since 2025-06-18 has none.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp_types import INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR

from tabmcp.echo import quote

ONE_PER_LINE = "send one JSON-RPC 2.0 object per message"
MAX_METHOD = 200  # no MCP method name comes near; the SDK's "Method not found" repeats the name in full
# The largest message read. Tool arguments are capped far lower, and a message up to this size gets
# the tool's own error naming the argument; past it the message is dropped as it arrives and
# answered here, instead of growing the server without bound.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
HEAD_BYTES = 1024  # kept of a message too large: enough to find its id
# an id at the top level of an object, before any nested value: the head of a message too large to read
_HEAD_ID = re.compile(rb'^\s*\{[^{}\[\]]*?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')


def check_message(raw: str | bytes) -> types.JSONRPCError | None:
    """None when ``raw`` is a JSON-RPC message the SDK accepts, else the error reply for it."""
    try:
        message = types.jsonrpc_message_adapter.validate_json(raw, by_name=False)
    except ValueError:  # pydantic's ValidationError is a ValueError; the reason is found below
        pass
    else:
        # the SDK reads {"id": null, "method": …} as a notification and would never answer it
        has_id = ('"id"' in raw) if isinstance(raw, str) else (b'"id"' in raw)
        suspect = isinstance(message, types.JSONRPCNotification) and has_id
        if isinstance(message, types.JSONRPCRequest) and len(message.method) > MAX_METHOD:
            return _error(message.id, METHOD_NOT_FOUND, f"Method not found: {quote(message.method)}")
        if not suspect or "id" not in json.loads(raw):
            return None
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        where = f" at character {exc.pos}" if isinstance(exc, json.JSONDecodeError) else ""
        return _error(None, PARSE_ERROR, f"Parse error: the message is not JSON{where} ({ONE_PER_LINE})")
    if isinstance(value, list):
        batch = f"Invalid Request: batches (JSON arrays) are not supported; {ONE_PER_LINE}"
        return _error(None, INVALID_REQUEST, batch)
    if not isinstance(value, dict):
        return _error(None, INVALID_REQUEST, f"Invalid Request: the message is a JSON {_kind(value)}, not an object")
    return _error(_id_of(value), INVALID_REQUEST, f"Invalid Request: {_what_is_wrong(value)}")


@dataclass(frozen=True)
class TooLarge:
    """A message over ``MAX_MESSAGE_BYTES``, dropped as it came in: its first bytes, for the reply's id."""

    head: bytes


def too_large(head: bytes) -> types.JSONRPCError:
    """The error for a message over ``MAX_MESSAGE_BYTES``, with its id when its first bytes
    (``head``) show one at the top level before any nested value."""
    request_id: types.RequestId | None = None
    found = _HEAD_ID.match(head)
    if found is not None:
        with_id = json.loads(found.group(1))
        request_id = with_id if isinstance(with_id, str | int) else None
    limit = f"{MAX_MESSAGE_BYTES // (1024 * 1024)} MiB"
    return _error(request_id, INVALID_REQUEST, f"Invalid Request: the message is over {limit}, the most tabmcp reads")


def _id_of(message: dict[str, Any]) -> types.RequestId | None:
    value = message.get("id")
    return value if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)) else None


def _what_is_wrong(message: dict[str, Any]) -> str:
    version = message.get("jsonrpc")
    if version != "2.0":
        if "jsonrpc" not in message:
            return '"jsonrpc": "2.0" is missing'
        got = quote(version) if isinstance(version, str) else f"a JSON {_kind(version)}"
        return f'"jsonrpc" must be "2.0" (got {got})'
    if "id" in message and _id_of(message) is None:
        return f'"id" must be a string or an integer (got a JSON {_kind(message["id"])})'
    if "method" in message:
        if not isinstance(message["method"], str):
            return f'"method" must be a string (got a JSON {_kind(message["method"])})'
        if "params" in message and not isinstance(message["params"], dict | None):
            return f'"params" must be an object (got a JSON {_kind(message["params"])}); MCP takes named parameters'
        return "not a valid JSON-RPC 2.0 request or notification"
    if "result" in message or "error" in message:
        return "not a valid JSON-RPC 2.0 response (a result must be an object, an error needs a code and a message)"
    return 'no "method": not a JSON-RPC 2.0 request, notification or response'


def _kind(value: object) -> str:
    match value:
        case None:
            return "null"
        case bool():
            return "boolean"
        case int() | float():
            return "number"
        case str():
            return "string"
        case list():
            return "array"
        case _:
            return "object"


def _error(request_id: types.RequestId | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))
