"""Gmail-style mail: compose, search, list, open, archive and mark as read.

Matches ``https://mail.google.com/mail/*`` and, by structure, any page built like Gmail's web
client (the bundled Mailbox demo, ``src/tabmcp/demo/sites/mail``, reproduces it). What each
selector comes from, in Gmail's own markup:

- conversation rows: ``tr.zA`` in ``table.F`` (unread rows add ``zE``, read ones ``yO``). Each row
  has a checkbox ``div[role=checkbox]``, the sender ``span[email]`` (``span.zF`` unread, ``span.yP``
  read), the subject ``span.bog`` wrapping ``span[data-legacy-thread-id]`` (the thread id Gmail
  keeps across re-renders, so a row is named by it, not by position), the snippet ``span.y2`` and
  the date in ``td.xW``. An empty list is ``td.TC`` ("No messages matched your search…").
- search: ``form[role=search]`` with ``input[name=q][aria-label="Search mail"]``; Enter routes to
  ``#search/<query>``.
- Compose: ``div[gh=cm]`` (``div[role=button].T-I.T-I-KE.L3`` "Compose") opens a ``div[role=dialog]``
  with ``input[aria-label="To recipients"]``, ``input[name=subjectbox]``, the body
  ``div[aria-label="Message Body"][contenteditable=true]`` and Send, ``div[role=button]`` whose
  aria-label starts with "Send" ("Send ‪(Ctrl-Enter)‬"); Gmail then says "Message sent".
- the list toolbar ``div[gh=tm]``: its buttons carry Gmail's action codes, ``div[act="7"]``
  Archive and ``div[act="1"]`` Mark as read (also their aria-labels); they show once a row is
  checked. Gmail confirms in a toast, ``span.bAq`` "Conversation archived." / "N conversations
  marked as read.".
- a conversation: subject ``h2.hP``, one ``div.adn`` per message with ``span.gD[email]`` (sender),
  ``span.go`` (address), ``span.g3`` (date), ``div.hb`` (recipients) and ``div.a3s`` (body).

Gmail's generated class names have been stable for years but are not a public API; the ones a
plan needs are listed here so a change on Gmail's side is a one-line fix.
"""

from __future__ import annotations

from dataclasses import dataclass

from lxml.etree import XPath
from lxml.html import HtmlElement

from introspectors.sitekit import (
    css_string,
    find,
    first,
    first_in,
    has_class,
    index_choice,
    index_model,
    indexes_model,
    pin,
    shown,
    with_class,
)
from tabmcp.introspect.api import (
    Arg,
    Introspector,
    PageTool,
    PlanStep,
    ToolHints,
    check,
    click,
    css,
    extract,
    fill,
    press,
    ref,
    role,
    uncheck,
    wait_for,
)
from tabmcp.introspect.search import SEARCH_BOXES
from tabmcp.page.capture import PageCapture
from tabmcp.protocol import Target

ROWS = f"//tr[{has_class('zA')}]"
ROW_CSS = "tr.zA"
MESSAGE_FIELDS = {"sender": "span[email]", "subject": "span.bog", "snippet": "span.y2", "date": "td.xW span"}
THREAD_MESSAGE_FIELDS = {
    "sender": "span.gD",
    "address": "span.go",
    "date": "span.g3",
    "to": "div.hb",
    "body": "div.a3s",
}
TO_FIELD = 'div[role=dialog] input[aria-label="To recipients"]'
SUBJECT_FIELD = "div[role=dialog] input[name=subjectbox]"
BODY_FIELD = 'div[role=dialog] div[aria-label="Message Body"][contenteditable=true]'
SEND_BUTTON = 'div[role=dialog] div[role=button][aria-label^="Send"]'
NOTICE = "span.bAq"  # the message of Gmail's toast ("Conversation archived.")
MAX_ROWS = 50
ROWS_NOTE = "Rows are numbered as listed now, 1 = top (see list_messages, search_inbox)."


@dataclass(frozen=True)
class _Row:
    """A listed conversation as a plan names it: its checkbox and its subject (which opens it)."""

    row: HtmlElement
    checkbox: Target | None
    opener: Target | None
    checked: bool


def looks_like_gmail(capture: PageCapture) -> bool:
    """Gmail's shape: a Compose button, the mail search box, and a mail list or conversation."""
    # cheapest test first: this runs on every page the server sees. The search boxes are a query the
    # generic introspectors make of every page anyway (every input named q is one of them).
    boxes = capture.select(SEARCH_BOXES)
    if not any(box.tag == "input" and box.get("name") == "q" and _in_search_form(box) for box in boxes):
        return False
    if not _COMPOSE(capture.tree):
        return False
    return bool(_MAIL_VIEW(capture.tree))


