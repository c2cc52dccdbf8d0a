"""The natural-language tools: what locating by description costs, in time and context.

``python -m bench.nl`` from the repo root (``--no-doc`` to print only). Two parts:

1. **The scorer alone** (in-process, no browser): ``decide()`` on the recorded locate snapshots of
   tests/fixtures/snapshots (88 and 40 rows) and on pages of 2k and 10k rows made by repeating the
   shop's rows with new refs: median of ``--repeat`` runs per description.
2. **Through MCP** (``tabmcp serve`` over stdio with ``nl_tools=true``, headless Chromium with the
   extension, tests/fixtures/pages/nl.html): the client's wall clock around ``ai_tap "the login
   button"``, around ``interact`` by ref, and around what a model does without the natural-language
   tools (``snapshot``, then ``interact`` with the ref it read), median of ``--clicks``; and the
   characters each way puts into the model's context.

Writes the block ``<!-- bench:nl -->`` of docs/benchmarks.md (the other blocks are left as they are).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.doc_sections import put
from bench.mcp_stdio import server_environ
from tabmcp.demo.client import StdioSession, text_of
from tabmcp.demo.sites import SiteServer
from tabmcp.nl.locate import decide
from tabmcp.nl.page import PageView

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = ROOT / "tests" / "fixtures" / "snapshots"
PAGES = ROOT / "tests" / "fixtures" / "pages"
DOC = ROOT / "docs" / "benchmarks.md"
DESCRIPTIONS = ("the login button", "Add to cart for the Sauce Labs Onesie", "the search box", "the Add to cart button")


def _recorded(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SNAPSHOTS / f"{name}.json").read_text(encoding="utf-8"))
    return data


def _repeated(data: dict[str, Any], rows: int) -> dict[str, Any]:
    """The shop's rows again and again, refs renumbered, until there are ``rows``."""
    nodes: list[dict[str, Any]] = []
    copy = 0
    while len(nodes) < rows:
        for node in data["nodes"]:
            ref = node["ref"]
            nodes.append({**node, "ref": f"e{copy * 1000 + int(ref[1:])}" if ref else ""})
        copy += 1
    return {**data, "nodes": nodes[:rows]}


def scorer(repeat: int) -> list[tuple[str, int, str, float, str]]:
    pages = {
        "nl.json": _recorded("nl"),
        "nl-dupes.json": _recorded("nl-dupes"),
        "shop ×2k rows": _repeated(_recorded("nl"), 2_000),
        "shop ×10k rows": _repeated(_recorded("nl"), 10_000),
    }
    results = []
    for label, data in pages.items():
        view = PageView.from_snapshot(data)
        for description in DESCRIPTIONS[:2] if "×" in label else DESCRIPTIONS:
            times = []
            outcome = ""
            for _ in range(repeat):
                fresh = PageView.from_snapshot(data)  # bags are cached per row: measure a first read
                started = time.perf_counter()
                outcome = decide(fresh, description, "click").outcome
                times.append((time.perf_counter() - started) * 1000)
            results.append((label, len(view.rows), description, statistics.median(times), outcome))
    return results


