"""From capture to tool list on pages of about 1k, 5k and 10k controls, on both drivers.

``python -m bench.introspection`` from the repo root. In-process, for each driver: the extension one (a
real Bridge, headless Chromium with the real extension: the agent builds the compact capture, the
worker sends it over the WebSocket) and the CDP one (Chromium launched by ``CdpDriver``, the same agent
called over CDP). ``driver.capture`` then ``Registry.page_tools`` (lxml parse + every introspector).
Each page is measured ``--repeat`` times after a warm-up; printed: medians of capture, introspection,
and the sum, the capture's size against the document's, and the tool count. A second capture of the
same, unchanged page (``ifChanged`` with its version) is measured too: it is what live updates cost
when nothing relevant changed.

The generated pages look like a busy web app: a header with a search box, a sidebar of links, forms with
labelled fields, data tables with row buttons, cards; sized by their controls (links, buttons, fields).
The "5k + text" page has the 5k page's controls and long paragraphs of text besides: the capture should
not grow with them.
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
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import lxml.html
from playwright.async_api import async_playwright

from bench.doc_sections import put
from tabmcp.config import Settings
from tabmcp.demo.sites import SiteServer
from tabmcp.drivers.base import Driver
from tabmcp.drivers.cdp import CdpDriver
from tabmcp.drivers.extension import ExtensionEndpoint
from tabmcp.drivers.launch import chromium_args, prepare_extension
from tabmcp.introspect.registry import Registry
from tabmcp.tools.catalog import CATALOG

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
# (page name, controls, paragraphs of text per block)
# No 20k page: it takes 10-20 s to load on the 2-core box (with the agent or without), and the 10k
# page already reaches the capture's 1 MB cap.
PAGES = (("1k", 1_000, 0), ("5k", 5_000, 0), ("5k + text", 5_000, 3), ("10k", 10_000, 0))
DRIVERS = ("extension", "cdp")
TARGET_MS_AT_5K = 30.0
PARAGRAPH = (
    "This paragraph is page text a reader sees but no tool is made from: the compact capture leaves it "
    "in the page. It is long enough to weigh on a capture that would carry it, as articles, comments and "
    "documentation do on real pages. "
) * 3


def page(controls: int, paragraphs: int = 0) -> str:
    """About ``controls`` links, buttons and fields, in blocks of four kinds; ``paragraphs`` of text
    per block besides."""
    text = "".join(f"<p>{PARAGRAPH}<b>{p}</b></p>" for p in range(paragraphs))
    parts = [
        "<!doctype html><html><head><title>Generated app</title></head><body>",
        '<header><form role="search" action="/search"><input type="search" name="q" aria-label="Search">'
        "<button>Search</button></form></header><main>",
    ]
    count = 2
    i = 0
    while count < controls:
        kind = i % 4
        if kind == 0:
            parts.append(
                f'<nav><ul><li><a href="/a{i}">Section {i}</a></li><li><a href="/b{i}">Details {i}</a></li>'
                f'<li><a href="/c{i}">More {i}</a></li></ul></nav>'
                f"<section><h2>Heading {i}</h2><p>Paragraph <b>{i}</b> with <i>some</i> text.</p>{text}"
                f"<p>Another paragraph {i}.</p></section>"
            )
            count += 3
        elif kind == 1:
            parts.append(
                f'<form action="/save{i}" method="post" aria-label="Settings {i}">'
                f'<input type="hidden" name="csrf" value="t{i}">'
                f'<label for="n{i}">Name {i}</label><input id="n{i}" name="name" required>'
                f'<label for="e{i}">Email {i}</label><input id="e{i}" name="email" type="email">'
                f'<select name="plan"><option value="a">A</option><option value="b">B</option></select>'
                f'<textarea name="notes" aria-label="Notes {i}"></textarea><button>Save {i}</button></form>'
            )
            count += 6
        elif kind == 2:
            rows = "".join(
                f"<tr><td>Row {i}.{r}</td><td>{r * 7}</td><td><button>Edit {i}.{r}</button></td></tr>" for r in range(6)
            )
            parts.append(
                f"<table><thead><tr><th>Name</th><th>Value</th><th></th></tr></thead><tbody>{rows}</tbody></table>"
                f"{text}"
            )
            count += 6
        else:
            parts.append(
                f'<div class="card"><div class="body"><h3>Card {i}</h3><span>Label</span><span>Value {i}</span>'
                f'{text}<div class="actions"><a href="/open{i}">Open</a></div></div></div>'
            )
            count += 1
        i += 1
    parts.append("</main></body></html>")
    return "".join(parts)


def counts(html: str) -> dict[str, int]:
    """The page's controls (links, buttons, fields), elements and HTML characters."""
    tree = lxml.html.document_fromstring(html)
    controls = tree.xpath("count(//a[@href] | //button | //input | //select | //textarea)")
    return {"controls": int(controls), "elements": sum(1 for _ in tree.iter()), "document_chars": len(html)}


