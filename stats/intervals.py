"""Intervals as reports store them, shared by every kind's report.

:class:`stats.uncertainty.Interval` holds plain floats (NaN where
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
(:mod:`stats.stopping`).

Ranking stability: :func:`ranking_stability`
bootstraps the topics and correlates the ranking of the systems on each
resample with the ranking on all topics (Kendall's tau-b,
:func:`stats.rank.kendall_tau_b`).
"""

from __future__ import annotations

import functools
import math
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import sparse

from concord.typed import Figure
from stats.rank import kendall_tau_b
from stats.stopping import MIN_UNITS
from stats.uncertainty import Interval, KappaTest, UnitStatistics, pairwise_units, resample_weights

Statistic = Callable[[npt.NDArray[np.float64]], npt.NDArray[np.float64]]

__all__ = [
    "ChanceTest",
    "DEFAULT_PRECISION",
    "DEFAULT_RANKING_TAU",
    "DEFAULT_RESAMPLES",
    "SEED",
    "FigureCI",
    "IntervalSettings",
    "RankingStability",
    "chance_test",
    "figure_ci",
    "interval_settings",
    "no_ci",
    "too_few_ci",
    "TOO_FEW",
    "GROUPED_FROM",
    "grouped_pair_intervals",
    "pair_intervals",
    "ranking_stability",
    "shared_unit_intervals",
]

#: From this many units on, a live report's bootstrap draws counts of the units' distinct
#: statistics (``uncertainty.grouped_bootstrap``: the same distribution from another random
#: stream, in O(resamples x distinct statistics) instead of O(resamples x units); labels on a
#: small scale give a handful of distinct statistics however many units there are); below
#: it, unit by unit as the library's ``bootstrap`` draws them
#: (:meth:`IntervalSettings.interval_at_scale`, :meth:`IntervalSettings.pair_intervals_at_scale`).
GROUPED_FROM = 2_000

#: Wanted half-width of a figure's 95% interval when the campaign does not say.
DEFAULT_PRECISION = 0.05
#: Bootstrap resamples per interval when the campaign does not say.
DEFAULT_RESAMPLES = 1000
#: Wanted 5th percentile of the ranking's bootstrap tau when the campaign does not say.
DEFAULT_RANKING_TAU = 0.9
#: Every report's intervals are seeded: the same judgments, the same intervals.
SEED = 0
#: ``FigureCI.method`` of a figure over fewer units than ``IntervalSettings.min_units``: no
#: bootstrap was drawn (an interval over 4 documents says nothing; docs/methods.md, "Too few
#: units for an interval"), and the pages say "too few <units> for an interval".
TOO_FEW = "too few"


@dataclass(frozen=True)
class FigureCI:
    """A figure with its 95% interval and the units behind it, as stored in a report.

    ``units`` counts the ``unit`` (items, topics...) the figure rests on;
    ``method`` is ``bootstrap`` (percentile bootstrap over those units),
    ``analytic`` (a published standard error), ``none`` (no interval:
    ``low`` and ``high`` undefined) or :data:`TOO_FEW` (no interval drawn:
    fewer units than the minimum, ``IntervalSettings.min_units``).

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

    @property
    def too_few(self) -> bool:
        """No interval because the figure rests on fewer units than the minimum."""
        return self.method == TOO_FEW


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def figure_ci(interval: Interval, unit: str) -> FigureCI:
    """An :class:`~stats.uncertainty.Interval` as a report stores it.

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


@dataclass(frozen=True)
class ChanceTest:
    """A stored test of "no agreement beyond chance" (kappa = 0), not an interval.

    ``z`` = kappa / ``se``, ``se`` its standard error *when kappa is 0* (Fleiss,
    Nee & Landis 1979 for Fleiss' kappa: ``stats.uncertainty.fleiss_kappa_test``),
    ``p_value`` two-sided; None (stored null) when undefined. That standard error
    holds only at kappa = 0, so it makes no interval around an observed kappa.

    >>> from concord.typed import dump
    >>> dump(chance_test(KappaTest(0.43, 0.0244, 17.65, 1e-69, 30), "items"))["z"]
    17.65
    """

    z: Figure
    p_value: Figure
    se: Figure
    units: int
    unit: str

    @property
    def defined(self) -> bool:
        return _finite(self.z) and _finite(self.p_value)


