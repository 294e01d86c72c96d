"""Template helpers for reports: number formatting and the charts (SVG heatmap, line chart,
box plot). What a chart shows is built by the kind (``Analysis.charts``, or a report type's fields)."""

from __future__ import annotations

import numpy as np
from django import template
from django.utils.html import format_html, format_html_join

register = template.Library()

CELL = 44
LABEL = 110


@register.filter
def fmt(value: float | int | None, digits: int = 3) -> str:
    """A figure for a table: fixed digits, an em dash when undefined."""
    if value is None:
        return "—"
    if isinstance(value, int):
        return str(value)
    return f"{value:.{digits}f}"


@register.filter
def split(value: str, separator: str = ",") -> list[str]:
    return value.split(separator)


@register.filter
def index(sequence: list | None, position: int):
    """``sequence[position]``, or None."""
    try:
        return sequence[position]
    except (IndexError, TypeError):
        return None


@register.filter
def get(mapping: dict | None, key: str):
    """``mapping[key]``, or None: for report dicts keyed by run, method or topic."""
    return mapping.get(key) if isinstance(mapping, dict) else None


def colour(value: float | None) -> str:
    """White at 0, deep blue at 1, red below 0; grey when undefined."""
    if value is None:
        return "#e5e5e5"
    v = max(-1.0, min(1.0, value))
    if v >= 0:
        r, g, b = (int(255 - (255 - c) * v) for c in (24, 78, 160))
    else:
        r, g, b = (int(255 - (255 - c) * -v) for c in (190, 40, 40))
    return f"#{r:02x}{g:02x}{b:02x}"


@register.simple_tag
def heatmap(assessors: list[str], matrix: list[list[float | None]], measure: str) -> str:
    """A symmetric assessors x assessors matrix as an SVG grid (no inline style or script, so CSP-safe)."""
    n = len(assessors)
    size = LABEL + n * CELL
    cells = []
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            x, y = LABEL + j * CELL, LABEL + i * CELL
            text_fill = "#fff" if value is not None and abs(value) > 0.55 else "#111"
            cells.append(
                (
                    x,
                    y,
                    CELL - 2,
                    CELL - 2,
                    colour(value),
                    assessors[i],
                    assessors[j],
                    measure,
                    fmt(value, 2),
                    x + CELL / 2,
                    y + CELL / 2 + 4,
                    text_fill,
                    fmt(value, 2),
                )
            )
    rects = format_html_join(
        "",
        '<g><rect x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{} vs {}: {} {}</title></rect>'
        '<text x="{}" y="{}" text-anchor="middle" font-size="11" fill="{}">{}</text></g>',
        cells,
    )
    column_labels = format_html_join(
        "",
        '<text x="{}" y="{}" font-size="11" transform="rotate(-45 {} {})">{}</text>',
        ((LABEL + j * CELL + 8, LABEL - 6, LABEL + j * CELL + 8, LABEL - 6, name) for j, name in enumerate(assessors)),
    )
    row_labels = format_html_join(
        "",
        '<text x="{}" y="{}" font-size="11" text-anchor="end">{}</text>',
        ((LABEL - 6, LABEL + i * CELL + CELL / 2 + 4, name) for i, name in enumerate(assessors)),
    )
    return format_html(
        '<svg class="heatmap" role="img" aria-label="Pairwise {} between assessors" '
        'width="{}" height="{}" viewBox="0 0 {} {}">{}{}{}</svg>',
        measure,
        size,
        size,
        size,
        size,
        column_labels,
        row_labels,
        rects,
    )


PALETTE = ["#184ea0", "#1f7a3d", "#b54708", "#7a2e8f", "#b42318", "#0e7c86", "#5c5f66", "#a15c07"]


