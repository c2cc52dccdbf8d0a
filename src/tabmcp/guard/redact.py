"""What the audit log must not hold: password arguments and configured secrets.

Pure. ``Redaction`` is built per call from the configured ``secrets`` and the values of the call's
password arguments, so a password also disappears from the error message it may turn up in
(``Cannot fill … with "hunter2"``). A secret is replaced wherever it appears, also inside a longer
string (a URL with a token in its query, an ``evaluate`` expression), and in keys of nested objects.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from tabmcp.echo import escaped

REDACTED = "[redacted]"
MAX_STRING = 4000  # an audit line records what was asked, not megabytes of it
MAX_ITEMS = 200
MAX_DEPTH = 8


class Redaction:
    """Replaces every occurrence of the given values in text (longest first, so a secret that
    contains another is replaced whole)."""

    def __init__(self, values: Iterable[str]) -> None:
        kept = sorted({v for v in values if isinstance(v, str) and v}, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, kept))) if kept else None

    def text(self, text: str) -> str:
        return self._pattern.sub(REDACTED, text) if self._pattern is not None else text

    def value(self, value: Any, depth: int = 0) -> Any:
        """A JSON value with every string redacted and bounded (long strings cut, deep or long
        structures summarised), safe to write as one line."""
        if isinstance(value, str):
            return _cut(self.text(value))
        if value is None or isinstance(value, bool | int | float):
            return value
        if depth >= MAX_DEPTH:
            return "[nested too deep]"
        if isinstance(value, Mapping):
            items = list(value.items())
            out = {_cut(self.text(str(k)), 200): self.value(v, depth + 1) for k, v in items[:MAX_ITEMS]}
            if len(items) > MAX_ITEMS:
                out["…"] = f"{len(items) - MAX_ITEMS} more keys"
            return out
        if isinstance(value, list | tuple):
            out_list = [self.value(v, depth + 1) for v in value[:MAX_ITEMS]]
            if len(value) > MAX_ITEMS:
                out_list.append(f"… {len(value) - MAX_ITEMS} more items")
            return out_list
        return _cut(self.text(repr(value)))

    def whole(self, value: Any) -> Any:
        """A JSON value with every string (and key) redacted, nothing cut: a recording must stay
        replayable."""
        if self._pattern is None:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.text(str(k)): self.whole(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.whole(v) for v in value]
        return value


def redact_arguments(
    arguments: Mapping[str, Any], sensitive: Collection[str], secrets: Iterable[str]
) -> tuple[dict[str, Any], Redaction]:
    """The arguments as the audit log shows them, and the redaction to apply to the rest of the
    line. ``sensitive``: names of arguments that hold a password (their whole value goes)."""
    hidden = [_plain(arguments[name]) for name in sensitive if arguments.get(name) is not None]
    redaction = Redaction([*secrets, *(v for v in hidden if v)])
    shown = {
        key: REDACTED if key in sensitive and value is not None else redaction.value(value)
        for key, value in arguments.items()
    }
    return shown, redaction


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return ""  # true/false is no secret, and replacing every "true" would hide everything
    return value if isinstance(value, str) else str(value)


def _cut(text: str, limit: int = MAX_STRING) -> str:
    return escaped(text, limit)