def chance_test(test: KappaTest, unit: str) -> ChanceTest:
    """A :class:`~stats.uncertainty.KappaTest` as a report stores it."""
    return ChanceTest(float(test.z), float(test.p_value), float(test.se), units=int(test.units), unit=unit)


def no_ci(value: float, units: int, unit: str) -> FigureCI:
    """A figure without an interval (too few units, or undefined)."""
    nan = float("nan")
    return FigureCI(float(value), nan, nan, units=int(units), unit=unit, method="none")


def too_few_ci(value: float, units: int, unit: str, level: float = 0.95) -> FigureCI:
    """A figure over too few units for an interval (:data:`TOO_FEW`): none was drawn.

    >>> too_few_ci(0.5, 4, "documents").too_few, too_few_ci(0.5, 4, "documents").defined
    (True, False)
    """
    nan = float("nan")
    return FigureCI(float(value), nan, nan, units=int(units), unit=unit, method=TOO_FEW, level=level)


@dataclass(frozen=True)
class IntervalSettings:
    """What a report's intervals use: resamples, seed, the wanted precision and ranking tau, and
    ``min_units``: a figure over fewer units gets no interval (:func:`too_few_ci`, nothing drawn);
    the stop signal's minimum (stats.stopping.MIN_UNITS; docs/methods.md)."""

    resamples: int = DEFAULT_RESAMPLES
    seed: int = SEED
    precision: float = DEFAULT_PRECISION
    ranking_tau: float = DEFAULT_RANKING_TAU
    # read when built, so that a test may lower the module's minimum (the tests' ``intervals_on_few_units`` fixture)
    min_units: int = field(default_factory=lambda: MIN_UNITS)

    def interval(
        self, stats: UnitStatistics, unit: str, *, weights: npt.ArrayLike | None = None, grouped: bool = False
    ) -> FigureCI:
        """The seeded bootstrap interval of ``stats`` (``weights``: a draw to share between figures;
        ``grouped``: units with few distinct statistics, drawn as group counts: uncertainty.grouped_bootstrap);
        :func:`too_few_ci` below ``min_units`` units."""
        if stats.units < self.min_units:
            return too_few_ci(stats.value, stats.units, unit)
        return figure_ci(
            stats.interval(n_resamples=self.resamples, seed=self.seed, weights=weights, grouped=grouped), unit
        )

    def analytic(self, interval: Interval, unit: str) -> FigureCI:
        """An analytic interval (e.g. Gwet's for Fleiss' kappa) as stored, :func:`too_few_ci` below
        ``min_units`` units: it covers no better than the bootstrap there (docs/methods.md).

        >>> IntervalSettings().analytic(Interval(0.5, 0.1, 0.9, units=8, method="analytic"), "items").method
        'too few'
        """
        if interval.units < self.min_units:
            return too_few_ci(interval.value, interval.units, unit, interval.level)
        return figure_ci(interval, unit)

    def interval_at_scale(self, stats: UnitStatistics, unit: str) -> FigureCI:
        """:meth:`interval` unit by unit below :data:`GROUPED_FROM` units, else exactly
        ``uncertainty.grouped_bootstrap`` of the same statistics (its distinct rows found by a
        lexicographic sort of the columns, the order ``np.unique`` gives, without its slower
        sort of whole rows): a live report's figure over hundreds of thousands of units costs
        O(resamples x distinct statistics), not O(resamples x units)."""
        per_unit = stats.per_unit
        if stats.units < self.min_units:
            return too_few_ci(stats.value, stats.units, unit)
        if not isinstance(per_unit, np.ndarray) or per_unit.ndim != 2:
            return self.interval(stats, unit, grouped=per_unit.shape[0] >= GROUPED_FROM)
        matrix = np.asarray(per_unit, dtype=np.float64)
        n = matrix.shape[0]
        if n < GROUPED_FROM or not np.isfinite(matrix).all():
            return self.interval(stats, unit, grouped=n >= GROUPED_FROM)
        value = float(stats.statistic(matrix.sum(axis=0)))
        nan = float("nan")
        interval = Interval(value, nan, nan, units=stats.units, method="none")
        if np.isfinite(value) and stats.units >= 2:
            ordered = matrix[np.lexsort(matrix.T[::-1])]
            first = np.flatnonzero(np.concatenate([[True], (ordered[1:] != ordered[:-1]).any(axis=1)]))
            rows, counts = ordered[first], np.diff(np.append(first, n))
            draws = np.random.default_rng(self.seed).multinomial(n, counts / n, size=self.resamples)
            resampled = np.asarray(stats.statistic(draws.astype(np.float64) @ rows), dtype=np.float64)
            finite = resampled[np.isfinite(resampled)]
            if finite.size:
                low, high = np.quantile(finite, [0.025, 0.975])
                interval = Interval(value, float(low), float(high), units=stats.units, method="bootstrap")
        return figure_ci(interval, unit)

    def pair_intervals_at_scale(
        self, cells: Sequence[npt.ArrayLike], n_cells: int, statistics: Mapping[str, Statistic], unit: str
    ) -> list[dict[str, FigureCI]]:
        """:func:`pair_intervals` of the pairs sharing fewer than :data:`GROUPED_FROM` items (item by
        item, as ever), :func:`grouped_pair_intervals` of the others (one draw per pair of the
        counts of its table's cells)."""
        codes = [np.asarray(c, dtype=np.int64) for c in cells]
        few = [p for p, code in enumerate(codes) if len(code) < GROUPED_FROM]
        many = [p for p, code in enumerate(codes) if len(code) >= GROUPED_FROM]
        found = dict(
            zip(
                few,
                pair_intervals(
                    [codes[p] for p in few],
                    n_cells,
                    statistics,
                    unit,
                    resamples=self.resamples,
                    seed=self.seed,
                    min_units=self.min_units,
                ),
            )
        )
        found.update(
            zip(
                many,
                grouped_pair_intervals(
                    [codes[p] for p in many], n_cells, statistics, unit, resamples=self.resamples, seed=self.seed
                ),
            )
        )
        return [found[p] for p in range(len(codes))]


