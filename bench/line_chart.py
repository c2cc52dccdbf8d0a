"""Line charts as PNG files, drawn with Pillow in the style of ``bench/charts.py`` (its colours, fonts,
grid): one panel per measured quantity, one line per series, stacked in one picture."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw

from bench.charts import BACKGROUND, FAINT, GRID, INK, MARGIN, WIDTH, _font, _nice_step, _short, colour_of

PANEL_H = 190
TITLE_H = 30
PANEL_TITLE_H = 22
AXIS_H = 22
PANEL_GAP = 10
LEFT = 64  # the y-axis labels
LEGEND_W = 190  # right of the plot: the series names


@dataclass(frozen=True)
class Line:
    series: str
    points: tuple[tuple[float, float], ...]  # (x, y), x ascending


@dataclass(frozen=True)
class Panel:
    title: str  # "server RSS, MB"
    lines: tuple[Line, ...]


@dataclass(frozen=True)
class LineChart:
    title: str
    x_axis: str
    panels: tuple[Panel, ...]


def _ticks(low: float, high: float) -> tuple[float, float, list[float]]:
    """A rounded range holding [low, high] and its grid values."""
    step = _nice_step(max(high - low, 1e-9) / 4)
    start = math.floor(low / step) * step
    end = max(start + step, math.ceil(high / step) * step)
    count = round((end - start) / step)
    return start, end, [start + i * step for i in range(count + 1)]


def render(chart: LineChart, width: int = WIDTH) -> Image.Image:
    block = PANEL_TITLE_H + PANEL_H + AXIS_H + PANEL_GAP
    height = MARGIN * 2 + TITLE_H + len(chart.panels) * block + AXIS_H
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    text, small, bold = _font(13), _font(11), _font(16)
    order = list(dict.fromkeys(line.series for panel in chart.panels for line in panel.lines))
    draw.text((MARGIN, MARGIN), chart.title, font=bold, fill=INK)
    xs = [x for panel in chart.panels for line in panel.lines for x, _ in line.points]
    x_low, x_high, x_grid = _ticks(min(xs, default=0.0), max(xs, default=1.0))
    left, right = MARGIN + LEFT, width - MARGIN - LEGEND_W
    top = MARGIN + TITLE_H
    for panel in chart.panels:
        top += PANEL_TITLE_H
        ys = [y for line in panel.lines for _, y in line.points]
        y_low, y_high, y_grid = _ticks(0.0, max(ys, default=1.0) * 1.05)  # from 0: growth at its true size
        bottom = top + PANEL_H

        def at(
            x: float, y: float, bottom: int = bottom, y_low: float = y_low, y_high: float = y_high
        ) -> tuple[int, int]:
            fx = (x - x_low) / (x_high - x_low)
            fy = (y - y_low) / (y_high - y_low)
            return round(left + fx * (right - left)), round(bottom - fy * PANEL_H)

        draw.text((MARGIN, top - 4), panel.title, font=text, fill=INK, anchor="lb")
        for y in y_grid:
            _, py = at(x_low, y)
            draw.line([(left, py), (right, py)], fill=GRID)
            draw.text((left - 6, py), _short(round(y, 1)), font=small, fill=FAINT, anchor="rm")
        for x in x_grid:
            px, _ = at(x, y_low)
            draw.line([(px, top), (px, bottom)], fill=GRID)
            draw.text((px, bottom + 4), _short(x), font=small, fill=FAINT, anchor="mt")
        legend_y = top + 6
        for line in panel.lines:
            colour = colour_of(line.series, order)
            points = [at(x, y) for x, y in line.points]
            if len(points) > 1:
                draw.line(points, fill=colour, width=3)
            for px, py in points:
                draw.ellipse([px - 3, py - 3, px + 3, py + 3], fill=colour)
            last = line.points[-1][1] if line.points else 0.0
            draw.rectangle([right + 12, legend_y, right + 24, legend_y + 12], fill=colour)
            draw.text((right + 30, legend_y + 6), f"{line.series} ({last:.0f})", font=small, fill=INK, anchor="lm")
            legend_y += 18
        top = bottom + AXIS_H + PANEL_GAP
    draw.text(((left + right) // 2, top), chart.x_axis, font=small, fill=FAINT, anchor="mt")
    return image


def save(chart: LineChart, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    render(chart).save(path, format="PNG", optimize=True)
    return path
