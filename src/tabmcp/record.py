"""Session recording: every frame, tool call, notification and tool list, as JSONL.

A recording of a real session is a scenario: ``tests/scenarios/replay.py`` plays the extension's
side of it against a fresh server and checks that the client sees the same tool lists and the
same notifications. Enabled with ``TABMCP_RECORD=path``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO


class SessionRecorder:
    def __init__(self, path: Path) -> None:
        self._file: TextIO | None = path.open("a", encoding="utf-8")

    def write(self, kind: str, **data: Any) -> None:
        if self._file is not None:
            self._file.write(json.dumps({"kind": kind, **data}, ensure_ascii=False) + "\n")
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class NullRecorder:
    def write(self, kind: str, **data: Any) -> None:
        pass

    def close(self) -> None:
        pass


Recorder = SessionRecorder | NullRecorder


def recorder_for(path: Path | None) -> Recorder:
    return SessionRecorder(path) if path else NullRecorder()