def interval_settings(params: Mapping[str, Any] | None) -> IntervalSettings:
    """The campaign's interval params with their defaults (older campaigns have none).

    >>> interval_settings({"precision": 0.02})
    IntervalSettings(resamples=1000, seed=0, precision=0.02, ranking_tau=0.9, min_units=30)
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
    statistic: Statistic | None = None,
    unit: str = "topics",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = SEED,
) -> RankingStability:
    """Bootstrap distribution over topics of Kendall's tau between rankings.

    ``per_topic``: systems x topics scores (each system's score is its mean
    over the topics), NaN where a system has no score on a topic (a topic
    where any system lacks one is left out); or systems x topics x k
    sufficient statistics with ``statistic`` mapping their sums over topics
    (..., k) to the score (e.g. pooled F1 from tp, fp, fn). The topics are
    resampled with :func:`stats.uncertainty.resample_weights`
    (seeded; one product for every resample) and the systems' scores on each
    resample are correlated with their scores on all topics (Kendall's tau-b,
    ties counted as tau-b counts them; a resample on which every system ties
    is left out).

    >>> scores = [[0.9, 0.8, 0.7, 0.9], [0.5, 0.6, 0.4, 0.5], [0.1, 0.2, 0.3, 0.1]]
    >>> r = ranking_stability(scores, measure="F1", resamples=200)
    >>> r.median, r.p5, r.units, r.systems
    (1.0, 1.0, 4, 3)
    """
    scores = np.asarray(per_topic, dtype=np.float64)
    if scores.ndim == 2:
        scores = scores[:, :, np.newaxis]
        statistic = _first  # the sum ranks as the mean: every system has every topic
    elif scores.ndim != 3 or statistic is None:
        raise ValueError(
            "per_topic must be systems x topics scores, or systems x topics x k statistics with a statistic"
        )
    scores = scores[:, np.isfinite(scores).all(axis=(0, 2)), :]
    n_systems, n_topics, _ = scores.shape
    nan = float("nan")
    if n_systems < 2 or n_topics < 2:
        return RankingStability(measure, n_systems, n_topics, unit, nan, nan, resamples, "none")
    weights = _topic_weights(n_topics, resamples, seed)
    block = max(1, (1 << 19) // n_topics)  # as floats a few rows at a time: the same sums, no large copy
    resampled = np.concatenate(  # resamples x systems
        [
            statistic(np.einsum("bt,stk->bsk", weights[start : start + block].astype(np.float64), scores))
            for start in range(0, resamples, block)
        ]
    )
    full = statistic(scores.sum(axis=1))
    if not np.isfinite(full).all():
        return RankingStability(measure, n_systems, n_topics, unit, nan, nan, resamples, "none")
    taus = kendall_tau_b(full, np.nan_to_num(resampled, nan=0.0))[0]
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


@functools.lru_cache(maxsize=2)
def _topic_weights(n_topics: int, resamples: int, seed: int) -> npt.NDArray[np.integer]:
    """``resample_weights(n_topics, ...)`` kept for the next recompute of a campaign with as many
    topics (drawing them is most of a ranking's cost at 10,000 topics), as read-only
    uint16 counts where they fit (20 MB at 10,000 topics x 1,000 resamples)."""
    weights = resample_weights(n_topics, n_resamples=resamples, seed=seed)
    if weights.size and weights.max() <= np.iinfo(np.uint16).max:
        weights = weights.astype(np.uint16)
    weights.setflags(write=False)
    return weights


def _first(sums: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return sums[..., 0]


# --- two raters' binary labels (match/no match, vital/okay) -------------------------------

#: The figures of a 2x2 table that carry an interval, as stats.uncertainty.pairwise_units names them.
BINARY_FIGURES = ("kappa", "overlap", "positive", "negative")


def binary_cells(first: npt.ArrayLike, second: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Each item's cell of two raters' 2x2 table: 0 both yes, 1 first only, 2 second only, 3 neither
    (the cells of :func:`stats.agreement.pairwise_agreement`)."""
    a, b = np.asarray(first, dtype=bool), np.asarray(second, dtype=bool)
    return np.where(a, np.where(b, 0, 1), np.where(b, 2, 3)).astype(np.int64)


def ac1_of_cells(sums: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Gwet's AC1 of two raters from the summed cells (a, b, c, d) of their 2x2 table:
    p_a = (a + d) / n, pi = (2a + b + c) / 2n, p_e = 2 pi (1 - pi) (Gwet 2008; both categories count).

    >>> round(float(ac1_of_cells(np.array([5.0, 1.0, 2.0, 32.0]))), 6)
    0.896951
    """
    both, first_only, second_only, neither = (sums[..., i] for i in range(4))
    n = sums.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        pa = (both + neither) / n
        pi = (2 * both + first_only + second_only) / (2 * n)
        pe = 2 * pi * (1 - pi)
        return np.where((n > 0) & (pe != 1), (pa - pe) / (1 - pe), np.nan)


def binary_pair_statistics() -> Mapping[str, Statistic]:
    """The 2x2 figures' statistics (exactly those of stats.uncertainty.pairwise_units) and AC1,
    for :func:`pair_intervals` over :func:`binary_cells` (made once: every topic report asks)."""
    return _BINARY_PAIR_STATISTICS()


@functools.cache
def _BINARY_PAIR_STATISTICS() -> Mapping[str, Statistic]:
    statistics = {name: pairwise_units([True, False], [True, False], figure=name).statistic for name in BINARY_FIGURES}
    return types.MappingProxyType({**statistics, "ac1": ac1_of_cells})


# --- every pair of assessors at once ----------------------------------------------------


def pair_intervals(
    cells: Sequence[npt.ArrayLike],
    n_cells: int,
    statistics: Mapping[str, Statistic],
    unit: str,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = SEED,
    level: float = 0.95,
    min_units: int = MIN_UNITS,
) -> list[dict[str, FigureCI]]:
    """Bootstrap intervals of figures of many pairs of assessors in batched passes.

    ``cells[p]``: for each item pair ``p`` shares, in item order, the cell
    (0..``n_cells``-1) of the pair's table it falls in (a confusion matrix
    flattened; -1: the item does not count). ``statistics``: each figure as a
    vectorised function of summed one-hot cells, as
    :class:`stats.uncertainty.UnitStatistics` takes it. Each pair's
    interval is exactly :func:`stats.uncertainty.bootstrap` of its
    one-hot cells with the same seed (the same resamples: pairs sharing
    ``n`` items share one draw of :func:`resample_weights`), computed for
    every pair with the same ``n`` in one product, blocks of pairs bounding
    memory. Pairs with fewer than two counting items get no interval; pairs with fewer
    than ``min_units`` get :func:`too_few_ci` and draw nothing.
    """
    results: list[dict[str, FigureCI]] = [{} for _ in cells]
    by_size: dict[int, list[int]] = {}
    codes = [np.asarray(c, dtype=np.int64) for c in cells]
    # below two counting items a pair gets "none", as ever; below min_units nothing is drawn
    few = [p for p, code in enumerate(codes) if np.count_nonzero(code >= 0) < min_units] if min_units > 2 else []
    if few:
        _too_few_pairs(results, [codes[p] for p in few], few, n_cells, statistics, unit, level)
    skipped = set(few)
    for p, code in enumerate(codes):
        if p not in skipped:
            by_size.setdefault(len(code), []).append(p)
    q_low, q_high = (1 - level) / 2, (1 + level) / 2
    for n, members in by_size.items():
        weights = resample_weights(n, n_resamples=resamples, seed=seed).astype(np.float64) if n >= 2 else None
        block = max(1, _PAIR_CELLS // max(1, resamples * n_cells + n * n_cells))
        for start in range(0, len(members), block):
            chosen = members[start : start + block]
            rows, columns = [], []
            for column, p in enumerate(chosen):
                kept = np.flatnonzero(codes[p] >= 0)
                rows.append(kept)
                columns.append(column * n_cells + codes[p][kept])
            row_index, column_index = np.concatenate(rows), np.concatenate(columns)
            # items x (pairs x cells), one 1 per counting item and pair: sparse, so the
            # resampled sums cost one addition per resample, pair and item
            one_hot = sparse.csr_array(
                (np.ones(len(row_index)), (row_index, column_index)), shape=(n, len(chosen) * n_cells)
            )
            counted = np.array([len(kept) for kept in rows])
            full = np.asarray(one_hot.sum(axis=0)).reshape(len(chosen), n_cells)  # pairs x cells
            resampled = None
            if weights is not None:
                resampled = np.asarray((one_hot.T @ weights.T).T).reshape(resamples, len(chosen), n_cells)
            for name, statistic in statistics.items():
                values = np.asarray(statistic(full), dtype=np.float64)
                if resampled is None:
                    bounds = np.full((2, len(chosen)), np.nan)
                    finite_share = np.zeros(len(chosen))
                else:
                    figures = np.asarray(statistic(resampled), dtype=np.float64)
                    finite = np.isfinite(figures)
                    finite_share = finite.mean(axis=0)
                    bounds = _column_quantiles(np.where(finite, figures, np.nan), (q_low, q_high))
                for column, p in enumerate(chosen):
                    value, units = float(values[column]), int(counted[column])
                    ok = resampled is not None and np.isfinite(value) and units >= 2 and finite_share[column] > 0
                    if ok:
                        results[p][name] = FigureCI(
                            value,
                            float(bounds[0, column]),
                            float(bounds[1, column]),
                            units=units,
                            unit=unit,
                            method="bootstrap",
                            level=level,
                        )
                    else:
                        results[p][name] = FigureCI(
                            value, float("nan"), float("nan"), units=units, unit=unit, method="none", level=level
                        )
    return results


def _too_few_pairs(
    results: list[dict[str, FigureCI]],
    codes: Sequence[npt.NDArray[np.int64]],
    places: Sequence[int],
    n_cells: int,
    statistics: Mapping[str, Statistic],
    unit: str,
    level: float,
) -> None:
    """Each of ``places``' figures on its own table (summed one-hot cells, as :func:`pair_intervals`
    computes them), as :func:`too_few_ci`: every pair's table in one array, no bootstrap."""
    tables = np.array([np.bincount(code[code >= 0], minlength=n_cells) for code in codes], dtype=np.float64)
    for p, figures in zip(places, too_few_pair_intervals(tables.reshape(len(codes), n_cells), statistics, unit, level)):
        results[p] = figures


