"""From capture to tool list on pages of 1k, 5k and 20k elements.

``python -m bench.introspection`` from the repo root. In-process: a real Bridge, headless Chromium with
the real extension, ``ExtensionDriver.capture`` (the agent serialises the DOM, the worker sends it over
the WebSocket), then ``Registry.page_tools`` (lxml parse + every introspector). Each size is measured
``--repeat`` times after a warm-up; printed: medians of capture, introspection, and the sum, the tool
count, and the growth from one size to the next against the growth in elements. A second capture of the
same, unchanged page (``ifChanged`` with its version) is measured too: it is what live updates cost when
nothing relevant changed.

The generated pages look like a busy web app: a header with a search box, a sidebar of links, forms with
labelled fields, a data table with row buttons, cards of text; ``N`` is the number of elements.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.async_api import async_playwright

from bench.doc_sections import put
from tabmcp.config import Settings
from tabmcp.demo.sites import SiteServer
from tabmcp.drivers.extension import ExtensionEndpoint
from tabmcp.drivers.launch import chromium_args, prepare_extension
from tabmcp.introspect.registry import Registry
from tabmcp.tools.catalog import CATALOG

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
SIZES = (1_000, 5_000, 20_000)
TARGET_MS_AT_5K = 100.0


def page(elements: int) -> str:
    """About ``elements`` elements: each block below is ~25 elements."""
    parts = [
        "<!doctype html><html><head><title>Generated app</title></head><body>",
        '<header><form role="search" action="/search"><input type="search" name="q" aria-label="Search">'
        "<button>Search</button></form></header><main>",
    ]
    count = 8
    i = 0
    while count < elements:
        kind = i % 4
        if kind == 0:
            parts.append(
                f'<nav><ul><li><a href="/a{i}">Section {i}</a></li><li><a href="/b{i}">Details {i}</a></li>'
                f'<li><a href="/c{i}">More {i}</a></li></ul></nav>'
                f"<section><h2>Heading {i}</h2><p>Paragraph <b>{i}</b> with <i>some</i> text.</p>"
                f"<p>Another paragraph {i}.</p></section>"
            )
            count += 14
        elif kind == 1:
            parts.append(
                f'<form action="/save{i}" method="post" aria-label="Settings {i}">'
                f'<input type="hidden" name="csrf" value="t{i}">'
                f'<label for="n{i}">Name {i}</label><input id="n{i}" name="name" required>'
                f'<label for="e{i}">Email {i}</label><input id="e{i}" name="email" type="email">'
                f'<select name="plan"><option value="a">A</option><option value="b">B</option></select>'
                f'<textarea name="notes" aria-label="Notes {i}"></textarea><button>Save {i}</button></form>'
            )
            count += 13
        elif kind == 2:
            rows = "".join(
                f"<tr><td>Row {i}.{r}</td><td>{r * 7}</td><td><button>Edit {i}.{r}</button></td></tr>" for r in range(3)
            )
            parts.append(f"<table><thead><tr><th>Name</th><th>Value</th><th></th></tr></thead><tbody>{rows}</tbody></table>")
            count += 6 + 3 * 5
        else:
            parts.append(
                f'<div class="card"><div class="body"><h3>Card {i}</h3><span>Label</span><span>Value {i}</span>'
                f'<div class="actions"><a href="/open{i}">Open</a></div></div></div>'
            )
            count += 8
        i += 1
    parts.append("</main></body></html>")
    return "".join(parts)


async def measure(repeat: int) -> list[dict[str, float]]:
    settings = Settings()
    registry = Registry.discover(settings.introspectors_dir)
    reserved = {t.name for t in CATALOG}
    rows: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="tabmcp-bench-intro-") as scratch:
        root = Path(scratch)
        (root / "pages").mkdir()
        for n in SIZES:
            (root / "pages" / f"p{n}.html").write_text(page(n), encoding="utf-8")
        with SiteServer(root / "pages") as site:
            token = secrets.token_urlsafe(32)  # this run's bridge, and the browser paired with it
            linked = Settings(ws_port=0, request_timeout=60.0, pairing_token=token, native_bridge=False)
            endpoint = ExtensionEndpoint.from_settings(linked)
            await endpoint.start()
            extension = prepare_extension(root / "extension", endpoint.url, token)
            async with async_playwright() as pw:
                context = await pw.chromium.launch_persistent_context(
                    str(root / "profile"),
                    executable_path=settings.resolved_browser_path(),
                    headless=True,
                    args=chromium_args(extension, as_root=os.geteuid() == 0),
                    ignore_default_args=["--disable-extensions"],
                )
                try:
                    driver = endpoint.driver
                    if not await driver.wait_linked(20):
                        raise SystemExit("the extension did not connect")
                    await driver.connect()
                    for n in SIZES:
                        tab = (await driver.open_tab(site.url(f"p{n}.html"), True)).tab
                        elements = await context.pages[-1].evaluate("document.getElementsByTagName('*').length")
                        captures, introspections, totals, unchanged = [], [], [], []
                        tools = 0
                        for i in range(repeat + 1):
                            t0 = time.perf_counter()
                            capture = await driver.capture(tab.id, settings.capture_max_chars)
                            t1 = time.perf_counter()
                            assert capture is not None
                            found = registry.page_tools(capture, reserved=reserved, limit=settings.max_page_tools)
                            t2 = time.perf_counter()
                            again = await driver.capture(tab.id, settings.capture_max_chars, if_changed=capture.version)
                            t3 = time.perf_counter()
                            if i == 0:
                                continue  # warm-up
                            tools = len(found)
                            captures.append((t1 - t0) * 1000)
                            introspections.append((t2 - t1) * 1000)
                            totals.append((t2 - t0) * 1000)
                            unchanged.append((t3 - t2) * 1000 if again is None else float("nan"))
                        rows.append({
                            "size": n,
                            "elements": elements,
                            "html_chars": len(capture.html),
                            "capture_ms": statistics.median(captures),
                            "introspect_ms": statistics.median(introspections),
                            "total_ms": statistics.median(totals),
                            "unchanged_ms": statistics.median(unchanged),
                            "tools": tools,
                        })
                        await driver.close_tab(tab.id)
                finally:
                    await context.close()
                    await endpoint.stop()
    return rows


def report(rows: list[dict[str, float]]) -> str:
    lines = [
        "| elements | HTML chars | capture (ms) | introspect (ms) | capture → tool list (ms) | growth vs elements "
        "| unchanged re-check (ms) | tools |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    previous = None
    for row in rows:
        growth = ""
        if previous is not None:
            growth = f"×{row['total_ms'] / previous['total_ms']:.1f} for ×{row['elements'] / previous['elements']:.1f}"
        lines.append(
            f"| {int(row['elements']):,} | {int(row['html_chars']):,} | {row['capture_ms']:.1f} | "
            f"{row['introspect_ms']:.1f} | **{row['total_ms']:.1f}** | {growth} | {row['unchanged_ms']:.1f} | "
            f"{int(row['tools'])} |"
        )
        previous = row
    at_5k = next(r for r in rows if r["size"] == 5_000)
    verdict = "met" if at_5k["total_ms"] <= TARGET_MS_AT_5K else "NOT met"
    lines.append("")
    lines.append(f"Target ≤ {TARGET_MS_AT_5K:.0f} ms at 5k elements: {verdict} ({at_5k['total_ms']:.1f} ms).")
    return "\n".join(lines)


HOW = """## Page tools: from capture to tool list

