"""Roundup: an issue tracker (the classic template) with seeded users and issues."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from playwright.sync_api import Page

from bench.apps.base import KeyPage, Login, PythonApp, fill_login, run

USER, PASSWORD = "alice", "corpus-tracker"
LOGIN_FORM = "form:has(input[name=__login_password])"


def wrong_title(page: Page, base: str) -> None:
    """Submits a new issue without a title: the tracker answers with its error."""
    with page.expect_navigation():
        page.click("input[type=submit][value='Submit New Entry']")


class Roundup(PythonApp):
    """The tracker is made and seeded once at install (``roundup-admin`` and the seed take seconds);
    each start copies it and points its config at the run's port and folder."""

    TEMPLATE_WEB = "http://127.0.0.1:8000/"

    def stamp_files(self) -> list[Path]:
        return [*self.pins(), self.files / "seed.py"]

    def _install(self) -> None:
        super()._install()
        tracker = self.build / "tracker"
        run([self.bin("roundup-admin"), "-i", str(tracker), "install", "classic", "sqlite",
             # mail the tracker sends (nosy messages) is written to a file, never sent
             f"tracker_web={self.TEMPLATE_WEB},mail_domain=example.org,mail_host=localhost,"
             f"mail_debug={self.build / 'mail.txt'}"])
        run([self.bin("roundup-admin"), "-i", str(tracker), "initialise", "corpus-admin"])
        self.run_python(str(self.files / "seed.py"), str(tracker))

    def seed(self, data: Path, ports: Sequence[int]) -> None:
        tracker = data / "tracker"
        shutil.copytree(self.build / "tracker", tracker, ignore=shutil.ignore_patterns("__pycache__"))
        config = tracker / "config.ini"
        text = config.read_text().replace(self.TEMPLATE_WEB, f"http://127.0.0.1:{ports[0]}/")
        config.write_text(text.replace(str(self.build / "mail.txt"), str(data / "mail.txt")))

    def command(self, data: Path, ports: Sequence[int]) -> list[str]:
        return [str(self.python), str(self.files / "host.py"), str(data / "tracker"), str(ports[0])]


APP = Roundup(
    name="roundup",
    kind="issue tracker",
    about="Roundup's classic tracker: 90 issues with messages, statuses, priorities, keywords; 4 users",
    shown_versions=("roundup",),
    ready_path="/",
    login=Login("/", USER, PASSWORD, fill_login(f"{LOGIN_FORM} input[name=__login_name]",
                                                     f"{LOGIN_FORM} input[name=__login_password]",
                                                     f"{LOGIN_FORM} input[type=submit]")),
    pages=(
        KeyPage("home_anonymous", "/", "the start page before logging in: the login box", logged_out=True),
        KeyPage("issues", "/issue", "the issue list: sort, group, filter links, paging of 50"),
        KeyPage("issues_page2", "/issue?@startwith=50&@pagesize=50", "the second page of issues",
                same_as="issues"),
        KeyPage("search", "/issue?@template=search", "the search form: text, keywords, status, assignee…"),
        KeyPage("issue", "/issue1", "one issue: its messages, the change form with the nosy list"),
        KeyPage("issue_new", "/issue?@template=item", "the new-issue form"),
        KeyPage("issue_new_invalid", "/issue?@template=item", "the new-issue form sent without a title",
                (wrong_title,), same_as="issue_new"),
        KeyPage("users", "/user", "the user list"),
        KeyPage("users_none", "/user?username=quasar&@action=search", "the user list searched for a name nobody has: "
                "its table's headers and no row", same_as="users"),
    ),
)
