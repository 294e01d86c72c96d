r"""Intervals on agreement figures: one seeded, vectorised bootstrap over units.

Every figure of the metric library that is a function of sums of per-unit
statistics (a confusion matrix, category totals, coincidences, a mean) is
bootstrapped the same way (Efron & Tibshirani 1993, "An Introduction to the
Bootstrap", ch. 6 and 13):

1. :func:`resample_weights` draws, for a seed, ``n_resamples`` resamples of
   the ``n_units`` units with replacement, as multinomial counts
   ``W[b, i]`` (how often unit ``i`` is drawn in resample ``b``);
2. a figure gives its per-unit sufficient statistics, an
   ``(n_units, k)`` matrix ``S`` whose column sums determine it, and a
   vectorised ``statistic`` mapping summed statistics ``(..., k)`` to the
   figure;
3. :func:`bootstrap` evaluates ``statistic(W @ S)`` (all resamples at once,
   one matrix product) and ``statistic(S.sum(0))`` (the figure itself), and
   returns the percentile interval (Efron & Tibshirani 1993, ch. 13.3).

So an interval costs one product of a resamples x units matrix with a units x k
matrix plus one vectorised evaluation of the figure, whatever the figure.
Because the same seed gives the same ``W`` for the same number of units, all
figures over the same units share their resamples (pass ``weights=`` to reuse
a ``W`` already drawn).

A resample on which the figure is undefined (NaN: e.g. kappa when every
resampled item is in one category) is dropped; the share dropped is
:attr:`Interval.dropped`. The interval is ``method="none"`` (NaN bounds) when
the figure itself is NaN, fewer than two units count, or every resample is
dropped.

Ready-made sufficient statistics (``*_units`` functions, each returning a
:class:`UnitStatistics` whose ``statistic`` of the full sums equals the
library's own figure to rounding): :func:`cohen_kappa_units`,
:func:`fleiss_kappa_units`, :func:`krippendorff_alpha_units`,
:func:`pairwise_units` (overlap, p+, p-, observed, kappa of a 2x2 table) and
:func:`mean_units` (any per-unit figure averaged over units, e.g. per-topic
tau). :func:`fleiss_kappa_se` gives the analytic standard errors of Fleiss'
kappa: :func:`fleiss_kappa_interval` the interval of the general one (Gwet
2008), :func:`fleiss_kappa_test` the test of kappa = 0 of the null one
(Fleiss, Nee & Landis 1979), which makes no interval.

Krippendorff's alpha: Hayes & Krippendorff (2007, "Answering the call for a
standard reliability measure for coding data", Communication Methods and
Measures 1(1):77-89) bootstrap alpha by drawing *pairs of values* at random
from the observed coincidence matrix (as many as the data hold pairable
values), keeping the expected disagreement fixed, which treats the pairs
within a unit as independent. Here the *units* are resampled instead, and
observed and expected disagreement are both recomputed on each resample: the
ordinary nonparametric bootstrap of the sampled units (items or topics), which
keeps the dependence between the values of one unit and is the same procedure
as for every other figure. Its intervals are somewhat wider than KALPHA's when
units hold many values.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
from scipy import sparse, special

from stats import agreement as _agreement
from stats.agreement import CategoryCounts, KappaWeights, Level

__all__ = [
    "Interval",
    "UnitStatistics",
    "bootstrap",
    "cohen_kappa_units",
    "fleiss_kappa_interval",
    "fleiss_kappa_se",
    "fleiss_kappa_test",
    "KappaTest",
    "fleiss_kappa_units",
    "krippendorff_alpha_units",
    "mean_units",
    "pairwise_units",
    "grouped_bootstrap",
    "ratio_units",
    "resample_weights",
]

Method = Literal["bootstrap", "analytic", "none"]
PairwiseFigure = Literal["observed", "overlap", "positive", "negative", "kappa"]
Statistic = Callable[[npt.NDArray[np.float64]], npt.NDArray[np.float64]]

# Resamples x units cells per block when the resampled sums are formed:
# bounds the weights held at once to about 32 MB whatever the units.
_BLOCK_CELLS = 1 << 22
#: Draws up to this many cells (units x resamples: 64 KB x 8 bytes = 512 KB each, at most
#: 64 kept, 32 MB) are cached by their sizes and seed (_cached_weights).
_CACHED_CELLS = 1 << 16


@dataclass(frozen=True)
class Interval:
    """A figure with its interval and the units behind it.

    Attributes
    ----------
    value : float
        The figure on all the units (NaN when undefined).
    low, high : float
        The interval's bounds; NaN when there is none (``method="none"``).
    units : int
        How many units the figure rests on (items, topics, pairable units).
    level : float
        Coverage of the interval, 0.95 by default.
    method : {"bootstrap", "analytic", "none"}
        Percentile bootstrap over units, a published standard error
        (value +- z SE), or no interval.
    dropped : float
        Share of the bootstrap resamples left out because the figure was
        undefined on them (0 for the other methods).

    Examples
    --------
    >>> interval = Interval(0.6, 0.5, 0.7, units=120)
    >>> interval.width, interval.method
    (0.19999999999999996, 'bootstrap')
    >>> Interval(float("nan"), float("nan"), float("nan"), units=1, method="none").defined
    False
    """

    value: float
    low: float
    high: float
    units: int
    level: float = 0.95
    method: Method = "bootstrap"
    dropped: float = 0.0

    @property
    def width(self) -> float:
        """``high - low`` (NaN without an interval)."""
        return self.high - self.low

    @property
    def defined(self) -> bool:
        """Whether both bounds are numbers."""
        return bool(np.isfinite(self.low) and np.isfinite(self.high))


@dataclass(frozen=True)
class UnitStatistics:
    """Per-unit sufficient statistics of a figure and the figure as a function of their sums.

    Attributes
    ----------
    per_unit : ndarray of float64, shape (n_units, k)
        Row ``i``: unit ``i``'s statistics (zeros for a unit that does not
        count, which keeps the rows aligned with the units of other figures).
    statistic : callable
        Maps summed statistics of shape ``(..., k)`` to the figure, shape
        ``(...)``; NaN where undefined.
    units : int
        How many units count toward the figure.

    Examples
    --------
    >>> stats = mean_units([0.5, 0.7, float("nan")])
    >>> stats.per_unit.tolist(), stats.units, round(stats.value, 12)
    ([[0.5, 1.0], [0.7, 1.0], [0.0, 0.0]], 2, 0.6)
    """

    per_unit: npt.NDArray[np.float64]
    statistic: Statistic
    units: int

    @property
    def value(self) -> float:
        """The figure on all the units: ``statistic(per_unit.sum(axis=0))``."""
        return float(self.statistic(np.asarray(self.per_unit.sum(axis=0)).ravel()))

    def interval(
        self,
        *,
        n_resamples: int = 1000,
        seed: int = 0,
        level: float = 0.95,
        weights: npt.ArrayLike | None = None,
        grouped: bool = False,
    ) -> Interval:
        """:func:`bootstrap` of these statistics (``grouped``: :func:`grouped_bootstrap`,
        for units whose statistics take few distinct values; ``weights`` do not apply)."""
        if grouped:
            return grouped_bootstrap(
                self.per_unit, self.statistic, n_resamples=n_resamples, seed=seed, level=level, units=self.units
            )
        return bootstrap(
            self.per_unit,
            self.statistic,
            n_resamples=n_resamples,
            seed=seed,
            level=level,
            weights=weights,
            units=self.units,
        )


def resample_weights(n_units: int, *, n_resamples: int = 1000, seed: int = 0) -> npt.NDArray[np.int64]:
    """Bootstrap resamples of ``n_units`` units as multinomial counts.

    Row ``b`` counts how often each unit is drawn when ``n_units`` units are
    drawn uniformly with replacement; every row sums to ``n_units``. The draws
    are ``numpy.random.default_rng(seed).integers(0, n_units, (n_resamples,
    n_units))``, so a seed always gives the same matrix, and the first rows of
    a larger ``n_resamples`` are the rows of a smaller one.

    Parameters
    ----------
    n_units : int
        Units to resample (0 gives an empty matrix).
    n_resamples : int, default 1000
        Number of resamples (rows), at least 1.
    seed : int, default 0
        Seed of the generator.

    Returns
    -------
    ndarray of int64, shape (n_resamples, n_units)

    Raises
    ------
    ValueError
        If ``n_units`` is negative or ``n_resamples`` is below 1.

    Examples
    --------
    >>> weights = resample_weights(4, n_resamples=3, seed=1)
    >>> weights.sum(axis=1).tolist()
    [4, 4, 4]
    >>> bool((resample_weights(4, n_resamples=3, seed=1) == weights).all())
    True
    """
    _check_sizes(n_units, n_resamples)
    return np.vstack(list(_weight_blocks(n_units, n_resamples, seed, block=n_resamples)))


def bootstrap(
    per_unit: npt.ArrayLike | sparse.sparray,
    statistic: Statistic,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    weights: npt.ArrayLike | None = None,
    units: int | None = None,
) -> Interval:
    """Percentile bootstrap interval of a figure of summed per-unit statistics.

    ``statistic`` is called once on the full sums (the figure) and on blocks
    of the resampled sums ``W @ per_unit`` (``W`` from
    :func:`resample_weights`); the bounds are the ``(1 - level) / 2`` and
    ``(1 + level) / 2`` quantiles (linear interpolation) of the resampled
    figures that are not NaN.

    Parameters
    ----------
    per_unit : array_like or scipy sparse array, shape (n_units, k) or (n_units,)
        Each unit's sufficient statistics.
    statistic : callable
        Vectorised: ``(..., k)`` summed statistics to ``(...)`` figures.
    n_resamples : int, default 1000
    seed : int, default 0
    level : float, default 0.95
        Coverage, strictly between 0 and 1.
    weights : array_like of shape (n_resamples, n_units), optional
        Resample counts to use instead of drawing them (to share one draw
        between figures); ``n_resamples`` and ``seed`` are then ignored.
        Pass them as float64 (``resample_weights(...).astype(float)``, once)
        when several figures share them: they are used as floats, converted
        on each call otherwise.
    units : int, optional
        The units to report; default ``n_units``.

    Returns
    -------
    Interval
        ``method="bootstrap"``, or ``"none"`` with NaN bounds when the figure
        is NaN, fewer than two units count, or every resample is NaN.

    Raises
    ------
    ValueError
        On a bad shape, ``level`` or ``n_resamples``, or ``weights`` whose
        width is not ``n_units``.

    Examples
    --------
    The mean of ten values and its 95% interval:

    >>> values = np.arange(10.0)
    >>> per_unit = np.column_stack([values, np.ones(10)])
    >>> interval = bootstrap(per_unit, lambda s: s[..., 0] / s[..., 1], seed=3)
    >>> interval.value, interval.units, interval.method
    (4.5, 10, 'bootstrap')
    >>> bool(2.5 < interval.low < 4.5 < interval.high < 6.5)
    True
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be strictly between 0 and 1, got {level!r}")
    matrix = _per_unit_matrix(per_unit)
    n_units = matrix.shape[0]
    units = n_units if units is None else int(units)
    value = float(statistic(np.asarray(matrix.sum(axis=0)).ravel()))
    if weights is not None:
        # As floats once (no copy when they already are): the product with per_unit runs in float64.
        weight_matrix = np.asarray(weights, dtype=np.float64)
        if weight_matrix.ndim != 2 or weight_matrix.shape[1] != n_units or weight_matrix.shape[0] < 1:
            raise ValueError(f"weights must have shape (n_resamples, {n_units}), got {weight_matrix.shape}")
        n_resamples = weight_matrix.shape[0]
        block = max(1, _BLOCK_CELLS // max(n_units, 1))
        blocks = (weight_matrix[start : start + block] for start in range(0, n_resamples, block))
    else:
        _check_sizes(n_units, n_resamples)
        if n_units * n_resamples <= _CACHED_CELLS and isinstance(seed, int) and not isinstance(seed, bool):
            # Small draws are kept (they are the same for the same sizes and seed): a report
            # bootstraps many figures over the same number of units.
            blocks = iter([_cached_weights(int(n_units), int(n_resamples), seed)])
        else:
            blocks = _weight_blocks(n_units, n_resamples, seed, block=max(1, _BLOCK_CELLS // max(n_units, 1)))
    if not np.isfinite(value) or units < 2 or n_units < 2:
        return no_interval(value, units, level)
    resampled = np.concatenate([np.asarray(statistic(_resampled_sums(w, matrix)), dtype=np.float64) for w in blocks])
    return percentile_interval(value, resampled, units, level)


def grouped_bootstrap(
    per_unit: npt.ArrayLike,
    statistic: Statistic,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    units: int | None = None,
) -> Interval:
    """:func:`bootstrap` for units whose statistics take few distinct values.

    Drawing ``n`` units with replacement is drawing, for each distinct row of
    ``per_unit`` held by ``c`` of the units, how many times it comes up: the
    counts are multinomial(``n``, ``c / n``) over the distinct rows. So the
    resampled sums are ``G @ rows`` with ``G`` of shape (n_resamples, distinct
    rows), drawn in O(resamples x distinct rows) rather than O(resamples x
    units): e.g. two annotators' yes/no items have at most three distinct
    per-item counts however many items there are. The same distribution as
    :func:`bootstrap`, from another random stream (the intervals agree to
    Monte Carlo error, not digit for digit); seeded; percentile bounds as
    there.

    >>> labels = np.array([[2, 0]] * 300 + [[1, 1]] * 200 + [[0, 2]] * 500)
    >>> stats = fleiss_kappa_units(labels)
    >>> grouped = grouped_bootstrap(stats.per_unit, stats.statistic, seed=1)
    >>> plain = stats.interval(seed=1)
    >>> grouped.value == plain.value, grouped.units, grouped.method
    (True, 1000, 'bootstrap')
    >>> bool(abs(grouped.low - plain.low) < 0.02 and abs(grouped.high - plain.high) < 0.02)
    True
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be strictly between 0 and 1, got {level!r}")
    matrix = _per_unit_matrix(per_unit)
    if sparse.issparse(matrix):
        matrix = matrix.toarray()
    n_units = matrix.shape[0]
    _check_sizes(n_units, n_resamples)
    units = n_units if units is None else int(units)
    value = float(statistic(matrix.sum(axis=0)))
    if not np.isfinite(value) or units < 2 or n_units < 2:
        return no_interval(value, units, level)
    rows, counts = np.unique(matrix, axis=0, return_counts=True)
    draws = np.random.default_rng(seed).multinomial(n_units, counts / n_units, size=n_resamples)
    resampled = np.asarray(statistic(draws.astype(np.float64) @ rows), dtype=np.float64)
    return percentile_interval(value, resampled, units, level)


def percentile_interval(value: float, resampled: npt.NDArray[np.float64], units: int, level: float) -> Interval:
    """The percentile interval of the resampled figures that are not NaN.

    ``dropped`` is the share of resamples whose figure was NaN (left out);
    with none left the interval is :func:`no_interval`.

    Examples
    --------
    >>> interval = percentile_interval(0.5, np.array([0.1, 0.3, 0.5, 0.7, 0.9, np.nan]), units=20, level=0.5)
    >>> interval.low, interval.high, round(interval.dropped, 4)
    (0.3, 0.7, 0.1667)
    """
    finite = resampled[np.isfinite(resampled)]
    dropped = 1 - finite.size / resampled.size
    if finite.size == 0:
        return no_interval(value, units, level, dropped=dropped)
    low, high = np.quantile(finite, [(1 - level) / 2, (1 + level) / 2])
    return Interval(value, float(low), float(high), units=units, level=level, method="bootstrap", dropped=dropped)


# --- ready-made sufficient statistics ------------------------------------------


def cohen_kappa_units(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    *,
    weights: KappaWeights | None = None,
    labels: npt.ArrayLike | None = None,
) -> UnitStatistics:
    """Cohen's kappa of two raters as a function of per-item confusion cells.

    Each item contributes a one-hot row over the ``C * C`` cells of the
    confusion matrix (zeros when a label is outside ``labels``); the
    statistic is :func:`stats.agreement.cohen_kappa` of the summed
    matrix, with the same ``weights`` and ``labels``.

    Examples
    --------
    >>> stats = cohen_kappa_units(["neg", "pos", "neg", "neu", "pos"], ["neg", "pos", "neg", "neu", "neg"])
    >>> stats.per_unit.shape, stats.value
    ((5, 9), 0.6875)
    """
    _agreement._check_weights(weights)
    first, second = _agreement._two_raters(a, b)
    first_index, second_index, n_categories = _agreement._shared_positions(first, second, labels)
    counted = (first_index >= 0) & (second_index >= 0)
    cells = first_index * n_categories + second_index
    per_unit = _one_hot(np.where(counted, cells, -1), n_categories * n_categories)
    positions = np.arange(n_categories)
    distance = np.abs(positions[:, np.newaxis] - positions[np.newaxis, :]).astype(np.float64)
    if weights is None:
        distance = np.minimum(distance, 1.0)
    elif weights == "quadratic":
        distance = np.square(distance)

    def statistic(sums: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        confusion = sums.reshape(*sums.shape[:-1], n_categories, n_categories)
        n = confusion.sum(axis=(-2, -1))
        rows, cols = confusion.sum(axis=-1), confusion.sum(axis=-2)
        with np.errstate(divide="ignore", invalid="ignore"):
            expected = rows[..., :, np.newaxis] * cols[..., np.newaxis, :] / n[..., np.newaxis, np.newaxis]
            expected_disagreement = np.sum(distance * expected, axis=(-2, -1))
            observed = np.sum(distance * confusion, axis=(-2, -1))
            kappa = 1 - observed / expected_disagreement
        return np.where((n > 0) & (expected_disagreement != 0), kappa, np.nan)

    return UnitStatistics(per_unit, statistic, int(np.count_nonzero(counted)))


def fleiss_kappa_units(counts: npt.ArrayLike | CategoryCounts) -> UnitStatistics:
    """Fleiss' kappa as a function of per-item category counts and their squares.

    Per item: its ``C`` category counts, their sum of squares and 1 (the
    item). With ``n`` raters per item and these summed over ``N`` items,
    mean item agreement is ``(sum of squares / N - n) / (n (n - 1))``, so the
    statistic is :func:`stats.agreement.fleiss_kappa` exactly.

    Examples
    --------
    >>> stats = fleiss_kappa_units([[3, 0], [0, 3], [2, 1], [1, 2]])
    >>> stats.per_unit.tolist()[2], round(stats.value, 4), stats.units
    ([2.0, 1.0, 5.0, 1.0], 0.3333, 4)
    """
    table = _fleiss_table(counts)
    n_items, n_categories = table.shape
    n_raters = float(table[0].sum()) if n_items else 0.0
    squares = np.einsum("ij,ij->i", table, table)
    per_unit = np.column_stack([table, squares, np.ones(n_items)]).astype(np.float64)

    def statistic(sums: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        totals, square_sum, items = sums[..., :n_categories], sums[..., n_categories], sums[..., n_categories + 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_agreement = (square_sum / items - n_raters) / (n_raters * (n_raters - 1.0))
            chance = np.sum(np.square(totals / (items * n_raters)[..., np.newaxis]), axis=-1)
            kappa = (mean_agreement - chance) / (1 - chance)
        defined = (items > 0) & (n_raters >= 2) & (np.count_nonzero(totals, axis=-1) >= 2)
        return np.where(defined, kappa, np.nan)

    return UnitStatistics(per_unit, statistic, n_items)


def krippendorff_alpha_units(reliability_data: npt.ArrayLike, *, level: Level = "nominal") -> UnitStatistics:
    """Krippendorff's alpha as a function of per-unit coincidence contributions.

    Units are the columns of ``reliability_data`` (coders x units, as
    :func:`stats.agreement.krippendorff_alpha`); a unit with fewer
    than two values is not pairable and contributes zeros. Nominal, interval
    and ratio: per unit its value counts ``n_uc`` and its observed
    disagreement ``sum_ck n_uc n_uk delta2_ck / (m_u - 1)``, ``V + 1``
    columns for ``V`` values (alpha needs only these: ``n_c`` is the sum of
    ``n_uc`` over pairable units). Ordinal: its differences depend on the
    value totals of the resample, so per unit the whole ``V x V`` coincidence
    contribution. See the module docstring for how this differs from Hayes &
    Krippendorff's (2007) bootstrap.

    Examples
    --------
    Krippendorff (2011), section C:

    >>> nan = float("nan")
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...         [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    >>> stats = krippendorff_alpha_units(data)
    >>> round(stats.value, 3), stats.units
    (0.743, 11)
    >>> round(krippendorff_alpha_units(data, level="ordinal").value, 3)
    0.815
    """
    _agreement._check_level(level)
    data = _agreement._as_array(reliability_data, "reliability_data")
    _agreement._check_ndim(data, 2, "reliability_data", "(n_coders, n_units)")
    labels = _agreement._encode(data, "reliability_data")
    values = _agreement._values_for_level(labels.categories, level)
    n_values = len(values)
    unit_counts = _agreement._count_cells(labels.codes, n_values, item_axis=1).astype(np.float64)
    per_unit_values = unit_counts.sum(axis=1)
    pairable = per_unit_values >= 2
    unit_counts[~pairable] = 0.0
    pair_weight = np.divide(1.0, per_unit_values - 1, out=np.zeros_like(per_unit_values), where=pairable)
    n_pairable = int(np.count_nonzero(pairable))

    if level == "ordinal":
        contributions = unit_counts[:, :, np.newaxis] * unit_counts[:, np.newaxis, :]
        contributions[:, np.arange(n_values), np.arange(n_values)] -= unit_counts
        contributions *= pair_weight[:, np.newaxis, np.newaxis]
        per_unit = contributions.reshape(len(unit_counts), n_values * n_values)

        def ordinal(sums: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
            coincidences = sums.reshape(*sums.shape[:-1], n_values, n_values)
            totals = coincidences.sum(axis=-1)
            position = np.cumsum(totals, axis=-1) - totals / 2
            gaps = np.square(position[..., :, np.newaxis] - position[..., np.newaxis, :])
            observed = np.sum(coincidences * gaps, axis=(-2, -1))
            return _alpha(totals, observed, _spread(totals, position))

        return UnitStatistics(per_unit, ordinal, n_pairable)

    if level == "nominal":
        disagreement = np.square(per_unit_values) - np.einsum("ij,ij->i", unit_counts, unit_counts)
    elif level == "interval":
        centred = values[np.newaxis, :] - _safe_mean(unit_counts, values)[:, np.newaxis]
        disagreement = 2 * per_unit_values * np.einsum("ij,ij->i", unit_counts, np.square(centred))
    else:
        differences = _agreement._ratio_difference(values[:, np.newaxis], values[np.newaxis, :])
        disagreement = np.einsum("ij,jk,ik->i", unit_counts, differences, unit_counts)
    per_unit = np.column_stack([unit_counts, disagreement * pair_weight])

    def fixed(sums: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        totals, observed = sums[..., :n_values], sums[..., n_values]
        n = totals.sum(axis=-1)
        if level == "nominal":
            expected = np.square(n) - np.sum(np.square(totals), axis=-1)
        elif level == "interval":
            expected = _spread(totals, values)
        else:
            expected = np.einsum("...j,jk,...k->...", totals, differences, totals)
        return _alpha(totals, observed, expected)

    return UnitStatistics(per_unit, fixed, n_pairable)


def pairwise_units(a: npt.ArrayLike, b: npt.ArrayLike, *, figure: PairwiseFigure = "kappa") -> UnitStatistics:
    """A figure of two raters' 2x2 table as a function of per-item cells.

    Per item a one-hot row over the cells ``(a, b, c, d)`` of
    :func:`stats.agreement.pairwise_agreement` (both positive,
    first only, second only, neither); ``figure`` picks ``observed``,
    ``overlap``, ``positive`` (p+), ``negative`` (p-) or ``kappa``, computed
    as there.

    Examples
    --------
    >>> stats = pairwise_units([1, 1, 1, 0, 0, 0], [1, 1, 0, 1, 0, 0], figure="positive")
    >>> stats.per_unit.sum(axis=0).tolist(), round(stats.value, 4)
    ([2.0, 1.0, 1.0, 2.0], 0.6667)
    """
    if figure not in ("observed", "overlap", "positive", "negative", "kappa"):
        raise ValueError(f"figure must be observed, overlap, positive, negative or kappa, got {figure!r}")
    first = _agreement._binary(a, "a")
    second = _agreement._binary(b, "b")
    _agreement._check_same_length(first, second)
    cells = np.where(first, np.where(second, 0, 1), np.where(second, 2, 3))
    per_unit = _one_hot(cells, 4)

    def statistic(sums: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        both, first_only, second_only, neither = (sums[..., i] for i in range(4))
        disagreements = first_only + second_only
        if figure == "observed":
            numerator, denominator = both + neither, sums.sum(axis=-1)
        elif figure == "overlap":
            numerator, denominator = both, both + disagreements
        elif figure == "positive":
            numerator, denominator = 2 * both, 2 * both + disagreements
        elif figure == "negative":
            numerator, denominator = 2 * neither, 2 * neither + disagreements
        else:
            numerator = 2 * (both * neither - first_only * second_only)
            denominator = (both + first_only) * (first_only + neither) + (both + second_only) * (second_only + neither)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(denominator != 0, numerator / denominator, np.nan)

    return UnitStatistics(per_unit, statistic, len(first))


def mean_units(values: npt.ArrayLike) -> UnitStatistics:
    """The mean of a per-unit figure (per-topic tau, V-measure per topic...).

    Per unit ``(value, 1)``, or ``(0, 0)`` where the value is NaN (the unit
    has no figure and does not count); the statistic is sum over count.

    Examples
    --------
    >>> stats = mean_units([0.2, 0.4, 0.9])
    >>> round(stats.value, 12), stats.units
    (0.5, 3)
    """
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise ValueError(f"values must be 1-D with shape (n_units,), got shape {array.shape}")
    present = np.isfinite(array)
    per_unit = np.column_stack([np.where(present, array, 0.0), present.astype(np.float64)])

    def statistic(sums: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(sums[..., 1] > 0, sums[..., 0] / sums[..., 1], np.nan)

    return UnitStatistics(per_unit, statistic, int(np.count_nonzero(present)))


def ratio_units(numerators: npt.ArrayLike, denominators: npt.ArrayLike) -> UnitStatistics:
    """A pooled ratio over units: the sum of the numerators over the sum of the
    denominators (e.g. Voorhees' pooled overlap: summed intersections over summed
    unions of the topics). Units with a zero denominator do not count.

    Examples
    --------
    >>> stats = ratio_units([1, 2, 0], [2, 2, 0])
    >>> stats.per_unit.tolist(), round(stats.value, 12), stats.units
    ([[1.0, 2.0], [2.0, 2.0], [0.0, 0.0]], 0.75, 2)
    """
    top = np.asarray(numerators, dtype=np.float64)
    bottom = np.asarray(denominators, dtype=np.float64)
    if top.ndim != 1 or top.shape != bottom.shape:
        raise ValueError(f"numerators and denominators must be 1-D of one length, got {top.shape} and {bottom.shape}")
    per_unit = np.column_stack([top, bottom])

    def statistic(sums: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(sums[..., 1] > 0, sums[..., 0] / sums[..., 1], np.nan)

    return UnitStatistics(per_unit, statistic, int(np.count_nonzero(bottom > 0)))


# --- Fleiss' kappa: analytic standard errors -------------------------------------


def fleiss_kappa_se(counts: npt.ArrayLike | CategoryCounts, *, form: Literal["null", "general"] = "general") -> float:
    r"""Large-sample standard error of Fleiss' kappa.

    ``form="null"``: Fleiss, Nee & Landis (1979, "Large sample variance of
    kappa in the case of different sets of raters", Psychol. Bull.
    86(5):974-977), eq. (12), valid when the true kappa is 0 (what a test of
    "no agreement beyond chance" needs), with :math:`N` items, :math:`n`
    raters each, :math:`p_j` the category shares, :math:`q_j = 1 - p_j`:

    .. math::
        SE_0 = \frac{\sqrt 2}{\sum_j p_j q_j \sqrt{N n (n-1)}}
               \sqrt{\Big(\sum_j p_j q_j\Big)^2 - \sum_j p_j q_j (q_j - p_j)}

    It does not depend on the observed agreement, so it is not the standard
    error of kappa when agreement is real: away from 0 it is too small or too
    large (tests compare both forms with the bootstrap).

    ``form="general"`` (default): the linearised variance of Gwet (2008,
    "Computing inter-rater reliability and its variance in the presence of
    high agreement", Br. J. Math. Stat. Psychol. 61:29-48; Gwet 2014,
    Handbook of Inter-Rater Reliability, 4th ed., ch. 5), valid at any kappa,
    the one irrCAC's ``fleiss`` reports (without finite-population
    correction): with item agreement :math:`p_{a|i}`, item chance agreement
    :math:`p_{e|i} = \sum_j (n_{ij}/n) p_j`,
    :math:`\kappa_i = (p_{a|i} - p_e)/(1 - p_e)` and
    :math:`\kappa_i^* = \kappa_i - 2(1-\kappa)(p_{e|i} - p_e)/(1 - p_e)`,
    :math:`SE^2 = \frac{1}{N(N-1)}\sum_i (\kappa_i^* - \kappa)^2`.

    Parameters
    ----------
    counts : array_like of shape (n_items, n_categories), or CategoryCounts
        As :func:`stats.agreement.fleiss_kappa`: the same number of
        raters per item.
    form : {"general", "null"}

    Returns
    -------
    float
        The standard error; NaN when kappa is undefined or (general form)
        fewer than two items.

    Examples
    --------
    >>> counts = [[3, 0], [0, 3], [2, 1], [1, 2], [3, 0], [0, 3]]
    >>> round(fleiss_kappa_se(counts, form="null"), 4), round(fleiss_kappa_se(counts), 4)
    (0.2357, 0.2811)
    """
    if form not in ("null", "general"):
        raise ValueError(f"form must be 'null' or 'general', got {form!r}")
    table = _fleiss_table(counts).astype(np.float64)
    n_items = table.shape[0]
    kappa = _agreement.fleiss_kappa(table)
    if not np.isfinite(kappa):
        return float("nan")
    n_raters = table[0].sum()
    shares = table.sum(axis=0) / (n_items * n_raters)
    if form == "null":
        spread = np.sum(shares * (1 - shares))
        inner = spread**2 - np.sum(shares * (1 - shares) * (1 - 2 * shares))
        return float(math.sqrt(2.0) / (spread * math.sqrt(n_items * n_raters * (n_raters - 1))) * math.sqrt(inner))
    if n_items < 2:
        return float("nan")
    chance = np.sum(np.square(shares))
    item_agreement = (np.einsum("ij,ij->i", table, table) - n_raters) / (n_raters * (n_raters - 1))
    item_chance = table @ shares / n_raters
    item_kappa = (item_agreement - chance) / (1 - chance)
    linearised = item_kappa - 2 * (1 - kappa) * (item_chance - chance) / (1 - chance)
    return float(math.sqrt(np.sum(np.square(linearised - kappa)) / (n_items * (n_items - 1))))


def fleiss_kappa_interval(counts: npt.ArrayLike | CategoryCounts, *, level: float = 0.95) -> Interval:
    """Fleiss' kappa +- z * the general (Gwet 2008) :func:`fleiss_kappa_se` (normal approximation).

    Only the general standard error makes an interval: the null form of Fleiss,
    Nee & Landis (1979) is the spread of kappa *when kappa is 0*, so an interval
    built from it covers the true kappa far less often than it says when there is
    agreement (73-89% for a nominal 95% at kappa 0.4 and 0.8, 5 raters, n = 50-1,000,
    ``python -m benchmarks.coverage``). It answers a test instead:
    :func:`fleiss_kappa_test`.

    Examples
    --------
    >>> interval = fleiss_kappa_interval([[3, 0], [0, 3], [2, 1], [1, 2], [3, 0], [0, 3]])
    >>> round(interval.value, 4), round(interval.low, 4), round(interval.high, 4), interval.method
    (0.5556, 0.0046, 1.1065, 'analytic')
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be strictly between 0 and 1, got {level!r}")
    table = _fleiss_table(counts)
    value = _agreement.fleiss_kappa(table)
    se = fleiss_kappa_se(table, form="general")
    if not (np.isfinite(value) and np.isfinite(se)):
        return no_interval(value, table.shape[0], level)
    # scipy.stats.norm.ppf is special.ndtri (bit for bit) behind a distribution's argument checks,
    # which cost more than the rest of a small table's interval; scipy.stats takes 1.7 s to import
    z = float(special.ndtri((1 + level) / 2))
    return Interval(value, value - z * se, value + z * se, units=table.shape[0], level=level, method="analytic")


@dataclass(frozen=True)
class KappaTest:
    """A z test of "no agreement beyond chance" (kappa = 0).

    Attributes
    ----------
    value : float
        The kappa tested (NaN when undefined).
    se : float
        Its standard error *under* kappa = 0.
    z : float
        ``value / se``.
    p_value : float
        Two-sided, ``2 (1 - Phi(|z|))`` (as R's ``irr::kappam.fleiss`` reports it).
    units : int
        Items behind it.
    """

    value: float
    se: float
    z: float
    p_value: float
    units: int

    @property
    def defined(self) -> bool:
        return bool(np.isfinite(self.z) and np.isfinite(self.p_value))


def fleiss_kappa_test(counts: npt.ArrayLike | CategoryCounts) -> KappaTest:
    r"""Test of Fleiss' kappa = 0 with the standard error of Fleiss, Nee & Landis (1979).

    ``z = kappa / SE_0`` with :math:`SE_0` the null form of
    :func:`fleiss_kappa_se` (Fleiss, Nee & Landis 1979, "Large sample variance
    of kappa in the case of different sets of raters", Psychol. Bull.
    86(5):974-977, eq. 12): the standard error of kappa when the raters agree
    by chance only, so the test is exact in the large-sample sense, and a
    small ``p`` says there is agreement beyond chance. It says nothing about
    how precise kappa is (that is :func:`fleiss_kappa_interval`'s job).

    Examples
    --------
    R's ``irr::kappam.fleiss(diagnoses)`` (Fleiss 1971's 30 patients, 6
    psychiatrists) prints Kappa = 0.43, z = 17.7, p-value = 0; its count table:

    >>> table = [[0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0],
    ...          [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6],
    ...          [1, 0, 0, 5, 0], [1, 1, 0, 4, 0], [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1],
    ...          [0, 0, 5, 0, 1], [3, 0, 0, 1, 2], [5, 1, 0, 0, 0], [0, 2, 0, 4, 0], [1, 0, 2, 0, 3],
    ...          [0, 0, 0, 0, 6], [0, 1, 0, 5, 0], [0, 2, 0, 1, 3], [2, 0, 0, 4, 0], [1, 0, 0, 4, 1],
    ...          [0, 5, 0, 1, 0], [4, 0, 0, 0, 2], [0, 2, 0, 4, 0], [1, 0, 5, 0, 0], [0, 0, 0, 0, 6]]
    >>> test = fleiss_kappa_test(table)
    >>> round(test.value, 2), round(test.z, 1), test.p_value < 1e-60, test.units
    (0.43, 17.7, True, 30)
    """
    table = _fleiss_table(counts)
    value = _agreement.fleiss_kappa(table)
    se = fleiss_kappa_se(table, form="null")
    nan = float("nan")
    if not (np.isfinite(value) and np.isfinite(se) and se > 0):
        return KappaTest(float(value), float(se), nan, nan, table.shape[0])
    z = value / se
    # the normal's upper tail, scipy.stats.norm.sf bit for bit (special.ndtr of -z) without its checks
    return KappaTest(float(value), float(se), float(z), float(2 * special.ndtr(-abs(z))), table.shape[0])


# --- helpers --------------------------------------------------------------------


def _check_sizes(n_units: int, n_resamples: int) -> None:
    if int(n_units) != n_units or n_units < 0:
        raise ValueError(f"n_units must be a whole number >= 0, got {n_units!r}")
    if int(n_resamples) != n_resamples or n_resamples < 1:
        raise ValueError(f"n_resamples must be a whole number >= 1, got {n_resamples!r}")


@functools.lru_cache(maxsize=64)
def _cached_weights(n_units: int, n_resamples: int, seed: int) -> npt.NDArray[np.float64]:
    """The whole draw of :func:`_weight_blocks` as one read-only float64 matrix
    (at most ``_CACHED_CELLS`` cells)."""
    (weights,) = _weight_blocks(n_units, n_resamples, seed, block=n_resamples)
    weights = weights.astype(np.float64)
    weights.setflags(write=False)
    return weights


def _weight_blocks(n_units: int, n_resamples: int, seed: int, *, block: int):
    """resample_weights in blocks of rows: the same rows, drawn from one generator in order."""
    rng = np.random.default_rng(seed)
    for start in range(0, n_resamples, block):
        rows = min(block, n_resamples - start)
        if n_units == 0:
            yield np.zeros((rows, 0), dtype=np.int64)
            continue
        draws = rng.integers(0, n_units, size=(rows, n_units))
        draws += (np.arange(rows) * n_units)[:, np.newaxis]
        yield np.bincount(draws.ravel(), minlength=rows * n_units).reshape(rows, n_units)


def _per_unit_matrix(per_unit: npt.ArrayLike | sparse.sparray) -> np.ndarray | sparse.csr_array:
    if sparse.issparse(per_unit):
        return sparse.csr_array(per_unit, dtype=np.float64)
    matrix = np.asarray(per_unit, dtype=np.float64)
    if matrix.ndim == 1:
        matrix = matrix[:, np.newaxis]
    if matrix.ndim != 2:
        raise ValueError(f"per_unit must have shape (n_units, k) or (n_units,), got shape {matrix.shape}")
    return matrix


def _resampled_sums(weights: np.ndarray, matrix: np.ndarray | sparse.csr_array) -> np.ndarray:
    weights = np.asarray(weights, dtype=np.float64)
    if isinstance(matrix, np.ndarray):
        return weights @ matrix
    return np.asarray((matrix.T @ weights.T).T)


def no_interval(value: float, units: int, level: float, *, dropped: float = 0.0) -> Interval:
    """A figure without an interval (bounds NaN, ``method="none"``): nothing could be resampled.

    Examples
    --------
    >>> no_interval(0.4, 3, 0.95).method, no_interval(0.4, 3, 0.95).low
    ('none', nan)
    """
    nan = float("nan")
    return Interval(float(value), nan, nan, units=units, level=level, method="none", dropped=dropped)


def _one_hot(cells: npt.NDArray[np.intp], width: int) -> npt.NDArray[np.float64]:
    """Rows with a 1 in column ``cells[i]`` (all zeros where it is -1)."""
    matrix = np.zeros((len(cells), width))
    kept = np.flatnonzero(cells >= 0)
    matrix[kept, cells[kept]] = 1.0
    return matrix


def _fleiss_table(counts: npt.ArrayLike | CategoryCounts) -> np.ndarray:
    table = _agreement._count_table(counts)
    if table.shape[0]:
        raters = table.sum(axis=1)
        if np.any(raters != raters[0]):
            raise ValueError("counts must have the same number of raters (row sum) for every item")
    return table


def _safe_mean(unit_counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    totals = unit_counts.sum(axis=1)
    return np.divide(unit_counts @ values, totals, out=np.zeros_like(totals), where=totals > 0)


def _spread(totals: np.ndarray, position: np.ndarray) -> np.ndarray:
    """sum_ck n_c n_k (f_c - f_k)^2 = 2 n sum_c n_c (f_c - mean f)^2, over the last axis."""
    n = totals.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.sum(totals * position, axis=-1) / n
    centred = position - mean[..., np.newaxis]
    return 2 * n * np.sum(totals * np.square(centred), axis=-1)


def _alpha(totals: np.ndarray, observed: np.ndarray, expected: np.ndarray) -> np.ndarray:
    n = totals.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1 - (n - 1) * observed / expected
    return np.where((np.count_nonzero(totals, axis=-1) >= 2) & (expected != 0), alpha, np.nan)