@asynccontextmanager
async def extension_driver(root: Path, settings: Settings) -> AsyncIterator[Driver]:
    token = secrets.token_urlsafe(32)  # this run's bridge, and the browser paired with it
    linked = Settings(ws_port=0, request_timeout=60.0, pairing_token=token, native_bridge=False)
    endpoint = ExtensionEndpoint.from_settings(linked)
    await endpoint.start()
    extension = prepare_extension(root / "extension", endpoint.url, token)
    try:
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
                yield driver
            finally:
                await context.close()
    finally:
        await endpoint.stop()


@asynccontextmanager
async def cdp_driver() -> AsyncIterator[Driver]:
    driver = CdpDriver(Settings(browser="chromium", headless=True, request_timeout=60.0))
    await driver.link()
    try:
        await driver.connect()
        yield driver
    finally:
        await driver.close()


async def measure_driver(kind: str, driver: Driver, site: SiteServer, repeat: int) -> list[dict[str, object]]:
    settings = Settings()
    registry = Registry.discover(settings.introspectors_dir)
    reserved = {t.name for t in CATALOG}
    rows: list[dict[str, object]] = []
    for name, controls, paragraphs in PAGES:
        print(f"{kind}: {name} page", file=sys.stderr, flush=True)
        tab = (await driver.open_tab(site.url(f"{_file(name)}.html"), True, timeout_ms=60_000)).tab
        sizes = counts(page(controls, paragraphs))
        captures, introspections, totals, unchanged = [], [], [], []
        tools = 0
        chars = 0
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
            tools, chars = len(found), len(capture.html)
            captures.append((t1 - t0) * 1000)
            introspections.append((t2 - t1) * 1000)
            totals.append((t2 - t0) * 1000)
            unchanged.append((t3 - t2) * 1000 if again is None else float("nan"))
        rows.append({
            "driver": kind,
            "page": name,
            **sizes,
            "html_chars": chars,
            "capture_ms": statistics.median(captures),
            "introspect_ms": statistics.median(introspections),
            "total_ms": statistics.median(totals),
            "unchanged_ms": statistics.median(unchanged),
            "tools": tools,
        })
        await driver.close_tab(tab.id)
    return rows


def _file(name: str) -> str:
    return "p" + name.replace(" + ", "-")


async def measure(repeat: int, drivers: tuple[str, ...] = DRIVERS) -> list[dict[str, object]]:
    settings = Settings()
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="tabmcp-bench-intro-") as scratch:
        root = Path(scratch)
        (root / "pages").mkdir()
        for name, controls, paragraphs in PAGES:
            (root / "pages" / f"{_file(name)}.html").write_text(page(controls, paragraphs), encoding="utf-8")
        with SiteServer(root / "pages") as site:
            for kind in drivers:
                opened = extension_driver(root, settings) if kind == "extension" else cdp_driver()
                async with opened as driver:
                    rows += await measure_driver(kind, driver, site, repeat)
    return rows


def report(rows: list[dict[str, object]]) -> str:
    lines = [
        "| driver | page | controls | document chars | capture chars | capture (ms) | introspect (ms) "
        "| capture → tool list (ms) | unchanged re-check (ms) | tools |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['driver']} | {row['page']} | {row['controls']:,} | {row['document_chars']:,} | "
            f"{row['html_chars']:,} | {row['capture_ms']:.1f} | {row['introspect_ms']:.1f} | "
            f"**{row['total_ms']:.1f}** | {row['unchanged_ms']:.1f} | {row['tools']} |"
        )
    lines.append("")
    for kind in dict.fromkeys(str(r["driver"]) for r in rows):
        at_5k = [r for r in rows if r["driver"] == kind and str(r["page"]).startswith("5k")]
        worst = max(float(str(r["total_ms"])) for r in at_5k)
        verdict = "met" if worst <= TARGET_MS_AT_5K else "NOT met"
        target = f"target ≤ {TARGET_MS_AT_5K:.0f} ms at 5k controls"
        lines.append(f"- {kind}: {target} {verdict} (worst 5k page {worst:.1f} ms).")
    return "\n".join(lines)