async def through_mcp(clicks: int) -> dict[str, Any]:
    with SiteServer(PAGES) as site, tempfile.TemporaryDirectory(prefix="tabmcp-bench-nl-") as scratch:
        env = {
            "TABMCP_WS_PORT": "0",
            "TABMCP_NL_TOOLS": "true",
            "TABMCP_USER_DATA_DIR": str(Path(scratch) / "profile"),
            "TABMCP_LOG_LEVEL": "WARNING",
            "TABMCP_RATE_LIMIT_PER_MINUTE": "0",  # a benchmark is not a runaway client
        }
        with open(os.devnull, "w") as quiet:
            async with StdioSession(env=env, errlog=quiet, base_env=server_environ()) as session:
                await session.call_ok("connect_browser", {"launch": True})
                await session.call_ok("ai_connect_new_tab", {"url": site.url("nl.html")})

                async def timed(tool: str, args: dict[str, Any]) -> tuple[float, str]:
                    started = time.perf_counter()
                    result = await session.call(tool, args)
                    elapsed = (time.perf_counter() - started) * 1000
                    if result.is_error:
                        raise RuntimeError(f"{tool} failed: {text_of(result)}")
                    return elapsed, text_of(result)

                snapshot_text = (await timed("snapshot", {}))[1]
                rows = snapshot_text.splitlines()
                ref = next(line.split(",")[0].strip() for line in rows if ",button,Login," in line)
                samples: dict[str, list[float]] = {"ai_tap": [], "interact": [], "snapshot+interact": []}
                sizes: dict[str, int] = {}
                for _ in range(3):  # warm-up
                    await timed("ai_tap", {"locate": "the login button"})
                for _ in range(clicks):
                    took, text = await timed("ai_tap", {"locate": "the login button"})
                    samples["ai_tap"].append(took)
                    sizes["ai_tap"] = len(text)
                    took, text = await timed("interact", {"action": "click", "target": ref})
                    samples["interact"].append(took)
                    sizes["interact"] = len(text)
                    took_snapshot, snap = await timed("snapshot", {})
                    took_click, click = await timed("interact", {"action": "click", "target": ref})
                    samples["snapshot+interact"].append(took_snapshot + took_click)
                    sizes["snapshot+interact"] = len(snap) + len(click)
    return {
        "median": {k: statistics.median(v) for k, v in samples.items()},
        "p90": {k: sorted(v)[int(0.9 * (len(v) - 1))] for k, v in samples.items()},
        "chars": sizes,
        "clicks": clicks,
    }


def report(scored: list[tuple[str, int, str, float, str]], mcp: dict[str, Any]) -> str:
    lines = [
        "## Natural-language tools",
        "",
        "`python -m bench.nl`. Locating by description with the deterministic scorer (no model). "
        f"Load average at the run: {os.getloadavg()[0]:.2f} (2 cores).",
        "",
        "**The scorer alone** (`decide()` in-process on a locate snapshot, median):",
        "",
        "| page | rows | description | outcome | ms |",
        "|---|---:|---|---|---:|",
    ]
    for label, rows, description, ms, outcome in scored:
        lines.append(f"| {label} | {rows:,} | {description} | {outcome} | {ms:.2f} |")
    med, p90, chars = mcp["median"], mcp["p90"], mcp["chars"]
    lines += [
        "",
        f"**Through MCP** (stdio, headless Chromium, extension driver, `nl.html`, {mcp['clicks']} rounds):",
        "",
        "| call | median ms | p90 ms | characters returned |",
        "|---|---:|---:|---:|",
        f"| `ai_tap` \"the login button\" | {med['ai_tap']:.1f} | {p90['ai_tap']:.1f} | {chars['ai_tap']:,} |",
        f"| `interact` by ref | {med['interact']:.1f} | {p90['interact']:.1f} | {chars['interact']:,} |",
        f"| `snapshot` then `interact` | {med['snapshot+interact']:.1f} | {p90['snapshot+interact']:.1f} | "
        f"{chars['snapshot+interact']:,} |",
        "",
        f"`ai_tap` costs {med['ai_tap'] / med['interact']:.2f}× an `interact` by ref (one locate snapshot more) "
        f"and {med['ai_tap'] / med['snapshot+interact']:.2f}× the snapshot-then-click a model does without it, "
        f"with {chars['ai_tap'] / max(1, chars['snapshot+interact']):.2f}× its characters in the model's context.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20, help="scorer runs per description (median)")
    parser.add_argument("--clicks", type=int, default=20, help="MCP rounds (median)")
    parser.add_argument("--no-doc", action="store_true", help="print only; leave docs/benchmarks.md alone")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args(argv)
    scored = scorer(args.repeat)
    mcp = asyncio.run(through_mcp(args.clicks))
    text = report(scored, mcp)
    print(text)
    if args.json:
        args.json.write_text(json.dumps({"scorer": scored, "mcp": mcp}, indent=1))
    if not args.no_doc:
        DOC.write_text(put(DOC.read_text(encoding="utf-8"), "nl", text), encoding="utf-8")
        print(f"\nwrote the nl block of {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
