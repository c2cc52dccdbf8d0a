"""The scripted tasks of bench/tasks.py played as a model under the real Claude Code CLI.

The task scripts (``task_tabmcp.SCRIPTS``, ``task_playwright.SCRIPTS``) are coroutines that only ever
await ``meter.call(name, arguments)``. Here that await suspends the coroutine and hands the call to the
scripted Messages API (``tests/claude_code/messages_api.py``): ``ScriptedModel`` drives the coroutine by
hand, one ``send`` per model turn, so the same scripts read the same results and choose the same next
calls, only now through Claude Code's requests. What Claude Code adds is handled here, as a model does:

- a tool that is only named for ToolSearch (deferred) is loaded first with ``select:``, together with the
  other deferred tools the task is known to need (``plan``: a model loads what it sees it will use);
- with ``TABMCP_TOOLS=static`` a page tool goes through ``call_page_tool``, after ``list_page_tools``
  when the last listing the model read did not name it;
- a tool that is not offered at all (the list not updated yet) is a miss: the model re-reads the page
  (``fallback``) and tries again, at most ``max_misses`` times.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Coroutine, Generator, Iterable
from dataclasses import dataclass, field
from typing import Any

from tests.claude_code.messages_api import TOOL_SEARCH, Reply, Turn, say

from bench.task_meter import TaskFailed
from tabmcp.tools.page_proxy import NEWS_KEY

TOLD = f'{{"{NEWS_KEY}":'  # how an answer's block telling the page tools begins

ScriptCoroutine = Coroutine[Any, str, dict[str, Any]]
SCRIPT_ERRORS = (TaskFailed, LookupError, KeyError, ValueError, TypeError)


@dataclass(frozen=True)
class _Ask:
    """What a script awaits: the model's next tool call; the await returns the result's text."""

    name: str
    arguments: dict[str, Any]

    def __await__(self) -> Generator[_Ask, str, str]:
        return (yield self)


class ModelMeter:
    """Stands in for ``task_meter.Meter`` in the task scripts: the calls go out as the model's turns."""

    async def call(self, name: str, arguments: dict[str, Any] | None = None, *, setup: bool = False) -> str:
        return await _Ask(name, arguments or {})

    def opened(self) -> None:
        pass


@dataclass
class CallRecord:
    """One call the script made, as it went through Claude Code."""

    tool: str  # as the script named it
    first_turn: int  # the request in which the model first wanted it
    offered_at_once: bool  # that request offered it (loaded, or named for ToolSearch)
    loaded_at_once: bool  # that request had it in the tools array
    page: bool = False  # a tool of the page (tabmcp), not a core one
    searches: int = 0  # ToolSearch turns spent on it
    misses: int = 0  # requests that did not offer it at all
    listings: int = 0  # list_page_tools turns spent on it (static mode)
    result_chars: int = 0
    is_error: bool = False


