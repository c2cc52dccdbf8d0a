"""The Gmail-style introspector (introspectors/mail_inbox.py) on the Mailbox demo as the page agent
captured it (tests/fixtures/captures, made by make_captures.py), and on small hand-written pages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from introspectors.mail_inbox import INTROSPECTORS, looks_like_gmail

from tabmcp.introspect.api import PageTool, PlanError, resolve_plan
from tabmcp.page.capture import PageCapture
from tabmcp.protocol import Step

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "captures"
INDEX = json.loads((CAPTURES / "captures.json").read_text(encoding="utf-8"))
MAIL = INTROSPECTORS[0]
# the seeded mailbox, newest first (src/tabmcp/demo/sites/mail/mailbox.js)
INBOX_IDS = [
    "18f3a2c4b5d6e701",  # Priya Raman, unread
    "18f3a11e07c2d9f4",  # Codehub, unread
    "18f38d5f61a0b2c3",  # Skyscan
    "18f2f0a9c4e5d6b7",  # Marcus Webb, unread
    "18f2b7d2e9a1c0f8",  # Lena Fischer
    "18f1e4c8b7a6d5e4",  # The Weekly Byte
    "18f0c2a1d3e4f5a6",  # Bank of Example
    "18efa9b8c7d6e5f4",  # Tomás Ortega, unread
]
UNREAD_IDS = [INBOX_IDS[i] for i in (0, 1, 3, 7)]
LIST_TOOLS = ["search_inbox", "compose_email", "open_thread", "list_messages", "archive_selected", "mark_as_read"]


def capture(state: str) -> PageCapture:
    meta = INDEX[state]
    return PageCapture(url=meta["url"], title=meta["title"], html=(CAPTURES / f"{state}.html").read_text("utf-8"))


def tools(state: str) -> dict[str, PageTool]:
    return {t.name: t for t in MAIL.tools(capture(state))}


def steps(tool: PageTool, **args: Any) -> list[dict[str, Any]]:
    return [s.model_dump(exclude_none=True) for s in resolve_plan(tool, args)]


def opener(thread: str) -> dict[str, str]:
    return {"css": f'tr.zA [data-legacy-thread-id="{thread}"]'}


def checkbox(thread: str) -> dict[str, str]:
    return {"css": f'tr.zA:has([data-legacy-thread-id="{thread}"]) [role=checkbox]'}


# ----------------------------------------------------------------- which tools, where


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        ("mail_inbox", LIST_TOOLS),
        ("mail_search", LIST_TOOLS),
        ("mail_compose", LIST_TOOLS),
        ("mail_selected", LIST_TOOLS),
        ("mail_search_empty", ["search_inbox", "compose_email"]),  # no rows: nothing to open or archive
        ("mail_thread", ["search_inbox", "compose_email"]),
    ],
)
def test_the_tools_follow_the_view(state: str, expected: list[str]) -> None:
    cap = capture(state)
    assert MAIL.matches(cap)
    assert [t.name for t in MAIL.tools(cap)] == expected


def test_row_numbers_count_the_rows_on_show_but_the_schema_does_not_change_with_them() -> None:
    """A search that lists 4 rows instead of 8 must not change the tools (a list_changed, and the
    client re-reads every tool): the count is checked when the tool is called."""
    inbox, search = tools("mail_inbox"), tools("mail_search")  # is:unread: 4 rows
    for name in ("open_thread", "list_messages", "archive_selected", "mark_as_read"):
        assert (inbox[name].schema, inbox[name].description) == (search[name].schema, search[name].description)
    assert "maximum" not in inbox["open_thread"].schema["properties"]["index"]
    assert len(steps(inbox["open_thread"], index=8)) > 0
    with pytest.raises(PlanError, match=r"index must be one of: 1, 2, 3, 4$"):
        steps(search["open_thread"], index=5)


def test_tools_claim_the_elements_they_drive() -> None:
    cap = capture("mail_inbox")
    found = tools("mail_inbox")
    claimed = {name: cap.by_ref(t.element_ref) for name, t in found.items() if t.element_ref}
    assert claimed["search_inbox"].get("role") == "search"
    assert claimed["compose_email"].get("gh") == "cm"
    assert claimed["open_thread"].tag == "table"
    assert claimed["archive_selected"].get("gh") == "tm"  # the whole list toolbar
    assert claimed["mark_as_read"].get("act") == "1"
    compose_open = capture("mail_compose")
    assert compose_open.by_ref(tools("mail_compose")["compose_email"].element_ref).get("role") == "dialog"


# ----------------------------------------------------------------- schemas and annotations


def test_schemas_say_what_each_argument_is() -> None:
    found = tools("mail_inbox")
    search = found["search_inbox"].schema
    assert search["required"] == ["query"] and search["properties"]["query"]["type"] == "string"
    compose = found["compose_email"].schema
    assert compose["required"] == ["to", "subject", "body"]
    assert all(p["type"] == "string" and p["description"] for p in compose["properties"].values())
    index = found["open_thread"].schema
    assert index["required"] == ["index"]
    assert index["properties"]["index"] | {"description": ""} == {
        "type": "integer",
        "minimum": 1,
        "description": "",
    }
    for name in ("archive_selected", "mark_as_read"):
        threads = found[name].schema["properties"]["threads"]
        assert threads["type"] == "array" and threads["minItems"] == 1
        assert threads["items"] == {"type": "integer", "minimum": 1}
        assert found[name].schema["required"] == ["threads"]
    for tool in found.values():
        assert tool.schema["additionalProperties"] is False
        assert len(tool.description) <= 300


def test_annotations() -> None:
    found = tools("mail_inbox")
    for name in ("search_inbox", "list_messages"):
        assert found[name].hints.read_only and found[name].hints.idempotent
    compose = found["compose_email"].hints
    assert not compose.read_only and not compose.destructive and not compose.idempotent and compose.open_world
    assert not found["open_thread"].hints.read_only  # opening marks the conversation read
    archive = found["archive_selected"].hints
    assert not archive.read_only and not archive.destructive and not archive.idempotent
    assert found["mark_as_read"].hints.idempotent and not found["mark_as_read"].hints.open_world


# ----------------------------------------------------------------- plans


def test_search_types_the_query_and_reads_the_rows() -> None:
    box = {"css": 'form[role=search] input[name="q"]'}
    assert steps(tools("mail_inbox")["search_inbox"], query="from:priya invoice") == [
        {"action": "fill", "target": box, "value": "from:priya invoice"},
        {"action": "press", "target": box, "key": "Enter"},
        {"action": "wait_for", "target": {"css": "tr.zA, td.TC"}, "condition": {"state": "visible"}},
        {
            "action": "extract",
            "target": {"css": "tr.zA"},
            "label": "messages",
            "fields": {"sender": "span[email]", "subject": "span.bog", "snippet": "span.y2", "date": "td.xW span"},
            "limit": 50,
        },
    ]


def test_compose_fills_the_dialog_and_waits_for_message_sent() -> None:
    plan = steps(
        tools("mail_inbox")["compose_email"], to="a@b.example, c@d.example", subject="Hi", body="Line 1\nLine 2"
    )
    assert plan[0] == {"action": "click", "target": {"css": "div[gh=cm]"}}
    assert plan[1]["action"] == "wait_for"
    fills = [(s["target"]["css"], s["value"]) for s in plan if s["action"] == "fill"]
    assert fills == [
        ('div[role=dialog] input[aria-label="To recipients"]', "a@b.example, c@d.example"),
        ("div[role=dialog] input[name=subjectbox]", "Hi"),
        ('div[role=dialog] div[aria-label="Message Body"][contenteditable=true]', "Line 1\nLine 2"),
    ]
    assert plan[-2] == {"action": "click", "target": {"css": 'div[role=dialog] div[role=button][aria-label^="Send"]'}}
    assert plan[-1] == {
        "action": "wait_for",
        "condition": {"text": "Message sent"},
        "timeoutMs": 10_000,
        "failWhen": {"css": "[role=alertdialog]"},  # Gmail's error (a bad address) ends the wait
    }


@pytest.mark.parametrize(("state", "ids"), [("mail_inbox", INBOX_IDS), ("mail_search", UNREAD_IDS)])
def test_open_thread_opens_the_row_at_that_position(state: str, ids: list[str]) -> None:
    tool = tools(state)["open_thread"]
    for position, thread in enumerate(ids, 1):
        plan = steps(tool, index=position)
        assert plan[0] == {"action": "click", "target": opener(thread)}
    plan = steps(tool, index=2)
    assert plan[1] == {"action": "wait_for", "target": {"css": "h2.hP"}, "condition": {"state": "visible"}}
    assert [(s["label"], s["target"]["css"]) for s in plan[2:]] == [("subject", "h2.hP"), ("messages", "div.adn")]
    assert set(plan[3]["fields"]) == {"sender", "address", "date", "to", "body"}


def test_archive_checks_exactly_the_chosen_rows_then_archives() -> None:
    plan = steps(tools("mail_inbox")["archive_selected"], threads=[3, 1])
    assert plan == [
        {"action": "check", "target": checkbox(INBOX_IDS[2]), "value": True},
        {"action": "check", "target": checkbox(INBOX_IDS[0]), "value": True},
        {"action": "click", "target": {"css": 'div[gh=tm] [role=button][act="7"]'}},
        {"action": "wait_for", "condition": {"text": "archived"}},
        {"action": "extract", "target": {"css": "span.bAq"}, "label": "notice", "limit": 1},
        {
            "action": "extract",
            "target": {"css": "tr.zA"},
            "label": "messages",
            "fields": {"sender": "span[email]", "subject": "span.bog", "snippet": "span.y2", "date": "td.xW span"},
            "limit": 50,
        },
    ]


def test_rows_a_user_left_checked_are_unchecked_first() -> None:
    # mail_selected: rows 2 and 4 were checked by hand before the capture
    plan = steps(tools("mail_selected")["mark_as_read"], threads=[1])
    assert plan[:3] == [
        {"action": "uncheck", "target": checkbox(INBOX_IDS[1])},
        {"action": "uncheck", "target": checkbox(INBOX_IDS[3])},
        {"action": "check", "target": checkbox(INBOX_IDS[0]), "value": True},
    ]
    assert plan[3] == {"action": "click", "target": {"css": 'div[gh=tm] [role=button][act="1"]'}}
    assert plan[4] == {"action": "wait_for", "condition": {"text": "marked as read"}}
    assert [s["label"] for s in plan if s["action"] == "extract"] == ["notice"]


def test_every_plan_resolves_to_valid_steps_in_every_state() -> None:
    args = {
        "search_inbox": {"query": "is:unread"},
        "compose_email": {"to": "x@y.example", "subject": "s", "body": "b"},
        "open_thread": {"index": 1},
        "list_messages": {},
        "archive_selected": {"threads": [1]},
        "mark_as_read": {"threads": [1, 2]},
    }
    for state in INDEX:
        if not state.startswith("mail_"):
            continue
        for tool in MAIL.tools(capture(state)):
            resolved = resolve_plan(tool, args[tool.name])
            assert resolved and all(isinstance(s, Step) for s in resolved), (state, tool.name)


# ----------------------------------------------------------------- bad arguments


@pytest.mark.parametrize(
    ("tool", "args", "message"),
    [
        ("open_thread", {"index": 9}, "index must be one of: 1, 2, 3, 4, 5, 6, 7, 8"),
        ("open_thread", {"index": 0}, "index: Input should be greater than or equal to 1"),
        ("open_thread", {"index": "two"}, "index must be an integer"),
        ("open_thread", {}, "missing required argument(s): index"),
        ("archive_selected", {"threads": []}, "threads: List should have at least 1 item"),
        ("archive_selected", {"threads": [2, 12]}, "threads must be one of: 1, 2, 3, 4, 5, 6, 7, 8"),
        ("mark_as_read", {"threads": 3}, "threads must be an array"),
        ("search_inbox", {"query": "x", "folder": "sent"}, "unknown argument(s) folder; expected: query"),
        ("compose_email", {"to": "x@y.example", "subject": "s"}, "missing required argument(s): body"),
    ],
)
def test_bad_arguments_are_plan_errors_a_model_can_act_on(tool: str, args: dict[str, Any], message: str) -> None:
    with pytest.raises(PlanError) as raised:
        resolve_plan(tools("mail_inbox")[tool], args)
    assert str(raised.value).startswith(f"{tool}: ")
    assert message in str(raised.value)


def test_numbers_as_text_are_accepted() -> None:
    plan = steps(tools("mail_inbox")["open_thread"], index="3")
    assert plan[0]["target"] == opener(INBOX_IDS[2])


# ----------------------------------------------------------------- matching


def test_gmail_urls_match_but_only_the_mail_client_gets_tools() -> None:
    settings = PageCapture(
        "https://mail.google.com/mail/u/0/#settings/general", "Settings", "<main><h1>Settings</h1></main>"
    )
    assert MAIL.matches(settings)
    assert MAIL.tools(settings) == []


def test_rows_in_hidden_views_are_not_listed_and_duplicates_fall_back_to_refs() -> None:
    # Gmail keeps earlier views in the DOM, hidden: the same thread can appear twice
    row = (
        '<tr class="zA zE" role="row" data-tabmcp-ref="{r}"{hidden}><td><div role="checkbox" aria-checked="false"'
        ' data-tabmcp-ref="{b}"></div></td><td><span email="a@b.example">A</span></td><td><span class="bog">'
        '<span data-legacy-thread-id="{t}">Subject {t}</span></span></td></tr>'
    )
    html = (
        '<div role="button" gh="cm" data-tabmcp-ref="e1">Compose</div>'
        '<form role="search" data-tabmcp-ref="e2"><input name="q" aria-label="Search mail" data-tabmcp-ref="e3"></form>'
        '<table class="F" role="grid" data-tabmcp-ref="e4"><tbody>'
        + row.format(r="e5", b="e6", t="aaa", hidden="")
        + row.format(r="e7", b="e8", t="bbb", hidden="")
        + "</tbody></table>"
        '<div hidden=""><table class="F"><tbody>'
        + row.format(r="e9", b="e10", t="aaa", hidden=' data-tabmcp-hidden="1"')
        + "</tbody></table></div>"
    )
    cap = PageCapture("https://mail.google.com/mail/u/0/#inbox", "Inbox", f"<html><body>{html}</body></html>")
    assert looks_like_gmail(cap)
    found = {t.name: t for t in MAIL.tools(cap)}
    with pytest.raises(PlanError, match=r"index must be one of: 1, 2$"):
        steps(found["open_thread"], index=3)  # the hidden view's row is not a third
    assert steps(found["open_thread"], index=1)[0]["target"] == {"ref": "e5"}  # "aaa" is in the DOM twice
    assert steps(found["open_thread"], index=2)[0]["target"] == opener("bbb")
    assert "archive_selected" not in found  # no list toolbar on this page


def test_the_predicate_wants_the_whole_gmail_shape() -> None:
    assert looks_like_gmail(capture("mail_thread"))
    old_demo = (Path(__file__).resolve().parents[2] / "src/tabmcp/demo/sites/mail.html").read_text("utf-8")
    # a search form alone (the older Postbox demo) is not Gmail
    assert not looks_like_gmail(PageCapture("http://127.0.0.1:8000/mail.html", "Postbox", old_demo))
