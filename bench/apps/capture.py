"""Saving the compact capture of each app's key pages under tests/fixtures/apps/NAME/ (PAGE.html and
pages.json: each page's URL and title, the app's port written as 8000 so a new capture diffs cleanly)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

from playwright.sync_api import Page

from bench.apps.base import ROOT, App, KeyPage
from bench.apps.browser import Lab, lab
from bench.apps.runner import running
from tabmcp.page.capture import PageCapture

FIXTURES = ROOT / "tests" / "fixtures" / "apps"
FIXED_BASE = "http://127.0.0.1:8000/"


def settled_capture(lab_: Lab, page: Page, label: str) -> PageCapture:
    """The page agent's capture of ``page`` once it loaded and its late scripts drew; the page is
    closed. A truncated capture is refused (``label`` names the page)."""
    page.wait_for_load_state("load")
    page.wait_for_timeout(400)  # a capture tool, not a test: let late scripts draw
    cap = lab_.capture(page)
    page.close()
    if cap.truncated:
        raise RuntimeError(f"{label}: the capture was truncated")
    return cap


def live_captures(app: App) -> Iterator[tuple[KeyPage, PageCapture]]:
    """Starts the app and yields what the page agent captures of each key page (the base URL fixed)."""
    with running(app) as live, lab() as lab_:
        base = live.base.rstrip("/")
        logged_in = False
        for key in [k for k in app.pages if k.logged_out] + [k for k in app.pages if not k.logged_out]:
            if not key.logged_out and not logged_in and app.login is not None:
                page = lab_.context.new_page()
                app.login.log_in(page, base)
                page.close()
                logged_in = True
            page = lab_.context.new_page()
            page.goto(live.url(key.path))
            page.wait_for_load_state("load")
            for act in key.actions:
                act(page, base)
            cap = settled_capture(lab_, page, f"{app.name}/{key.name}")
            yield key, PageCapture(url=fixed(cap.url, live.base), title=cap.title, html=fixed(cap.html, live.base))


def capture_app(app: App) -> list[str]:
    """Captures every key page of the app and writes the files; returns the pages saved."""
    folder = FIXTURES / app.name
    folder.mkdir(parents=True, exist_ok=True)
    index: dict[str, dict[str, str]] = {}
    for key, cap in live_captures(app):
        (folder / f"{key.name}.html").write_text(cap.html + "\n", encoding="utf-8")
        index[key.name] = {"url": cap.url, "title": cap.title, "about": key.about}
        print(f"{app.name}/{key.name}: {len(cap.html):,} chars", file=sys.stderr)
    for stale in set(folder.glob("*.html")) - {folder / f"{k}.html" for k in index}:
        stale.unlink()
    (folder / "pages.json").write_text(json.dumps(index, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return list(index)


def write_fixtures(folder: Path, base: str, captured: list[tuple[str, PageCapture, str]]) -> None:
    """Writes the captures of an app a fixture script started at ``base`` (the port fixed), as
    ``capture_app`` does for the corpus: each (name, capture, about) as NAME.html, and pages.json."""
    index: dict[str, dict[str, str]] = {}
    for name, cap, about in captured:
        (folder / f"{name}.html").write_text(fixed(cap.html, base) + "\n", encoding="utf-8")
        index[name] = {"url": fixed(cap.url, base), "title": cap.title, "about": about}
        print(f"{folder.name}/{name}: {len(cap.html):,} chars", file=sys.stderr)
    (folder / "pages.json").write_text(json.dumps(index, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def fixed(text: str, base: str) -> str:
    return text.replace(base, FIXED_BASE).replace(base.rstrip("/"), FIXED_BASE.rstrip("/"))


def saved_captures(name: str) -> dict[str, PageCapture]:
    """The saved captures of an app, by key page name (empty when it has none)."""
    folder = FIXTURES / name
    path = folder / "pages.json"
    if not path.is_file():
        return {}
    index = json.loads(path.read_text("utf-8"))
    return {
        page: PageCapture(url=meta["url"], title=meta["title"], html=Path(folder / f"{page}.html").read_text("utf-8"))
        for page, meta in index.items()
    }
