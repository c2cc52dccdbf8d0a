"""Session recording: every frame, tool call, notification and tool list, as JSONL.

A recording of a real session is a scenario: ``tests/scenarios/replay.py`` plays the extension's
side of it against a fresh server and checks that the client sees the same tool lists and the
same notifications. Enabled with ``tabmcp serve --record FILE`` or ``TABMCP_RECORD=FILE``.

It holds what the browser was asked and answered, so it is written like the audit log: a file only
its owner may read, configured ``secrets`` replaced wherever they appear, the pairing token never
(the bridge drops it from the hello before anything sees it). Unlike the audit log nothing is cut,
so a recording stays replayable; a password typed into a field is recorded unless it is a secret.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tabmcp.guard.audit import open_private_append
from tabmcp.guard.redact import Redaction


class SessionRecorder:
    def __init__(self, path: Path, secrets: Iterable[str] = ()) -> None:
        self._fd: int | None = open_private_append(path)
        self._redaction = Redaction(secrets)

    def write(self, kind: str, **data: Any) -> None:
        if self._fd is not None:
            line = json.dumps({"kind": kind, **self._redaction.whole(data)}, ensure_ascii=False) + "\n"
            os.write(self._fd, line.encode("utf-8"))  # one write per line: nothing buffered to lose

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class NullRecorder:
    def write(self, kind: str, **data: Any) -> None:
        pass

    def close(self) -> None:
        pass


Recorder = SessionRecorder | NullRecorder


def recorder_for(path: Path | None, secrets: Iterable[str] = ()) -> Recorder:
    return SessionRecorder(path, secrets) if path else NullRecorder()
