"""Caller text shown back (echo.py), the JSON-RPC check of incoming messages (jsonrpc_check.py), and
the size limits of one call (call_limits.py)."""

from __future__ import annotations

import json
import re

import mcp_types as types
import pytest

from tabmcp.call_limits import MAX_ARGUMENT_CHARS, bounded_answer, oversized_argument
from tabmcp.echo import MAX_MESSAGE, escaped, quote
from tabmcp.jsonrpc_check import check_message
from tabmcp.results import error_result, json_result

HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u00ad\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\U000e0000-\U000e007f]")


def test_quote_keeps_short_text_whole_and_in_quotes() -> None:
    assert quote("Save") == '"Save"'
    assert quote("日本語 é") == '"日本語 é"'  # visible non-ASCII stays as it is
    assert quote(42) == '"42"'
    assert quote('say "hi" \\ ok') == '"say \\"hi\\" \\\\ ok"'  # the quotes stay unambiguous
    assert quote("it's", mark="'") == "'it\\'s'"


def test_quote_cuts_at_the_limit_and_says_how_long_the_input_was() -> None:
    shown = quote("x" * 10_000_000)
    assert shown == '"' + "x" * 80 + '…" (10,000,000 characters)'
    assert quote("y" * 30, limit=10) == '"' + "y" * 10 + '…" (30 characters)'
    assert quote("z" * 10, limit=10) == '"' + "z" * 10 + '"'


def test_quote_escapes_control_bidi_and_invisible_characters() -> None:
    hostile = "a\x00b\x1b[31mc\u202ed\u2066e\u200bf\ufeffg\U000e0041h\u2028i\x85j\nk\tl"
    shown = quote(hostile, limit=200)
    assert not HIDDEN.search(shown)
    for escape in ("\\x00", "\\x1b", "\\u202e", "\\u2066", "\\u200b", "\\ufeff", "\\U000e0041", "\\u2028", "\\x85"):
        assert escape in shown
    assert "\\x0a" in shown and "\\x09" in shown  # one line: breaks are escaped too


def test_escapes_count_against_the_limit() -> None:
    shown = quote("\x00" * 1000, limit=40)
    assert len(shown) < 40 + 30 and "(1,000 characters)" in shown
    assert not HIDDEN.search(shown)


def test_escaped_keeps_line_breaks_of_a_message_and_bounds_it() -> None:
    assert escaped("first\nsecond\tthird\x00\u202e") == "first\nsecond\tthird\\x00\\u202e"
    long = escaped("m" * (MAX_MESSAGE * 3))
    assert len(long) < MAX_MESSAGE + 60 and long.endswith(f"(cut at {MAX_MESSAGE:,} of {MAX_MESSAGE * 3:,} characters)")


def test_every_error_result_is_escaped_and_bounded() -> None:
    result = error_result("bad \x1b[2J\u202e" + "e" * 1_000_000, {"code": "X"})
    assert result.structured_content is not None
    message = result.structured_content["error"]
    assert not HIDDEN.search(message) and len(message) < MAX_MESSAGE + 60
    assert len(result.content[0].text) < MAX_MESSAGE + 200  # type: ignore[union-attr]


def error_of(raw: str | bytes) -> types.JSONRPCError:
    error = check_message(raw)
    assert error is not None, raw
    return error


@pytest.mark.parametrize(
    "line",
    [
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}',
        '{"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {"name": "x"}}',
        '{"jsonrpc": "2.0", "method": "notifications/initialized"}',
        '{"jsonrpc": "2.0", "id": 3, "result": {}}',
        '{"jsonrpc": "2.0", "id": 3, "error": {"code": -1, "message": "no"}}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}',
    ],
)
def test_well_formed_messages_pass(line: str | bytes) -> None:
    assert check_message(line) is None


