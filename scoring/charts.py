"""Chart specifications: what a chart shows, as JSON-ready dicts.

The kinds build them (``kinds/<k>/charts.py``, ``Analysis.charts``) and the
report templates build heatmaps from report fields (``{% heatmap %}``); the
``{% chart %}`` tag (scoring/templatetags/scoring_tags.py) renders one as a
``<figure>``: a ``<canvas>`` that static/annotate/charts.js draws with the
vendored Chart.js (data passed through ``json_script``, so nothing inline runs
under the strict CSP), a ``<details>`` "Data" table with every value, and
PNG / CSV downloads. Every spec has a title, axis titles with units, the
axis type (categories by name where the data are categories, integer ticks for
counts) and, for lines, one style per series that never repeats among
``len(PALETTE) * len(DASHES)`` series (colour, marker and dash together).

>>> spec = line("ED per noise ratio", Axis("noise ratio"), Axis("ED"), {"AC-tau": [[0, 0.4], [0.5, 0.3]]})
>>> spec["table"]
{'header': ['noise ratio', 'AC-tau'], 'rows': [[0, 0.4], [0.5, 0.3]]}
>>> spec["datasets"][0]["color"], spec["datasets"][0]["pointStyle"], spec["datasets"][0]["dash"]
('#0072B2', 'circle', [])
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

#: Okabe & Ito's colour-blind-safe palette (yellow left out: too pale on white).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
#: Chart.js point styles; 5 and 7 are coprime, so colour and marker together repeat only after 35 series.
MARKERS = ("circle", "rect", "triangle", "rectRot", "crossRot")
#: Line dashes: solid for the first 7 series, then dashed, then dotted.
DASHES: tuple[list[int], ...] = ([], [6, 3], [2, 2])
#: The most assessors a heatmap shows; the rest are summarised and in the full CSV.
HEATMAP_LIMIT = 30


def style(index: int) -> dict[str, Any]:
    """The look of the ``index``-th series: distinct for the first 105 (7 colours x 5 markers x 3 dashes).

    >>> [style(i)["color"] for i in (0, 7)], [style(i)["dash"] for i in (0, 7)]
    (['#0072B2', '#0072B2'], [[], [6, 3]])
    """
    return {
        "color": PALETTE[index % len(PALETTE)],
        "pointStyle": MARKERS[index % len(MARKERS)],
        "dash": DASHES[(index // len(PALETTE)) % len(DASHES)],
    }


@dataclass(frozen=True)
class Axis:
    """An axis: its title (with the unit, e.g. "F1 (0-1)"), named categories or
    a numeric range, and whether its ticks are whole numbers (counts)."""

    title: str
    categories: Sequence[str] | None = None
    integer: bool = False
    min: float | None = None
    max: float | None = None

    def spec(self) -> dict[str, Any]:
        data = asdict(self)
        data["categories"] = list(self.categories) if self.categories is not None else None
        return data


def _number(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, (np.integer, np.floating)):
        value = value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value


def line(
    title: str, x: Axis, y: Axis, series: Mapping[str, Sequence[Sequence[Any]]], *, caption: str = ""
) -> dict[str, Any]:
    """Lines of (x, y) points, one per label. With ``x.categories`` the x values are category names."""
    datasets, xs = [], []
    for i, (label, points) in enumerate(series.items()):
        clean = [[_number(px), _number(py)] for px, py in points if px is not None]
        datasets.append({"label": label, "points": clean, **style(i)})
        xs.extend(px for px, _ in clean if px not in xs)
    if x.categories is not None:
        xs = [c for c in x.categories if c in xs] + [c for c in xs if c not in x.categories]
    lookup = [{px: py for px, py in d["points"]} for d in datasets]
    rows = [[px, *(values.get(px) for values in lookup)] for px in xs]
    return {
        "type": "line",
        "title": title,
        "caption": caption,
        "x": x.spec(),
        "y": y.spec(),
        "datasets": datasets,
        "table": {"header": [x.title, *series], "rows": rows},
    }


def most_overlapping(matrix: Sequence[Sequence[float | None]], limit: int) -> list[int]:
    """The indexes of at most ``limit`` assessors who share items with the most
    others (defined off-diagonal cells), in their original order.

    >>> most_overlapping([[1, None, 0.5], [None, 1, None], [0.5, None, 1]], 2)
    [0, 2]
    """
    n = len(matrix)
    if n <= limit:
        return list(range(n))
    shared = [sum(1 for j, v in enumerate(row) if j != i and v is not None) for i, row in enumerate(matrix)]
    chosen = sorted(range(n), key=lambda i: (-shared[i], i))[:limit]
    return sorted(chosen)


def heatmap(
    title: str,
    names: Sequence[str],
    matrix: Sequence[Sequence[float | None]],
    measure: str,
    *,
    limit: int = HEATMAP_LIMIT,
    full_csv: str | None = None,
    what: str = "assessors",
    too_few: Mapping[tuple[str, str], str] | None = None,
) -> dict[str, Any]:
    """A symmetric names x names matrix of ``measure`` (-1 to 1), at most ``limit`` names of it.
    ``too_few``: (name, name) -> why a pair's value is not shown (``stats.plain.too_few_shared``:
    "1 shared item: too few"): its cell is drawn as "—" with that reason, and its value is left
    out of the cell, the tooltip and the Data table (the matrix CSV keeps it, with its units)."""
    keep = most_overlapping(matrix, limit)
    shown = [str(names[i]) for i in keep]
    reasons = [
        [_reason(too_few, shown[a], shown[b]) if a != b else None for b in range(len(keep))] for a in range(len(keep))
    ]
    values = [
        [None if reasons[a][b] else _number(matrix[i][j]) for b, j in enumerate(keep)] for a, i in enumerate(keep)
    ]
    hidden = len(names) - len(keep)
    note = ""
    if hidden:
        note = (
            f"Showing the {len(keep)} of {len(names)} {what} who share items with the most others; "
            f"the other {hidden} are in the full matrix (CSV)."
        )
    return {
        "type": "heatmap",
        "title": title,
        "caption": note,
        "measure": measure,
        "x": Axis(what).spec() | {"categories": shown},
        "y": Axis(what).spec() | {"categories": shown},
        "names": shown,
        "values": values,
        "reasons": reasons,
        "min": -1,
        "max": 1,
        "full_csv": full_csv if hidden else None,
        "table": {
            "header": [f"{measure}: {what}", *shown],
            "rows": [
                [n, *(f"— ({why})" if why else value for value, why in zip(row, whys))]
                for n, row, whys in zip(shown, values, reasons)
            ],
        },
    }


def _reason(too_few: Mapping[tuple[str, str], str] | None, first: str, second: str) -> str | None:
    if not too_few:
        return None
    return too_few.get((first, second)) or too_few.get((second, first))


def box(
    title: str,
    x: Axis,
    y: Axis,
    labels: Sequence[str],
    groups: Sequence[str],
    draws: Sequence[Sequence[float]],
    *,
    caption: str = "",
) -> dict[str, Any] | None:
    """One box per label over the draws (rows of ``draws``): quartiles, whiskers at the 5th and
    95th percentiles; ``groups`` names each label's group (one legend entry and colour per group)."""
    values = np.asarray(draws, dtype=float)
    if values.size == 0:
        return None
    p5, q1, median, q3, p95 = np.percentile(values, [5, 25, 50, 75, 95], axis=0)
    mean = values.mean(axis=0)
    names = list(dict.fromkeys(groups))
    stats = [
        {
            "label": str(label),
            "group": group,
            "min": round(float(p5[i]), 6),
            "q1": round(float(q1[i]), 6),
            "median": round(float(median[i]), 6),
            "q3": round(float(q3[i]), 6),
            "max": round(float(p95[i]), 6),
            "mean": round(float(mean[i]), 6),
        }
        for i, (label, group) in enumerate(zip(labels, groups))
    ]
    header = [
        x.title,
        "group",
        "5th percentile",
        "lower quartile",
        "median",
        "upper quartile",
        "95th percentile",
        "mean",
    ]
    return {
        "type": "box",
        "title": title,
        "caption": caption,
        "x": x.spec() | {"categories": [str(label) for label in labels]},
        "y": y.spec(),
        "groups": [{"label": g, **style(i)} for i, g in enumerate(names)],
        "boxes": stats,
        "table": {
            "header": header,
            "rows": [
                [s["label"], s["group"], s["min"], s["q1"], s["median"], s["q3"], s["max"], s["mean"]] for s in stats
            ],
        },
    }


