"""Scoring an ordering of items against several assessors' orderings.

Kim, Zhai & Han, "Aggregation of Multiple Judgments for Evaluating Ordered
Lists" (ECIR 2010), referred to below as KZH: section 4.1 (Kendall's tau,
Spearman's rho, average correlation AC), 4.2 (weighted correlation
aggregation WCA), 4.3 (rank-based aggregation RBA), 4.4 (frequent sequential
pattern aggregation FreSPA), 5.2 (evaluation discriminativeness ED), 5.4
(noise robustness, Table 1) and 5.5 (FreSPA parameters, Tables 2-4).

An ordering is a sequence of hashable item ids (a string is a sequence of
one-character ids, handy in examples); every ordering of one topic holds the
same items once each. ``golds`` are the assessors' orderings (at least one,
at least two where one is held out); ``target`` is the ordering being scored.
Scores use the raw correlations in [-1, 1]; the paper rescales them to
``(x + 1) / 2`` only to compare methods by ED (section 5.2), which the named
methods of :func:`discriminativeness` do.

FreSPA is counted exactly without listing patterns (see ``_frespa``); the
paper enumerated them with PrefixSpan, exponential in the number of items.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from fractions import Fraction
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from kinds.ordering import _frespa
from kinds.ordering._frespa import support_threshold
from stats import rank

__all__ = [
    "METHODS",
    "RBA_TIES",
    "WCA_WEIGHTS",
    "PAPER_SWEEPS",
    "TUNE_GRID",
    "FrespaSetting",
    "NoiseRobustness",
    "SweepRow",
    "TunedFrespa",
    "average_correlation",
    "discriminativeness",
    "discriminativeness_each",
    "frespa",
    "frespa_sweep",
    "kendall_tau",
    "noise_robustness",
    "rank_based",
    "rank_consensus",
    "scores_each",
    "spearman_rho",
    "support_threshold",
    "tune",
    "wca_weights",
    "weighted_correlation",
]

Ordering = Sequence[Hashable]
Golds = Sequence[Ordering]
Measure = Literal["tau", "spearman"]
TieBreak = Literal["first", "id"]
#: RBA's tie handling: the exact mean over the tied consensus orders (default), or a tie break.
RbaTies = Literal["average", "first", "id"]
#: WCA's weights: negative ones taken as 0 (default), or the paper's formula as written.
WcaWeights = Literal["clamped", "paper"]
Progress = Callable[[int, int], None]
IntArray = NDArray[np.intp]
FloatArray = NDArray[np.float64]

#: Names accepted by :func:`discriminativeness` and :func:`noise_robustness`:
#: the columns of KZH Table 1.
METHODS = ("ac-tau", "ac-sp", "wca-tau", "wca-sp", "rba-tau", "rba-sp", "frespa")

#: The values of ``weighted_correlation(weights=...)``, the default first.
WCA_WEIGHTS = ("clamped", "paper")
#: The values of ``rank_based(tie_break=...)``, the default first.
RBA_TIES = ("average", "first", "id")

#: One-parameter-at-a-time sweeps of KZH Tables 2 (w_len, w_sup), 3 (length
#: ratios) and 4 (min_sup), the others held at :class:`FrespaSetting` defaults.
PAPER_SWEEPS: Mapping[str, tuple[float, ...]] = {
    "w_len": (0.0, 0.25, 0.5, 0.75, 1.0, 5.0, 10.0, 20.0, 50.0, 100.0),
    "w_sup": (0.0, 0.25, 0.5, 0.75, 1.0, 5.0, 10.0, 20.0, 50.0, 100.0),
    "max_len_ratio": (0.0, 0.25, 0.5, 0.75, 1.0),
    "min_len_ratio": (0.0, 0.25, 0.5, 0.75, 1.0),
    "min_sup": (0.0, 0.25, 0.5, 0.75, 1.0),
}

#: Default grid of :func:`tune` (its Cartesian product, 54 settings). The
#: paper's defaults come first in every list, so ties fall back to them.
TUNE_GRID: Mapping[str, tuple[float, ...]] = {
    "min_sup": (0.75, 0.5, 1.0),
    "w_len": (1.0, 0.0, 10.0),
    "w_sup": (1.0, 0.0, 10.0),
    "max_len_ratio": (1.0, 0.0),
}

# Two EDs closer than this are a tie in :func:`tune`.
_TIE = 1e-12
# Most cells of the rows x items x items pair arrays of RBA's averaged ties held at once.
_PAIR_CELLS = 1 << 22
# WCA weights summing to less than this in absolute value sum to 0 (rounding of
# exact rationals with denominators far below 1e12): WCA falls back to AC.
_ZERO_WEIGHT = 1e-12


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class NoiseRobustness:
    """ED as random orderings are added (KZH Table 1).

    Attributes
    ----------
    ratios : tuple of float
        Noise ratios r: ``round(r * n)`` random orderings were added to n golds.
    ed : tuple of float
        ED at each ratio, averaged over seeds (and topics).
    max_min : float
        ED at the smallest ratio minus ED at the largest (Table 1 "Max-Min",
        which section 5.4 calls the absolute degradation from the original
        data to the most noise; equal to max - min when ED falls monotonically).
    degradation_percent : float
        ``100 * max_min / ed[smallest ratio]`` (Table 1 "% Degradation",
        e.g. FreSPA 0.327 / 0.722 = 45.3%); NaN when that ED is 0.
    """

    ratios: tuple[float, ...]
    ed: tuple[float, ...]
    max_min: float
    degradation_percent: float


@dataclass(frozen=True)
class FrespaSetting:
    """FreSPA parameters with pattern lengths as ratios of the topic's k (KZH Table 3).

    A ratio r means length ``max(2, round(r * k))`` (half up): 0 is 2, 1 is k.
    Ratios carry over between topics with different numbers of items, so a
    tuned setting can be stored once per campaign; :meth:`params` gives the
    keyword arguments of :func:`frespa` for a topic of ``k`` items.
    """

    min_sup: float = 0.75
    w_len: float = 1.0
    w_sup: float = 1.0
    min_len_ratio: float = 0.0
    max_len_ratio: float = 1.0

    def __post_init__(self) -> None:
        for name in ("min_sup", "min_len_ratio", "max_len_ratio"):
            _unit_interval(name, getattr(self, name))
        for name in ("w_len", "w_sup"):
            _non_negative(name, getattr(self, name))

    def params(self, k: int) -> dict[str, float | int]:
        """Keyword arguments of :func:`frespa` for a topic of ``k`` items."""
        return {
            "min_sup": self.min_sup,
            "w_len": self.w_len,
            "w_sup": self.w_sup,
            "min_len": _length_from_ratio(self.min_len_ratio, k),
            "max_len": _length_from_ratio(self.max_len_ratio, k),
        }


@dataclass(frozen=True)
class SweepRow:
    """One row of a FreSPA parameter sweep: the parameter varied, its value, the setting and its ED."""

    parameter: str
    value: float
    setting: FrespaSetting
    ed: float


@dataclass(frozen=True)
class TunedFrespa:
    """The FreSPA setting with the best ED found by :func:`tune`, and that ED."""

    setting: FrespaSetting
    ed: float
    n_settings: int = field(default=0)


# --------------------------------------------------------------------------- two orderings


def kendall_tau(order_a: Ordering, order_b: Ordering) -> float:
    """Kendall's tau between two orderings of the same items (KZH section 4.1).

    ``tau = 1 - 2 S / (N (N - 1) / 2)`` with S the number of discordant pairs.

    Parameters
    ----------
    order_a, order_b : sequence of hashable
        The same N >= 2 items, each once.

    Returns
    -------
    float
        In [-1, 1]; 1 for identical orderings, -1 for reversed ones.

    Examples
    --------
    KZH's example: ABCD and ACDB disagree on BC and BD, so S = 2.

    >>> round(kendall_tau("ABCD", "ACDB"), 6)
    0.333333
    """
    topic = _reference(order_a, "order_a", min_items=2)
    other = _ranks(order_b, topic.index, "order_b", reference="order_a")
    return float(_correlations(other[None], topic.ranks, "tau")[0, 0])


def kendall_tau_matrix(orders: Sequence[Ordering]) -> FloatArray:
    """:func:`kendall_tau` of every two of ``orders`` (two or more orderings of the same
    items), bit for bit, from one rank matrix: the tau of two orderings counts
    concordant pairs of items, which does not depend on the order the items are
    listed in, so every ordering is ranked once (in the first one's item order)
    and every pair correlated at once instead of ranking both again per pair.

    >>> kendall_tau_matrix(["ABCD", "ACDB", "DCBA"])[0].round(6).tolist()
    [1.0, 0.333333, -1.0]
    """
    topic = _topic(orders, name="orders", min_golds=2, min_items=2)
    return _correlations(topic.ranks, topic.ranks, "tau")


def spearman_rho(order_a: Ordering, order_b: Ordering) -> float:
    """Spearman's rank correlation between two orderings (KZH section 4.1).

    ``rho = 1 - 6 sum_i (pi(i) - sigma(i))^2 / (N (N^2 - 1))``.

    Parameters
    ----------
    order_a, order_b : sequence of hashable
        The same N >= 2 items, each once.

    Returns
    -------
    float
        In [-1, 1].

    Examples
    --------
    >>> spearman_rho("ABCD", "ACDB")
    0.4
    """
    topic = _reference(order_a, "order_a", min_items=2)
    other = _ranks(order_b, topic.index, "order_b", reference="order_a")
    return float(_correlations(other[None], topic.ranks, "spearman")[0, 0])


# --------------------------------------------------------------------------- aggregations


def average_correlation(target: Ordering, golds: Golds, *, measure: Measure = "tau") -> float:
    """Average correlation AC: the mean correlation of ``target`` with each gold (KZH section 4.1).

    Parameters
    ----------
    target : sequence of hashable
        The ordering scored.
    golds : sequence of orderings
        The assessors' orderings of the same items (at least one).
    measure : {"tau", "spearman"}
        AC-tau or AC-Sp.

    Returns
    -------
    float
        In [-1, 1].

    Examples
    --------
    >>> round(average_correlation("ABCD", ["ABCD", "ACDB"]), 6)
    0.666667
    """
    topic = _topic(golds, min_items=2)
    return float(_ac_scores(topic.ranks_of(target, "target")[None], topic.ranks, measure=measure)[0])


def wca_weights(golds: Golds, *, measure: Measure = "tau", weights: WcaWeights = "paper") -> FloatArray:
    """Each gold's WCA weight: its mean correlation with the other golds (KZH section 4.2).

    ``w_i = 1 / (n - 1) sum_{j != i} C(O_i, O_j)``: with ``weights="paper"``
    (this function's default) the paper's raw weights, negative ones
    included; with ``weights="clamped"`` the weights :func:`weighted_correlation`
    uses by default: negative ones taken as 0, and all 1 when none is positive.

    Parameters
    ----------
    golds : sequence of orderings
        At least two.
    measure : {"tau", "spearman"}
    weights : {"paper", "clamped"}

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> wca_weights(["ABCD", "ABDC", "ACBD", "DCBA"]).round(4).tolist()
    [0.1111, 0.1111, 0.1111, -0.7778]
    >>> wca_weights(["ABCD", "ABDC", "ACBD", "DCBA"], weights="clamped").round(4).tolist()
    [0.1111, 0.1111, 0.1111, 0.0]
    """
    topic = _topic(golds, min_golds=2, min_items=2)
    raw = _raw_weights(topic.ranks, _measure(measure))
    if _wca_weights(weights) == "paper":
        return raw
    clamped = np.maximum(raw, 0.0)
    return clamped if clamped.sum() > 0.0 else np.ones_like(raw)


def weighted_correlation(
    target: Ordering, golds: Golds, *, measure: Measure = "tau", weights: WcaWeights = "clamped"
) -> float:
    """Weighted correlation aggregation WCA (KZH section 4.2).

    ``S = sum_i w_i C(O, O_i) / sum_i w_i`` with ``w_i`` the mean correlation
    of gold i with the other golds (:func:`wca_weights`).

    ``weights="clamped"`` (the default, Concord's convention): a negative
    weight is taken as 0, so a gold that disagrees with the others on
    average gets no say and the score stays in [-1, 1]; when no weight is
    positive every gold weighs the same and WCA is AC.

    ``weights="paper"``: the formula as the paper writes it, negative weights
    included. A gold that disagrees with the others then counts *against*
    agreeing with it, and the score can leave [-1, 1] (weights 1 and -0.9
    with correlations 1 and -1 give 19; see the examples). Where the formula
    is undefined, the weights summing to 0 (within 1e-12, for rounding), WCA is AC.

    Either way, with a single gold (its weight, a mean over no other gold,
    is undefined) WCA is AC.

    Parameters
    ----------
    target : sequence of hashable
    golds : sequence of orderings
        At least one.
    measure : {"tau", "spearman"}
        WCA-tau or WCA-Sp.
    weights : {"clamped", "paper"}

    Returns
    -------
    float
        In [-1, 1] with clamped weights; any real number with the paper's.

    Examples
    --------
    The reversed last gold has a negative weight and is ignored, leaving
    the mean of 1, 2/3 and 2/3:

    >>> round(weighted_correlation("ABCD", ["ABCD", "ABDC", "ACBD", "DCBA"]), 6)
    0.777778

    Four agreeing golds (weights 1/2 each) and their reverse (weight -1):
    the reverse of the four scores -1 clamped, and (4 x 1/2 x -1 + -1 x 1) / (2 - 1)
    with the paper's weights:

    >>> golds = ["ABCD"] * 4 + ["DCBA"]
    >>> weighted_correlation("DCBA", golds), weighted_correlation("DCBA", golds, weights="paper")
    (-1.0, -3.0)
    """
    topic = _topic(golds, min_items=2)
    scores = _wca_scores(topic.ranks_of(target, "target")[None], topic.ranks, measure=measure, weights=weights)
    return float(scores[0])


def rank_consensus(golds: Golds, *, tie_break: TieBreak = "first") -> list[Hashable]:
    """RBA's consensus ordering: items by the sum of their ranks over the golds (KZH section 4.3).

    Parameters
    ----------
    golds : sequence of orderings
        At least one.
    tie_break : {"first", "id"}
        Order of items whose summed ranks are equal: as in the first gold
        (``"first"``, always defined), or by item id (``"id"``, ids must be
        sortable).

    Returns
    -------
    list
        The items, best (lowest summed rank) first.

    Examples
    --------
    B and C tie (summed ranks 4 and 4); the first gold puts C first:

    >>> rank_consensus(["ACBD", "ABCD"])
    ['A', 'C', 'B', 'D']
    >>> rank_consensus(["ACBD", "ABCD"], tie_break="id")
    ['A', 'B', 'C', 'D']
    """
    topic = _topic(golds)
    consensus_ranks = _consensus_ranks(topic.ranks, _tie_key(topic, tie_break))
    return topic.ordering(consensus_ranks)


def rank_based(target: Ordering, golds: Golds, *, measure: Measure = "tau", tie_break: RbaTies = "average") -> float:
    """Rank-based aggregation RBA: the correlation of ``target`` with the rank consensus (KZH 4.3).

    The consensus orders items by their summed ranks over the golds. The
    paper does not say how to order items whose sums are equal; the default
    ``tie_break="average"`` takes the exact mean of the correlation over
    every consensus ordering that orders the tied items in any way (each
    equally likely), so the score never depends on the order in which the
    golds are listed. In closed form: Kendall's tau counts a pair tied in the
    consensus as 0 (``sum_{i<j} sign(t_i - t_j) sign(s_i - s_j) / (N (N - 1) / 2)``,
    s the summed ranks), and Spearman's rho uses each item's mid-rank in its
    tie group plus the group's variance ``(g^2 - 1) / 12`` in every squared
    difference. Without ties every option gives the same score.

    Parameters
    ----------
    target : sequence of hashable
    golds : sequence of orderings
        At least one.
    measure : {"tau", "spearman"}
        RBA-tau or RBA-Sp.
    tie_break : {"average", "first", "id"}
        ``"average"`` (default) as above; ``"first"`` (Concord's earlier
        default) or ``"id"``: the correlation with the single ordering
        :func:`rank_consensus` gives with that tie break (``"first"`` follows
        the first gold, so it depends on the golds' order).

    Returns
    -------
    float
        In [-1, 1].

    Examples
    --------
    B and C tie (summed ranks 3 and 3, 0-based); the mean over ACBD (tau 2/3)
    and ABCD (tau 1) is 5/6 whichever gold is listed first:

    >>> round(rank_based("ABCD", ["ACBD", "ABCD"]), 6), round(rank_based("ABCD", ["ABCD", "ACBD"]), 6)
    (0.833333, 0.833333)
    >>> round(rank_based("ABCD", ["ACBD", "ABCD"], tie_break="first"), 6)
    0.666667
    >>> rank_based("ACBD", ["ACBD", "ACBD"])
    1.0
    """
    topic = _topic(golds, min_items=2)
    scores = _rba_scores(
        topic.ranks_of(target, "target")[None], topic.ranks, measure=measure, ties=_rba_ties(topic, tie_break)
    )
    return float(scores[0])


def frespa(
    target: Ordering,
    golds: Golds,
    *,
    min_sup: float = 0.75,
    w_len: float = 1.0,
    w_sup: float = 1.0,
    min_len: int = 2,
    max_len: int | None = None,
) -> float:
    """Frequent sequential pattern aggregation FreSPA (KZH section 4.4), counted exactly.

    A pattern is a sequence of distinct items appearing in that order (gaps
    allowed) in a gold; its support ``sup`` is the number of golds containing
    it, and it is frequent when ``sup >= ceil(min_sup * n)`` (at least 1: a
    pattern must occur somewhere). P is the frequent patterns with
    ``min_len <= length <= max_len``. Each pattern weighs
    ``(1 + w_len (len - 1)) (1 + w_sup (sup - 1))``, ``sup`` a count (with a
    fraction, ``w_sup > 1`` would give negative weights, yet Table 2 sweeps it
    to 100), and

        FreSPA = weight of the patterns of P contained in target / weight of P.

    When P is empty (say ``min_len > max_len``, or no pattern that long is
    frequent) the score is 0.0: there is no agreed pattern for the target to
    reproduce, and this is what makes the paper's ED 0 in the last rows of
    Table 3. Patterns are counted by support and length with a dynamic
    programme over (last item, set of golds containing the chain), exact and
    polynomial in the number of items for a fixed number of golds (cost and
    accuracy in ``kinds.ordering._frespa``), never listed.

    Parameters
    ----------
    target : sequence of hashable
    golds : sequence of orderings
        At least one.
    min_sup : float in [0, 1]
        Read as the decimal written: ``ceil(0.7 * 10)`` is 7.
    w_len, w_sup : float >= 0
    min_len : int >= 1
        The paper uses lengths >= 2; 1 counts single items too.
    max_len : int >= 1 or None
        None (or anything above k) means k.

    Returns
    -------
    float
        In [0, 1].

    Examples
    --------
    With ``min_sup = 0.75`` a pattern must be in all three golds: AB, AC, AD,
    BD (weight 2 * 3 each) and ABD (weight 3 * 3). BACD keeps AC, AD and BD:

    >>> frespa("BACD", ["ABCD", "ABDC", "ACBD"])  # 18 / 33
    0.5454545454545454
    >>> frespa("DCBA", ["ABCD", "ABDC", "ACBD"])
    0.0
    """
    topic = _topic(golds)
    target_ranks = topic.ranks_of(target, "target")
    options = _frespa_options(min_sup, w_len, w_sup, min_len, max_len)
    return float(_frespa_scores(target_ranks[None], topic.ranks, **options)[0])


# --------------------------------------------------------------------------- discriminativeness


def discriminativeness(golds: Golds | Mapping[Any, Golds], score: str | Callable[..., float], **params: Any) -> float:
    """Evaluation discriminativeness ED (KZH section 5.2).

    ``ED = 1/n sum_i [S(O_i; the other golds) - S(reverse(O_i); the other golds)]``:
    each assessor's ordering, scored against the others, should beat its reverse.

    Parameters
    ----------
    golds : sequence of orderings, or mapping of topic -> orderings
        At least two orderings per topic. For a mapping, the ED is the mean of
        the topics' EDs (every topic counts the same).
    score : callable or str
        A callable ``score(target, golds, **params) -> float`` used as is,
        such as :func:`average_correlation` or :func:`frespa` (these run on a
        faster internal path with identical results). Or a name from
        :data:`METHODS` ("ac-tau", ..., "frespa"): the paper's Table 1 methods,
        with correlations rescaled to ``(x + 1) / 2`` as in section 5.2 so that
        EDs compare across methods; named correlation methods therefore have
        half the ED of the same callable.
    **params
        Keyword arguments of the score (e.g. ``min_sup`` for FreSPA).

    Returns
    -------
    float

    Examples
    --------
    Agreeing golds: AC-tau scores each gold 1 and its reverse -1.

    >>> discriminativeness(["ABCD", "ABCD", "ABCD"], average_correlation)
    2.0
    >>> discriminativeness(["ABCD", "ABCD", "ABCD"], "ac-tau")
    1.0
    """
    topics = _topics(golds, min_golds=2)
    method = _resolve(score, params)
    return float(np.mean([method.ed(topic, topic.ranks) for topic in topics]))


def discriminativeness_each(
    golds: Golds, scores: Sequence[tuple[str | Callable[..., float], Mapping[str, Any]]]
) -> list[float]:
    """:func:`discriminativeness` of one topic's ``golds`` under each ``(score, params)``,
    the golds read once for all of them (the same values, bit for bit).

    >>> discriminativeness_each(["ABCD", "ABCD", "ABDC"], [("ac-tau", {}), (average_correlation, {})])
    [0.7777777777777777, 1.5555555555555554]
    """
    topic = _topic(golds, min_golds=2)
    return [float(np.mean([_resolve(score, params).ed(topic, topic.ranks)])) for score, params in scores]


def scores_each(
    target: Ordering, golds: Golds, scores: Sequence[tuple[Callable[..., float], Mapping[str, Any]]]
) -> list[float]:
    """``score(target, golds, **params)`` of each ``(score, params)``, the target and the
    golds read once for the scores of this module (the same values, bit for bit); any
    other callable is called as it is.

    >>> golds = ["ABCD", "ABDC", "ACBD"]
    >>> each = scores_each("BACD", golds, [(average_correlation, {}), (frespa, {"min_sup": 1.0})])
    >>> each, each == [average_correlation("BACD", golds), frespa("BACD", golds, min_sup=1.0)]
    ([0.4444444444444444, 0.5454545454545454], True)
    """
    # the correlations need two items; FreSPA scores a single one
    topic = _topic(golds, min_items=1 if all(score is frespa for score, _ in scores) else 2)
    target_ranks = topic.ranks_of(target, "target")[None]
    values = []
    for score, params in scores:
        fast = _FAST.get(score)
        if fast is None:
            values.append(float(score(target, golds, **params)))
        else:
            values.append(float(fast(topic, target_ranks, topic.ranks, dict(params))[0]))
    return values


def noise_robustness(
    golds: Golds | Mapping[Any, Golds],
    score: str | Callable[..., float],
    *,
    ratios: Sequence[float] = (0, 0.25, 0.5, 0.75, 1),
    seeds: int | Iterable[int] = 10,
    progress: Progress | None = None,
    **params: Any,
) -> NoiseRobustness:
    """ED as random orderings are added to the golds (KZH section 5.4, Table 1).

    For each ratio r, ``round(r * n)`` (half up, r read as written)
    uniformly random orderings join the n golds of each topic and ED is
    recomputed over all of them, the random ones included as assessors. The
    paper does not say so, but Table 1 implies it: with n = 10.4 assessors
    and r = 1, scoring only the originals would leave AC-tau about
    (n - 1) / (2n - 1) = 0.47 of its clean ED (0.454 -> 0.22), while averaging
    in the random assessors, whose ED is about 0, gives half that again
    (0.11; Table 1: 0.113). ED is averaged over seeds; seed s draws the
    random orderings from ``numpy.random.default_rng(s)``, so a higher ratio
    extends the same noise.

    Parameters
    ----------
    golds : sequence of orderings, or mapping of topic -> orderings
    score : callable or str
        As in :func:`discriminativeness`.
    ratios : sequence of float >= 0
    seeds : int or iterable of int
        An int s means seeds ``0 .. s-1``.
    progress : callable, optional
        Called as ``progress(done, total)`` after each ED computed.
    **params
        Keyword arguments of the score.

    Returns
    -------
    NoiseRobustness

    Examples
    --------
    >>> golds = ["ABCDEF", "ABCDFE", "BACDEF", "ABDCEF"]
    >>> result = noise_robustness(golds, "rba-sp", ratios=(0, 1), seeds=3)
    >>> round(result.ed[0], 4), result.ed[1] < result.ed[0]
    (0.9571, True)
    """
    topics = _topics(golds, min_golds=2)
    ratio_values = _ratios(ratios)
    seed_values = _seeds(seeds)
    method = _resolve(score, params)
    total = len(ratio_values) * len(seed_values) * len(topics)
    done = 0
    eds = []
    clean: dict[int, float] = {}
    for ratio in ratio_values:
        per_seed = []
        for seed in seed_values:
            per_topic = []
            for t, topic in enumerate(topics):
                n_random = _round_half_up(Fraction(repr(ratio)) * topic.n)
                if n_random == 0:
                    if t not in clean:  # no noise: the same for every seed
                        clean[t] = method.ed(topic, topic.ranks)
                    per_topic.append(clean[t])
                else:
                    noisy = np.vstack([topic.ranks, _random_ranks(topic, n_random, seed)])
                    per_topic.append(method.ed(topic, noisy))
                done += 1
                if progress is not None:
                    progress(done, total)
            per_seed.append(np.mean(per_topic))
        eds.append(float(np.mean(per_seed)))
    max_min, percent = _degradation(ratio_values, eds)
    return NoiseRobustness(tuple(ratio_values), tuple(eds), max_min, percent)


# --------------------------------------------------------------------------- FreSPA sweeps


def frespa_sweep(
    golds: Golds | Mapping[Any, Golds],
    *,
    grid: Mapping[str, Sequence[float]] = PAPER_SWEEPS,
    base: FrespaSetting | None = None,
    progress: Progress | None = None,
) -> tuple[SweepRow, ...]:
    """FreSPA's ED as one parameter varies, the others held at ``base`` (KZH section 5.5, Tables 2-4).

    Parameters
    ----------
    golds : sequence of orderings, or mapping of topic -> orderings
        At least two orderings per topic; ED is the mean over topics.
    grid : mapping of parameter -> values
        Keys are :class:`FrespaSetting` fields; the default reproduces the
        paper's Tables 2, 3 and 4 (:data:`PAPER_SWEEPS`).
    base : FrespaSetting, optional
        The parameters not varied; default ``FrespaSetting()``, the paper's defaults.
    progress : callable, optional
        Called as ``progress(done, total)`` over held-out assessors.

    Returns
    -------
    tuple of SweepRow
        In grid order.

    Examples
    --------
    >>> rows = frespa_sweep(["ABCDE", "ABCED", "BACDE"], grid={"min_sup": (0.5, 1.0)})
    >>> [(row.value, round(row.ed, 4)) for row in rows]
    [(0.5, 0.5067), (1.0, 0.7021)]
    """
    topics = _topics(golds, min_golds=2)
    base = FrespaSetting() if base is None else base
    labelled = [(name, value, replace(base, **{name: value})) for name, value in _grid_items(grid)]
    eds = _frespa_eds(topics, [setting for _, _, setting in labelled], progress)
    return tuple(SweepRow(name, value, setting, ed) for (name, value, setting), ed in zip(labelled, eds))


def tune(
    golds: Golds | Mapping[Any, Golds],
    *,
    grid: Mapping[str, Sequence[float]] = TUNE_GRID,
    base: FrespaSetting | None = None,
    progress: Progress | None = None,
) -> TunedFrespa:
    """The FreSPA setting with the highest ED over the Cartesian product of ``grid`` (KZH section 5.2).

    Settings are tried in the order of ``itertools.product`` over the grid's
    keys and values; an ED within 1e-12 of the best so far is a tie and the
    earlier setting is kept, so list preferred values first (the default grid
    starts with the paper's defaults). Parameters not in ``grid`` come from
    ``base``.

    Parameters
    ----------
    golds : sequence of orderings, or mapping of topic -> orderings
    grid : mapping of parameter -> values
        Keys are :class:`FrespaSetting` fields.
    base : FrespaSetting, optional
        Default ``FrespaSetting()``, the paper's defaults.
    progress : callable, optional
        Called as ``progress(done, total)`` over held-out assessors.

    Returns
    -------
    TunedFrespa

    Examples
    --------
    >>> best = tune(["ABCDE", "ABCED", "BACDE"], grid={"min_sup": (0.5, 1.0)})
    >>> best.setting.min_sup, round(best.ed, 4)
    (1.0, 0.7021)
    """
    topics = _topics(golds, min_golds=2)
    base = FrespaSetting() if base is None else base
    names = list(grid)
    for name in names:
        _setting_field(name)
    settings = [replace(base, **dict(zip(names, values))) for values in itertools.product(*grid.values())]
    if not settings:
        raise ValueError("grid must give at least one value for every parameter")
    eds = _frespa_eds(topics, settings, progress)
    best = 0
    for i, ed in enumerate(eds):
        if ed > eds[best] + _TIE:
            best = i
    return TunedFrespa(settings[best], eds[best], len(settings))


# --------------------------------------------------------------------------- validation


@dataclass(frozen=True)
class _Topic:
    """Validated orderings of one topic as ranks: ``ranks[g, x]`` is item x's position in ordering g."""

    items: tuple[Hashable, ...]
    index: Mapping[Hashable, int]
    ranks: IntArray

    @property
    def n(self) -> int:
        return self.ranks.shape[0]

    @property
    def k(self) -> int:
        return self.ranks.shape[1]

    def ranks_of(self, ordering: Ordering, name: str) -> IntArray:
        return _ranks(ordering, self.index, name, reference="golds")

    def ordering(self, ranks: IntArray) -> list[Hashable]:
        return [self.items[x] for x in np.argsort(ranks, kind="stable")]


def _topic(golds: Golds, *, name: str = "golds", min_golds: int = 1, min_items: int = 1) -> _Topic:
    if isinstance(golds, (str, bytes)) or not isinstance(golds, Sequence | np.ndarray):
        raise ValueError(f"{name} must be a sequence of orderings, got {type(golds).__name__}")
    if len(golds) < min_golds:
        raise ValueError(f"{name} must hold at least {min_golds} ordering(s), got {len(golds)}")
    topic = _reference(golds[0], f"{name}[0]", min_items)
    ranks = np.stack([_ranks(g, topic.index, f"{name}[{i}]", reference=f"{name}[0]") for i, g in enumerate(golds)])
    return replace(topic, ranks=ranks)


def _reference(ordering: Ordering, name: str, min_items: int) -> _Topic:
    """The topic's items, in the order of its first ordering, which defines item indices."""
    first = _as_list(ordering, name)
    index: dict[Hashable, int] = {}
    for item in first:
        index.setdefault(item, len(index))
    if len(index) != len(first):
        raise ValueError(f"{name} repeats item ids {_repeated(first)!r}")
    if len(first) < min_items:
        raise ValueError(f"{name} must hold at least {min_items} items, got {len(first)}")
    return _Topic(tuple(first), index, np.arange(len(first))[None])


def _topics(golds: Golds | Mapping[Any, Golds], *, min_golds: int) -> list[_Topic]:
    if isinstance(golds, Mapping):
        if not golds:
            raise ValueError("golds must hold at least one topic")
        return [_topic(g, name=f"golds[{key!r}]", min_golds=min_golds) for key, g in golds.items()]
    return [_topic(golds, min_golds=min_golds)]


def _as_list(ordering: Ordering, name: str) -> list[Hashable]:
    if isinstance(ordering, Mapping) or not isinstance(ordering, Sequence | np.ndarray):
        raise ValueError(f"{name} must be a sequence of item ids, got {type(ordering).__name__}")
    values = ordering.tolist() if isinstance(ordering, np.ndarray) else list(ordering)
    for value in values:
        if not isinstance(value, Hashable):
            raise ValueError(f"{name} holds an unhashable item id {value!r}")
    return values


def _ranks(ordering: Ordering, index: Mapping[Hashable, int], name: str, *, reference: str) -> IntArray:
    values = _as_list(ordering, name)
    codes = np.fromiter((index.get(value, -1) for value in values), dtype=np.intp, count=len(values))
    unknown = [value for value, code in zip(values, codes) if code < 0]
    if unknown:
        raise ValueError(f"{name} has item ids not in {reference}: {unknown[:10]!r}")
    seen = np.bincount(codes, minlength=len(index))
    if (seen > 1).any():
        raise ValueError(f"{name} repeats item ids {_repeated(values)!r}")
    if (seen == 0).any():
        items = list(index)
        missing = [items[x] for x in np.flatnonzero(seen == 0)[:10]]
        raise ValueError(f"{name} is missing item ids of {reference}: {missing!r}")
    ranks = np.empty(len(index), dtype=np.intp)
    ranks[codes] = np.arange(len(values))
    return ranks


def _repeated(values: list[Hashable]) -> list[Hashable]:
    seen: set[Hashable] = set()
    repeated: list[Hashable] = []
    for value in values:
        if value in seen and value not in repeated:
            repeated.append(value)
        seen.add(value)
    return repeated[:10]


def _measure(measure: str) -> Measure:
    if measure not in ("tau", "spearman"):
        raise ValueError(f"measure must be 'tau' or 'spearman', got {measure!r}")
    return measure  # type: ignore[return-value]


def _unit_interval(name: str, value: float) -> float:
    if not isinstance(value, (int, float, np.number)) or not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    return float(value)


def _non_negative(name: str, value: float) -> float:
    if not isinstance(value, (int, float, np.number)) or not 0.0 <= float(value) < np.inf:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)


def _length(name: str, value: int | None) -> int | None:
    if value is None and name == "max_len":
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1{' or None' if name == 'max_len' else ''}, got {value!r}")
    return int(value)


def _frespa_options(min_sup, w_len, w_sup, min_len, max_len) -> dict[str, Any]:
    return {
        "min_sup": _unit_interval("min_sup", min_sup),
        "w_len": _non_negative("w_len", w_len),
        "w_sup": _non_negative("w_sup", w_sup),
        "min_len": _length("min_len", min_len),
        "max_len": _length("max_len", max_len),
    }


def _wca_weights(weights: str) -> WcaWeights:
    if weights not in WCA_WEIGHTS:
        raise ValueError(f"weights must be 'clamped' or 'paper', got {weights!r}")
    return weights  # type: ignore[return-value]


def _rba_ties(topic: _Topic, tie_break: str) -> IntArray | None:
    """RBA's tie handling: None averages over the tied orders, else the key of :func:`_tie_key`."""
    if tie_break == "average":
        return None
    if tie_break not in ("first", "id"):
        raise ValueError(f"tie_break must be 'average', 'first' or 'id', got {tie_break!r}")
    return _tie_key(topic, tie_break)


def _tie_key(topic: _Topic, tie_break: str) -> IntArray:
    """Per item, the key that orders items with equal summed ranks."""
    if tie_break == "first":
        return topic.ranks[0]
    if tie_break == "id":
        try:
            by_id = sorted(range(topic.k), key=topic.items.__getitem__)
        except TypeError as error:
            raise ValueError(f"tie_break='id' needs sortable item ids ({error})") from None
        key = np.empty(topic.k, dtype=np.intp)
        key[by_id] = np.arange(topic.k)
        return key
    raise ValueError(f"tie_break must be 'first' or 'id', got {tie_break!r}")


# --------------------------------------------------------------------------- scores on ranks


def _correlations(targets: IntArray, golds: IntArray, measure: Measure) -> FloatArray:
    """``(targets, golds)`` correlations of rank rows (permutations: no ties)."""
    if measure == "tau":
        return rank.kendall_tau_b(targets, golds)
    return _spearman_permutations(targets, golds)


def _spearman_permutations(targets: IntArray, golds: IntArray) -> FloatArray:
    """:func:`stats.rank.spearman_rho` of rows that are permutations of
    ``0 .. k-1``, bit for bit, without ranking them again: a permutation's average
    ranks are itself plus 1, so its centred ranks are ``row - (k - 1) / 2`` (exact
    halves), every row's sum of squares is the same, and the sums below are the ones
    ``rank.spearman_rho`` adds up, in the same order."""
    k = targets.shape[1]
    centre = (k - 1) / 2
    rx = targets.astype(np.float64) - centre
    ry = golds.astype(np.float64) - centre
    covariance = rx @ ry.T
    variance = (rx * rx).sum(axis=1)
    out = np.full(covariance.shape, np.nan)
    np.divide(covariance, variance[:, None], out=out, where=variance[:, None] > 0)
    return np.clip(out, -1.0, 1.0)


def _raw_weights(golds: IntArray, measure: Measure) -> FloatArray:
    n = len(golds)
    pairwise = _correlations(golds, golds, measure)
    return (pairwise.sum(axis=1) - np.diag(pairwise)) / (n - 1)


def _ac_scores(targets: IntArray, golds: IntArray, *, measure: Measure = "tau") -> FloatArray:
    return _correlations(targets, golds, _measure(measure)).mean(axis=1)


def _wca_scores(
    targets: IntArray, golds: IntArray, *, measure: Measure = "tau", weights: WcaWeights = "clamped"
) -> FloatArray:
    measure = _measure(measure)
    paper = _wca_weights(weights) == "paper"
    correlations = _correlations(targets, golds, measure)
    if len(golds) == 1:
        return correlations.mean(axis=1)
    raw = _raw_weights(golds, measure)
    used = raw if paper else np.maximum(raw, 0.0)
    total = used.sum()
    if abs(total) < _ZERO_WEIGHT:  # a sum of 0 up to rounding: the paper's formula is undefined
        return correlations.mean(axis=1)
    return correlations @ used / total


def _consensus_ranks(golds: IntArray, tie_key: IntArray) -> IntArray:
    order = np.lexsort((tie_key, golds.sum(axis=0)))
    ranks = np.empty_like(order)
    ranks[order] = np.arange(len(order))
    return ranks


def _rba_scores(
    targets: IntArray, golds: IntArray, *, measure: Measure = "tau", ties: IntArray | None = None
) -> FloatArray:
    """RBA of each target row; ``ties`` a tie-break key, or None for the mean over the tied orders."""
    measure = _measure(measure)
    if ties is not None:
        return _correlations(targets, _consensus_ranks(golds, ties)[None], measure)[:, 0]
    return _rba_average(targets, golds.sum(axis=0)[None], measure)


def _rba_average(targets: IntArray, sums: IntArray, measure: Measure) -> FloatArray:
    """RBA with the mean over the tied consensus orders of each target row against the
    consensus of summed ranks ``sums`` (one row for every target, or a row per target),
    a block of rows at a time (their pair arrays are rows x items x items)."""
    k = targets.shape[1]
    block = max(1, _PAIR_CELLS // (k * k))
    if len(sums) == 1:
        sums = np.broadcast_to(sums, targets.shape)
    scores = [
        _rba_average_block(targets[lo : lo + block], sums[lo : lo + block], measure)
        for lo in range(0, len(targets), block)
    ]
    return np.concatenate(scores) if scores else np.zeros(0)


def _rba_average_block(targets: IntArray, sums: IntArray, measure: Measure) -> FloatArray:
    k = targets.shape[1]
    if measure == "tau":
        # A pair tied in the consensus is concordant in half the tied orders: it counts 0.
        consensus_sign = np.sign(sums[:, :, None] - sums[:, None, :])
        target_sign = np.sign(targets[:, :, None] - targets[:, None, :])
        return (target_sign * consensus_sign).sum(axis=(1, 2)) / (k * (k - 1))
    # E[(t - R)^2] over R uniform on a tie group's g positions: (t - mid-rank)^2 + (g^2 - 1) / 12,
    # the mid-rank being the items summing less plus (g - 1) / 2.
    below = (sums[:, None, :] < sums[:, :, None]).sum(axis=2)
    size = (sums[:, None, :] == sums[:, :, None]).sum(axis=2)
    mid_rank = below + (size - 1) / 2
    variance = (size.astype(float) ** 2 - 1) / 12
    squared = ((targets - mid_rank) ** 2 + variance).sum(axis=1)
    return 1.0 - 6.0 * squared / (k * (k * k - 1))


def _frespa_scores(
    targets: IntArray,
    golds: IntArray,
    *,
    min_sup: float = 0.75,
    w_len: float = 1.0,
    w_sup: float = 1.0,
    min_len: int = 2,
    max_len: int | None = None,
) -> FloatArray:
    k = golds.shape[1]
    longest = k if max_len is None else min(max_len, k)
    if min_len > longest:
        return np.zeros(len(targets))
    counts = _frespa.count_patterns(targets, golds, threshold=support_threshold(min_sup, len(golds)), max_len=longest)
    return np.array(
        [
            _frespa.weighted_score(counts, target=t, w_len=w_len, w_sup=w_sup, min_len=min_len, max_len=longest)
            for t in range(len(targets))
        ]
    )


# --------------------------------------------------------------------------- ED machinery


@dataclass(frozen=True)
class _Method:
    """A score as used by ED: fast on ranks when it is one of ours, else called on item ids."""

    function: Callable[..., float]
    params: Mapping[str, Any]
    scale: float = 1.0

    def ed(self, topic: _Topic, golds: IntArray) -> float:
        """ED over the rows of ``golds`` (ranks of ``topic``'s items), each held out in turn:
        from leave-one-out sums over all the golds at once for the scores of this module
        (:data:`_HELD_OUT`), else by scoring each held-out ordering and its reverse."""
        held_out = _HELD_OUT.get(self.function)
        if held_out is not None:
            differences = held_out(topic, golds, dict(self.params))
        else:
            differences = [self._good_minus_bad(topic, golds, i) for i in range(len(golds))]
        return float(np.mean(differences)) * self.scale

    def _good_minus_bad(self, topic: _Topic, golds: IntArray, held_out: int) -> float:
        good = golds[held_out]
        bad = topic.k - 1 - good
        others = np.delete(golds, held_out, axis=0)
        fast = _FAST.get(self.function)
        if fast is not None:
            scores = fast(topic, np.stack([good, bad]), others, dict(self.params))
            return float(scores[0] - scores[1])
        other_orderings = [topic.ordering(row) for row in others]
        good_score = self.function(topic.ordering(good), other_orderings, **self.params)
        bad_score = self.function(topic.ordering(bad), other_orderings, **self.params)
        return float(good_score) - float(bad_score)


def _fast_frespa(topic: _Topic, targets: IntArray, golds: IntArray, params: dict[str, Any]) -> FloatArray:
    options = _frespa_options(**{**_FRESPA_DEFAULTS, **_known(params, _FRESPA_DEFAULTS)})
    return _frespa_scores(targets, golds, **options)


def _fast_rba(topic: _Topic, targets: IntArray, golds: IntArray, params: dict[str, Any]) -> FloatArray:
    params = _known(params, {"measure": None, "tie_break": None})
    tie_break = params.pop("tie_break", "average")
    sub_topic = _Topic(topic.items, topic.index, golds)
    return _rba_scores(targets, golds, ties=_rba_ties(sub_topic, tie_break), **params)


# Leave-one-out: each gold g_i and its reverse scored against the golds but g_i, for every i
# at once. The correlations of every two golds are computed once; those of a reverse are
# the gold's negated exactly (the pair signs flip; the centred ranks flip), and a score
# against the golds but g_i is a sum over the golds less g_i's term.


def _held_out_ac(topic: _Topic, golds: IntArray, params: dict[str, Any]) -> FloatArray:
    """AC of each held-out gold less AC of its reverse: twice its mean correlation with the others."""
    measure = _measure(_known(params, {"measure": None}).get("measure", "tau"))
    against, _ = _others(golds, measure)
    return 2 * (against.sum(axis=1) / (len(golds) - 1))


def _held_out_wca(topic: _Topic, golds: IntArray, params: dict[str, Any]) -> FloatArray:
    """WCA of each held-out gold less WCA of its reverse (twice its WCA).

    Gold j's weight among the golds but g_i is its mean correlation with the golds but
    g_i and itself: ``(sum_{l != j} C_jl - C_ji) / (n - 2)``."""
    params = _known(params, {"measure": None, "weights": None})
    measure = _measure(params.get("measure", "tau"))
    paper = _wca_weights(params.get("weights", "clamped")) == "paper"
    against, pairwise = _others(golds, measure)
    n = len(golds)
    ac = against.sum(axis=1) / (n - 1)
    if n == 2:  # one other gold: its weight is undefined and WCA is AC
        return 2 * ac
    raw = (against.sum(axis=1)[None, :] - pairwise.T) / (n - 2)
    used = raw if paper else np.maximum(raw, 0.0)
    used[np.eye(n, dtype=bool)] = 0.0  # g_i weighs nothing against itself: it is held out
    total = used.sum(axis=1)
    weighted = np.divide((against * used).sum(axis=1), total, out=np.zeros(n), where=total != 0.0)
    # weights summing to 0 (up to rounding): the paper's formula is undefined, WCA is AC
    return 2 * np.where(np.abs(total) < _ZERO_WEIGHT, ac, weighted)


def _held_out_rba(topic: _Topic, golds: IntArray, params: dict[str, Any]) -> FloatArray:
    """RBA of each held-out gold less RBA of its reverse, each against the consensus of the others."""
    params = _known(params, {"measure": None, "tie_break": None})
    measure = _measure(params.get("measure", "tau"))
    tie_break = params.get("tie_break", "average")
    n, k = golds.shape
    sums = golds.sum(axis=0)[None, :] - golds  # the others' summed ranks, per held-out gold
    reverse = k - 1 - golds
    if tie_break == "average":
        return _rba_average(golds, sums, measure) - _rba_average(reverse, sums, measure)
    if tie_break == "first":  # the first of the others: the second gold when the first is held out
        keys = np.broadcast_to(golds[0], golds.shape).copy()
        keys[0] = golds[1]
    else:
        keys = np.broadcast_to(_rba_ties(topic, tie_break), golds.shape)
    # each row's consensus: items by summed ranks, then by key (a permutation: no two items tie)
    order = np.argsort(sums * k + keys, axis=1, kind="stable")
    consensus = np.empty_like(order)
    np.put_along_axis(consensus, order, np.arange(k)[None, :], axis=1)
    return np.diagonal(_correlations(golds, consensus, measure)) - np.diagonal(
        _correlations(reverse, consensus, measure)
    )


def _held_out_frespa(topic: _Topic, golds: IntArray, params: dict[str, Any]) -> FloatArray:
    """FreSPA of each held-out gold less FreSPA of its reverse, from one count of the patterns
    of all the golds (``_frespa.held_out_counts``)."""
    options = _frespa_options(**{**_FRESPA_DEFAULTS, **_known(params, _FRESPA_DEFAULTS)})
    n, k = golds.shape
    longest = k if options["max_len"] is None else min(options["max_len"], k)
    if options["min_len"] > longest:
        return np.zeros(n)
    threshold = support_threshold(options["min_sup"], n - 1)
    counts = _frespa.held_out_counts(golds, threshold=threshold, max_len=longest)
    weights = {"w_len": options["w_len"], "w_sup": options["w_sup"]}
    scores = _frespa.weighted_scores(counts, **weights, min_len=options["min_len"], max_len=longest)
    return scores[:, 0] - scores[:, 1]


def _others(golds: IntArray, measure: Measure) -> tuple[FloatArray, FloatArray]:
    """The correlations of every two golds with the diagonal set to 0 (row i: g_i against the
    others), and as computed."""
    pairwise = _correlations(golds, golds, measure)
    return np.where(np.eye(len(golds), dtype=bool), 0.0, pairwise), pairwise


def _known(params: dict[str, Any], allowed: Mapping[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise TypeError(f"unexpected score parameters {unknown}")
    return dict(params)


_FRESPA_DEFAULTS = {"min_sup": 0.75, "w_len": 1.0, "w_sup": 1.0, "min_len": 2, "max_len": None}

_FAST: dict[Callable[..., float], Callable[..., FloatArray]] = {
    average_correlation: lambda topic, t, g, p: _ac_scores(t, g, **_known(p, {"measure": None})),
    weighted_correlation: lambda topic, t, g, p: _wca_scores(t, g, **_known(p, {"measure": None, "weights": None})),
    rank_based: _fast_rba,
    frespa: _fast_frespa,
}

_HELD_OUT: dict[Callable[..., float], Callable[[_Topic, IntArray, dict[str, Any]], FloatArray]] = {
    average_correlation: _held_out_ac,
    weighted_correlation: _held_out_wca,
    rank_based: _held_out_rba,
    frespa: _held_out_frespa,
}

_NAMED: dict[str, tuple[Callable[..., float], dict[str, Any]]] = {
    "ac-tau": (average_correlation, {"measure": "tau"}),
    "ac-sp": (average_correlation, {"measure": "spearman"}),
    "wca-tau": (weighted_correlation, {"measure": "tau"}),
    "wca-sp": (weighted_correlation, {"measure": "spearman"}),
    "rba-tau": (rank_based, {"measure": "tau"}),
    "rba-sp": (rank_based, {"measure": "spearman"}),
    "frespa": (frespa, {}),
}


def _resolve(score: str | Callable[..., float], params: Mapping[str, Any]) -> _Method:
    if isinstance(score, str):
        key = score.strip().lower().replace("_", "-")
        if key not in _NAMED:
            raise ValueError(f"score must be a callable or one of {list(METHODS)}, got {score!r}")
        function, fixed = _NAMED[key]
        clash = sorted(set(fixed) & set(params))
        if clash:
            raise ValueError(f"score {score!r} fixes {clash}; pass the function instead to choose them")
        # Section 5.2 rescales correlations to (x + 1) / 2, which halves a difference.
        return _Method(function, {**fixed, **params}, 1.0 if function is frespa else 0.5)
    if not callable(score):
        raise ValueError(f"score must be a callable or one of {list(METHODS)}, got {type(score).__name__}")
    return _Method(score, dict(params))


def _random_ranks(topic: _Topic, count: int, seed: int) -> IntArray:
    rng = np.random.default_rng(seed)
    return np.stack([rng.permutation(topic.k) for _ in range(count)]) if count else np.empty((0, topic.k), np.intp)


def _round_half_up(value: float | Fraction) -> int:
    return math.floor(value + Fraction(1, 2))


def _ratios(ratios: Sequence[float]) -> list[float]:
    values = list(ratios)
    if not values:
        raise ValueError("ratios must hold at least one noise ratio")
    for value in values:
        if not isinstance(value, (int, float, np.number)) or not 0.0 <= float(value) < np.inf:
            raise ValueError(f"ratios must be finite numbers >= 0, got {value!r}")
    return [float(v) for v in values]


def _seeds(seeds: int | Iterable[int]) -> list[int]:
    if isinstance(seeds, (int, np.integer)) and not isinstance(seeds, bool):
        if seeds < 1:
            raise ValueError(f"seeds must be a positive count or a list of seeds, got {seeds!r}")
        return list(range(int(seeds)))
    values = [int(s) for s in seeds]
    if not values:
        raise ValueError("seeds must hold at least one seed")
    return values


def _degradation(ratios: Sequence[float], eds: Sequence[float]) -> tuple[float, float]:
    """Table 1's last rows: ED lost from the least to the most noise, absolute and in percent."""
    least, most = int(np.argmin(ratios)), int(np.argmax(ratios))
    absolute = float(eds[least] - eds[most])
    percent = 100.0 * absolute / eds[least] if eds[least] != 0 else float("nan")
    return absolute, float(percent)


def _length_from_ratio(ratio: float, k: int) -> int:
    return max(2, _round_half_up(Fraction(repr(float(ratio))) * k))


def _setting_field(name: str) -> str:
    names = [f.name for f in fields(FrespaSetting)]
    if name not in names:
        raise ValueError(f"grid keys must be among {names}, got {name!r}")
    return name


def _grid_items(grid: Mapping[str, Sequence[float]]) -> list[tuple[str, float]]:
    return [(_setting_field(name), value) for name, values in grid.items() for value in values]


def _frespa_eds(topics: list[_Topic], settings: list[FrespaSetting], progress: Progress | None) -> list[float]:
    """ED of every setting, counting patterns once per held-out assessor and support threshold.

    Only ``min_sup`` changes which patterns are frequent; lengths and weights
    only reweight the counts, so each count serves every setting sharing it.
    """
    by_min_sup: dict[float, list[int]] = {}
    for index, setting in enumerate(settings):
        by_min_sup.setdefault(setting.min_sup, []).append(index)
    totals = np.zeros((len(topics), len(settings)))
    work = sum(topic.n for topic in topics)
    done = 0
    for t, topic in enumerate(topics):
        for held_out in range(topic.n):
            good = topic.ranks[held_out]
            targets = np.stack([good, topic.k - 1 - good])
            others = np.delete(topic.ranks, held_out, axis=0)
            for min_sup, members in by_min_sup.items():
                counts = _frespa.count_patterns(
                    targets, others, threshold=support_threshold(min_sup, len(others)), max_len=topic.k
                )
                for index in members:
                    params = settings[index].params(topic.k)
                    lengths = {"min_len": params["min_len"], "max_len": min(params["max_len"], topic.k)}
                    weights = {"w_len": params["w_len"], "w_sup": params["w_sup"]}
                    good_score = _frespa.weighted_score(counts, target=0, **weights, **lengths)
                    bad_score = _frespa.weighted_score(counts, target=1, **weights, **lengths)
                    totals[t, index] += good_score - bad_score
            done += 1
            if progress is not None:
                progress(done, work)
    per_topic = totals / np.array([topic.n for topic in topics])[:, None]
    return [float(ed) for ed in per_topic.mean(axis=0)]
