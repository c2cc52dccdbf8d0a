"""Flask-Admin: an admin over a lending library's SQLite database (``host.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from playwright.sync_api import Page

from bench.apps.base import KeyPage, PythonApp


def submit_without_author(page: Page, base: str) -> None:
    """A title but no author: the server answers with the form and its error under the author field."""
    page.fill("input#title", "The Untitled Draft")
    with page.expect_navigation():
        page.click("form.admin-form input[type=submit][value=Save]")


def tick_two_rows(page: Page, base: str) -> None:
    page.locator("input.action-checkbox").nth(0).check()
    page.locator("input.action-checkbox").nth(2).check()


class FlaskAdmin(PythonApp):
    def command(self, data: Path, ports: Sequence[int]) -> list[str]:
        return [str(self.python), str(self.files / "host.py"), str(data), str(ports[0])]


APP = FlaskAdmin(
    name="flaskadmin",
    kind="admin",
    about="Flask-Admin over a lending library (books, authors, tags, members, loans; 140 books, 36 authors)",
    shown_versions=("Flask-Admin", "Flask", "SQLAlchemy"),
    ready_path="/admin/",
    pages=(
        KeyPage("home", "/admin/", "the admin's start page and menu"),
        KeyPage("books", "/admin/book/", "the book list: search, filters, sort, 7 pages of 20, a bulk action"),
        KeyPage("books_search", "/admin/book/?search=harbor", "the book list searched for 'harbor'",
                same_as="books"),
        KeyPage("books_none", "/admin/book/?search=quasar", "the book list searched for a word no book has: "
                "'There are no items in the table.'", same_as="books"),
        KeyPage("books_ticked", "/admin/book/", "two rows ticked for a bulk action", (tick_two_rows,),
                same_as="books"),
        KeyPage("book_new", "/admin/book/new/", "the create form: select2 author and tags (ajax)"),
        KeyPage("book_new_invalid", "/admin/book/new/", "the create form sent without an author: the error per field",
                (submit_without_author,), same_as="book_new"),
        KeyPage("book_edit", "/admin/book/edit/?id=1", "the edit form of one book"),
        KeyPage("loans", "/admin/loan/", "the loans list: filters on a relation, 4 pages"),
    ),
)