How long the server takes from "the page changed" to "here are its page tools": the agent serialises
the DOM, the extension's worker sends it over the WebSocket (`ExtensionDriver.capture`), then
`Registry.page_tools` parses it (lxml) and runs every introspector. Target: **≤ 100 ms at 5k elements**,
growing no worse than linearly with the page.

```sh
.venv/bin/python -m bench.introspection            # bench/introspection.py; --repeat N (default 7)
```

In-process: a real `Bridge`, headless Chromium with the real extension, generated pages that look like a
busy web app (search box, navigation, labelled forms, a data table with row buttons, cards) of about 1k,
5k and 20k elements. Each size is measured `--repeat` times after a warm-up; medians. "Unchanged
re-check" is a second capture of the same page with `ifChanged` and its version: what a live update costs
when nothing relevant changed."""

HISTORY = """Where the time went, and what was done about it (profiles at 5k elements): the agent's
serialisation walked children with NodeList iterators and attributes with the attribute iterator (~40 ms
in the page); sibling pointers and indexed loops brought it to ~20 ms. On the Python side, lxml parse
~6 ms, the capture's index (built from attribute XPaths) ~4 ms, forms ~13 ms (30 forms read), actions and
search ~2 ms each, the three site predicates ~1 ms together (attribute XPaths: `//@role[.='button']/..`
instead of `//*[@role='button']`). A run before those changes measured 96.9 ms at 5k."""


def section(rows: list[dict[str, float]], repeat: int, load: float) -> str:
    """The whole ``<!-- bench:introspection -->`` block: how it is measured, this run's table, the history."""
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    measured = f"Measured {when}, `--repeat {repeat}`, 1-minute load average {load:.2f} at the start (2 cores):"
    return "\n\n".join([HOW, measured, report(rows), HISTORY])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.introspection", description=__doc__)
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per size (default 7)")
    parser.add_argument("--no-doc", action="store_true", help="print only; leave docs/benchmarks.md alone")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    rows = asyncio.run(measure(args.repeat))
    print(report(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    if not args.no_doc:
        DOC.write_text(put(DOC.read_text(encoding="utf-8"), "introspection", section(rows, args.repeat, load)))
        print(f"\nwrote the introspection block of {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
