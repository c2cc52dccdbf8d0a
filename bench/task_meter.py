"""What a model's context receives during one scripted task, entry by entry (bench/tasks.py).

Counted, in the order the model would see them:

- ``tools/list`` once when the session starts (the JSON of the tools array, as ``StdioServer.tool_list``
  measures it), and again for every ``notifications/tools/list_changed`` the server sends: an MCP host
  re-reads the list each time and the model gets the new one. The re-read happens right after the call
  during which the notification arrived (one read per notification). A re-read list identical to the one
  the model already has brings it nothing new: it is recorded (``counted=False``) but not counted.
- every ``tools/call`` result's text (all its text parts).

With tabmcp's static tool list (``static``) the list never changes: the page tools the model has are those
told in answers (their ``pageTools`` block, counted with the answer) or by ``list_page_tools``, and a page
tool is called through ``call_page_tool``. The script reads ``listed()`` and calls tools by name either way.

Not counted: the arguments the model writes (the same order of size for both servers), the JSON-RPC
envelope, the server's instructions. A result with ``isError`` is counted (the model reads the error) and
raises ``TaskFailed``: the task fails unless its script recovers as a model would.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from bench.mcp_stdio import StdioServer, ToolError
from tabmcp.tools.catalog import CATALOG
from tabmcp.tools.page_proxy import NEWS_KEY

CORE = frozenset(t.name for t in CATALOG)  # tabmcp's own tools; the rest of its list are page tools


class TaskFailed(RuntimeError):
    """The scripted model could not go on (a tool error, a control it could not find) or got a wrong answer."""


@dataclass(frozen=True)
class Entry:
    kind: str  # "call" or "tools/list"
    name: str  # the tool called, or why the list was read ("at start", "after open_tab")
    chars: int
    seconds: float
    setup: bool  # session set-up rather than this task's work: the first tools/list
    tools: int = 0  # for a tools/list: how many tools it had
    counted: bool = True  # False: a re-read list identical to the previous one (nothing new for the model)
    change: str = ""  # for a re-read list: the tools added (+), removed (-) and changed (~) since the last one
    page_chars: int = 0  # for a tools/list: the JSON of its tools that are not tabmcp core tools (page tools)
    told_chars: int = 0  # for a call (static tool list): its answer's block telling page tools (counted in chars)


@dataclass
class Meter:
    server: StdioServer
    entries: list[Entry] = field(default_factory=list)
    started: float = 0.0
    ended: float = 0.0
    page_opened: float = 0.0  # when open_tab / browser_navigate returned
    workarounds: list[str] = field(default_factory=list)  # why a generic tool stood in for a page tool
    _seen: int = 0
    _last: dict[str, str] = field(default_factory=dict)  # the last list read: name → the tool's JSON
    static: bool = False  # tabmcp's static tool list: page tools told in answers, run by call_page_tool
    _told: dict[str, str] = field(default_factory=dict)  # static: the page tools told so far: name → JSON

    async def begin(self) -> None:
        """The host's first ``tools/list``; the task's clock starts after it."""
        self._seen = self.server.list_changed
        await self._read_list("at start", setup=True)
        self.started = time.perf_counter()

    async def call(self, name: str, arguments: dict[str, Any] | None = None, *, setup: bool = False) -> str:
        start = time.perf_counter()
        shown, tool, args = name, name, arguments
        if self.static and name not in CORE:  # a page tool, through the fixed list's proxy
            shown, tool, args = f"call_page_tool {name}", "call_page_tool", {"name": name, "arguments": arguments or {}}
        try:
            result = await self.server.call(tool, args)
        except ToolError as e:  # the model read the error too: counted, then the script decides
            self.entries.append(Entry("call", shown, len(str(e)), time.perf_counter() - start, setup))
            await self._follow_list_changes(f"after {name}", setup)
            raise TaskFailed(str(e)) from None
        if not self.static:
            self.entries.append(Entry("call", shown, len(result.text), result.seconds, setup))
            await self._follow_list_changes(f"after {name}", setup)
            return result.text
        if name == "list_page_tools":
            self._told = {t["name"]: json.dumps(t) for t in json.loads(result.parts[0]).get("tools", [])}
        told = [part for part in result.parts if part.startswith(f'{{"{NEWS_KEY}":')]
        change = " ".join(self._take(part) for part in told)
        size = sum(map(len, told))
        entry = Entry("call", shown, len(result.text), result.seconds, setup, change=change, told_chars=size)
        self.entries.append(entry)
        await self._follow_list_changes(f"after {name}", setup)  # none come with a fixed list: counted if any did
        return "".join(part for part in result.parts if part not in told)

    def _take(self, part: str) -> str:
        """The model takes the page tools an answer's block tells (static mode); what changed (``_change``)."""
        news = json.loads(part)[NEWS_KEY]
        before = dict(self._told)
        for gone in news.get("gone", []):
            self._told.pop(gone, None)
        self._told.update({t["name"]: json.dumps(t) for t in news.get("tools", [])})
        return _change(before, self._told)

    def workaround(self, why: str) -> None:
        """The script is about to use a generic tool (snapshot, interact) where a page tool should serve."""
        self.workarounds.append(why)

    def opened(self) -> None:
        self.page_opened = time.perf_counter()

    async def finish(self) -> None:
        await self._follow_list_changes("at the end", setup=False)
        self.ended = time.perf_counter()

    async def _follow_list_changes(self, why: str, setup: bool) -> None:
        while self._seen < self.server.list_changed:
            self._seen += 1
            await self._read_list(why, setup)

    async def _read_list(self, why: str, setup: bool) -> None:
        start = time.perf_counter()
        listed = await self.server.tool_list()
        seconds = time.perf_counter() - start
        tools = dict(zip(listed.names, listed.each, strict=True))
        change = _change(self._last, tools) if self.entries else ""
        new = not self.entries or tools != self._last
        self._last = tools
        page = sum(len(j) for name, j in tools.items() if name not in CORE)
        self.entries.append(Entry("tools/list", why, listed.chars, seconds, setup, listed.count, new, change, page))

    def listed(self) -> dict[str, dict[str, Any]]:
        """The tools the model has: those of the last list read, and in static mode the page tools told
        since (name → the tool's definition)."""
        return {name: json.loads(tool) for name, tool in {**self._last, **self._told}.items()}

    def seconds(self) -> float:
        return self.ended - self.started

    def seconds_on_page(self) -> float:
        return self.ended - self.page_opened if self.page_opened else 0.0


def _change(before: dict[str, str], after: dict[str, str]) -> str:
    """``+name`` added, ``-name`` removed, ``~name(parts)`` changed, with the parts of its definition
    that differ (``title``, ``description``, ``inputSchema``, ``annotations``...)."""
    parts = [f"+{n}" for n in after if n not in before]
    parts += [f"-{n}" for n in before if n not in after]
    parts += [f"~{n}({_parts(before[n], after[n])})" for n in after if n in before and after[n] != before[n]]
    return " ".join(parts)


def _parts(before: str, after: str) -> str:
    old, new = json.loads(before), json.loads(after)
    return ",".join(k for k in dict.fromkeys([*old, *new]) if old.get(k) != new.get(k))
