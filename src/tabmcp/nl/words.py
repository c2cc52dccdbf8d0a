"""Words: how a description and a page's text are compared (pure).

A person says "the login button", the page says "Log in"; "the e-mail field" is labelled "Email";
"pasword" is a typo. Texts become tokens (lower case, accents dropped, split on anything that is not
a letter or a digit, numbers kept whole), adjacent tokens also count joined ("log in" → "login"),
and two tokens are as similar as their forms allow: the same word, the same stem, a synonym, a
prefix, or a near spelling.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache
from itertools import pairwise

# Words that carry no meaning for finding things on a page.
STOPWORDS = frozenset(
    ("a", "an", "the", "this", "that", "these", "those", "its", "it", "is", "are", "be", "to", "of", "in", "on", "at",
     "by", "for", "with", "and", "or", "from", "into", "onto", "please", "then", "some", "any", "my", "your", "our",
     "their", "me", "you", "we", "us")
)  # fmt: skip
_TOKEN = re.compile(r"[0-9]+(?:[.,][0-9]+)*|[^\W\d_]+", re.UNICODE)
_NUMBER = re.compile(r"(?<![\w.,])([-−])?[$€£¥]?\s?([0-9][0-9,]*(?:\.[0-9]+)?)(?![\w])")
QUOTES = "\"“”'‘’«»"
# A quoted text: the quote opens at the start or after a space or bracket and closes before a space,
# punctuation or the end, so the apostrophes of "Bob's" and "Ann's" do not quote what lies between.
QUOTED = re.compile(rf"(?:(?<=[\s(\[])|^)[{QUOTES}]([^{QUOTES}]{{1,200}})[{QUOTES}](?=[\s.,;:!?)\]]|$)")

# Words people use for the same thing on a web page (each group is one meaning).
_SYNONYM_GROUPS: tuple[frozenset[str], ...] = tuple(
    frozenset(group.split())
    for group in (
        "login signin logon",
        "logout signout logoff",
        "signup register",
        "email mail",
        "username user login",
        "password passcode pwd passphrase",
        "search find query lookup",
        "cart basket bag",
        "submit send",
        "delete remove trash",
        "close dismiss",
        "next continue forward",
        "previous prev back",
        "ok okay confirm",
        "cancel abort",
        "add plus",
        "settings preferences options",
        "buy purchase checkout",
        "price cost",
        "quantity qty amount",
        "phone telephone tel mobile",
        "name title",
        "message msg",
        "picture image photo",
        "help support",
    )
)
SYNONYMS: dict[str, frozenset[str]] = {}
for _group in _SYNONYM_GROUPS:
    for _word in _group:
        SYNONYMS[_word] = SYNONYMS.get(_word, frozenset()) | (_group - {_word})


def fold(text: str) -> str:
    """Lower case without accents: "Café" and "cafe" are the same word to a person looking for it."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def tokens(text: str) -> list[str]:
    """The words and numbers of a text, folded (stopwords kept: phrases compare whole)."""
    return _TOKEN.findall(fold(text))


def content_tokens(text: str) -> list[str]:
    return [t for t in tokens(text) if t not in STOPWORDS]


def normal(text: str) -> str:
    """A text as compared for equality: folded words joined by one space."""
    return " ".join(tokens(text))


def stem(word: str) -> str:
    """A crude English stem: plurals and the commonest endings, enough for "names" ~ "name"."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]  # searches → search, boxes → box
    for ending in ("ing", "ed"):
        if len(word) > len(ending) + 3 and word.endswith(ending):
            return word[: -len(ending)]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@lru_cache(maxsize=65536)
def similarity(a: str, b: str) -> float:
    """How alike two tokens are, from 1.0 (the same word) down to 0.0."""
    if a == b:
        return 1.0
    if a.isdigit() or b.isdigit():
        return 0.0  # numbers are equal or not
    if stem(a) == stem(b):
        return 0.95
    if b in SYNONYMS.get(a, ()):
        return 0.85
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) >= 3 and long_.startswith(short):
        return 0.8 * (len(short) / len(long_)) ** 0.5
    # a near spelling: a ratio of 0.8 needs lengths within 2:3, and quick_ratio bounds ratio from above
    if len(short) >= 4 and 3 * len(short) >= 2 * len(long_):
        matcher = SequenceMatcher(None, a, b)
        if matcher.quick_ratio() >= 0.8 and (ratio := matcher.ratio()) >= 0.8:
            return 0.9 * ratio
    return 0.0


@dataclass(frozen=True)
class Bag:
    """A text's tokens for matching: each word, and each pair of neighbours joined ("log in" → "login")."""

    words: tuple[str, ...]
    joined: tuple[str, ...]
    word_set: frozenset[str] = frozenset()
    joined_set: frozenset[str] = frozenset()

    @classmethod
    def of(cls, text: str) -> Bag:
        return _bag(text)

    def best(self, token: str) -> float:
        """How well the best token of this text matches ``token``."""
        score = max((similarity(token, w) for w in self.words), default=0.0)
        if score < 1.0 and self.joined:
            score = max(score, 0.95 * max(similarity(token, j) for j in self.joined))
        return score

    def content(self) -> list[str]:
        return [w for w in self.words if w not in STOPWORDS]


