"""ListRereads: a call that changed the tool list answers once its client has re-read it (bounded)."""

from __future__ import annotations

import asyncio

from tabmcp.rereads import ListRereads

KEY = "local"


async def held(rereads: ListRereads, *, reread_after: float | None, notices: int = 1) -> float:
    """One call that sends ``notices`` list_changed; the client re-reads ``reread_after`` s later (never: None)."""
    mark = rereads.mark(KEY)
    for _ in range(notices):
        rereads.notified(KEY)

    async def client() -> None:
        if reread_after is not None:
            await asyncio.sleep(reread_after)
            rereads.listed(KEY)

    reader = asyncio.create_task(client())
    seconds = await rereads.settle(KEY, mark)
    await reader
    return seconds


async def test_the_answer_waits_for_the_re_read() -> None:
    rereads = ListRereads(bound=2.0)
    rereads.listed(KEY)  # the client uses the list
    seconds = await held(rereads, reread_after=0.05)
    assert 0.04 <= seconds < 1.0


async def test_a_call_that_changed_nothing_is_not_held() -> None:
    rereads = ListRereads(bound=2.0)
    rereads.listed(KEY)
    assert await rereads.settle(KEY, rereads.mark(KEY)) == 0.0


async def test_a_client_that_never_read_the_list_is_not_held() -> None:
    rereads = ListRereads(bound=2.0)
    assert await held(rereads, reread_after=None) == 0.0


async def test_a_re_read_before_the_call_ends_needs_no_wait() -> None:
    rereads = ListRereads(bound=2.0)
    rereads.listed(KEY)
    mark = rereads.mark(KEY)
    rereads.notified(KEY)
    rereads.listed(KEY)  # the client re-read while the call was still running
    assert await rereads.settle(KEY, mark) == 0.0


async def test_a_client_that_lets_the_hold_run_out_is_not_held_again() -> None:
    rereads = ListRereads(bound=0.2)
    rereads.listed(KEY)
    started = asyncio.get_running_loop().time()
    assert await held(rereads, reread_after=None) == 0.0  # no re-read came
    assert asyncio.get_running_loop().time() - started >= 0.19  # but the answer waited the bound, once
    started = asyncio.get_running_loop().time()
    assert await held(rereads, reread_after=None) == 0.0
    assert asyncio.get_running_loop().time() - started < 0.1
    # reading the list right after an answer (as such a client does when it likes) is no prompt re-read
    assert await held(rereads, reread_after=0.0) == 0.0
    assert await held(rereads, reread_after=None) == 0.0


async def test_a_prompt_re_read_of_the_page_s_own_change_brings_the_hold_back() -> None:
    rereads = ListRereads(bound=0.5)
    rereads.listed(KEY)
    await held(rereads, reread_after=None)  # ran out: not held any more
    rereads.notified(KEY)  # the page changed by itself, no call running
    rereads.listed(KEY)  # and the client re-read at once
    assert 0.04 <= await held(rereads, reread_after=0.05) < 0.5


async def test_every_notice_of_the_call_is_re_read() -> None:
    rereads = ListRereads(bound=2.0)
    rereads.listed(KEY)
    mark = rereads.mark(KEY)
    rereads.notified(KEY)
    task = asyncio.create_task(rereads.settle(KEY, mark))
    await asyncio.sleep(0.02)
    rereads.notified(KEY)  # a second change while the first is held
    rereads.listed(KEY)
    assert (await task) < 1.0
    assert rereads.mark(KEY) == mark + 2


async def test_bound_zero_never_holds() -> None:
    rereads = ListRereads(bound=0)
    rereads.listed(KEY)
    assert await held(rereads, reread_after=None) == 0.0


async def test_cancelling_the_call_ends_the_hold() -> None:
    rereads = ListRereads(bound=5.0)
    rereads.listed(KEY)
    mark = rereads.mark(KEY)
    rereads.notified(KEY)
    task = asyncio.create_task(rereads.settle(KEY, mark))
    await asyncio.sleep(0.02)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    else:
        raise AssertionError("the hold should have been cancelled with its call")
    assert rereads._of(KEY).waiters == []


async def test_clients_are_held_apart() -> None:
    rereads = ListRereads(bound=0.3)
    rereads.listed("a")
    rereads.listed("b")
    mark = rereads.mark("a")
    rereads.notified("a")
    rereads.listed("b")  # another client's read does not release this one
    started = asyncio.get_running_loop().time()
    assert await rereads.settle("a", mark) == 0.0
    assert asyncio.get_running_loop().time() - started >= 0.29
