"""The real-app tasks with Playwright MCP's generic tools, the way a model does them.

As in bench/task_playwright.py (whose snapshot reader this uses): snapshot, find the control by role and
name, act on its ref, snapshot again to read what happened; plain fields are batched in one
``browser_fill_form``, a search is typed with ``submit``, refs from an earlier snapshot are reused while
their element lives, and the page is snapshotted only when the script needs refs it has not seen or
must read the outcome.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from bench import app_task_defs as d
from bench import aria_rows
from bench.aria_rows import AriaRow
from bench.task_meter import Meter, TaskFailed
from bench.task_playwright import Page, navigate, snapshot

Script = Callable[[Meter, str], Awaitable[dict[str, Any]]]


async def click(m: Meter, row: AriaRow, what: str = "") -> str:
    if not row.ref:
        raise TaskFailed(f"{row.role} {row.name!r} has no ref")
    return await m.call("browser_click", {"target": row.ref, "element": what or row.name[:80] or row.role})


async def type_in(
    m: Meter, row: AriaRow, text: str, *, submit: bool = False, what: str = "", slowly: bool = False
) -> None:
    args: dict[str, Any] = {"target": row.ref, "element": what or row.name or row.role, "text": text}
    if submit:
        args["submit"] = True
    if slowly:  # key by key: the page reacts to each key, not only to the box's new value
        args["slowly"] = True
    await m.call("browser_type", args)


async def fill(m: Meter, fields: list[tuple[AriaRow, str]]) -> None:
    await m.call("browser_fill_form", {"fields": [
        {"target": r.ref, "name": r.name or r.role, "type": "textbox", "value": v} for r, v in fields
    ]})


def textbox(page: Page, *words: str) -> AriaRow:
    """The first textbox (or searchbox) whose name has one of ``words`` (case-insensitive)."""
    for r in page.rows:
        if r.role in ("textbox", "searchbox") and r.ref and any(w in r.name.lower() for w in words):
            return r
    for row in page.find("row"):  # a form laid out as a table: the label is the row's header
        inside = aria_rows.subtree(page.rows, row)
        if any(r.role == "rowheader" and any(w in r.name.lower() for w in words) for r in inside):
            box = next((r for r in inside if r.role == "textbox" and r.ref), None)
            if box:
                return box
    raise TaskFailed(f"no textbox named like {words} in the snapshot:\n{page.text[:3000]}")


def button(page: Page, *words: str, within: AriaRow | None = None) -> AriaRow:
    rows = aria_rows.subtree(page.rows, within) if within else page.rows
    for r in rows:
        if r.role != "button" or not r.ref:
            continue
        name = (r.name or page.words(r)).strip().lower()  # unnamed: the text inside it
        if any(name == w or name.startswith(w) for w in words):
            return r
    raise TaskFailed(f"no button named like {words} in the snapshot:\n{page.text[:3000]}")


def boxes_beside(page: Page, control: AriaRow) -> list[AriaRow]:
    """The textboxes in the same group as ``control`` (a button): how a model reads unlabelled boxes."""
    i = page.rows.index(control)
    parent = next(r for r in reversed(page.rows[:i]) if r.depth < control.depth)
    return [r for r in aria_rows.subtree(page.rows, parent) if r.role in ("textbox", "searchbox") and r.ref]


async def log_in(m: Meter, page: Page, user: str, password: str, submit: tuple[str, ...]) -> Page:
    go = button(page, *submit)
    try:
        fields = [(textbox(page, "password"), password)]
        if user:
            fields.insert(0, (textbox(page, "user", "email", "name", "login"), user))
    except TaskFailed:  # unlabelled boxes beside the button: the user's name first, then the password
        boxes = boxes_beside(page, go)
        fields = [(boxes[-1], password)] + ([(boxes[0], user)] if user else [])
    await fill(m, fields)
    await click(m, go)
    return await snapshot(m)


def search_box(page: Page) -> AriaRow:
    """The search box: named so, or the unlabelled box beside a Search button."""
    try:
        return textbox(page, "search")
    except TaskFailed:
        boxes = boxes_beside(page, button(page, "search"))
        if not boxes:
            raise
        return boxes[0]


# ------------------------------------------------------------------ the tasks


async def admin(m: Meter, url: str) -> dict[str, Any]:
    page = await navigate(m, url)
    await type_in(m, textbox(page, "title", "search"), d.BOOK_QUERY, submit=True)
    page = await snapshot(m)
    rows = [r for r in page.find("row") if page.find("cell", within=r)]
    found = [r for r in rows if any(d.BOOK_QUERY in c.name for c in page.find("cell", within=r))]

    row = next((r for r in rows if page.find("cell", d.BOOK_DELETE, within=r)), None)
    if row is None:
        raise TaskFailed(f"no row for {d.BOOK_DELETE!r}:\n{page.text[:3000]}")
    # the row's unnamed button is its delete form's (the links beside it are view and edit)
    delete = next((b for b in page.find("button", within=row) if b.ref), None)
    try:
        if delete is None:
            raise TaskFailed("no delete button in the row")
        shown = await click(m, delete, f"delete {d.BOOK_DELETE}")
    except TaskFailed:
        # Playwright MCP cannot resolve the ref of that icon-only button ("Ref … not found in the current
        # page snapshot"): the model ticks the row and deletes through the list's "With selected" menu
        await click(m, page.one("checkbox", within=row), f"select {d.BOOK_DELETE}")
        await click(m, button(page, "with selected"))
        menu = await snapshot(m)
        shown = await click(m, next(r for r in menu.find("link") if r.name.strip().lower() == "delete"))
    if "dialog" in shown.lower():  # the app asks "Are you sure…?"
        await m.call("browser_handle_dialog", {"accept": True})
    page = await snapshot(m)
    return {"found": len(found), "result": page.words()}


async def data(m: Meter, url: str) -> dict[str, Any]:
    page = await navigate(m, url)
    await type_in(m, textbox(page, "password"), d.SHOP_PASSWORD, submit=True)
    page = await snapshot(m)
    sql = ("SELECT COUNT(*) FROM orders o JOIN customers c ON c.id = o.customer_id "
           f"WHERE c.name = '{d.CUSTOMER}'")
    await type_in(m, textbox(page, "sql", "query"), sql, what="SQL query")
    await click(m, button(page, "execute"))
    page = await snapshot(m)
    words = page.words()
    count = re.search(r"COUNT\(\*\)\s+(\d+)", words)
    return {"orders": int(count.group(1)) if count else None, "result": words}


async def wiki(m: Meter, url: str) -> dict[str, Any]:
    page = await navigate(m, url)
    page = await log_in(m, page, d.WIKI_EMAIL, d.WIKI_PASSWORD, ("login",))
    await type_in(m, search_box(page), d.WIKI_QUERY, submit=True)
    page = await snapshot(m)
    link = next((r for r in page.find("link") if d.WIKI_PAGE in r.name), None)
    if link is None:
        raise TaskFailed(f"no result for {d.WIKI_PAGE!r}:\n{page.text[:3000]}")
    await click(m, link)
    page = await snapshot(m)
    edit = next((r for r in page.find("link") + page.find("button") if r.name.lower().startswith("edit")), None)
    if edit is not None:
        await click(m, edit)
    else:  # the page's edit button is an icon with no name in the snapshot: the model tries the wiki's URL
        shown = re.search(r"Page URL: (\S+)", page.text)
        if not shown:
            raise TaskFailed(f"no Edit control and no page URL:\n{page.text[:3000]}")
        await m.call("browser_navigate", {"url": shown.group(1) + "/edit"})
    page = await snapshot(m)
    editor = next((r for r in page.rows if r.role == "textbox" and "Promote the replica" in page.words(r)), None)
    if editor is None:
        raise TaskFailed(f"no editor holding the page's text:\n{page.text[:3000]}")
    await click(m, editor, "the page's editor")
    await m.call("browser_press_key", {"key": "Control+End"})
    await m.call("browser_press_key", {"key": "Enter"})
    # typed key by key at the caret (``slowly``): a plain browser_type fills, replacing the whole page
    await m.call("browser_type", {"target": editor.ref, "element": "the page's editor", "text": d.WIKI_LINE,
                                  "slowly": True})
    # the toolbar's Save is an icon with no name in the snapshot: the editor's Ctrl+S opens the commit dialog
    await m.call("browser_press_key", {"key": "Control+s"})
    page = await snapshot(m)
    await type_in(m, textbox(page, "commit"), "Add a step", submit=True)
    page = await snapshot(m)
    return {"result": page.words()}


async def tracker(m: Meter, url: str) -> dict[str, Any]:
    page = await navigate(m, url)
    page = await log_in(m, page, d.TRACKER_USER, d.TRACKER_PASSWORD, ("login",))
    await type_in(m, search_box(page), d.ISSUE_QUERY, submit=True, what="Search")
    page = await snapshot(m)
    links = [r for r in page.find("link") if r.name.startswith(d.ISSUE_TITLE)]
    ids = []
    for r in links:
        url_row = next((u for u in aria_rows.subtree(page.rows, r)[1:] if u.role == "/url"), None)
        number = re.search(r"issue(\d+)", url_row.text) if url_row else None
        if number:
            ids.append((int(number.group(1)), r))
    if not ids:
        raise TaskFailed(f"no issue listed for {d.ISSUE_QUERY!r}:\n{page.text[:3000]}")
    await click(m, max(ids, key=lambda p: p[0])[1])
    page = await snapshot(m)
    await type_in(m, textbox(page, "change note", "note", "message"), d.ISSUE_COMMENT, what="Change Note")
    await click(m, button(page, "submit changes"))
    page = await snapshot(m)
    return {"found": len(ids), "result": page.words()}


async def mail(m: Meter, url: str) -> dict[str, Any]:
    page = await navigate(m, url)
    await type_in(m, search_box(page), d.MAIL_ABOUT, what="Search emails")
    await m.call("browser_wait_for", {"time": 1})  # the list filters as keys are typed, after a pause
    page = await snapshot(m)
    subjects = re.findall(rf"({d.MAIL_ABOUT} v\d+)", page.words(), flags=re.IGNORECASE)
    if not subjects:
        raise TaskFailed(f"no mail listed about {d.MAIL_ABOUT!r}:\n{page.text[:3000]}")
    newest = max(subjects, key=lambda s: int(s.rsplit("v", 1)[1]))

    def row_of(page: Page) -> AriaRow:
        kinds = ("link", "button", "listitem", "generic", "row")
        row = next((r for r in page.rows if r.ref and newest in r.name and r.role in kinds), None)
        if row is None:  # the subject is a text inside the clickable row
            text = next((r for r in page.rows if newest in (r.name + r.text)), None)
            if text is None:
                raise TaskFailed(f"no row for {newest!r} in the snapshot:\n{page.text[:3000]}")
            i = page.rows.index(text)
            row = next(r for r in reversed(page.rows[:i + 1]) if r.ref)
        return row

    try:
        await click(m, row_of(page), newest)
    except TaskFailed:  # the live list was drawn again after the snapshot: the model snapshots and retries
        page = await snapshot(m)
        await click(m, row_of(page), newest)
    page = await snapshot(m)
    return {"subject": newest, "body": page.words()}


async def docs(m: Meter, url: str) -> dict[str, Any]:
    page = await navigate(m, url)
    box = search_box(page)
    for attempt in range(3):  # the page's search index loads in a worker: no results yet, wait, type again
        if attempt:
            await type_in(m, box, "", what="Search")  # emptied, then typed key by key: a new search
        await type_in(m, box, d.DOCS_QUERY, what="Search", slowly=attempt > 0)
        page = await snapshot(m)
        if d.DOCS_ANSWER_HINT in page.words():
            break
        await m.call("browser_wait_for", {"time": 1})
    hit = next((r for r in page.rows if d.DOCS_ANSWER in (r.name + " " + r.text)), None)
    if hit is None:
        raise TaskFailed(f"no result names the option:\n{page.text[:3000]}")
    i = page.rows.index(hit)
    result = next((r for r in reversed(page.rows[:i + 1]) if r.role == "link" and r.depth < hit.depth), hit)
    where = next((r.text for r in aria_rows.subtree(page.rows, result) if r.role == "/url"), "")
    return {"answer": page.words(result), "page": f"{where} {page.words(result)}"}


async def cms(m: Meter, url: str) -> dict[str, Any]:
    page = await navigate(m, url)
    page = await log_in(m, page, d.CMS_USER, d.CMS_PASSWORD, ("sign in",))
    await type_in(m, search_box(page), d.CMS_QUERY, submit=True, what="Search")
    page = await snapshot(m)
    rows = [r for r in page.find("row") if page.find("link", within=r)]
    mine = [r for r in rows if any(link.name.startswith(d.CMS_STORY) for link in page.find("link", within=r))]
    draft = next((r for r in mine if "draft" in page.words(r)), None)
    if draft is None:
        raise TaskFailed(f"no {d.CMS_STORY!r} with a draft listed:\n{page.text[:3000]}")
    title = next(link for link in page.find("link", within=draft) if link.name.startswith(d.CMS_STORY))
    await click(m, title)
    page = await snapshot(m)
    await fill(m, [(textbox(page, "intro"), d.CMS_INTRO)])
    await click(m, button(page, "save draft"))
    page = await snapshot(m)
    return {"result": page.words()}


SCRIPTS: dict[str, Script] = {
    "admin": admin, "data": data, "wiki": wiki, "tracker": tracker, "mail": mail, "docs": docs, "cms": cms,
}
