"""What a search box searches, read from where its form sends the query.

A page often shows two search boxes: the site's own (a header's or a sidebar's, on every page) and
the page's (over the list it shows, with its filters). Two boxes that send the same field to the same
place are one search, and so are the site's box sending to the page being shown (its results page)
and that page's own box refreshing those results. Two boxes sending to different sections of the site
search different things: their names say which, from the words of where they send (``/admin/users/``
→ ``users``), ids and words such as "search" or "results" left out. A form outside the page's main
content that sends some of the fields a form of the main content sends, to the same place by the same
method (a header's quick search beside the page's advanced search of the same list), is that form
again: neither the search nor the form introspector lists it (``fuller_form``).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from lxml.etree import XPath
from lxml.html import HtmlElement

from tabmcp.introspect.text import name_words
from tabmcp.page.capture import PageCapture

# Path words that say "a search" or "a page of the app", not what is searched.
_PLAIN_PATH_WORDS = frozenset({
    "search", "searches", "result", "results", "find", "query", "index", "list", "admin", "api", "app", "q", "s",
})


@dataclass(frozen=True)
class Scope:
    """Where a search form sends its query: ``own`` when that is the page being shown (or its results
    fragment, ``/users/results/`` of ``/users/``), so the box searches what the page lists; ``topic``
    is what the destination names (``pages``, ``users``), "" when it names nothing."""

    method: str
    netloc: str
    path: str
    field: str
    own: bool
    topic: str


def scope_of(capture: PageCapture, box: HtmlElement, form: HtmlElement | None) -> Scope | None:
    """The box's scope, or None for a box with no form (what it searches is the page's script's)."""
    if form is None:
        return None
    target = urlsplit(urljoin(capture.url, (form.get("action") or "").strip()))
    here = _path(urlsplit(capture.url).path)
    path = _path(target.path)
    extra = path[len(here):].strip("/") if path.startswith(f"{here}/") else None
    own = path == here or (extra is not None and extra in _PLAIN_PATH_WORDS)
    return Scope(
        method=(form.get("method") or "get").lower(),
        netloc=target.netloc,
        path=path,
        field=box.get("name") or str(id(box)),
        own=own,
        topic=topic(path),
    )


def topic(path: str) -> str:
    """What a destination path names, in name words: ``/admin/pages/3/results/`` → ``pages``."""
    words = [w for w in name_words(path.replace("/", " ")).split("_") if w and w not in _PLAIN_PATH_WORDS]
    return "_".join(words[-2:])


def same_search(a: Scope, b: Scope) -> bool:
    """One search: the same field by the same method to the same place, to the page being shown (the
    site's box on its results page and the page's own box), or to the same section of the site when
    neither is the page's own list (a "Search all pages" box and the sidebar's page search)."""
    if (a.method, a.netloc, a.field) != (b.method, b.netloc, b.field):
        return False
    if a.path == b.path or (a.own and b.own):
        return True
    return not a.own and not b.own and bool(a.topic) and a.topic == b.topic


_MAIN_FORMS = XPath("//main//form | //@role[.='main']/..//form")
# Controls that send no value a person types or picks: not what a form is for.
_NOT_FIELDS = frozenset({"hidden", "submit", "button", "reset", "image"})


def fuller_form(capture: PageCapture, form: HtmlElement) -> HtmlElement | None:
    """The form of the page's main content that sends this form's fields and more, to the same place
    by the same method, when this one is outside the main content (the header's, the sidebar's); else
    None. Pages without a main landmark have no such form: nothing tells the page's own from chrome."""
    main = capture.select(_MAIN_FORMS)
    if not main or form.tag != "form" or _in(capture, form, main):
        return None
    names = _field_names(capture, form)
    if not names:
        return None
    where = _destination(capture, form)
    # where each main-content form sends, worked out once per capture and only for a page that asks
    sent_to = capture.memo("search_scope.sent_to")
    for own in main:
        if (own.get("method") or "get").strip().lower() != where[0]:
            continue  # the method first: a list's row forms post, a search gets
        if own not in sent_to:
            sent_to[own] = _destination(capture, own)
        if sent_to[own] == where and names < _field_names(capture, own):
            return own
    return None


def _in(capture: PageCapture, form: HtmlElement, forms: tuple[HtmlElement, ...]) -> bool:
    found = capture.memo("search_scope.main_set")
    if not found:
        found.update(dict.fromkeys(forms, True))
    return form in found


def _field_names(capture: PageCapture, form: HtmlElement) -> frozenset[str]:
    return frozenset(
        name for c in capture.controls_of(form)
        if (name := c.get("name")) and (c.get("type") or "").strip().lower() not in _NOT_FIELDS
    )


def _destination(capture: PageCapture, form: HtmlElement) -> tuple[str, str, str]:
    target = urlsplit(urljoin(capture.url, (form.get("action") or "").strip()))
    return (form.get("method") or "get").strip().lower(), target.netloc, _path(target.path)


def _path(path: str) -> str:
    return "/" + path.strip("/")
