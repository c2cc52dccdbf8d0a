"""MkDocs with the Material theme: a documentation site with client-side search (lunr in a worker).

The site's sources are in this folder (``docs_project.yml``, ``docs/``); each start builds them with
the pinned mkdocs-material and serves the result with Python's static file server."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from playwright.sync_api import Page

from bench.apps.base import KeyPage, PythonApp


def search_conflict(page: Page, base: str) -> None:
    box = page.locator("input.md-search__input")
    box.click()
    box.press_sequentially("conflict")  # the search listens to key presses
    page.locator(".md-search-result__item").first.wait_for()


class MkDocsMaterial(PythonApp):
    def seed(self, data: Path, ports: Sequence[int]) -> None:
        project = data / "project"
        shutil.copytree(self.files / "docs", project / "docs")
        shutil.copy(self.files / "docs_project.yml", project / "mkdocs.yml")
        self.run_python("-m", "mkdocs", "build", "--quiet", "--config-file", str(project / "mkdocs.yml"),
                        "--site-dir", str(data / "site"), env={"NO_MKDOCS_2_WARNING": "1"})

    def command(self, data: Path, ports: Sequence[int]) -> list[str]:
        return [str(self.python), "-m", "http.server", "--bind", "127.0.0.1", "--directory", str(data / "site"),
                str(ports[0])]


APP = MkDocsMaterial(
    name="mkdocs",
    kind="docs site",
    about="MkDocs + Material: an 11-page manual of a sync tool, tabs, admonitions, code blocks, search",
    shown_versions=("mkdocs-material", "mkdocs"),
    pages=(
        KeyPage("home", "/", "the home page: tabs, sidebar, search, palette toggle"),
        KeyPage("page", "/guide/configuration/", "a guide page with a table of contents", same_as="home"),
        KeyPage("search", "/", "the search dialog with results for 'conflict'", (search_conflict,)),
        KeyPage("reference", "/reference/options/", "a reference page with a table"),
    ),
)
