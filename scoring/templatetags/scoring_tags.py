"""Template helpers for reports: number formatting and the charts. What a chart shows is a spec of
scoring/charts.py, built by the kind (``Analysis.charts``) or, for heatmaps, from a report type's
fields (``{% heatmap %}``); static/annotate/charts.js draws it with the vendored Chart.js."""

from __future__ import annotations

from urllib.parse import urlencode

from django import template
from django.template.loader import render_to_string
from django.urls import reverse

from scoring import charts

register = template.Library()


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
def largest(items: list | None, spec: str) -> list:
    """``items|largest:"n:100"``: the 100 items with the largest ``n``, in their original order
    (a large campaign's pairs table: 164 RTE workers make thousands of pairs)."""
    field, _, count = spec.partition(":")
    items = list(items or [])
    limit = int(count)
    if len(items) <= limit:
        return items
    keep = sorted(range(len(items)), key=lambda i: -(getattr(items[i], field, None) or 0))[:limit]
    return [items[i] for i in sorted(keep)]


@register.filter
def get(mapping: dict | None, key: str):
    """``mapping[key]``, or None: for report dicts keyed by run, method or topic."""
    return mapping.get(key) if isinstance(mapping, dict) else None


def _matrix_url(context: template.Context, source: str) -> str | None:
    """The full-matrix CSV of a report heatmap: ``source`` is "<names field> <matrix field>" of the
    report in ``context`` (the campaign's, or the topic's on a topic page)."""
    campaign, topic = context.get("campaign"), context.get("topic")
    if not source or campaign is None:
        return None
    names, values = source.split()
    query = urlencode({"names": names, "values": values})
    if topic is not None:
        return reverse("topic-report-matrix", args=[campaign.pk, topic.external_id]) + "?" + query
    return reverse("campaign-report-matrix", args=[campaign.pk]) + "?" + query


@register.simple_tag(takes_context=True)
def heatmap(
    context: template.Context,
    names: list[str],
    matrix: list[list[float | None]],
    measure: str,
    title: str = "",
    source: str = "",
    what: str = "assessors",
) -> str:
    """A names x names heatmap of ``measure`` (at most ``charts.HEATMAP_LIMIT`` names; with
    ``source`` the full matrix is a CSV download, see ``scoring.views.report_matrix``)."""
    if not names:
        return ""
    spec = charts.heatmap(
        title or f"Pairwise {measure} between {what}",
        names,
        matrix,
        measure,
        what=what,
        full_csv=_matrix_url(context, source) if len(names) > charts.HEATMAP_LIMIT else None,
    )
    return chart(spec)


def _size(spec: dict) -> str:
    n = len(spec.get("x", {}).get("categories") or [])
    if spec["type"] == "heatmap":
        return "s" if n <= 6 else "m" if n <= 15 else "l"
    return "l" if n > 12 else "m"


@register.simple_tag
def chart(spec: dict | None) -> str:
    """One chart spec (scoring/charts.py) as a figure: title, a canvas that static/annotate/charts.js
    draws (data through json_script), caption, PNG and CSV downloads and a "Data" table."""
    if not spec:
        return ""
    table = spec["table"]
    return render_to_string(
        "scoring/chart.html",
        {
            "spec": spec,
            "size": _size(spec),
            "header": table["header"],
            "rows": [[fmt(v) if isinstance(v, float) else v for v in row] for row in table["rows"]],
        },
    )
