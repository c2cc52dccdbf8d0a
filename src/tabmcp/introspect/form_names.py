"""What a form is called and which of its buttons does what it is for: the form's name and title
from its purpose (``form_purpose``), its commit button (past "Preview" and "Cancel"), the button
the plan submits with, the hidden fields naming a posted form's verb, and the short endpoint a
description names. Shared by the form, search and WebMCP introspectors."""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

from lxml.html import HtmlElement

from tabmcp.introspect.purpose import heading_inside
from tabmcp.introspect.text import cap, clean, name_words, without_counters
from tabmcp.page.capture import PageCapture

MAX_TEXT = 120  # the longest a form's words are shown


# Submit buttons that say only "send this form": the form's label or the heading above it says more.
VAGUE_SUBMITS = frozenset({
    "submit", "save", "go", "ok", "apply", "continue", "next", "done", "confirm", "enter", "update",
    "save changes", "submit form", "submit query",
})


def form_purpose(
    capture: PageCapture, form: HtmlElement, *, submit: str, label: str, heading: str, fields: list[str]
) -> tuple[str, str]:
    """The form's name and title from what it is for: a submit button that says it ("Sign in" →
    ``sign_in``), else the form's own label or title, the submit button's tooltip, the heading it
    sits under ("Add book"), the vague button with what the form's id or action names ("Save" in
    ``book_form`` → ``save_book``), the action's last words. Numbers never make a name."""
    vague = submit.lower().strip(" .!…") in VAGUE_SUBMITS
    tooltip = ""
    if vague:
        button = submit_button(capture, form)
        tooltip = clean(button.get("title"), MAX_TEXT) if button is not None else ""
    # a one-word heading ("Book") names the thing, not what the form does with it
    noun = heading if len(heading.split()) == 1 else ""
    candidates = [] if vague else [submit]
    candidates += [label, tooltip, "" if noun else heading]
    verb = _purpose_name(submit)
    # the action's words only when the form names one: without it the form posts to the page itself,
    # whose address names the item shown ("/guide/configuration/")
    action = path_words(form.get("action") or "")
    things = (form.get("id") or form.get("name") or "", noun, action)
    thing = next((t for t in map(_thing, things) if t and t != verb), "")
    if vague and thing:
        candidates.append(f"{submit} {thing.replace('_', ' ')}")
    sole = fields[0].replace("_", " ").strip() if len(fields) == 1 else ""  # a one-field form is that field
    candidates += [submit, noun, form.get("name") or "", form.get("id") or "", action, sole]
    for candidate in candidates:
        if candidate and (name := _purpose_name(candidate)):
            page_words = candidate in (submit, label, tooltip, heading)
            title = candidate if page_words else candidate.replace("_", " ").replace("-", " ")
            return name, clean(title, MAX_TEXT)
    return "submit_form", label or submit


_FILLER = frozenset({"the", "a", "an", "form"})


def _purpose_name(text: str) -> str:
    """Name words of ``text`` without articles and the word "form"."""
    words = [w for w in name_words(text).split("_") if w and w not in _FILLER]
    return "_".join(words)[:40].strip("_")


def _thing(text: str) -> str:
    """What a form's id or action names, without the words that only say "form"
    (``book_form`` → ``book``; ``changelist-form`` → ``changelist``; ``saveform`` → ``save``)."""
    words = text.replace("-", " ").replace("_", " ").split()
    return _purpose_name(" ".join(w[:-4] if len(w) > 4 and w.lower().endswith("form") else w for w in words))


def submit_button(capture: PageCapture, form: HtmlElement) -> HtmlElement | None:
    """The button that does what the form is for: its first submit button, past the ones that only
    look before or turn back ("Preview" before "Create ticket"), which the plan's submit does not press."""
    buttons = list(form.iter("button", "input"))
    if form.get("id"):
        buttons += [b for b in capture.index.form_owned.get(form.get("id"), []) if b.tag in ("button", "input")]
    submits = [
        el for el in buttons
        if (el.get("type") or ("submit" if el.tag == "button" else "text")).lower() in ("submit", "image")
    ]
    committing = [el for el in submits if not _SECONDARY_SUBMIT.match(capture.accessible_name(el))]
    return (committing or submits or [None])[0]


# Submit buttons that show or undo rather than do: a form that also has another is named after that one.
_SECONDARY_SUBMIT = re.compile(r"\s*(preview|review|cancel|back|reset|discard)\b", re.IGNORECASE)


