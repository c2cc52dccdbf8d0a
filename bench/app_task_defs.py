"""The scripted tasks on the real-app corpus (bench/apps): what the user asks, in which app, and how it is
checked.

Each task names its app, the page the user points at and what they ask. Both servers' scripts return an
answer (what the model read); after the run, ``read_state`` reads the app's own state (its database, its
files, its API) and ``check(answer, state)`` lists what is wrong, the same for both servers. The
expected values come from the apps' seed data (bench/apps/NAME/): when that data changes, the check
says so.
"""

from __future__ import annotations

import json
import re
import sqlite3
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.apps.runner import Running

# flaskadmin (bench/apps/flaskadmin/host.py): ten titles with "Lighthouse"; one is deleted
BOOK_QUERY = "Lighthouse"
BOOK_DELETE = "The Hollow Lighthouse"
BOOK_MATCHES = 10

# sqliteweb (bench/apps/sqliteweb/seed.py): the customer's orders
SHOP_PASSWORD = "corpus-data"
CUSTOMER = "Leila Grant"
CUSTOMER_ORDERS = 6

# otterwiki (bench/apps/otterwiki/seed.py): the runbook gets one more step
WIKI_EMAIL, WIKI_PASSWORD = "ada@example.org", "corpus-wiki"
WIKI_QUERY = "failover"
WIKI_PAGE = "Database Failover"
WIKI_FILE = "runbooks/database failover.md"
WIKI_LINE = "5. Tell the on-call channel the replica was promoted."

# roundup (bench/apps/roundup/seed.py): five issues "Webhook retries never stop", (2) … (5)
TRACKER_USER, TRACKER_PASSWORD = "alice", "corpus-tracker"
ISSUE_QUERY = "webhook retries"
ISSUE_TITLE = "Webhook retries never stop"
ISSUE_COMMENT = "Seen again on staging: retries stop after the fix in build 2.1.0."

# maildev (bench/apps/maildev/__init__.py): Priya Raman sends the four contract drafts, v1006 … v1042
MAIL_FROM = "Priya Raman"
MAIL_ABOUT = "contract draft"

# mkdocs (bench/apps/mkdocs/docs/guide/configuration.md)
DOCS_QUESTION = "limit the upload bandwidth"
DOCS_QUERY = "bandwidth"
DOCS_ANSWER = "max_upload_rate"
DOCS_ANSWER_HINT = "matching document"  # the search's result list says so when it found any

# wagtail (bench/apps/wagtail/seed.py): the story with a draft waiting among the glacier stories
CMS_USER, CMS_PASSWORD = "admin", "corpus-cms"
CMS_QUERY = "glacier"
CMS_STORY = "Tides of the Glacier (2)"
CMS_INTRO = "Notes from a windy morning on the glacier."


@dataclass(frozen=True)
class AppTask:
    key: str
    app: str  # bench/apps/NAME
    title: str  # what the user asks for
    path: str  # the page the user points the model at, under the app's base URL
    read_state: Callable[[Running], dict[str, Any]]  # the app's own state after the run
    check: Callable[[dict[str, Any], dict[str, Any]], list[str]]  # (answer, state) → problems; none = success
    checks: str  # the check in words, for the report


def _rows(live: Running, db: str, sql: str, *args: object) -> list[tuple[Any, ...]]:
    with sqlite3.connect(live.data / db) as conn:
        return conn.execute(sql, args).fetchall()


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return str(response.read().decode("utf-8", "replace"))


# ------------------------------------------------------------------ flaskadmin


def _books_state(live: Running) -> dict[str, Any]:
    titles = [t for (t,) in _rows(live, "library.db", "SELECT title FROM book WHERE title LIKE ?", f"%{BOOK_QUERY}%")]
    return {"titles": sorted(titles)}


