"""Page-tool plans end to end, one level below MCP: a real Bridge, headless Chromium with the real
extension, ``ExtensionDriver.run_steps`` called directly (docs/protocol.md, "Step").

The plan steps (wait_for, extract, navigate, fill + submit, check/uncheck, a step's
timeoutMs), the plan result they answer (``extracted``, ``page.changed/text/results/navigated``), the
failures (prefixed ``step N (action):``), and the ``toolsChanged`` event a DOM change sends to the
bridge. The pages are tests/fixtures/pages (see its README), served on 127.0.0.1.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import pytest_asyncio

from tabmcp import protocol as p
from tabmcp.demo.sites import SiteServer
from tabmcp.drivers.base import PageChanged
from tests.integration.conftest import DRIVERS, free_port
from tests.integration.linked import Linked, fails, linked_browser

pytestmark = pytest.mark.asyncio(loop_scope="module")

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"


class Env(Linked):
    async def run(self, tab: int, *steps: dict[str, Any]) -> dict[str, Any]:
        return await self.driver.run_steps(tab, "test_tool", [p.Step.model_validate(s) for s in steps])


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=DRIVERS)
async def env(request: pytest.FixtureRequest) -> AsyncIterator[Env]:
    with tempfile.TemporaryDirectory(prefix="tabmcp-steps-") as scratch, SiteServer(PAGES) as sites:
        async with linked_browser(Path(scratch), sites.base_url, request.param) as linked:
            yield Env(linked.bridge, linked.driver, linked.context, linked.base, linked.kind)


async def next_tools_changed(env: Env, tab: int, timeout: float = 10.0) -> PageChanged:
    """The driver's next PageChanged event of this tab (the extension's toolsChanged frame); other
    events are passed over."""
    with anyio.fail_after(timeout):
        while True:
            event = await env.driver.next_event()
            if isinstance(event, PageChanged) and event.tab_id == tab:
                return event


# ----------------------------------------------------------------- results that say what happened


async def test_fill_and_submit_answer_with_what_changed_and_the_result_list(env: Env) -> None:
    tab = await env.open("extract-results.html")
    result = await env.run(
        tab,
        {"action": "fill", "target": {"css": "#q"}, "value": "apple"},
        {"action": "submit", "target": {"css": "#search"}},
    )
    assert result["steps"] == [{"action": "fill", "ok": True}, {"action": "submit", "ok": True}]
    page = result["page"]
    assert page["url"] == env.url("extract-results.html") and page["title"] == "Extract results"
    assert page["navigated"] is False
    # the page fetched its answer and rendered it after the submit step returned: the summary waited
    assert page["changed"] == "Found 3 results for apple Red apple 1.20 Green apple 1.10 Pineapple slices 2.60"
    assert page["results"] == ["Red apple 1.20", "Green apple 1.10", "Pineapple slices 2.60"]
    assert page["text"].startswith("Products Query Search Found 3 results for apple Red apple 1.20")
    assert "extracted" not in result
    await env.driver.close_tab(tab)


async def test_extract_steps_fill_extracted_and_leave_results_out(env: Env) -> None:
    tab = await env.open("extract-results.html")
    result = await env.run(
        tab,
        {
            "action": "extract",
            "target": {"css": "#results .item"},
            "label": "products",
            "fields": {"name": ".title", "price": ".price"},
            "limit": 3,
        },
        {"action": "extract", "target": {"css": ".item .title"}, "label": "titles", "limit": 100},
        {"action": "extract", "target": {"css": ".sold-out"}, "label": "soldOut"},
    )
    assert result["extracted"] == {
        "products": [
            {"name": "Red apple", "price": "1.20"},
            {"name": "Green apple", "price": "1.10"},
            {"name": "Banana", "price": "0.50"},
        ],
        "titles": [
            "Red apple",
            "Green apple",
            "Banana",
            "Cherry",
            "Date",
            "Elderberry",
            "Fig",
            "Grape",
            "Honeydew",
            "Kiwi",
            "Lemon",
            "Mango",
            "Shadow melon",
            "Shadow nectarine",
        ],
        "soldOut": [],
    }
    assert [s["action"] for s in result["steps"]] == ["extract"] * 3
    page = result["page"]
    assert "results" not in page  # the plan extracted what it wanted
    assert "changed" not in page and page["navigated"] is False
    await env.driver.close_tab(tab)


async def test_wait_for_steps(env: Env) -> None:
    tab = await env.open("extract-plain.html")
    later = await env.run(
        tab,
        {"action": "click", "target": {"css": "#later"}},
        {"action": "wait_for", "condition": {"text": "Loaded later"}, "timeoutMs": 5000},
    )
    assert [s["action"] for s in later["steps"]] == ["click", "wait_for"]
    assert later["page"]["changed"] == "Loaded later"

    shown = await env.run(
        tab,
        {"action": "click", "target": {"role": "button", "name": "Reveal note"}},
        {"action": "wait_for", "target": {"css": "#note"}, "condition": {"state": "visible"}},
        {"action": "wait_for", "condition": {"textGone": "No such text on the page"}},
    )
    assert shown["page"]["changed"] == "Note shown"
    assert "results" not in shown["page"]
    await env.driver.close_tab(tab)


async def test_a_wait_ends_with_the_sites_error_once_it_shows(env: Env) -> None:
    tab = await env.open("extract-plain.html")
    hidden_error = {"css": "#note"}  # hidden until "Reveal note": not the site's error yet
    later = await env.run(
        tab,
        {"action": "click", "target": {"css": "#later"}},
        {"action": "wait_for", "condition": {"text": "Loaded later"}, "failWhen": hidden_error},
    )
    assert later["page"]["changed"] == "Loaded later"

    message = await fails(
        env.run(
            tab,
            {"action": "click", "target": {"css": "#reveal"}},
            {"action": "wait_for", "condition": {"text": "Never shows up"}, "failWhen": hidden_error,
             "timeoutMs": 30_000},
        ),
        "PAGE_ERROR",
    )  # fmt: skip
    assert message == "step 2 (wait_for): Note shown"  # the page's words, long before the 30 s

    message = await fails(
        env.run(tab, {"action": "wait_for", "condition": {"text": "Plain article"}, "failWhen": {"css": "p["}}),
        "BAD_MESSAGE",
    )
    assert message.startswith("step 1 (wait_for):") and "not a valid CSS selector" in message
    await env.driver.close_tab(tab)


async def test_navigate_steps_relative_and_absolute(env: Env) -> None:
    tab = await env.open("extract-plain.html")
    there = await env.run(tab, {"action": "navigate", "value": "extract-results.html?from=plain"})
    page = there["page"]
    assert page["url"] == env.url("extract-results.html?from=plain") and page["title"] == "Extract results"
    assert page["navigated"] is True and "changed" not in page
    assert page["results"][:2] == ["Red apple 1.20", "Green apple 1.10"]
    assert len(page["results"]) == 12  # every visible row

    back = await env.run(
        tab,
        {"action": "navigate", "value": env.url("extract-plain.html")},
        {"action": "click", "target": {"css": "#save"}},
    )
    assert back["page"]["title"] == "Extract plain" and back["page"]["navigated"] is True
    await env.driver.close_tab(tab)


async def test_check_uncheck_and_a_steps_own_timeout(env: Env) -> None:
    tab = await env.open("live-updates.html")
    await env.run(tab, {"action": "check", "target": {"css": "#box"}})
    assert (await env.driver.evaluate(tab, "document.getElementById('box').checked", 5000))["json"] is True
    await env.run(tab, {"action": "uncheck", "target": {"css": "#box"}})
    assert (await env.driver.evaluate(tab, "document.getElementById('box').checked", 5000))["json"] is False
    await env.run(tab, {"action": "check", "target": {"css": "#box"}, "value": False})  # already unchecked
    assert (await env.driver.evaluate(tab, "document.getElementById('box').checked", 5000))["json"] is False

    await env.driver.evaluate(tab, "document.getElementById('rename').disabled = true", 5000)
    message = await fails(
        env.run(tab, {"action": "click", "target": {"css": "#rename"}, "timeoutMs": 300}), "ELEMENT_NOT_INTERACTABLE"
    )
    assert message.startswith("step 1 (click):")
    waited = re.search(r"waited (\d+) ms", message)
    assert waited and int(waited.group(1)) < 4000, message  # the step's 300 ms, not the 5 s default
    await env.driver.close_tab(tab)


async def test_failing_steps_name_the_step(env: Env) -> None:
    tab = await env.open("extract-plain.html")
    message = await fails(
        env.run(tab, {"action": "wait_for", "condition": {"text": "Never shows up"}, "timeoutMs": 300}), "TIMEOUT"
    )
    assert message.startswith('step 1 (wait_for): Waited 300 ms for text "Never shows up"')

    message = await fails(
        env.run(
            tab,
            {"action": "fill", "target": {"css": "#comment"}, "value": "x"},
            {"action": "extract", "target": {"css": "li["}, "label": "broken"},
        ),
        "BAD_MESSAGE",
    )
    assert message.startswith("step 2 (extract):") and "not a valid CSS selector" in message

    message = await fails(
        env.run(tab, {"action": "navigate", "value": f"http://127.0.0.1:{free_port()}/"}), "NAVIGATION_FAILED"
    )
    assert message.startswith("step 1 (navigate):") and "net::ERR_" in message
    message = await fails(env.run(tab, {"action": "navigate", "value": "javascript:alert(1)"}), "INVALID_URL")
    assert message.startswith("step 1 (navigate):")
    await env.driver.close_tab(tab)


# ----------------------------------------------------------------- live updates


async def test_a_dom_change_reaches_the_bridge_as_tools_changed(env: Env) -> None:
    tab = await env.open("live-updates.html")
    capture = await env.driver.capture(tab, 200_000)
    assert capture is not None
    doc_id, seq = capture.version.split(":")
    assert seq == "0"
    assert await env.driver.capture(tab, 200_000, if_changed=capture.version) is None  # unchanged: no HTML

    await env.driver.evaluate(tab, "document.getElementById('panel').hidden = false; 1", 5000)
    event = await next_tools_changed(env, tab)
    assert (event.reason, event.version) == ("mutation", f"{doc_id}:1")
    again = await env.driver.capture(tab, 200_000, if_changed=capture.version)
    assert again is not None and again.version == event.version

    await env.driver.evaluate(tab, "history.pushState({}, '', '?route=next'); 1", 5000)
    event = await next_tools_changed(env, tab)
    assert (event.reason, event.version) == ("history", f"{doc_id}:2")
    await env.driver.close_tab(tab)


# ----------------------------------------------------------------- webmcp steps and a failed plan's watch


async def test_a_webmcp_step_returns_the_pages_result(env: Env) -> None:
    tab = await env.open("webmcp.html")
    result = await env.run(tab, {"action": "webmcp", "name": "set_out", "args": {"text": "from a plan"}})
    assert result["steps"] == [{"action": "webmcp", "ok": True}]
    assert result["webmcp"] == "out is now from a plan"
    assert "from a plan" in result["page"]["text"]
    await env.driver.close_tab(tab)


async def test_a_failing_webmcp_step_is_an_error(env: Env) -> None:
    tab = await env.open("webmcp.html")
    message = await fails(env.run(tab, {"action": "webmcp", "name": "throws", "args": {}}), "SCRIPT_ERROR")
    assert message == "step 1 (webmcp): Error: the page says no"
    await fails(env.run(tab, {"action": "webmcp", "name": "never", "args": {}, "timeoutMs": 200}), "TIMEOUT")
    await fails(env.run(tab, {"action": "webmcp", "name": "gone", "args": {}}), "TOOL_NOT_FOUND")
    await env.driver.close_tab(tab)


async def test_a_webmcp_step_that_navigates_waits_for_the_new_page(env: Env) -> None:
    tab = await env.open("webmcp.html")
    result = await env.run(tab, {"action": "webmcp", "name": "navigate_away", "args": {}})
    assert result["webmcp"] is None
    assert "navigation-target.html?by=webmcp" in result["page"]["url"]
    assert result["page"]["title"] == "Navigation target"
    await env.driver.close_tab(tab)


async def test_a_failed_plan_ends_its_watch(env: Env) -> None:
    tab = await env.open("extract-plain.html")

    async def agent(method: str, arg: object = None) -> Any:
        return (await env.driver.host.call_agent(tab, [0], method, arg))[0]

    before = (await agent("watchChanges"))["token"]
    doc_id, n = before.split(":")
    await agent("unwatch", {"token": before})
    message = await fails(
        env.run(
            tab,
            {"action": "click", "target": {"css": "#save"}},
            {"action": "click", "target": {"css": "#no-such-button"}, "timeoutMs": 0},
        ),
        "ELEMENT_NOT_FOUND",
    )
    assert message.startswith("step 2 (click):")
    # the plan's watch (the next one handed out) ended with the plan: though step 1 changed the
    # page, nothing is recorded for a summary, and it is stopped already
    plans = f"{doc_id}:{int(n) + 1}"
    summary = await agent("summary", {"token": plans, "results": False})
    assert summary["navigated"] is False and "changed" not in summary
    assert "Saved 3 items" in summary["text"]
    assert await agent("unwatch", {"token": plans}) == {"ok": True, "stopped": False}
    await env.driver.close_tab(tab)