def submitter_ref(capture: PageCapture, form: HtmlElement) -> str | None:
    """The commit button the plan submits with, when it has a name: its name and value go with the
    form as a click sends them, and a server may tell buttons apart by them (a ticket's changes are
    saved on ``submit``, previewed without it). A button without a name sends nothing: the form is
    submitted as it is."""
    button = submit_button(capture, form)
    if button is None or not button.get("name") or not capture.ref(button):
        return None
    return capture.ref(button)


# Hidden fields that name what a posted form does: a confirmation's "Yes, I'm sure" posts
# ``action=delete_selected``; a framework's ``_method=DELETE`` stands for the HTTP verb.
_VERB_FIELDS = re.compile(r"^_?(action|method|op|operation|do|cmd|command|task)$", re.I)


def hidden_verbs(form: HtmlElement) -> str:
    """The values of the form's hidden fields that name what it does, as words (``delete_selected`` →
    "delete selected")."""
    values = (
        (el.get("value") or "").replace("_", " ").replace("-", " ")
        for el in form.iter("input")
        if (el.get("type") or "").lower() == "hidden" and _VERB_FIELDS.match(el.get("name") or "")
    )
    return " ".join(values)


def has_button(capture: PageCapture, form: HtmlElement) -> bool:
    button = submit_button(capture, form)
    return button is not None and not capture.is_hidden(button)


def path_words(action: str) -> str:
    """The last part of the action's path as words ("/admin/book/delete/" → "delete"): what the
    endpoint does; the parts before it often name one item ("/Handbook/Travel/save"), and parts
    with numbers are ids."""
    parts = [p for p in urlsplit(action).path.split("/") if p]
    last = parts[-1] if parts else ""
    return "" if any(c.isdigit() for c in last) else last.replace("-", " ").replace("_", " ")


def not_an_item(heading: str, submit: str, url: str, title: str = "") -> str:
    """The heading, or "" when it names the item the page is about: it is a part of the page's
    address ("Hello world" on /posts/hello-world), the button's verb with one ("Save Travel" on
    /Handbook/Travel/edit), or, on an address ending in an id (/ticket/4), a part of the page's
    title ("#4 (Timeout leaks empty input) - Demo"). The item's name would make the tool change
    from item to item."""
    segments = [" ".join(re.split(r"[-_+\s]+", unquote(p).lower())).strip() for p in urlsplit(url).path.split("/")]
    path = {p for p in segments if p} | {w for p in segments for w in p.split()}
    words, verb = heading.lower().split(), submit.lower().split()[:1]
    if " ".join(words) in path:
        return ""
    ids = [p for p in segments if p]
    if words and ids and ids[-1].isdigit() and " ".join(words) in " ".join(title.lower().split()):
        return ""
    if len(words) < 2 or words[:1] != verb:
        return heading
    return "" if " ".join(words[1:]) in path or all(w in path for w in words[1:]) else heading


def submit_text(capture: PageCapture, form: HtmlElement) -> str:
    """The name of the form's first submit button (inside it, or associated with ``form=``)."""
    button = submit_button(capture, form)
    if button is None:
        return ""
    return clean(without_counters(capture.accessible_name(button), every_number=False), MAX_TEXT)


def form_label(capture: PageCapture, form: HtmlElement) -> str:
    """The form's name: ARIA's, else its ``title``, else its first heading or legend (counters left out)."""
    text = capture.aria_name(form) or form.get("aria-label") or form.get("title") or heading_inside(form)
    return clean(without_counters(text, every_number=False), MAX_TEXT) if text else ""


def form_target(form: HtmlElement, action: str) -> str:
    """Where the form goes: its endpoint, or "this page" when it names none (the page's own address
    names the item it shows)."""
    return _short(action) if (form.get("action") or "").strip() else "this page"


def _short(url: str) -> str:
    """The action's endpoint, the last part of its path ("…/change/"): the parts before it often
    name one item ("/Handbook/Travel/save", "/book/1/change/"), and the query holds the page's
    state (``?next=…``, a filter), so the same kind of page gives the same description."""
    path = urlsplit(url).path
    parts = [p for p in path.split("/") if p]
    if not parts:
        return "/"
    last = "…" if any(c.isdigit() for c in parts[-1]) else parts[-1]
    end = "/" if path.endswith("/") else ""
    return cap(f"{'…/' if len(parts) > 1 else '/'}{last}{end}", 60)