def _books_check(a: dict[str, Any], s: dict[str, Any]) -> list[str]:
    problems = []
    if BOOK_DELETE in s["titles"]:
        problems.append(f"{BOOK_DELETE!r} is still in the database")
    if len(s["titles"]) != BOOK_MATCHES - 1:
        problems.append(f"{len(s['titles'])} {BOOK_QUERY} books left, expected {BOOK_MATCHES - 1}: {s['titles']}")
    if a.get("found") != BOOK_MATCHES:
        problems.append(f"the search listed {a.get('found')} books, the library has {BOOK_MATCHES}")
    return problems


# ------------------------------------------------------------------ sqliteweb


def _orders_state(live: Running) -> dict[str, Any]:
    sql = "SELECT COUNT(*) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.name = ?"
    return {"orders": _rows(live, "shop.db", sql, CUSTOMER)[0][0]}


def _orders_check(a: dict[str, Any], s: dict[str, Any]) -> list[str]:
    problems = []
    if s["orders"] != CUSTOMER_ORDERS:
        problems.append(f"the database has {s['orders']} orders of {CUSTOMER}, the seed {CUSTOMER_ORDERS}")
    if a.get("orders") != s["orders"]:
        problems.append(f"answered {a.get('orders')} orders, the database has {s['orders']}")
    return problems


# ------------------------------------------------------------------ otterwiki


def _wiki_state(live: Running) -> dict[str, Any]:
    path = live.data / "repo" / WIKI_FILE
    return {"text": path.read_text() if path.exists() else ""}


def _wiki_check(a: dict[str, Any], s: dict[str, Any]) -> list[str]:
    text = s["text"]
    problems = []
    if WIKI_LINE not in text:
        problems.append(f"the page's file lacks the new line: {text[-300:]!r}")
    if "Promote the replica" not in text:
        problems.append("the page's own steps are gone")
    return problems


# ------------------------------------------------------------------ roundup


def _issues_state(live: Running) -> dict[str, Any]:
    # the issues' titles and ids from the index page (200 to a page), the comment from each issue's page
    found = re.findall(r'href="issue(\d+)">([^<]*)</a>', _get(live.url("/issue?@columns=title&@pagesize=200")))
    ids = sorted(int(i) for i, t in found if t.startswith(ISSUE_TITLE))
    commented = [i for i in ids if ISSUE_COMMENT in _get(live.url(f"/issue{i}"))]
    return {"ids": ids, "commented": commented}


def _issues_check(a: dict[str, Any], s: dict[str, Any]) -> list[str]:
    if not s["ids"]:
        return [f"no issue titled {ISSUE_TITLE!r} in the tracker"]
    newest = max(s["ids"])
    problems = []
    if s["commented"] != [newest]:
        problems.append(f"the comment is on issue(s) {s['commented']}, expected the newest, {newest}")
    if a.get("found") != len(s["ids"]):
        problems.append(f"the search listed {a.get('found')} issues, the tracker has {len(s['ids'])}")
    return problems


# ------------------------------------------------------------------ maildev


def _mail_state(live: Running) -> dict[str, Any]:
    mails = json.loads(_get(live.url("/api/email")))
    mine = [m for m in mails if any(f.get("name") == MAIL_FROM for f in m.get("from", []))
            and MAIL_ABOUT.lower() in m.get("subject", "").lower()]
    return {"mails": [{"subject": m["subject"], "text": m.get("text", "")} for m in mine]}


def _mail_check(a: dict[str, Any], s: dict[str, Any]) -> list[str]:
    if not s["mails"]:
        return [f"no mail from {MAIL_FROM} about {MAIL_ABOUT!r} in MailDev"]
    subjects = {m["subject"]: m["text"] for m in s["mails"]}
    subject = a.get("subject", "")
    newest = s["mails"][-1]["subject"]  # MailDev's API lists the mail in the order it came
    if subject != newest:
        return [f"opened {subject!r}, not the newest of {sorted(subjects)}: {newest!r}"]
    body = " ".join(str(a.get("body", "")).split())
    problems = []
    for want in ("Details below", subject):
        if want not in body:
            problems.append(f"the body read lacks {want!r}: {body[:300]!r}")
    return problems


# ------------------------------------------------------------------ mkdocs


