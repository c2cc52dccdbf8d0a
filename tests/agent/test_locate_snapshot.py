"""The agent's locate mode (docs/nl-tools.md) on the near-duplicate fixture pages: what it answers
in a real Chromium is exactly what tests/fixtures/snapshots recorded, so the natural-language tools'
unit tests run on the agent as it is, not as it was when the recordings were made."""

from __future__ import annotations

import json

import pytest

from tests.agent.conftest import Browser
from tests.fixtures.snapshots.make_snapshots import HERE, PAGES, as_text, record


@pytest.mark.parametrize("page_name", PAGES)
def test_the_recorded_locate_snapshots_are_what_the_agent_answers(browser: Browser, page_name: str) -> None:
    live = record(browser, page_name)
    saved = (HERE / page_name.replace(".html", ".json")).read_text(encoding="utf-8")
    assert as_text(live) == saved, (
        f"{page_name}: the agent's locate snapshot changed; re-record with "
        "tests/fixtures/snapshots/make_snapshots.py and re-run tests/unit/test_nl_*.py"
    )
    rows = live["nodes"]
    assert any("context" in r for r in rows) and any("hint" in r for r in rows)
    assert all(r["ref"] or r["role"] == "text" for r in rows)
    assert json.loads(saved)["title"] == live["title"]
