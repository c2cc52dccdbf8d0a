"""The audit log: one JSON line per tool call, appended to the ``audit_log`` file.

A line says when (UTC, ISO 8601), which client, which tool, with which arguments (passwords and
configured secrets redacted: ``redact.py``), how it ended (``ok``/``error`` and the error's first
line; ``refused`` names the guard that stopped a call before it ran) and how long it took.

The file is opened append-only and made 0600 (it records what a user's browser was asked to do);
each line is one ``write`` of its own, so nothing sits in a buffer when the process dies. A write
that fails is logged on stderr and never fails the tool call: an unwritable log must not take the
browser away from the user.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import mcp_types as types

from tabmcp.echo import escaped
from tabmcp.guard.redact import Redaction

log = logging.getLogger(__name__)
MAX_ERROR = 500
MAX_TOOL_NAME = 200  # a called name is the caller's text: an unknown one may be megabytes


@dataclass(frozen=True)
class AuditEntry:
    """One call, arguments already redacted; ``extra`` holds ``refused``/``confirmed``."""

    time: datetime
    client: str
    tool: str
    arguments: Mapping[str, Any]
    outcome: str  # ok | error | pending (2026-07-28: the user is being asked; the retry has its own line)
    duration_ms: float
    error: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def line(self) -> str:
        record: dict[str, Any] = {
            "time": iso_time(self.time),
            "client": self.client,
            "tool": self.tool,
            "arguments": dict(self.arguments),
            "outcome": self.outcome,
        }
        if self.error is not None:
            record["error"] = self.error
        record.update(self.extra)
        record["durationMs"] = round(self.duration_ms, 1)
        return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def iso_time(when: datetime) -> str:
    return when.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def outcome_of(
    result: types.CallToolResult | types.InputRequiredResult, redaction: Redaction
) -> tuple[str, str | None]:
    """``ok``/``error``/``pending`` and, for an error, its first line (redacted, capped)."""
    if isinstance(result, types.InputRequiredResult):
        return "pending", None
    if not result.is_error:
        return "ok", None
    message = ""
    if isinstance(result.structured_content, Mapping) and isinstance(result.structured_content.get("error"), str):
        message = result.structured_content["error"]
    else:
        message = next((c.text for c in result.content if isinstance(c, types.TextContent)), "")
    first = redaction.text(message.strip().splitlines()[0] if message.strip() else "")
    return "error", escaped(first, MAX_ERROR)


class AuditLog:
    """Appends lines to ``path``; with no path, writes nothing."""

    def __init__(self, path: Path | None) -> None:
        self.path = Path(path).expanduser() if path is not None else None
        self._fd: int | None = None
        self._last_error: str | None = None

    @property
    def enabled(self) -> bool:
        return self.path is not None

    def write(self, entry: AuditEntry) -> None:
        if self.path is None:
            return
        data = entry.line().encode("utf-8")
        try:
            if self._fd is None:
                self._fd = open_private_append(self.path)
            os.write(self._fd, data)
            self._last_error = None
        except OSError as exc:
            self._failed(exc)

    def _failed(self, exc: OSError) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None  # the next call opens the file again (it may have been fixed)
        message = f"{type(exc).__name__}: {exc}"
        if message != self._last_error:  # once per distinct problem, not once per call
            log.error("audit log %s: cannot write (%s); tool calls go on without it", self.path, message)
            self._last_error = message

    def close(self) -> None:
        if self._fd is not None:
            try:
                os.close(self._fd)
            finally:
                self._fd = None


def open_private_append(path: Path) -> int:
    """A descriptor for appending to a file only its owner may read: what it holds came from the
    user's browser."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    with contextlib.suppress(OSError):  # not ours to change (another owner): still written to
        os.fchmod(fd, 0o600)  # an existing file made by someone's umask: tighten it too
    return fd