def _docs_state(live: Running) -> dict[str, Any]:
    return {}


def _docs_check(a: dict[str, Any], s: dict[str, Any]) -> list[str]:
    answer = str(a.get("answer", ""))
    problems = []
    if DOCS_ANSWER not in answer:
        problems.append(f"the answer lacks the option {DOCS_ANSWER!r}: {answer[:300]!r}")
    if "configuration" not in str(a.get("page", "")).lower():
        problems.append(f"the answer does not come from the Configuration page: {a.get('page')!r}")
    return problems


# ------------------------------------------------------------------ wagtail


def _cms_state(live: Running) -> dict[str, Any]:
    found = _rows(live, "db.sqlite3", "SELECT id, has_unpublished_changes FROM wagtailcore_page WHERE title = ?",
                  CMS_STORY)
    intros = {}
    for page_id, _ in found:
        rev = _rows(live, "db.sqlite3", "SELECT content FROM wagtailcore_revision WHERE object_id = ? "
                    "ORDER BY id DESC LIMIT 1", str(page_id))
        intros[page_id] = json.loads(rev[0][0]).get("intro") if rev else None
    return {"drafts": [i for i, draft in found if draft], "intros": intros}


def _cms_check(a: dict[str, Any], s: dict[str, Any]) -> list[str]:
    changed = sorted(i for i, intro in s["intros"].items() if intro == CMS_INTRO)
    problems = []
    if len(s["drafts"]) != 1:
        return [f"{len(s['drafts'])} pages titled {CMS_STORY!r} have a draft, the seed has one"]
    if changed != s["drafts"]:
        problems.append(f"the new intro is in the newest revision of {changed}, expected {s['drafts']}")
    return problems


TASKS = {
    t.key: t
    for t in (
        AppTask("admin", "flaskadmin",
                f'Admin: find the books with "{BOOK_QUERY}" in the title and delete "{BOOK_DELETE}"',
                "/admin/book/", _books_state, _books_check,
                f"the search listed the {BOOK_MATCHES} {BOOK_QUERY} books; the database no longer has "
                f"{BOOK_DELETE!r} and still has the other {BOOK_MATCHES - 1}"),
        AppTask("data", "sqliteweb",
                f'Data browser: log in (password "{SHOP_PASSWORD}") and count the orders of {CUSTOMER}',
                "/login/", _orders_state, _orders_check,
                f"the count answered is the database's ({CUSTOMER_ORDERS})"),
        AppTask("wiki", "otterwiki",
                f"Wiki: log in ({WIKI_EMAIL}), find the page about {WIKI_QUERY} and add the line "
                f'"{WIKI_LINE}"',
                "/-/login", _wiki_state, _wiki_check,
                "the page's Markdown file in the wiki's git repository has the new line and its own steps"),
        AppTask("tracker", "roundup",
                f'Tracker: log in ({TRACKER_USER}), find the issues about "{ISSUE_QUERY}" and comment on the '
                "newest", "/", _issues_state, _issues_check,
                "the search listed every issue so titled (5); the comment is on the newest of them and on no "
                "other (each issue's page, over HTTP)"),
        AppTask("mail", "maildev",
                f"Webmail: find the newest mail from {MAIL_FROM} about the {MAIL_ABOUT} and read it", "/",
                _mail_state, _mail_check,
                f"the message opened is the newest MailDev's API lists from {MAIL_FROM} about the {MAIL_ABOUT}; "
                "the body read has its text"),
        AppTask("docs", "mkdocs", f"Docs: find how to {DOCS_QUESTION}", "/", _docs_state, _docs_check,
                f"the answer names `{DOCS_ANSWER}` and comes from the Configuration page"),
        AppTask("cms", "wagtail",
                f'CMS: log in ({CMS_USER}), find the story "{CMS_STORY}" that has a draft waiting and set its '
                f'intro to "{CMS_INTRO}" (saved as a draft)',
                "/admin/login/", _cms_state, _cms_check,
                "the newest revision of that story (the only one so titled with a draft) has the new intro"),
    )
}
