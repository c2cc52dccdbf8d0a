"""The sliver of TOON that tabmcp writes: ``key: value`` lines and flat arrays (tabular or inline).

``toon_format.encode`` builds a whole document from a whole object. Snapshot pages must stop at a
character budget on a row boundary, and a 10,000-row snapshot is paged many times, so rows are
encoded once here and pages are cut from them. The quoting rules are the spec's (§7.2) exactly as
``toon_format`` 1.2 applies them; the unit tests hold this module to that reference.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["clean", "encode_string", "inline_array", "key_value", "table_header"]

# One search finds most reasons to look closer: the delimiter, structural characters, controls, lone
# surrogates, line separators. The first and last characters are checked apart (faster than anchors).
_SUSPECT = re.compile('[,:"\\\\\\[\\]{}\x00-\x1f\x85\u2028\u2029\ud800-\udfff]').search
# Quoted as "looks like a number", wider than what decodes as one ("05", "+1"), like the reference.
_NUMERIC_LIKE = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_LITERALS = frozenset({"true", "false", "null"})
# Characters that have no faithful TOON form: strict TOON has only the \\ \" \n \r \t escapes, a lone
# surrogate cannot be written as UTF-8, and U+0085/U+2028/U+2029 split lines for readers that use
# Unicode line breaks. Page text is hostile, so these become U+FFFD instead of breaking the document.
_UNWRITABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x85\u2028\u2029\ud800-\udfff]")
_STRUCTURAL = re.compile('[,:"\\\\\\[\\]{}\x00-\x1f]')


def clean(text: str) -> str:
    """Replace characters TOON (or UTF-8) cannot carry with U+FFFD; everything else is kept."""
    return _UNWRITABLE.sub("\ufffd", text) if _UNWRITABLE.search(text) else text


def _needs_quotes(value: str) -> bool:
    return (
        not value
        or value[0] in " \t-#"
        or value[-1] in " \t"
        or value in _LITERALS
        or _STRUCTURAL.search(value) is not None
        or (value[0] in "+0123456789" and _NUMERIC_LIKE.fullmatch(value) is not None)
    )


def encode_string(value: str) -> str:
    """A string as one TOON token (comma delimiter), quoted only when the spec requires it."""
    if (
        value
        and value[0] not in " #-"
        and value[-1] != " "
        and not _SUSPECT(value)
        and value not in _LITERALS
        and (value[0] not in "+0123456789" or _NUMERIC_LIKE.fullmatch(value) is None)
    ):
        return value  # the fast path: most names need no quotes
    value = clean(value)
    if not _needs_quotes(value):
        return value
    if '"' in value or "\\" in value:
        value = value.replace("\\", "\\\\").replace('"', '\\"')
    if "\n" in value or "\r" in value or "\t" in value:
        value = value.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return '"' + value + '"'


def key_value(key: str, value: str) -> str:
    """One ``key: value`` line; ``key`` is one of ours (a plain identifier), ``value`` any text."""
    return f"{key}: {encode_string(value)}"


def table_header(key: str, count: int, fields: Iterable[str]) -> str:
    """The header of a tabular array; its rows follow, indented by two spaces."""
    if count == 0:
        return f"{key}: []"
    return f"{key}[{count}]{{{','.join(fields)}}}:"


def inline_array(key: str, encoded: list[str]) -> str:
    """An array of primitives on one line; ``encoded`` holds tokens from :func:`encode_string`."""
    if not encoded:
        return f"{key}: []"
    return f"{key}[{len(encoded)}]: {','.join(encoded)}"
