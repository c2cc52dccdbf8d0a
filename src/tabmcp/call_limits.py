"""How large one tool call's arguments and answer may be (pure).

A string argument is text a model wrote: a selector, a text to wait for or type, a script. None is
meaningfully megabytes long, and each is shipped to the browser and often repeated in the answer,
so one past ``MAX_ARGUMENT_CHARS`` is refused before anything runs, naming the argument, its length
and the limit. An answer is measured last: past ``max_chars`` (the bridge's frame limit, the size
the server takes from its browser) it becomes an error saying so, never a reply the client cannot
read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import mcp_types as types

from tabmcp.echo import escaped
from tabmcp.results import error_result

# a whole document a model pastes into an editor fits (about 250 pages); 4 MB of UTF-8 at most, far
# under the 16 MiB frame; a selector or a text to wait for is under 1,000
MAX_ARGUMENT_CHARS = 1_000_000
MAX_NAME_SHOWN = 60  # of an argument's name in the error (a key is the caller's text too)
MAX_DEPTH = 20  # nesting walked; deeper values are the tool's own validation's business


def oversized_argument(arguments: Mapping[str, Any], limit: int = MAX_ARGUMENT_CHARS) -> str | None:
    """Why the arguments are refused, if a string in them (a value or a key) is over ``limit`` characters."""
    for path, text in _strings(arguments, "", 0):
        if len(text) > limit:
            where = escaped(path, MAX_NAME_SHOWN) or "an argument name"
            return (
                f"{where} is {len(text):,} characters long; one argument may have at most {limit:,}. "
                "Send a shorter text (a part of it that is enough to recognise)."
            )
    return None


def _strings(value: Any, path: str, depth: int) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif depth < MAX_DEPTH and isinstance(value, Mapping):
        for key, item in value.items():
            name = str(key)
            yield "an argument name", name  # a key is the caller's text too
            yield from _strings(item, f"{path}.{name}" if path else name, depth + 1)
    elif depth < MAX_DEPTH and isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}[{index}]", depth + 1)


def answer_chars(result: types.CallToolResult) -> int:
    """About how many characters the answer takes on the wire (its text, images and structured content)."""
    size = 0
    for block in result.content:
        if isinstance(block, types.TextContent):
            size += len(block.text)
        elif isinstance(block, types.ImageContent):
            size += len(block.data)
    if result.structured_content is not None:
        size += len(json.dumps(result.structured_content, ensure_ascii=False, default=str))
    return size


def bounded_answer(result: types.CallToolResult, tool: str, max_chars: int) -> types.CallToolResult:
    """``result``, or an error in its place when it is larger than ``max_chars``."""
    size = answer_chars(result)
    if size <= max_chars:
        return result
    return error_result(
        f"{escaped(tool, MAX_NAME_SHOWN)} produced an answer of {size:,} characters, more than the {max_chars:,} "
        "one answer may have. Ask for less: a narrower target, a smaller maxChars, or a part of the page.",
        {"code": "ANSWER_TOO_LARGE"},
    )
