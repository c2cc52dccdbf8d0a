"""Audit lines: redaction of passwords and secrets, outcome, the file's mode, write failures."""

from __future__ import annotations

import json
import logging
import os
import stat
from datetime import UTC, datetime
from pathlib import Path

import mcp_types as types
import pytest

from tabmcp.guard.audit import AuditEntry, AuditLog, iso_time, outcome_of
from tabmcp.guard.redact import MAX_STRING, REDACTED, Redaction, redact_arguments


def error_result(message: str) -> types.CallToolResult:
    body = {"error": message, "code": "X"}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(body))], structured_content=body, is_error=True
    )


def test_password_arguments_are_redacted_whole() -> None:
    shown, _ = redact_arguments({"username": "ada", "password": "hunter2"}, {"password"}, [])
    assert shown == {"username": "ada", "password": REDACTED}


def test_secrets_are_redacted_inside_longer_strings_and_nested_values() -> None:
    args = {
        "url": "https://api.example/?token=s3cr3t-t0ken&x=1",
        "nested": {"list": ["a s3cr3t-t0ken b", 3], "s3cr3t-t0ken": True},
        "count": 2,
    }
    shown, _ = redact_arguments(args, set(), ["s3cr3t-t0ken"])
    assert shown == {
        "url": f"https://api.example/?token={REDACTED}&x=1",
        "nested": {"list": [f"a {REDACTED} b", 3], REDACTED: True},
        "count": 2,
    }
    assert "s3cr3t" not in json.dumps(shown)


def test_a_longer_secret_containing_a_shorter_one_goes_whole() -> None:
    redaction = Redaction(["abc", "xxabcxx", ""])
    assert redaction.text("1 xxabcxx 2 abc") == f"1 {REDACTED} 2 {REDACTED}"


def test_password_values_are_redacted_from_the_error_line_too() -> None:
    _, redaction = redact_arguments({"text": "hunter2"}, {"text"}, [])
    outcome, error = outcome_of(error_result('Cannot fill e3 with "hunter2"\nsecond line'), redaction)
    assert outcome == "error"
    assert error == f'Cannot fill e3 with "{REDACTED}"'


def test_a_boolean_password_argument_does_not_redact_every_true() -> None:
    shown, redaction = redact_arguments({"remember": True, "note": "true story"}, {"remember"}, [])
    assert shown == {"remember": REDACTED, "note": "true story"}
    assert redaction.text("true") == "true"


def test_long_and_deep_values_are_bounded() -> None:
    deep: dict[str, object] = {}
    node = deep
    for _ in range(20):
        node["d"] = {}
        node = node["d"]  # type: ignore[assignment]
    shown, _ = redact_arguments({"big": "x" * (MAX_STRING * 3), "deep": deep, "many": list(range(1000))}, set(), [])
    assert len(shown["big"]) < MAX_STRING + 50
    assert shown["big"].endswith(f"(cut at {MAX_STRING:,} of {MAX_STRING * 3:,} characters)")
    assert "[nested too deep]" in json.dumps(shown["deep"])
    assert len(shown["many"]) == 201 and "800 more" in shown["many"][-1]


def test_outcomes() -> None:
    ok = types.CallToolResult(content=[types.TextContent(type="text", text="fine")])
    assert outcome_of(ok, Redaction([])) == ("ok", None)
    plain = types.CallToolResult(content=[types.TextContent(type="text", text="bad thing\nmore")], is_error=True)
    assert outcome_of(plain, Redaction([])) == ("error", "bad thing")
    pending = types.InputRequiredResult(request_state="s")
    assert outcome_of(pending, Redaction([])) == ("pending", None)


def test_a_line_is_one_json_object_with_the_fields(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path)
    when = datetime(2026, 5, 1, 12, 0, 0, 123456, tzinfo=UTC)
    log.write(AuditEntry(when, "local", "open_tab", {"url": "https://x.test/"}, "ok", 12.345))
    log.write(AuditEntry(when, "work", "interact", {"text": REDACTED}, "error", 1.0, "boom", {"refused": "declined"}))
    log.close()
    lines = path.read_text().splitlines()
    assert [json.loads(line) for line in lines] == [
        {
            "time": "2026-05-01T12:00:00.123Z",
            "client": "local",
            "tool": "open_tab",
            "arguments": {"url": "https://x.test/"},
            "outcome": "ok",
            "durationMs": 12.3,
        },
        {
            "time": "2026-05-01T12:00:00.123Z",
            "client": "work",
            "tool": "interact",
            "arguments": {"text": REDACTED},
            "outcome": "error",
            "error": "boom",
            "refused": "declined",
            "durationMs": 1.0,
        },
    ]
    assert iso_time(when) == "2026-05-01T12:00:00.123Z"


def test_the_file_is_appended_to_and_made_0600(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    path.write_text('{"earlier": true}\n')
    path.chmod(0o644)
    log = AuditLog(path)
    log.write(AuditEntry(datetime.now(UTC), "local", "list_tabs", {}, "ok", 1))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert path.read_text().splitlines()[0] == '{"earlier": true}'
    assert len(path.read_text().splitlines()) == 2
    # each line is written at once: readable before close
    log.write(AuditEntry(datetime.now(UTC), "local", "list_tabs", {}, "ok", 1))
    assert len(path.read_text().splitlines()) == 3
    log.close()


def test_a_new_file_is_created_0600(tmp_path: Path) -> None:
    path = tmp_path / "new.jsonl"
    old = os.umask(0o022)
    try:
        AuditLog(path).write(AuditEntry(datetime.now(UTC), "local", "list_tabs", {}, "ok", 1))
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_a_write_failure_is_logged_once_and_never_raised(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "missing-dir" / "audit.jsonl"
    log = AuditLog(path)
    with caplog.at_level(logging.ERROR, logger="tabmcp.guard.audit"):
        for _ in range(3):
            log.write(AuditEntry(datetime.now(UTC), "local", "list_tabs", {}, "ok", 1))
    assert len([r for r in caplog.records if "cannot write" in r.getMessage()]) == 1
    path.parent.mkdir()  # fixed: the next call writes again
    log.write(AuditEntry(datetime.now(UTC), "local", "list_tabs", {}, "ok", 1))
    assert len(path.read_text().splitlines()) == 1


def test_no_path_writes_nothing() -> None:
    log = AuditLog(None)
    assert not log.enabled
    log.write(AuditEntry(datetime.now(UTC), "local", "list_tabs", {}, "ok", 1))