@dataclass
class ScriptedModel:
    """A ``messages_api`` script: ``script`` is the task coroutine, built on a ``ModelMeter``."""

    script: ScriptCoroutine
    prefix: str  # Claude Code's name prefix for the server: mcp__tabmcp__
    page_tool: Callable[[str], bool] | None = None  # tabmcp: is this a page tool; None for a peer
    static: bool = False  # page tools through list_page_tools / call_page_tool
    plan: tuple[str, ...] = ()  # the tools (script names) the task will use
    fallback: tuple[str, dict[str, Any]] | None = None
    max_misses: int = 3
    calls: list[CallRecord] = field(default_factory=list)
    answer: dict[str, Any] | None = None
    error: str = ""
    tool_uses: int = 0  # every tool_use the model sent (ToolSearch, listings and fallbacks included)
    searches: int = 0
    _want: _Ask | None = None
    _record: CallRecord | None = None
    _sent: str = ""  # what the last tool_use was for: task, search, list, fallback
    _listed: frozenset[str] = frozenset()  # page tools named by the last list_page_tools
    _started: bool = False

    @property
    def finished(self) -> bool:
        return self._started and self._want is None

    def __call__(self, turn: Turn) -> Reply:
        if not self._started:
            self._started = True
            self._step(lambda: self.script.send(None))
        elif self._sent:
            self._take_result(turn)
        if self._want is None:
            return say("failed: " + self.error if self.error else "done")
        return self._next(turn)

    # ------------------------------------------------------------------ driving the script

    def _step(self, advance: Callable[[], _Ask]) -> None:
        try:
            self._want = advance()
        except StopIteration as done:
            self._want, self.answer = None, done.value
        except SCRIPT_ERRORS as exc:
            self._want, self.error = None, f"{type(exc).__name__}: {exc}"

    def _take_result(self, turn: Turn) -> None:
        sent, self._sent = self._sent, ""
        text = turn.last_result_text()
        if sent == "list":
            self._listed = frozenset(re.findall(r"\b([A-Za-z_][\w.-]*)\b", text))
        elif self.static:  # an answer's last block may tell the page's tools (page_proxy.page_tools_news)
            text, news = _told_apart(text)
            gone = frozenset(news.get("gone", ()))
            self._listed = (self._listed - gone) | {str(t.get("name")) for t in news.get("tools", ())}
        if sent != "task" or self._record is None:
            return
        record, self._record = self._record, None
        record.result_chars = len(text)
        record.is_error = any(b.get("is_error") for b in turn.last_results())
        if record.is_error:
            self._step(lambda: self.script.throw(TaskFailed(f"{record.tool}: {text[:1500]}")))
        else:
            self._step(lambda: self.script.send(text))

    # ------------------------------------------------------------------ the next tool_use

    def _is_page(self, name: str) -> bool:
        return bool(self.page_tool and self.page_tool(name))

    def _actual(self, ask: _Ask) -> tuple[str, str, dict[str, Any]]:
        """(why, tool, arguments) of the tool_use that serves the script's call now."""
        if self.static and self._is_page(ask.name):
            if ask.name not in self._listed:
                return "list", "list_page_tools", {}
            return "task", "call_page_tool", {"name": ask.name, "arguments": ask.arguments}
        return "task", ask.name, ask.arguments

    def _planned(self) -> list[str]:
        names = [n for n in self.plan if not (self.static and self._is_page(n))]
        if self.static and any(self._is_page(n) for n in self.plan):
            names += ["list_page_tools", "call_page_tool"]
        return [self.prefix + n for n in names]

    def _next(self, turn: Turn) -> Reply:
        assert self._want is not None
        why, tool, arguments = self._actual(self._want)
        full = self.prefix + tool
        if self._record is None:
            loaded = full in turn.tool_names
            offered = loaded or full in turn.deferred
            self._record = CallRecord(self._want.name, turn.index, offered, loaded, self._is_page(self._want.name))
            self.calls.append(self._record)
        record = self._record
        if max(record.searches, record.listings, record.misses) > self.max_misses:
            counts = f"{record.searches} searches, {record.listings} listings, {record.misses} misses"
            return self._give_up(f"{tool} did not become callable ({counts})")
        if full in turn.tool_names:
            if why == "list":
                record.listings += 1
            return self._use(why, full, arguments)
        if full in turn.deferred:
            record.searches += 1
            return self._search(turn, full)
        record.misses += 1
        if self.fallback is None:
            return self._give_up(f"{tool} is not offered")
        name, fallback_arguments = self.fallback
        if self.prefix + name in turn.tool_names:
            return self._use("fallback", self.prefix + name, fallback_arguments)
        if self.prefix + name in turn.deferred:
            return self._search(turn, self.prefix + name)
        return self._give_up(f"neither {tool} nor the fallback {name} is offered")

    def _give_up(self, why: str) -> Reply:
        self._want, self.error = None, why
        self.script.close()
        return say("failed: " + why)

    def _use(self, why: str, full: str, arguments: dict[str, Any]) -> Reply:
        self._sent = why
        self.tool_uses += 1
        return Reply(calls=((full, arguments),))

    def _search(self, turn: Turn, full: str) -> Reply:
        others = [n for n in self._planned() if n != full and n in turn.deferred]
        self.searches += 1
        return self._use("search", TOOL_SEARCH, {"query": "select:" + ",".join([full, *others])})


def _told_apart(text: str) -> tuple[str, dict[str, Any]]:
    """An answer's text without its block telling page tools (static mode), and what that block tells."""
    head, mark, block = text.rpartition("\n" + TOLD)
    if not mark and text.startswith(TOLD):
        head, block = "", text.removeprefix(TOLD)
    elif not mark:
        return text, {}
    try:
        news = json.loads(TOLD + block)[NEWS_KEY]
    except ValueError:  # the page's own text looked like one
        return text, {}
    return head, news if isinstance(news, dict) else {}


def page_tool_test(core: Iterable[str]) -> Callable[[str], bool]:
    """A tabmcp tool that is not one of its core tools is a page tool."""
    known = frozenset(core)
    return lambda name: name not in known
