"""The CDP host holds a direct-link answer until the reports its document posted before it have
arrived through Playwright's binding: answers never overtake the page's dialogs or console batches."""

from __future__ import annotations

import asyncio
import json
import time
from types import SimpleNamespace
from typing import Any

from tabmcp.drivers.cdp.host import REPORTS_WAIT_S, CdpHost, HostTab
from tabmcp.drivers.host import AgentMessage


def host_with_tab() -> tuple[CdpHost, HostTab, dict[str, Any], list[AgentMessage]]:
    async def never(*_: Any) -> Any:
        raise AssertionError("not called")

    host = CdpHost(never, never, never, never, never)  # type: ignore[arg-type]
    frame = object()
    page = SimpleNamespace(main_frame=frame)
    tab = HostTab(7, page)  # type: ignore[arg-type]
    host._tabs[7] = tab
    tab.frame_id(frame)
    heard: list[AgentMessage] = []
    host.listeners.add(lambda event: heard.append(event) if isinstance(event, AgentMessage) else None)
    return host, tab, {"page": page, "frame": frame}, heard


def report(n: int, doc: str = "d1") -> str:
    return json.dumps({"type": "dialog", "dialog": {"type": "alert", "message": f"m{n}"}, "__doc": doc, "__posted": n})


async def test_an_answer_waits_for_the_reports_posted_before_it() -> None:
    host, tab, source, heard = host_with_tab()
    host.on_binding(source, report(1))
    assert heard[0].message == {"type": "dialog", "dialog": {"type": "alert", "message": "m1"}}  # numbers stripped
    loop = asyncio.get_running_loop()
    loop.call_later(0.05, host.on_binding, source, report(2, doc="other"))  # another document's: not it
    loop.call_later(0.1, host.on_binding, source, report(2))
    started = time.monotonic()
    await host._reports_before(tab, "d1", 2)
    waited = time.monotonic() - started
    assert 0.09 <= waited < REPORTS_WAIT_S, waited
    assert [e.message["dialog"]["message"] for e in heard] == ["m1", "m2", "m2"]
    assert tab.report_waiters == []


async def test_an_answer_after_its_reports_or_without_any_returns_at_once() -> None:
    host, tab, source, _ = host_with_tab()
    host.on_binding(source, report(1))
    host.on_binding(source, report(2))
    for doc, posted in (("d1", 2), ("d1", 1), ("d9", 0), (None, None)):
        started = time.monotonic()
        await host._reports_before(tab, doc, posted)
        assert time.monotonic() - started < 0.05


async def test_a_report_that_never_comes_holds_the_answer_no_longer_than_the_bound() -> None:
    host, tab, _, _ = host_with_tab()
    started = time.monotonic()
    await host._reports_before(tab, "d1", 1)
    assert REPORTS_WAIT_S <= time.monotonic() - started < REPORTS_WAIT_S + 0.5
    assert tab.report_waiters == []
