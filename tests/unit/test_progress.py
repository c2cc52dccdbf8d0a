"""The progress reporter (progress.py): counts steps so progress only grows, keeps a total only while it
holds, ticks during a long wait, does nothing without a token, and never fails the call."""

from __future__ import annotations

import asyncio

import pytest

from tabmcp.progress import NO_PROGRESS, Progress, progress_token

Sent = list[tuple[float, float | None, str | None]]


def recorder() -> tuple[Progress, Sent]:
    sent: Sent = []

    async def send(progress: float, total: float | None, message: str | None) -> None:
        sent.append((progress, total, message))

    return Progress(send), sent


async def test_steps_count_up_with_the_total_while_it_holds() -> None:
    progress, sent = recorder()
    await progress.step("launching", total=2)
    await progress.step("linked")
    await progress.step("one more than announced")
    assert sent == [(1, 2, "launching"), (2, 2, "linked"), (3, None, "one more than announced")]


async def test_ticking_reports_while_the_block_runs_and_stops_after() -> None:
    progress, sent = recorder()
    async with progress.ticking("waiting for networkidle", every=0.01):
        while len(sent) < 3:  # the first report at once, then ticks
            await asyncio.sleep(0.01)
    count = len(sent)
    await asyncio.sleep(0.05)
    assert len(sent) == count  # no tick after the block
    assert sent[0] == (1, None, "waiting for networkidle")
    assert [p for p, _, _ in sent] == list(range(1, count + 1))
    assert all(m and m.startswith("waiting for networkidle (") for _, _, m in sent[1:])


async def test_without_a_token_nothing_is_sent() -> None:
    assert not NO_PROGRESS.active
    await NO_PROGRESS.step("x", total=3)
    async with NO_PROGRESS.ticking("y", every=0.01):
        await asyncio.sleep(0.03)
    assert NO_PROGRESS.done == 0 and NO_PROGRESS.total is None


async def test_a_failing_send_does_not_fail_the_call() -> None:
    async def broken(progress: float, total: float | None, message: str | None) -> None:
        raise ConnectionError("client went away")

    progress = Progress(broken)
    await progress.step("still fine")
    assert progress.done == 1


@pytest.mark.parametrize(
    ("meta", "params", "token"),
    [
        ({"progress_token": "abc"}, None, "abc"),
        (None, {"_meta": {"progressToken": 7}}, 7),
        ({}, {"_meta": {"progressToken": True}}, None),  # a boolean is no token
        (None, {"name": "x"}, None),
        (None, None, None),
    ],
)
def test_progress_token(meta: dict | None, params: dict | None, token: object) -> None:
    assert progress_token(meta, params) == token
