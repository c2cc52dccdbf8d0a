"""Per-phase timing of one tool call, for the benchmarks (``TABMCP_TRACE_PHASES``).

The server starts a ``Trace`` for a call when the setting is on; code on the call's path marks its
phases with ``with phase("capture") as span: span.note(chars=...)``. The trace lives in a
ContextVar, so a phase anywhere under the call (the driver, the runtime, a task the call awaits)
lands in that call's trace, and nothing is shared between concurrent calls. With tracing off a
phase is one ContextVar read and a shared no-op object. The spans go back to the client in the
result's ``_meta["tabmcp/phases"]`` (server.py): ``[{name, at, ms, ...notes}]``, ``at`` and ``ms``
in milliseconds from the call's start, in the order the phases began; phases may nest (a capture
inside an introspection).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import Context, ContextVar, Token, copy_context
from typing import Any

META_KEY = "tabmcp/phases"


class Span:
    """One phase of a call: where it began, how long it took, and what it noted (sizes, counts)."""

    __slots__ = ("end", "name", "notes", "start")

    def __init__(self, name: str, start: float) -> None:
        self.name = name
        self.start = start
        self.end: float | None = None
        self.notes: dict[str, Any] = {}

    def note(self, **notes: Any) -> None:
        self.notes.update(notes)


class _NoSpan:
    """What a phase gives when no call is traced: notes go nowhere."""

    __slots__ = ()

    def note(self, **notes: Any) -> None:
        return None


NO_SPAN = _NoSpan()


class Trace:
    """The spans of one call. Once ``finish`` has run, later phases (work the call left running) are
    not recorded: the answer has gone."""

    def __init__(self) -> None:
        self.origin = time.perf_counter()
        self.spans: list[Span] = []
        self.finished = False

    def begin(self, name: str) -> Span:
        span = Span(name, time.perf_counter())
        if not self.finished:
            self.spans.append(span)
        return span

    def finish(self) -> list[dict[str, Any]]:
        """The spans as ``_meta`` carries them (a phase still open is cut at now)."""
        self.finished = True
        now = time.perf_counter()
        return [
            {
                "name": s.name,
                "at": round((s.start - self.origin) * 1000, 2),
                "ms": round(((s.end if s.end is not None else now) - s.start) * 1000, 2),
                **s.notes,
            }
            for s in self.spans
        ]


_current: ContextVar[Trace | None] = ContextVar("tabmcp_trace", default=None)


def start() -> Token[Trace | None]:
    """Trace the calling context (a tool call) from now on; ``stop(token)`` ends it."""
    return _current.set(Trace())


def current() -> Trace | None:
    return _current.get()


def untraced() -> Context:
    """A copy of the current context without a trace: for work a call starts but does not wait for
    (a background refresh), whose phases are not the call's."""
    context = copy_context()
    context.run(_current.set, None)
    return context


def stop(token: Token[Trace | None]) -> list[dict[str, Any]]:
    """The call's spans; the context is no longer traced."""
    trace = _current.get()
    _current.reset(token)
    return trace.finish() if trace is not None else []


@contextmanager
def phase(name: str) -> Iterator[Span | _NoSpan]:
    """Time the block as phase ``name`` of the current call (nothing when the call is not traced)."""
    trace = _current.get()
    if trace is None:
        yield NO_SPAN
        return
    span = trace.begin(name)
    try:
        yield span
    finally:
        span.end = time.perf_counter()


def note(**notes: Any) -> None:
    """Notes on the innermost phase still open in the current call (where the phase's owner cannot
    see the figure: the page's own time of an agent call, read deep in a host)."""
    trace = _current.get()
    if trace is None:
        return
    for span in reversed(trace.spans):
        if span.end is None:
            span.notes.update(notes)
            return