def too_few_pair_intervals(
    tables: npt.ArrayLike, statistics: Mapping[str, Statistic], unit: str, level: float = 0.95
) -> list[dict[str, FigureCI]]:
    """The figures of pairs over too few units for an interval, from their tables alone (pairs x
    cells counts, the summed one-hot cells of :func:`pair_intervals`): what :func:`pair_intervals`
    gives a pair below ``min_units``, for every pair at once and without the items' cells.

    >>> (found,) = too_few_pair_intervals([[2, 1, 0, 1]], binary_pair_statistics(), "items")
    >>> round(found["kappa"].value, 4), found["kappa"].units, found["kappa"].too_few
    (0.5, 4, True)
    """
    tables = np.asarray(tables, dtype=np.float64)
    counted = tables.sum(axis=1).astype(np.int64).tolist()
    values = {
        name: np.asarray(statistic(tables), dtype=np.float64).reshape(len(tables)).tolist()
        for name, statistic in statistics.items()
    }
    return [
        {name: too_few_ci(values[name][p], counted[p], unit, level) for name in statistics} for p in range(len(tables))
    ]


def grouped_pair_intervals(
    cells: Sequence[npt.ArrayLike],
    n_cells: int,
    statistics: Mapping[str, Statistic],
    unit: str,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = SEED,
    level: float = 0.95,
) -> list[dict[str, FigureCI]]:
    """:func:`pair_intervals` drawn as counts: each pair's interval is exactly
    :func:`stats.uncertainty.grouped_bootstrap` of its one-hot cells (a row of
    zeros for an item that does not count, ``-1``) with the same seed: one multinomial draw
    per pair of how often each of its table's cells comes up, in ``np.unique``'s order of
    the one-hot rows (the zero row, then the last cell first). O(resamples x cells) per pair
    however many items it shares; the figures of every pair computed at once.

    >>> cells = [np.array([0, 3, 3, 1, 0, 3] * 500)]
    >>> (found,) = grouped_pair_intervals(cells, 4, binary_pair_statistics(), "items", resamples=200)
    >>> from stats.uncertainty import grouped_bootstrap
    >>> plain = grouped_bootstrap(np.eye(4)[cells[0]], binary_pair_statistics()["kappa"], n_resamples=200)
    >>> (found["kappa"].low, found["kappa"].high) == (plain.low, plain.high), found["kappa"].units
    (True, 3000)
    """
    if not cells:
        return []
    codes = [np.asarray(c, dtype=np.int64) for c in cells]
    # column 0: the items that do not count; column k + 1: cell k
    groups = np.array([np.bincount(code + 1, minlength=n_cells + 1) for code in codes])
    counts = groups[:, 1:]
    n, counted = groups.sum(axis=1), counts.sum(axis=1)
    order = np.concatenate([[0], np.arange(n_cells, 0, -1)])  # np.unique's order of the one-hot rows
    resampled = np.zeros((len(codes), resamples, n_cells + 1))
    for p in range(len(codes)):
        if n[p] >= 2:
            present = order[groups[p, order] > 0]
            draws = np.random.default_rng(seed).multinomial(n[p], groups[p, present] / n[p], size=resamples)
            resampled[p][:, present] = draws
    resampled = resampled[:, :, 1:]
    q_low, q_high = (1 - level) / 2, (1 + level) / 2
    found: list[dict[str, FigureCI]] = [{} for _ in codes]
    nan = float("nan")
    for name, statistic in statistics.items():
        values = np.asarray(statistic(counts.astype(np.float64)), dtype=np.float64).reshape(len(codes))
        figures = np.asarray(statistic(resampled), dtype=np.float64).reshape(len(codes), resamples)
        finite = np.isfinite(figures)
        bounds = np.full((len(codes), 2), np.nan)
        whole = finite.all(axis=1)
        if whole.any():
            bounds[whole] = np.quantile(figures[whole], [q_low, q_high], axis=1).T
        for p in np.flatnonzero(~whole & finite.any(axis=1)):
            bounds[p] = np.quantile(figures[p][finite[p]], [q_low, q_high])
        for p in range(len(codes)):
            value, units = float(values[p]), int(counted[p])
            if n[p] >= 2 and units >= 2 and np.isfinite(value) and finite[p].any():
                found[p][name] = FigureCI(
                    value,
                    float(bounds[p, 0]),
                    float(bounds[p, 1]),
                    units=units,
                    unit=unit,
                    method="bootstrap",
                    level=level,
                )
            else:
                found[p][name] = FigureCI(value, nan, nan, units=units, unit=unit, method="none", level=level)
    return found