def matrix_rows(names: Sequence[str], matrix: Sequence[Sequence[float | None]]) -> tuple[list[str], list[list[Any]]]:
    """A whole matrix as CSV header and rows (the heatmap's full download)."""
    return ["", *map(str, names)], [[str(n), *(_number(v) for v in row)] for n, row in zip(names, matrix)]


def pair_rows(
    names: Sequence[str], matrix: Sequence[Sequence[float | None]], intervals: Mapping[tuple[str, str], Any]
) -> tuple[list[str], list[list[Any]]]:
    """A symmetric matrix as one CSV row per two names (upper triangle), with each cell's 95%
    interval (low, high), the units it rests on and its method where ``intervals`` has it
    (keyed by the two names in either order: stats.intervals.FigureCI)."""
    rows = []
    for i, first in enumerate(names):
        for j in range(i + 1, len(names)):
            second = names[j]
            interval = intervals.get((first, second)) or intervals.get((second, first))
            bounds = (
                [_number(interval.low), _number(interval.high), interval.units, interval.unit, interval.method]
                if interval is not None
                else [None, None, None, None, None]
            )
            rows.append([str(first), str(second), _number(matrix[i][j]), *bounds])
    return ["first", "second", "value", "low", "high", "units", "unit", "method"], rows


def specs_in(page: str) -> list[dict[str, Any]]:
    """The chart specs a rendered page carries (for tests and scripts reading a page)."""
    import json
    import re

    return [
        json.loads(m)
        for m in re.findall(
            r'<figure class="chart-figure"[^>]*>.*?<script type="application/json">(.*?)</script>', page, re.S
        )
    ]


