"""The session recording (record.py): written like the audit log, kept replayable."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from tabmcp.guard.redact import REDACTED
from tabmcp.record import NullRecorder, recorder_for

SECRET = "tok-9f8e7d"


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_secrets_are_replaced_everywhere_and_nothing_is_cut(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    recorder = recorder_for(path, [SECRET])
    long_html = "<p>" + "x" * 10_000 + "</p>"
    recorder.write("call", name="navigate", args={"url": f"https://a.test/?key={SECRET}"})
    recorder.write(
        "send",
        frame={"type": "act", "id": "r1", "step": {"text": SECRET, SECRET: [1, f"in a {SECRET} list"]}},
    )
    recorder.write("recv", frame={"type": "result", "id": "r1", "data": {"capture": {"html": long_html}}})
    recorder.close()
    recorder.write("notify", tools=["late"])  # after close: dropped, not an error

    call, send, recv = lines(path)
    assert call == {"kind": "call", "name": "navigate", "args": {"url": f"https://a.test/?key={REDACTED}"}}
    assert send["frame"] == {
        "type": "act",
        "id": "r1",
        "step": {"text": REDACTED, REDACTED: [1, f"in a {REDACTED} list"]},
    }
    assert recv["frame"]["data"]["capture"]["html"] == long_html  # type: ignore[index]
    assert SECRET not in path.read_text(encoding="utf-8")


def test_the_file_is_private_and_appended_to(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_text('{"kind": "closed"}\n', encoding="utf-8")
    path.chmod(0o644)
    recorder = recorder_for(path)
    recorder.write("notify", tools=["connect_browser"])
    recorder.close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [line["kind"] for line in lines(path)] == ["closed", "notify"]


def test_no_path_records_nothing() -> None:
    assert isinstance(recorder_for(None, [SECRET]), NullRecorder)
