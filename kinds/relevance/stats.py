"""Graded relevance judgments: assessor agreement, consensus qrels, ranking stability.

Source: Ellen M. Voorhees (2000), "Variations in relevance judgments and the
measurement of retrieval effectiveness", Information Processing & Management
36(5), 697-716: the overlap of two assessors' relevant document sets (size of
the intersection over size of the union), and Kendall's tau between the
rankings of the same systems evaluated under different sets of judgments
(with the number of swapped system pairs). The same stability analysis is
Lin & Demner-Fushman (2006), Tables 3-4 (see :mod:`kinds.nuggets.stats`).
Chance-corrected agreement on the grades themselves: Cohen's kappa (with
linear and quadratic weights for an ordinal scale) and Krippendorff's alpha
(ordinal and interval), both from :mod:`stats.agreement`.

Campaign layout
---------------
Like :mod:`kinds.nuggets.stats`, the functions take a *flat document
axis*: every (topic, pooled document) pair is one position ``n`` of an axis
of length ``N``, and ``topic_index[n]`` (``0 .. T-1``) says which topic it
belongs to, in any order. Pools differ in size from topic to topic, so a
dense (topics x documents x assessors) array would be mostly padding; the
flat axis is also exactly the coders x units layout of Krippendorff's alpha.
With ``A`` assessors:

``grades``  ``(A, N)`` float: the grade assessor ``a`` gave document ``n``,
            a non-negative whole number on an ordinal scale (TREC's 0-3:
            non-relevant, related, relevant, highly relevant); ``NaN`` (or
            ``None``) where ``a`` did not judge ``n``.

Relevant means ``grade >= threshold`` (default 1, trec_eval's default
relevance level). Pairwise figures use only the documents both assessors
judged. System scores under each set of judgments are computed by an IR
evaluation library (:mod:`stats.ireval`), not here: this module takes
their (qrels sets x systems) means.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from stats import agreement, rank

__all__ = [
    "GradeAlpha",
    "Overlap",
    "PairwiseKappa",
    "RankingStability",
    "consensus_grades",
    "grade_alpha",
    "pairwise_kappa",
    "ranking_stability",
    "relevant_overlap",
]

# Cells of the pair-sign arrays built at once (as in rank.py): systems are
# taken a block at a time so memory stays bounded for many systems.
_SIGN_CELLS = 1 << 22


@dataclass(frozen=True)
class PairwiseKappa:
    """Cohen's kappa of every pair of assessors over the documents both judged.

    Attributes
    ----------
    unweighted, linear, quadratic : ndarray, shape (A, A)
        Symmetric; NaN where a pair shares no document or kappa is 0/0 (one
        grade used by both). The diagonal is an assessor against itself: 1
        unless that assessor used a single grade.
    n_common : ndarray of int, shape (A, A)
        Documents judged by both (the diagonal: by the assessor).
    scale : ndarray, shape (n_grades,)
        The grades whose positions the weights measure.
    """

    unweighted: np.ndarray
    linear: np.ndarray
    quadratic: np.ndarray
    n_common: np.ndarray
    scale: np.ndarray


@dataclass(frozen=True)
class Overlap:
    """Voorhees' overlap of relevant document sets, per topic and over topics.

    For assessors ``a`` and ``b`` on topic ``t``, over the documents both
    judged: ``|R_a & R_b| / |R_a | R_b|``. Over topics it is reported both
    ways: ``mean`` averages the per-topic overlaps (each topic counts the
    same; topics where neither assessor found a relevant document, 0/0, are
    left out), ``pooled`` divides the summed intersections by the summed
    unions (each relevant document counts the same, so topics with large
    relevant sets weigh more). The ``group_*`` fields are the same for all
    assessors at once (intersection of every relevant set over their union),
    over the documents every assessor judged.

    Attributes
    ----------
    per_topic : ndarray, shape (T, A, A)
        NaN where the union is empty.
    intersection, union : ndarray of int, shape (T, A, A)
    mean, pooled : ndarray, shape (A, A)
        NaN where no topic has a non-empty union.
    group_per_topic : ndarray, shape (T,)
    group_intersection, group_union : ndarray, shape (T,)
        Per topic, the documents relevant to every assessor and to any of them
        (among the documents every assessor judged): ``group_pooled`` is their
        sums' ratio.
    group_mean, group_pooled : float
    threshold : float
        Relevant means ``grade >= threshold``.
    """

    per_topic: np.ndarray
    intersection: np.ndarray
    union: np.ndarray
    mean: np.ndarray
    pooled: np.ndarray
    group_per_topic: np.ndarray
    group_intersection: np.ndarray
    group_union: np.ndarray
    group_mean: float
    group_pooled: float
    threshold: float


@dataclass(frozen=True)
class GradeAlpha:
    """Krippendorff's alpha of the grades over the whole campaign.

    Attributes
    ----------
    ordinal : float
        Uses only the order of the grades and how often each is used.
    interval : float
        Treats the grades as equally spaced numbers.
    """

    ordinal: float
    interval: float


@dataclass(frozen=True)
class RankingStability:
    """How far the system rankings under different qrels sets agree.

    Attributes
    ----------
    tau : ndarray, shape (K, K)
        Kendall's tau-b between the system rankings under every pair of
        qrels sets; 1 on the diagonal, NaN where a ranking is all ties.
    swaps : ndarray of int, shape (K, K)
        System pairs ordered one way under one set and the other way under
        the other (pairs tied under either set are not swaps).
    n_pairs : int
        System pairs, ``S (S - 1) / 2``.
    """

    tau: np.ndarray
    swaps: np.ndarray
    n_pairs: int


# --------------------------------------------------------------------------
# Validation at the boundary
# --------------------------------------------------------------------------


def _grades(value: ArrayLike) -> np.ndarray:
    try:
        grades = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("grades must hold numbers, NaN or None where not judged") from None
    if grades.ndim != 2:
        raise ValueError(f"grades must be 2-D with shape (n_assessors, n_documents), got shape {grades.shape}")
    judged = grades[~np.isnan(grades)]
    if np.any(np.isinf(judged)) or np.any(judged < 0) or np.any(judged != np.floor(judged)):
        raise ValueError("grades must be non-negative whole numbers (NaN where not judged)")
    return grades


def _threshold(value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"threshold must be a number, got {value!r}")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"threshold must be a positive finite number (relevant: grade >= threshold), got {value!r}")
    return float(value)


def _topic_index(value: ArrayLike | None, n_documents: int, n_topics: int | None) -> tuple[np.ndarray, int]:
    if value is None:
        index = np.zeros(n_documents, dtype=np.intp)
    else:
        index = np.asarray(value)
        if index.ndim != 1 or index.shape[0] != n_documents:
            raise ValueError(
                f"topic_index must be 1-D with one entry per document ({n_documents}), got shape {index.shape}"
            )
        if index.size and (not np.issubdtype(index.dtype, np.integer) or index.min() < 0):
            raise ValueError("topic_index must hold non-negative integers")
        index = index.astype(np.intp)
    needed = int(index.max(initial=-1)) + 1 if value is not None else 1
    if n_topics is None:
        return index, needed
    if isinstance(n_topics, bool) or not isinstance(n_topics, (int, np.integer)) or n_topics < needed:
        raise ValueError(f"n_topics must be an integer >= {needed} (largest topic_index + 1), got {n_topics!r}")
    return index, int(n_topics)


def _scale(value: ArrayLike | None, grades: np.ndarray) -> np.ndarray:
    used = np.unique(grades[~np.isnan(grades)])
    if value is None:
        return used
    try:
        scale = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("scale must hold numbers") from None
    if scale.ndim != 1 or scale.size == 0 or not np.all(np.isfinite(scale)):
        raise ValueError(f"scale must be a non-empty 1-D array of finite grades, got {value!r}")
    if np.unique(scale).size != scale.size:
        raise ValueError("scale must not hold duplicates")
    missing = np.setdiff1d(used, scale)
    if missing.size:
        raise ValueError(f"grades holds values missing from scale: {missing[:5].tolist()}")
    return scale


# --------------------------------------------------------------------------
# Agreement
# --------------------------------------------------------------------------


def pairwise_kappa(grades: ArrayLike, *, scale: ArrayLike | None = None) -> PairwiseKappa:
    r"""Cohen's kappa, unweighted, linear and quadratic, of every pair of assessors.

    Each pair is compared over the documents both judged, pooled over
    topics; weights measure disagreement by the distance between the
    positions of the two grades in ``scale``: :math:`[i \ne j]`,
    :math:`|i - j|`, :math:`(i - j)^2` (Cohen 1960, 1968; every pair's
    confusion matrix from one encoding of the grades,
    :func:`stats.agreement.pair_confusions`, and its kappa as
    :func:`stats.agreement.cohen_kappa` computes it, equal to
    ``sklearn.metrics.cohen_kappa_score(a, b, labels=scale, weights=...)``).

    Parameters
    ----------
    grades : array_like, shape (A, N)
        See the module docstring; NaN where not judged.
    scale : array_like, optional
        Every grade of the scale, in order (e.g. ``[0, 1, 2, 3]``). Pass it:
        a grade nobody used still counts as a step for the weights. Default:
        the grades used anywhere in ``grades``, so every pair shares one
        scale.

    Returns
    -------
    PairwiseKappa

    Raises
    ------
    ValueError
        If ``grades`` is not 2-D or holds anything but non-negative whole
        numbers and NaN, or ``scale`` misses a grade that occurs.

    Examples
    --------
    Two assessors, four documents, scale 0-2. Confusion: (0,0), (1,1), (1,2),
    (2,2); margins (1, 2, 1) and (1, 1, 2) of n = 4. Unweighted: p_o = 3/4,
    p_e = (1 + 2 + 2)/16 = 5/16, kappa = (12/16 - 5/16)/(11/16) = 7/11.
    Linear: observed disagreement 1/4, expected 14/16, kappa = 1 - 2/7 =
    5/7; quadratic: expected 20/16, kappa = 1 - 4/20 = 4/5.

    >>> k = pairwise_kappa([[0, 1, 1, 2], [0, 1, 2, 2]], scale=[0, 1, 2])
    >>> round(float(k.unweighted[0, 1]), 6), round(7 / 11, 6)
    (0.636364, 0.636364)
    >>> round(float(k.linear[0, 1]), 6), round(float(k.quadratic[1, 0]), 6)
    (0.714286, 0.8)
    >>> k.n_common.tolist()
    [[4, 4], [4, 4]]
    """
    grades = _grades(grades)
    scale = _scale(scale, grades)
    n_assessors = grades.shape[0]
    judged = ~np.isnan(grades)
    n_common = judged.astype(np.int64) @ judged.T.astype(np.int64)
    # every grade's position in the scale, once; every pair's confusion matrix from one product
    order = np.argsort(scale, kind="stable")
    codes = np.full(grades.shape, -1, dtype=np.intp)
    codes[judged] = order[np.searchsorted(scale[order], grades[judged])]
    pairs = agreement.pair_confusions(codes, len(scale), same=True)
    kappas = {}
    for weights in (None, "linear", "quadratic"):
        matrix = np.full((n_assessors, n_assessors), np.nan)
        values = agreement.kappas_from_confusions(pairs.confusion, weights)
        matrix[pairs.first, pairs.second] = values
        matrix[pairs.second, pairs.first] = values
        kappas[weights] = matrix
    return PairwiseKappa(kappas[None], kappas["linear"], kappas["quadratic"], n_common, scale)


def relevant_overlap(
    grades: ArrayLike,
    topic_index: ArrayLike | None = None,
    *,
    threshold: float = 1,
    n_topics: int | None = None,
) -> Overlap:
    """Voorhees' overlap of the relevant document sets, per topic and over topics.

    ``overlap(a, b) = |R_a & R_b| / |R_a | R_b|`` with ``R_a`` the documents
    ``a`` graded ``>= threshold`` among those both ``a`` and ``b`` judged
    (Voorhees 2000: intersection over union of the relevant sets). Reported
    per topic, as the mean over topics and over the pooled sets: see
    :class:`Overlap`.

    Parameters
    ----------
    grades : array_like, shape (A, N)
        See the module docstring.
    topic_index : array_like of int, shape (N,), optional
        Topic of each document; default: all one topic.
    threshold : float, default 1
        Relevant means ``grade >= threshold``; positive.
    n_topics : int, optional
        Number of topics (default: largest ``topic_index`` + 1); topics with
        no document get NaN.

    Returns
    -------
    Overlap

    Raises
    ------
    ValueError
        If ``grades``, ``topic_index``, ``threshold`` or ``n_topics`` is
        invalid.

    Examples
    --------
    Two topics, threshold 1. Topic 0: R_a = {d0, d1}, R_b = {d0}, overlap
    1/2; topic 1: R_a = {d3}, R_b = {}, overlap 0/1. Mean over topics
    (1/2 + 0)/2 = 0.25; pooled (1 + 0)/(2 + 1) = 1/3.

    >>> o = relevant_overlap([[2, 1, 0, 1, 0], [1, 0, 0, 0, 0]], [0, 0, 0, 1, 1])
    >>> o.per_topic[:, 0, 1].tolist()
    [0.5, 0.0]
    >>> float(o.mean[0, 1]), round(float(o.pooled[1, 0]), 6)
    (0.25, 0.333333)

    At threshold 2 only d0 of assessor a is relevant, and topic 1 has no
    relevant document (0/0, left out of the mean):

    >>> o2 = relevant_overlap([[2, 1, 0, 1, 0], [1, 0, 0, 0, 0]], [0, 0, 0, 1, 1], threshold=2)
    >>> o2.per_topic[:, 0, 1].tolist(), float(o2.mean[0, 1])
    ([0.0, nan], 0.0)
    """
    grades = _grades(grades)
    threshold = _threshold(threshold)
    index, n_topics = _topic_index(topic_index, grades.shape[1], n_topics)
    judged = ~np.isnan(grades)
    relevant = np.greater_equal(grades, threshold, where=judged, out=np.zeros(grades.shape, dtype=bool))

    padded_relevant = _pad(relevant, index, n_topics)  # (T, A, K)
    padded_judged = _pad(judged, index, n_topics)
    intersection = padded_relevant @ padded_relevant.transpose(0, 2, 1)
    # relevant to a among the documents b judged, and the other way round
    relevant_judged = padded_relevant @ padded_judged.transpose(0, 2, 1)
    union = relevant_judged + relevant_judged.transpose(0, 2, 1) - intersection

    judged_by_all = judged.all(axis=0)
    group_intersection = np.bincount(index, weights=relevant.all(axis=0), minlength=n_topics)
    group_union = np.bincount(index, weights=relevant.any(axis=0) & judged_by_all, minlength=n_topics)
    group_per_topic = _ratio(group_intersection, group_union)
    return Overlap(
        per_topic=_ratio(intersection, union),
        intersection=np.rint(intersection).astype(np.int64),
        union=np.rint(union).astype(np.int64),
        mean=_nanmean_over_topics(_ratio(intersection, union)),
        pooled=_ratio(intersection.sum(axis=0), union.sum(axis=0)),
        group_per_topic=group_per_topic,
        group_intersection=group_intersection,
        group_union=group_union,
        group_mean=float(_nanmean_over_topics(group_per_topic)),
        group_pooled=float(_ratio(group_intersection.sum(), group_union.sum())),
        threshold=threshold,
    )


def grade_alpha(grades: ArrayLike) -> GradeAlpha:
    """Krippendorff's alpha, ordinal and interval, of the grades over the campaign.

    ``grades`` is already Krippendorff's coders x units layout, every
    (topic, document) a unit, NaN where an assessor did not judge it;
    computed by :func:`stats.agreement.krippendorff_alpha`
    (Krippendorff 2011, sections C-D), equal to the ``krippendorff``
    package.

    Parameters
    ----------
    grades : array_like, shape (A, N)

    Returns
    -------
    GradeAlpha
        NaN fields when no document was judged by two assessors or only one
        grade occurs.

    Raises
    ------
    ValueError
        If ``grades`` is not 2-D or holds anything but non-negative whole
        numbers and NaN.

    Examples
    --------
    Two assessors, grades (0, 0), (1, 1), (2, 3), (3, 3): n = 8 values, n_0
    = n_1 = 2, n_2 = 1, n_3 = 3; the only disagreement is the pair (2, 3),
    coincident twice. Interval: expected sum n_c n_k (c - k)^2 = 190, so
    alpha = 1 - 7 * 2 * 1 / 190 = 88/95. Ordinal: positions n_<c + n_c/2 =
    (1, 3, 4.5, 6.5), delta^2(2, 3) = 4, expected 624, alpha = 1 - 7 * 2 * 4
    / 624 = 71/78.

    >>> a = grade_alpha([[0, 1, 2, 3], [0, 1, 3, 3]])
    >>> round(a.interval, 6), round(88 / 95, 6)
    (0.926316, 0.926316)
    >>> round(a.ordinal, 6), round(71 / 78, 6)
    (0.910256, 0.910256)
    """
    grades = _grades(grades)
    return GradeAlpha(
        ordinal=agreement.krippendorff_alpha(grades, level="ordinal"),
        interval=agreement.krippendorff_alpha(grades, level="interval"),
    )


# --------------------------------------------------------------------------
# Consensus qrels
# --------------------------------------------------------------------------


def consensus_grades(grades: ArrayLike, *, min_assessors: int = 1) -> np.ndarray:
    """The consensus grade of each document: the lower median of its grades.

    The median of the grades of the assessors who judged the document; for
    an even number of them, the lower of the two middle grades (a split
    between 1 and 2 gives 1). Why the lower median: (i) it is always a grade
    of the scale, as graded qrels need (trec_eval reads whole numbers), where
    the mean of the middle two would be 1.5; (ii) for every threshold ``t``
    at once, the consensus grade is ``>= t`` exactly when a strict majority
    of the assessors gave ``>= t``, so a tie does not make a document
    relevant: the conservative side, as a single TREC assessor's "relevant"
    is a claim, not a default.

    Parameters
    ----------
    grades : array_like, shape (A, N)
        See the module docstring.
    min_assessors : int, default 1
        Documents judged by fewer assessors get NaN (not in the consensus
        qrels).

    Returns
    -------
    ndarray, shape (N,)
        Consensus grades; NaN where fewer than ``min_assessors`` judged.

    Raises
    ------
    ValueError
        If ``grades`` is invalid or ``min_assessors`` is not a positive
        integer.

    Examples
    --------
    Document 0: grades {1, 2}, lower median 1; document 1: {0, 2, 3} gives
    2; document 2: {3, 3, 1} gives 3; document 3: nobody judged it.

    >>> nan = float("nan")
    >>> consensus_grades([[1, 0, 3, nan], [2, 2, 3, nan], [nan, 3, 1, nan]]).tolist()
    [1.0, 2.0, 3.0, nan]
    >>> consensus_grades([[1, 0, 3, nan], [2, 2, 3, nan], [nan, 3, 1, nan]], min_assessors=3).tolist()
    [nan, 2.0, 3.0, nan]
    """
    grades = _grades(grades)
    if isinstance(min_assessors, bool) or not isinstance(min_assessors, (int, np.integer)) or min_assessors < 1:
        raise ValueError(f"min_assessors must be a positive integer, got {min_assessors!r}")
    n_judged = np.count_nonzero(~np.isnan(grades), axis=0)
    ordered = np.sort(grades, axis=0)  # NaN sorts last: the judged grades come first
    lower_middle = np.maximum(n_judged - 1, 0) // 2
    if grades.shape[0] == 0:
        return np.full(grades.shape[1], np.nan)
    median = np.take_along_axis(ordered, lower_middle[np.newaxis, :], axis=0)[0]
    return np.where(n_judged >= min_assessors, median, np.nan)


# --------------------------------------------------------------------------
# Ranking stability
# --------------------------------------------------------------------------


def ranking_stability(scores: ArrayLike) -> RankingStability:
    """Kendall's tau between the system rankings under every pair of qrels sets.

    The stability analysis of Voorhees (2000): evaluate the same systems
    under several sets of relevance judgments (each assessor's, and the
    consensus), rank them by their mean score, and correlate the rankings
    with Kendall's tau (tau-b with ties, computed by
    :func:`stats.rank.kendall_tau_b`, equal to
    ``scipy.stats.kendalltau``); also Lin & Demner-Fushman (2006), Tables
    3-4. Swaps count the system pairs the two rankings order oppositely:
    without ties ``tau = 1 - 4 swaps / (S (S - 1))``.

    Parameters
    ----------
    scores : array_like, shape (K, S)
        Mean score of each of ``S`` systems under each of ``K`` qrels sets
        (e.g. ``Evaluation.scores("AP")`` of :mod:`stats.ireval`); finite.

    Returns
    -------
    RankingStability

    Raises
    ------
    ValueError
        If ``scores`` is not 2-D or not finite.

    Examples
    --------
    Three qrels sets, four systems; the third swaps systems 0 and 1: one
    discordant pair of six, tau = (5 - 1)/6 = 2/3.

    >>> r = ranking_stability([[0.4, 0.3, 0.2, 0.1], [0.4, 0.3, 0.2, 0.1], [0.3, 0.4, 0.2, 0.1]])
    >>> np.round(r.tau, 4).tolist()
    [[1.0, 1.0, 0.6667], [1.0, 1.0, 0.6667], [0.6667, 0.6667, 1.0]]
    >>> r.swaps.tolist(), r.n_pairs
    ([[0, 0, 1], [0, 0, 1], [1, 1, 0]], 6)
    """
    try:
        table = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("scores must hold numbers") from None
    if table.ndim != 2:
        raise ValueError(f"scores must be 2-D with shape (n_qrels_sets, n_systems), got shape {table.shape}")
    if not np.all(np.isfinite(table)):
        raise ValueError("scores must be finite (no NaN or infinity)")
    n_sets, n_systems = table.shape
    if n_sets == 0:
        return RankingStability(np.zeros((0, 0)), np.zeros((0, 0), dtype=np.int64), n_systems * (n_systems - 1) // 2)
    tau = rank.kendall_tau_b(table, table)
    return RankingStability(tau, _swaps(table), n_systems * (n_systems - 1) // 2)


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def _pad(values: np.ndarray, index: np.ndarray, n_topics: int) -> np.ndarray:
    """(A, N) -> (T, A, K) float, zero where a topic has fewer documents.

    Float so that the per-topic pair counts are batched matrix products
    (whole numbers, exact in float64).
    """
    counts = np.bincount(index, minlength=n_topics)
    order = np.argsort(index, kind="stable")
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    slot = np.empty(index.size, dtype=np.intp)
    slot[order] = np.arange(index.size) - starts[index[order]]
    padded = np.zeros((n_topics, values.shape[0], int(counts.max(initial=0))))
    padded[index, :, slot] = values.T
    return padded


def _ratio(numerator: ArrayLike, denominator: ArrayLike) -> np.ndarray:
    """numerator / denominator, NaN where the denominator is zero."""
    numerator = np.asarray(numerator, dtype=float)
    denominator = np.asarray(denominator, dtype=float)
    out = np.full(np.broadcast(numerator, denominator).shape, np.nan)
    return np.divide(numerator, denominator, out=out, where=denominator > 0)


def _nanmean_over_topics(values: np.ndarray) -> np.ndarray:
    """Mean over axis 0 ignoring NaN; NaN (without a warning) where all are NaN."""
    counted = ~np.isnan(values)
    total = np.where(counted, values, 0.0).sum(axis=0)
    return _ratio(total, counted.sum(axis=0))


def _swaps(scores: np.ndarray) -> np.ndarray:
    """(K, K) system pairs ordered oppositely by two rows (ties in either row excluded)."""
    n_sets, n_systems = scores.shape
    block = max(1, _SIGN_CELLS // max(1, n_systems * n_sets))
    products = np.zeros((n_sets, n_sets))
    untied_both = np.zeros((n_sets, n_sets))
    for lo in range(0, n_systems, block):  # blocks of systems, to bound memory
        signs = np.sign(scores[:, lo : lo + block, np.newaxis] - scores[:, np.newaxis, :]).reshape(n_sets, -1)
        products += signs @ signs.T
        untied = np.abs(signs)
        untied_both += untied @ untied.T
    # Over ordered pairs untied in both: concordant - discordant = products and
    # concordant + discordant = untied_both; each unordered pair counted twice.
    return np.rint((untied_both - products) / 4).astype(np.int64)
