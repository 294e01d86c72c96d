"""The headline's history: the campaign's one figure (``KindSpec.reports.headline``) after each
rebuild, a small series the summary and the report draw as "Agreement over time"
(``{% agreement_over_time %}``, scoring/templatetags/scoring_tags.py; the drawing is
``scoring.charts.over_time``).

Stored as one :class:`~scoring.models.Report` row per campaign, named :data:`NAME`, holding a
:class:`History`, and written by :func:`record` in the rebuild's own transaction, beside the
headline it copies (scoring.jobs): each point names the judgments it came from (the
headline's ``judgments_seen``) and its time (the headline's ``computed_at``). A rebuild costs
one read and one write of that row whatever the campaign's size, and the row is bounded:
at most :data:`MAX_POINTS` points; a point past them thins the older half of the series
(every other point kept), so the series keeps its whole span, first point to last, densest
where it is newest. Deleting a campaign's reports (or the campaign) deletes it with them.

One point per count of judgments: a rebuild that saw no more judgments than the series's
last point (a full rebuild, a changed param, a judgment replaced or withdrawn) replaces the
points it is not past, and one whose figure is unchanged at the same count writes nothing,
so the point keeps the time it was first seen.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from django.db.models import BinaryField, ExpressionWrapper, F

from concord import typed
from concord.typed import Figure
from scoring import fields
from scoring.models import Report
from stats.intervals import interval_settings
from stats.stopping import stop_signal

#: The name of the stored series (a campaign's ``Report`` row, beside ``agreement`` and ``headline``).
NAME = "headline_history"
#: The most points kept: 120 points are about 7 KB stored (``tests/scoring/test_history.py``).
MAX_POINTS = 120
#: Two figures at the same count closer than this are the same point (a full rebuild's merge
#: and the incremental one agree to about 1e-15).
SAME = 1e-9


@dataclass(frozen=True)
class Point:
    """The headline after one rebuild: its figure (``value`` with its 95% interval ``low`` to
    ``high`` over ``units`` ``unit``), when and from how many counting judgments, and the stop
    signal (stats.stopping) against the campaign's ``precision`` at the time: the interval's
    ``half_width``, whether it ``reached`` the precision and about how many ``more`` units it
    wanted (None: too few units, or no interval)."""

    at: datetime
    judgments: int
    value: Figure
    low: Figure
    high: Figure
    units: int
    unit: str
    precision: float
    half_width: Figure
    reached: bool
    more: int | None


@dataclass(frozen=True)
class History:
    """The series of one campaign's headline ``label``: its points in the order of their
    judgments (and times), at most :data:`MAX_POINTS`."""

    label: str
    points: tuple[Point, ...] = ()


def point(figure, judgments: int, at: datetime, precision: float) -> Point:
    """The point of a headline ``figure`` (a ``stats.intervals.FigureCI``) read from ``judgments``
    counting judgments at ``at``, with its stop signal against ``precision``."""
    signal = stop_signal(figure, precision)
    return Point(
        at=at,
        judgments=int(judgments),
        value=_figure(figure.value),
        low=_figure(figure.low),
        high=_figure(figure.high),
        units=int(figure.units),
        unit=figure.unit,
        precision=float(precision),
        half_width=signal.half_width,
        reached=signal.reached,
        more=signal.more_units,
    )


def appended(history: History, label: str, new: Point, *, limit: int = MAX_POINTS) -> History | None:
    """``history`` with ``new`` (of the headline ``label``) as its last point, thinned to ``limit``;
    None when nothing changes (see the module's docstring). A new label (the figure itself changed,
    a labels campaign's scale level, say) starts a new series: the old points measured another figure.

    >>> from dataclasses import replace
    >>> from datetime import UTC, datetime
    >>> at = [datetime(2025, 1, d, tzinfo=UTC) for d in (1, 2, 3)]
    >>> p = [Point(t, n, 0.5, 0.4, 0.6, n, "items", 0.05, 0.1, False, 3 * n) for t, n in zip(at, (40, 50, 50))]
    >>> one = appended(History("kappa"), "kappa", p[0])
    >>> two = appended(one, "kappa", p[1])
    >>> [q.judgments for q in two.points]
    [40, 50]
    >>> appended(two, "kappa", p[2]) is None  # the same figure from the same judgments
    True
    >>> [q.judgments for q in appended(two, "kappa", replace(p[2], judgments=45)).points]  # one withdrawn
    [40, 45]
    >>> appended(two, "alpha", p[2]).points == (p[2],)
    True
    """
    if label != history.label:
        return History(label, (new,))
    points = history.points
    if points and new.at < points[-1].at:
        return None  # an older rebuild finishing late: the series moves forward only
    if points and points[-1].judgments == new.judgments and _same(points[-1], new):
        return None
    kept = [p for p in points if p.judgments < new.judgments]
    return History(label, thinned((*kept, new), limit))


def thinned(points: tuple[Point, ...], limit: int = MAX_POINTS) -> tuple[Point, ...]:
    """At most ``limit`` of ``points``: past it, every other point of the older half is dropped
    (the first kept), so the first and the last points stay.

    >>> thinned(tuple(range(7)), 6)
    (0, 2, 3, 4, 5, 6)
    >>> thinned(tuple(range(5)), 6)
    (0, 1, 2, 3, 4)
    """
    if limit < 3:  # 3 points past a limit of 2: their older half is 1 point, which thinning keeps
        raise ValueError(f"limit must be at least 3, got {limit!r}")
    if len(points) <= limit:
        return tuple(points)
    half = len(points) // 2
    return (*points[:half:2], *points[half:])


def _same(old: Point, new: Point) -> bool:
    if (old.units, old.unit, old.precision) != (new.units, new.unit, new.precision):
        return False
    return all(_close(getattr(old, f), getattr(new, f)) for f in ("value", "low", "high"))


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return abs(a - b) <= SAME


def _figure(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def record(campaign, headline, seen: int, now: datetime) -> None:
    """Add the headline ``headline`` (a ``kinds.spec.Headline``) stored by this rebuild, from
    ``seen`` judgments at ``now``, to the campaign's series: inside the rebuild's transaction
    (scoring.jobs), one read and at most one write of the series's row."""
    precision = interval_settings(campaign.params).precision
    new = point(headline.figure, seen, now, precision)
    row = (
        Report.objects.select_for_update()
        .filter(campaign=campaign, name=NAME)
        .annotate(raw=ExpressionWrapper(F("data"), output_field=BinaryField()))
        .values("pk", "raw")
        .first()
    )
    history = _unpacked(row["raw"]) if row is not None else History(headline.label)
    changed = appended(history, headline.label, new, limit=MAX_POINTS)
    if changed is None:
        return
    values = {"data": typed.dump(changed), "computed_at": now, "judgments_seen": seen}
    if row is None:
        Report.objects.create(campaign=campaign, name=NAME, **values)
    else:
        Report.objects.filter(pk=row["pk"]).update(**values)


def read(campaign) -> History | None:
    """The campaign's stored series (None before its first rebuild with a headline), in one query."""
    row = (
        Report.objects.filter(campaign=campaign, name=NAME)
        .annotate(raw=ExpressionWrapper(F("data"), output_field=BinaryField()))
        .values("raw")
        .first()
    )
    return None if row is None else _unpacked(row["raw"])


def _unpacked(raw) -> History:
    try:
        return fields.unpack_stored(raw, type=History)
    except typed.Outdated:
        return History("")  # an older shape: the next rebuild starts a new series
