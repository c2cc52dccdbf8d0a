"""``tabmcp doctor``: checks of the setup, one small function per check.

Each check returns a ``Check`` (a title, ok or not, lines to print); ``run_doctor`` prints them
and answers exit code 1 when one failed. Today: the introspectors found, the plugins that failed
to load, and (with ``--page``) what the introspectors make of a saved page. Browser checks come
later as more functions of the same shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from tabmcp.config import Settings
from tabmcp.introspect.registry import Registry
from tabmcp.page.capture import PageCapture


@dataclass
class Check:
    title: str
    ok: bool = True
    lines: list[str] = field(default_factory=list)


def check_introspectors(registry: Registry) -> Check:
    infos = registry.describe()
    rows = [(i.kind, i.name, i.source, _patterns(i.url_patterns, i.has_predicate)) for i in infos]
    return Check(f"introspectors: {len(infos)} found (in the order they run)", True, _table(rows))


def check_plugin_errors(registry: Registry) -> Check:
    if not registry.errors:
        return Check("plugins that failed to load: none")
    return Check(f"plugins that failed to load: {len(registry.errors)}", False, list(registry.errors))


def check_page(registry: Registry, page: Path, url: str, settings: Settings) -> list[Check]:
    """What a client would be offered on this saved page (HTML as the page agent captures it, with
    ``data-tabmcp-ref`` attributes), and which introspectors failed on it."""
    from tabmcp.tools import CATALOG

    try:
        html = page.read_text(encoding="utf-8")
    except OSError as exc:
        return [Check(f"page {page}: cannot be read", False, [str(exc)])]
    capture = PageCapture(url=url, title=page.name, html=html)
    before = {name: failure.count for name, failure in registry.failures.items()}
    tools = registry.page_tools(capture, reserved={t.name for t in CATALOG}, limit=settings.max_page_tools)
    rows = [(t.name + _signature(t.schema), t.source, t.title or "") for t in tools]
    listed = Check(f"tools on {page.name} as {url}: {len(tools)}", True, _table(rows))
    failed = {n: f for n, f in registry.failures.items() if f.count > before.get(n, 0)}
    if not failed:
        return [listed, Check("introspector failures on the page: none")]
    lines = [f"{name}: {f.last_error}" for name, f in failed.items()]
    return [listed, Check(f"introspector failures on the page: {len(failed)}", False, lines)]


def run_doctor(settings: Settings, *, page: Path | None = None, url: str = "", out: TextIO) -> int:
    registry = Registry.discover(settings.introspectors_dir)
    checks = [check_introspectors(registry), check_plugin_errors(registry)]
    if page is not None:
        checks += check_page(registry, page, url or "http://localhost/", settings)
    for check in checks:
        mark = "ok  " if check.ok else "FAIL"
        print(f"{mark} {check.title}", file=out)
        for line in check.lines:
            print(f"       {line}", file=out)
    return 0 if all(check.ok for check in checks) else 1


def _patterns(patterns: Sequence[str], predicate: bool) -> str:
    text = ", ".join(patterns) if patterns else "(no URL patterns)"
    return f"{text} + predicate" if predicate else text


def _signature(schema: dict[str, object]) -> str:
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or [])  # type: ignore[arg-type]
    names = [n if n in required else f"{n}?" for n in properties]  # type: ignore[union-attr]
    return f"({', '.join(names)})"


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = []
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return lines
