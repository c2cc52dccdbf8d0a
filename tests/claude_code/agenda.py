"""A scripted model that works through an agenda of tool calls the way a real model would under
Claude Code: a tool in the request's tools array is called; a tool only named in the deferred list is
loaded first with ``ToolSearch("select:…")``; a tool not offered at all is noted and, as a model
would, it re-reads the page (``fallback``) before trying again.

Each ``Step`` records what the request that came right after the previous step offered, so a test
can assert that a page's tools were there in the very next request.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.claude_code.messages_api import SERVER_PREFIX, TOOL_SEARCH, Reply, Turn, call, say

Arguments = dict[str, Any] | Callable[[Turn], dict[str, Any]]


@dataclass
class Step:
    tool: str  # a tabmcp tool name, without Claude Code's prefix
    arguments: Arguments = field(default_factory=dict)
    # filled in while the agenda runs
    first_turn: int | None = None  # the request in which this step was first up
    offered_at_once: bool | None = None  # that request offered the tool (loaded or by name)
    loaded_at_once: bool | None = None  # that request had it in the tools array
    searched: bool = False  # a ToolSearch was needed to load it
    misses: int = 0  # requests in which it was not offered at all
    result: str | None = None  # what the call answered (the text of its tool_result)

    @property
    def full_name(self) -> str:
        return SERVER_PREFIX + self.tool


@dataclass
class Agenda:
    steps: list[Step]
    fallback: Step | None = None  # what the model does when the next tool is not offered
    max_misses: int = 3
    done_text: str = "done"
    _at: int = 0
    _pending: Step | None = None  # the step whose call went out last

    def __call__(self, turn: Turn) -> Reply:
        if self._pending is not None:
            self._pending.result = turn.last_result_text()
            self._pending = None
        if self._at >= len(self.steps):
            return say(self.done_text)
        step = self.steps[self._at]
        if step.first_turn is None:
            step.first_turn = turn.index
            step.offered_at_once = turn.offers(step.tool)
            step.loaded_at_once = step.full_name in turn.tool_names
        if step.full_name in turn.tool_names:
            self._at += 1
            self._pending = step
            arguments = step.arguments(turn) if callable(step.arguments) else step.arguments
            return call(step.tool, arguments)
        if step.full_name in turn.deferred:
            step.searched = True
            return call(TOOL_SEARCH, {"query": f"select:{step.full_name}", "max_results": 1})
        step.misses += 1
        if step.misses > self.max_misses:
            return say(f"gave up: {step.tool} was never offered")
        if self.fallback is not None and self.fallback.full_name in turn.tool_names:
            arguments = self.fallback.arguments(turn) if callable(self.fallback.arguments) else self.fallback.arguments
            return call(self.fallback.tool, arguments)
        if self.fallback is not None and self.fallback.full_name in turn.deferred:
            return call(TOOL_SEARCH, {"query": f"select:{self.fallback.full_name}", "max_results": 1})
        return say(f"{step.tool} is not offered yet")

    @property
    def finished(self) -> bool:
        return self._at >= len(self.steps) and self._pending is None
