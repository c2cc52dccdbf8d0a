"""How a tool call's JSON answer goes to the client: the same object as text (for clients that read
only ``content``) and as ``structuredContent``. Errors are shaped alike wherever they are made (the
server, the guards), so a model reads every failure the same way."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

from tabmcp.echo import escaped


def json_result(data: dict[str, Any], *, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(data, ensure_ascii=False))],
        structured_content=data,
        is_error=error,
    )


def error_result(message: str, data: dict[str, Any] | None = None) -> types.CallToolResult:
    """An ``isError`` result; ``error`` is the message, after the data's fields (the specific message wins).
    Every error passes here: the message is bounded and its hidden characters escaped (``echo.py``),
    whatever caller or page text a path put in it."""
    return json_result({**(data or {}), "error": escaped(message)}, error=True)
