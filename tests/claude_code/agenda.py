"""An agenda of tool calls, played under Claude Code by the benchmark's scripted model
(``bench/claude_model.py``), as a real model would: a tool in the request's tools array is called; a
tool only named in the deferred list is loaded first with ``ToolSearch("select:…")``; a tool not
offered at all is a miss, and the model re-reads the page (``fallback``) before trying again.

Each ``Step`` keeps what the request in which the model first wanted it offered (so a test can assert
that a page's tools were there in the very next request) and what the call answered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bench.claude_model import CallRecord, ModelMeter, ScriptedModel

from tests.claude_code.messages_api import SERVER_PREFIX, Reply, Turn


@dataclass
class Step:
    tool: str  # a tabmcp tool name, without Claude Code's prefix
    arguments: dict[str, Any] = field(default_factory=dict)
    record: CallRecord | None = None  # how the call went through Claude Code, once the model wanted it
    result: str | None = None  # the text of its tool_result

    @property
    def offered_at_once(self) -> bool | None:
        """The first request in which the model wanted it offered it (loaded, or named for ToolSearch)."""
        return self.record.offered_at_once if self.record else None

    @property
    def loaded_at_once(self) -> bool | None:
        return self.record.loaded_at_once if self.record else None

    @property
    def searched(self) -> bool:
        return bool(self.record and self.record.searches)

    @property
    def misses(self) -> int:
        return self.record.misses if self.record else 0

    @property
    def first_turn(self) -> int | None:
        return self.record.first_turn if self.record else None


class Agenda:
    """A ``messages_api`` script: the steps in order, then the answer "done"."""

    def __init__(self, steps: list[Step], fallback: Step | None = None) -> None:
        self.steps = steps
        self.model = ScriptedModel(
            self._play(ModelMeter()),
            prefix=SERVER_PREFIX,
            fallback=(fallback.tool, fallback.arguments) if fallback else None,
        )

    async def _play(self, meter: ModelMeter) -> dict[str, Any]:
        for step in self.steps:
            step.result = await meter.call(step.tool, step.arguments)
        return {}

    def __call__(self, turn: Turn) -> Reply:
        reply = self.model(turn)
        for step, record in zip(self.steps, self.model.calls, strict=False):
            step.record = record
        return reply

    @property
    def error(self) -> str:
        """Why the model gave up (a tool never offered, a call that failed), else ""."""
        return self.model.error

    @property
    def finished(self) -> bool:
        return self.model.finished and not self.model.error
