"""A session recorded with ``tabmcp serve --record FILE`` is a scenario (tabmcp/record.py): a real
session (launched headless Chromium, the real extension, an MCP client over stdio) is recorded, then
replayed by tests/scenarios/replay.py against a fresh server in both protocol eras; a tampered copy
of the recording fails the replay."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabmcp.demo.sites import SiteServer
from tests.integration.conftest import serve
from tests.scenarios.replay import ReplayMismatch, load, replay

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"


@pytest.fixture(scope="module")
def pages() -> Iterator[SiteServer]:
    with SiteServer(PAGES) as server:
        yield server


async def record_session(pages: SiteServer, server_log: object, tmp_path: Path) -> Path:
    """A session on a static page (no subresources, timers or live changes): what the server did
    depends only on the frames, in the order the recording has them."""
    recording = tmp_path / "session.jsonl"
    client = serve(server_log, ws_port="0", user_data_dir=str(tmp_path / "profile"))
    client.params.args += ["--record", str(recording)]
    async with client:
        await client.call_ok("connect_browser", {"launch": True})
        opened = await client.call_ok("open_tab", {"url": pages.url("nl-dupes.html")})
        assert opened["toolsAvailable"]  # its forms
        await client.call_ok("list_tabs")
        await client.call_ok("snapshot")
        missing = await client.call("focus_tab", {"tabId": 99999})
        assert missing.is_error
        await client.call_ok("close_tab")
    return recording


def notices(entries: list[dict]) -> int:
    return sum(1 for e in entries if e["kind"] == "notify")


def write(path: Path, entries: list[dict]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return path


async def test_a_recorded_session_replays_as_a_scenario_and_a_tampered_one_fails(
    pages: SiteServer, server_log: object, tmp_path: Path
) -> None:
    recording = await record_session(pages, server_log, tmp_path)
    entries = load(recording)
    kinds = {e["kind"] for e in entries}
    assert {"call", "result", "send", "recv", "notify"} <= kinds, kinds
    assert [e["name"] for e in entries if e["kind"] == "call"] == [
        "connect_browser", "open_tab", "list_tabs", "snapshot", "focus_tab", "close_tab"
    ]  # fmt: skip
    for era in ("legacy", "modern"):
        assert await replay(recording, era) == notices(entries), era

    # the server asked the browser for another URL than the recording says
    sent = next(i for i, e in enumerate(entries) if e["kind"] == "send" and e["frame"]["type"] == "createTab")
    wrong_url = [dict(e) for e in entries]
    wrong_url[sent] = {**entries[sent], "frame": {**entries[sent]["frame"], "url": pages.url("nl.html")}}
    with pytest.raises(ReplayMismatch, match="createTab"):
        await replay(write(tmp_path / "wrong_url.jsonl", wrong_url), "legacy")

    # a failed call recorded as a success
    failed = next(i for i, e in enumerate(entries) if e["kind"] == "result" and e["name"] == "focus_tab")
    wrong_outcome = [*entries[:failed], {**entries[failed], "isError": False}, *entries[failed + 1 :]]
    with pytest.raises(ReplayMismatch, match="isError"):
        await replay(write(tmp_path / "wrong_outcome.jsonl", wrong_outcome), "legacy")

    # a notification the recording does not have: the replay counts it
    last_notice = max(i for i, e in enumerate(entries) if e["kind"] == "notify")
    one_less = [*entries[:last_notice], *entries[last_notice + 1 :]]
    assert await replay(write(tmp_path / "one_less.jsonl", one_less), "legacy") == notices(one_less) + 1