# -- a small line chart drawn on the server, as SVG: "Agreement over time" ---------------------
#
# The summary polls its fragment every few seconds and loads no chart library: this chart is
# the SVG's coordinates, computed here, and the markup of scoring/over_time.html (classes for
# every colour, in static/concord.css, so the strict CSP's style-src holds and dark mode applies).


@dataclass(frozen=True)
class Tick:
    """An axis tick: where it is (a coordinate of the SVG) and its label."""

    at: float
    label: str


@dataclass(frozen=True)
class OverTime:
    """A line with its interval as a band, in an SVG of ``width`` x ``height`` (its viewBox):
    ``lines`` and ``bands`` are the ``points`` attributes of its polylines (one per run of
    defined values) and polygons (one per run of two or more defined intervals), ``bars``
    the intervals of a lone point (x, y of the high, y of the low), ``dots`` each point;
    the plot area is ``left`` to ``right``, ``top`` to ``bottom``."""

    width: int
    height: int
    left: float
    right: float
    top: float
    bottom: float
    lines: tuple[str, ...]
    bands: tuple[str, ...]
    bars: tuple[tuple[float, float, float], ...]
    dots: tuple[tuple[float, float], ...]
    #: smaller dots when there are many, so that the line shows between them
    dot_radius: float
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]

    @property
    def y_labels_at(self) -> float:
        """Where the y axis's labels end (left of the plot)."""
        return self.left - 6

    @property
    def x_labels_at(self) -> float:
        """The baseline of the x axis's labels (under the plot)."""
        return self.bottom + 15

    @property
    def x_title_at(self) -> tuple[float, float]:
        """Where the x axis's title is centred."""
        return (self.left + self.right) / 2, self.height - 3


#: The SVG's size (its viewBox: it is drawn at the width of its box, 390 px screens too) and margins.
OVER_TIME_SIZE = (400, 200)
_MARGINS = {"left": 46, "right": 24, "top": 10, "bottom": 36}
#: Up to this many points a dot of radius 3 each; more, of 1.5.
_BIG_DOTS = 40


def nice_ticks(low: float, high: float, *, most: int = 5, integer: bool = False) -> list[float]:
    """Round tick values covering ``low`` to ``high``: a step of 1, 2, 2.5 or 5 times a power of
    ten (whole numbers when ``integer``), at most ``most`` steps, the first tick at or below
    ``low`` and the last at or above ``high``.

    >>> nice_ticks(0.41, 0.78)
    [0.4, 0.5, 0.6, 0.7, 0.8]
    >>> nice_ticks(12, 180, integer=True)
    [0, 50, 100, 150, 200]
    >>> nice_ticks(3, 4, integer=True)
    [3, 4]
    >>> nice_ticks(0.5, 0.5)  # one value: a little either side
    [0.45, 0.475, 0.5, 0.525, 0.55]
    """
    if not (math.isfinite(low) and math.isfinite(high)) or high < low:
        raise ValueError(f"low and high must be finite, low <= high: got {low!r}, {high!r}")
    if high == low:
        pad = 1 if integer else max(abs(low) * 0.1, 0.05)
        low, high = low - pad, high + pad
    raw = (high - low) / most
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw and not (integer and m == 2.5 and power < 10))
    if integer:
        step = max(1, round(step))
    first, last = math.floor(low / step + 1e-9), math.ceil(high / step - 1e-9)
    ticks = [round(k * step, 10) for k in range(first, last + 1)]
    return [int(t) for t in ticks] if integer else ticks


