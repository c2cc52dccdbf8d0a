"""The soak: a long session on each driver, for errors and memory growth (``make soak``).

``tabmcp serve`` is started as an MCP host starts it and launches headless Chromium itself
(``connect_browser {launch: true}``): with the extension (driver ``tabmcp``) and over CDP
(``tabmcp-cdp``). One tab navigates ``--navigations`` times between counter pages; after each
navigation come the mixed calls (``--calls`` in all): a snapshot, a click by its ref, and in turn a
``wait_for`` on the page's text, ``list_tabs`` and ``console``. Every ``--every`` navigations the RSS of
the server, of Playwright's node driver (CDP only) and the PSS of the browser are read from /proc
(``bench/proc_memory.py``). Errors are counted, not fatal. The result: a line chart
(``docs/benchmarks/soak-rss.png``) and the block ``<!-- bench:soak -->`` of docs/benchmarks.md.

Growth is given per 1,000 navigations after the warm-up (the first quarter of the run, at most 1,000
navigations): the target is at most 1 MB for the server and the driver.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types

from bench import line_chart, toon_rows
from bench.adapters.base import CHROMIUM
from bench.doc_sections import put
from bench.mcp_stdio import StdioServer, text_of
from bench.proc_memory import measure
from bench.site import PAGES
from tabmcp.demo.client import tabmcp_command
from tabmcp.demo.sites import SiteServer

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "benchmarks.md"
CHART = ROOT / "docs" / "benchmarks" / "soak-rss.png"
DRIVERS = {"tabmcp": "tabmcp", "tabmcp-cdp": "tabmcp (CDP)"}
CALL_TIMEOUT_S = 60.0
TARGET_MB_PER_1000 = 1.0
ROTATION = ("wait_for", "list_tabs", "console")  # the third call after a navigation, in turn
ERRORS_KEPT = 10


@dataclass
class Sample:
    navigations: int
    calls: int
    seconds: float
    server_mb: float
    driver_mb: float | None
    browser_mb: float | None


@dataclass
class DriverRun:
    driver: str
    navigations: int = 0
    calls: int = 0
    errors: int = 0
    error_texts: list[str] = field(default_factory=list)
    latencies: dict[str, list[float]] = field(default_factory=dict)  # call kind -> seconds
    samples: list[Sample] = field(default_factory=list)
    seconds: float = 0.0


def server_env(driver: str, settings: dict[str, str] | None = None) -> dict[str, str]:
    env = {"TABMCP_WS_PORT": "0", "TABMCP_HEADLESS": "true", "TABMCP_BROWSER_PATH": CHROMIUM}
    env["TABMCP_PAIRING_TOKEN"] = secrets.token_urlsafe(32)
    env["TABMCP_RATE_LIMIT_PER_MINUTE"] = "0"  # one client calling back to back: the guard is not measured
    if driver == "tabmcp-cdp":
        env["TABMCP_BROWSER"] = "chromium"
    return {**env, **(settings or {})}


class Session:
    """One server, every call timed by kind; an error is counted and the session goes on."""

    def __init__(self, server: StdioServer, run: DriverRun) -> None:
        self.server = server
        self.run = run

    async def call(self, kind: str, name: str, arguments: dict[str, Any]) -> str | None:
        start = time.perf_counter()
        try:
            with anyio.fail_after(CALL_TIMEOUT_S):
                result: types.CallToolResult = await self.server.session.call_tool(name, arguments)
        except TimeoutError:
            return self._error(f"{name}: no answer within {CALL_TIMEOUT_S:g} s")
        self.run.latencies.setdefault(kind, []).append(time.perf_counter() - start)
        text = text_of(result)
        if result.is_error:
            return self._error(f"{name}({json.dumps(arguments)[:200]}): {text[:300]}")
        return text

    def _error(self, text: str) -> None:
        self.run.errors += 1
        if len(self.run.error_texts) < ERRORS_KEPT:
            self.run.error_texts.append(text)
        return None


def button_ref(snapshot: str) -> str | None:
    refs = [r.ref for r in toon_rows.rows(snapshot) if r.role == "button" and r.name == "Add one" and r.ref]
    return refs[0] if refs else None


async def soak(
    driver: str, site: SiteServer, navigations: int, calls: int, every: int, log: Any, settings: dict[str, str]
) -> DriverRun:
    run = DriverRun(driver)
    command, prefix = tabmcp_command()
    with tempfile.TemporaryDirectory(prefix=f"tabmcp-soak-{driver}-") as scratch:
        server = StdioServer(
            command, [*prefix, "serve"], cwd=Path(scratch), errlog=log, env=server_env(driver, settings)
        )
        async with server:
            session = Session(server, run)
            if await session.call("connect", "connect_browser", {"launch": True}) is None:
                raise RuntimeError(f"{driver}: connect_browser failed: {run.error_texts}")
            await session.call("open_tab", "open_tab", {"url": site.url("counter.html?n=0")})
            started = time.perf_counter()

            def sample() -> None:
                memory = measure()
                seconds = time.perf_counter() - started
                run.samples.append(Sample(run.navigations, run.calls, seconds, **asdict(memory)))
                print(
                    f"  {driver}: {run.navigations} navigations, {run.calls} calls, {run.errors} errors, "
                    f"{seconds:.0f} s; server {memory.server_mb:.1f} MB, driver {memory.driver_mb or 0:.1f} MB, "
                    f"browser {memory.browser_mb or 0:.1f} MB",
                    flush=True,
                )

            sample()
            for n in range(1, navigations + 1):
                await session.call("navigate", "navigate", {"url": site.url(f"counter.html?n={n}")})
                run.navigations += 1
                due = calls * n // navigations  # the mixed calls, spread evenly over the navigations
                ref: str | None = None
                step = 0
                while run.calls < due:
                    if step == 0:
                        snapshot = await session.call("snapshot", "snapshot", {})
                        ref = button_ref(snapshot) if snapshot else None
                    elif step == 1 and ref is not None:
                        await session.call("interact", "interact", {"action": "click", "target": ref})
                    else:
                        kind = ROTATION[run.calls % len(ROTATION)]
                        arguments: dict[str, Any] = {"text": "Counter"} if kind == "wait_for" else {}
                        await session.call(kind, kind, arguments)
                    run.calls += 1
                    step += 1
                if n % every == 0:
                    sample()
            run.seconds = time.perf_counter() - started
    return run


# ----------------------------------------------------------------------------- figures


def warm_up(run: DriverRun) -> Sample:
    """The first sample at or after the warm-up: a quarter of the run, at most 1,000 navigations."""
    mark = min(1000, run.navigations // 4)
    return next(s for s in run.samples if s.navigations >= mark)


def second_half(run: DriverRun) -> Sample:
    """The first sample at or after half the run: growth from there shows a plateau reached late."""
    return next(s for s in run.samples if s.navigations >= run.navigations // 2)


def growth_per_1000(run: DriverRun, attribute: str, start: Sample | None = None) -> float | None:
    """MB per 1,000 navigations from ``start`` (the warm-up) on: the slope of the least-squares line
    through every sample from there, so one sample high or low in a noisy band (a V8 heap resizing)
    does not pass for growth, while a steady climb does."""
    start = start or warm_up(run)
    points = [
        (s.navigations / 1000, value)
        for s in run.samples
        if s.navigations >= start.navigations and (value := getattr(s, attribute)) is not None
    ]
    if len(points) < 2:
        return None
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def chart(runs: list[DriverRun]) -> line_chart.LineChart:
    panels = []
    for attribute, title in (
        ("server_mb", "tabmcp server, RSS MB"),
        ("driver_mb", "Playwright node driver, RSS MB (CDP driver only)"),
        ("browser_mb", "Chromium, PSS MB over its processes"),
    ):
        lines = []
        for run in runs:
            points = tuple((float(s.navigations), v) for s in run.samples if (v := getattr(s, attribute)) is not None)
            if points:
                lines.append(line_chart.Line(DRIVERS[run.driver], points))
        if lines:
            panels.append(line_chart.Panel(title, tuple(lines)))
    return line_chart.LineChart(
        "Memory over a soak: one tab navigating, mixed calls between", "navigations", tuple(panels)
    )


def _mb(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def verdicts(runs: list[DriverRun]) -> list[str]:
    """Each driver against the targets, said plainly: met, or not and by how much."""
    out = []
    for run in runs:
        parts = [f"{run.errors} errors" + (" (target: 0)" if run.errors else "")]
        for attribute, name in (("server_mb", "server"), ("driver_mb", "node driver")):
            growth = growth_per_1000(run, attribute)
            if growth is None:
                continue
            late = growth_per_1000(run, attribute, second_half(run))
            verdict = "within the target" if growth <= TARGET_MB_PER_1000 else "**above the target**"
            parts.append(
                f"{name} {growth:.1f} MB per 1,000 after the warm-up, {verdict} ({late:.1f} over the second half)"
            )
        out.append(f"- {DRIVERS[run.driver]}: " + "; ".join(parts) + ".")
    return out


def section(runs: list[DriverRun], navigations: int, calls: int, full: bool) -> str:
    size = "full size" if full else "a reduced run: the full soak is 4,000 navigations and 10,000 calls"
    every = runs[0].samples[1].navigations if len(runs[0].samples) > 1 else navigations
    lines = [
        "## Soak: memory and errors over a long session (`make soak`)",
        "",
        f"`bench/soak.py` ({size}): {navigations:,} navigations and {calls:,} mixed calls per driver,",
        "in a browser tabmcp launched (`connect_browser {launch: true}`, headless), one tab. After each",
        "navigation: a snapshot, a click by its ref, and in turn `wait_for`, `list_tabs`, `console`.",
        f"Memory every {every:,} navigations: RSS of the server and of Playwright's node driver, PSS of the",
        "browser summed over its processes. Growth is per 1,000 navigations after the warm-up (the first",
        f"{warm_up(runs[0]).navigations:,}): the slope of a least-squares line through the samples from there;",
        f"target ≤ {TARGET_MB_PER_1000:g} MB for the server and the driver,",
        "and 0 errors.",
        "",
        "![Memory over the soak](benchmarks/soak-rss.png)",
        "",
        "Growth, MB per 1,000 navigations: after the warm-up / over the second half of the run.",
        "",
        "| driver | navigations | calls | errors | server MB (start → end) | server growth |"
        " node driver MB | driver growth | browser MB | time |",
        "|---|---:|---:|---:|---|---:|---|---:|---|---:|",
    ]
    for run in runs:
        first, last, half = run.samples[0], run.samples[-1], second_half(run)
        server = f"{_mb(growth_per_1000(run, 'server_mb'))} / {_mb(growth_per_1000(run, 'server_mb', half))}"
        driver = f"{_mb(growth_per_1000(run, 'driver_mb'))} / {_mb(growth_per_1000(run, 'driver_mb', half))}"
        lines.append(
            f"| {DRIVERS[run.driver]} | {run.navigations:,} | {run.calls:,} | {run.errors} "
            f"| {_mb(first.server_mb)} → {_mb(last.server_mb)} | {server} "
            f"| {_mb(first.driver_mb)} → {_mb(last.driver_mb)} | {driver} "
            f"| {_mb(first.browser_mb)} → {_mb(last.browser_mb)} | {run.seconds / 60:.1f} min |"
        )
    lines += ["", *verdicts(runs)]
    lines += ["", "Latency per call kind, ms (p50 / p90 / p99):", ""]
    kinds = list(dict.fromkeys(k for run in runs for k in run.latencies if k not in ("connect", "open_tab")))
    lines.append("| driver | " + " | ".join(f"`{k}`" for k in kinds) + " |")
    lines.append("|---|" + "---|" * len(kinds))
    for run in runs:
        cells = []
        for kind in kinds:
            values = run.latencies.get(kind, [])
            if not values:
                cells.append("—")
                continue
            p50, p90, p99 = (percentile(values, q) * 1000 for q in (0.5, 0.9, 0.99))
            cells.append(f"{p50:.0f} / {p90:.0f} / {p99:.0f} ({len(values):,})")
        lines.append(f"| {DRIVERS[run.driver]} | " + " | ".join(cells) + " |")
    errors = [f"- {DRIVERS[run.driver]}: {text}" for run in runs for text in run.error_texts]
    if errors:
        lines += ["", "First errors:", "", *errors]
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> list[DriverRun]:
    runs = []
    with SiteServer(PAGES) as site, open(args.log, "a", encoding="utf-8") as log:
        for driver in args.drivers:
            print(f"{driver}: {args.navigations} navigations, {args.calls} calls", flush=True)
            settings = dict(s.split("=", 1) for s in args.setting)
            runs.append(await soak(driver, site, args.navigations, args.calls, args.every, log, settings))
    return runs


def load(path: Path) -> list[DriverRun]:
    runs = []
    for data in json.loads(path.read_text()):
        samples = [Sample(**s) for s in data.pop("samples")]
        runs.append(DriverRun(**data, samples=samples))
    return runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__)
    parser.add_argument("--navigations", type=int, default=4000)
    parser.add_argument("--calls", type=int, default=10_000, help="mixed calls, spread over the navigations")
    parser.add_argument("--every", type=int, default=500, help="navigations between two memory samples")
    parser.add_argument("--drivers", nargs="+", choices=list(DRIVERS), default=list(DRIVERS))
    parser.add_argument("--log", type=Path, default=Path(tempfile.gettempdir()) / "tabmcp-soak-servers.log")
    parser.add_argument("--json", type=Path, help="also write the runs as JSON here")
    parser.add_argument(
        "--setting", action="append", default=[], metavar="TABMCP_NAME=VALUE", help="a server setting (repeatable)"
    )
    parser.add_argument("--no-doc", action="store_true", help="print only; leave docs/benchmarks.md alone")
    parser.add_argument("--from-json", type=Path, help="redraw the block and the chart from a --json dump, no run")
    args = parser.parse_args(argv)
    runs = load(args.from_json) if args.from_json else asyncio.run(main_async(args))
    navigations, calls = runs[0].navigations, runs[0].calls
    full = navigations >= 4000 and calls >= 10_000
    text = section(runs, navigations, calls, full)
    print("\n" + text)
    if args.json and not args.from_json:
        args.json.write_text(json.dumps([asdict(r) for r in runs], indent=1))
    if not args.no_doc:
        line_chart.save(chart(runs), CHART)
        DOC.write_text(put(DOC.read_text(encoding="utf-8"), "soak", text), encoding="utf-8")
        print(f"\nwrote the soak block of {DOC.relative_to(ROOT)} and {CHART.relative_to(ROOT)}")
    failed = sum(r.errors for r in runs)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
