"""``python -m bench.apps report``: every saved capture (and with ``--live`` every page of the started
apps) through the real introspector registry, its tool list, and the quality findings (quality.py)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TextIO

from bench.apps.base import App, KeyPage
from bench.apps.capture import saved_captures
from bench.apps.quality import KINDS, Finding, findings, listing_chars, unstable
from tabmcp.config import Settings
from tabmcp.introspect.api import PageTool
from tabmcp.introspect.list_memory import ListMemory
from tabmcp.introspect.registry import Registry
from tabmcp.page.capture import PageCapture
from tabmcp.tools.catalog import CATALOG


@dataclass
class PageReport:
    app: str
    page: str
    url: str
    tools: list[dict[str, str]]
    chars: int
    findings: list[Finding] = field(default_factory=list)


def page_tools(capture: PageCapture, registry: Registry | None = None) -> tuple[PageTool, ...]:
    """The page tools the server would list for this capture (same registry, reserved names and limit)."""
    registry = registry or Registry.discover()
    return registry.page_tools(capture, reserved={t.name for t in CATALOG}, limit=Settings().max_page_tools)


def report_pages(app: App, captures: Iterable[tuple[KeyPage | str, PageCapture]]) -> list[PageReport]:
    registry = Registry.discover()
    keys = {k.name: k for k in app.pages}
    made: dict[str, tuple[PageTool, ...]] = {}
    seen: dict[str, PageCapture] = {}
    reports: list[PageReport] = []
    for key, capture in captures:
        name = key if isinstance(key, str) else key.name
        tools = page_tools(capture, registry)
        other = keys[name].same_as if name in keys else ""
        if other in seen:  # reached from that page in one tab, as the server reads it (a list with no rows)
            memory = ListMemory()
            memory.keep(0, seen[other], made[other])
            tools = memory.keep(0, capture, tools)
        made[name] = tools
        seen[name] = capture
        report = PageReport(
            app.name, name, capture.url,
            [{"name": t.name, "title": t.title or "", "args": ", ".join(t.schema.get("properties", {}))}
             for t in tools],
            listing_chars(tools), findings(capture, tools),
        )
        reports.append(report)
    for report in reports:
        other = keys[report.page].same_as if report.page in keys else ""
        if other and other in made:
            report.findings += unstable(made[report.page], made[other], other)
    return reports


def print_report(reports: Sequence[PageReport], out: TextIO = sys.stdout) -> None:
    write = out.write
    for r in reports:
        write(f"\n## {r.app}/{r.page}  ({len(r.tools)} tools, {r.chars:,} chars)  {r.url}\n")
        for t in r.tools:
            write(f"  - {t['name']}({t['args']})" + (f"  \"{t['title']}\"" if t["title"] else "") + "\n")
        for f in r.findings:
            write(f"  ! {f.kind}: {f.tool}: {f.text}\n")
    write("\n" + summary(reports) + "\n")


def summary(reports: Sequence[PageReport]) -> str:
    """A table per app: pages, tools, characters, and the count of each kind of finding."""
    kinds = list(KINDS)
    head = "| app | pages | tools | chars | " + " | ".join(kinds) + " |"
    rows = [head, "|" + "---|" * (4 + len(kinds))]
    apps = list(dict.fromkeys(r.app for r in reports))
    total: Counter[str] = Counter()
    for app in [*apps, "all"]:
        mine = [r for r in reports if app in (r.app, "all")]
        counts = Counter(f.kind for r in mine for f in r.findings)
        if app != "all":
            total.update(counts)
        rows.append(f"| {app} | {len(mine)} | {sum(len(r.tools) for r in mine)} | {sum(r.chars for r in mine):,} | "
                    + " | ".join(str(counts.get(k, 0)) for k in kinds) + " |")
    legend = "\n".join(f"- `{k}`: {v}" for k, v in KINDS.items())
    return "\n".join(rows) + "\n\n" + legend


def run_report(apps: Sequence[App], *, live: bool = False, as_json: bool = False, summary_only: bool = False) -> int:
    reports: list[PageReport] = []
    for app in apps:
        saved = saved_captures(app.name)
        reports += report_pages(app, saved.items())
        if live:
            from bench.apps.capture import live_captures

            live_reports = report_pages(app, list(live_captures(app)))
            reports += [replace(r, page=f"{r.page} (live)") for r in live_reports]
    if as_json:
        json.dump([asdict(r) for r in reports], sys.stdout, indent=1)
        print()
    elif summary_only:
        print(summary(reports))
    else:
        print_report(reports)
    return 0
