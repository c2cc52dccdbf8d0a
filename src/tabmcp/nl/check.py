"""``ai_assert`` / ``ai_wait_for`` without a model: plain facts checked against the page (pure).

The assertions a page can settle by itself:

- text on the page: ``the page shows "Logged in as bob"``, ``"3 reviews loaded" is visible``,
  ``the page does not contain "Error"``;
- the title: ``the title is Swag Shop``, ``the page title contains Shop``;
- a value next to a name: ``the price of Sauce Labs Onesie is 7.99``, ``the owner of Fix bug is Bob``;
- an element's state or value: ``the newsletter checkbox is checked``, ``the login button is
  disabled``, ``the username field is "bob"``, ``the username field is empty``;
- a count: ``there are 3 todo items``, ``the todo list has 3 items``.

A :class:`Verdict` is ``passed``, ``failed`` (with what the page showed instead) or ``unknown``: the
sentence was not one of these forms, or the page does not say it plainly (the text is not there,
but it may be said in other words). Only ``unknown`` goes to the model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from tabmcp.nl.locate import decide, read
from tabmcp.nl.page import EDITABLE_ROLES, PageView
from tabmcp.nl.query import collections_named, pick_one, query_words, smallest_region, table_cell
from tabmcp.nl.words import (
    QUOTES,
    contains_phrase,
    content_tokens,
    normal,
    number_in,
    numbers_in,
    same_number,
)

Status = Literal["passed", "failed", "unknown"]
EVIDENCE_MAX = 300


@dataclass(frozen=True)
class Verdict:
    status: Status
    evidence: str = ""  # what the page shows that decided it (or the closest thing it shows)

    @property
    def passed(self) -> bool:
        return self.status == "passed"


UNKNOWN = Verdict("unknown")
_QUOTED = re.compile(rf"^[{QUOTES}](.+)[{QUOTES}]$")
_SHOWS = r"(?:shows?|contains?|displays?|has|includes?|says|reads)"
_SHOWN = r"(?:shown|visible|displayed|present|on (?:the )?page|on screen|there)"
_THE = r"^(?:the )?(?:text |message )?"
_IS = r"(?:is|equals|should be|is equal to)"
_STATES = (
    r"(?P<state>not checked|unchecked|checked|disabled|enabled|selected|not selected|expanded|collapsed|focused"
    r"|empty|required)"
)
_APPEARS = rf"(?:appears?|is showing|shows up|to appear|to show up|to be {_SHOWN})"
_GOES = r"(?:disappears?|vanishes|is gone|goes away|to disappear|to go away|to be gone|to vanish)"
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        ("title", rf"^(?:the )?(?:page(?:'s)? )?title (?P<how>{_IS}|{_SHOWS}) (?P<value>.+)$"),
        (
            "no_text",
            r"^(?:the )?page (?:does not|doesn't|should not|shouldn't|no longer) "
            r"(?:show|contain|display|have|include|say)s? (?:the )?(?:text |message )?(?P<text>.+)$",
        ),
        ("text", rf"^(?:the )?page (?:now )?{_SHOWS} (?:the )?(?:text |message )?(?P<text>.+)$"),
        ("no_text", rf"{_THE}(?P<text>.+?) (?:is|are) (?:not|no longer) {_SHOWN}$"),
        (
            "count",
            r"^there (?:is|are) (?P<count>\d+(?:\.\d+)?) (?P<what>.+?)"
            r"(?: (?:shown|visible|listed|displayed|on (?:the )?page))?$",
        ),
        (
            "has_count",
            r"^(?:the )?(?P<what>.+?) (?:has|have|contains?|shows?|lists?) (?P<count>\d+) "
            r"(?:items?|entries|rows|elements|results|things)$",
        ),
        ("state", rf"^(?:the )?(?P<what>.+?) (?:is|are) {_STATES}$"),
        ("text", rf"{_THE}(?P<text>.+?) (?:is|are) {_SHOWN}$"),
        ("text", rf"{_THE}(?P<text>.+?) {_APPEARS}$"),
        ("no_text", rf"{_THE}(?P<text>.+?) {_GOES}$"),
        ("value", rf"^(?:the )?(?P<what>.+?) (?:is|equals|is equal to|should be|=|reads|{_SHOWS}) (?P<value>.+)$"),
    )
)


def check(view: PageView, assertion: str) -> Verdict:
    """Settle an assertion from the page, or say it cannot (``unknown``)."""
    sentence = " ".join(assertion.split()).strip().rstrip(".!")
    for kind, pattern in _PATTERNS:
        match = pattern.match(sentence)
        if match is None:
            continue
        verdict = _CHECKS[kind](view, match)
        if verdict is not None:
            return verdict
    return UNKNOWN


def _quoted(text: str) -> tuple[str, bool]:
    text = text.strip()
    match = _QUOTED.match(text)
    return (match.group(1).strip(), True) if match else (text, False)


def _cut(text: str) -> str:
    return text if len(text) <= EVIDENCE_MAX else text[: EVIDENCE_MAX - 1] + "…"


def _title(view: PageView, match: re.Match[str]) -> Verdict | None:
    value, _ = _quoted(match.group("value"))
    exact = match.group("how").lower() in ("is", "equals", "should be", "is equal to")
    ok = normal(view.title) == normal(value) if exact else contains_phrase(view.title, value)
    return Verdict("passed" if ok else "failed", f"the title is {view.title!r}")


def _text(view: PageView, match: re.Match[str]) -> Verdict | None:
    text, quoted = _quoted(match.group("text"))
    if contains_phrase(view.text, text):
        return Verdict("passed", _cut(_where(view, text)))
    if quoted:
        return Verdict("failed", _cut(f"no text {text!r} on the page; it shows: {view.text}"))
    return None  # maybe said in other words: the model decides


def _no_text(view: PageView, match: re.Match[str]) -> Verdict | None:
    text, quoted = _quoted(match.group("text"))
    if contains_phrase(view.text, text):
        return Verdict("failed", _cut(_where(view, text)))
    return Verdict("passed", f"no text {text!r} on the page") if quoted else None


def _where(view: PageView, text: str) -> str:
    """The row that shows a text, for evidence."""
    for row in view.rows:
        if contains_phrase(f"{row.name} {row.value}", text):
            return f"{row.describe() if row.ref else 'text'}: {row.name or row.value}"
    return f"the page text contains {text!r}"


def _count(view: PageView, match: re.Match[str]) -> Verdict | None:
    wanted = float(match.group("count"))
    source = pick_one(collections_named(view, query_words(match.group("what"))))
    if source is None:
        return None
    count = source.count or len(source.values)
    return Verdict("passed" if same_number(count, wanted) else "failed", f"{source.where} has {count} items")


_STATE_OF = {
    "checked": ("checked", True),
    "unchecked": ("checked", False),
    "not checked": ("checked", False),
    "disabled": ("disabled", True),
    "enabled": ("disabled", False),
    "selected": ("selected", True),
    "not selected": ("selected", False),
    "expanded": ("expanded", True),
    "collapsed": ("collapsed", True),
    "focused": ("focused", True),
    "required": ("required", True),
}


def _state(view: PageView, match: re.Match[str]) -> Verdict | None:
    state = match.group("state").lower()
    what = match.group("what")
    decision = decide(view, what, "any")
    if decision.outcome != "found" or decision.best is None:
        return None
    row = decision.best.row
    if state == "empty":
        ok = not row.value
        return Verdict("passed" if ok else "failed", f"{row.describe()}")
    flag, expected = _STATE_OF[state]
    has = flag in row.states
    if flag == "checked" and not has and "mixed" in row.states:
        return Verdict("failed", f"{row.describe()} is partly checked (mixed)")
    shown = f"{row.describe()} [{', '.join(row.states) or 'no states'}]"
    return Verdict("passed" if has == expected else "failed", shown)


def _value(view: PageView, match: re.Match[str]) -> Verdict | None:
    what, (value, _) = match.group("what"), _quoted(match.group("value"))
    if not content_tokens(what) or not value:
        return None
    expected_number = number_in(value.split()[0]) if _NUMBER_VALUE.fullmatch(value) else None
    # "the price of X is 7.99": the table cell or the small text that names X
    of = re.match(r"^(?:the\s+)?(?P<attr>.+?)\s+(?:of|for)\s+(?:the\s+)?(?P<entity>.+)$", what, re.IGNORECASE)
    if of is not None:
        attribute, entity = content_tokens(of.group("attr")), content_tokens(of.group("entity"))
        cell = table_cell(view, attribute, entity) if attribute and entity else None
        if cell is not None:
            return _compare(cell[0], value, expected_number, cell[1])
        region = smallest_region(view, entity) if entity else None
        if region is not None:
            if expected_number is not None:
                ok = any(same_number(n, expected_number) for n in numbers_in(region))
            else:
                ok = contains_phrase(region, value)
            return Verdict("passed" if ok else "failed", _cut(f"the page shows: {region}"))
    # "the username field is 'bob'": an element's value (or name, for text-like rows)
    wanted = read(what)
    if wanted.roles & _VALUED_ROLES:  # a field, a dropdown: not "the title" or "the table
        decision = decide(view, what, "any")
        if decision.outcome == "found" and decision.best is not None:
            row = decision.best.row
            shown = row.value if row.value or row.editable else row.name
            return _compare(shown, value, expected_number, row.describe())
    return None


# "7.99", "$7.99", "7,99 €", "7.99 dollars": a number, compared as one
_NUMBER_VALUE = re.compile(
    r"[-−]?[$€£¥]?\s?[0-9][0-9,.]*(?:\s?[€$%]|\s(?:dollars?|usd|euros?|eur|pounds?|gbp|percent))?", re.IGNORECASE
)
_VALUED_ROLES = EDITABLE_ROLES | {"listbox", "checkbox", "radio", "switch", "slider", "button", "link"}


def _compare(shown: str, value: str, expected_number: float | None, where: str) -> Verdict:
    if expected_number is not None:
        got = number_in(shown)
        ok = got is not None and same_number(got, expected_number)
    else:
        ok = normal(shown) == normal(value)
    return Verdict("passed" if ok else "failed", _cut(f"{where} shows {shown!r}"))


_CHECKS = {
    "title": _title,
    "text": _text,
    "no_text": _no_text,
    "count": _count,
    "has_count": _count,
    "state": _state,
    "value": _value,
}