@register.simple_tag
def line_chart(series: dict, *, x_label: str = "", y_label: str = "", width: int = 560, height: int = 300) -> str:
    """Lines of (x, y) points, one per label, as SVG with axes and a legend.

    ``series`` maps a label to a list of [x, y] pairs; None values are skipped.
    """
    points = [(x, y) for line in series.values() for x, y in line if x is not None and y is not None]
    if not points:
        return ""
    left, right, top, bottom = 52, 150, 12, 40
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    x0, x1 = min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1
    y0, y1 = min(ys), max(ys) if max(ys) > min(ys) else min(ys) + 1
    plot_w, plot_h = width - left - right, height - top - bottom

    def sx(x: float) -> float:
        return left + (x - x0) / (x1 - x0) * plot_w

    def sy(y: float) -> float:
        return top + (1 - (y - y0) / (y1 - y0)) * plot_h

    paths, legend = [], []
    for index, (label, line) in enumerate(series.items()):
        colour_ = PALETTE[index % len(PALETTE)]
        coords = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in line if x is not None and y is not None)
        paths.append(
            format_html(
                '<polyline fill="none" stroke="{}" stroke-width="2" points="{}"><title>{}</title></polyline>',
                colour_,
                coords,
                label,
            )
        )
        ly = top + 14 * index + 8
        legend.append(
            format_html(
                '<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="{}" stroke-width="2"/><text x="{}" y="{}" font-size="11">{}</text>',
                width - right + 10,
                width - right + 28,
                ly,
                ly,
                colour_,
                width - right + 32,
                ly + 4,
                label,
            )
        )
    ticks = []
    for fraction in (0, 0.25, 0.5, 0.75, 1):
        yv = y0 + fraction * (y1 - y0)
        xv = x0 + fraction * (x1 - x0)
        ticks.append(
            format_html(
                '<text x="{}" y="{}" font-size="10" text-anchor="end">{}</text>', left - 4, sy(yv) + 3, f"{yv:.3g}"
            )
        )
        ticks.append(
            format_html(
                '<text x="{}" y="{}" font-size="10" text-anchor="middle">{}</text>',
                sx(xv),
                height - bottom + 14,
                f"{xv:.3g}",
            )
        )
    axes = format_html(
        '<line x1="{l}" y1="{t}" x2="{l}" y2="{b}" stroke="#999"/><line x1="{l}" y1="{b}" x2="{r}" y2="{b}" stroke="#999"/>'
        '<text x="{cx}" y="{h}" font-size="11" text-anchor="middle">{xl}</text>'
        '<text x="12" y="{cy}" font-size="11" text-anchor="middle" transform="rotate(-90 12 {cy})">{yl}</text>',
        l=left,
        t=top,
        b=top + plot_h,
        r=left + plot_w,
        cx=left + plot_w / 2,
        h=height - 6,
        xl=x_label,
        cy=top + plot_h / 2,
        yl=y_label,
    )
    body = format_html_join("", "{}", ((item,) for item in [axes, *ticks, *paths, *legend]))
    return format_html(
        '<svg class="chart" role="img" width="{}" height="{}" viewBox="0 0 {} {}">{}</svg>',
        width,
        height,
        width,
        height,
        body,
    )


@register.simple_tag
def box_plot(summaries: list[dict], scores: list[list[float]], width: int = 720, height: int = 260) -> str:
    """One box (quartiles, whiskers at the 5th and 95th percentiles) per summary; model summaries first."""
    values = np.asarray(scores, dtype=float)  # draws x summaries
    if values.size == 0:
        return ""
    order = sorted(range(len(summaries)), key=lambda i: (not summaries[i]["model"], summaries[i]["id"]))
    low, q1, median, q3, high = np.percentile(values, [5, 25, 50, 75, 95], axis=0)
    top = float(values.max()) or 1.0
    left, plot_h = 40, height - 40
    step = (width - left - 10) / len(order)

    def y(v: float) -> float:
        return 10 + (1 - v / top) * plot_h

    boxes = []
    for position, i in enumerate(order):
        x = left + position * step + step / 2
        colour_ = PALETTE[0] if summaries[i]["model"] else PALETTE[2]
        boxes.append(
            format_html(
                '<g><title>{}: median {}</title><line x1="{}" x2="{}" y1="{}" y2="{}" stroke="#888"/>'
                '<rect x="{}" y="{}" width="{}" height="{}" fill="{}" opacity="0.7"/>'
                '<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="#fff" stroke-width="2"/></g>',
                summaries[i]["id"],
                f"{median[i]:.1f}",
                x,
                x,
                y(low[i]),
                y(high[i]),
                x - step * 0.3,
                y(q3[i]),
                step * 0.6,
                max(y(q1[i]) - y(q3[i]), 1),
                colour_,
                x - step * 0.3,
                x + step * 0.3,
                y(median[i]),
                y(median[i]),
            )
        )
    axis = format_html(
        '<text x="4" y="14" font-size="10">{}</text><text x="4" y="{}" font-size="10">0</text>',
        f"{top:.0f}",
        10 + plot_h,
    )
    body = format_html_join("", "{}", ((b,) for b in [axis, *boxes]))
    return format_html(
        '<svg class="chart" role="img" aria-label="Scores per summary" width="{}" height="{}">{}</svg>'
        '<p class="muted">Blue: model summaries; orange: machine summaries.</p>',
        width,
        height,
        body,
    )