@pytest.mark.parametrize(
    ("line", "code", "request_id", "says"),
    [
        ("garbage", -32700, None, "not JSON"),
        ('{"jsonrpc": "2.0", "id": 8, "meth', -32700, None, "not JSON"),
        ("[" * 100_000, -32700, None, "not JSON"),
        ('{"jsonrpc": "1.0", "id": 1, "method": "m"}', -32600, 1, '"jsonrpc" must be "2.0" (got "1.0")'),
        ('{"id": "k", "method": "m"}', -32600, "k", '"jsonrpc": "2.0" is missing'),
        ('{"jsonrpc": 2, "id": 3, "method": "m"}', -32600, 3, "got a JSON number"),
        ('{"jsonrpc": "2.0", "id": 4, "method": "m", "params": "x"}', -32600, 4, '"params" must be an object'),
        ('{"jsonrpc": "2.0", "id": {"a": 1}, "method": "m"}', -32600, None, '"id" must be a string or an integer'),
        ('{"jsonrpc": "2.0", "id": [1], "method": "m"}', -32600, None, "got a JSON array"),
        ('{"jsonrpc": "2.0", "id": true, "method": "m"}', -32600, None, "got a JSON boolean"),
        ('{"jsonrpc": "2.0", "id": 1.5, "method": "m"}', -32600, None, "got a JSON number"),
        ('{"jsonrpc": "2.0", "id": null, "method": "m"}', -32600, None, "got a JSON null"),
        ('[{"jsonrpc": "2.0", "id": 6, "method": "m"}]', -32600, None, "batches"),
        ("[]", -32600, None, "batches"),
        ('"text"', -32600, None, "a JSON string, not an object"),
        ('{"jsonrpc": "2.0", "method": 5}', -32600, None, '"method" must be a string'),
        ('{"jsonrpc": "2.0", "id": 9}', -32600, 9, 'no "method"'),
        ('{"jsonrpc": "2.0", "id": 9, "result": 5}', -32600, 9, "not a valid JSON-RPC 2.0 response"),
    ],
)
def test_malformed_messages_get_their_json_rpc_error(line: str, code: int, request_id: object, says: str) -> None:
    error = error_of(line)
    assert (error.error.code, error.id) == (code, request_id)
    assert says in error.error.message


def test_the_error_never_carries_the_input_at_length_nor_hidden_characters() -> None:
    version = "\u202e\x00" + "v" * 5_000_000
    error = error_of(json.dumps({"jsonrpc": version, "id": 1, "method": "m"}))
    assert len(error.error.message) < 300 and not HIDDEN.search(error.error.message)
    assert "(5,000,002 characters)" in error.error.message


def test_a_method_name_no_mcp_method_comes_near_is_not_found_without_its_echo() -> None:
    error = error_of(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "m" * 1_000_000}))
    assert (error.error.code, error.id) == (-32601, 2)
    assert len(error.error.message) < 300 and "(1,000,000 characters)" in error.error.message


def test_arguments_over_the_limit_are_named_with_their_length() -> None:
    assert oversized_argument({"text": "t" * MAX_ARGUMENT_CHARS, "n": 5}) is None
    why = oversized_argument({"text": "t" * (MAX_ARGUMENT_CHARS + 1)})
    assert why is not None and why.startswith(f"text is {MAX_ARGUMENT_CHARS + 1:,} characters long")
    assert f"{MAX_ARGUMENT_CHARS:,}" in why
    nested = oversized_argument({"arguments": {"rows": [{"q": "x"}, {"q": "x" * 2_000_000}]}})
    assert nested is not None and nested.startswith("arguments.rows[1].q is 2,000,000 characters long")
    key = oversized_argument({"k" * 2_000_000: 1})
    assert key is not None and key.startswith("an argument name is 2,000,000") and len(key) < 300
    hostile = oversized_argument({"\u202e" * 10: {"deep": "x" * 2_000_000}})
    assert hostile is not None and not HIDDEN.search(hostile)


def test_an_answer_past_the_limit_becomes_an_error_saying_so() -> None:
    small = json_result({"text": "ok"})
    assert bounded_answer(small, "snapshot", 1_000) is small
    big = types.CallToolResult(content=[types.TextContent(type="text", text="p" * 5_000)])
    replaced = bounded_answer(big, "snapshot", 1_000)
    assert replaced.is_error and replaced.structured_content is not None
    assert replaced.structured_content["code"] == "ANSWER_TOO_LARGE"
    assert "5,000 characters" in replaced.structured_content["error"]
    image = types.CallToolResult(content=[types.ImageContent(type="image", data="A" * 4_000, mime_type="image/png")])
    assert bounded_answer(image, "screenshot", 1_000).is_error
