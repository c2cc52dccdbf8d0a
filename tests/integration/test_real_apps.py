"""The page tools of real open-source apps, end to end (bench/apps: installed by `make apps`): each app
started on fresh demo data on a free port, `tabmcp serve` over stdio, a real MCP client, headless
Chromium on both drivers. A few calls per app, each the way a model would make it (log in, search a
list, send a form), and the app's own state checked afterwards (its database, its API, its pages).

Tools are found by what they take (a password argument, the search box's argument), not by name:
names improve on their own, and bench/apps/report.py is where they are judged.
"""

from __future__ import annotations

import json
import re
import sqlite3
import urllib.request
from collections.abc import Iterator
from typing import Any

import mcp_types as types
import pytest
from bench.apps import load
from bench.apps.runner import Running, running

from tabmcp.demo.client import StdioSession, text_of
from tests.integration.conftest import CORE_FOCUSED, eventually, serve

pytestmark = pytest.mark.usefixtures("driver_kind")


@pytest.fixture
def app(request: pytest.FixtureRequest) -> Iterator[Running]:
    with running(load(request.param)) as live:
        yield live


def page_tools(tools: list[types.Tool]) -> list[types.Tool]:
    return [t for t in tools if t.name not in CORE_FOCUSED and t.name not in ("connect_browser", "disconnect")]


def argument(tool: types.Tool, *words: str) -> str | None:
    """The tool's argument whose name or description has one of ``words`` (case-insensitive)."""
    for name, prop in tool.input_schema.get("properties", {}).items():
        text = f"{name} {prop.get('description', '')}".lower() if isinstance(prop, dict) else name.lower()
        if any(w in text for w in words):
            return str(name)
    return None


async def tool_taking(
    client: StdioSession, *groups: tuple[str, ...], first: bool = False
) -> tuple[types.Tool, list[str]]:
    """The one page tool with an argument for each group of words, and those arguments (``first``:
    the first listed of several, as a model would take it where the page has twins)."""
    found = []
    for tool in page_tools(await client.tools()):
        names = [argument(tool, *group) for group in groups]
        if all(names):
            found.append((tool, [str(n) for n in names]))
    assert len(found) == 1 or (first and found), f"{len(found)} tools take {groups}: {[t.name for t, _ in found]}"
    return found[0]


async def tool_titled(client: StdioSession, words: str) -> types.Tool:
    """The one page tool whose title or description has ``words``."""
    found = [t for t in page_tools(await client.tools())
             if words.lower() in f"{t.title or ''} {t.description}".lower()]
    assert len(found) == 1, f"{len(found)} tools say {words!r}: {[t.name for t in found]}"
    return found[0]


async def call_text(client: StdioSession, name: str, args: dict[str, Any]) -> str:
    result = await client.call(name, args)
    assert not result.is_error, f"{name}({args}) failed: {text_of(result)}"
    return text_of(result)


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return str(response.read().decode("utf-8", "replace"))


# ----------------------------------------------------------------- the apps


@pytest.mark.parametrize("app", ["sqliteweb"], indirect=True)
async def test_sqlite_web_log_in_and_run_sql(app: Running, server_log: object) -> None:
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": app.url("/login/")})
        login, [password] = await tool_taking(client, ("password",))
        await call_text(client, login.name, {password: "corpus-data"})
        run, [sql] = await tool_taking(client, ("sql",))
        answer = await call_text(client, run.name, {
            sql: "INSERT INTO customers (name, email, city) VALUES ('Zoe Tabmcp', 'zoe@tabmcp.example', 'Oslo')",
        })
        assert "error" not in answer.lower()
    with sqlite3.connect(app.data / "shop.db") as db:
        assert db.execute("SELECT city FROM customers WHERE email = 'zoe@tabmcp.example'").fetchall() == [("Oslo",)]


