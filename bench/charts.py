"""Horizontal bar charts as PNG files, drawn with Pillow.

Pillow is already a tabmcp dependency (screenshots), so the benchmark report's pictures need no plotting
library: ``make bench`` works in the venv ``make test`` builds. A chart is data (``Chart``); ``render``
is the only drawing code, and the unit tests measure the bars it draws.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

# One colour per server, the same in every chart; others get the fallback palette in order.
COLOURS: dict[str, tuple[int, int, int]] = {
    "tabmcp": (22, 150, 120),
    "tabmcp (CDP)": (110, 200, 170),
    "Playwright MCP": (140, 80, 170),
    "Chrome DevTools MCP": (60, 120, 210),
}
FALLBACK = [(230, 140, 40), (200, 70, 70), (120, 120, 120), (90, 160, 60)]
BACKGROUND = (255, 255, 255)
INK = (34, 34, 34)
FAINT = (150, 150, 150)
GRID = (228, 228, 228)

WIDTH = 960
MARGIN = 16
LABEL_W = 200  # the series names left of the bars
VALUE_W = 190  # room right of the longest bar for its value text
BAR_H = 18
BAR_GAP = 4
GROUP_GAP = 12
TITLE_H = 30
AXIS_H = 22


@dataclass(frozen=True)
class Bar:
    series: str  # whose figure (a server): picks the colour and labels the bar
    value: float
    text: str  # printed right of the bar, e.g. "14.6 ms (p90 25.1)"
    name: str = ""  # the label left of the bar when it is not just the series ("tabmcp: counter.html")
    part: float = 0.0  # a first share of the value drawn darker (tool results, of results + tools/list)


@dataclass(frozen=True)
class Group:
    label: str  # a heading above its bars; "" for none
    bars: tuple[Bar, ...]


@dataclass(frozen=True)
class Chart:
    title: str
    axis: str  # what the bars measure, under the plot: "characters, log scale"
    groups: tuple[Group, ...]
    log: bool = False  # for figures that span orders of magnitude (snapshot sizes)


def colour_of(series: str, order: list[str]) -> tuple[int, int, int]:
    if series in COLOURS:
        return COLOURS[series]
    others = [s for s in order if s not in COLOURS]
    return FALLBACK[others.index(series) % len(FALLBACK)]


def scale(chart: Chart) -> tuple[Callable[[float], float], list[tuple[float, str]]]:
    """The fraction of the plot's width for a value, and the grid lines (fraction, label)."""
    values = [b.value for g in chart.groups for b in g.bars if b.value > 0]
    top = max(values, default=1.0)
    if chart.log:
        low = math.floor(math.log10(min(values, default=1.0)))
        high = max(low + 1, math.ceil(math.log10(top)))

        def fraction(value: float) -> float:
            return 0.0 if value <= 0 else max(0.0, (math.log10(value) - low) / (high - low))

        grid = [((d - low) / (high - low), _short(10.0**d)) for d in range(low, high + 1)]
        # a bar as long as the smallest decade would be invisible: bars start one decade below it
        return (lambda v: 0.04 + 0.96 * fraction(v)), [(0.04 + 0.96 * f, t) for f, t in grid]
    step = _nice_step(top / 4)
    ticks = math.ceil(top / step)
    span = step * ticks
    return (lambda v: max(0.0, v) / span), [(i * step / span, _short(i * step)) for i in range(ticks + 1)]


def _nice_step(raw: float) -> float:
    if raw <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)


def _short(value: float) -> str:
    for limit, suffix in ((1e6, "M"), (1e3, "k")):
        if value >= limit:
            return f"{value / limit:g}{suffix}"
    return f"{value:g}"


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def render(chart: Chart, width: int = WIDTH) -> Image.Image:
    bars = sum(len(g.bars) for g in chart.groups)
    headed = sum(1 for g in chart.groups if g.label)
    height = (
        MARGIN * 2
        + TITLE_H
        + AXIS_H * 2
        + bars * (BAR_H + BAR_GAP)
        + headed * (BAR_H + 2)
        + len(chart.groups) * GROUP_GAP
    )
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    text, small, bold = _font(13), _font(11), _font(16)
    left = MARGIN + LABEL_W
    plot_w = width - left - MARGIN - VALUE_W
    fraction, grid = scale(chart)
    order = list(dict.fromkeys(b.series for g in chart.groups for b in g.bars))

    draw.text((MARGIN, MARGIN), chart.title, font=bold, fill=INK)
    top = MARGIN + TITLE_H
    bottom = height - MARGIN - AXIS_H * 2
    for at, label in grid:
        x = left + round(at * plot_w)
        draw.line([(x, top), (x, bottom)], fill=GRID)
        draw.text((x, bottom + 4), label, font=small, fill=FAINT, anchor="mt")
    draw.text((left + plot_w // 2, bottom + AXIS_H + 2), chart.axis, font=small, fill=FAINT, anchor="mt")

    y = top
    for group in chart.groups:
        if group.label:
            draw.text((MARGIN, y + 2), group.label, font=text, fill=INK)
            y += BAR_H + 2
        for bar in group.bars:
            length = round(min(1.0, fraction(bar.value)) * plot_w)
            draw.text((MARGIN + 12, y + BAR_H // 2), bar.name or bar.series, font=text, fill=INK, anchor="lm")
            if length > 0:
                colour = colour_of(bar.series, order)
                draw.rectangle([left, y, left + length - 1, y + BAR_H - 1], fill=colour)
                if 0 < bar.part < bar.value:
                    inner = max(1, round(length * bar.part / bar.value)) if not chart.log else 0
                    darker = tuple(round(c * 0.6) for c in colour)
                    draw.rectangle([left, y, left + inner - 1, y + BAR_H - 1], fill=darker)
            draw.text((left + length + 6, y + BAR_H // 2), bar.text, font=text, fill=INK, anchor="lm")
            y += BAR_H + BAR_GAP
        y += GROUP_GAP
    return image


def save(chart: Chart, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    render(chart).save(path, format="PNG", optimize=True)
    return path
