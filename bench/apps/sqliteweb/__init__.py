"""sqlite-web: a data browser (tables, rows, a SQL box, row forms) over a seeded shop database."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from playwright.sync_api import Page

from bench.apps.base import KeyPage, Login, PythonApp, fill_login
from bench.apps.sqliteweb.seed import seed

PASSWORD = "corpus-data"


def run_query(page: Page, base: str) -> None:
    """Types a query into the SQL box and runs it, as a person would."""
    page.fill("textarea[name=sql]", "SELECT city, COUNT(*) AS customers FROM customers GROUP BY city ORDER BY 2 DESC")
    with page.expect_navigation():
        page.click("form:has(textarea[name=sql]) button[type=submit]")


class SqliteWeb(PythonApp):
    def seed(self, data: Path, ports: Sequence[int]) -> None:
        seed(data / "shop.db")

    def command(self, data: Path, ports: Sequence[int]) -> list[str]:
        return [self.bin("sqlite_web"), str(data / "shop.db"), "--host", "127.0.0.1", "--port", str(ports[0]),
                "--no-browser", "--password", "--rows-per-page", "25", "--foreign-keys"]

    def env(self, data: Path) -> dict[str, str]:
        return {"SQLITE_WEB_PASSWORD": PASSWORD}


APP = SqliteWeb(
    name="sqliteweb",
    kind="data browser",
    about="sqlite-web over a shop database (180 customers, 420 orders, items, products, a view), password login",
    shown_versions=("sqlite-web", "peewee", "Flask"),
    ready_path="/login/",
    login=Login("/login/", "", PASSWORD, fill_login("", "input[name=password]", "button[type=submit]")),
    pages=(
        KeyPage("login", "/login/", "the password form", logged_out=True),
        KeyPage("tables", "/", "the database's start page: its tables and views"),
        KeyPage("customers_structure", "/customers/", "a table's structure: columns, indexes, add a column"),
        KeyPage("customers_content", "/customers/content/", "a table's rows, 8 pages of 25, sortable columns"),
        KeyPage("customers_content_page3", "/customers/content/?page=3&ordering=-name", "page 3 sorted by name",
                same_as="customers_content"),
        KeyPage("query", "/customers/query/", "the SQL box with the table's default query"),
        KeyPage("query_result", "/customers/query/", "a query typed in the box and run: its result table",
                (run_query,)),
        KeyPage("insert", "/customers/insert/", "the insert-row form"),
    ),
)
