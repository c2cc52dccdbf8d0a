"""Sections of docs/benchmarks.md that different benchmark entry points own.

``bench.run`` rewrites the whole file (the peers' figures); ``bench.tasks`` and the capture→tool list
section own marked blocks inside it. A block is everything between ``<!-- bench:KEY -->`` and
``<!-- /bench:KEY -->``; whoever rewrites the file carries the other blocks over.
"""

from __future__ import annotations

import re

BLOCK = re.compile(r"<!-- bench:(?P<key>[\w-]+) -->\n.*?<!-- /bench:(?P=key) -->\n?", re.S)


def block(key: str, body: str) -> str:
    return f"<!-- bench:{key} -->\n{body.rstrip()}\n<!-- /bench:{key} -->\n"


def put(text: str, key: str, body: str) -> str:
    """``text`` with block ``key`` replaced by ``body`` (appended at the end when it is not there yet)."""
    new = block(key, body)
    for found in BLOCK.finditer(text):
        if found.group("key") == key:
            return text[: found.start()] + new + text[found.end() :]
    return text.rstrip("\n") + "\n\n" + new


def carry(new_text: str, old_text: str) -> str:
    """``new_text`` plus every block of ``old_text`` it does not have, in their old order."""
    have = {m.group("key") for m in BLOCK.finditer(new_text)}
    for found in BLOCK.finditer(old_text):
        if found.group("key") not in have:
            new_text = new_text.rstrip("\n") + "\n\n" + found.group(0)
    return new_text
