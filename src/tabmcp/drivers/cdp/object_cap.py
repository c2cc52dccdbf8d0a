"""A cap on the objects Playwright keeps, set in its node driver as it starts.

Playwright keeps a ``Request`` and a ``Response`` for every navigation of a page (whether anyone
listens or not) until the page closes, up to 10,000 of each kind, in its node driver and in the
Python client: a long-lived tab grows both by kilobytes per navigation. ``object_cap.js`` is loaded
into the driver before Playwright (``NODE_OPTIONS=--require``) and lowers that limit for those two
kinds only; past it the oldest are released on both sides (docs/decisions.md).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

PRELOAD = Path(__file__).with_name("object_cap.js")
CAP_VARIABLE = "TABMCP_PLAYWRIGHT_OBJECT_CAP"


@contextlib.contextmanager
def playwright_object_cap(cap: int) -> Iterator[None]:
    """While Playwright starts its driver: the environment it inherits carries the preload and the cap."""
    saved = {name: os.environ.get(name) for name in ("NODE_OPTIONS", CAP_VARIABLE)}
    options = saved["NODE_OPTIONS"] or ""
    os.environ["NODE_OPTIONS"] = f'{options} --require "{PRELOAD}"'.strip()
    os.environ[CAP_VARIABLE] = str(cap)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
