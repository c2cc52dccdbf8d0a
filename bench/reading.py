"""Reading one part of the 1.7 MB index page: a region and a text search, tabmcp next to its peers.

On the page `genindex-all.html` (bench/site.py), each server is asked for one letter's table (the
table after `h2#G`) and for the matches of a rare word ("gather", 2 entries) and a common one
("asyncio", hundreds). tabmcp: `snapshot {root}` and `snapshot {find}` (first result; the pages
behind its cursor counted apart). Playwright MCP: `browser_snapshot {target}` and `browser_find
{text}`, its own region and search. Chrome DevTools MCP has neither: the closest a model can do is
`evaluate_script` with its own code (the region's innerText; the lines around each match), which
is what is measured for it. Sizes are characters of the result text; times the median of
``--repeat`` calls, each the client's wall clock around one `tools/call`.

    .venv/bin/python -m bench.reading --repeat 3            # every server installed
    .venv/bin/python -m bench.reading --only tabmcp tabmcp-cdp

A run of every server rewrites the block ``<!-- bench:reading -->`` of docs/benchmarks.md (``--no-doc``:
printed only); a partial run is printed only.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import statistics
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from bench import toon_rows
from bench.adapters import ALL
from bench.adapters.base import Adapter, PeerMissing
from bench.doc_sections import put
from bench.mcp_stdio import Call
from bench.site import BIG_PAGE, BenchSite

PEERS_DIR = Path.home() / ".cache" / "tabmcp-bench" / "peers"
DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
SERVERS = ("tabmcp", "tabmcp-cdp", "playwright", "devtools")
LABELS = {
    "tabmcp": "tabmcp (extension)",
    "tabmcp-cdp": "tabmcp (CDP)",
    "playwright": "Playwright MCP (`browser_snapshot {target}`, `browser_find`)",
    "devtools": "Chrome DevTools MCP (`evaluate_script`: text, no refs)",
}
REGION_CSS = "#G + table"
WORDS = ("gather", "asyncio")
REGION_JS = f"() => document.querySelector({REGION_CSS!r}).innerText"


def search_js(word: str) -> str:
    """A model's own search: the text around each match of the page's rendered text."""
    return f"() => [...document.body.innerText.matchAll(/.{{0,60}}{word}.{{0,60}}/gi)].map((m) => m[0])"


def cases(adapter: Adapter) -> dict[str, Callable[[], Awaitable[Call]]]:
    call = adapter.server.call
    if adapter.key.startswith("tabmcp"):
        found = {f"find {w}": (lambda w=w: call("snapshot", {"find": w})) for w in WORDS}
        return {"region": lambda: call("snapshot", {"root": f"css={REGION_CSS}"}), **found}
    if adapter.key == "playwright":
        found = {f"find {w}": (lambda w=w: call("browser_find", {"text": w})) for w in WORDS}
        return {"region": lambda: call("browser_snapshot", {"target": REGION_CSS}), **found}
    page = {"pageId": getattr(adapter, "page_id", None)}
    found = {f"find {w}": (lambda w=w: call("evaluate_script", {**page, "function": search_js(w)})) for w in WORDS}
    return {"region": lambda: call("evaluate_script", {**page, "function": REGION_JS}), **found}


async def measure(key: str, url: str, repeat: int) -> dict[str, dict[str, float]]:
    figures: dict[str, dict[str, float]] = {}
    async with ALL[key](PEERS_DIR, sys.stderr) as adapter:
        await adapter.open(url)
        await adapter.snapshot(all_pages=False)  # the page is loaded and the server has seen it once
        for name, run in cases(adapter).items():
            calls = [await run() for _ in range(repeat)]
            row = {"chars": len(calls[0].text), "seconds": statistics.median(c.seconds for c in calls)}
            # the last call's cursor: a server keeps the last few snapshots only
            cursor = toon_rows.field(calls[-1].text, "next") if key.startswith("tabmcp") else None
            pages, total = 1, len(calls[-1].text)
            while cursor:
                more = await adapter.server.call("snapshot", {"cursor": cursor})
                pages, total = pages + 1, total + len(more.text)
                cursor = toon_rows.field(more.text, "next")
            row.update(pages=pages, all_chars=total)
            figures[name] = row
        await adapter.close_page()
    return figures


def cell(row: dict[str, float] | None) -> str:
    if row is None:
        return "—"
    paged = f" ({row['all_chars']:,.0f} in {row['pages']:.0f} pages)" if row["pages"] > 1 else ""
    return f"{row['chars']:,.0f} chars, {row['seconds'] * 1000:,.0f} ms{paged}"


def section(results: dict[str, dict[str, dict[str, float]]], repeat: int) -> str:
    """The block of docs/benchmarks.md: one column per server, one row per case."""
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    keys = [k for k in SERVERS if k in results]
    lines = [
        "## Reading one part of a long page: a region and a text search",
        "",
        f"Measured {when} by `.venv/bin/python -m bench.reading --repeat {repeat}` (`bench/reading.py`), "
        f"1-minute load average {load:.1f} at the end (2 cores). On `genindex-all.html` (1,684 KB): the table "
        f"after `h2#G` as a region, and a search for a rare word and a common one. First result's size, "
        f"median time of {repeat} calls (the client's wall clock); tabmcp's pages behind its cursor in brackets.",
        "",
        "| case | " + " | ".join(LABELS[k] for k in keys) + " |",
        "|---|" + "---|" * len(keys),
    ]
    for name in ("region", *(f"find {w}" for w in WORDS)):
        lines.append(f"| {name} | " + " | ".join(cell(results[k].get(name)) for k in keys) + " |")
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", default=list(SERVERS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-doc", action="store_true", help="print only")
    args = parser.parse_args()
    results: dict[str, dict[str, dict[str, float]]] = {}
    with BenchSite() as site:
        url = site.doc_url(BIG_PAGE)
        for key in args.only:
            try:
                figures = await measure(key, url, args.repeat)
            except PeerMissing as exc:
                print(f"{key}: not installed ({exc})")
                continue
            results[key] = figures
            for name, row in figures.items():
                paged = f", {row['all_chars']:,.0f} chars in {row['pages']:.0f} pages" if row["pages"] > 1 else ""
                print(f"{key:11} {name:15} {row['chars']:>9,.0f} chars {row['seconds'] * 1000:7.0f} ms{paged}")
    if not args.no_doc and set(results) == set(SERVERS):
        DOC.write_text(put(DOC.read_text(encoding="utf-8"), "reading", section(results, args.repeat)), encoding="utf-8")
        print(f"wrote {DOC}")


if __name__ == "__main__":
    asyncio.run(main())
