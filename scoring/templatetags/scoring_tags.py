"""Template helpers for reports: number formatting and a kappa heatmap in SVG."""

from __future__ import annotations

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
def kappa_heatmap(report: dict) -> str:
    """Pairwise kappa as an SVG grid (no inline style or script, so CSP-safe)."""
    assessors = [a["assessor"] for a in report["assessors"]]
    matrix = report["kappa_matrix"]
    n = len(assessors)
    size = LABEL + n * CELL
    cells = []
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            x, y = LABEL + j * CELL, LABEL + i * CELL
            text_fill = "#fff" if value is not None and abs(value) > 0.55 else "#111"
            cells.append(
                (x, y, CELL - 2, CELL - 2, colour(value), assessors[i], assessors[j], fmt(value, 2),
                 x + CELL / 2, y + CELL / 2 + 4, text_fill, fmt(value, 2))
            )
    rects = format_html_join(
        "",
        '<g><rect x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{} vs {}: kappa {}</title></rect>'
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
        '<svg class="heatmap" role="img" aria-label="Pairwise kappa between assessors" '
        'width="{}" height="{}" viewBox="0 0 {} {}">{}{}{}</svg>',
        size, size, size, size, column_labels, row_labels, rects,
    )
