"""Every scenario in this folder, replayed against a fresh server in both protocol eras."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenarios.replay import load, replay

HERE = Path(__file__).parent
SCENARIOS = sorted(HERE.glob("*.jsonl"))


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.stem for p in SCENARIOS])
async def test_scenario(scenario: Path, era: str) -> None:
    arrived = await replay(scenario, era)
    assert arrived == sum(1 for e in load(scenario) if e["kind"] == "notify"), "list_changed arrived unrecorded"


def test_there_are_scenarios() -> None:
    assert len(SCENARIOS) >= 5
