"""Finding an element from a description in plain words, without a model (pure).

"the login button", "the search box", "Add to cart for the Sauce Labs Onesie", "the second Edit
button", "the Edit button in the Fix bug row". A description is read into a :class:`Description`:
the roles it names (button, link, box…), the words that should name the element or its
surroundings, a quoted exact text, an ordinal. Every element of the page is scored against it
(:func:`score`), from these signals:

- **words**: each word of the description is looked for in the element's accessible name (the label
  of a field), then its hint (placeholder, title, input type), its value, the words of its role
  ("search" in a searchbox) and its context (the card or table row it sits in); exact words count
  more than stems, synonyms ("log in" / "sign in"), prefixes and near spellings;
- **precision**: how much of the element's name the description accounts for ("Add to cart" beats
  "Add to cart and pay" for "add to cart");
- **role**: the role named (a link is half a button; an element whose name says "menu" is a menu);
- **purpose**: typing needs an editable field; a click prefers controls over headings and text;
  disabled controls rank lower;
- **visibility**: the locate snapshot holds only what is rendered, so hidden duplicates are never
  candidates.

:func:`decide` turns the scores into a decision: one element with enough confidence and a clear
lead is *found*; several close ones are *ambiguous* (with the candidates and their refs, so the
model can pick, or the configured model is asked); nothing good enough is *not found*.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from tabmcp.nl.page import EDITABLE_ROLES, PageView, Row
from tabmcp.nl.words import (
    QUOTED,
    STOPWORDS,
    Bag,
    Fits,
    PageFits,
    content_tokens,
    fold,
    normal,
    similarity,
    tokens,
)

Purpose = Literal["click", "input", "hover", "any", "scroll", "select", "check"]
Outcome = Literal["found", "ambiguous", "not_found"]

FOUND_AT = 0.6  # the best score must reach this…
LEAD = 0.08  # …and beat the next by this much
NOT_FOUND_BELOW = 0.45
UNEXPLAINED_BELOW = 0.3  # a word that fits the best element less than this is not accounted for
TIE = 0.04  # within this of the best, candidates are the same to an ordinal ("the second …")
MAX_CANDIDATES = 5
REF = re.compile(r"^\s*(f[1-9][0-9]*)?e[1-9][0-9]*\s*$")

# Role words, longest phrase first; each names the roles it may mean.
_ROLE_PHRASES: tuple[tuple[str, frozenset[str]], ...] = tuple(
    (phrase, frozenset(roles.split()))
    for phrase, roles in (
        ("radio button", "radio"),
        ("check box", "checkbox switch"),
        ("text field", "textbox searchbox combobox spinbutton"),
        ("text box", "textbox searchbox combobox"),
        ("text area", "textbox"),
        ("input field", "textbox searchbox combobox spinbutton"),
        ("input box", "textbox searchbox combobox spinbutton"),
        ("search bar", "searchbox textbox combobox"),
        ("drop down", "combobox listbox"),
        ("menu item", "menuitem menuitemcheckbox menuitemradio option"),
        ("list item", "listitem"),
        ("button", "button"),
        ("btn", "button"),
        ("link", "link"),
        ("hyperlink", "link"),
        ("field", "textbox searchbox combobox spinbutton"),
        ("input", "textbox searchbox combobox spinbutton"),
        ("box", "textbox searchbox combobox checkbox"),
        ("textbox", "textbox searchbox"),
        ("textarea", "textbox"),
        ("searchbox", "searchbox textbox"),
        ("checkbox", "checkbox switch"),
        ("tickbox", "checkbox"),
        ("radio", "radio"),
        ("dropdown", "combobox listbox"),
        ("select", "combobox listbox"),
        ("combobox", "combobox"),
        ("picker", "combobox listbox"),
        ("tab", "tab"),
        ("menu", "menu menubar menuitem button combobox"),
        ("heading", "heading"),
        ("headline", "heading"),
        ("title", "heading"),
        ("image", "img"),
        ("picture", "img"),
        ("icon", "img button link"),
        ("logo", "img link"),
        ("photo", "img"),
        ("switch", "switch checkbox"),
        ("toggle", "switch checkbox button"),
        ("slider", "slider"),
        ("option", "option radio"),
        ("row", "row"),
        ("cell", "cell gridcell"),
        ("table", "table grid"),
        ("list", "list listbox"),
        ("dialog", "dialog alertdialog"),
        ("popup", "dialog alertdialog menu"),
        ("region", "region"),
        ("section", "region"),
        ("area", "region textbox"),
    )
)
# What each role is called, for words of a description that only the role can explain ("search box").
ROLE_WORDS: dict[str, Bag] = {
    role: Bag.of(words)
    for role, words in {
        "button": "button",
        "link": "link",
        "textbox": "text box field input",
        "searchbox": "search box field input",
        "combobox": "combo box dropdown select field",
        "listbox": "list box select",
        "checkbox": "check box checkbox tick",
        "radio": "radio button option",
        "switch": "switch toggle",
        "slider": "slider range",
        "spinbutton": "number field input",
        "heading": "heading title header",
        "img": "image picture icon logo",
        "tab": "tab",
        "menuitem": "menu item",
        "menu": "menu",
        "dialog": "dialog popup",
        "navigation": "navigation nav menu",
        "search": "search",
    }.items()
}
# A link styled as a button and a button that navigates are the same to the person describing them.
_NEAR_ROLES = {frozenset({"button", "link"}), frozenset({"textbox", "searchbox"}), frozenset({"checkbox", "switch"})}
# After "in", "of", "for"… a description says where the element is, not what it is.
_WHERE = re.compile(r"\b(in|inside|within|of|for|on|under|below|above|beside|near|next to|from|at)\b")
# Words that name a place on the page but not any of its text ("in the Fix bug row").
_PLACE_WORDS = frozenset(
    ("row", "column", "section", "card", "area", "panel", "part", "page", "form", "list", "table", "item", "box",
     "group")
)  # fmt: skip
_ORDINALS = {
    "first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5,
    "5th": 5, "sixth": 6, "6th": 6, "seventh": 7, "7th": 7, "eighth": 8, "8th": 8, "ninth": 9, "9th": 9,
    "tenth": 10, "10th": 10, "last": -1,
}  # fmt: skip
# "sign in", "log out", "check out": one word to a person, and "in" here is not a place.
_PHRASAL = re.compile(r"\b(log|sign|check|opt)[\s-]+(in|out|on|off|up)\b")
# "3rd" is one word to a person but two tokens ("3", "rd"): spelled out before reading ("third").
_NUMBERED = re.compile(r"\b([1-9]|10)(?:st|nd|rd|th)\b")
_SPELLED = {n: w for w, n in _ORDINALS.items() if w.isalpha() and n > 0}


@dataclass(frozen=True)
class Description:
    """A description of an element, read: ``words`` should name it or its surroundings, ``roles`` is
    what kind of element it is (empty: any), ``quoted`` an exact text it shows, ``ordinal`` which one
    of several equally good matches (1-based; -1 the last)."""

    text: str
    words: tuple[str, ...]
    roles: frozenset[str] = frozenset()
    role_words: tuple[str, ...] = ()
    quoted: str = ""
    ordinal: int | None = None
    ref: str | None = None
    phrase: str = ""  # the description's words run together, without articles, ordinals and role words

    @property
    def compact_words(self) -> str:
        return "".join(self.words)


def _compact(text: str) -> str:
    return "".join(tokens(text))


def read(description: str) -> Description:
    text = " ".join(description.split())
    if REF.match(text):
        return Description(text, (), ref=text.strip())
    quoted_match = QUOTED.search(text)
    quoted = quoted_match.group(1).strip() if quoted_match else ""
    folded = _PHRASAL.sub(lambda m: m.group(1) + m.group(2), fold(text)).replace("e-mail", "email")
    folded = _NUMBERED.sub(lambda m: _SPELLED[int(m.group(1))], folded)
    ordinal = None
    for word in tokens(folded):
        if word in _ORDINALS:
            ordinal = _ORDINALS[word]
            break
    # what it is: role words before the first "in/of/for…" (the rest says where it is)
    # ("in", "for"… inside a quoted name are part of the name: 'the "Save for later" link')
    split = _WHERE.search(QUOTED.sub(lambda m: " " * len(m.group(0)), folded))
    head, tail = (folded[: split.start()], folded[split.end() :]) if split else (folded, "")
    roles: set[str] = set()
    role_words: list[str] = []
    for phrase, phrase_roles in _ROLE_PHRASES:
        pattern = rf"\b{re.escape(phrase)}\b"
        if re.search(pattern, head):
            roles |= phrase_roles
            role_words += phrase.split()
            head = re.sub(pattern, " ", head)
    words = [w for w in tokens(head) if _meaningful(w)]
    words += [w for w in tokens(tail) if _meaningful(w) and w not in _PLACE_WORDS]
    if not roles and not words and tail:  # "the button" was said after all: "Save for later" is a name
        words = content_tokens(folded)
    dropped = {"a", "an", "the", *_ORDINALS, *role_words}
    phrase = "".join(w for w in tokens(folded) if w not in dropped)
    return Description(
        text, tuple(dict.fromkeys(words)), frozenset(roles), tuple(role_words), quoted, ordinal, phrase=phrase
    )


def _meaningful(word: str) -> bool:
    """Not a stopword, an ordinal, or a lone letter (the "s" of "the Onesie's button")."""
    return word not in STOPWORDS and word not in _ORDINALS and (len(word) > 1 or word.isdigit())


@dataclass(frozen=True)
class Candidate:
    row: Row
    score: float

    def shown(self) -> dict[str, object]:
        """A candidate as an error lists it, for the model to pick by ref."""
        item: dict[str, object] = {"ref": self.row.ref, "role": self.row.role, "name": self.row.name}
        if self.row.value:
            item["value"] = self.row.value
        if self.row.context and self.row.context != self.row.name:
            item["context"] = self.row.context
        item["score"] = round(self.score, 2)
        return item


def score(row: Row, wanted: Description, purpose: Purpose = "any", fits: PageFits | None = None) -> float:
    """How well one element fits a description, from 0 to 1. ``fits``: the description's words against
    the page's vocabulary (``decide`` works them out once for all the page's elements)."""
    role_fit = _role_fit(row, wanted)
    if wanted.words:
        if fits is not None and row.role not in ROLE_WORDS and row.tokens.isdisjoint(fits.any):
            found = [0.0] * len(wanted.words)  # none of its words fits any word of the description
        else:
            found = [_word_fit(row, w, fits.by_word[w] if fits is not None else None) for w in wanted.words]
        cover = sum(found) / len(found)
        precision = _precision(row, wanted) if cover > 0 else (0.5 if not row.name_bag.words else 0.0)
        total = 0.55 * cover + 0.2 * precision + 0.25 * role_fit if wanted.roles else 0.8 * cover + 0.2 * precision
        if role_fit >= 0.8 and wanted.phrase and _compact(row.name) in (wanted.phrase, wanted.compact_words):
            total = min(1.0, total + 0.1)  # the description is the element's whole name
    elif wanted.roles:
        total = 0.9 * role_fit
    else:
        total = 0.0
    if wanted.quoted:
        quoted = normal(wanted.quoted)
        shown = f" {normal(row.name)} {normal(row.value)} {normal(row.hint)} "
        total = min(1.0, total + 0.1) if quoted and f" {quoted} " in shown else total * 0.5
    return total * _purpose_fit(row, purpose)


def _word_fit(row: Row, word: str, fits: Fits | None = None) -> float:
    best: Callable[[Bag], float] = fits.best_in if fits is not None else (lambda bag: bag.best(word))
    return max(
        best(row.name_bag),
        0.8 * best(row.hint_bag),
        0.75 * best(row.value_bag),
        0.7 * ROLE_WORDS[row.role].best(word) if row.role in ROLE_WORDS else 0.0,
        0.75 * best(row.context_bag),
        0.6 * best(row.section_bag),
    )


def _precision(row: Row, wanted: Description) -> float:
    """The share of the element's name that the description's words account for ("log" and "in" of
    "Log in" are both accounted for by "login")."""
    named = row.name_bag.content()
    if not named:
        return 0.5
    said = [*wanted.words, *wanted.role_words]

    def accounted(word: str) -> bool:
        return any(similarity(word, w) >= 0.8 or (word in w and row.name_bag.best(w) >= 0.9) for w in said)

    return sum(1 for n in named if accounted(n)) / len(named)


def _role_fit(row: Row, wanted: Description) -> float:
    if not wanted.roles:
        return 1.0
    if row.role in wanted.roles:
        return 1.0
    if any(row.name_bag.best(w) >= 0.95 for w in wanted.role_words):
        return 0.8  # "the account menu": an element called "Account menu", whatever its role
    if any(frozenset({row.role, r}) in _NEAR_ROLES for r in wanted.roles):
        return 0.5
    return 0.0


def _purpose_fit(row: Row, purpose: Purpose) -> float:
    disabled = "disabled" in row.states
    if purpose == "input":
        return (0.85 if disabled else 1.0) if row.role in EDITABLE_ROLES else 0.3
    if purpose in ("click", "hover", "select", "check"):
        fit = 1.0 if row.interactive else 0.75
        return fit * (0.85 if disabled else 1.0)
    return 1.0


@dataclass(frozen=True)
class Decision:
    outcome: Outcome
    description: Description
    candidates: tuple[Candidate, ...] = field(default_factory=tuple)  # best first
    why: str = ""

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None

    @property
    def confidence(self) -> float:
        return round(self.candidates[0].score, 2) if self.candidates else 0.0


def decide(view: PageView, description: str, purpose: Purpose = "any") -> Decision:
    """Score every element of the page and decide: found, ambiguous, or not found."""
    wanted = read(description)
    if wanted.ref is not None:
        row = view.by_ref(wanted.ref)
        if row is None:
            return Decision("not_found", wanted, why=f"{wanted.ref} is not an element of the page now")
        return Decision("found", wanted, (Candidate(row, 1.0),))
    if not wanted.words and not wanted.roles and not wanted.quoted:
        return Decision("not_found", wanted, why="the description names nothing to look for")
    fits = PageFits.of(wanted.words, view.vocabulary)
    scored = sorted(
        (Candidate(row, score(row, wanted, purpose, fits)) for row in view.elements),
        key=lambda c: (-c.score, c.row.index),
    )
    scored = [c for c in scored if c.score > 0]
    if not scored or scored[0].score < NOT_FOUND_BELOW:
        return Decision("not_found", wanted, tuple(scored[:MAX_CANDIDATES]), "nothing on the page fits it well")
    best = scored[0].score
    close = [c for c in scored if c.score > best - LEAD]
    unexplained = _unexplained(scored[0].row, wanted)
    if unexplained and best >= FOUND_AT:  # "Delete account" is not the Delete link of an address
        words = ", ".join(repr(w) for w in unexplained)
        return Decision("ambiguous", wanted, tuple(close[:MAX_CANDIDATES]), f"nothing near the best fit says {words}")
    if wanted.ordinal is not None:
        ties = sorted((c for c in scored if c.score >= best - TIE), key=lambda c: c.row.index)
        if best >= FOUND_AT:
            n = wanted.ordinal
            if n == -1 or n <= len(ties):
                chosen = ties[-1] if n == -1 else ties[n - 1]
                rest = [c for c in scored if c is not chosen]
                return Decision("found", wanted, (chosen, *rest[: MAX_CANDIDATES - 1]))
            return Decision(
                "not_found", wanted, tuple(ties[:MAX_CANDIDATES]), f"only {len(ties)} elements fit it equally well"
            )
    if best >= FOUND_AT and len(close) == 1:
        return Decision("found", wanted, tuple(scored[:MAX_CANDIDATES]))
    if len(close) > 1:
        return Decision(
            "ambiguous", wanted, tuple(close[:MAX_CANDIDATES]), f"{len(close)} elements fit it about equally well"
        )
    return Decision("ambiguous", wanted, tuple(scored[:MAX_CANDIDATES]), "the best fit is not a confident one")


def _unexplained(row: Row, wanted: Description) -> list[str]:
    """Words of the description that nothing about the element accounts for: it may be another element
    the page does not show (a hidden one), so the element is not taken on trust."""
    return [w for w in wanted.words if w not in _PLACE_WORDS and _word_fit(row, w) < UNEXPLAINED_BELOW]
