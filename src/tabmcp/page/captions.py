"""The line of text sent beside a screenshot: what it shows, its size, the page area it covers. Pure.

A model reads the image and this line together; the line says what the pixels cannot (which page,
which element, where on the page, whether it was scaled), so the model need not guess from pixels.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["caption"]

TITLE_MAX = 80
URL_MAX = 120
KINDS = {"viewport": "viewport", "full": "full page", "element": "element"}


def caption(
    kind: str,
    *,
    width: int,
    height: int,
    mime_type: str,
    url: str = "",
    title: str = "",
    element: Mapping[str, Any] | None = None,
    area: Mapping[str, Any] | None = None,
    scaled_from: tuple[int, int] | None = None,
    converted_under: int | None = None,
) -> str:
    """One line, e.g. ``viewport of "Shop" (https://shop.example/): 1280x720 image/png, page area x 0-1280,
    y 300-1020 CSS px``; ``element``: ``{ref, role, name}`` of the element cropped."""
    what = KINDS.get(kind, kind)
    if element:
        ref, role, name = (str(element.get(k) or "") for k in ("ref", "role", "name"))
        what += "".join(f" {part}" for part in (ref, role) if part) + (f' "{_cut(name, TITLE_MAX)}"' if name else "")
    page = " ".join(part for part in (f'"{_cut(title, TITLE_MAX)}"' if title else "", _cut(url, URL_MAX)) if part)
    if page:
        what += (" on " if element else " of ") + page
    line = f"{what}: {width}x{height} {mime_type}"
    shown = _area(area)
    if shown:
        line += f", page area {shown} CSS px"
    if scaled_from is not None:
        line += f", scaled from {scaled_from[0]}x{scaled_from[1]}"
    if converted_under is not None:
        line += f", sent as JPEG to stay under {converted_under} bytes"
    return line


def _area(area: Mapping[str, Any] | None) -> str:
    if not area:
        return ""
    try:
        x, y, w, h = (float(area[k]) for k in ("x", "y", "width", "height"))
    except (KeyError, TypeError, ValueError):
        return ""
    return f"x {round(x)}-{round(x + w)}, y {round(y)}-{round(y + h)}"


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