def _in_search_form(box: HtmlElement) -> bool:
    return any(a.tag == "form" and a.get("role") == "search" for a in box.iterancestors())


_COMPOSE = XPath(f"boolean(//@gh[.='cm'] | {with_class('T-I-KE')}[@role='button'])")
_MAIL_VIEW = XPath(f"boolean({ROWS} | //h2[{has_class('hP')}] | //td[{has_class('TC')}])")


class GmailIntrospector(Introspector):
    """Tools for the mail list (search, list, open, archive, mark as read) and Compose."""

    def tools(self, capture: PageCapture) -> list[PageTool]:
        if not looks_like_gmail(capture):
            return []  # a mail.google.com page that is not the mail client (settings, a popout)
        tools = [t for t in (_search_inbox(capture), _compose_email(capture)) if t is not None]
        rows = _rows(capture)
        if rows:
            tools += [_open_thread(capture, rows), _list_messages()]
            for act, label in (("7", "Archive"), ("1", "Mark as read")):
                button = _toolbar_button(capture, act, label)
                if button is not None:
                    tools.append(_selection_tool(capture, rows, act, label, button))
        return tools


# ----------------------------------------------------------------- the list


def _rows(capture: PageCapture) -> list[_Row]:
    rows = [r for r in find(capture, ROWS) if shown(r)][:MAX_ROWS]
    all_ids = [e.get("data-legacy-thread-id") for e in find(capture, f"{ROWS}//*[@data-legacy-thread-id]")]
    named = []
    for row in rows:
        box = first_in(row, ".//*[@role='checkbox']")
        subject = first_in(row, ".//*[@data-legacy-thread-id]")
        thread = subject.get("data-legacy-thread-id") if subject is not None else None
        if thread and all_ids.count(thread) == 1:
            key = f"{ROW_CSS}:has([data-legacy-thread-id={css_string(thread)}])"
            checkbox = css(f"{key} [role=checkbox]")
            opener = css(f"{ROW_CSS} [data-legacy-thread-id={css_string(thread)}]")
        else:  # no thread id to name it by (or a duplicate, as in a hidden copy of the list): its refs
            box_ref, row_ref = capture.ref(box) if box is not None else None, capture.ref(row)
            checkbox, opener = (ref(box_ref) if box_ref else None), (ref(row_ref) if row_ref else None)
        named.append(_Row(row, checkbox, opener, box is not None and box.get("aria-checked") == "true"))
    return named


def _list_messages() -> PageTool:
    return PageTool(
        name="list_messages",
        title="List messages",
        description="List the conversations shown now, top first (row 1 first): sender, subject, snippet, date.",
        input_schema={"type": "object", "properties": {}, "additionalProperties": False},
        plan=(extract("messages", ROW_CSS, fields=MESSAGE_FIELDS, limit=MAX_ROWS),),
        hints=ToolHints(read_only=True, idempotent=True, open_world=False),
        rank=35,
    )


def _search_inbox(capture: PageCapture) -> PageTool | None:
    form = first(capture, "//form[@role='search'][.//input[@name='q']]")
    if form is None or not shown(form):
        return None
    box = css('form[role=search] input[name="q"]')
    return PageTool(
        name="search_inbox",
        title="Search mail",
        description=(
            "Search the mailbox with Gmail search syntax (words, from:, to:, subject:, is:unread, in:sent, OR). "
            "Returns the matching conversations in list order: sender, subject, snippet, date."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "description": "What to search for, e.g. from:priya invoice",
                },
            },
            "required": ["query"],
            "additionalProperties": False,
        },
        plan=(
            fill(box, Arg("query")),
            press("Enter", box),
            wait_for(target=css(f"{ROW_CSS}, td.TC")),
            extract("messages", ROW_CSS, fields=MESSAGE_FIELDS, limit=MAX_ROWS),
        ),
        hints=ToolHints(read_only=True, idempotent=True, open_world=False),
        element_ref=capture.ref(form),
        rank=10,
    )


def _open_thread(capture: PageCapture, rows: list[_Row]) -> PageTool:
    grid = first_in(rows[0].row, "ancestor::table[1]")
    return PageTool(
        name="open_thread",
        title="Open conversation",
        description=(
            "Open a conversation from the list and read it (Gmail marks it read). "
            f"Returns its subject and messages: sender, address, date, recipients, body. {ROWS_NOTE}"
        ),
        input_schema=index_model("open_thread", "index", "Row number of the conversation"),
        plan=(
            click(index_choice("index", (r.opener for r in rows))),
            wait_for(target=css("h2.hP")),
            extract("subject", "h2.hP", limit=1),
            extract("messages", "div.adn", fields=THREAD_MESSAGE_FIELDS, limit=10),
        ),
        hints=ToolHints(idempotent=True, open_world=False),
        element_ref=capture.ref(grid) if grid is not None else None,
        rank=30,
    )


