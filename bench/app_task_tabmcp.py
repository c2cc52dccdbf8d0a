"""The real-app tasks with tabmcp's page tools, chosen the way a model chooses them.

The script knows the task (what the user asked, with the names and texts it gave) and nothing of the
app: each step reads the tool list the model has at that moment (``Meter.listed``) and picks the page
tool whose title or description says what it wants, and the arguments by their names or descriptions.
It reads results as text, as a model does. Where no page tool does the step (or the one there does not
do it), it does what a model would then do with the generic tools (``snapshot``, ``interact``) and
records it as a workaround (``Meter.workaround``): those steps are what the introspectors still miss.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from toon_format import decode

from bench import app_task_defs as d
from bench.task_meter import CORE, Meter, TaskFailed

Script = Callable[[Meter, str], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class Picked:
    name: str
    args: list[str]


def _words(tool: dict[str, Any]) -> str:
    return f"{tool.get('name', '')} {tool.get('title', '')} {tool.get('description', '')}".lower().replace("_", " ")


def _argument(tool: dict[str, Any], words: tuple[str, ...]) -> str | None:
    for name, prop in tool.get("inputSchema", {}).get("properties", {}).items():
        text = f"{name} {prop.get('description', '')}".lower().replace("_", " ")
        if any(w in text for w in words):
            return str(name)
    return None


def pick(m: Meter, says: tuple[str, ...] = (), takes: tuple[tuple[str, ...], ...] = ()) -> Picked | None:
    """The first page tool listed whose name, title or description has one of ``says`` and that has an
    argument for each group of ``takes`` (the first listed of several, as a model takes it)."""
    for name, tool in m.listed().items():
        if name in CORE:
            continue
        if says and not any(w in _words(tool) for w in says):
            continue
        args = [_argument(tool, group) for group in takes]
        if all(args):
            return Picked(name, [str(a) for a in args])
    return None


def need(m: Meter, what: str, says: tuple[str, ...] = (), takes: tuple[tuple[str, ...], ...] = ()) -> Picked:
    found = pick(m, says, takes)
    if not found:
        names = [n for n in m.listed() if n not in CORE]
        raise TaskFailed(f"no page tool to {what} among {names}")
    return found


def results(text: str) -> list[str]:
    """The ``results`` rows a page tool's answer lists (TOON, docs/page-agent.md §9), each as its text."""
    try:
        found = decode(text)
    except Exception:  # not TOON: the model finds no list in it
        return []
    rows = found.get("results", []) if isinstance(found, dict) else []
    if not isinstance(rows, list):
        return []
    # a table's rows come keyed by its column headers: their cells in order, as a list's items read
    return [" | ".join(map(str, r.values())) if isinstance(r, dict) else str(r) for r in rows]


def _field(text: str, key: str) -> str:
    """A top-level text field of a page tool's answer (TOON), as the model reads it; "" without one."""
    try:
        found = decode(text)
    except Exception:  # not TOON
        return ""
    value = found.get(key) if isinstance(found, dict) else None
    return value if isinstance(value, str) else ""


def _texts(text: str, key: str) -> list[str]:
    """A top-level field of a page tool's answer (TOON) that holds one text or a list of them; [] without it."""
    try:
        found = decode(text)
    except Exception:  # not TOON
        return []
    value = found.get(key) if isinstance(found, dict) else None
    items = value if isinstance(value, list) else [value]
    return [v for v in items if isinstance(v, str) and v]


async def start(m: Meter, url: str) -> str:
    text = await m.call("connect_browser", {"launch": True, "url": url})
    m.opened()
    return text


async def log_in(m: Meter, user: str, password: str) -> str:
    tool = need(m, "log in", ("log in", "login", "sign in"), (("password",),))
    args = {tool.args[0]: password}
    if user:
        named = _argument(m.listed()[tool.name], ("user", "email", "name", "login"))
        if not named or named == tool.args[0]:
            raise TaskFailed(f"{tool.name} takes no user name")
        args[named] = user
    return await m.call(tool.name, args)


async def generic(m: Meter, why: str, name: str, arguments: dict[str, Any]) -> str:
    """A generic tool where a page tool should have done the step: counted, and said why."""
    m.workaround(f"{name}: {why}")
    return await m.call(name, arguments)


def _refs(snapshot: str, role: str) -> list[tuple[str, str, str]]:
    """(ref, name, value) of the snapshot's rows with ``role`` (its TOON rows: ref,role,name,value,states)."""
    found = []
    for line in snapshot.splitlines():
        cells = [c.strip().strip('"') for c in re.split(r',(?=(?:[^"]*"[^"]*")*[^"]*$)', line.strip())]
        if len(cells) >= 4 and cells[1] == role:
            found.append((cells[0], cells[2], cells[3]))
    return found


# ------------------------------------------------------------------ the tasks


