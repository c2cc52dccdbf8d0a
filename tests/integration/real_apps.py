"""What the live tests on real apps (bench/apps) share: the app a test names, started on fresh data; a
server with a launched browser on one of its pages; page tools found by what they take or say rather
than by name (names improve on their own, and bench.apps report judges them)."""

from __future__ import annotations

import urllib.request
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import mcp_types as types
import pytest
from bench.apps import load
from bench.apps.runner import Running, running

from tabmcp.demo.client import StdioSession, text_of
from tests.integration.conftest import CORE_FOCUSED, serve


@pytest.fixture(name="app")
def app_fixture(request: pytest.FixtureRequest) -> Iterator[Running]:
    """The app the test names (``indirect``), started on fresh data; stopped with all it started."""
    with running(load(request.param)) as live:
        yield live


@asynccontextmanager
async def on_page(server_log: object, app: Running, path: str) -> AsyncIterator[StdioSession]:
    """`tabmcp serve` on the test's driver, its browser launched and a tab open on ``path`` of ``app``."""
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": app.url(path)})
        yield client


def page_tools(tools: list[types.Tool]) -> list[types.Tool]:
    return [t for t in tools if t.name not in CORE_FOCUSED and t.name not in ("connect_browser", "disconnect")]


def argument(tool: types.Tool, *words: str) -> str | None:
    """The tool's argument whose name or description has one of ``words`` (case-insensitive)."""
    for name, prop in tool.input_schema.get("properties", {}).items():
        text = f"{name} {prop.get('description', '')}".lower() if isinstance(prop, dict) else name.lower()
        if any(w in text for w in words):
            return str(name)
    return None


async def tool_taking(
    client: StdioSession, *groups: tuple[str, ...], first: bool = False
) -> tuple[types.Tool, list[str]]:
    """The one page tool with an argument for each group of words, and those arguments (``first``:
    the first listed of several, as a model would take it where the page has twins)."""
    found = []
    for tool in page_tools(await client.tools()):
        names = [argument(tool, *group) for group in groups]
        if all(names):
            found.append((tool, [str(n) for n in names]))
    assert len(found) == 1 or (first and found), f"{len(found)} tools take {groups}: {[t.name for t, _ in found]}"
    return found[0]


async def tool_titled(client: StdioSession, words: str) -> types.Tool:
    """The one page tool whose title or description has ``words``."""
    found = [t for t in page_tools(await client.tools())
             if words.lower() in f"{t.title or ''} {t.description}".lower()]
    assert len(found) == 1, f"{len(found)} tools say {words!r}: {[t.name for t in found]}"
    return found[0]


async def call_text(client: StdioSession, name: str, args: dict[str, Any]) -> str:
    result = await client.call(name, args)
    assert not result.is_error, f"{name}({args}) failed: {text_of(result)}"
    return text_of(result)


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return str(response.read().decode("utf-8", "replace"))