def shared_unit_intervals(
    per_unit: npt.ArrayLike,
    statistic: Statistic,
    counted: npt.ArrayLike,
    unit: str,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = SEED,
    level: float = 0.95,
    min_units: int = MIN_UNITS,
) -> list[FigureCI]:
    """Intervals of one figure of many columns over the same units, in one pass.

    ``per_unit``: units x columns x k sufficient statistics (e.g. every pair of
    assessors' per-topic overlap and presence, as
    :func:`stats.uncertainty.mean_units` gives one column's);
    ``counted[c]``: the units column ``c`` rests on. Column ``c``'s interval
    is :func:`stats.uncertainty.bootstrap` of ``per_unit[:, c]``
    with the same seed (the same resamples, drawn once for every column); a column
    over fewer than ``min_units`` units gets :func:`too_few_ci` (none drawn when no
    column has enough).
    """
    table = np.asarray(per_unit, dtype=np.float64)
    if table.ndim != 3:
        raise ValueError(f"per_unit must have shape (n_units, n_columns, k), got shape {table.shape}")
    n, columns, k = table.shape
    counted = np.asarray(counted, dtype=np.int64)
    values = np.asarray(statistic(table.sum(axis=0)), dtype=np.float64).reshape(columns)
    nan = float("nan")
    if columns and not (counted >= min_units).any():
        return [too_few_ci(float(v), int(u), unit, level) for v, u in zip(values, counted)]
    if n < 2 or columns == 0:
        return [
            FigureCI(float(v), nan, nan, units=int(u), unit=unit, method="none", level=level)
            for v, u in zip(values, counted)
        ]
    weights = resample_weights(n, n_resamples=resamples, seed=seed).astype(np.float64)
    figures = np.asarray(statistic((weights @ table.reshape(n, -1)).reshape(resamples, columns, k)), dtype=np.float64)
    finite = np.isfinite(figures)
    bounds = _column_quantiles(np.where(finite, figures, np.nan), ((1 - level) / 2, (1 + level) / 2))
    found = []
    for c in range(columns):
        if counted[c] < min_units:
            found.append(too_few_ci(float(values[c]), int(counted[c]), unit, level))
        elif np.isfinite(values[c]) and counted[c] >= 2 and finite[:, c].any():
            found.append(
                FigureCI(
                    float(values[c]),
                    float(bounds[0, c]),
                    float(bounds[1, c]),
                    units=int(counted[c]),
                    unit=unit,
                    method="bootstrap",
                    level=level,
                )
            )
        else:
            found.append(
                FigureCI(float(values[c]), nan, nan, units=int(counted[c]), unit=unit, method="none", level=level)
            )
    return found


