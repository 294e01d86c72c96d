"""Intervals as reports store them, shared by every kind's report.

:class:`scoring.metrics.uncertainty.Interval` holds plain floats (NaN where
undefined), which a stored report cannot hold: a report's figures are
:data:`concord.typed.Figure` (NaN built, null stored, None loaded). So a
report carries a :class:`FigureCI`: the figure, its bounds, how many units it
rests on and what those units are (``"items"``, ``"topics"``...), and the
method (``bootstrap``, ``analytic`` or ``none``). :func:`figure_ci` converts.

The campaign params that steer them (``precision``, ``resamples``,
``ranking_tau``; declared by :func:`kinds.base.interval_params`) are read
with their defaults by :func:`interval_settings`. Intervals are computed by
the background task with the report (scoring/tasks.py), never by a page; the
page only compares a stored interval with the wanted precision
(:mod:`scoring.stopping`).

Ranking stability (issue 15, section 2): :func:`ranking_stability`
bootstraps the topics and correlates the ranking of the systems on each
resample with the ranking on all topics (Kendall's tau-b,
:func:`scoring.metrics.rank.kendall_tau_b`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from concord.typed import Figure
from scoring.metrics.rank import kendall_tau_b
from scoring.metrics.uncertainty import Interval, UnitStatistics, resample_weights

__all__ = [
    "DEFAULT_PRECISION",
    "DEFAULT_RANKING_TAU",
    "DEFAULT_RESAMPLES",
    "SEED",
    "FigureCI",
    "IntervalSettings",
    "RankingStability",
    "figure_ci",
    "interval_settings",
    "no_ci",
    "ranking_stability",
]

#: Wanted half-width of a figure's 95% interval when the campaign does not say.
DEFAULT_PRECISION = 0.05
#: Bootstrap resamples per interval when the campaign does not say.
DEFAULT_RESAMPLES = 1000
#: Wanted 5th percentile of the ranking's bootstrap tau when the campaign does not say.
DEFAULT_RANKING_TAU = 0.9
#: Every report's intervals are seeded: the same judgments, the same intervals.
SEED = 0


@dataclass(frozen=True)
class FigureCI:
    """A figure with its 95% interval and the units behind it, as stored in a report.

    ``units`` counts the ``unit`` (items, topics...) the figure rests on;
    ``method`` is ``bootstrap`` (percentile bootstrap over those units),
    ``analytic`` (a published standard error) or ``none`` (no interval:
    ``low`` and ``high`` undefined).

    >>> from concord.typed import dump, load
    >>> ci = FigureCI(0.5, float("nan"), float("nan"), units=1, unit="items", method="none")
    >>> dump(ci)
    {'value': 0.5, 'low': None, 'high': None, 'units': 1, 'unit': 'items', 'method': 'none', 'level': 0.95}
    >>> load(FigureCI, dump(ci)).low is None
    True
    """

    value: Figure
    low: Figure
    high: Figure
    units: int
    unit: str
    method: str
    level: float = 0.95

    @property
    def defined(self) -> bool:
        """Whether both bounds are numbers."""
        return _finite(self.low) and _finite(self.high)

    @property
    def half_width(self) -> float | None:
        """Half the interval's width (None without an interval)."""
        return (self.high - self.low) / 2 if self.defined else None


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def figure_ci(interval: Interval, unit: str) -> FigureCI:
    """An :class:`~scoring.metrics.uncertainty.Interval` as a report stores it.

    >>> figure_ci(Interval(0.6, 0.5, 0.7, units=120), "items")
    FigureCI(value=0.6, low=0.5, high=0.7, units=120, unit='items', method='bootstrap', level=0.95)
    """
    return FigureCI(
        value=float(interval.value),
        low=float(interval.low),
        high=float(interval.high),
        units=int(interval.units),
        unit=unit,
        method=interval.method,
        level=float(interval.level),
    )


def no_ci(value: float, units: int, unit: str) -> FigureCI:
    """A figure without an interval (too few units, or undefined)."""
    nan = float("nan")
    return FigureCI(float(value), nan, nan, units=int(units), unit=unit, method="none")


