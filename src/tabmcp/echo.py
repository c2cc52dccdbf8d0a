"""Caller input shown back in an error, a note or a log line: escaped and capped (pure).

A client may send megabytes, control characters or bidi overrides in any string. Echoing that
as it came makes answers as large as the input and lets hidden characters reach the reader (a
NUL, an ESC that drives a terminal, a U+202E that reverses the text a person reviews). So every
message that repeats caller text passes it through ``quote``: at most ``limit`` characters of it,
invisible and control characters written as escapes (``\\x00``, ``\\u202e``), and its full length
when cut, so the reader still learns how long the input was. ``escaped`` does the same for a
whole message (line breaks kept), as the last step before an error leaves the server.
"""

from __future__ import annotations

import unicodedata

MAX_QUOTED = 80  # of one echoed input: enough to recognise it, never the whole of a large one
MAX_MESSAGE = 4_000  # of one error message as a whole
APOSTROPHE = "'"  # quote(text, mark=APOSTROPHE) where a message names things 'like_this'
# Categories escaped: controls (Cc), invisible formatting incl. bidi and tag characters (Cf),
# surrogates (Cs), private use (Co), line and paragraph separators (Zl, Zp).
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _shown(char: str, keep: str) -> str:
    if char in keep or (char.isascii() and char.isprintable()):
        return char
    return _escape(char) if char.isascii() or unicodedata.category(char) in _HIDDEN else char


def _visible(text: str, limit: int, keep: str) -> tuple[str, bool]:
    """``text`` with hidden characters escaped, cut to ``limit`` characters; whether it was cut."""
    out: list[str] = []
    size = 0
    for char in text:
        piece = _shown(char, keep)
        if size + len(piece) > limit:
            return "".join(out), True
        out.append(piece)
        size += len(piece)
    return "".join(out), False


def quote(text: object, limit: int = MAX_QUOTED, mark: str = '"') -> str:
    """``text`` between ``mark``s, escaped, at most ``limit`` characters of it; when cut, its length follows:
    ``"aaaa…" (10,000 characters)``. Not a string: its ``str``."""
    value = text if isinstance(text, str) else str(text)
    head = value[: limit + 1]  # the work is bounded by the limit, not by the input
    shown, cut = _visible(head.replace("\\", "\\\\").replace(mark, "\\" + mark), limit, "")
    return f"{mark}{shown}…{mark} ({len(value):,} characters)" if cut else f"{mark}{shown}{mark}"


def escaped(text: str, limit: int = MAX_MESSAGE) -> str:
    """A whole message or field: hidden characters escaped (line breaks and tabs kept), at most ``limit``
    characters of it; when cut, how long it was."""
    shown, cut = _visible(text[: limit + 1], limit, "\n\t")
    return f"{shown}… (cut at {len(shown):,} of {len(text):,} characters)" if cut else shown
