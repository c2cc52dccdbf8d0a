"""Oversized and hostile caller text, through a real client, server and browser: every answer stays
short, says what was wrong and how long the input was, and carries no raw control or bidi character."""

from __future__ import annotations

import re
from pathlib import Path

import mcp_types as types
import pytest

from tabmcp.demo.client import StdioSession, text_of
from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import serve

# every test here runs on the extension and on the CDP driver (docs/scaling.md)
pytestmark = pytest.mark.usefixtures("driver_kind")

SHORT = 2_000  # characters: an error a model reads, not the input sent back
HOSTILE = "\x00\x1b[2J\u202e\u2066"  # NUL, a terminal escape, bidi overrides
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def short_error(result: types.CallToolResult, *words: str) -> str:
    """The answer's error message, checked: an error, short, with ``words`` in it, and nothing hidden."""
    text = text_of(result)
    assert result.is_error, text[:300]
    assert len(text) < SHORT, f"{len(text):,} characters: {text[:300]}"
    assert result.structured_content is not None
    message = result.structured_content["error"]
    assert not RAW.search(text) and not RAW.search(message), f"raw control or bidi character in {message[:300]!r}"
    for word in words:
        assert word in message, f"{word!r} not in {message[:600]!r}"
    return message


async def focused(client: StdioSession, sites: SiteServer) -> None:
    await client.call_ok("connect_browser", {"launch": True})
    await client.call_ok("open_tab", {"url": sites.url("flights.html")})


async def test_oversized_text_arguments_are_refused_short(
    sites: SiteServer, server_log: object, tmp_path: Path
) -> None:
    async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile")) as client:
        name = HOSTILE + "n" * 10_000
        unknown = short_error(await client.call(name), "Unknown tool", f"({len(name):,} characters)")
        assert "\\x00\\x1b" in unknown
        await focused(client, sites)
        short_error(await client.call(name), "Unknown tool", f"({len(name):,} characters)")
        huge = "e" * 2**20
        short_error(await client.call("interact", {"action": "click", "target": huge}), "target", "1,048,576")
        css = "css=" + "a" * 2**20
        short_error(await client.call("interact", {"action": "click", "target": css}), "target", "1,048,580")
        cursor = "s" * (20 * 2**20)
        short_error(await client.call("snapshot", {"cursor": cursor}), "cursor", "20,971,520", "1,000,000")
        text = "w" * (9 * 2**20)
        refused = await client.call("wait_for", {"text": text})
        short_error(refused, "Invalid arguments for wait_for: text is 9,437,184 characters long", "1,000,000")
        assert refused.structured_content is not None and refused.structured_content["code"] == "INVALID_ARGUMENT"
        # the server goes on serving, and the browser link held
        assert (await client.call_ok("list_tabs"))["tabs"]


async def test_echoed_text_under_the_limit_is_cut_and_escaped(
    sites: SiteServer, server_log: object, tmp_path: Path
) -> None:
    async with serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile")) as client:
        await focused(client, sites)
        text = HOSTILE + "never shown " * 5_000  # allowed, and never on the page
        timed_out = short_error(
            await client.call("wait_for", {"text": text, "timeoutMs": 300}), "TIMEOUT", f"{len(text):,} characters"
        )
        # shown as escapes (the browser writes JSON's \u0000, the server \x00): the reader sees them
        assert re.search(r"\\(x00|u0000)", timed_out) and "\\u202e" in timed_out
        cursor = HOSTILE + "c" * 50_000
        shown = short_error(await client.call("snapshot", {"cursor": cursor}), "cursor", f"{len(cursor):,} characters")
        assert "\\u202e" in shown
        role = short_error(
            await client.call("interact", {"action": "click", "target": f"role={HOSTILE}button"}), "role"
        )
        assert "\\x1b" in role
        css = short_error(await client.call("interact", {"action": "click", "target": f"{HOSTILE}#x"}), "target")
        assert "\\u2066" in css
        key = short_error(await client.call("interact", {"action": "press", "key": f"{HOSTILE}Enter"}), "Unknown key")
        assert re.search(r"\\(x00|u0000)", key) and "\\u202e" in key
        unknown_argument = short_error(await client.call("snapshot", {HOSTILE + "k" * 5_000: 1}), "not permitted")
        assert "\\u202e" in unknown_argument and "5,007 characters" in unknown_argument
        assert (await client.call_ok("list_tabs"))["tabs"]
