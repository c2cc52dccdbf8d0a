"""The three measurements against the peers, run against one adapter; the figures go into a ``Result``."""

from __future__ import annotations

import re
import statistics
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field

from bench import toon_rows
from bench.adapters.base import Adapter, Snapshot
from bench.coverage import Control, Coverage, check
from bench.mcp_stdio import ToolList
from bench.opens import OPEN_PAGES, Opens, open_case, traced_page_tool_case
from bench.site import BIG_PAGE, COUNTER, DOC_PAGE, BenchSite

BUTTON = "Add one"  # the counter page's button; each click adds one to the count in the page title
PAGE_TOOL = "add_one"  # the counter page's page tool (its button): the page reacts at once


@dataclass
class Clicks:
    samples_ms: list[float]
    warmup: int
    verified: bool  # the page counted exactly as many clicks as were sent
    result_chars: int  # what one click's result costs the model (the last one's text)

    @property
    def median_ms(self) -> float:
        return statistics.median(self.samples_ms)

    @property
    def p90_ms(self) -> float:
        ordered = sorted(self.samples_ms)
        return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


@dataclass
class PageSnap:
    page: str
    page_bytes: int
    open_seconds: float
    first: Snapshot  # the first snapshot after opening the page (sizes are taken from it)
    seconds: list[float] = field(default_factory=list)  # time to the first result, each repetition

    @property
    def median_seconds(self) -> float:
        return statistics.median(self.seconds)


@dataclass
class Result:
    key: str
    label: str
    version: str = ""
    tool_lists: dict[str, ToolList] = field(default_factory=dict)
    clicks: Clicks | None = None
    page_tool: Clicks | None = None  # page tool calls on the counter page (servers that list page tools)
    doc: PageSnap | None = None
    big: PageSnap | None = None
    coverage: Coverage | None = None
    opens: Opens | None = None  # tabmcp only: open_tab/navigate against a bare goto, and traced phases
    error: str | None = None


async def measure(
    adapter: Adapter,
    site: BenchSite,
    *,
    clicks: int,
    warmup: int,
    repeat: int,
    controls: list[Control] | None,
    log: Callable[[str], None],
    opens: Opens | None = None,
    opens_repeat: int = 0,
) -> Result:
    """``opens``: when given (tabmcp), ``opens_repeat`` traced opens and navigations of each page and as
    many calls of the counter's page tool are added to it, each open after a bare goto of its page."""
    result = Result(adapter.key, adapter.label)
    try:
        async with adapter:
            result.version = adapter.version()
            log(f"{adapter.label} {result.version}: click benchmark")
            result.clicks = await click_case(adapter, site, clicks, warmup)
            result.page_tool = await page_tool_case(adapter, site, clicks, warmup)
            log(f"{adapter.label}: snapshot of {DOC_PAGE}")
            result.doc = await snapshot_case(adapter, site, DOC_PAGE, repeat)
            if controls is not None:
                result.coverage = check(controls, toon_rows.rows(result.doc.first.text))
            log(f"{adapter.label}: snapshot of {BIG_PAGE}")
            result.big = await snapshot_case(adapter, site, BIG_PAGE, repeat)
            if opens is not None and opens_repeat > 0:
                log(f"{adapter.label}: open_tab and navigate of {', '.join(OPEN_PAGES)}; a page tool call")
                await open_case(adapter, site, opens, OPEN_PAGES, opens_repeat)
                await traced_page_tool_case(adapter, site, opens, opens_repeat)
                result.opens = opens
            result.tool_lists = dict(adapter.tool_lists)
    except Exception as exc:  # one server failing must not hide the others' figures
        result.tool_lists = dict(adapter.tool_lists)
        result.error = f"{type(exc).__name__}: {exc}"
        log(f"{adapter.label} failed: {result.error}\n{traceback.format_exc(limit=4)}")
    return result


async def click_case(adapter: Adapter, site: BenchSite, clicks: int, warmup: int) -> Clicks:
    await adapter.open(site.url(COUNTER))
    ref = adapter.ref_of((await adapter.snapshot()).text, "button", BUTTON)
    for _ in range(warmup):
        await adapter.click(ref, BUTTON)
    samples: list[float] = []
    last = ""
    for _ in range(clicks):
        call = await adapter.click(ref, BUTTON)
        samples.append(call.seconds * 1000)
        last = call.text
    after = (await adapter.snapshot()).text
    verified = re.search(rf"\bCount {warmup + clicks}\b", after) is not None
    await adapter.close_page()
    return Clicks(samples, warmup, verified, len(last))


async def page_tool_case(adapter: Adapter, site: BenchSite, calls: int, warmup: int) -> Clicks | None:
    """The counter page's page tool, called like the clicks: the page changes in the handler, so the
    time is the server's own (None for a server without page tools)."""
    await adapter.open(site.url(COUNTER))
    if await adapter.page_tool(PAGE_TOOL) is None:
        await adapter.close_page()
        return None
    for _ in range(warmup - 1):
        await adapter.page_tool(PAGE_TOOL)
    samples: list[float] = []
    last = ""
    for _ in range(calls):
        call = await adapter.page_tool(PAGE_TOOL)
        assert call is not None
        samples.append(call.seconds * 1000)
        last = call.text
    verified = re.search(rf"\bCount {max(warmup, 1) + calls}\b", last) is not None
    await adapter.close_page()
    return Clicks(samples, warmup, verified, len(last))


async def snapshot_case(adapter: Adapter, site: BenchSite, page: str, repeat: int) -> PageSnap:
    opened = await adapter.open(site.doc_url(page))
    first = await adapter.snapshot()
    seconds = [first.first_seconds]
    for _ in range(repeat - 1):
        seconds.append((await adapter.snapshot(all_pages=False)).first_seconds)
    await adapter.close_page()
    return PageSnap(page, site.doc_size(page), opened.seconds, first, seconds)
