"""Template helpers for reports: number formatting and the charts. What a chart shows is a spec of
scoring/charts.py, built by the kind (``Analysis.charts``) or, for heatmaps, from a report type's
fields (``{% heatmap %}``); static/annotate/charts.js draws it with the vendored Chart.js."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlencode

from django import template
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from concord.templatetags.help import link_target
from scoring import charts
from scoring import selectors as scoring_selectors
from scoring.filenames import download_name
from stats import intervals, stopping
from stats import plain as plain_words
from stats.intervals import interval_settings

register = template.Library()


@register.simple_tag
def download_prefix(campaign, what: str = "", topic: str = "", job=None) -> str:
    """``data-download-prefix`` of a page: what its charts' and tables' downloads are called
    before their own names (scoring/filenames.py; static/annotate/charts.js)."""
    return download_name(campaign, what, topic=topic, job=job)


@register.filter
def fmt(value: float | int | None, digits: int = 3) -> str:
    """A figure for a table: fixed digits, an em dash when undefined."""
    if value is None:
        return "—"
    if isinstance(value, int):
        return str(value)
    return f"{value:.{digits}f}"


@register.filter
def pvalue(value: float | None) -> str:
    """A p-value for a table: 4 digits, "< 0.0001" below, an em dash when undefined.

    >>> pvalue(0.03125), pvalue(4e-9), pvalue(None)
    ('0.0313', '< 0.0001', '—')
    """
    if value is None:
        return "—"
    return "< 0.0001" if value < 0.0001 else f"{value:.4f}"


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


#: The most rows a table of a live report fragment shows (``{% capped %}``); every row is in the
#: report's table CSV (``scoring.views.report_table``) and the agreement API.
TABLE_LIMIT = 100
#: The most rows "show all" shows (``?all=<rows>``): past it, the CSV has them (a page of
#: 50,000 rows would cost its reader's browser more than any table is worth).
SHOW_ALL_LIMIT = 2000


@dataclass(frozen=True)
class Capped:
    """What a capped table shows: ``rows`` (at most the limit) of ``total``, of which the
    report lists ``listed`` (fewer than ``total`` when the live report itself carries only
    the first rows of a list too long to rebuild after every submission)."""

    rows: list
    total: int
    #: the field the kept rows have the largest of ("" : the first rows are kept)
    by: str = ""
    listed: int | None = None
    #: the table's name in "show all" (``?all=``) and its CSV (the report's field: ``pairs``)
    name: str = ""
    #: the reader asked for every row (``?all=<name>``)
    expanded: bool = False

    @property
    def partial(self) -> bool:
        """The report lists only the first :attr:`listed` of the :attr:`total` rows."""
        return self.listed is not None and self.listed < self.total

    @property
    def hidden(self) -> int:
        return self.total - len(self.rows)


def cap(items, by: str = "", limit: int = TABLE_LIMIT, total: int | None = None, name: str = "") -> Capped:
    """At most ``limit`` of ``items`` (a list, or a dict's items), those with the largest ``by``
    in their original order (without ``by``: the first). ``total``: how many rows there are
    when ``items`` are only the first of them (``d.pair_count``). Pages outside the report
    (the progress table) cap their tables with it too.

    >>> t = cap(list(range(250)), total=900)
    >>> len(t.rows), t.total, t.listed, t.hidden, t.partial
    (100, 900, 250, 800, True)
    >>> cap([1, 2, 3]).partial
    False
    """
    items = list(items.items()) if isinstance(items, dict) else list(items or [])
    listed = len(items)
    everything = listed if total is None else max(int(total), listed)
    expanded = limit > TABLE_LIMIT
    if listed <= limit:
        return Capped(items, everything, by, listed, name, expanded)
    if not by:
        return Capped(items[:limit], everything, by, listed, name, expanded)
    return Capped(largest(items, f"{by}:{limit}"), everything, by, listed, name, expanded)


def wants_all(context: template.Context, name: str) -> bool:
    """The page asked for every row of the table ``name`` (``?all=<name>``, read by the view)."""
    return bool(name) and context.get("show_all") == name


@register.simple_tag(takes_context=True)
def capped(
    context: template.Context, items, by: str = "", limit: int = TABLE_LIMIT, total: int | None = None, rows: str = ""
) -> Capped:
    """``{% capped d.items by="n" rows="items" as shown %}``: :func:`cap` for
    ``{% for p in shown.rows %}`` and ``{% capped_note shown ... %}``; ``rows`` names the
    report's field, for the note's CSV link and its "show all" (``?all=pairs``: up to
    :data:`SHOW_ALL_LIMIT` rows)."""
    if wants_all(context, rows):
        limit = max(limit, SHOW_ALL_LIMIT)
    return cap(items, by, limit, total, rows)


@register.inclusion_tag("scoring/capped_note.html", takes_context=True)
def capped_note(
    context,
    table: Capped,
    what: str,
    why: str = "",
    rows: str = "",
    note_id: str = "",
    csv_url: str = "",
    listed: str = "",
    elsewhere: str = "",
    api_rows: str = "",
):
    """The sentence under a capped table: how many of how many ``what`` it shows (``why`` those),
    and where every one is: "show all" (the section's page with ``?all=<rows>``), the report's
    ``rows`` field as CSV (``scoring.views.report_table``; ``csv_url``: another table's CSV) and
    the agreement API. Nothing when the table shows every row and none was hidden. A report
    that carries only some of its rows (``total=``) says which (``listed``: "the n <listed>";
    default: the first n) and where the rest are (``elsewhere``; default: each topic's report page).
    ``api_rows``: the agreement API's route of the table's rows (``topics``: a per-topic list kept
    apart from the report, ``/agreement/topics/``), when not the report itself."""
    campaign = context.get("campaign")
    rows = rows or table.name
    csv = csv_url
    if not csv and rows and campaign is not None:
        csv = reverse("campaign-report-table", args=[campaign.pk]) + "?" + urlencode({"rows": rows})
    show_all = fewer = ""
    if rows and campaign is not None:
        page = reverse("campaign", args=[campaign.pk])
        section = context.get("section") or "report"
        show_all = page + "?" + urlencode({"section": section, "all": rows})
        fewer = page + "?" + urlencode({"section": section})
    return {
        "table": table,
        "what": what,
        "why": why,
        "csv": csv,
        "campaign": campaign,
        "id": note_id,
        "show_all": show_all if table.hidden and not table.expanded and not table.partial else "",
        "fewer": fewer if table.expanded and table.total > TABLE_LIMIT else "",
        "api": context.get("section", "report") == "report",
        "api_url": f"/api/campaigns/{campaign.pk}/agreement/{api_rows + '/' if api_rows else ''}" if campaign else "",
        "listed": listed,
        "elsewhere": elsewhere,
    }


@dataclass(frozen=True)
class ListedRows:
    """The first rows of the campaign report's per-topic list (``{% topic_rows %}``), capped
    as any report table, and whether they are the rows of the report shown beside them."""

    table: Capped
    #: the rows were read with the report shown, none stored after it
    current: bool
    #: the ``computed_at`` of the report the rows were read with
    report_at: datetime | None = None


@register.simple_tag(takes_context=True)
def topic_rows(context: template.Context, limit: int = TABLE_LIMIT) -> ListedRows | None:
    """``{% topic_rows as listed %}``: the first ``limit`` rows of the campaign report's
    per-topic list (``Reports.topic_rows``; every one up to :data:`SHOW_ALL_LIMIT` with
    ``?all=topics``), made from the topics' stored partials (``scoring.selectors.topic_rows``),
    for ``{% for row in listed.table.rows %}`` and ``{% capped_note listed.table ... %}``; its
    ``current`` says whether they are the rows of the report in the context (``report``)."""
    campaign, report = context.get("campaign"), context.get("report")
    if campaign is None or report is None:
        return None
    expanded = wants_all(context, "topics")
    page = scoring_selectors.topic_rows(campaign, report, limit=SHOW_ALL_LIMIT if expanded else limit)
    table = Capped(page.rows, page.total, "", page.total, "topics", expanded)
    return ListedRows(table, page.belongs_to(report), page.report_at)


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
        too_few=_too_few_cells(context, source),
    )
    return chart(spec)


def _too_few_cells(context: template.Context, source: str) -> dict[tuple[str, str], str]:
    """The pairs of a report heatmap whose figure rests on too few shared items
    (``stats.plain.too_few_shared``), with the reason, from the units of each cell's interval
    (the report's ``matrix_intervals(field)``, as the matrix CSV reads them)."""
    report = context.get("report")
    intervals_of = getattr(getattr(report, "data", None), "matrix_intervals", None)
    if not source or intervals_of is None:
        return {}
    found = {}
    for pair, figure in intervals_of(source.split()[1]).items():
        reason = plain_words.too_few_shared(int(figure.units), figure.unit)
        if reason is not None:
            found[pair] = reason
    return found


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


# -- intervals and the stop signal (stats/intervals.py, stats/stopping.py) --------------


def _campaign_params(context: template.Context) -> dict:
    campaign = context.get("campaign")
    params = getattr(campaign, "params", None)
    return params if isinstance(params, dict) else {}


def _unit_text(units: int, unit: str) -> str:
    """``800 items``; ``1 item`` (a unit name ending in s loses it when there is one)."""
    return f"{units} {unit[:-1] if units == 1 and unit.endswith('s') else unit}"


def _number(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


@register.simple_tag
def ci(figure, digits: int = 3, units: bool = True, value: bool = True, compact: bool = False) -> str:
    """A stored :class:`stats.intervals.FigureCI` as ``0.241 [0.205, 0.279] · 800 items``: the
    value, its 95% interval (named for screen readers, and in a title), the units behind it.
    Without an interval: the value and ``no interval``, or ``too few documents for an interval``
    when the figure rests on fewer units than the minimum (``FigureCI.too_few``, nothing drawn:
    docs/methods.md); without a figure: an em dash.
    ``value=False``: the interval and units only (beside a figure shown already);
    ``compact``: value and bounds only, for table cells whose header names the interval."""
    if figure is None:
        return "—"
    shown = format_html("{} ", fmt(figure.value, digits)) if value else ""
    count = format_html(' <span class="ci-units">· {}</span>', _unit_text(figure.units, figure.unit)) if units else ""
    if getattr(figure, "too_few", False):
        return format_html(
            '<span class="ci">{}<span class="ci-bounds ci-too-few muted">(too few {} for an interval)</span>{}</span>',
            shown,
            figure.unit,
            count,
        )
    if not (_number(figure.low) and _number(figure.high)):
        return format_html(
            '<span class="ci">{}<span class="ci-bounds muted">(no interval)</span>{}</span>', shown, count
        )
    if compact:
        return format_html(
            '{}<span class="ci-bounds">[{}, {}]</span>', shown, fmt(figure.low, digits), fmt(figure.high, digits)
        )
    level = round(figure.level * 100)
    return format_html(
        '<span class="ci" title="{}% {} interval over {}">{}<span class="ci-bounds">'
        '<span class="visually-hidden">{}% interval </span>[{}, {}]</span>{}</span>',
        level,
        figure.method,
        _unit_text(figure.units, figure.unit),
        shown,
        level,
        fmt(figure.low, digits),
        fmt(figure.high, digits),
        count,
    )


@register.simple_tag
def chance_test(test) -> str:
    """A stored :class:`stats.intervals.ChanceTest` as ``z = 17.65, p < 0.001`` (a test of
    kappa = 0, never an interval); ``not defined`` when kappa or its null SE is undefined."""
    if test is None:
        return "—"
    if not (_number(test.z) and _number(test.p_value)):
        return mark_safe('<span class="chance-test muted">not defined</span>')
    p = "p < 0.001" if test.p_value < 0.001 else f"p = {test.p_value:.3f}"
    return format_html('<span class="chance-test">z = {}, {}</span>', f"{test.z:.2f}", p)


def _signal_html(signal, wanted: str, got: str, unit: str) -> str:
    if signal.too_few is not None:
        return format_html('<span class="stop-signal stop-too-few">{}</span>', signal.too_few.describe())
    if signal.more_units is None:
        return mark_safe('<span class="stop-signal stop-unknown">precision: not yet known</span>')
    if signal.reached:
        return format_html('<span class="stop-signal stop-reached">✓ reached ({}, wanted {})</span>', got, wanted)
    return format_html(
        '<span class="stop-signal stop-more">about {} more {} ({}, wanted {})</span>',
        signal.more_units,
        unit,
        got,
        wanted,
    )


@register.simple_tag(takes_context=True)
def stop(context: template.Context, figure) -> str:
    """The organiser's stop signal of a figure (docs/methods.md, Intervals and when to stop): ``✓ reached``
    or ``about N more <units>``, against the campaign's ``precision`` (default 0.05)."""
    from stats.intervals import interval_settings
    from stats.stopping import stop_signal

    if figure is None:
        return ""
    precision = interval_settings(_campaign_params(context)).precision
    signal = stop_signal(figure, precision)
    got = "" if signal.half_width is None else f"±{signal.half_width:.3f}"
    return _signal_html(signal, f"±{precision:g}", got, figure.unit)


@register.simple_tag(takes_context=True)
def ranking_stop(context: template.Context, stability) -> str:
    """The stop signal of a ranking's stability against the campaign's ``ranking_tau`` (default 0.9)."""
    from stats.intervals import interval_settings
    from stats.stopping import ranking_signal

    if stability is None:
        return ""
    tau = interval_settings(_campaign_params(context)).ranking_tau
    signal = ranking_signal(stability, tau)
    got = "" if stability.p5 is None else f"5th percentile τ {stability.p5:.3f}"
    return _signal_html(signal, f"τ ≥ {tau:g}", got, stability.unit)


# -- agreement over time (scoring/history.py, scoring.charts.over_time) ----------------------


def _judgments_text(n: int) -> str:
    return f"{n} judgment{'' if n == 1 else 's'}"


def _estimate(points, precision: float) -> dict:
    """What the stop signal (stats.stopping) of the newest point says against ``precision``, in
    words: how many more units, or since how many judgments the figure is precise enough (the
    first point of the newest run of points that reach it)."""
    latest = stopping.stop_signal(points[-1], precision)
    wanted = f"±{precision:g}"
    if latest.too_few is not None:
        too_few = latest.too_few
        return {
            "state": "too-few",
            "text": f"Too few {too_few.unit} to judge yet: {too_few.have} of at least {too_few.need}.",
        }
    if latest.more_units is None:
        return {"state": "unknown", "text": "Not yet known: the figure has no interval."}
    now = f"±{latest.half_width:.3f}"
    if latest.reached:
        since = points[-1]
        for earlier in reversed(points[:-1]):
            if not stopping.stop_signal(earlier, precision).reached:
                break
            since = earlier
        return {
            "state": "reached",
            "text": f"Precise enough since {_judgments_text(since.judgments)} ({now}, wanted {wanted}).",
        }
    return {
        "state": "more",
        "text": f"About {_more_text(latest.more_units, points[-1].unit)} to reach {wanted} (now {now}).",
    }


def _more_text(more: int, unit: str) -> str:
    """``290 more items``; ``1 more item``."""
    count, _, noun = _unit_text(more, unit).partition(" ")
    return f"{count} more {noun}"


def _signal_then(point) -> str:
    """A stored point's stop signal against the precision of its time, in a few words."""
    if point.reached:
        return "precise enough"
    if point.more is not None:
        return f"about {_more_text(point.more, point.unit)}"
    return f"too few {point.unit}" if point.units < stopping.MIN_UNITS else "no interval"


def _described(label: str, points) -> str:
    """The chart in a sentence, for screen readers (the SVG's desc)."""
    first, last = points[0], points[-1]
    said = f"{label} after each rebuild, from {_judgments_text(first.judgments)} to {last.judgments}"
    if first.value is not None and last.value is not None:
        said += f": {first.value:.3f} at first, {last.value:.3f} now"
    widths = [p.half_width for p in (first, last)]
    if all(w is not None for w in widths):
        said += f"; its 95% interval ±{widths[0]:.3f} at first, ±{widths[1]:.3f} now"
    return said + ". Every value is in the Data table."


@register.inclusion_tag("scoring/over_time.html", takes_context=True)
def agreement_over_time(context: template.Context, history) -> dict:
    """ "Agreement over time": the campaign's headline figure after each rebuild as a line against
    the judgments it came from, its 95% interval as a band (``scoring.charts.over_time``: SVG drawn
    here, no script), the campaign's precision in words, and the stop signal's estimate beside it;
    a sentence instead with fewer than two points. ``history``: ``scoring.live.campaign_history``
    (None: the kind has no headline, and nothing is shown)."""
    if history is None:
        return {"shown": False}
    points = list(history.points)
    precision = intervals.interval_settings(_campaign_params(context)).precision
    rows = [
        {
            "point": p,
            "value": fmt(p.value),
            "interval": f"[{fmt(p.low)}, {fmt(p.high)}]" if p.low is not None and p.high is not None else "—",
            "half_width": "—" if p.half_width is None else f"±{p.half_width:.3f}",
            "wanted": f"±{p.precision:g}",
            "signal": _signal_then(p),
        }
        for p in points
    ]
    return {
        "shown": True,
        "label": history.label,
        "points": points,
        "latest": points[-1] if points else None,
        "latest_value": fmt(points[-1].value) if points else "",
        "judgments": _judgments_text(points[-1].judgments) if points else "",
        "precision": f"±{precision:g}",
        "estimate": _estimate(points, precision) if points else None,
        "chart": charts.over_time([(p.judgments, p.value, p.low, p.high) for p in points])
        if len(points) >= 2
        else None,
        "description": _described(history.label, points) if len(points) >= 2 else "",
        "rows": rows,
    }


# -- a headline figure in plain words (stats/plain.py) --------------------------------------


@register.simple_tag(takes_context=True)
def plain(context: template.Context, headline, id: str = "headline-reading") -> str:
    """A headline figure's plain reading (a :class:`kinds.spec.Headline`: ``stats.plain.sentence``
    of its figure against the campaign's ``precision``) with a "?" to the section of
    docs/methods.md that explains its words; nothing without a headline."""
    if headline is None:
        return ""
    precision = interval_settings(_campaign_params(context)).precision
    words = plain_words.sentence(headline.figure, headline.reading, precision=precision)
    href, heading = link_target("methods", headline.reading.help)
    return format_html(
        '<p class="plain-reading" id="{}" data-measures="{}">{} '
        '<a href="{}" class="help-link" aria-label="What this figure means" title="Help: {}">?</a></p>',
        id,
        headline.reading.measures,
        words,
        href,
        heading,
    )


@register.simple_tag(takes_context=True)
def plain_headline(context: template.Context) -> str:
    """:func:`plain` of the headline of the campaign report in the context (``report``, of the
    ``kind``): the kind's report template shows it at the headline figure, as the summary does."""
    kind, report = context.get("kind"), context.get("report")
    headline_of = getattr(getattr(kind, "reports", None), "headline", None)
    if headline_of is None or report is None:
        return ""
    return plain(context, headline_of(report.data))


@register.simple_tag
def too_few_shared(n: int, unit: str = "items", columns: int = 1, shared: bool = True) -> str:
    """``{% too_few_shared p.n "items" 11 as few %}``: for a row of a pair of assessors (``shared``;
    or of one assessor) on fewer items than ``stats.plain.MIN_SHARED``, one cell across its
    ``columns`` figures holding an em dash and the reason ("1 shared item: too few"), to show
    instead of figures that would describe that one item, not the assessors; "" otherwise."""
    reason = plain_words.too_few_shared(int(n), unit, shared=shared)
    if reason is None:
        return ""
    whose = "shared " if shared else ""
    return format_html(
        '<td colspan="{}" class="too-few muted" title="{}">— {}</td>',
        columns,
        f"Shown from {plain_words.MIN_SHARED} {whose}{unit} on: on fewer, a figure describes the {unit}, not the assessors",
        reason,
    )