@pytest.mark.parametrize("app", ["flaskadmin"], indirect=True)
async def test_flask_admin_search_a_list_and_add_a_record(app: Running, server_log: object) -> None:
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": app.url("/admin/book/")})
        search, [query] = await tool_taking(client, ("search", "query", "title"))
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
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": app.url("/-/login")})
        login, [email, password] = await tool_taking(client, ("email",), ("password",))
        logged_in = await call_text(client, login.name, {email: "ada@example.org", password: "corpus-wiki"})
        assert "You logged in successfully" in logged_in  # the app's own banner is in the answer
        search, [query] = await tool_taking(client, ("query", "search"))
        found = await call_text(client, search.name, {query: "failover"})
        assert "Database Failover" in found
        assert "handbook/on-call" in found.lower()  # the page that links to the runbook matches too


@pytest.mark.parametrize("app", ["roundup"], indirect=True)
async def test_roundup_log_in_and_comment_on_an_issue(app: Running, server_log: object) -> None:
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": app.url("/")})
        login, [user, password] = await tool_taking(client, ("name", "user"), ("password",))
        answer = await call_text(client, login.name, {user: "alice", password: "corpus-tracker"})
        assert "alice" in answer.lower()

        await client.call_ok("navigate", {"url": app.url("/issue7")})
        change, [note] = await tool_taking(client, ("note", "message", "change note"))
        await call_text(client, change.name, {note: "Reproduced on staging with build 2.1.0."})
    assert "Reproduced on staging with build 2.1.0." in fetch(app.url("/issue7"))


@pytest.mark.parametrize("app", ["maildev"], indirect=True)
async def test_maildev_delete_all_mail(app: Running, server_log: object) -> None:
    assert len(json.loads(fetch(app.url("/api/email")))) == 45
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": app.url("/")})
        delete_all = await tool_titled(client, "delete all")
        assert delete_all.annotations is not None and delete_all.annotations.read_only_hint is not True
        # MailDev asks for a second click: the answer says so, and the button it became is the next tool
        asked = await call_text(client, delete_all.name, {})
        assert "click again" in asked.lower()
        assert len(json.loads(fetch(app.url("/api/email")))) == 45
        confirm = await tool_titled(client, "delete all")
        await call_text(client, confirm.name, {})

        async def emptied() -> bool:  # the page deletes through MailDev's API; its answer may trail the click
            return json.loads(fetch(app.url("/api/email"))) == []

        await eventually(emptied, "MailDev's API to list no mail")


@pytest.mark.parametrize("app", ["mkdocs"], indirect=True)
async def test_mkdocs_material_site_search(app: Running, server_log: object) -> None:
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": app.url("/guide/installation/")})
        search, [query] = await tool_taking(client, ("query", "search"))
        found = await call_text(client, search.name, {query: "conflict"})
        assert "Syncing" in found and "Troubleshooting" in found


@pytest.mark.parametrize("app", ["wagtail"], indirect=True)
async def test_wagtail_log_in_search_and_save_a_draft(app: Running, server_log: object) -> None:
    async with serve(server_log, ws_port="0") as client:
        await client.call_ok("connect_browser", {"launch": True})
        await client.call_ok("open_tab", {"url": app.url("/admin/login/")})
        login, [user, password] = await tool_taking(client, ("username",), ("password",))
        await call_text(client, login.name, {user: "admin", password: "corpus-cms"})

        await client.call_ok("navigate", {"url": app.url("/admin/")})
        # the sidebar's search and the dashboard's are twins (bench.apps report flags them)
        search, [query] = await tool_taking(client, ("query", "search"), first=True)
        found = await call_text(client, search.name, {query: "glacier"})
        assert "of the Glacier" in found

        await client.call_ok("navigate", {"url": app.url("/admin/pages/4/edit/")})
        save, [title, day, intro] = await tool_taking(client, ("title",), ("date",), ("intro",))
        # the edit form asks again for its required fields, filled already (the page's own values)
        await call_text(client, save.name, {
            title: "Birds of the Harbor", day: "2026-01-05", intro: "Notes from a foggy morning at the harbor.",
        })
    with sqlite3.connect(app.data / "db.sqlite3") as db:
        [(content,)] = db.execute(
            "SELECT content FROM wagtailcore_revision WHERE object_id = '4' ORDER BY id DESC LIMIT 1").fetchall()
    assert json.loads(content)["intro"] == "Notes from a foggy morning at the harbor."
