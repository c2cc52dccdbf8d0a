"""The page tools of real open-source apps, end to end, on both drivers: the server-rendered ones
(sqlite-web, Flask-Admin, An Otter Wiki with its editor, Roundup; the script-drawn ones are in
test_real_apps_scripted.py). Each app (bench/apps, installed by `make apps`) is started on fresh demo
data on a free port; `tabmcp serve` over stdio with a real MCP client makes a few calls a model would
make (log in, search a list, send a form), and the app's own state is checked afterwards (its
database, its pages). Tools are found by what they take, not by name (tests/integration/real_apps.py).
"""

from __future__ import annotations

import re
import sqlite3

import pytest
from bench.apps.runner import Running

from tests.integration.real_apps import (
    app_fixture,  # noqa: F401 (the fixture `app`: pytest finds it by name)
    call_text,
    fetch,
    on_page,
    tool_taking,
)

pytestmark = pytest.mark.usefixtures("driver_kind")


@pytest.mark.parametrize("app", ["sqliteweb"], indirect=True)
async def test_sqlite_web_log_in_and_run_sql(app: Running, server_log: object) -> None:
    async with on_page(server_log, app, "/login/") as client:
        login, [password] = await tool_taking(client, ("password",))
        await call_text(client, login.name, {password: "corpus-data"})
        run, [sql] = await tool_taking(client, ("sql",))
        changes = client.changes
        answer = await call_text(client, run.name, {
            sql: "INSERT INTO customers (name, email, city) VALUES ('Zoe Tabmcp', 'zoe@tabmcp.example', 'Oslo')",
        })
        assert "error" not in answer.lower()
        # the query page's form has no label for the SQL: the client's copy relaxed, no news; its call runs
        assert client.changes == changes
        answer = await call_text(client, run.name, {
            sql: "INSERT INTO customers (name, email, city) VALUES ('Yan Tabmcp', 'yan@tabmcp.example', 'Lima')",
        })
        assert "error" not in answer.lower()
    with sqlite3.connect(app.data / "shop.db") as db:
        assert db.execute("SELECT city FROM customers WHERE email = 'zoe@tabmcp.example'").fetchall() == [("Oslo",)]
        assert db.execute("SELECT city FROM customers WHERE email = 'yan@tabmcp.example'").fetchall() == [("Lima",)]


@pytest.mark.parametrize("app", ["flaskadmin"], indirect=True)
async def test_flask_admin_search_a_list_and_add_a_record(app: Running, server_log: object) -> None:
    async with on_page(server_log, app, "/admin/book/") as client:
        search, [query] = await tool_taking(client, ("search", "query"))
        found = await call_text(client, search.name, {query: "lighthouse"})
        assert "search=lighthouse" in found  # the list's own URL for the search
        titles = re.findall(r"The \w+ Lighthouse", found)
        assert titles and all("Lighthouse" in t for t in titles)

        await client.call_ok("navigate", {"url": app.url("/admin/author/new/")})
        save, [name, country] = await tool_taking(client, ("name",), ("country",))
        answer = await call_text(client, save.name, {name: "Wen Tabmcp", country: "Norway"})
        assert "Record was successfully created" in answer  # the app's own success banner
    with sqlite3.connect(app.data / "library.db") as db:
        assert db.execute("SELECT country FROM author WHERE name = 'Wen Tabmcp'").fetchall() == [("Norway",)]


@pytest.mark.parametrize("app", ["otterwiki"], indirect=True)
async def test_otter_wiki_log_in_and_search(app: Running, server_log: object) -> None:
    async with on_page(server_log, app, "/-/login") as client:
        login, [email, password] = await tool_taking(client, ("email",), ("password",))
        logged_in = await call_text(client, login.name, {email: "ada@example.org", password: "corpus-wiki"})
        assert "You logged in successfully" in logged_in  # the app's own banner is in the answer
        search, [query] = await tool_taking(client, ("query", "search"))
        found = await call_text(client, search.name, {query: "failover"})
        assert "Database Failover" in found
        assert "handbook/on-call" in found.lower()  # the page that links to the runbook matches too


@pytest.mark.parametrize("app", ["otterwiki"], indirect=True)
async def test_otter_wiki_saves_its_editor_outside_the_form(app: Running, server_log: object) -> None:
    # CodeMirror 6 stands outside the save form; the page's script copies it into a hidden field on submit
    async with on_page(server_log, app, "/-/login") as client:
        login, [email, password] = await tool_taking(client, ("email",), ("password",))
        await call_text(client, login.name, {email: "ada@example.org", password: "corpus-wiki"})
        await client.call_ok("navigate", {"url": app.url("/Handbook/Travel")})
        edit = next(t for t in await client.tools() if t.name.startswith("edit"))
        opened = await call_text(client, edit.name, {})
        assert "Book trains over flights under six hours." in opened  # what the editor holds
        titles = {t.title for t in await client.tools()}
        assert not titles & {"Undo", "Bold", "Italic", "Preview"}  # the editor's own buttons are no tools
        # the "Unsaved changes" dialog is drawn out of sight while closed: its buttons are no tools
        assert not titles & {"Keep draft and leave", "Keep editing", "Discard changes"}
        save, [content, commit] = await tool_taking(client, ("editor",), ("commit",))
        text = "# Travel\n\nBook trains over flights under six hours.\n\nReceipts go to finance.\n"
        answer = await call_text(client, save.name, {content: text, commit: "Receipts"})
        assert "saved" in answer.lower()
    saved = (app.data / "repo" / "handbook" / "travel.md").read_text()
    assert saved.strip() == text.strip()


@pytest.mark.parametrize("app", ["roundup"], indirect=True)
async def test_roundup_log_in_and_comment_on_an_issue(app: Running, server_log: object) -> None:
    async with on_page(server_log, app, "/") as client:
        login, [user, password] = await tool_taking(client, ("name", "user"), ("password",))
        answer = await call_text(client, login.name, {user: "alice", password: "corpus-tracker"})
        assert "alice" in answer.lower()

        await client.call_ok("navigate", {"url": app.url("/issue7")})
        change, [note] = await tool_taking(client, ("note", "message", "change note"))
        await call_text(client, change.name, {note: "Reproduced on staging with build 2.1.0."})
    assert "Reproduced on staging with build 2.1.0." in fetch(app.url("/issue7"))