async def admin(m: Meter, url: str) -> dict[str, Any]:
    await start(m, url)
    search = need(m, "search the list", ("search",), (("query", "search"),))
    listed = await m.call(search.name, {search.args[0]: d.BOOK_QUERY})
    found = sum(1 for row in results(listed) if d.BOOK_QUERY.lower() in row.lower())
    delete = need(m, "delete a row", ("delete",), (("row",),))
    answer = await m.call(delete.name, {delete.args[0]: d.BOOK_DELETE})
    return {"found": found, "result": answer}


async def data(m: Meter, url: str) -> dict[str, Any]:
    await start(m, url)
    await log_in(m, "", d.SHOP_PASSWORD)
    run = need(m, "run SQL", (), (("sql", "query"),))
    sql = ("SELECT COUNT(*) FROM orders o JOIN customers c ON c.id = o.customer_id "
           f"WHERE c.name = '{d.CUSTOMER}'")
    answer = await m.call(run.name, {run.args[0]: sql})
    count = re.search(r"COUNT\(\*\)\s+(\d+)", answer)
    return {"orders": int(count.group(1)) if count else None, "result": answer}


async def wiki(m: Meter, url: str) -> dict[str, Any]:
    await start(m, url)
    await log_in(m, d.WIKI_EMAIL, d.WIKI_PASSWORD)
    search = need(m, "search the wiki", ("search",), (("query", "search"),))
    found = await m.call(search.name, {search.args[0]: d.WIKI_QUERY})
    page = re.search(rf"([\w/ -]*{d.WIKI_PAGE})", found)
    if not page:
        raise TaskFailed(f"the search does not name the page about {d.WIKI_QUERY}:\n{found[:1500]}")
    opener = pick(m, ("open",), (("page", "name", "title"),))
    if opener:
        await m.call(opener.name, {opener.args[0]: page.group(1).strip()})
    else:
        link = f"role=link[name={page.group(1).strip()}]"
        await generic(m, "the search's results are names, no tool opens one", "interact",
                      {"target": link, "action": "click"})
    edit = need(m, "edit the page", ("edit",))
    opened = await m.call(edit.name, {})
    save = need(m, "save the page", ("save",))
    content = _argument(m.listed()[save.name], ("content", "text", "body", "markdown", "editor"))
    commit = _argument(m.listed()[save.name], ("commit", "message", "summary"))
    args = {commit: "Add a step"} if commit else {}
    held = _field(opened, "editor")
    if content and held:  # the editor's text is in the answer: the model sends it back with the line added
        args[content] = held.rstrip("\n") + "\n" + d.WIKI_LINE + "\n"
        return {"result": await m.call(save.name, args)}
    why = ("the save tool takes no content (the page's code editor is no argument)" if not content
           else "the page's answer does not say what its editor holds")
    snap = await generic(m, why, "snapshot", {"mode": "interactive"})
    editor = next((ref for ref, _, value in _refs(snap, "textbox") if "Promote the replica" in value), None)
    if not editor:
        raise TaskFailed(f"no editor holding the page's text in the snapshot:\n{snap[:2000]}")
    await generic(m, why, "interact", {"target": editor, "action": "press", "key": "Control+End"})
    await generic(m, why, "interact", {"target": editor, "action": "type", "text": "\n" + d.WIKI_LINE})
    answer = await m.call(save.name, args)
    return {"result": answer}


async def tracker(m: Meter, url: str) -> dict[str, Any]:
    await start(m, url)
    await log_in(m, d.TRACKER_USER, d.TRACKER_PASSWORD)
    search = need(m, "search the issues", ("search",), (("query", "search"),))
    listed = await m.call(search.name, {search.args[0]: d.ISSUE_QUERY})
    cells = [row.split(" | ") for row in results(listed)]
    ids = [int(c[0]) for c in cells if c[0].isdigit() and any(x.startswith(d.ISSUE_TITLE) for x in c)]
    if not ids:
        raise TaskFailed(f"no issue listed for {d.ISSUE_QUERY!r}:\n{listed[:1500]}")
    show = need(m, "open an issue", ("issue",), (("number", "id"),))
    await m.call(show.name, {show.args[0]: str(max(ids))})
    change = need(m, "comment on the issue", (), (("note", "message", "comment"),))
    answer = await m.call(change.name, {change.args[0]: d.ISSUE_COMMENT})
    return {"found": len(ids), "result": answer}


