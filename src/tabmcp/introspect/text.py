"""Text that goes from a page into a tool listing: cleaned, capped, and turned into names.

Everything a page wrote (labels, button texts, WebMCP names and descriptions) passes through
``clean`` before a model sees it: invisible formatting characters are removed (they hide text from
a human reviewer: bidi overrides, zero-width characters, Unicode tag characters used for "ASCII
smuggling"), control characters become spaces, whitespace collapses, and the length is capped.
``guard/untrusted.py`` uses the same functions for page text in tool results.
"""

from __future__ import annotations

import re

# Characters that hide text from a person reading along: soft hyphen, zero-width and bidi controls,
# word joiners, BOM, interlinear annotation marks, the Unicode tag block (invisible copies of ASCII).
# All are outside ASCII. Removed: "de\u200blete" reads "delete".
_FORMATTING = re.compile(
    "[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]"
)
# Control characters other than tab and line breaks, and the Unicode line separators: made spaces.
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]")
ELLIPSIS = "…"
UNTRUSTED_PREFIX = "[From the web page, untrusted] "
UNTRUSTED_NOTE = "Labels come from the page (untrusted)."
TOOL_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
MAX_NAME = 40
PARAM_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")  # what MCP clients (and the Claude API) accept as keys
# Words that make a form, a button or a page's form tool destructive (the MCP ``destructiveHint``).
DESTRUCTIVE_WORDS = re.compile(
    r"\b(delete|remove|destroy|erase|discard|trash|wipe|purge|revoke|unsubscribe|deactivate|"
    r"close (?:my |your |the )?account|cancel (?:my |your |the )?(?:order|subscription|booking|reservation|account)|"
    r"empty (?:the )?(?:trash|bin|cart))\b",
    re.I,
)


def without_formatting(text: str) -> str:
    """``text`` without the invisible formatting characters (free for ASCII text: the snapshot's hot path)."""
    if text.isascii():
        return text
    return _FORMATTING.sub("", text) if _FORMATTING.search(text) else text


def visible(text: str) -> str:
    """``text`` without invisible formatting and control characters (tabs and line breaks stay)."""
    text = without_formatting(text)
    return _CONTROLS.sub(" ", text) if _CONTROLS.search(text) else text


def clean(text: object, limit: int | None = None) -> str:
    """One line of visible text, at most ``limit`` characters (an ellipsis marks a cut)."""
    if not isinstance(text, str):
        return ""
    if limit is not None:
        text = text[: limit * 4 + 64]  # bound the work on hostile input before the regexes run
    text = " ".join(visible(text).split())
    return cap(text, limit) if limit is not None else text


# Parts of a control's name that change while the control does not: counters ("Star 1.2k", "Inbox
# (3)") and keyboard-shortcut hints ("Send (Ctrl-Enter)"). Left out of names, titles and
# descriptions, so a new count is not a new tool (and no list_changed).
_COUNTER = re.compile(r"[(\[]?\b\d[\d.,]*\s*[kKmM]?\b[)\]]?")
# Only the unmistakable counters: in brackets ("(847)") or abbreviated ("1.2k").
_MARKED_COUNTER = re.compile(r"[(\[]\s*\d[\d.,]*\s*[kKmM]?\s*[)\]]|\b\d[\d.,]*[kKmM]\b")
_SHORTCUT = re.compile(r"[(\[]\s*(?:ctrl|control|cmd|command|alt|option|shift|meta|⌘|⌥|⇧|⌃)\b[^)\]]*[)\]]", re.I)


def without_counters(text: str, *, every_number: bool = True) -> str:
    """``every_number``: a button's numbers are counters ("Issues 12"); a form's label may number
    it ("Save 1"), so there only bracketed or abbreviated counts go."""
    counter = _COUNTER if every_number else _MARKED_COUNTER
    return " ".join(counter.sub(" ", _SHORTCUT.sub(" ", visible(text))).split())


def cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    if limit <= 1:
        return text[:limit]
    return text[: limit - 1].rstrip() + ELLIPSIS


def cap_words(text: str, limit: int) -> str:
    """``cap`` at a word boundary: a title is never cut mid-word ("Toggle theme (current theme" is
    not a name), and a bracket the cut would leave open is dropped with its contents."""
    if len(text) <= limit:
        return balanced(text)
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > 0 and not text[limit - 1].isspace():  # the cut falls inside a word: back to its start
        cut = cut[:space]
    return (balanced(cut.rstrip(" ,;:-–(")) or text[: limit - 1]) + ELLIPSIS


def balanced(text: str) -> str:
    """``text`` without a trailing part whose opening bracket is never closed."""
    for opening, closing in ("()", "[]"):
        while text.count(opening) > text.count(closing):
            text = text[: text.rfind(opening)].rstrip(" ,;:-–")
    return text


def quoted(text: str, limit: int = 60) -> str:
    """Page text inside a description: cleaned, capped, and in quotes so it reads as data."""
    return '"' + clean(text, limit).replace('"', "'") + '"'


def snake(text: str) -> str:
    """``"Search flights"`` → ``search_flights``; empty when nothing usable is left (no ASCII letters)."""
    words = re.findall(r"[a-z0-9]+", text.lower().replace("'", "").replace("’", ""))
    name = "_".join(words)[:MAX_NAME].strip("_")
    return name if name and name[0].isalpha() else ""


_NUMBER_WORD = re.compile(r"(?<![\w.,])\d[\d.,]*(?![\w])")


def name_words(text: str) -> str:
    """``snake`` for a name made from page text: numbers are left out (a count, a row's id or a
    position is live data, and a name must stay the same while the page's data changes)."""
    return snake(_NUMBER_WORD.sub(" ", text))


def tool_name(text: str) -> str:
    """A page-given name in our style, still recognisable: ``searchFlights`` → ``search_flights``,
    ``search-cars`` → ``search_cars``, ``HTTPRequest`` → ``http_request``."""
    text = clean(text, 200)
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", text)
    return snake(text)


def valid_name(wanted: str) -> str:
    """Any name made a valid tool name (``TOOL_NAME``): lower-cased, other characters become ``_``,
    a leading digit gets ``page_``, cut at 40. The registry's last word on a tool's name."""
    name = re.sub(r"[^a-z0-9_]+", "_", str(wanted).lower()).strip("_") or "page_tool"
    if not name[0].isalpha():
        name = f"page_{name}"
    return name[:MAX_NAME].rstrip("_")


def param_name(raw: str, taken: set[str]) -> str:
    """An argument name clients accept (``^[A-Za-z0-9_.-]{1,64}$``), unique among ``taken``:
    ``user[email]`` → ``user_email``, ``_sort`` → ``sort``. Other names that fit are kept as they are."""
    name = raw if PARAM_NAME.match(raw) else re.sub(r"[^A-Za-z0-9_.-]+", "_", raw).strip("_")[:64]
    # a leading underscore marks a framework's own parameters (``_filter_column``, ``_sort``): no word
    name = name.strip("_") or "value"
    candidate, n = name, 2
    while candidate in taken:
        suffix = f"_{n}"
        candidate = name[: 64 - len(suffix)] + suffix
        n += 1
    return candidate
