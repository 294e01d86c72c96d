r"""The Alternative Annotator Test: may a model judge's labels stand in for people's?

Nitay Calderon, Roi Reichart and Rotem Dror (2025), "The Alternative Annotator
Test for LLM-as-a-Judge: How to Statistically Justify Replacing Human
Annotators with LLMs", *Proceedings of the 63rd Annual Meeting of the ACL
(Volume 1: Long Papers)*, pp. 16051-16081 (arXiv 2501.10970). The paper numbers
no equations; each step names its section and symbol.

Notation (section 3, "Notations and Definitions"): human annotators
:math:`h_1..h_m`, instances :math:`x_1..x_n`, :math:`I_j` the instances
:math:`h_j` annotated, :math:`H_i` the annotators of :math:`x_i`, :math:`[-j]`
every index but :math:`j`, :math:`f` the model judge. Leaving one annotator out
at a time, the test asks whether the judge represents the remaining annotators
at least as well as the one left out does:

1. Alignment score (section 3.1) of a label :math:`a` (the judge's
   :math:`f(x_i)` or the left-out annotator's :math:`h_j(x_i)`) with the
   remaining annotators of instance :math:`x_i`:

   .. math::
       \mathrm{ACC}(a, x_i, j) = \frac{1}{|H_i| - 1}\sum_{k \in H_i[-j]} \mathbf 1\{a = h_k(x_i)\},\qquad
       -\mathrm{RMSE}(a, x_i, j) = -\sqrt{\frac{1}{|H_i| - 1}\sum_{k \in H_i[-j]} (a - h_k(x_i))^2},

   and :math:`\mathrm{SIM}(a, x_i, j)`, the mean of any similarity
   :math:`\mathrm{sim}(a, h_k(x_i))` over :math:`k \in H_i[-j]`. ACC is for
   categorical and rank labels, -RMSE for numeric ones (section 3.1).
2. Indicators (section 3.2): :math:`W^f_{i,j} = \mathbf 1\{S(f, x_i, j) \ge
   S(h_j, x_i, j)\}` and :math:`W^h_{i,j} = \mathbf 1\{S(f, x_i, j) \le S(h_j, x_i, j)\}`:
   a tie counts for both.
3. Advantage probabilities (section 3.2): :math:`\rho^f_j = \frac{1}{|I_j|}
   \sum_{i \in I_j} W^f_{i,j}` (the judge is as good as or better than
   :math:`h_j`), :math:`\rho^h_j` likewise from :math:`W^h`.
4. Test (section 3.3): :math:`H_{0j}: \rho^f_j \le \rho^h_j - \varepsilon`
   against :math:`H_{1j}: \rho^f_j > \rho^h_j - \varepsilon`, a paired one-sided
   t-test on :math:`d_{i,j} = W^h_{i,j} - W^f_{i,j}`:
   :math:`t_j = (\bar d_j - \varepsilon) / (s_j / \sqrt{n_j})`, :math:`s_j`
   the standard deviation of the :math:`d_{i,j}` (denominator :math:`n_j - 1`),
   :math:`n_j = |I_j|`, and :math:`p_j = P(T_{n_j - 1} \le t_j)`.
   :math:`\varepsilon` is the cost-benefit margin granted to the cheaper judge
   (Appendix B.1: 0.2 when the annotators are experts, 0.15 skilled, 0.1 crowd
   workers; effective range 0.05-0.3; ``RECOMMENDED_EPSILON``).
5. Benjamini-Yekutieli at level :math:`q` over the :math:`m` p-values (section
   3.3, "Multiple Comparison Correction"; Appendix C.6, Algorithm 1): reject the
   hypotheses of the :math:`k` smallest p-values, :math:`k` the largest rank with
   :math:`p_{(k)} \le \frac{k}{m} \cdot q / \sum_{l=1}^m \frac1l`; :math:`q = 0.05`.
6. Winning rate (section 3.3): :math:`\omega = \frac1m \sum_j \mathbf 1\{H_{0j}
   \text{ rejected}\}`; the judge passes when :math:`\omega \ge 0.5` (footnote 5:
   a hyperparameter, stricter in high-stakes domains).
7. Average advantage probability (section 3.4): :math:`\rho = \frac1m \sum_j
   \rho^f_j`, the measure for comparing judges (it does not depend on
   :math:`\varepsilon`); the optimal judge (Theorem 1, Appendix D), the majority
   vote under ACC or the mean under -RMSE, has :math:`\rho = 1`.

Which instances count for annotator :math:`j`: those :math:`j` rated, that the
judge labelled and that at least one other annotator rated (:math:`H_i[-j]`
must not be empty; ``min_raters`` raises the bar). The t-test's normality needs
at least 30 instances (section 5.1; Appendix A, "How many instances should I
annotate?"): an annotator with fewer is not tested, and :math:`m`, :math:`\omega`
and :math:`\rho` are over the annotators tested, as in the authors' released code
(github.com/nitaytech/AltTest, ``alt_test_example.ipynb``). The paper suggests a
Wilcoxon signed-rank test below 30 instances (section 3.3); it is not offered here.

Degenerate spread: when every :math:`d_{i,j}` of an annotator is the same value
:math:`c`, :math:`s_j = 0` and :math:`t_j` is :math:`-\infty` (p = 0) if
:math:`c < \varepsilon`, :math:`+\infty` (p = 1) if :math:`c > \varepsilon`, and
undefined (NaN, p = 1: no evidence against :math:`H_{0j}`) if :math:`c = \varepsilon`;
scipy's ``ttest_1samp`` gives the same except NaN for that last p-value.

Labels are numeric codes. With integer codes (every rating scale, every
category coding) the alignment scores are exact, so ties are found exactly:
ACC compares counts, -RMSE sums squares of differences from the item's first
rating. Real-valued labels decide ties to rounding.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from scipy import sparse, special

from stats.agreement import Level
from stats.ratings import SparseRatings
from stats.uncertainty import UnitStatistics

__all__ = [
    "DEFAULT_EPSILON",
    "DEFAULT_Q",
    "MIN_INSTANCES",
    "PASS_RATE",
    "RECOMMENDED_EPSILON",
    "AltTestInstances",
    "AltTestResult",
    "AnnotatorComparison",
    "JudgeComparison",
    "advantage_units",
    "alt_test",
    "compare_judges",
]

AlignmentName = Literal["accuracy", "neg_rmse"]
Similarity = Callable[[npt.NDArray[np.float64], npt.NDArray[np.float64]], npt.ArrayLike]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: The paper's rule of thumb for epsilon by who the annotators are (Appendix B.1; Appendix A).
RECOMMENDED_EPSILON: dict[str, float] = {"experts": 0.2, "skilled": 0.15, "crowd": 0.1}
#: Experts' epsilon, the default of the authors' released code.
DEFAULT_EPSILON = 0.2
#: The target false discovery rate of the Benjamini-Yekutieli procedure (section 3.3).
DEFAULT_Q = 0.05
#: Fewest instances for an annotator's t-test (section 5.1; Appendix A).
MIN_INSTANCES = 30
#: The winning rate at which the judge passes (section 3.3, footnote 5).
PASS_RATE = 0.5

_LEVELS = ("nominal", "ordinal", "interval", "ratio")
# (rating, other rating) pairs per block when a caller's similarity is applied: bounds the
# temporaries to a few arrays of this many float64 whatever the number of raters per item.
_BLOCK_PAIRS = 1 << 22


@dataclass(frozen=True, eq=False)
class AltTestInstances:
    """The per-instance statistics behind a test: one row per annotator ``j`` and instance ``i`` in ``I_j``.

    Rows are sorted by item, then annotator; instances of annotators too sparse to be
    tested are included (their rows do not count toward the test).

    Attributes
    ----------
    annotator, item : ndarray of int64
        The annotator (column of the ratings) and the instance (row).
    judge_score, human_score : ndarray of float64
        ``S(f, x_i, j)`` and ``S(h_j, x_i, j)``: the judge's and the annotator's
        alignment with the other annotators of the instance (section 3.1).
    judge_wins, human_wins : ndarray of bool
        ``W^f_{i,j}`` and ``W^h_{i,j}`` (section 3.2); both on a tie.
    n_items : int
        Rows of the ratings (the units a bootstrap resamples).
    """

    annotator: IntArray
    item: IntArray
    judge_score: FloatArray
    human_score: FloatArray
    judge_wins: BoolArray
    human_wins: BoolArray
    n_items: int


@dataclass(frozen=True)
class AnnotatorComparison:
    """The judge against one left-out annotator ``j``.

    Attributes
    ----------
    annotator : int
        The annotator's column in the ratings.
    instances : int
        ``|I_j|``: instances counted (rated by ``j`` and another annotator, labelled by the judge).
    rho_judge, rho_human : float
        ``rho^f_j`` and ``rho^h_j`` (section 3.2); NaN without instances.
    t, p_value : float
        ``t_j`` and its one-sided p-value (section 3.3); NaN when not tested.
    p_adjusted : float
        The Benjamini-Yekutieli adjusted p-value (``min(1, m c_m p / rank)``, made
        monotone); ``rejected`` is ``p_adjusted <= q`` up to rounding. NaN when not tested.
    tested : bool
        Whether ``j`` has at least ``min_instances`` instances.
    rejected : bool
        Whether ``H0j: rho^f_j <= rho^h_j - epsilon`` is rejected after the
        correction: the judge wins against ``j``.
    """

    annotator: int
    instances: int
    rho_judge: float
    rho_human: float
    t: float
    p_value: float
    p_adjusted: float
    tested: bool
    rejected: bool


@dataclass(frozen=True, eq=False)
class AltTestResult:
    """The alternative annotator test of one judge against the human annotators.

    Attributes
    ----------
    winning_rate : float
        ``omega``: the share of tested annotators whose null hypothesis is
        rejected (section 3.3); NaN when none is tested.
    passes : bool
        ``omega >= threshold`` (0.5 by default) with at least one annotator tested.
    average_advantage : float
        ``rho``, the mean of ``rho^f_j`` over the tested annotators (section 3.4);
        NaN when none is tested.
    tested : int
        ``m``: the annotators tested.
    epsilon, q, threshold : float
        The cost-benefit margin, the target false discovery rate, the passing winning rate.
    min_instances : int
        Fewest instances for an annotator to be tested.
    alignment : str
        ``"accuracy"`` (ACC), ``"neg_rmse"`` (-RMSE) or ``"similarity"`` (SIM with the caller's function).
    annotators : tuple of AnnotatorComparison
        One per column of the ratings, in column order.
    instances : AltTestInstances
        The per-instance scores and indicators (for :func:`advantage_units` and for
        showing where the judge and an annotator part).
    """

    winning_rate: float
    passes: bool
    average_advantage: float
    tested: int
    epsilon: float
    q: float
    threshold: float
    min_instances: int
    alignment: str
    annotators: tuple[AnnotatorComparison, ...]
    instances: AltTestInstances


@dataclass(frozen=True, eq=False)
class JudgeComparison:
    """Several judges tested against the same annotators, ranked by average advantage probability.

    Attributes
    ----------
    results : tuple of AltTestResult
        One per judge, in the order given.
    average_advantage : tuple of float
        Each judge's ``rho`` (section 3.4).
    ranking : tuple of int
        Judge indices from the highest ``rho`` to the lowest (NaN last, ties in the order given).
    """

    results: tuple[AltTestResult, ...]
    average_advantage: tuple[float, ...]
    ranking: tuple[int, ...]


def alt_test(
    ratings: SparseRatings | npt.ArrayLike,
    judge: npt.ArrayLike,
    *,
    level: Level = "nominal",
    alignment: AlignmentName | Similarity | None = None,
    epsilon: float = DEFAULT_EPSILON,
    q: float = DEFAULT_Q,
    min_instances: int = MIN_INSTANCES,
    min_raters: int = 2,
    threshold: float = PASS_RATE,
) -> AltTestResult:
    r"""The alternative annotator test of a model judge (Calderon, Reichart & Dror 2025, section 3).

    For each human annotator ``j`` in turn: the alignment of the judge's label
    and of ``j``'s label with the other annotators of each instance ``j``
    rated (section 3.1), the advantage probabilities ``rho^f_j``, ``rho^h_j``
    (section 3.2), the one-sided paired t-test of ``H0j: rho^f_j <= rho^h_j -
    epsilon`` (section 3.3); then the Benjamini-Yekutieli correction at ``q``
    (Appendix C.6, Algorithm 1), the winning rate ``omega`` and the verdict
    ``omega >= threshold`` (section 3.3), and the average advantage probability
    ``rho`` (section 3.4). The module docstring gives every formula.

    Parameters
    ----------
    ratings : SparseRatings or array_like of shape (n_items, n_raters)
        The human annotators' labels as numeric codes, NaN where a rater gave
        none; at least two raters.
    judge : array_like of shape (n_items,)
        The judge's label codes on the same scale, NaN where it gave none.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        The scale: nominal and ordinal labels are compared by agreement (ACC),
        interval and ratio labels by -RMSE, unless ``alignment`` says otherwise.
    alignment : {"accuracy", "neg_rmse"} or callable, optional
        The alignment scoring function ``S``: ``"accuracy"`` (ACC),
        ``"neg_rmse"`` (-RMSE; not for nominal codes), or a vectorised
        similarity ``sim(a, b)`` returning one finite value per pair of label
        arrays, averaged over the other annotators (SIM; it costs one call per
        pair of ratings of an item, ``sum_i |H_i| (|H_i| - 1)`` in all).
    epsilon : float, default 0.2
        The cost-benefit margin, ``0 <= epsilon < 1`` (Appendix B.1:
        ``RECOMMENDED_EPSILON``; organisers choose and justify it).
    q : float, default 0.05
        Target false discovery rate of the Benjamini-Yekutieli procedure, ``0 < q < 1``.
    min_instances : int, default 30
        Fewest instances for an annotator to be tested, at least 2 (the
        paper's minimum for the t-test is 30).
    min_raters : int, default 2
        Fewest human ratings an instance needs to count, at least 2.
    threshold : float, default 0.5
        The winning rate at which the judge passes, ``0 < threshold <= 1``.

    Returns
    -------
    AltTestResult

    Raises
    ------
    ValueError
        On ratings or judge labels that are not numeric codes of matching
        shapes, fewer than two raters, an unknown level or alignment, -RMSE on
        nominal codes, or an option out of range.

    Examples
    --------
    Three annotators label four kinds of item ten times over; a judge that
    gives each item its majority label is the optimal judge (Theorem 1):

    >>> humans = np.tile([[0, 0, 1], [1, 1, 1], [0, 1, 1], [2, 2, 0]], (10, 1))
    >>> majority = np.tile([0, 1, 1, 2], 10)
    >>> result = alt_test(humans, majority, epsilon=0.2)
    >>> result.winning_rate, result.passes, result.average_advantage, result.tested
    (1.0, True, 1.0, 3)
    >>> first = result.annotators[0]
    >>> first.instances, first.rho_judge, first.rho_human, first.rejected
    (40, 1.0, 0.75, True)

    A judge that always says 0 loses:

    >>> alt_test(humans, np.zeros(40)).passes
    False
    """
    table = _as_ratings(ratings)
    labels = _judge_labels(judge, table.n_items)
    name, similarity = _alignment(level, alignment)
    _check_options(epsilon, q, min_instances, min_raters, threshold)
    instances = _instances(table, labels, name, similarity, min_raters)
    return _test(instances, table.n_raters, name, epsilon, q, min_instances, threshold)


def compare_judges(
    ratings: SparseRatings | npt.ArrayLike,
    judges: npt.ArrayLike,
    *,
    level: Level = "nominal",
    alignment: AlignmentName | Similarity | None = None,
    epsilon: float = DEFAULT_EPSILON,
    q: float = DEFAULT_Q,
    min_instances: int = MIN_INSTANCES,
    min_raters: int = 2,
    threshold: float = PASS_RATE,
    common_items: bool = True,
) -> JudgeComparison:
    """Several judges against the same annotators, ranked by average advantage probability (section 3.4).

    The paper compares judges by ``rho`` rather than by the winning rate,
    which ignores how large each win is, depends on epsilon and takes only
    ``m + 1`` values (section 3.4). Each judge is tested with :func:`alt_test`
    and the same options.

    Parameters
    ----------
    ratings : SparseRatings or array_like of shape (n_items, n_raters)
        As for :func:`alt_test`.
    judges : array_like of shape (n_judges, n_items)
        Each judge's label codes, NaN where it gave none.
    common_items : bool, default True
        Count only the items every judge labelled, so that every ``rho`` rests
        on the same instances (the paper's judges all label every instance).
    level, alignment, epsilon, q, min_instances, min_raters, threshold
        As for :func:`alt_test`.

    Returns
    -------
    JudgeComparison

    Raises
    ------
    ValueError
        As :func:`alt_test`, or if ``judges`` is not 2-D with one row per judge.

    Examples
    --------
    >>> humans = np.tile([[0, 0, 1], [1, 1, 1], [0, 1, 1], [2, 2, 0]], (10, 1))
    >>> judges = [np.tile([0, 2, 1, 2], 10), np.tile([0, 1, 1, 2], 10)]  # the first errs on every [1, 1, 1]
    >>> comparison = compare_judges(humans, judges)
    >>> comparison.average_advantage, comparison.ranking
    ((0.75, 1.0), (1, 0))
    """
    table = _as_ratings(ratings)
    try:
        labels = np.array(judges, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("judges must be numeric label codes (NaN: no label), one row per judge") from None
    if labels.ndim != 2 or labels.shape[1] != table.n_items or labels.shape[0] < 1:
        raise ValueError(f"judges must have shape (n_judges, {table.n_items}), got {labels.shape}")
    if common_items:
        labels[:, np.isnan(labels).any(axis=0)] = np.nan
    results = tuple(
        alt_test(
            table,
            row,
            level=level,
            alignment=alignment,
            epsilon=epsilon,
            q=q,
            min_instances=min_instances,
            min_raters=min_raters,
            threshold=threshold,
        )
        for row in labels
    )
    rho = tuple(result.average_advantage for result in results)
    keys = np.array([-value if np.isfinite(value) else np.inf for value in rho])
    return JudgeComparison(results, rho, tuple(int(k) for k in np.argsort(keys, kind="stable")))


def advantage_units(result: AltTestResult, *, annotator: int | None = None) -> UnitStatistics:
    """The average advantage probability as a function of per-instance sums, for the shared bootstrap.

    The units are the instances (rows of the ratings); the tested annotators
    stay fixed. Per instance and tested annotator ``j``: ``W^f_{i,j}`` and 1
    if ``i`` is in ``I_j`` (zeros otherwise); the statistic of the sums is the
    mean over ``j`` of ``sum W^f / |I_j|``, :attr:`AltTestResult.average_advantage`
    (section 3.4), NaN on a resample that leaves some annotator without
    instances. With ``annotator``: that annotator's ``rho^f_j`` alone (tested or
    not). Feed it to :func:`stats.uncertainty.bootstrap` (``.interval()``).

    Raises
    ------
    ValueError
        If ``annotator`` is not a column of the ratings the result came from.

    Examples
    --------
    >>> humans = np.tile([[0, 0, 1], [1, 1, 1], [0, 1, 1], [2, 2, 0]], (10, 1))
    >>> result = alt_test(humans, np.tile([0, 1, 0, 2], 10))
    >>> units = advantage_units(result)
    >>> units.value == result.average_advantage, units.units
    (True, 40)
    >>> advantage_units(result, annotator=2).value == result.annotators[2].rho_judge
    True
    """
    rows = result.instances
    n_raters = len(result.annotators)
    if annotator is not None:
        if isinstance(annotator, bool) or not isinstance(annotator, int | np.integer) or not 0 <= annotator < n_raters:
            raise ValueError(f"annotator must be a column of the ratings, 0 .. {n_raters - 1}")
        chosen = np.array([annotator])
    else:
        chosen = np.array([a.annotator for a in result.annotators if a.tested], dtype=np.int64)
    m = chosen.size
    column = np.full(n_raters, -1, dtype=np.int64)
    column[chosen] = np.arange(m)
    keep = column[rows.annotator] >= 0 if m else np.zeros(rows.item.size, dtype=bool)
    item, position = rows.item[keep], column[rows.annotator[keep]]
    wins = rows.judge_wins[keep].astype(np.float64)
    width = max(2 * m, 2)
    per_unit = sparse.csr_array(
        (
            np.concatenate([wins, np.ones(item.size)]),
            (np.concatenate([item, item]), np.concatenate([position, position + m])),
        ),
        shape=(rows.n_items, width),
    )

    def statistic(sums: FloatArray) -> FloatArray:
        if m == 0:
            return np.full(sums.shape[:-1], np.nan)
        counts = sums[..., m : 2 * m]
        with np.errstate(divide="ignore", invalid="ignore"):
            value = (sums[..., :m] / counts).mean(axis=-1)
        return np.where((counts > 0).all(axis=-1), value, np.nan)

    return UnitStatistics(per_unit, statistic, int(np.unique(item).size))


# --- the steps ---------------------------------------------------------------------


def _instances(
    table: SparseRatings, labels: FloatArray, name: str, similarity: Similarity | None, min_raters: int
) -> AltTestInstances:
    """Every (annotator, instance) pair that counts, with both alignment scores and indicators."""
    per_item = table.per_item
    counted = (per_item >= min_raters) & ~np.isnan(labels)
    keep = counted[table.items]
    items, raters, values = table.items[keep], table.raters[keep], table.values[keep]
    judged = labels[items]
    others = (per_item[items] - 1).astype(np.float64)
    if name == "accuracy":
        judge_score, human_score = _accuracy_scores(items, values, judged, others)
    elif name == "neg_rmse":
        judge_score, human_score = _neg_rmse_scores(items, values, judged, others, table.n_items)
    else:
        judge_score, human_score = _similarity_scores(items, values, judged, others, similarity)
    return AltTestInstances(
        annotator=raters,
        item=items,
        judge_score=judge_score,
        human_score=human_score,
        judge_wins=judge_score >= human_score,
        human_wins=judge_score <= human_score,
        n_items=table.n_items,
    )


def _accuracy_scores(
    items: IntArray, values: FloatArray, judged: FloatArray, others: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """ACC of the judge and of each rating against the item's other ratings, from counts of equal labels."""
    if items.size == 0:
        return np.zeros(0), np.zeros(0)
    codes = np.unique(np.concatenate([values, judged]), return_inverse=True)[1].reshape(-1)
    value_code, judge_code = codes[: values.size], codes[values.size :]
    width = int(codes.max()) + 1
    keys, inverse, counts = np.unique(items * width + value_code, return_inverse=True, return_counts=True)
    same_as_rating = counts[inverse.reshape(-1)]  # the rating itself included
    judge_keys = items * width + judge_code
    found = np.minimum(np.searchsorted(keys, judge_keys), keys.size - 1)
    same_as_judge = np.where(keys[found] == judge_keys, counts[found], 0)
    judge_agrees_with_rating = (value_code == judge_code).astype(np.int64)
    human = (same_as_rating - 1) / others
    judge = (same_as_judge - judge_agrees_with_rating) / others
    return judge, human


def _neg_rmse_scores(
    items: IntArray, values: FloatArray, judged: FloatArray, others: FloatArray, n_items: int
) -> tuple[FloatArray, FloatArray]:
    """-RMSE of the judge and of each rating against the item's other ratings, from the item's sums.

    Sum over k != j of (a - h_k)^2 = (n - 1) a^2 - 2 a S + Q, with S and Q the
    sums of the other ratings and of their squares. Labels are measured from the
    item's first rating, so integer codes give integer sums (exact, ties found
    exactly) and a shift of the scale changes nothing.
    """
    if items.size == 0:
        return np.zeros(0), np.zeros(0)
    base = values[np.searchsorted(items, items)]
    x, fx = values - base, judged - base
    rest_sum = np.bincount(items, weights=x, minlength=n_items)[items] - x
    rest_squares = np.bincount(items, weights=x * x, minlength=n_items)[items] - x * x
    human = others * x * x - 2 * x * rest_sum + rest_squares
    judge = others * fx * fx - 2 * fx * rest_sum + rest_squares
    return -np.sqrt(np.maximum(judge, 0) / others), -np.sqrt(np.maximum(human, 0) / others)


def _similarity_scores(
    items: IntArray, values: FloatArray, judged: FloatArray, others: FloatArray, similarity: Any
) -> tuple[FloatArray, FloatArray]:
    """SIM of the judge and of each rating: the caller's similarity averaged over the item's other ratings.

    Every (rating, other rating of the same item) pair is formed, in blocks of
    about ``_BLOCK_PAIRS`` pairs, and the similarities summed per rating.
    """
    size = items.size
    judge_sum, human_sum = np.zeros(size), np.zeros(size)
    if size == 0:
        return judge_sum, human_sum
    starts = np.searchsorted(items, items)  # each rating's item's first rating
    width = (others + 1).astype(np.int64)  # ratings of each rating's item
    ends = np.cumsum(width)
    low = 0
    while low < size:
        reached = ends[low - 1] if low else 0
        high = max(int(np.searchsorted(ends, reached + _BLOCK_PAIRS, side="right")), low + 1)
        span = width[low:high]
        first = np.repeat(np.arange(low, high), span)
        second = starts[first] + np.arange(first.size) - np.repeat(np.cumsum(span) - span, span)
        apart = second != first
        first, second = first[apart], second[apart]
        human_sum[low:high] = np.bincount(
            first - low, weights=_checked(similarity(values[first], values[second]), first.size), minlength=high - low
        )
        judge_sum[low:high] = np.bincount(
            first - low, weights=_checked(similarity(judged[first], values[second]), first.size), minlength=high - low
        )
        low = high
    return judge_sum / others, human_sum / others


def _test(
    instances: AltTestInstances,
    n_raters: int,
    name: str,
    epsilon: float,
    q: float,
    min_instances: int,
    threshold: float,
) -> AltTestResult:
    """Advantage probabilities, t-tests, the BY correction, the winning rate and the average advantage."""
    who = instances.annotator
    counts = np.bincount(who, minlength=n_raters).astype(np.float64)
    judge_wins = np.bincount(who, weights=instances.judge_wins, minlength=n_raters)
    human_wins = np.bincount(who, weights=instances.human_wins, minlength=n_raters)
    ties = np.bincount(who, weights=instances.judge_wins & instances.human_wins, minlength=n_raters)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho_judge, rho_human = judge_wins / counts, human_wins / counts
    tested = counts >= min_instances
    t = np.full(n_raters, np.nan)
    p = np.full(n_raters, np.nan)
    adjusted = np.full(n_raters, np.nan)
    rejected = np.zeros(n_raters, dtype=bool)
    # d = W^h - W^f is +1 where only the annotator wins, -1 where only the judge does, 0 on a tie.
    t[tested], p[tested] = _one_sided_t(
        human_wins[tested] - ties[tested], judge_wins[tested] - ties[tested], counts[tested], epsilon
    )
    rejected[tested], adjusted[tested] = _benjamini_yekutieli(p[tested], q)
    m = int(np.count_nonzero(tested))
    winning_rate = float(np.count_nonzero(rejected)) / m if m else float("nan")
    average = float(np.mean(rho_judge[tested])) if m else float("nan")
    annotators = tuple(
        AnnotatorComparison(
            annotator=j,
            instances=int(counts[j]),
            rho_judge=float(rho_judge[j]),
            rho_human=float(rho_human[j]),
            t=float(t[j]),
            p_value=float(p[j]),
            p_adjusted=float(adjusted[j]),
            tested=bool(tested[j]),
            rejected=bool(rejected[j]),
        )
        for j in range(n_raters)
    )
    return AltTestResult(
        winning_rate=winning_rate,
        passes=bool(m and winning_rate >= threshold),
        average_advantage=average,
        tested=m,
        epsilon=float(epsilon),
        q=float(q),
        threshold=float(threshold),
        min_instances=int(min_instances),
        alignment=name,
        annotators=annotators,
        instances=instances,
    )


def _one_sided_t(
    annotator_only: FloatArray, judge_only: FloatArray, n: FloatArray, epsilon: float
) -> tuple[FloatArray, FloatArray]:
    """t_j = (mean d - epsilon) / (s / sqrt(n)) and P(T_{n-1} <= t_j) for d in {-1, 0, +1} (section 3.3).

    ``annotator_only`` and ``judge_only`` count the d = +1 and d = -1
    instances; ``n (n - 1) s^2 = n (#+1 + #-1) - (#+1 - #-1)^2`` is an integer,
    so a zero spread is found exactly.
    """
    difference = annotator_only - judge_only
    mean = difference / n
    spread = n * (annotator_only + judge_only) - difference * difference
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean - epsilon) / np.sqrt(spread / (n * (n - 1) * n))
    flat = spread == 0
    t[flat] = np.where(mean[flat] < epsilon, -np.inf, np.where(mean[flat] > epsilon, np.inf, np.nan))
    p = special.stdtr(n - 1, t)
    p[np.isnan(t)] = 1.0
    return t, p


def _benjamini_yekutieli(p: FloatArray, q: float) -> tuple[BoolArray, FloatArray]:
    """Which hypotheses the Benjamini-Yekutieli step-up procedure rejects at ``q``, and the adjusted p-values.

    Appendix C.6, Algorithm 1 (Benjamini & Yekutieli 2001, Annals of Statistics
    29(4), Theorem 1.3): the largest rank ``k`` with ``p_(k) <= (k / m) q / c_m``,
    ``c_m = sum_{l <= m} 1 / l``, and the ``k`` smallest p-values rejected.
    """
    m = p.size
    rejected = np.zeros(m, dtype=bool)
    adjusted = np.zeros(m)
    if m == 0:
        return rejected, adjusted
    order = np.argsort(p, kind="stable")
    rank = np.arange(1, m + 1, dtype=np.float64)
    c_m = float(np.sum(1.0 / rank))
    below = p[order] <= rank / m * (q / c_m)
    rejected[order[: int(np.flatnonzero(below)[-1]) + 1 if below.any() else 0]] = True
    adjusted[order] = np.minimum(np.minimum.accumulate((c_m * m * p[order] / rank)[::-1])[::-1], 1.0)
    return rejected, adjusted


# --- the boundary --------------------------------------------------------------------


def _as_ratings(ratings: Any) -> SparseRatings:
    if isinstance(ratings, SparseRatings):
        table = ratings
    else:
        try:
            matrix = np.asarray(ratings, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError("ratings must be numeric label codes (NaN: no rating)") from None
        if matrix.ndim != 2:
            raise ValueError(f"ratings must be 2-D (items x raters), got {matrix.ndim}-D")
        table = SparseRatings.from_dense(matrix)
    if table.n_raters < 2:
        raise ValueError(f"ratings must have at least two raters (columns), got {table.n_raters}")
    return table


def _judge_labels(judge: Any, n_items: int) -> FloatArray:
    try:
        labels = np.asarray(judge, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("judge must be numeric label codes (NaN: no label)") from None
    if labels.shape != (n_items,):
        raise ValueError(f"judge must have shape ({n_items},), one label per item, got {labels.shape}")
    if np.isinf(labels).any():
        raise ValueError("judge must hold finite labels or NaN")
    return labels


def _alignment(level: Any, alignment: Any) -> tuple[str, Similarity | None]:
    if level not in _LEVELS:
        raise ValueError(f"level must be one of {', '.join(_LEVELS)}, got {level!r}")
    if alignment is None:
        return ("accuracy" if level in ("nominal", "ordinal") else "neg_rmse"), None
    if callable(alignment):
        return "similarity", alignment
    if alignment not in ("accuracy", "neg_rmse"):
        raise ValueError(f"alignment must be 'accuracy', 'neg_rmse' or a similarity function, got {alignment!r}")
    if alignment == "neg_rmse" and level == "nominal":
        raise ValueError("alignment 'neg_rmse' measures distances, which nominal codes do not have")
    return alignment, None


def _check_options(epsilon: Any, q: Any, min_instances: Any, min_raters: Any, threshold: Any) -> None:
    if not _is_real(epsilon) or not 0 <= epsilon < 1:
        raise ValueError(f"epsilon must be a number with 0 <= epsilon < 1, got {epsilon!r}")
    if not _is_real(q) or not 0 < q < 1:
        raise ValueError(f"q must be a number strictly between 0 and 1, got {q!r}")
    if not _is_real(threshold) or not 0 < threshold <= 1:
        raise ValueError(f"threshold must be a number with 0 < threshold <= 1, got {threshold!r}")
    for name, value in (("min_instances", min_instances), ("min_raters", min_raters)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 2:
            raise ValueError(f"{name} must be an integer of at least 2, got {value!r}")


def _is_real(value: Any) -> bool:
    return (
        isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool) and np.isfinite(value)
    )


def _checked(similarities: npt.ArrayLike, size: int) -> FloatArray:
    try:
        array = np.asarray(similarities, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("alignment's similarity must return numbers") from None
    if array.shape != (size,):
        raise ValueError(f"alignment's similarity must return one value per pair, shape ({size},), got {array.shape}")
    if not np.isfinite(array).all():
        raise ValueError("alignment's similarity must return finite values")
    return array