HOW = """## Page tools: from capture to tool list

How long the server takes from "the page changed" to "here are its page tools": the agent builds the
compact capture in the page (docs/introspectors.md, "The capture"), the driver brings it over (the
extension's worker over the WebSocket, or CDP), then `Registry.page_tools` parses it (lxml) and runs
every introspector. Target: **≤ 30 ms at 5k controls**, on both drivers.

```sh
.venv/bin/python -m bench.introspection            # bench/introspection.py; --repeat N (default 7), --driver
```

In-process: the extension driver (a real `Bridge`, headless Chromium with the real extension) and the
CDP driver (`CdpDriver`, Chromium it launches); generated pages that look like a busy web app (search
box, navigation, labelled forms, data tables with row buttons, cards) of about 1k, 5k and 10k controls
(links, buttons, fields), and the 5k page with three long paragraphs of text per block besides ("5k +
text"). "document chars" is the page's HTML source, "capture chars" what the agent sends. Each
page is measured `--repeat` times after a warm-up; medians. "Unchanged re-check" is a second capture of
the same page with `ifChanged` and its version: what a live update costs when nothing relevant changed."""

HISTORY = """Where the time goes at 5k controls (about 21.6k elements in the browser; measured while other
engineers' browsers and tests loaded the 2-core box, load 10–25, so in minima of interleaved runs and in
CPU time, which the load inflates far less than wall time). In the page, ~75–90 ms of the renderer's CPU
per capture: the main list's marks (`lists.js` and `rowlinks.js`, found before the walk) ~25 ms (the
main list ~13, the rows that open ~18 with it), then per written element: the accessible names
(`names.js`, labels found once per tree) ~8 ms and the hidden flag (`checkVisibility` per control)
~6–7 ms, measured alone over the 5.9k referenced elements; attribute serialisation, comparing each
name with the text written inside its element (a name that is that text is left out: the capture is
14 % smaller), joining the string and garbage collection take the rest. The walk itself is cheap: a
plain walk over every element is ~2 ms, where one native query for the elements a capture keeps
(controls, landmarks, headings, tables, lists, `[role]`) is ~9 ms. Then the capture
crosses the driver as one JSON string per hop
(the page's `JSON.stringify`; the extension's `executeScript` result and WebSocket, or CDP, Playwright's
node process and Python): its attributes are single-quoted, so no hop escapes them (a 680k-character
string crossed Playwright's `evaluate` in 14–15 ms single-quoted, 31–33 ms double-quoted, min of 12).
In Python (thread time, min of 20 on a saved 5k capture): the XML parse ~5 ms (lxml's HTML parser took
~9.5), the introspectors ~22 ms: forms ~7 (the fields of 31 forms ~2.6, the heading above them ~1),
actions ~4, the three site predicates with the page's search boxes (shared with search and actions) ~7,
rows ~2, the registry's claims well under 1 ms. The generated pages have bare markup (no classes,
styles, scripts or SVG), so on the 5k page the capture (refs and names added to every control) is
bigger than the document; on the "5k + text" page the document is 2.4 MB and the capture the same as
without the text. At 10k controls the capture reaches its 1 MB cap (about 8k controls of these pages
fit) and is cut. The 30 ms target at 5k controls is not met: the list marks and the per-control work in
the page (a ref, the hidden flag, the name) are about 40 ms of CPU here, the Python side about 26,
before the transfer."""


def section(rows: list[dict[str, object]], repeat: int, load: float) -> str:
    """The whole ``<!-- bench:introspection -->`` block: how it is measured, this run's table, the history."""
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    measured = f"Measured {when}, `--repeat {repeat}`, 1-minute load average {load:.2f} at the start (2 cores):"
    return "\n\n".join([HOW, measured, report(rows), HISTORY])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.introspection", description=__doc__)
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per size (default 7)")
    parser.add_argument("--driver", choices=DRIVERS, action="append", help="only this driver (repeatable)")
    parser.add_argument("--no-doc", action="store_true", help="print only; leave docs/benchmarks.md alone")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    rows = asyncio.run(measure(args.repeat, tuple(args.driver or DRIVERS)))
    print(report(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    if not args.no_doc:
        DOC.write_text(put(DOC.read_text(encoding="utf-8"), "introspection", section(rows, args.repeat, load)))
        print(f"\nwrote the introspection block of {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
