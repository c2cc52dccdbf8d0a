"""An Otter Wiki: a wiki over a git repository (CodeMirror 6 Markdown editor, search, login)."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from playwright.sync_api import Page

from bench.apps.base import KeyPage, Login, PythonApp, fill_login, run

EMAIL, PASSWORD = "ada@example.org", "corpus-wiki"
SETTINGS = """\
REPOSITORY = {repo!r}
SECRET_KEY = "corpus-otterwiki-not-a-secret"
SQLALCHEMY_DATABASE_URI = "sqlite:///{db}"
SITE_NAME = "Team Wiki"
READ_ACCESS = "ANONYMOUS"
WRITE_ACCESS = "REGISTERED"
EMAIL_NEEDS_CONFIRMATION = False
AUTO_APPROVAL = True
COMMIT_MESSAGE = "OPTIONAL"
"""


def wrong_password(page: Page, base: str) -> None:
    page.fill("input[name=email]", EMAIL)
    page.fill("input[name=password]", "not-the-password")
    with page.expect_navigation():
        page.click("input[type=submit][value=Login]")


def search_failover(page: Page, base: str) -> None:
    search_for(page, "failover")


def search_nothing(page: Page, base: str) -> None:
    search_for(page, "quasar")  # no page has it


def search_for(page: Page, query: str) -> None:
    box = page.locator("input[name=query]").first
    box.fill(query)
    with page.expect_navigation():
        box.press("Enter")


class OtterWiki(PythonApp):
    def env(self, data: Path) -> dict[str, str]:
        return {"OTTERWIKI_SETTINGS": str(data / "settings.cfg")}

    def stamp_files(self) -> list[Path]:
        return [*self.pins(), self.files / "seed.py"]

    def _install(self) -> None:
        """The wiki's repository and users are seeded once (scrypt hashes, 20 commits); starts copy them."""
        super()._install()
        seeded = self.build / "seeded"
        run(["git", "init", "--quiet", "--initial-branch=main", str(seeded / "repo")])
        (seeded / "settings.cfg").write_text(SETTINGS.format(repo=str(seeded / "repo"), db=seeded / "users.db"))
        self.run_python(str(self.files / "seed.py"), env=self.env(seeded))

    def seed(self, data: Path, ports: Sequence[int]) -> None:
        seeded = self.build / "seeded"
        shutil.copytree(seeded / "repo", data / "repo", symlinks=True)
        shutil.copy(seeded / "users.db", data / "users.db")
        (data / "settings.cfg").write_text(SETTINGS.format(repo=str(data / "repo"), db=data / "users.db"))

    def command(self, data: Path, ports: Sequence[int]) -> list[str]:
        return [str(self.python), "-m", "flask", "--app", "otterwiki.server", "run",
                "--host", "127.0.0.1", "--port", str(ports[0]), "--no-reload", "--no-debugger"]


APP = OtterWiki(
    name="otterwiki",
    kind="wiki",
    about="An Otter Wiki: a team handbook of 19 pages in folders, 2 users, Markdown editor (CodeMirror 6)",
    shown_versions=("otterwiki", "Flask", "GitPython"),
    ready_path="/-/healthz",
    login=Login("/-/login", EMAIL, PASSWORD,
                fill_login("input[name=email]", "input[name=password]", "input[type=submit][value=Login]")),
    pages=(
        KeyPage("login", "/-/login", "the login form (email, password, remember me)", logged_out=True),
        KeyPage("login_failed", "/-/login", "the login form after a wrong password: the error toast",
                (wrong_password,), same_as="login", logged_out=True),
        KeyPage("home", "/Home", "the home page with the sidebar, page search and page tools"),
        KeyPage("page", "/Runbooks/Database%20Failover", "a page in a folder", same_as="home"),
        KeyPage("search", "/-/search", "searched for 'failover': the results", (search_failover,)),
        KeyPage("search_none", "/-/search", "searched for a word no page has: 'No match found.'", (search_nothing,),
                same_as="search"),
        KeyPage("edit", "/Handbook/Travel/edit", "the Markdown editor (CodeMirror 6) and commit message"),
        KeyPage("create", "/-/create", "the new-page form"),
        KeyPage("index", "/-/index", "the page index"),
        KeyPage("changelog", "/-/changelog", "the changelog: every commit, paged"),
    ),
)
