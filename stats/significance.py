"""Significance of differences between systems, and how evaluation statements change between truth sets.

Arehart, Wolf & Miller, "Adjudicator Agreement and System Rankings for Person
Name Search" (referred to below as AWM), section 2.4: systems are scored by
F1 over the adjudication pool; F1 is neither a proportion nor a mean, so
differences are tested by bootstrap resampling with the "shift" procedure of
Noreen (1989) and Riezler & Maxwell (2005) at alpha = 0.05. Every pair of
systems then gives one evaluation statement, A > B, B > A or A = B, and the
statements of a truth set are compared with those of the Consensus truth set
by sensitivity, disagreement and reversal (section 2.4, Table 2, section 3.2.1).

Resampling works on per-unit sufficient statistics (a unit is a query by
default, or an item): for F1 the (tp, fp, fn) counts of each unit, so every
resample recomputes pooled F1 from resampled count totals rather than
averaging per-query F1. A resample is a row of unit weights (how many times
each unit was drawn), so the totals of all resamples of all systems are one
matrix product, and the differences of all system pairs one fancy index.

Conventions, all two-sided:

* bootstrap (shift method): the null distribution is the bootstrap
  distribution of the difference shifted by the observed difference;
  ``p = (1 + #{b : |d*_b - d| >= |d|}) / (B + 1)``.
* approximate randomisation: each unit's statistics are swapped between the
  two systems with probability 1/2; ``p = (1 + #{r : |d*_r| >= |d|}) / (R + 1)``.
* exact randomisation: all 2**n swap patterns, the identity included, so no
  +1 correction: ``p = #{patterns : |d*| >= |d|} / 2**n``.
* ``>=`` counts ties against the null hypothesis (conservative); two values
  within ``TIE_TOLERANCE`` (absolute, or relative to ``|d|`` when larger) are
  ties, so equal differences reached through different rounding still tie.
* a difference is significant when ``p <= alpha``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from stats.systems import query_counts, scores_from_counts

__all__ = [
    "TIE_TOLERANCE",
    "BaselineSummary",
    "PairedTestResult",
    "StatementComparison",
    "SystemComparison",
    "approximate_randomization",
    "bootstrap_f1",
    "bootstrap_weights",
    "compare_statements",
    "compare_systems",
    "evaluation_statements",
    "exact_randomization",
    "paired_bootstrap",
    "sensitivity",
    "statement_text",
    "summarize_against_baseline",
    "system_pairs",
]

TIE_TOLERANCE = 1e-12

FloatArray = NDArray[np.float64]
SeedLike = int | np.random.SeedSequence | np.random.Generator | None
Statistic = Literal["mean", "f1"] | Callable[[FloatArray], FloatArray]

_ONE_PAIR = np.array([[0, 1]])
_EXACT_CHUNK = 1 << 15


@dataclass(frozen=True)
class PairedTestResult:
    """Outcome of a paired significance test of system A against system B.

    Attributes
    ----------
    statistic_a, statistic_b : float
        The statistic (mean score, pooled F1, ...) of each system on all units.
    difference : float
        ``statistic_a - statistic_b``.
    p_value : float
        Two-sided p-value (see the module docstring for each method's formula).
    significant : bool
        ``p_value <= alpha``.
    n_resamples : int
        B, R, or 2**n for the exact test.
    method : str
        "bootstrap-shift", "approximate-randomization" or "exact-randomization".
    """

    statistic_a: float
    statistic_b: float
    difference: float
    p_value: float
    significant: bool
    n_resamples: int
    method: str


@dataclass(frozen=True, eq=False)
class SystemComparison:
    """Scores of every system and significance of every pair, under one truth set.

    Attributes
    ----------
    precision, recall, f1 : ndarray of shape (n_systems,)
        Pooled scores (AWM section 2.4).
    pairs : ndarray of shape (n_pairs, 2)
        ``pairs[k] = (a, b)`` with ``a < b``, as :func:`system_pairs`.
    differences : ndarray of shape (n_pairs,)
        ``f1[a] - f1[b]``.
    p_values : ndarray of shape (n_pairs,)
    statements : ndarray of int8, shape (n_pairs,)
        +1 (a > b), -1 (b > a) or 0 (a = b).
    n_units : int
        Queries (or items) resampled: those with at least one known item.
    n_resamples : int
    method : str
    """

    precision: FloatArray
    recall: FloatArray
    f1: FloatArray
    pairs: NDArray[np.intp]
    differences: FloatArray
    p_values: FloatArray
    statements: NDArray[np.int8]
    n_units: int
    n_resamples: int
    method: str


@dataclass(frozen=True)
class StatementComparison:
    """Table 2 of AWM: a truth set's statements against the baseline's.

    Attributes
    ----------
    sensitivity : float or ndarray
        Share of pairs with a significant difference.
    disagreement : float or ndarray
        Share of pairs whose statement differs from the baseline's.
    reversal : float or ndarray
        Share of pairs where one says a > b and the other b > a.
    """

    sensitivity: float | FloatArray
    disagreement: float | FloatArray
    reversal: float | FloatArray


@dataclass(frozen=True)
class BaselineSummary:
    """Section 3.2.1 of AWM: many (random) truth sets against the baseline.

    Attributes
    ----------
    n_sets : int
    mean_sensitivity, mean_disagreement : float
        Means over the truth sets.
    sensitivity_ci, disagreement_ci : tuple of float
        Student-t confidence intervals of those means.
    n_reversals : int
        Reversed statements summed over all truth sets.
    n_sets_with_reversal : int
        Truth sets with at least one reversed statement.
    confidence : float
    """

    n_sets: int
    mean_sensitivity: float
    sensitivity_ci: tuple[float, float]
    mean_disagreement: float
    disagreement_ci: tuple[float, float]
    n_reversals: int
    n_sets_with_reversal: int
    confidence: float


# --------------------------------------------------------------------------- resampling


def bootstrap_weights(n_units: int, *, n_resamples: int = 1000, seed: SeedLike = None) -> NDArray[np.int64]:
    """How many times each unit is drawn in each bootstrap resample.

    Resample ``b`` draws ``n_units`` units with replacement,
    ``rng.integers(0, n_units, size=n_units)``; the draws of all resamples
    come from one ``numpy.random.default_rng(seed)`` stream, in order, so a
    loop drawing one resample at a time from the same generator gets the same
    units.

    Parameters
    ----------
    n_units : int
        Number of units (queries or items), at least 1.
    n_resamples : int, keyword-only
        Number of resamples B.
    seed : int, SeedSequence, Generator or None, keyword-only
        Passed to ``numpy.random.default_rng`` (a Generator is advanced).

    Returns
    -------
    ndarray of int64, shape (n_resamples, n_units)
        Every row sums to ``n_units``.

    Examples
    --------
    >>> weights = bootstrap_weights(4, n_resamples=3, seed=1)
    >>> weights.shape, weights.sum(axis=1).tolist()
    ((3, 4), [4, 4, 4])
    """
    n_units = _check_positive_int(n_units, "n_units")
    n_resamples = _check_positive_int(n_resamples, "n_resamples")
    draws = _generator(seed).integers(0, n_units, size=(n_resamples, n_units))
    flat = (draws + n_units * np.arange(n_resamples)[:, None]).ravel()
    return np.bincount(flat, minlength=n_resamples * n_units).reshape(n_resamples, n_units)


def paired_bootstrap(
    stats_a: ArrayLike,
    stats_b: ArrayLike,
    *,
    statistic: Statistic = "mean",
    n_resamples: int = 1000,
    seed: SeedLike = None,
    alpha: float = 0.05,
) -> PairedTestResult:
    """Paired bootstrap test, shift method (Noreen 1989; Riezler & Maxwell 2005; AWM section 2.4).

    Units (queries or items) are resampled with replacement, the same units
    for both systems. With d the observed difference ``stat(A) - stat(B)``
    and d*_b the difference on resample b, the bootstrap distribution
    shifted by d estimates the null distribution, and the two-sided
    ``p = (1 + #{b : |d*_b - d| >= |d|}) / (B + 1)``.

    Some descriptions shift by the mean of the d*_b instead of by d; the two
    agree in expectation. Ties within ``TIE_TOLERANCE`` count as ``>=``.

    Parameters
    ----------
    stats_a, stats_b : array-like of shape (n_units,) or (n_units, k)
        Per-unit sufficient statistics of the two systems, paired by row.
    statistic : "mean", "f1" or callable, keyword-only
        ``"mean"``: the mean of one score per unit (k = 1). ``"f1"``: pooled
        F1 from per-unit (tp, fp, fn) counts (k = 3). A callable receives the
        column totals over a resample's units, shape (..., k), and returns
        the statistic, shape (...).
    n_resamples : int, keyword-only
        Number of bootstrap resamples B.
    seed : int, SeedSequence, Generator or None, keyword-only
        Drives :func:`bootstrap_weights`.
    alpha : float, keyword-only
        Significance level; significant when ``p <= alpha``.

    Returns
    -------
    PairedTestResult

    Examples
    --------
    >>> a = [0.90, 0.80, 0.85, 0.95, 0.90, 0.88]
    >>> b = [0.50, 0.45, 0.60, 0.55, 0.50, 0.52]
    >>> result = paired_bootstrap(a, b, n_resamples=999, seed=0)
    >>> round(result.difference, 4), result.p_value, result.significant
    (0.36, 0.001, True)
    >>> paired_bootstrap(a, a, n_resamples=999, seed=0).p_value
    1.0
    """
    stats, statistic_fn = _paired_stats(stats_a, stats_b, statistic)
    _check_alpha(alpha)
    weights = bootstrap_weights(stats.shape[0], n_resamples=n_resamples, seed=seed)
    values = statistic_fn(stats.sum(axis=0))
    observed = np.array([values[0] - values[1]])
    null = _bootstrap_differences(stats, _ONE_PAIR, statistic_fn, weights)
    p_value = float(_shift_p_values(null, observed)[0])
    return _result(values, p_value, alpha, n_resamples, "bootstrap-shift")


def bootstrap_f1(
    counts_a: ArrayLike,
    counts_b: ArrayLike,
    *,
    n_resamples: int = 1000,
    seed: SeedLike = None,
    alpha: float = 0.05,
) -> PairedTestResult:
    """Paired bootstrap (shift method) of the difference in pooled F1 (AWM section 2.4).

    Queries are resampled and F1 = 2 tp / (2 tp + fp + fn) is recomputed from
    the resampled count totals; see :func:`paired_bootstrap`.

    Parameters
    ----------
    counts_a, counts_b : array-like of shape (n_queries, 3)
        Per-query (tp, fp, fn) of the two systems (see
        :func:`stats.systems.query_counts`).
    n_resamples, seed, alpha
        As in :func:`paired_bootstrap`.

    Returns
    -------
    PairedTestResult

    Examples
    --------
    >>> better = [[9, 1, 1]] * 20
    >>> worse = [[5, 5, 5]] * 20
    >>> result = bootstrap_f1(better, worse, n_resamples=999, seed=3)
    >>> result.statistic_a, result.statistic_b, result.p_value
    (0.9, 0.5, 0.001)
    """
    return paired_bootstrap(counts_a, counts_b, statistic="f1", n_resamples=n_resamples, seed=seed, alpha=alpha)


def approximate_randomization(
    stats_a: ArrayLike,
    stats_b: ArrayLike,
    *,
    statistic: Statistic = "mean",
    n_resamples: int = 1000,
    seed: SeedLike = None,
    alpha: float = 0.05,
) -> PairedTestResult:
    """Approximate randomisation test: random swaps of the two systems' per-unit statistics (Noreen 1989).

    In each of R rounds every unit's statistics are swapped between A and B
    with probability 1/2 and the statistic recomputed;
    ``p = (1 + #{r : |d*_r| >= |d|}) / (R + 1)``, two-sided.

    Parameters
    ----------
    stats_a, stats_b, statistic, alpha
        As in :func:`paired_bootstrap`.
    n_resamples : int, keyword-only
        Number of random swap patterns R.
    seed : int, SeedSequence, Generator or None, keyword-only
        Swap patterns are ``default_rng(seed).integers(0, 2, size=(R, n_units))``.

    Returns
    -------
    PairedTestResult

    Examples
    --------
    >>> a = [0.60, 0.50, 0.80, 0.70, 0.90, 0.40, 0.65, 0.55, 0.30, 0.75]
    >>> b = [0.50, 0.45, 0.70, 0.72, 0.80, 0.35, 0.60, 0.50, 0.32, 0.60]
    >>> approximate_randomization(a, b, n_resamples=9999, seed=0).significant
    True
    """
    stats, statistic_fn = _paired_stats(stats_a, stats_b, statistic)
    _check_alpha(alpha)
    n_resamples = _check_positive_int(n_resamples, "n_resamples")
    swaps = _generator(seed).integers(0, 2, size=(n_resamples, stats.shape[0])).astype(np.float64)
    values = statistic_fn(stats.sum(axis=0))
    observed = np.array([values[0] - values[1]])
    null = _swap_differences(stats, _ONE_PAIR, statistic_fn, swaps)
    count = _count_at_least(np.abs(null), np.abs(observed))[0]
    return _result(values, float((count + 1) / (n_resamples + 1)), alpha, n_resamples, "approximate-randomization")


def exact_randomization(
    stats_a: ArrayLike,
    stats_b: ArrayLike,
    *,
    statistic: Statistic = "mean",
    alpha: float = 0.05,
    max_units: int = 20,
) -> PairedTestResult:
    """Exact randomisation (sign-flip) test over all 2**n swaps of the paired units (Noreen 1989).

    ``p = #{patterns : |d*| >= |d|} / 2**n``, two-sided; the identity
    pattern is among the 2**n, so there is no +1 correction. With
    ``statistic="mean"`` a swap flips the sign of the unit's score difference.

    Parameters
    ----------
    stats_a, stats_b, statistic, alpha
        As in :func:`paired_bootstrap`.
    max_units : int, keyword-only
        Refuse more units than this (2**n patterns); use
        :func:`approximate_randomization` instead.

    Returns
    -------
    PairedTestResult
        ``n_resamples`` is 2**n.

    Examples
    --------
    >>> a = [0.60, 0.50, 0.80, 0.70, 0.90, 0.40, 0.65, 0.55, 0.30, 0.75]
    >>> b = [0.50, 0.45, 0.70, 0.72, 0.80, 0.35, 0.60, 0.50, 0.32, 0.60]
    >>> exact_randomization(a, b).p_value  # 8 / 1024
    0.0078125
    """
    stats, statistic_fn = _paired_stats(stats_a, stats_b, statistic)
    _check_alpha(alpha)
    max_units = _check_positive_int(max_units, "max_units")
    n_units = stats.shape[0]
    if n_units > max_units:
        raise ValueError(
            f"stats_a has {n_units} units: 2**{n_units} swap patterns exceed max_units={max_units}; "
            "use approximate_randomization"
        )
    values = statistic_fn(stats.sum(axis=0))
    threshold = np.abs(np.array([values[0] - values[1]]))
    n_patterns = 1 << n_units
    bits = np.arange(n_units)
    count = 0
    # Chunks bound the memory of the 2**n x n pattern matrix.
    for low in range(0, n_patterns, _EXACT_CHUNK):
        codes = np.arange(low, min(low + _EXACT_CHUNK, n_patterns))
        swaps = ((codes[:, None] >> bits) & 1).astype(np.float64)
        null = _swap_differences(stats, _ONE_PAIR, statistic_fn, swaps)
        count += int(_count_at_least(np.abs(null), threshold)[0])
    return _result(values, count / n_patterns, alpha, n_patterns, "exact-randomization")


# --------------------------------------------------------------------------- many systems


def system_pairs(n_systems: int) -> NDArray[np.intp]:
    """The n(n-1)/2 pairs (a, b), a < b, in ``itertools.combinations`` order (AWM section 2.4, Figure 2).

    Examples
    --------
    >>> system_pairs(3).tolist()
    [[0, 1], [0, 2], [1, 2]]
    """
    n_systems = _check_positive_int(n_systems, "n_systems")
    first, second = np.triu_indices(n_systems, k=1)
    return np.column_stack([first, second]).astype(np.intp)


def compare_systems(
    returned: ArrayLike,
    truth: ArrayLike,
    queries: ArrayLike,
    *,
    n_resamples: int = 1000,
    seed: SeedLike = None,
    alpha: float = 0.05,
    method: Literal["bootstrap", "randomization"] = "bootstrap",
    resample: Literal["queries", "items"] = "queries",
) -> SystemComparison:
    """F1 of every system and the significance of every pairwise difference, under one truth set.

    The whole of AWM section 2.4 for one truth set: pooled precision, recall
    and F1; for each of the n(n-1)/2 pairs a paired test of the F1
    difference (bootstrap with the shift method, or approximate
    randomisation); and the evaluation statements. All pairs share the same
    resamples, as a per-pair loop with the same seed would draw them.

    Units whose items are all unknown (NaN) take no part in the resampling.
    Calling this once per truth set with the same ``seed`` gives every truth
    set the same resamples (common random numbers), so a set's result does
    not depend on how the sets were split into chunks.

    Parameters
    ----------
    returned : array-like of bool, shape (n_systems, n_items)
        Whether each system returned each pooled item; at least 2 systems.
    truth : array-like of shape (n_items,)
        1 match, 0 no match, NaN unknown.
    queries : array-like of shape (n_items,)
        The query of each item.
    n_resamples : int, keyword-only
        B (bootstrap) or R (randomisation).
    seed : int, SeedSequence, Generator or None, keyword-only
        Drives the resamples.
    alpha : float, keyword-only
        Significance level (AWM: 0.05); significant when ``p <= alpha``.
    method : {"bootstrap", "randomization"}, keyword-only
    resample : {"queries", "items"}, keyword-only
        The resampling unit (AWM pool F1: queries by default).

    Returns
    -------
    SystemComparison

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> truth = (rng.random(400) < 0.3).astype(float)
    >>> queries = np.repeat(np.arange(40), 10)
    >>> good = np.where(rng.random(400) < 0.9, truth, 1 - truth)
    >>> bad = np.where(rng.random(400) < 0.6, truth, 1 - truth)
    >>> result = compare_systems([good, good, bad], truth, queries, seed=1)
    >>> result.f1.round(3).tolist(), result.statements.tolist()
    ([0.847, 0.847, 0.434], [0, 1, 1])
    """
    _check_alpha(alpha)
    if method not in ("bootstrap", "randomization"):
        raise ValueError(f"method must be 'bootstrap' or 'randomization'; got {method!r}")
    if resample not in ("queries", "items"):
        raise ValueError(f"resample must be 'queries' or 'items'; got {resample!r}")
    n_resamples = _check_positive_int(n_resamples, "n_resamples")
    returned_shape = np.shape(returned)
    if len(returned_shape) != 2 or returned_shape[0] < 2:
        raise ValueError(f"returned must be 2-D (systems x items) with at least 2 systems; got shape {returned_shape}")
    if np.ndim(truth) != 1:
        raise ValueError(f"truth must be one truth set, 1-D over items; got {np.ndim(truth)} dimension(s)")

    stats = _unit_counts(returned, truth, queries, resample)
    if stats.shape[0] < 2:
        raise ValueError(f"at least 2 {resample} with known truth are needed to resample; got {stats.shape[0]}")
    pairs = system_pairs(stats.shape[1])
    scores = scores_from_counts(stats.sum(axis=0))
    f1 = np.asarray(scores.f1)
    observed = f1[pairs[:, 0]] - f1[pairs[:, 1]]
    if method == "bootstrap":
        weights = bootstrap_weights(stats.shape[0], n_resamples=n_resamples, seed=seed)
        null = _bootstrap_differences(stats, pairs, _f1_from_totals, weights)
        p_values = _shift_p_values(null, observed)
    else:
        swaps = _generator(seed).integers(0, 2, size=(n_resamples, stats.shape[0])).astype(np.float64)
        null = _swap_differences(stats, pairs, _f1_from_totals, swaps)
        p_values = (_count_at_least(np.abs(null), np.abs(observed)) + 1) / (n_resamples + 1)
    return SystemComparison(
        precision=np.asarray(scores.precision),
        recall=np.asarray(scores.recall),
        f1=f1,
        pairs=pairs,
        differences=observed,
        p_values=p_values,
        statements=evaluation_statements(f1, p_values, alpha=alpha),
        n_units=stats.shape[0],
        n_resamples=n_resamples,
        method="bootstrap-shift" if method == "bootstrap" else "approximate-randomization",
    )


# --------------------------------------------------------------------------- statements


def evaluation_statements(scores: ArrayLike, p_values: ArrayLike, *, alpha: float = 0.05) -> NDArray[np.int8]:
    """Evaluation statements A > B, B > A or A = B for every pair of systems (AWM section 2.4).

    For pair (a, b) of :func:`system_pairs`: +1 means a > b (a significantly
    better), -1 means b > a, 0 means a = b (no significant difference,
    ``p > alpha``, or equal scores).

    Parameters
    ----------
    scores : array-like of shape (..., n_systems)
        The score (F1) of each system, for one truth set or a stack of them.
    p_values : array-like of shape (..., n_pairs)
        p-value of each pair, in :func:`system_pairs` order.
    alpha : float, keyword-only
        Significance level; significant when ``p <= alpha``.

    Returns
    -------
    ndarray of int8, shape (..., n_pairs)

    Examples
    --------
    >>> evaluation_statements([0.8, 0.6, 0.7], [0.001, 0.2, 0.01]).tolist()
    [1, 0, -1]
    """
    _check_alpha(alpha)
    score_array = np.asarray(scores, dtype=np.float64)
    p_array = np.asarray(p_values, dtype=np.float64)
    if score_array.ndim == 0:
        raise ValueError("scores must hold one score per system along the last axis")
    n_systems = score_array.shape[-1]
    pairs = system_pairs(n_systems)
    if p_array.shape != score_array.shape[:-1] + (len(pairs),):
        raise ValueError(
            f"p_values must have shape {score_array.shape[:-1] + (len(pairs),)} "
            f"(one per pair of {n_systems} systems); got {p_array.shape}"
        )
    if np.isnan(p_array).any() or (p_array < 0).any() or (p_array > 1).any():
        raise ValueError("p_values must lie in [0, 1]")
    direction = np.sign(score_array[..., pairs[:, 0]] - score_array[..., pairs[:, 1]])
    return (direction * (p_array <= alpha)).astype(np.int8)


def statement_text(statements: ArrayLike, system_names: Sequence[str]) -> list[str]:
    """Readable statements, e.g. ``"A > B"``, for one truth set.

    Examples
    --------
    >>> statement_text([1, 0, -1], ["A", "B", "C"])
    ['A > B', 'A = C', 'C > B']
    """
    names = list(system_names)
    pairs = system_pairs(len(names))
    array = _as_statements(statements, "statements")
    if array.shape != (len(pairs),):
        raise ValueError(f"statements must have shape ({len(pairs)},) for {len(names)} systems; got {array.shape}")
    texts = []
    for (first, second), code in zip(pairs, array.tolist()):
        if code > 0:
            texts.append(f"{names[first]} > {names[second]}")
        elif code < 0:
            texts.append(f"{names[second]} > {names[first]}")
        else:
            texts.append(f"{names[first]} = {names[second]}")
    return texts


def sensitivity(statements: ArrayLike) -> float | FloatArray:
    """Share of system pairs with a significant difference (AWM section 2.4; Table 2).

    Parameters
    ----------
    statements : array-like of shape (..., n_pairs)
        Codes from :func:`evaluation_statements`.

    Returns
    -------
    float or ndarray of shape (...)

    Examples
    --------
    >>> sensitivity([1, 0, -1, 1])
    0.75
    """
    array = _as_statements(statements, "statements")
    return _to_python(np.mean(array != 0, axis=-1))


def compare_statements(statements: ArrayLike, baseline: ArrayLike) -> StatementComparison:
    """Sensitivity, disagreement and reversal of statements against a baseline's (AWM Table 2).

    Disagreement is the share of pairs whose statement differs from the
    baseline's; reversal the share where one says a > b and the other b > a.
    Both are over all n(n-1)/2 pairs (AWM Table 2: Intersection's 3
    reversals of 78 statements are 0.038).

    Parameters
    ----------
    statements : array-like of shape (n_pairs,) or (n_sets, n_pairs)
    baseline : array-like of shape (n_pairs,)
        The Consensus truth set's statements in AWM.

    Returns
    -------
    StatementComparison
        Floats for one truth set, arrays of shape (n_sets,) for a stack.

    Examples
    --------
    >>> compare_statements([1, 0, -1, 0], [1, 1, 1, 0])
    StatementComparison(sensitivity=0.5, disagreement=0.5, reversal=0.25)
    """
    array, base = _statements_and_baseline(statements, baseline)
    return StatementComparison(
        sensitivity=_to_python(np.mean(array != 0, axis=-1)),
        disagreement=_to_python(np.mean(array != base, axis=-1)),
        reversal=_to_python(np.mean(array * base < 0, axis=-1)),
    )


def summarize_against_baseline(
    statements: ArrayLike, baseline: ArrayLike, *, confidence: float = 0.95
) -> BaselineSummary:
    """Mean sensitivity and disagreement of many truth sets against a baseline, with confidence intervals.

    AWM section 3.2.1 (1000 Random truth sets against Consensus: mean
    sensitivity 0.729, interval 0.728 to 0.731). The intervals are for the
    *mean* over the truth sets: Student t, ``mean +- t(1 - (1 - confidence)/2,
    n - 1) * s / sqrt(n)`` with the sample standard deviation s (ddof = 1);
    NaN with fewer than 2 sets. Reversals are counted over all (set, pair)
    statements.

    Parameters
    ----------
    statements : array-like of shape (n_sets, n_pairs)
    baseline : array-like of shape (n_pairs,)
    confidence : float, keyword-only
        Confidence level of the intervals, in (0, 1).

    Returns
    -------
    BaselineSummary

    Examples
    --------
    >>> summary = summarize_against_baseline([[1, 0, 0], [1, 1, 0], [1, 0, 0]], [1, 1, 0])
    >>> round(summary.mean_sensitivity, 4), round(summary.mean_disagreement, 4), summary.n_reversals
    (0.4444, 0.2222, 0)
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1); got {confidence!r}")
    array, base = _statements_and_baseline(statements, baseline)
    if array.ndim != 2:
        raise ValueError(f"statements must be 2-D (sets x pairs); got {array.ndim} dimension(s)")
    per_set_sensitivity = np.mean(array != 0, axis=1)
    per_set_disagreement = np.mean(array != base, axis=1)
    reversed_per_set = np.sum(array * base < 0, axis=1)
    return BaselineSummary(
        n_sets=array.shape[0],
        mean_sensitivity=float(np.mean(per_set_sensitivity)) if len(array) else float("nan"),
        sensitivity_ci=_t_interval(per_set_sensitivity, confidence),
        mean_disagreement=float(np.mean(per_set_disagreement)) if len(array) else float("nan"),
        disagreement_ci=_t_interval(per_set_disagreement, confidence),
        n_reversals=int(reversed_per_set.sum()),
        n_sets_with_reversal=int(np.count_nonzero(reversed_per_set)),
        confidence=float(confidence),
    )


# --------------------------------------------------------------------------- helpers


def _paired_stats(stats_a: ArrayLike, stats_b: ArrayLike, statistic: Statistic) -> tuple[FloatArray, Callable]:
    """Validate two systems' per-unit statistics; return them stacked (units x 2 x k) and the statistic."""
    first = _as_unit_stats(stats_a, "stats_a")
    second = _as_unit_stats(stats_b, "stats_b")
    if first.shape != second.shape:
        raise ValueError(
            f"stats_a and stats_b must have the same shape (paired units); got {first.shape} and {second.shape}"
        )
    n_units = first.shape[0]
    if n_units < 2:
        raise ValueError(f"stats_a must hold at least 2 units (queries or items); got {n_units}")
    stacked = np.stack([first.reshape(n_units, -1), second.reshape(n_units, -1)], axis=1)
    return stacked, _statistic_function(statistic, n_units, stacked.shape[2])


def _as_unit_stats(values: ArrayLike, name: str) -> FloatArray:
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numeric per-unit statistics") from None
    if array.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D (units) or 2-D (units x statistics); got {array.ndim} dimension(s)")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite")
    return array


def _statistic_function(statistic: Statistic, n_units: int, width: int) -> Callable[[FloatArray], FloatArray]:
    if isinstance(statistic, str):
        if statistic == "mean":
            if width != 1:
                raise ValueError("statistic='mean' needs one score per unit: stats of shape (n_units,)")
            return lambda totals: totals[..., 0] / n_units
        if statistic == "f1":
            if width != 3:
                raise ValueError("statistic='f1' needs (tp, fp, fn) per unit: stats of shape (n_units, 3)")
            return _f1_from_totals
        raise ValueError(f"statistic must be 'mean', 'f1' or a callable; got {statistic!r}")
    if callable(statistic):
        return statistic
    raise ValueError(f"statistic must be 'mean', 'f1' or a callable; got {statistic!r}")


def _f1_from_totals(totals: FloatArray) -> FloatArray:
    return np.asarray(scores_from_counts(totals).f1)


def _unit_counts(returned: ArrayLike, truth: ArrayLike, queries: ArrayLike, resample: str) -> FloatArray:
    """Per-unit (tp, fp, fn) of every system, units x systems x 3, for units with known truth."""
    truth_array = np.asarray(truth, dtype=np.float64)
    queries_array = np.asarray(queries)
    n_items = truth_array.shape[0]
    if queries_array.shape != (n_items,):
        raise ValueError(f"queries must have shape ({n_items},), one query per item; got {queries_array.shape}")
    units = queries_array if resample == "queries" else np.arange(n_items)
    counts = query_counts(returned, truth_array, units)
    _, codes = np.unique(units, return_inverse=True)
    known_per_unit = np.bincount(codes, weights=~np.isnan(truth_array), minlength=counts.shape[1])
    return counts[:, known_per_unit > 0].transpose(1, 0, 2).astype(np.float64)


def _bootstrap_differences(
    stats: FloatArray, pairs: NDArray[np.intp], statistic: Callable, weights: NDArray[np.int64]
) -> FloatArray:
    """d*_b for every resample b and pair: (B x pairs). One product gives every system's totals."""
    values = statistic(_weighted_totals(weights, stats))
    return values[:, pairs[:, 0]] - values[:, pairs[:, 1]]


def _swap_differences(stats: FloatArray, pairs: NDArray[np.intp], statistic: Callable, swaps: FloatArray) -> FloatArray:
    """d* for every swap pattern and pair: swapping unit u moves (b_u - a_u) from B's totals to A's.

    The swapped totals of every system are computed once, so the cost does
    not grow with the number of pairs.
    """
    first, second = pairs[:, 0], pairs[:, 1]
    swapped = _weighted_totals(swaps, stats)
    moved = swapped[:, second] - swapped[:, first]
    totals = stats.sum(axis=0)
    return statistic(totals[first] + moved) - statistic(totals[second] - moved)


def _weighted_totals(weights: NDArray, stats: FloatArray) -> FloatArray:
    """Totals of every system's statistics under each row of unit weights: (rows x systems x k).

    einsum rather than BLAS matmul: the product is small, and multithreaded
    BLAS stalls when other workers share the cores.
    """
    n_units, n_systems, width = stats.shape
    flat = np.einsum("ru,uk->rk", weights.astype(np.float64), stats.reshape(n_units, n_systems * width))
    return flat.reshape(-1, n_systems, width)


def _shift_p_values(null: FloatArray, observed: FloatArray) -> FloatArray:
    count = _count_at_least(np.abs(null - observed), np.abs(observed))
    return (count + 1) / (null.shape[0] + 1)


def _count_at_least(values: FloatArray, threshold: FloatArray) -> NDArray[np.int64]:
    """#{values >= threshold} per column, ties within TIE_TOLERANCE included."""
    slack = TIE_TOLERANCE * np.maximum(1.0, threshold)
    return np.count_nonzero(values >= threshold - slack, axis=0)


def _result(values: FloatArray, p_value: float, alpha: float, n_resamples: int, method: str) -> PairedTestResult:
    return PairedTestResult(
        statistic_a=float(values[0]),
        statistic_b=float(values[1]),
        difference=float(values[0] - values[1]),
        p_value=p_value,
        significant=p_value <= alpha,
        n_resamples=int(n_resamples),
        method=method,
    )


def _t_interval(values: FloatArray, confidence: float) -> tuple[float, float]:
    if len(values) < 2:
        return (float("nan"), float("nan"))
    mean = float(np.mean(values))
    standard_error = np.std(values, ddof=1) / np.sqrt(len(values))
    from scipy import (
        stats as scipy_stats,
    )  # scipy.stats takes 1.7 s to import: loaded where used, not by every process that starts

    half_width = scipy_stats.t.ppf(0.5 + confidence / 2, len(values) - 1) * standard_error
    return (mean - float(half_width), mean + float(half_width))


def _as_statements(statements: ArrayLike, name: str) -> NDArray[np.int8]:
    array = np.asarray(statements)
    if array.ndim == 0 or not np.isin(array, (-1, 0, 1)).all():
        raise ValueError(f"{name} must be an array of statement codes -1, 0 or +1")
    return array.astype(np.int8)


def _statements_and_baseline(statements: ArrayLike, baseline: ArrayLike) -> tuple[NDArray[np.int8], NDArray[np.int8]]:
    array = _as_statements(statements, "statements")
    base = _as_statements(baseline, "baseline")
    if base.ndim != 1:
        raise ValueError(f"baseline must be 1-D (pairs); got {base.ndim} dimension(s)")
    if array.shape[-1] != base.shape[0]:
        raise ValueError(
            f"statements must cover the baseline's {base.shape[0]} pairs along the last axis; got {array.shape[-1]}"
        )
    return array, base


def _generator(seed: SeedLike) -> np.random.Generator:
    if isinstance(seed, bool):
        raise ValueError(f"seed must be an int, SeedSequence, Generator or None; got {seed!r}")
    try:
        return np.random.default_rng(seed)
    except (TypeError, ValueError):
        raise ValueError(f"seed must be an int, SeedSequence, Generator or None; got {seed!r}") from None


def _check_positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")
    return int(value)


def _check_alpha(alpha: float) -> None:
    if not isinstance(alpha, (int, float, np.floating)) or not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1); got {alpha!r}")


def _to_python(values: FloatArray) -> float | FloatArray:
    return float(values) if np.ndim(values) == 0 else np.asarray(values)
