"""The per-phase trace of one call (trace.py): phases land in the traced call only, nest, take notes,
and cost nothing (no span kept) when the call is not traced."""

from __future__ import annotations

import asyncio

from tabmcp import trace


def test_an_untraced_context_records_nothing_and_notes_go_nowhere() -> None:
    assert trace.current() is None
    with trace.phase("capture") as span:
        span.note(chars=10)
    trace.note(pageMs=1.0)
    assert span is trace.NO_SPAN
    assert trace.current() is None


def test_phases_nest_in_order_with_their_notes_and_times() -> None:
    token = trace.start()
    with trace.phase("navigation"):
        with trace.phase("load") as load:
            load.note(url="http://x/")
        with trace.phase("agent"):
            trace.note(pageMs=2.5)  # on the innermost open phase
    spans = trace.stop(token)
    assert [s["name"] for s in spans] == ["navigation", "load", "agent"]
    navigation, load_span, agent = spans
    assert load_span["url"] == "http://x/" and agent["pageMs"] == 2.5 and "pageMs" not in navigation
    assert navigation["at"] <= load_span["at"] <= agent["at"]
    assert navigation["ms"] >= load_span["ms"] + agent["ms"] - 0.1  # the parent spans its children
    assert trace.current() is None


def test_a_task_the_call_starts_traces_into_the_call_and_nothing_after_the_answer() -> None:
    async def main() -> tuple[list[dict[str, object]], trace.Trace | None]:
        token = trace.start()
        traced = trace.current()
        release = asyncio.Event()

        async def background() -> None:
            with trace.phase("awaited"):
                await asyncio.sleep(0)
            await release.wait()
            with trace.phase("after the answer"):
                pass

        task = asyncio.get_running_loop().create_task(background())  # copies the call's context
        await asyncio.sleep(0.01)
        spans = trace.stop(token)
        release.set()
        await task
        return spans, traced

    spans, traced = asyncio.run(main())
    assert [s["name"] for s in spans] == ["awaited"]
    assert traced is not None and [s.name for s in traced.spans] == ["awaited"]


def test_concurrent_calls_keep_their_own_phases() -> None:
    async def call(name: str, delay: float) -> list[str]:
        token = trace.start()
        with trace.phase(name):
            await asyncio.sleep(delay)
        return [s["name"] for s in trace.stop(token)]  # type: ignore[misc]

    async def main() -> list[list[str]]:
        return list(await asyncio.gather(call("a", 0.02), call("b", 0.01)))

    assert asyncio.run(main()) == [["a"], ["b"]]


def test_a_phase_still_open_at_the_end_is_cut_there() -> None:
    token = trace.start()
    manager = trace.phase("hung")
    manager.__enter__()
    spans = trace.stop(token)
    assert spans[0]["name"] == "hung" and spans[0]["ms"] >= 0


def test_work_started_untraced_records_nothing_into_the_call() -> None:
    async def main() -> list[dict[str, object]]:
        token = trace.start()

        async def background() -> None:
            with trace.phase("background"):
                pass

        await asyncio.get_running_loop().create_task(background(), context=trace.untraced())
        with trace.phase("own"):
            pass
        return trace.stop(token)

    assert [s["name"] for s in asyncio.run(main())] == ["own"]