# ----------------------------------------------------------------- actions on checked rows


def _toolbar_button(capture: PageCapture, act: str, label: str) -> Target | None:
    """The list toolbar's button (``div[gh=tm]``) by Gmail's action code, else by its aria-label."""
    toolbar = "//*[@gh='tm']//*[@role='button']"
    by_act = find(capture, f"{toolbar}[@act=$act]", act=act)
    if by_act:
        return pin(capture, f'div[gh=tm] [role=button][act="{act}"]', by_act, by_act[0])
    by_label = find(capture, f"{toolbar}[@aria-label=$label]", label=label)
    if by_label:
        return pin(capture, f"div[gh=tm] [role=button][aria-label={css_string(label)}]", by_label, by_label[0])
    return None


def _selection_tool(capture: PageCapture, rows: list[_Row], act: str, label: str, button: Target) -> PageTool:
    """Check exactly the chosen rows (unchecking the ones a user left checked), then press the button."""
    archive = act == "7"
    clear = tuple(uncheck(r.checkbox) for r in rows if r.checked and r.checkbox is not None)
    steps: tuple[PlanStep, ...] = (
        *clear,
        check(index_choice("threads", (r.checkbox for r in rows))),
        click(button),
        wait_for(text="archived" if archive else "marked as read"),
        extract("notice", NOTICE, limit=1),
    )
    if archive:
        steps += (extract("messages", ROW_CSS, fields=MESSAGE_FIELDS, limit=MAX_ROWS),)
    what = "Archive" if archive else "Mark as read"
    result = (
        "Returns the confirmation and the list afterwards (rows renumbered)."
        if archive
        else "Returns the confirmation; the rows keep their numbers."
    )
    # archive_selected claims the whole list toolbar (its other buttons act on checked rows, which
    # only these tools can check); mark_as_read claims its own button inside it
    if archive:
        element = find(capture, "//*[@gh='tm']")
    else:
        element = find(
            capture, "//*[@gh='tm']//*[@role='button'][@act=$act or @aria-label=$label]", act=act, label=label
        )
    name = "archive_selected" if archive else "mark_as_read"
    return PageTool(
        name=name,
        title=what,
        description=(
            f"{what} the chosen conversations: checks their rows and presses {label}"
            f"{' (they leave the inbox, still found by search)' if archive else ''}. {result} {ROWS_NOTE}"
        ),
        input_schema=indexes_model(name, "threads", "Row numbers of the conversations"),
        plan=steps,
        hints=ToolHints(idempotent=not archive, open_world=False),
        element_ref=capture.ref(element[0]) if element else None,
        rank=40 if archive else 50,
    )


# ----------------------------------------------------------------- compose


def _compose_email(capture: PageCapture) -> PageTool | None:
    by_gh = find(capture, "//*[@gh='cm']")
    button = by_gh[0] if by_gh else first(capture, f"//*[@role='button'][{has_class('T-I-KE')}]")
    if button is None or not shown(button):
        return None
    opener = css("div[gh=cm]") if len(by_gh) == 1 else role("button", "Compose")
    # an open compose window is this tool's too (its Send, close and discard buttons)
    dialog = first(capture, "//*[@role='dialog'][.//input[@aria-label='To recipients']]")
    claimed = dialog if dialog is not None and shown(dialog) else button
    return PageTool(
        name="compose_email",
        title="Compose email",
        description=(
            "Write and send an email: opens Compose, fills To, Subject and the message, presses Send, "
            "and waits for Gmail's 'Message sent'. A bad address fails with Gmail's error; the draft stays open."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "to": {"type": "string", "minLength": 3, "description": "Recipient address(es), comma-separated"},
                "subject": {"type": "string", "description": "Subject line"},
                "body": {"type": "string", "description": "Message text (plain; newlines kept)"},
            },
            "required": ["to", "subject", "body"],
            "additionalProperties": False,
        },
        plan=(
            click(opener),
            wait_for(target=css(TO_FIELD)),
            fill(css(TO_FIELD), Arg("to")),
            fill(css(SUBJECT_FIELD), Arg("subject")),
            fill(css(BODY_FIELD), Arg("body")),
            click(css(SEND_BUTTON)),
            # Gmail says what is wrong (a bad address) in an alert dialog: that ends the wait at once
            wait_for(text="Message sent", timeout_ms=10_000, fail_when=css("[role=alertdialog]")),
        ),
        hints=ToolHints(open_world=True),
        element_ref=capture.ref(claimed),
        rank=20,
    )


INTROSPECTORS = [
    GmailIntrospector(
        name="mail_inbox", kind="site", url_patterns=["https://mail.google.com/mail/*"], predicate=looks_like_gmail
    )
]