def _column_quantiles(values: npt.NDArray[np.float64], quantiles: tuple[float, ...]) -> npt.NDArray[np.float64]:
    """Per column the quantiles of its finite values, by numpy's default (linear) rule, as
    ``np.quantile`` of each column's finite values gives them (NaN for a column without any);
    vectorised, where ``np.nanquantile`` loops over the columns.

    >>> values = np.array([[1.0, np.nan], [3.0, 2.0], [2.0, np.nan], [np.nan, np.nan]])
    >>> _column_quantiles(values, (0.5, 0.25)).tolist()
    [[2.0, 2.0], [1.5, 2.0]]
    """
    count = np.isfinite(values).sum(axis=0)
    result = np.full((len(quantiles), values.shape[1]), np.nan)
    has = count > 0
    columns = np.flatnonzero(has)
    if not has.any():
        return result
    places = []
    for q in quantiles:
        position = q * (count[has] - 1)
        below = np.floor(position).astype(np.int64)
        places.append((position, below, np.minimum(below + 1, count[has] - 1)))
    # only the order statistics needed, NaN last (np.partition places NaN as np.sort does)
    needed = np.unique(np.concatenate([np.concatenate([below, above]) for _, below, above in places]))
    ordered = np.partition(values, needed, axis=0)
    for row, (position, below, above) in enumerate(places):
        t = position - below
        a, b = ordered[below, columns], ordered[above, columns]
        difference = b - a
        # numpy's _lerp: a + (b - a) t, or b - (b - a)(1 - t) from t = 0.5 on
        result[row, has] = np.where(t >= 0.5, b - difference * (1 - t), a + difference * t)
    return result


# Resamples x pairs x cells held at once (32 MB of float64).
_PAIR_CELLS = 1 << 22
