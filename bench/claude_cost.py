"""What the requests of one Claude Code conversation cost as input, with prompt caching counted.

Per request: its JSON length, the tools array's share, and tokens estimated as characters / 4 (no
tokenizer for Claude's models installs offline). The API caches a prompt prefix in the order tools,
system, messages, so each request is serialised in that order (``canonical``); the longest common prefix
with the previous request is a cache read (0.1x), the rest is new input written to the cache (1.25x:
1x input plus the write premium). The sum is in "input token units": what the conversation's input
costs in tokens at the uncached price. A simplification of the real cache, which matches at
``cache_control`` breakpoints rather than at any character, so the figures are a lower bound of what
a changed tools array costs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

CHARS_PER_TOKEN = 4
CACHE_READ = 0.1
CACHE_WRITE = 1.25


def canonical(body: dict[str, Any]) -> str:
    """The request in the order the API caches it: tools, then system, then messages."""
    return "".join(json.dumps(body.get(part), ensure_ascii=False) for part in ("tools", "system", "messages"))


def common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix (binary search on slices: fast for long strings)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


@dataclass(frozen=True)
class RequestCost:
    chars: int  # JSON length of the whole body
    tools_chars: int  # JSON length of its tools array
    cached_chars: int  # canonical characters shared with the previous request
    new_chars: int  # canonical characters after that prefix
    tools_changed: bool = False  # its tools array differs from the previous request's
    tools_reordered: bool = False  # ... with the same tools, only in another order

    @property
    def units(self) -> float:
        return self.read_units + self.new_chars * CACHE_WRITE / CHARS_PER_TOKEN

    @property
    def read_units(self) -> float:
        return self.cached_chars * CACHE_READ / CHARS_PER_TOKEN


@dataclass(frozen=True)
class Cost:
    requests: tuple[RequestCost, ...]

    @property
    def chars(self) -> int:
        return sum(r.chars for r in self.requests)

    @property
    def tools_chars(self) -> int:
        return sum(r.tools_chars for r in self.requests)

    @property
    def units(self) -> float:
        return sum(r.units for r in self.requests)

    @property
    def read_units(self) -> float:
        return sum(r.read_units for r in self.requests)

    @property
    def changed(self) -> tuple[RequestCost, ...]:
        """The requests that came with a changed tools array (the first one not counted)."""
        return tuple(r for r in self.requests if r.tools_changed)

    @property
    def uncached_units(self) -> float:
        """The same requests with no cache at all (every character at 1x), for comparison."""
        return sum(r.cached_chars + r.new_chars for r in self.requests) / CHARS_PER_TOKEN


def cost(bodies: Iterable[dict[str, Any]]) -> Cost:
    out: list[RequestCost] = []
    previous, previous_tools, previous_set = "", None, ""
    for body in bodies:
        text = canonical(body)
        shared = common_prefix(previous, text)
        tools = json.dumps(body.get("tools") or [], ensure_ascii=False)
        as_set = json.dumps(sorted(body.get("tools") or [], key=lambda t: str(t.get("name"))), ensure_ascii=False)
        changed = previous_tools is not None and tools != previous_tools
        chars = len(json.dumps(body, ensure_ascii=False))
        out.append(
            RequestCost(chars, len(tools), shared, len(text) - shared, changed, changed and as_set == previous_set)
        )
        previous, previous_tools, previous_set = text, tools, as_set
    return Cost(tuple(out))
