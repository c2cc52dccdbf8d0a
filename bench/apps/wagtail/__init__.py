"""Wagtail: a CMS (page explorer with bulk actions, a rich-text editor, tag autocomplete, search).

Installing generates Wagtail's project template (``wagtail start``), puts this folder's models and
settings in, migrates and seeds once into ``build/apps/wagtail/seeded.sqlite3``; each start copies that
database into its fresh data folder (migrating takes most of a minute)."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from playwright.sync_api import Page

from bench.apps.base import KeyPage, Login, PythonApp, fill_login, run

USER, PASSWORD = "admin", "corpus-cms"
SETTINGS = "corpussite.settings.corpus"


def search_harbor(page: Page, base: str) -> None:
    search_for(page, "harbor")


def search_nothing(page: Page, base: str) -> None:
    search_for(page, "quasar")  # no page has it


def search_for(page: Page, query: str) -> None:
    box = page.locator("input[name=q]").first
    box.fill(query)
    with page.expect_navigation():
        box.press("Enter")


class Wagtail(PythonApp):
    @property
    def site(self) -> Path:
        return self.build / "site"

    def stamp_files(self) -> list[Path]:
        return [*self.pins(), *(self.files / n for n in ("models.py", "corpus_settings.py", "seed.py"))]

    def _install(self) -> None:
        super()._install()
        self.site.mkdir()
        run([self.bin("wagtail"), "start", "corpussite", str(self.site)])
        shutil.copy(self.files / "models.py", self.site / "home" / "models.py")
        shutil.copy(self.files / "corpus_settings.py", self.site / "corpussite" / "settings" / "corpus.py")
        env = self.env(self.build)
        env["CORPUS_DB"] = str(self.build / "seeded.sqlite3")
        manage = [str(self.python), str(self.site / "manage.py")]
        run([*manage, "makemigrations", "home", "-v0", "--settings", SETTINGS], env=env)
        run([*manage, "migrate", "-v0", "--settings", SETTINGS], env=env)
        run([*manage, "shell", "--settings", SETTINGS, "-c", (self.files / "seed.py").read_text()], env=env)

    def env(self, data: Path) -> dict[str, str]:
        return {"CORPUS_DB": str(data / "db.sqlite3"), "CORPUS_MEDIA": str(data / "media")}

    def seed(self, data: Path, ports: Sequence[int]) -> None:
        shutil.copy(self.build / "seeded.sqlite3", data / "db.sqlite3")

    def command(self, data: Path, ports: Sequence[int]) -> list[str]:
        return [str(self.python), str(self.site / "manage.py"), "runserver", f"127.0.0.1:{ports[0]}", "--noreload",
                "--settings", SETTINGS]


APP = Wagtail(
    name="wagtail",
    kind="CMS",
    about="Wagtail: 64 story pages (rich text, tags, 13 drafts) under a home page, 3 users",
    shown_versions=("wagtail", "Django"),
    ready_path="/admin/login/",
    login=Login("/admin/login/", USER, PASSWORD,
                fill_login("input[name=username]", "input[name=password]", "button[type=submit]")),
    pages=(
        KeyPage("login", "/admin/login/", "the admin login form", logged_out=True),
        KeyPage("dashboard", "/admin/", "the dashboard: search, the pages awaiting work"),
        KeyPage("explorer", "/admin/pages/3/", "the home page's children: sort, filters, bulk actions, paging"),
        KeyPage("explorer_page2", "/admin/pages/3/?p=2", "their second page", same_as="explorer"),
        KeyPage("search", "/admin/pages/search/", "the page search for 'harbor'", (search_harbor,)),
        KeyPage("search_none", "/admin/pages/search/", "the page search finding nothing: 'Sorry, no pages match'",
                (search_nothing,), same_as="search"),
        KeyPage("edit", "/admin/pages/4/edit/", "a story's editor: Draftail rich text, tags, date"),
        KeyPage("add", "/admin/pages/add/home/storypage/3/", "a new story's form"),
        KeyPage("users", "/admin/users/", "the user list with bulk actions"),
    ),
)