@dataclass(frozen=True)
class IntervalSettings:
    """What a report's intervals use: resamples, seed, the wanted precision and ranking tau."""

    resamples: int = DEFAULT_RESAMPLES
    seed: int = SEED
    precision: float = DEFAULT_PRECISION
    ranking_tau: float = DEFAULT_RANKING_TAU

    def interval(self, stats: UnitStatistics, unit: str, *, weights: npt.ArrayLike | None = None) -> FigureCI:
        """The seeded bootstrap interval of ``stats`` (``weights``: a draw to share between figures)."""
        return figure_ci(stats.interval(n_resamples=self.resamples, seed=self.seed, weights=weights), unit)


def interval_settings(params: Mapping[str, Any] | None) -> IntervalSettings:
    """The campaign's interval params with their defaults (older campaigns have none).

    >>> interval_settings({"precision": 0.02})
    IntervalSettings(resamples=1000, seed=0, precision=0.02, ranking_tau=0.9)
    >>> interval_settings(None).precision
    0.05
    """
    params = params or {}

    def get(name: str, default: Any) -> Any:
        value = params.get(name)
        return default if value is None else value

    return IntervalSettings(
        resamples=int(get("resamples", DEFAULT_RESAMPLES)),
        seed=SEED,
        precision=float(get("precision", DEFAULT_PRECISION)),
        ranking_tau=float(get("ranking_tau", DEFAULT_RANKING_TAU)),
    )


# --- ranking stability ------------------------------------------------------------------


@dataclass(frozen=True)
class RankingStability:
    """How stable the systems' ranking is under resampled topics.

    ``measure``: the score ranked (e.g. "F1 (consensus)"); ``systems`` and
    ``topics`` (``units`` of ``unit``): what it rests on; ``median`` and ``p5``:
    the median and 5th percentile of Kendall's tau-b between the ranking on
    all topics and the ranking on each of ``resamples`` bootstrap resamples of
    the topics (a resample on which every system ties is left out); ``method``
    ``bootstrap`` or ``none`` (fewer than two systems or two topics).
    """

    measure: str
    systems: int
    units: int
    unit: str
    median: Figure
    p5: Figure
    resamples: int
    method: str

    @property
    def defined(self) -> bool:
        return _finite(self.p5)


def ranking_stability(
    per_topic: npt.ArrayLike,
    *,
    measure: str,
    unit: str = "topics",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = SEED,
) -> RankingStability:
    """Bootstrap distribution over topics of Kendall's tau between rankings.

    ``per_topic``: systems x topics scores, NaN where a system has no score on
    a topic (a topic where any system lacks one is left out). Each system's
    score is its mean over the topics, on all topics and on each resample
    (:func:`scoring.metrics.uncertainty.resample_weights`, seeded, one matrix
    product for every resample); tau-b of each resample's means against the
    full means (ties count as in tau-b).

    >>> scores = [[0.9, 0.8, 0.7, 0.9], [0.5, 0.6, 0.4, 0.5], [0.1, 0.2, 0.3, 0.1]]
    >>> r = ranking_stability(scores, measure="F1", resamples=200)
    >>> r.median, r.p5, r.units, r.systems
    (1.0, 1.0, 4, 3)
    """
    scores = np.asarray(per_topic, dtype=np.float64)
    if scores.ndim != 2:
        raise ValueError(f"per_topic must have shape (n_systems, n_topics), got shape {scores.shape}")
    scores = scores[:, np.isfinite(scores).all(axis=0)]
    n_systems, n_topics = scores.shape
    nan = float("nan")
    if n_systems < 2 or n_topics < 2:
        return RankingStability(measure, n_systems, n_topics, unit, nan, nan, resamples, "none")
    weights = resample_weights(n_topics, n_resamples=resamples, seed=seed).astype(np.float64)
    resampled = weights @ scores.T / n_topics  # resamples x systems
    full = scores.mean(axis=1)
    taus = kendall_tau_b(full, resampled)[0]
    taus = taus[np.isfinite(taus)]
    if taus.size == 0:
        return RankingStability(measure, n_systems, n_topics, unit, nan, nan, resamples, "none")
    return RankingStability(
        measure,
        n_systems,
        n_topics,
        unit,
        float(np.median(taus)),
        float(np.quantile(taus, 0.05)),
        resamples,
        "bootstrap",
    )
