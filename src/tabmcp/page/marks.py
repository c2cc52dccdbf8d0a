"""Set-of-marks: snapshot refs drawn on a screenshot, so a vision model can name what it sees.

The page agent reports the interactive elements on screen with their refs and rectangles (CSS px);
``place`` turns those into boxes on the captured image, ``draw`` outlines each box and labels it with
its ref (after the image is cropped and scaled, so labels stay readable), and ``listing`` is the text
that names them. Drawn here with Pillow, not in the page: the page is never changed. Pure.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw, ImageFont

__all__ = ["LISTED_MAX", "Mark", "draw", "listing", "place"]

LISTED_MAX = 60  # marks named in the text; the image shows them all
NAME_MAX = 60
FONT_PX = 13
# Dark colours under white text, in turn, so neighbouring marks tell apart.
COLOURS = ((200, 0, 0), (0, 90, 200), (0, 130, 0), (160, 0, 160), (200, 90, 0), (0, 120, 130))

Box = tuple[float, float, float, float]  # x, y, width, height


@dataclass(frozen=True, slots=True)
class Mark:
    """One element to mark: its snapshot ref, role, name and box (px of the image it is placed on)."""

    ref: str
    role: str
    name: str
    box: Box


def place(
    found: Iterable[Mapping[str, Any]], *, origin: tuple[float, float], scale: float, size: tuple[int, int]
) -> list[Mark]:
    """The agent's marks (``{ref, role, name, x, y, width, height}``, CSS px) on an image whose top left
    is ``origin`` in the same CSS px, at ``scale`` image px per CSS px, ``size`` px large; a mark is
    clipped to the image, and left out when nothing of it is on it."""
    marks = []
    for m in found:
        try:
            x, y, w, h = (float(m[k]) for k in ("x", "y", "width", "height"))
        except (KeyError, TypeError, ValueError):
            continue
        if not all(math.isfinite(v) for v in (x, y, w, h)) or not m.get("ref"):
            continue
        left, top = (x - origin[0]) * scale, (y - origin[1]) * scale
        box = _clipped((left, top, w * scale, h * scale), size)
        if box is not None:
            marks.append(Mark(str(m["ref"]), str(m.get("role") or ""), str(m.get("name") or ""), box))
    return marks


def moved(marks: Sequence[Mark], *, crop: Box, factor: tuple[float, float], size: tuple[int, int]) -> list[Mark]:
    """``marks`` after the image is cropped to ``crop`` and resized by ``factor``; those off it left out."""
    out = []
    for m in marks:
        x, y, w, h = m.box
        box = ((x - crop[0]) * factor[0], (y - crop[1]) * factor[1], w * factor[0], h * factor[1])
        clipped = _clipped(box, size)
        if clipped is not None:
            out.append(Mark(m.ref, m.role, m.name, clipped))
    return out


def draw(image: Image.Image, marks: Sequence[Mark]) -> Image.Image:
    """``image`` with each mark's box outlined and its ref in a small label at its top left corner
    (above the box where there is room, inside it otherwise)."""
    if not marks:
        return image
    if image.mode not in ("RGB", "RGBA"):
        image = image.convert("RGBA" if "A" in image.getbands() or "transparency" in image.info else "RGB")
    canvas = ImageDraw.Draw(image)
    font = _font()
    for i, mark in enumerate(marks):
        colour = COLOURS[i % len(COLOURS)]
        x, y, w, h = mark.box
        canvas.rectangle((x, y, x + max(w, 1) - 1, y + max(h, 1) - 1), outline=colour, width=2)
        left, top, right, bottom = canvas.textbbox((0, 0), mark.ref, font=font)
        label_w, label_h = right - left + 4, bottom - top + 2
        lx = min(max(0.0, x), max(0.0, image.width - label_w))
        ly = y - label_h if y - label_h >= 0 else min(y, max(0.0, image.height - label_h))
        canvas.rectangle((lx, ly, lx + label_w - 1, ly + label_h - 1), fill=colour)
        canvas.text((lx + 2 - left, ly + 1 - top), mark.ref, fill=(255, 255, 255), font=font)
    return image


def listing(marks: Sequence[Mark], total: int) -> str:
    """The marks as text lines (``ref role "name"``), at most LISTED_MAX; ``total``: how many the page had
    on screen (more than drawn when the agent capped them)."""
    total = max(total, len(marks))
    if not marks:
        return "marks: none (no interactive element on this image)"
    head = f"marks: {len(marks)}" + (f" of {total}" if total > len(marks) else "") + " (ref role name, as in snapshot)"
    lines = [head]
    for m in marks[:LISTED_MAX]:
        name = m.name if len(m.name) <= NAME_MAX else m.name[: NAME_MAX - 1] + "…"
        lines.append(f"{m.ref} {m.role}" + (f' "{name}"' if name else ""))
    if len(marks) > LISTED_MAX:
        lines.append(f"… {len(marks) - LISTED_MAX} more drawn: take a snapshot for the rest")
    return "\n".join(lines)


def _clipped(box: Box, size: tuple[int, int]) -> Box | None:
    x, y, w, h = box
    left, top = max(0.0, x), max(0.0, y)
    right, bottom = min(float(size[0]), x + w), min(float(size[1]), y + h)
    if right - left < 1 or bottom - top < 1:
        return None
    return left, top, right - left, bottom - top


@functools.cache
def _font() -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:  # Pillow's own scalable font: no system font needed
        return ImageFont.load_default(size=FONT_PX)
    except (TypeError, OSError, ImportError):  # an older Pillow, or one without FreeType
        return ImageFont.load_default()
