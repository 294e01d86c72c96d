r"""Gwet's AC1 and AC2: agreement coefficients robust to the prevalence paradox.

Kappa-type coefficients take chance agreement from the product of the
category shares, so when nearly every rating falls in one category chance
agreement is near 1 and kappa collapses, however often the raters agree (the
"prevalence paradox": Feinstein & Cicchetti 1990). Gwet's AC1 (nominal) and
AC2 (weighted) take chance agreement as the probability of agreeing on a
hard-to-rate item by guessing, which stays small when raters agree (Gwet 2008,
"Computing inter-rater reliability and its variance in the presence of high
agreement", Br. J. Math. Stat. Psychol. 61:29-48; Gwet 2014, "Handbook of
Inter-Rater Reliability", 4th ed., Advanced Analytics, chapters 2-5).

With ``n`` items (those with at least one rating), ``q`` categories,
agreement weights ``w_kl`` (1 on the diagonal; the identity for AC1),
``r_ik`` raters putting item ``i`` in category ``k``,
``r_i = sum_k r_ik`` and ``r*_ik = sum_l w_kl r_il``:

.. math::
    p_a = \frac{1}{n_2}\sum_{i: r_i \ge 2}\sum_k \frac{r_{ik}(r^*_{ik} - 1)}{r_i(r_i - 1)},\quad
    \pi_k = \frac1n \sum_i \frac{r_{ik}}{r_i},\quad
    p_e = \frac{T_w}{q(q-1)} \sum_k \pi_k (1 - \pi_k),\quad
    AC = \frac{p_a - p_e}{1 - p_e}

where ``n_2`` counts the items with two ratings or more and ``T_w`` is the sum
of the weights. Two raters are the case ``r_i <= 2``; :func:`gwet_table` takes
their contingency table instead. The standard errors are Gwet's linearised
variances (Gwet 2008, eq. 10 and 24; Handbook ch. 5), without the
finite-population correction (the items are a sample of an infinite
population), as the irrCAC package computes them; intervals use Student's t
with ``n - 1`` degrees of freedom and cap the upper bound at 1, as Gwet's
software does. Tests check every figure against irrCAC 0.4.4 and the
handbook's examples it ships.

``q`` is the number of categories in ``categories`` (default: those used):
a category listed but never used still lowers chance agreement, as in Gwet's
definition.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from stats import agreement as _agreement
from stats.uncertainty import Interval, UnitStatistics

__all__ = [
    "GwetAC",
    "agreement_weights",
    "gwet",
    "gwet_ac1",
    "gwet_ac2",
    "gwet_counts",
    "gwet_table",
    "gwet_units",
]

WeightName = Literal["identity", "linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar"]
_WEIGHT_NAMES = ("identity", "linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar")


@dataclass(frozen=True)
class GwetAC:
    """Gwet's AC1 or AC2 with its parts and standard error.

    Attributes
    ----------
    value : float
        The coefficient (NaN when undefined).
    pa, pe : float
        Observed and chance agreement.
    se : float
        Gwet's linearised standard error (NaN with fewer than two items).
    items : int
        Items behind it (rated at least once).
    weights : str
        ``"identity"`` (AC1), a weight name, or ``"custom"``.
    """

    value: float
    pa: float
    pe: float
    se: float
    items: int
    weights: str

    def interval(self, level: float = 0.95) -> Interval:
        """``value +- t(n-1) * se``, upper bound capped at 1 (``method="analytic"``).

        Examples
        --------
        >>> result = gwet_table([[13, 0, 0], [0, 20, 7], [0, 4, 56]])
        >>> interval = result.interval()
        >>> round(interval.low, 4), round(interval.high, 4), interval.units
        (0.7636, 0.9351, 100)
        """
        if not 0 < level < 1:
            raise ValueError(f"level must be strictly between 0 and 1, got {level!r}")
        nan = float("nan")
        if not (np.isfinite(self.value) and np.isfinite(self.se)):
            return Interval(self.value, nan, nan, units=self.items, level=level, method="none")
        from scipy import (
            stats,
        )  # scipy.stats takes 1.7 s to import: loaded where used, not by every process that starts

        half = float(stats.t.ppf((1 + level) / 2, self.items - 1)) * self.se
        return Interval(
            self.value, self.value - half, min(1.0, self.value + half), units=self.items, level=level, method="analytic"
        )


def agreement_weights(categories: npt.ArrayLike, kind: WeightName = "identity") -> npt.NDArray[np.float64]:
    """Gwet's agreement weights (1 on the diagonal) for ordered categories.

    Numeric categories use their values, other categories their positions
    1..q (Gwet 2014, ch. 3; the same matrices as irrCAC's ``Weights``).
    With ``c_k`` the values and ``R = max c - min c``: linear
    ``1 - |c_k - c_l| / R``; quadratic ``1 - (c_k - c_l)^2 / R^2``; radical
    ``1 - sqrt(|c_k - c_l|) / sqrt(R)``; ordinal ``1 - M_kl / max M`` with
    ``M_kl = m(m-1)/2``, ``m = |k - l| + 1`` over positions; ratio
    ``1 - ((c_k - c_l)/(c_k + c_l))^2 / (R/(max c + min c))^2``; circular
    ``1 - s_kl / max s``, ``s_kl = sin^2(pi (c_k - c_l) / (R + 1))``;
    bipolar ``1 - b_kl / max b``,
    ``b_kl = (c_k - c_l)^2 / ((c_k + c_l - 2 min c)(2 max c - c_k - c_l))``.

    Examples
    --------
    >>> agreement_weights([1, 2, 3], "quadratic").tolist()
    [[1.0, 0.75, 0.0], [0.75, 1.0, 0.75], [0.0, 0.75, 1.0]]
    >>> agreement_weights(["low", "mid", "high"], "linear").tolist()
    [[1.0, 0.5, 0.0], [0.5, 1.0, 0.5], [0.0, 0.5, 1.0]]
    """
    if kind not in _WEIGHT_NAMES:
        raise ValueError(f"weights must be one of {', '.join(_WEIGHT_NAMES)} or a q x q matrix, got {kind!r}")
    labels = np.asarray(categories)
    q = labels.size
    values = labels.astype(np.float64) if labels.dtype.kind in "biuf" else np.arange(1.0, q + 1)
    if kind == "identity" or q < 2:
        return np.eye(q)
    if kind == "ratio" and np.any(values == 0):
        raise ValueError("ratio weights need categories other than 0")
    low, high = values.min(), values.max()
    span = high - low
    first, second = values[:, np.newaxis], values[np.newaxis, :]
    gap = first - second
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "linear":
            return 1 - np.abs(gap) / span
        if kind == "quadratic":
            return 1 - np.square(gap / span)
        if kind == "radical":
            return 1 - np.sqrt(np.abs(gap)) / np.sqrt(span)
        if kind == "ratio":
            return 1 - np.square(gap / (first + second)) / np.square(span / (high + low))
        if kind == "ordinal":
            positions = np.arange(q)
            m = np.abs(positions[:, np.newaxis] - positions[np.newaxis, :]) + 1.0
            disagreement = m * (m - 1) / 2
        elif kind == "circular":
            disagreement = np.square(np.sin(np.pi * gap / (span + 1)))
        else:  # bipolar
            disagreement = np.square(gap) / ((first + second - 2 * low) * (2 * high - first - second))
            np.fill_diagonal(disagreement, 0.0)
    return 1 - disagreement / disagreement.max()


def gwet(
    ratings: npt.ArrayLike,
    *,
    weights: WeightName | npt.ArrayLike = "identity",
    categories: npt.ArrayLike | None = None,
) -> GwetAC:
    """Gwet's AC1 (identity weights) or AC2 of raw ratings, with its standard error.

    Parameters
    ----------
    ratings : array_like of shape (n_items, n_raters)
        One row per item, one column per rater (two columns: two raters);
        ``NaN`` or ``None`` where a rater gave none. Items nobody rated are
        left out.
    weights : str or array_like of shape (q, q), default "identity"
        A name of :func:`agreement_weights`, or agreement weights in the order
        of ``categories``.
    categories : array_like, optional
        The categories in order (default: the sorted values used).

    Returns
    -------
    GwetAC

    Raises
    ------
    ValueError
        As :func:`stats.agreement.category_counts`, or on unknown or
        mis-shaped weights.

    Examples
    --------
    Gwet (2014), the 4 raters x 12 units of Krippendorff (2011):

    >>> nan = float("nan")
    >>> data = [[1, 1, nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2],
    ...         [1, 2, 3, 4], [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [nan, 5, 5, 5],
    ...         [nan, nan, 1, 1], [nan, nan, 3, nan]]
    >>> result = gwet(data)
    >>> round(result.value, 5), round(result.pa, 5), round(result.pe, 5), round(result.se, 5)
    (0.77544, 0.81818, 0.19032, 0.14295)
    """
    counts, labels = _agreement.category_counts(ratings, categories=categories)
    return gwet_counts(counts, weights=weights, categories=labels)


def gwet_ac1(ratings: npt.ArrayLike, *, categories: npt.ArrayLike | None = None) -> float:
    """Gwet's AC1 (nominal categories) of items x raters ratings; see :func:`gwet`.

    Examples
    --------
    >>> round(gwet_ac1([["a", "a"], ["a", "a"], ["a", "a"], ["a", "b"]]), 4)
    0.68
    """
    return gwet(ratings, categories=categories).value


def gwet_ac2(
    ratings: npt.ArrayLike,
    *,
    weights: WeightName | npt.ArrayLike = "quadratic",
    categories: npt.ArrayLike | None = None,
) -> float:
    """Gwet's AC2 (weighted; quadratic by default) of items x raters ratings; see :func:`gwet`.

    Examples
    --------
    >>> round(gwet_ac2([[1, 1], [2, 3], [3, 3], [1, 2]]), 4)
    0.6364
    """
    return gwet(ratings, weights=weights, categories=categories).value


def gwet_counts(
    counts: npt.ArrayLike | _agreement.CategoryCounts,
    *,
    weights: WeightName | npt.ArrayLike = "identity",
    categories: npt.ArrayLike | None = None,
) -> GwetAC:
    """:func:`gwet` from an items x categories table (raters per item and category).

    ``categories`` gives the column values for named weights (default: the
    table's own, for a CategoryCounts, else positions 1..q). Rows may sum to
    different numbers of raters; rows summing to 0 are left out.

    Examples
    --------
    Fleiss (1971): 6 psychiatrists, 15 patients, 5 diagnoses.

    >>> table = [[0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0],
    ...          [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6],
    ...          [1, 0, 0, 5, 0], [1, 1, 0, 4, 0], [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1]]
    >>> round(gwet_counts(table).value, 5)
    0.4448
    """
    if isinstance(counts, _agreement.CategoryCounts) and categories is None:
        categories = counts.categories
    table = _agreement._count_table(counts).astype(np.float64)
    q = table.shape[1]
    labels = np.arange(1, q + 1) if categories is None else np.asarray(categories)
    if labels.ndim != 1 or labels.size != q:
        raise ValueError(f"categories must list the {q} columns of counts, got shape {labels.shape}")
    weight_matrix, name = _weights(weights, labels)
    table = table[table.sum(axis=1) > 0]
    n = table.shape[0]
    nan = float("nan")
    raters = table.sum(axis=1)
    several = raters >= 2
    n_several = int(np.count_nonzero(several))
    if n == 0 or n_several == 0 or q < 2:
        return GwetAC(nan, nan, nan, nan, n, name)
    weighted = table @ weight_matrix.T
    pair_agreement = np.einsum("ik,ik->i", table, weighted - 1)
    item_agreement = np.divide(pair_agreement, raters * (raters - 1), out=np.zeros(n), where=several)
    pa = float(item_agreement[several].sum() / n_several)
    shares = (table / raters[:, np.newaxis]).sum(axis=0) / n
    chance_factor = weight_matrix.sum() / (q * (q - 1))
    pe = float(chance_factor * np.sum(shares * (1 - shares)))
    if pe == 1:
        return GwetAC(nan, pa, pe, nan, n, name)
    value = (pa - pe) / (1 - pe)
    se = nan
    if n >= 2:
        item_value = (n / n_several) * (item_agreement - pe * several) / (1 - pe)
        item_chance = chance_factor * (table @ (1 - shares)) / raters
        linearised = item_value - 2 * (1 - value) * (item_chance - pe) / (1 - pe)
        se = math.sqrt(float(np.sum(np.square(linearised - value))) / (n * (n - 1)))
    return GwetAC(float(value), pa, pe, se, n, name)


def gwet_table(
    table: npt.ArrayLike,
    *,
    weights: WeightName | npt.ArrayLike = "identity",
    categories: npt.ArrayLike | None = None,
) -> GwetAC:
    r"""AC1/AC2 of two raters from their q x q contingency table.

    ``table[k, l]``: items the first rater put in category ``k`` and the
    second in ``l``. With ``p_kl`` its shares, ``p_a = sum w_kl p_kl``,
    ``pi_k = (p_k. + p_.k) / 2``, the same ``p_e`` as :func:`gwet`, and the
    variance of Gwet (2008, eq. 10; Handbook ch. 5)

    .. math::
        v = \frac{1}{n (1 - p_e)^2}\Big(\sum_{kl} p_{kl}\big[w_{kl}
            - 2(1 - AC)\tfrac{T_w}{q(q-1)}(1 - \tfrac{\pi_k + \pi_l}{2})\big]^2
            - (p_a - 2(1 - AC) p_e)^2\Big)

    Examples
    --------
    Gwet (2014): 100 pregnant women by two abstractors' type of ectopic pregnancy.

    >>> result = gwet_table([[13, 0, 0], [0, 20, 7], [0, 4, 56]])
    >>> round(result.value, 5), round(result.pe, 5), round(result.se, 5)
    (0.84933, 0.26992, 0.04322)
    >>> round(gwet_table([[13, 0, 0], [0, 20, 7], [0, 4, 56]], weights="quadratic").value, 5)
    0.94024
    """
    counts = _agreement._as_array(table, "table").astype(np.float64)
    if counts.ndim != 2 or counts.shape[0] != counts.shape[1]:
        raise ValueError(f"table must be square (q x q), got shape {counts.shape}")
    if not np.all(np.isfinite(counts)) or np.any(counts < 0):
        raise ValueError("table must hold non-negative counts")
    q = counts.shape[0]
    labels = np.arange(1, q + 1) if categories is None else np.asarray(categories)
    if labels.size != q:
        raise ValueError(f"categories must list the {q} rows of table")
    weight_matrix, name = _weights(weights, labels)
    n = float(counts.sum())
    nan = float("nan")
    if n == 0 or q < 2:
        return GwetAC(nan, nan, nan, nan, int(n), name)
    shares = counts / n
    pa = float(np.sum(weight_matrix * shares))
    pi = (shares.sum(axis=1) + shares.sum(axis=0)) / 2
    chance_factor = weight_matrix.sum() / (q * (q - 1))
    pe = float(chance_factor * np.sum(pi * (1 - pi)))
    if pe == 1:
        return GwetAC(nan, pa, pe, nan, int(n), name)
    value = (pa - pe) / (1 - pe)
    term = weight_matrix - 2 * (1 - value) * chance_factor * (1 - (pi[:, np.newaxis] + pi[np.newaxis, :]) / 2)
    variance = (np.sum(shares * np.square(term)) - (pa - 2 * (1 - value) * pe) ** 2) / (n * (1 - pe) ** 2)
    return GwetAC(float(value), pa, pe, math.sqrt(max(float(variance), 0.0)), int(n), name)


def gwet_units(
    ratings: npt.ArrayLike,
    *,
    weights: WeightName | npt.ArrayLike = "identity",
    categories: npt.ArrayLike | None = None,
) -> UnitStatistics:
    """AC1/AC2 as a function of per-item statistics, for the shared bootstrap.

    Per item: its agreement ``p_a|i`` if rated twice or more (else 0), 1 if so,
    its category shares ``r_ik / r_i`` and 1 if rated at all; the statistic
    of the sums is :func:`gwet`'s value. Feed it to
    :func:`stats.uncertainty.bootstrap` (``.interval()``).

    Examples
    --------
    >>> stats = gwet_units([["a", "a"], ["a", "a"], ["a", "a"], ["a", "b"]])
    >>> round(stats.value, 4), stats.units
    (0.68, 4)
    """
    counts, labels = _agreement.category_counts(ratings, categories=categories)
    table = counts.astype(np.float64)
    q = table.shape[1]
    weight_matrix, _ = _weights(weights, labels)
    raters = table.sum(axis=1)
    rated, several = raters >= 1, raters >= 2
    pair_agreement = np.einsum("ik,ik->i", table, table @ weight_matrix.T - 1)
    item_agreement = np.divide(pair_agreement, raters * (raters - 1), out=np.zeros(len(table)), where=several)
    shares = np.divide(table, raters[:, np.newaxis], out=np.zeros_like(table), where=rated[:, np.newaxis])
    per_unit = np.column_stack([item_agreement, several, shares, rated]).astype(np.float64)
    chance_factor = weight_matrix.sum() / (q * (q - 1)) if q >= 2 else float("nan")

    def statistic(sums: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        with np.errstate(divide="ignore", invalid="ignore"):
            pa = sums[..., 0] / sums[..., 1]
            pi = sums[..., 2 : 2 + q] / sums[..., 2 + q, np.newaxis]
            pe = chance_factor * np.sum(pi * (1 - pi), axis=-1)
            value = (pa - pe) / (1 - pe)
        return np.where((sums[..., 1] > 0) & (pe != 1), value, np.nan)

    return UnitStatistics(per_unit, statistic, int(np.count_nonzero(rated)))


def _weights(weights: WeightName | npt.ArrayLike, categories: np.ndarray) -> tuple[npt.NDArray[np.float64], str]:
    q = categories.size
    if isinstance(weights, str):
        return agreement_weights(categories, weights), weights  # type: ignore[arg-type]
    matrix = np.asarray(weights, dtype=np.float64)
    if matrix.shape != (q, q):
        raise ValueError(f"weights must be a name or a {q} x {q} matrix, got shape {matrix.shape}")
    return matrix, "custom"