async def mail(m: Meter, url: str) -> dict[str, Any]:
    await start(m, url)
    search = need(m, "search the mail", ("search",), (("query", "search"),))
    listed = await m.call(search.name, {search.args[0]: d.MAIL_ABOUT})
    subjects = re.findall(rf"({d.MAIL_ABOUT} v\d+)", listed, flags=re.IGNORECASE)
    if not subjects:
        raise TaskFailed(f"no mail listed about {d.MAIL_ABOUT!r}:\n{listed[:1500]}")
    newest = max(subjects, key=lambda s: int(s.rsplit("v", 1)[1]))
    opener = pick(m, ("open",), (("message", "mail", "row", "subject"),))
    if opener:
        opened = await m.call(opener.name, {opener.args[0]: newest})
        # a webmail shows the message's body in a frame of its own: the answer says what that frame shows
        shown = " ".join(_texts(opened, "frame"))
        if not shown:  # the message opened; its body is not in the open tool's answer: read it
            why = "the opened message's body is not in the open tool's answer"
            shown = await generic(m, why, "snapshot", {"find": newest})
    else:
        why = "the list's rows are no tool argument: nothing opens a message"
        found = await generic(m, why, "snapshot", {"find": newest})
        row = re.search(r"^\s*(e\d+),", found, flags=re.M)
        if not row:
            raise TaskFailed(f"no row for {newest!r} in the snapshot:\n{found[:1500]}")
        await generic(m, why, "interact", {"target": row.group(1), "action": "click"})
        shown = await generic(m, why, "snapshot", {"find": newest})
    return {"subject": newest, "body": shown}


async def docs(m: Meter, url: str) -> dict[str, Any]:
    await start(m, url)
    search = need(m, "search the docs", ("search",), (("query", "search"),))
    found = await m.call(search.name, {search.args[0]: d.DOCS_QUERY})
    rows = results(found)
    line = next((r for r in rows if d.DOCS_ANSWER in r), "")
    opens = _argument(m.listed()[search.name], ("opens", "result"))
    topical = next((r for r in rows if d.DOCS_QUERY in r.lower()), "")
    if not line and opens and topical:  # the rows name the page, not the option: open the one about it
        shown = await m.call(search.name, {search.args[0]: d.DOCS_QUERY, opens: topical.split(" | ")[0]})
        line = next((ln for ln in shown.splitlines() if d.DOCS_ANSWER in ln), "")
    if not line:
        why = "the search tool submits the box as a form: the page's live search results are not in its answer"
        await generic(m, why, "navigate", {"url": url})  # the submitted form's page has no live search
        for _ in range(3):  # the page's search index loads in a worker: no matches yet, wait and type again
            await generic(m, why, "interact",
                          {"target": "role=textbox[name=Search]", "action": "fill", "text": d.DOCS_QUERY})
            found = await generic(m, why, "snapshot", {"find": d.DOCS_ANSWER_HINT})
            if "no matches" not in found:
                break
            await generic(m, why, "wait_for", {"timeMs": 1000})
        line = next((ln for ln in found.splitlines() if d.DOCS_ANSWER in ln), found)
    return {"answer": line, "page": line}


async def cms(m: Meter, url: str) -> dict[str, Any]:
    await start(m, url)
    await log_in(m, d.CMS_USER, d.CMS_PASSWORD)
    search = need(m, "search the pages", ("search",), (("query", "search"),))
    listed = await m.call(search.name, {search.args[0]: d.CMS_QUERY})
    # the title cell may show more after the title (Wagtail's search lists each page's parent under it)
    rows = [r for r in results(listed) if f'{r.split(" | ")[0]} '.startswith(f"{d.CMS_STORY} ")]
    draft = next((i for i, r in enumerate(rows) if "draft" in r), None)
    if draft is None:
        raise TaskFailed(f"no {d.CMS_STORY!r} with a draft listed:\n{listed[:1500]}")
    opener = pick(m, ("open", "edit"), (("page", "row", "title"),))
    if opener:
        await m.call(opener.name, {opener.args[0]: rows[draft]})
    else:
        why = "the search's rows are no tool argument: nothing opens a page"
        found = await generic(m, why, "snapshot", {"find": d.CMS_STORY})
        links = re.findall(r"^\s*(e\d+),link,", found, flags=re.M)
        if len(links) != len(rows):
            raise TaskFailed(f"{len(rows)} rows listed, {len(links)} links in the snapshot:\n{found[:1500]}")
        await generic(m, why, "interact", {"target": links[draft], "action": "click"})
    save = need(m, "save a draft", ("draft",), (("intro",),))
    tool = m.listed()[save.name]
    args: dict[str, Any] = {save.args[0]: d.CMS_INTRO}
    title = _argument(tool, ("title",))
    if title:
        args[title] = d.CMS_STORY  # the task gives it
    schema = tool.get("inputSchema", {})
    missing = [a for a in schema.get("required", []) if a not in args]
    if missing:  # the page has them filled already; the model reads them to send them back
        why = f"the form's tool requires fields the page has filled already ({', '.join(missing)})"
        snap = await generic(m, why, "snapshot", {"mode": "interactive"})
        values = {name.rstrip("*").strip().lower(): value for _, name, value in _refs(snap, "textbox")}
        for a in missing:
            label = str(schema["properties"][a].get("description", a)).rstrip("*").strip().lower()
            if label not in values:
                raise TaskFailed(f"{save.name} requires {a!r}; the page shows no {label!r}:\n{snap[:2000]}")
            args[a] = values[label]
    answer = await m.call(save.name, args)
    return {"result": answer}


SCRIPTS: dict[str, Script] = {
    "admin": admin, "data": data, "wiki": wiki, "tracker": tracker, "mail": mail, "docs": docs, "cms": cms,
}