def _decimals(ticks: Sequence[float]) -> int:
    """The fewest decimals that tell ``ticks`` apart (at most 4)."""
    for decimals in range(5):
        if len({f"{t:.{decimals}f}" for t in ticks}) == len(ticks):
            return decimals
    return 4


def over_time(points: Sequence[tuple[float, float | None, float | None, float | None]]) -> OverTime:
    """The chart of ``points``, each (x, value, low, high) in the order of x (a count: whole
    numbers), value and bounds None where undefined; a figure's y axis spans its values and
    intervals.

    >>> chart = over_time([(10, 0.5, None, None), (20, 0.6, 0.5, 0.7), (40, 0.65, 0.6, 0.7)])
    >>> [t.label for t in chart.x_ticks], [t.label for t in chart.y_ticks]
    (['10', '15', '20', '25', '30', '35', '40'], ['0.50', '0.55', '0.60', '0.65', '0.70'])
    >>> chart.lines
    ('46.0,164.0 156.0,87.0 376.0,48.5',)
    >>> chart.bands  # the first point has no interval
    ('156.0,10.0 376.0,10.0 376.0,87.0 156.0,164.0',)
    """
    width, height = OVER_TIME_SIZE
    left, right = _MARGINS["left"], width - _MARGINS["right"]
    top, bottom = _MARGINS["top"], height - _MARGINS["bottom"]
    xs = [p[0] for p in points]
    ys = [y for p in points for y in p[1:] if _finite(y)]
    # The x axis spans the points exactly (its round ticks those inside): a count's axis
    # padded to round ends left a fifth of the chart empty.
    x_low, x_high = min(xs), max(xs)
    if x_low == x_high:
        x_low, x_high = x_low - 1, x_high + 1
    x_ticks = [t for t in nice_ticks(x_low, x_high, integer=True, most=6) if x_low <= t <= x_high]
    y_ticks = nice_ticks(min(ys), max(ys)) if ys else [0.0, 0.5, 1.0]

    def sx(x: float) -> float:
        return round(left + (x - x_low) / (x_high - x_low) * (right - left), 1)

    def sy(y: float) -> float:
        return round(bottom - (y - y_ticks[0]) / (y_ticks[-1] - y_ticks[0]) * (bottom - top), 1)

    lines = [[f"{sx(x)},{sy(v)}" for x, v, _, _ in run] for run in _runs(points, lambda p: _finite(p[1]))]
    bands, bars = [], []
    for run in _runs(points, lambda p: _finite(p[2]) and _finite(p[3])):
        if len(run) == 1:
            x, _, low, high = run[0]
            bars.append((sx(x), sy(high), sy(low)))
            continue
        upper = [f"{sx(x)},{sy(high)}" for x, _, _, high in run]
        lower = [f"{sx(x)},{sy(low)}" for x, _, low, _ in reversed(run)]
        bands.append(" ".join(upper + lower))
    decimals = _decimals(y_ticks)
    return OverTime(
        width=width,
        height=height,
        left=left,
        right=right,
        top=top,
        bottom=bottom,
        lines=tuple(" ".join(line) for line in lines),
        bands=tuple(bands),
        bars=tuple(bars),
        dots=tuple((sx(x), sy(v)) for x, v, _, _ in points if _finite(v)),
        dot_radius=3 if len(points) <= _BIG_DOTS else 1.5,
        x_ticks=tuple(Tick(sx(t), f"{t:,}") for t in x_ticks),
        y_ticks=tuple(Tick(sy(t), f"{t:.{decimals}f}") for t in y_ticks),
    )


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def _runs(points: Sequence[tuple], defined) -> list[list[tuple]]:
    """The runs of consecutive ``points`` for which ``defined(point)`` holds."""
    runs: list[list[tuple]] = [[]]
    for p in points:
        if defined(p):
            runs[-1].append(p)
        elif runs[-1]:
            runs.append([])
    return [run for run in runs if run]
