"""The page tools of real open-source apps drawn by scripts, end to end, on both drivers: MailDev's
React inbox, MkDocs Material's worker-driven search, Wagtail's admin (the server-rendered apps are in
test_real_apps.py). Each app (bench/apps, installed by `make apps`) is started on fresh demo data on a
free port; `tabmcp serve` over stdio with a real MCP client makes a few calls a model would make, and
the app's own state is checked afterwards (its API, its database). Tools are found by what they take
or say, not by name (tests/integration/real_apps.py).
"""

from __future__ import annotations

import json
import sqlite3

import pytest
from bench.apps.runner import Running

from tests.integration.conftest import eventually
from tests.integration.real_apps import (
    app_fixture,  # noqa: F401 (the fixture `app`: pytest finds it by name)
    call_text,
    fetch,
    on_page,
    tool_taking,
    tool_titled,
)

pytestmark = pytest.mark.usefixtures("driver_kind")


@pytest.mark.parametrize("app", ["maildev"], indirect=True)
async def test_maildev_delete_all_mail(app: Running, server_log: object) -> None:
    assert len(json.loads(fetch(app.url("/api/email")))) == 45
    async with on_page(server_log, app, "/") as client:
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


@pytest.mark.parametrize("app", ["maildev"], indirect=True)
async def test_maildev_message_views_are_one_tool_that_stays(app: Running, server_log: object) -> None:
    async with on_page(server_log, app, "/") as client:
        search, [query] = await tool_taking(client, ("query", "search"))
        await call_text(client, search.name, {query: "Contract draft"})  # two rows or more: a list
        opener, [row] = await tool_taking(client, ("row",))
        await call_text(client, opener.name, {row: "Contract draft v1042"})
        switch, [view] = await tool_taking(client, ("view",))
        views = switch.input_schema["properties"][view]["enum"]
        assert {"Plain Text", "Headers", "Source"} <= set(views)
        listed, changes = await client.tools(), client.changes
        headers = await call_text(client, switch.name, {view: "Headers"})
        assert "mime-version" in headers.lower(), headers  # the headers view is what the page shows now
        await call_text(client, switch.name, {view: "Plain Text"})
        # from one view to another: no tool came or went, no list_changed
        assert client.changes == changes and await client.tools() == listed


@pytest.mark.parametrize("app", ["mkdocs"], indirect=True)
async def test_mkdocs_material_site_search(app: Running, server_log: object) -> None:
    async with on_page(server_log, app, "/guide/installation/") as client:
        search, [query, result] = await tool_taking(client, ("query", "search"), ("result",))
        # the page's own results, shown in its search dialog as the query is typed (no submit)
        found = await call_text(client, search.name, {query: "conflict"})
        assert "Syncing" in found and "Troubleshooting" in found and "/guide/syncing/" in found
        assert "/guide/installation/" in found.split("results", 1)[0]  # the page stayed where it was
        # the same query again (the page changes nothing) with a result to open: the page it opens answers
        opened = await call_text(client, search.name, {query: "conflict", result: "Troubleshooting"})
        assert "/guide/troubleshooting/" in opened and "title: Troubleshooting - Skylark Docs" in opened
        assert "navigated: true" in opened


@pytest.mark.parametrize("app", ["wagtail"], indirect=True)
async def test_wagtail_log_in_search_and_save_a_draft(app: Running, server_log: object) -> None:
    async with on_page(server_log, app, "/admin/login/") as client:
        login, [user, password] = await tool_taking(client, ("username",), ("password",))
        await call_text(client, login.name, {user: "admin", password: "corpus-cms"})

        await client.call_ok("navigate", {"url": app.url("/admin/")})
        # the sidebar's search and the dashboard's are twins (bench.apps report flags them)
        search, [query] = await tool_taking(client, ("query", "search"), first=True)
        found = await call_text(client, search.name, {query: "glacier"})
        assert "of the Glacier" in found

        await client.call_ok("navigate", {"url": app.url("/admin/pages/4/edit/")})
        save, [title, day, intro] = await tool_taking(client, ("title",), ("date",), ("intro",))
        # the fields the page served filled (title, date) are not asked for again: omitted, they keep their values
        assert not {title, day} & set(save.input_schema.get("required", []))
        await call_text(client, save.name, {intro: "Notes from a foggy morning at the harbor."})
    with sqlite3.connect(app.data / "db.sqlite3") as db:
        [(content,)] = db.execute(
            "SELECT content FROM wagtailcore_revision WHERE object_id = '4' ORDER BY id DESC LIMIT 1").fetchall()
    saved = json.loads(content)
    assert saved["intro"] == "Notes from a foggy morning at the harbor."
    assert (saved["title"], saved["date"]) == ("Birds of the Harbor", "2026-01-05")
