"""Arguments a tool learns, while it runs, to be passwords (``interact`` filling a password field).

A page tool knows its password arguments from its schema before it runs; ``interact`` only knows
once the page agent has found the element. The tool says so with ``note_sensitive("text")``; the
guard that wraps the call collects the names for the audit line. A context variable carries the
set, so the tool needs no handle on the guard and a tool run outside a guarded call notes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_NOTED: ContextVar[set[str] | None] = ContextVar("tabmcp_sensitive_arguments", default=None)


def note_sensitive(*names: str) -> None:
    """Mark these arguments of the running call as passwords (redacted in the audit log)."""
    noted = _NOTED.get()
    if noted is not None:
        noted.update(names)


@contextmanager
def collecting() -> Iterator[set[str]]:
    """The names noted by the call run inside this block."""
    noted: set[str] = set()
    token = _NOTED.set(noted)
    try:
        yield noted
    finally:
        _NOTED.reset(token)