@lru_cache(maxsize=32768)
def _bag(text: str) -> Bag:
    """Bags are immutable, and a page repeats its texts (a section's heading, a row's cells): made once."""
    words = tuple(tokens(text))
    joined = tuple(a + b for a, b in pairwise(words))
    return Bag(words, joined, frozenset(words), frozenset(joined))


class Fits:
    """One word's similarity to every token of a page, worked out once per page: scoring thousands of
    elements then only looks at the few tokens of each that fit the word at all."""

    def __init__(self, word: str, vocabulary: Iterable[str]) -> None:
        self.word = word
        self.fits = {token: fit for token in vocabulary if (fit := similarity(word, token)) > 0}
        self._memo: dict[int, float] = {}  # id(bag) -> best: a page repeats its texts, and bags are shared

    def best_in(self, bag: Bag) -> float:
        """``bag.best(word)``, for a bag whose tokens are all in the vocabulary."""
        known = self._memo.get(id(bag))
        if known is not None:
            return known
        fits = self.fits
        score = max((fits[t] for t in bag.word_set & fits.keys()), default=0.0)
        if score < 1.0 and bag.joined:
            joined = max((fits[t] for t in bag.joined_set & fits.keys()), default=0.0)
            score = max(score, 0.95 * joined)
        self._memo[id(bag)] = score
        return score


def number_in(text: str) -> float | None:
    """The one number a short text states ("$7.99" → 7.99, "1,234 items" → 1234), else None."""
    found = numbers_in(text)
    return found[0] if len(found) == 1 else None


def numbers_in(text: str) -> list[float]:
    """Every number a text states, in order: "$7.99", "-3", "1,234"; not the 2 of "v2" or "2px"."""
    values = []
    for match in _NUMBER.finditer(text):
        value = _parse_digits(match.group(2))
        if value is not None:
            values.append(-value if match.group(1) else value)
    return values


def _parse_digits(digits: str) -> float | None:
    if not digits or not digits[0].isdigit():
        return None
    # "1,234.5" (thousands) and "7,99" (a decimal comma) both occur; a lone comma before 1-2 digits at
    # the end is a decimal comma, otherwise commas group thousands.
    if "," in digits and "." not in digits and re.fullmatch(r"[0-9]+,[0-9]{1,2}", digits):
        digits = digits.replace(",", ".")
    else:
        digits = digits.replace(",", "")
    try:
        return float(digits)
    except ValueError:
        return None


def same_number(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def plain_number(value: float) -> int | float:
    """7.0 → 7: what a person (and a JSON reader) expects for a whole count."""
    return int(value) if value.is_integer() else value


def contains_phrase(haystack: str, needle: str) -> bool:
    """Whether the words of ``needle`` appear together, in order, in ``haystack`` (folded)."""
    wanted = normal(needle)
    return bool(wanted) and f" {wanted} " in f" {normal(haystack)} "


def join_texts(texts: Iterable[str]) -> str:
    return " ".join(t for t in texts if t)


@dataclass(frozen=True)
class PageFits:
    """A description's words against one page: each word's fits, and every token that fits one of them
    (an element with none of those tokens scores no word, and is not looked at further)."""

    by_word: dict[str, Fits]
    any: frozenset[str]

    @classmethod
    def of(cls, words: Iterable[str], vocabulary: Iterable[str]) -> PageFits:
        vocabulary = tuple(vocabulary)
        by_word = {word: Fits(word, vocabulary) for word in words}
        return cls(by_word, frozenset().union(*(f.fits.keys() for f in by_word.values())))
