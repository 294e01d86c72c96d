"""External measures comparing two clusterings of the same items.

The measures are the ones Geiss (2009) discusses for sentence clustering
("Creating a Gold Standard for Sentence Clustering in Multi-Document
Summarization", ACL-IJCNLP Student Research Workshop), sections 5-7:
V-measure and V_beta, NMI, VI and NVI, the Rand index, entropy and purity,
and the pair-counting F-measure, plus the adjusted Rand index.

Notation follows Geiss (2009), section 5: ``labels_true`` holds the *classes*
C (the gold standard, |C| of them) and ``labels_pred`` the *clusters* L
(|L| of them); n_j^i is the number of items cluster j and class i share.
Every measure is a function of that contingency table alone, so
:func:`clustering_scores` builds it once (:func:`contingency`) and derives all
of them; the single-measure functions are thin wrappers around it.

Entropies are in nats unless a function says otherwise; VI is reported in
bits, as in Geiss (2009), section 5.7 ("VI is measured in bits").

Degenerate cases
----------------
Where scikit-learn has the measure, its convention is kept (sklearn 1.9,
``sklearn/metrics/cluster/_supervised.py``). N is the number of items.

========================  ======================================================
case                      value
========================  ======================================================
N = 0 (empty)             h = c = V = V_beta = NMI = RI = ARI = 1 (sklearn);
                          VI = NVI = 0; purity = entropy = NaN (no cluster to
                          average over); pair P = R = F = 0
one class (|C| = 1)       h = 1 (sklearn: H(C) = 0); c = 0 unless |L| = 1;
                          MI = 0 so NMI = 0 unless |L| = 1 (sklearn);
                          entropy = 0 (every cluster is pure; 0/log 1 taken as 0)
one cluster (|L| = 1)     c = 1 (sklearn); h = 0 unless |C| = 1; NMI = 0
                          unless |C| = 1
|C| = |L| = 1 (incl. N=1) h = c = V = NMI = RI = ARI = purity = 1; VI = NVI =
                          entropy = 0 (NVI at N = 1 is 0/log 1, taken as 0:
                          there is only one partition of one item)
h = 0 or c = 0            V = 0 for every beta (sklearn returns 0 when
                          h + c = 0 and divides by zero when beta = 0 and c = 0)
no pair shares a cluster  pair precision = 0 (sklearn's zero_division=0, as in
(all singletons, N <= 1)  ``precision_score``; ``fowlkes_mallows_score`` is
                          likewise 0); F = 0 whenever TP = 0, including two
                          identical all-singleton labellings, which RI and ARI
                          score 1. Geiss (2009), section 5.7: F = 0 for
                          L_single against C_A.
no pair shares a class    pair recall = 0, same convention
========================  ======================================================

No numpy warning escapes: every division by a possibly-zero quantity is
guarded and the guard is the documented value above.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "MEASURES",
    "ClusteringScores",
    "ContingencyTable",
    "RandomBaseline",
    "ScoresColumns",
    "adjusted_rand_index",
    "clustering_scores",
    "complete_with_irrelevant",
    "complete_with_irrelevant_each",
    "completed_scores",
    "completed_scores_each",
    "contingency",
    "entropy",
    "homogeneity_completeness_v",
    "normalized_mutual_information",
    "normalized_variation_of_information",
    "pair_f_measure",
    "purity",
    "rand_index",
    "random_baseline",
    "random_baseline_means",
    "random_baseline_means_completed",
    "random_baseline_means_each",
    "scores_from_contingency",
    "v_beta",
    "v_measure",
    "variation_of_information",
    "weighted_v",
]

AverageMethod = Literal["arithmetic", "geometric", "min", "max"]
CompletionMethod = Literal["singleton", "bucket"]
_AVERAGES = ("arithmetic", "geometric", "min", "max")
_COMPLETIONS = ("singleton", "bucket")
# A dense n_classes x n_clusters table is cheaper than sorting the combined
# codes while it stays within a few times the number of items.
_DENSE_CELLS_PER_ITEM = 4
_DENSE_CELLS_FLOOR = 1 << 16
# A baseline's comparisons are counted in a dense table of their joint codes while the
# codes are at most this many more than a few per item (_joint_entropies).
_DENSE_CODES = 64


# ---------------------------------------------------------------------------
# The contingency table
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ContingencyTable:
    """Sparse contingency table of two labellings of the same items.

    Attributes
    ----------
    classes, clusters : ndarray
        The distinct labels of ``labels_true`` and ``labels_pred`` (sorted
        when the labels are mutually comparable, else in order of first
        appearance); row i of the table is ``classes[i]``, column j is
        ``clusters[j]``.
    rows, cols, counts : ndarray of int64
        The non-zero cells n_j^i, in row-major order.
    class_sizes, cluster_sizes : ndarray of int64
        Row sums n_i and column sums n_j.
    """

    classes: np.ndarray
    clusters: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    counts: np.ndarray
    class_sizes: np.ndarray
    cluster_sizes: np.ndarray

    @property
    def n_items(self) -> int:
        return int(self.class_sizes.sum())

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.class_sizes), len(self.cluster_sizes))

    def to_dense(self) -> np.ndarray:
        """Return the full ``(n_classes, n_clusters)`` table as an int64 array."""
        table = np.zeros(self.shape, dtype=np.int64)
        table[self.rows, self.cols] = self.counts
        return table


def contingency(labels_true: ArrayLike, labels_pred: ArrayLike) -> ContingencyTable:
    """Build the contingency table of two labellings in one pass.

    Labels are factorised (``np.unique`` with ``return_inverse``, or a
    ``bincount`` when they are small integers) and the cells counted with one
    ``np.bincount`` over the combined codes, or ``np.unique`` on them when a
    dense table would be much larger than the data.

    Parameters
    ----------
    labels_true : array-like of shape (n_items,)
        Class of each item (the gold standard).
    labels_pred : array-like of shape (n_items,)
        Cluster of each item.

    Returns
    -------
    ContingencyTable

    Raises
    ------
    ValueError
        If either labelling is not 1-D or their lengths differ.

    Examples
    --------
    >>> table = contingency(["a", "a", "b", "b"], [0, 0, 0, 1])
    >>> table.to_dense().tolist()
    [[2, 0], [1, 1]]
    """
    true_values, pred_values = _check_labellings(labels_true, labels_pred)
    classes, class_codes, class_sizes = _factorize(true_values)
    clusters, cluster_codes, cluster_sizes = _factorize(pred_values)
    return _table_from_codes(class_codes, cluster_codes, classes, clusters, class_sizes, cluster_sizes)


# ---------------------------------------------------------------------------
# All measures from one table
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ClusteringScores:
    """Every measure of one comparison, from one contingency table.

    ``labels_true`` are the classes C, ``labels_pred`` the clusters L
    (Geiss 2009, section 5). Entropies and mutual information are in nats;
    ``variation_of_information`` is in bits. See the module docstring for the
    degenerate cases.
    """

    n_items: int
    n_classes: int
    n_clusters: int
    homogeneity: float
    completeness: float
    beta: float
    v_measure: float
    v_beta: float
    class_entropy: float
    cluster_entropy: float
    mutual_information: float
    nmi_arithmetic: float
    nmi_geometric: float
    nmi_min: float
    nmi_max: float
    variation_of_information: float
    normalized_variation_of_information: float
    rand_index: float
    adjusted_rand_index: float
    purity: float
    entropy: float
    pair_precision: float
    pair_recall: float
    pair_f: float

    def nmi(self, average: AverageMethod = "arithmetic") -> float:
        """NMI with the given normaliser (see :func:`normalized_mutual_information`)."""
        return float(getattr(self, f"nmi_{_check_average(average)}"))


#: The float-valued measures of :class:`ClusteringScores` (what a baseline averages).
MEASURES: tuple[str, ...] = tuple(
    f.name for f in fields(ClusteringScores) if f.name not in {"n_items", "n_classes", "n_clusters", "beta"}
)


def clustering_scores(labels_true: ArrayLike, labels_pred: ArrayLike, *, beta: float = 1.0) -> ClusteringScores:
    """Compute every measure of this module from one contingency table.

    Parameters
    ----------
    labels_true : array-like of shape (n_items,)
        Class of each item (the gold standard, C in Geiss 2009).
    labels_pred : array-like of shape (n_items,)
        Cluster of each item (L in Geiss 2009).
    beta : float, default 1.0
        Weight of the ``v_measure`` field, V = (1 + beta) h c / (beta h + c);
        ``v_beta`` always uses beta = |L| / |C|.

    Returns
    -------
    ClusteringScores

    Examples
    --------
    Manning, Raghavan & Schuetze (2008), *Introduction to Information
    Retrieval*, figure 16.4 (x, o and d in three clusters):

    >>> truth = list("xxxxxo" "xooood" "xxddd")
    >>> found = [1] * 6 + [2] * 6 + [3] * 5
    >>> s = clustering_scores(truth, found)
    >>> round(s.purity, 4), round(s.nmi_arithmetic, 4), round(s.rand_index, 4), round(s.pair_f, 4)
    (0.7059, 0.3646, 0.6765, 0.4762)
    """
    beta = _check_beta(beta)
    return scores_from_contingency(contingency(labels_true, labels_pred), beta=beta)


@dataclass(frozen=True)
class Completed:
    """A labelling from :func:`complete_with_irrelevant` (codes 0..k-1 without gaps) with what
    every comparison needs of it alone: its block sizes, entropy and pairs within blocks.
    A topic compares each judge with every other, so these are worked out once per judge."""

    codes: np.ndarray
    sizes: np.ndarray
    entropy: float
    pairs_within: int

    @classmethod
    def of(cls, codes: np.ndarray) -> Completed:
        sizes = np.bincount(codes)
        return cls(codes, sizes, _entropy_of_sizes(sizes, codes.size), _pairs_within(sizes))


def completed_scores(true: Completed, pred: Completed, *, beta: float = 1.0) -> ClusteringScores:
    """:func:`clustering_scores` of two completed labellings, bit for bit.

    Their codes need no factorising (it gives these very codes back) and their
    own entropies and pair counts are known: only the joint table is counted
    (the same table and the same arithmetic as :func:`clustering_scores`).

    >>> items = ["s1", "s2", "s3", "s4"]
    >>> a = complete_with_irrelevant([["s1", "s2"]], items)
    >>> b = complete_with_irrelevant([["s2", "s3"]], items)
    >>> completed_scores(Completed.of(a), Completed.of(b)) == clustering_scores(a, b)
    True
    """
    beta = _check_beta(beta)
    if true.codes.shape != pred.codes.shape:
        raise ValueError(f"labellings of {true.codes.size} and {pred.codes.size} items")
    classes, clusters = np.arange(len(true.sizes)), np.arange(len(pred.sizes))
    table = _table_from_codes(true.codes, pred.codes, classes, clusters, true.sizes, pred.sizes)
    info = _Information(
        n_items=true.codes.size,
        n_classes=len(true.sizes),
        n_clusters=len(pred.sizes),
        class_entropy=true.entropy,
        cluster_entropy=pred.entropy,
        joint_entropy=_entropy_of_sizes(table.counts, true.codes.size),
    )
    return _scores(table, info, _pair_counts(table, (true.pairs_within, pred.pairs_within)), beta)


@dataclass(frozen=True)
class ScoresColumns:
    """Every field of :class:`ClusteringScores` for many comparisons, a column each:
    ``columns[name][i]`` is comparison ``i``'s (:func:`completed_scores_each`)."""

    columns: dict[str, np.ndarray]

    def __len__(self) -> int:
        return len(self.columns["n_items"])

    def row(self, index: int) -> ClusteringScores:
        """Comparison ``index``'s :class:`ClusteringScores`."""
        return ClusteringScores(**{name: column[index].item() for name, column in self.columns.items()})

    def weighted_v(self, beta: float) -> np.ndarray:
        """:func:`weighted_v` of every comparison's homogeneity and completeness, bit for bit."""
        return _weighted_v_columns(self.columns["homogeneity"], self.columns["completeness"], _check_beta(beta))


def completed_scores_each(true: Sequence[Completed], pred: Sequence[Completed], *, beta: float = 1.0) -> ScoresColumns:
    """:func:`completed_scores` of ``true[i]`` against ``pred[i]`` for every ``i``, bit for bit,
    with one array operation per step for all the comparisons (a topic's 45 pairs of judges
    are 45 tables of a few cells: what costs is the calls, not the cells).

    Every comparison's joint table is counted from its sorted joint codes; its entropy sums
    the same terms (one per distinct cell size, ``math.fsum``) as :func:`completed_scores`,
    and every other measure takes the same operations on the same values, element by
    element. The pair counts are exact in int64 below 2**53 pairs of pairs (about 13,000
    items); beyond, they are Python integers, as :func:`completed_scores` counts them.

    >>> items = ["s1", "s2", "s3", "s4"]
    >>> a, b, c = (Completed.of(complete_with_irrelevant(x, items)) for x in ([["s1", "s2"]], [["s2", "s3"]], []))
    >>> each = completed_scores_each([a, a, b], [b, c, c])
    >>> [each.row(i) == completed_scores(t, p) for i, (t, p) in enumerate([(a, b), (a, c), (b, c)])]
    [True, True, True]
    >>> each.columns["v_measure"].round(4).tolist()
    [0.6667, 0.8571, 0.8571]
    """
    beta = _check_beta(beta)
    if len(true) != len(pred):
        raise ValueError(f"true and pred must pair up: {len(true)} and {len(pred)} labellings")
    n_items = {labelling.codes.size for labelling in (*true, *pred)}
    if len(n_items) > 1:
        raise ValueError(f"labellings of different numbers of items: {sorted(n_items)}")
    n = n_items.pop() if n_items else 0
    if n == 0 or not true:
        rows = [completed_scores(t, p, beta=beta) for t, p in zip(true, pred)]
        return ScoresColumns({f.name: np.array([getattr(r, f.name) for r in rows]) for f in fields(ClusteringScores)})
    cells = _JointCells.of(true, pred, n)
    side = _SideFigures.of(true), _SideFigures.of(pred)
    info = _InformationColumns(n, side[0].blocks, side[1].blocks, side[0].entropy, side[1].entropy, cells.entropy)
    pairs = _PairCountColumns.of(cells.pairs_within, side[0].pairs_within, side[1].pairs_within, n)
    homogeneity, completeness = info.homogeneity_completeness()
    precision, recall, pair_f = pairs.precision_recall_f()
    columns = {
        "n_items": np.full(len(true), n),
        "n_classes": side[0].blocks,
        "n_clusters": side[1].blocks,
        "homogeneity": homogeneity,
        "completeness": completeness,
        "beta": np.full(len(true), beta),
        "v_measure": _weighted_v_columns(homogeneity, completeness, beta),
        "v_beta": _weighted_v_columns(
            homogeneity, completeness, np.where(side[0].blocks > 0, side[1].blocks / np.maximum(side[0].blocks, 1), 1.0)
        ),
        "class_entropy": side[0].entropy,
        "cluster_entropy": side[1].entropy,
        "mutual_information": info.mutual_information,
        "nmi_arithmetic": info.nmi("arithmetic"),
        "nmi_geometric": info.nmi("geometric"),
        "nmi_min": info.nmi("min"),
        "nmi_max": info.nmi("max"),
        "variation_of_information": info.variation_of_information / math.log(2),
        "normalized_variation_of_information": info.normalized_variation_of_information(),
        "rand_index": pairs.rand_index(),
        "adjusted_rand_index": pairs.adjusted_rand_index(),
        "purity": cells.majority / n,
        "entropy": info.zhao_karypis_entropy(np.array([math.log(x) if x > 1 else 1.0 for x in side[0].blocks])),
        "pair_precision": precision,
        "pair_recall": recall,
        "pair_f": pair_f,
    }
    return ScoresColumns(columns)


def scores_from_contingency(table: ContingencyTable, *, beta: float = 1.0) -> ClusteringScores:
    """Compute every measure from an already built :class:`ContingencyTable`.

    Parameters
    ----------
    table : ContingencyTable
        From :func:`contingency`.
    beta : float, default 1.0
        Weight of the ``v_measure`` field.

    Returns
    -------
    ClusteringScores

    Examples
    --------
    >>> s = scores_from_contingency(contingency([0, 0, 1, 1], [0, 0, 1, 2]))
    >>> round(s.v_measure, 4), round(s.adjusted_rand_index, 4)
    (0.8, 0.5714)
    """
    beta = _check_beta(beta)
    return _scores(table, _information(table), _pair_counts(table), beta)


def _scores(table: ContingencyTable, info: _Information, pairs: _PairCounts, beta: float) -> ClusteringScores:
    n_items = table.n_items
    n_classes, n_clusters = table.shape
    homogeneity, completeness = info.homogeneity_completeness()
    precision, recall, pair_f = pairs.precision_recall_f(1.0)
    return ClusteringScores(
        n_items=n_items,
        n_classes=n_classes,
        n_clusters=n_clusters,
        homogeneity=homogeneity,
        completeness=completeness,
        beta=beta,
        v_measure=_weighted_v(homogeneity, completeness, beta),
        v_beta=_weighted_v(homogeneity, completeness, _vlachos_beta(n_classes, n_clusters)),
        class_entropy=info.class_entropy,
        cluster_entropy=info.cluster_entropy,
        mutual_information=info.mutual_information,
        nmi_arithmetic=info.nmi("arithmetic"),
        nmi_geometric=info.nmi("geometric"),
        nmi_min=info.nmi("min"),
        nmi_max=info.nmi("max"),
        variation_of_information=info.variation_of_information / math.log(2),
        normalized_variation_of_information=info.normalized_variation_of_information(),
        rand_index=pairs.rand_index(),
        adjusted_rand_index=pairs.adjusted_rand_index(),
        purity=_purity(table),
        entropy=info.zhao_karypis_entropy(),
        pair_precision=precision,
        pair_recall=recall,
        pair_f=pair_f,
    )


# ---------------------------------------------------------------------------
# The public single-measure functions (thin wrappers)
# ---------------------------------------------------------------------------


def homogeneity_completeness_v(
    labels_true: ArrayLike, labels_pred: ArrayLike, *, beta: float = 1.0
) -> tuple[float, float, float]:
    """Homogeneity, completeness and V-measure.

    Rosenberg & Hirschberg (2007); Geiss (2009), section 5.1, equations (1)
    and (2)::

        h = 1 - H(C|L) / H(C)        c = 1 - H(L|C) / H(L)
        V = (1 + beta) h c / (beta h + c)

    beta > 1 favours completeness, beta < 1 homogeneity (beta, not beta
    squared: Rosenberg & Hirschberg and sklearn agree). As in sklearn, h = 1
    when H(C) = 0, c = 1 when H(L) = 0, all three are 1 for empty input, and
    V = 0 when h or c is 0.

    Parameters
    ----------
    labels_true : array-like of shape (n_items,)
        Classes C (gold standard).
    labels_pred : array-like of shape (n_items,)
        Clusters L.
    beta : float, default 1.0
        Non-negative weight.

    Returns
    -------
    (homogeneity, completeness, v_measure) : tuple of float

    Examples
    --------
    sklearn's documented example:

    >>> h, c, v = homogeneity_completeness_v([0, 0, 1, 1, 2, 2], [0, 0, 1, 2, 2, 2])
    >>> round(h, 3), round(c, 3), round(v, 3)
    (0.71, 0.772, 0.74)
    """
    s = clustering_scores(labels_true, labels_pred, beta=beta)
    return s.homogeneity, s.completeness, s.v_measure


def v_measure(labels_true: ArrayLike, labels_pred: ArrayLike, *, beta: float = 1.0) -> float:
    """V-measure, the weighted harmonic mean of homogeneity and completeness.

    Geiss (2009), section 5.1, equation (1): V = (1 + beta) h c / (beta h + c);
    see :func:`homogeneity_completeness_v` for h, c and the degenerate cases.
    Geiss (2009), equations (5)-(6): V_beta equals
    (1 + beta) I / (beta H(L) + H(C)), so V_1 is NMI with the arithmetic mean.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_items,)
        Classes C and clusters L.
    beta : float, default 1.0
        Non-negative weight; Geiss (2009) reports V_0.5.

    Returns
    -------
    float in [0, 1]

    Examples
    --------
    >>> v_measure([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    >>> round(v_measure([0, 0, 1, 2], [0, 0, 1, 1]), 4)
    0.8
    """
    return clustering_scores(labels_true, labels_pred, beta=beta).v_measure


def v_beta(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """V-measure with beta = |L| / |C| (Vlachos et al. 2009).

    Geiss (2009), section 5.1: "Vlachos et al. (2009) proposes V_beta where
    beta is set to |L|/|C|", with L the clusters and C the classes, so
    beta = n_clusters / n_classes: more clusters than classes lowers the
    weight of homogeneity, which many small clusters reach too easily.
    Because swapping the labellings swaps h and c and inverts beta, V_beta is
    symmetric. Empty input gives 1.0 (h = c = 1 for any beta).

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_items,)
        Classes C and clusters L.

    Returns
    -------
    float in [0, 1]

    Examples
    --------
    h = 1 and c = 2/3 here; beta = 3/2 gives 2.5 (2/3) / (1.5 + 2/3) = 10/13:

    >>> round(v_beta([0, 0, 1, 1], [0, 0, 1, 2]), 4)
    0.7692
    """
    return clustering_scores(labels_true, labels_pred).v_beta


def normalized_mutual_information(
    labels_true: ArrayLike, labels_pred: ArrayLike, *, average: AverageMethod = "arithmetic"
) -> float:
    """Mutual information I(C, L) divided by a mean of H(C) and H(L).

    Geiss (2009), section 5.2, equations (3)-(4): I = H(C) + H(L) - H(C, L)
    and NMI = 2 I / (H(L) + H(C)) (Manning et al. 2008, section 16.3), which is
    ``average="arithmetic"``; "geometric" is Strehl & Ghosh (2002); "min" and
    "max" are Vinh et al. (2010). The same four as sklearn's
    ``normalized_mutual_info_score`` and the same conventions: 1.0 when both
    labellings have a single label (or none), 0.0 when I = 0.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_items,)
        Classes C and clusters L.
    average : {"arithmetic", "geometric", "min", "max"}, default "arithmetic"
        Mean of the two entropies that normalises I.

    Returns
    -------
    float in [0, 1] (base-free)

    Examples
    --------
    >>> normalized_mutual_information([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    >>> normalized_mutual_information([0, 0, 0, 0], [0, 1, 2, 3])
    0.0
    """
    average = _check_average(average)
    return clustering_scores(labels_true, labels_pred).nmi(average)


def variation_of_information(labels_true: ArrayLike, labels_pred: ArrayLike, *, base: float = 2) -> float:
    """Variation of information VI = H(C|L) + H(L|C) (Meila 2007).

    Geiss (2009), section 5.3, equation (7). A distance: 0 for identical
    partitions, at most log N. Empty input gives 0.0.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_items,)
        Classes C and clusters L.
    base : float, default 2
        Logarithm base (2 gives bits, as Geiss reports; ``math.e`` gives nats).

    Returns
    -------
    float >= 0

    Examples
    --------
    One cluster against four singletons: VI = log2 4.

    >>> variation_of_information([0, 0, 0, 0], [0, 1, 2, 3])
    2.0
    """
    base = _check_base(base)
    bits = clustering_scores(labels_true, labels_pred).variation_of_information
    return float(bits * math.log(2) / math.log(base))


def normalized_variation_of_information(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """VI divided by its maximum log N (Meila 2007), so it lies in [0, 1].

    Geiss (2009), section 5.3, equation (8): NVI = VI / log N. Both logs use
    the same base, so the value is base-free. N <= 1 gives 0.0 (0/log 1: a
    single item has only one partition). Only comparable within one data set
    (Geiss 2009, section 5.7).

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_items,)
        Classes C and clusters L.

    Returns
    -------
    float in [0, 1]

    Examples
    --------
    >>> normalized_variation_of_information([0, 0, 0, 0], [0, 1, 2, 3])
    1.0
    """
    return clustering_scores(labels_true, labels_pred).normalized_variation_of_information


def rand_index(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Rand index RI = (TP + TN) / (number of pairs) (Rand 1971).

    Geiss (2009), section 5.4, equation (9), over unordered pairs of items.
    As in sklearn's ``rand_score``, 1.0 when there are no pairs (N <= 1).

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_items,)
        Classes C and clusters L.

    Returns
    -------
    float in [0, 1]

    Examples
    --------
    >>> round(rand_index([0, 0, 1, 2], [0, 0, 1, 1]), 4)
    0.8333
    """
    return clustering_scores(labels_true, labels_pred).rand_index


def adjusted_rand_index(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Rand index adjusted for chance (Hubert & Arabie 1985).

    ARI = 2 (TP TN - FN FP) / ((TP + FN)(FN + TN) + (TP + FP)(FP + TN)),
    sklearn's ``adjusted_rand_score`` formula, computed in exact integer
    arithmetic; 1.0 when FP = FN = 0 (including empty input), as in sklearn.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_items,)
        Classes C and clusters L.

    Returns
    -------
    float in [-0.5, 1]

    Examples
    --------
    >>> round(adjusted_rand_index([0, 0, 1, 2], [0, 0, 1, 1]), 4)
    0.5714
    >>> adjusted_rand_index([0, 0, 1, 1], [0, 1, 0, 1])
    -0.5
    """
    return clustering_scores(labels_true, labels_pred).adjusted_rand_index


def purity(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Purity: share of items in the majority class of their cluster.

    Zhao & Karypis (2001); Geiss (2009), section 5.5, equation (10):
    Purity = (1/N) sum_j max_i n_j^i. Not symmetric. NaN for empty input.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_items,)
        Classes C and clusters L.

    Returns
    -------
    float in (0, 1]

    Examples
    --------
    >>> purity(list("xxxxxoxoooodxxddd"), [1] * 6 + [2] * 6 + [3] * 5) == 12 / 17
    True
    """
    return clustering_scores(labels_true, labels_pred).purity


def entropy(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Entropy of the classes within the clusters (Zhao & Karypis 2001).

    Geiss (2009), section 5.5, equation (10)::

        Entropy = sum_j (n_j / N) * ( -1/log|C| * sum_i (n_j^i/n_j) log(n_j^i/n_j) )
                = H(C|L) / log |C|

    Each cluster's class entropy is normalised by log |C|, the number of
    classes, and weighted by the cluster's size. The base of the logarithm
    cancels (a ratio of two logs in the same base), so the value is base-free
    and lies in [0, 1]: 0 for pure clusters (e.g. L_single or L = C), 1 for a
    single cluster holding every class equally (e.g. C_single against L_one;
    Geiss's "log N" for that case is the unnormalised value). Lower is
    better. With one class (|C| = 1) every cluster is pure and the value is
    0.0 (the 0/log 1 limit); NaN for empty input.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_items,)
        Classes C and clusters L.

    Returns
    -------
    float in [0, 1]

    Examples
    --------
    >>> entropy([0, 1, 2, 3], [0, 0, 0, 0])
    1.0
    >>> entropy([0, 0, 1, 1], [0, 1, 2, 3])
    0.0
    """
    return clustering_scores(labels_true, labels_pred).entropy


def pair_f_measure(labels_true: ArrayLike, labels_pred: ArrayLike, *, beta: float = 1.0) -> tuple[float, float, float]:
    """Pair-counting precision, recall and F over unordered pairs of items.

    Hess & Kushmerick (2003); Geiss (2009), section 5.6, equation (11):
    P = TP / (TP + FP), R = TP / (TP + FN), F = 2PR / (P + R), where a pair
    is a true positive when it shares both a class and a cluster. ``beta``
    gives Manning et al. (2008, section 16.3)'s F_beta =
    (beta^2 + 1) P R / (beta^2 P + R) -- here beta is *squared*, unlike the
    V-measure's. P (R) is 0 when no pair shares a cluster (a class), F is 0
    when TP = 0: sklearn's zero_division=0 convention, which also makes
    ``fowlkes_mallows_score`` = sqrt(P R) hold in every case.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_items,)
        Classes C and clusters L.
    beta : float, default 1.0
        Non-negative weight of recall.

    Returns
    -------
    (precision, recall, f) : tuple of float

    Examples
    --------
    Manning et al. (2008), section 16.3 (TP = 20, FP = 20, FN = 24):

    >>> p, r, f = pair_f_measure(list("xxxxxoxoooodxxddd"), [1] * 6 + [2] * 6 + [3] * 5)
    >>> round(p, 4), round(r, 4), round(f, 4)
    (0.5, 0.4545, 0.4762)
    """
    beta = _check_beta(beta)
    return _pair_counts(contingency(labels_true, labels_pred)).precision_recall_f(beta)


# ---------------------------------------------------------------------------
# Irrelevant sentences (Geiss 2009, section 6) and the random baseline (section 7)
# ---------------------------------------------------------------------------


def complete_with_irrelevant(
    clusters: Sequence[Sequence[Hashable]],
    items: Sequence[Hashable],
    *,
    method: CompletionMethod = "singleton",
) -> np.ndarray:
    """Turn a judge's clusters into a labelling of every item.

    Geiss (2009), section 6: the items a judge left out (irrelevant
    sentences) are added back so that every judge labels the same N items,
    either as "singleton" clusters (each irrelevant item a cluster of its
    own) or as one "bucket" cluster holding all of them.

    Parameters
    ----------
    clusters : sequence of sequences of hashable
        The judge's clusters, as item ids. Empty clusters are ignored.
    items : sequence of hashable
        Every item id of the data set, without duplicates.
    method : {"singleton", "bucket"}, default "singleton"

    Returns
    -------
    ndarray of int64, shape (len(items),)
        ``labels[k]`` is the cluster of ``items[k]``: the judge's non-empty
        clusters are 0, 1, ... in their given order; left-out items follow,
        numbered in item order ("singleton") or all in one more cluster
        ("bucket"; none is added when no item was left out).

    Raises
    ------
    ValueError
        If ``items`` has duplicates, a cluster is a string rather than a
        sequence of ids, a cluster holds an unknown id, an id is in two
        clusters, or ``method`` is unknown.

    Examples
    --------
    >>> items = ["s1", "s2", "s3", "s4", "s5", "s6"]
    >>> complete_with_irrelevant([["s1", "s2"], ["s3", "s4"]], items).tolist()
    [0, 0, 1, 1, 2, 3]
    >>> complete_with_irrelevant([["s1", "s2"], ["s3", "s4"]], items, method="bucket").tolist()
    [0, 0, 1, 1, 2, 2]
    """
    method = _check_completion(method)
    return complete_with_irrelevant_each(clusters, items, methods=(method,))[method]


def complete_with_irrelevant_each(
    clusters: Sequence[Sequence[Hashable]],
    items: Sequence[Hashable],
    *,
    methods: Sequence[CompletionMethod] = _COMPLETIONS,
) -> dict[str, np.ndarray]:
    """:func:`complete_with_irrelevant` with each of ``methods``, the clusters read once.

    >>> both = complete_with_irrelevant_each([["s1", "s3"]], ["s1", "s2", "s3", "s4"])
    >>> {method: labels.tolist() for method, labels in both.items()}
    {'singleton': [0, 1, 0, 2], 'bucket': [0, 1, 0, 1]}
    """
    methods = [_check_completion(method) for method in methods]
    cluster_of, n_clusters = _judge_cluster_codes(clusters, _item_positions(items))
    left_out = cluster_of < 0
    completed = {}
    for method in methods:
        labels = cluster_of.copy()
        if method == "singleton":
            labels[left_out] = n_clusters + np.arange(int(left_out.sum()))
        else:
            labels[left_out] = n_clusters
        completed[method] = labels
    return completed


@dataclass(frozen=True)
class RandomBaseline:
    """Mean and standard deviation of each measure over random comparisons.

    Attributes
    ----------
    mean, sd : dict of str to float
        Keyed by the names in ``MEASURES`` (the float fields of
        :class:`ClusteringScores`, e.g. ``"v_beta"``, ``"v_measure"``,
        ``"normalized_variation_of_information"``). ``sd`` is the sample
        standard deviation (ddof = 1), NaN with a single comparison.
    n_random : int
        Random clusterings drawn.
    n_comparisons : int
        ``n_random * len(judges)``.
    method : str
        How irrelevant items were completed ("singleton" or "bucket").
    beta : float
        Weight used for the ``v_measure`` entry.
    """

    mean: dict[str, float]
    sd: dict[str, float]
    n_random: int
    n_comparisons: int
    method: str
    beta: float


def random_baseline(
    profile: Sequence[Sequence[Hashable]],
    judges: Sequence[Sequence[Sequence[Hashable]]],
    items: Sequence[Hashable],
    *,
    method: CompletionMethod = "singleton",
    n_random: int = 100,
    beta: float = 1.0,
    seed: int | np.random.Generator | None = 0,
) -> RandomBaseline:
    """Score random clusterings shaped like one judge's against every judge.

    Geiss (2009), section 7 (Table 3, row "base"): random sets of clusters
    are compared with the judges' sets. Each random clustering has the
    *profile* of ``profile``: the same number of clusters with the same
    sizes and the same number of left-out items, but the items are assigned
    uniformly at random. It is completed with ``method`` (section 6) and
    compared with every judge's completed clustering, the judge as classes
    (``labels_true``) and the random clustering as clusters. To reproduce
    Table 3's base row, call this once per judge as ``profile`` and pool the
    means.

    Parameters
    ----------
    profile : sequence of sequences of hashable
        The clusters whose profile the random clusterings copy.
    judges : sequence of clusterings
        Each a sequence of clusters (sequences of item ids), as for
        :func:`complete_with_irrelevant`; usually every judge of the topic.
    items : sequence of hashable
        Every item id of the data set (non-empty, no duplicates).
    method : {"singleton", "bucket"}, default "singleton"
        How left-out items are added, to the judges and to the random sets.
    n_random : int, default 100
        Number of random clusterings (Geiss used 100 per sentence set).
    beta : float, default 1.0
        Weight of the ``v_measure`` entry (Geiss reports V_0.5 and V_beta).
    seed : int, numpy Generator or None, default 0
        Seed of the random draws; the default makes the baseline reproducible.

    Returns
    -------
    RandomBaseline

    Raises
    ------
    ValueError
        On invalid clusterings (see :func:`complete_with_irrelevant`), empty
        ``items`` or ``judges``, or ``n_random`` < 1.

    Examples
    --------
    >>> items = [f"s{k}" for k in range(12)]
    >>> judge_a = [["s0", "s1", "s2"], ["s3", "s4"], ["s5", "s6", "s7"]]
    >>> judge_b = [["s0", "s1"], ["s2", "s3", "s4"], ["s8", "s9"]]
    >>> base = random_baseline(judge_a, [judge_a, judge_b], items, n_random=50, seed=1)
    >>> base.n_comparisons
    100
    >>> 0.0 < base.mean["v_beta"] < v_beta(complete_with_irrelevant(judge_a, items),
    ...                                   complete_with_irrelevant(judge_b, items))
    True
    """
    method = _check_completion(method)
    beta = _check_beta(beta)
    if isinstance(n_random, bool) or not isinstance(n_random, (int, np.integer)) or n_random < 1:
        raise ValueError(f"n_random must be a positive integer, got {n_random!r}")
    if len(judges) == 0:
        raise ValueError("judges must hold at least one clustering")
    if len(items) == 0:
        raise ValueError("items must not be empty")
    judge_labels = [complete_with_irrelevant(judge, items, method=method) for judge in judges]
    template = _profile_template(profile, items, method)
    random_labels = _shuffled_labellings(template, int(n_random), np.random.default_rng(seed))
    values = np.array(
        [_measure_vector(_scores_from_codes(truth, drawn, beta)) for drawn in random_labels for truth in judge_labels]
    )
    return _summarise(values, n_random=int(n_random), method=method, beta=beta)


#: The figures :func:`random_baseline_means` gives (keys of ``RandomBaseline.mean``).
BASELINE_MEANS = ("v_beta", "v_measure", "normalized_variation_of_information")


def random_baseline_means(
    profile: Sequence[Sequence[Hashable]],
    judges: Sequence[Sequence[Sequence[Hashable]]],
    items: Sequence[Hashable],
    *,
    method: CompletionMethod = "singleton",
    n_random: int = 100,
    beta: float = 1.0,
    seed: int | np.random.Generator | None = 0,
) -> dict[str, float]:
    """``random_baseline(...).mean`` of V_beta, V (``beta``) and NVI, vectorised.

    The same random clusterings (the same draws from ``seed``) against the same
    judges; only the joint entropy differs between comparisons (a random
    clustering keeps its profile's block sizes, so its entropy and number of
    clusters are the profile's), and it is computed for all ``n_random x
    len(judges)`` comparisons at once from the sorted joint codes. Equal to
    :func:`random_baseline`'s means to rounding (about 1e-15; the sums run in
    another order): one topic's baseline of ten judges costs milliseconds
    instead of seconds.

    >>> items = [f"s{k}" for k in range(12)]
    >>> judge_a = [["s0", "s1", "s2"], ["s3", "s4"], ["s5", "s6", "s7"]]
    >>> judge_b = [["s0", "s1"], ["s2", "s3", "s4"], ["s8", "s9"]]
    >>> fast = random_baseline_means(judge_a, [judge_a, judge_b], items, n_random=50, beta=0.5, seed=1)
    >>> slow = random_baseline(judge_a, [judge_a, judge_b], items, n_random=50, beta=0.5, seed=1).mean
    >>> all(abs(fast[name] - slow[name]) < 1e-12 for name in BASELINE_MEANS)
    True
    """
    method = _check_completion(method)
    beta = _check_beta(beta)
    _check_baseline_args(n_random, judges, items)
    drawn_from = _Profile.of(_profile_template(profile, items, method), seed)
    return _means_against(BaselineJudges.of(judges, items, method), [drawn_from], int(n_random), beta)[0]


@dataclass(frozen=True)
class BaselineJudges:
    """What :func:`random_baseline_means` needs of the judges, whatever the profile drawn:
    their completed labellings, class counts and class entropies (a topic's baseline draws
    one profile per judge against the same judges, so these are worked out once per topic)."""

    method: str
    truths: np.ndarray  # (judges, items) completed labellings
    n_classes: np.ndarray  # (judges,) float
    class_entropy: np.ndarray  # (judges,) nats

    @classmethod
    def of(
        cls, judges: Sequence[Sequence[Sequence[Hashable]]], items: Sequence[Hashable], method: str
    ) -> BaselineJudges:
        truths = np.stack([complete_with_irrelevant(judge, items, method=method) for judge in judges])
        class_sizes = [np.bincount(truth) for truth in truths]
        return cls(
            method=method,
            truths=truths,
            n_classes=np.array([len(sizes) for sizes in class_sizes], dtype=np.float64),
            class_entropy=np.array([_entropy_of_sizes(sizes, len(items)) for sizes in class_sizes]),
        )

    @classmethod
    def of_completed(cls, judges: Sequence[Completed], method: str) -> BaselineJudges:
        """The same from the judges' labellings completed with ``method`` (their blocks and
        entropies are already known)."""
        return cls(
            method=method,
            truths=np.stack([judge.codes for judge in judges]),
            n_classes=np.array([len(judge.sizes) for judge in judges], dtype=np.float64),
            class_entropy=np.array([judge.entropy for judge in judges]),
        )


def random_baseline_means_each(
    profiles: Sequence[tuple[Sequence[Sequence[Hashable]], int]],
    judges: Sequence[Sequence[Sequence[Hashable]]],
    items: Sequence[Hashable],
    *,
    method: CompletionMethod = "singleton",
    n_random: int = 100,
    beta: float = 1.0,
) -> list[dict[str, float]]:
    """:func:`random_baseline_means` of each ``(profile, seed)`` against the same judges,
    equal to calling it once per profile (the same draws, the same arithmetic), with the
    judges' completions and entropies computed once instead of once per profile.

    >>> items = [f"s{k}" for k in range(12)]
    >>> judge_a = [["s0", "s1", "s2"], ["s3", "s4"], ["s5", "s6", "s7"]]
    >>> judge_b = [["s0", "s1"], ["s2", "s3", "s4"], ["s8", "s9"]]
    >>> each = random_baseline_means_each([(judge_a, 0), (judge_b, 1)], [judge_a, judge_b], items, n_random=20)
    >>> each[1] == random_baseline_means(judge_b, [judge_a, judge_b], items, n_random=20, seed=1)
    True
    """
    method = _check_completion(method)
    beta = _check_beta(beta)
    _check_baseline_args(n_random, judges, items)
    given = BaselineJudges.of(judges, items, method)
    drawn_from = [_Profile.of(_profile_template(profile, items, method), seed) for profile, seed in profiles]
    return _means_against(given, drawn_from, int(n_random), beta)


def random_baseline_means_completed(
    profiles: Sequence[tuple[Completed, int | np.random.Generator | None]],
    judges: Sequence[Completed],
    *,
    method: CompletionMethod = "singleton",
    n_random: int = 100,
    beta: float = 1.0,
) -> list[dict[str, float]]:
    """:func:`random_baseline_means_each` of labellings already completed with ``method``
    (``Completed.of(complete_with_irrelevant(clusters, items, method=method))``): the same
    draws and figures, bit for bit, without completing every judge and profile again. A
    random clustering of a profile has the profile's blocks, and the completed labelling
    has the judge's clusters then its left-out sentences as blocks, in order: its template
    is each block's code repeated by its size.

    >>> items = [f"s{k}" for k in range(12)]
    >>> judge_a = [["s0", "s1", "s2"], ["s3", "s4"], ["s5", "s6", "s7"]]
    >>> judge_b = [["s0", "s1"], ["s2", "s3", "s4"], ["s8", "s9"]]
    >>> a, b = (Completed.of(complete_with_irrelevant(j, items, method="bucket")) for j in (judge_a, judge_b))
    >>> done = random_baseline_means_completed([(a, 0), (b, 1)], [a, b], method="bucket", n_random=20)
    >>> done == random_baseline_means_each([(judge_a, 0), (judge_b, 1)], [judge_a, judge_b], items, method="bucket", n_random=20)
    True
    """
    method = _check_completion(method)
    beta = _check_beta(beta)
    _check_baseline_args(n_random, judges, judges[0].codes if judges else ())
    if len({judge.codes.size for judge in (*judges, *(profile for profile, _ in profiles))}) > 1:
        raise ValueError("profiles and judges must label the same items")
    drawn_from = [
        _Profile(np.repeat(np.arange(len(profile.sizes)), profile.sizes), profile.sizes, profile.entropy, seed)
        for profile, seed in profiles
    ]
    return _means_against(BaselineJudges.of_completed(judges, method), drawn_from, int(n_random), beta)


def _check_baseline_args(n_random: int, judges: Sequence, items: Sequence) -> None:
    if isinstance(n_random, bool) or not isinstance(n_random, (int, np.integer)) or n_random < 1:
        raise ValueError(f"n_random must be a positive integer, got {n_random!r}")
    if len(judges) == 0:
        raise ValueError("judges must hold at least one clustering")
    if len(items) == 0:
        raise ValueError("items must not be empty")


#: Most labels a baseline holds at once (profiles x draws x judges x items), bounding its memory.
_BASELINE_CHUNK_LABELS = 2**21


@dataclass(frozen=True)
class _Profile:
    """What a profile's random clusterings are drawn from: its template (its blocks' codes,
    each repeated by its size: :func:`_profile_template`), its block sizes and entropy (every
    draw's), and the seed of its draws."""

    template: np.ndarray
    sizes: np.ndarray
    entropy: float
    seed: int | np.random.Generator | None

    @classmethod
    def of(cls, template: np.ndarray, seed: int | np.random.Generator | None) -> _Profile:
        sizes = np.bincount(template)
        return cls(template, sizes, _entropy_of_sizes(sizes, template.size), seed)

    def draws(self, n_random: int) -> np.ndarray:
        """``n_random`` random clusterings: the template shuffled, row by row, from the seed.

        A shuffle's draws do not depend on the values shuffled, so with an integer seed the
        rows are the template taken in the order of the same shuffle of its positions, which
        is the same for every topic of that many items (:func:`_shuffles`, kept)."""
        size = self.template.size
        if isinstance(self.seed, (int, np.integer)) and not isinstance(self.seed, bool):
            if n_random * size <= _SHUFFLE_CELLS:
                return self.template[_shuffles(int(self.seed), n_random, size)]
        return _shuffled_labellings(self.template, n_random, np.random.default_rng(self.seed))


#: Most positions of one seed's shuffles kept (``_shuffles``): 64 of them hold at most 32 MB.
_SHUFFLE_CELLS = 1 << 16


@functools.lru_cache(maxsize=64)
def _shuffles(seed: int, n_random: int, size: int) -> np.ndarray:
    """``n_random`` shuffles of the positions ``0 .. size - 1`` drawn from ``seed`` as
    :func:`_shuffled_labellings` draws them (read-only: every caller shares them)."""
    positions = _shuffled_labellings(np.arange(size), n_random, np.random.default_rng(seed))
    positions.flags.writeable = False
    return positions


def _means_against(
    given: BaselineJudges, profiles: Sequence[_Profile], n_random: int, beta: float
) -> list[dict[str, float]]:
    """The body of :func:`random_baseline_means` once the judges' side is known, for several
    profiles at once (in chunks of at most ``_BASELINE_CHUNK_LABELS`` labels)."""
    per_profile = n_random * given.truths.size
    size = max(1, _BASELINE_CHUNK_LABELS // per_profile)
    return [
        means
        for start in range(0, len(profiles), size)
        for means in _means_of_chunk(given, profiles[start : start + size], n_random, beta)
    ]


def _means_of_chunk(
    given: BaselineJudges, profiles: Sequence[_Profile], n_random: int, beta: float
) -> list[dict[str, float]]:
    truths = given.truths
    n_items = truths.shape[1]
    drawn = np.stack([profile.draws(n_random) for profile in profiles])  # (P, R, n): each from its own seed
    n_clusters = np.array([len(profile.sizes) for profile in profiles], dtype=np.float64)[:, None]
    cluster_entropy = np.array([profile.entropy for profile in profiles])[:, None]
    joint_entropy = _joint_entropies(truths, drawn, int(n_clusters.max())).reshape(len(profiles), -1)
    # Comparison (r, j) in the order random_baseline scores them: every judge for each draw.
    class_entropy = np.tile(given.class_entropy, n_random)
    n_classes = np.tile(given.n_classes, n_random)
    class_given_cluster = np.maximum(joint_entropy - cluster_entropy, 0.0)
    cluster_given_class = np.maximum(joint_entropy - class_entropy, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        homogeneity = np.where(class_entropy > 0, 1.0 - class_given_cluster / class_entropy, 1.0)
        completeness = np.where(cluster_entropy > 0, 1.0 - cluster_given_class / cluster_entropy, 1.0)
    homogeneity = np.clip(homogeneity, 0.0, 1.0)
    completeness = np.clip(completeness, 0.0, 1.0)

    def weighted(weight: np.ndarray | float) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            value = (1 + weight) * homogeneity * completeness / (weight * homogeneity + completeness)
        return np.where((homogeneity == 0.0) | (completeness == 0.0), 0.0, value)

    vlachos = np.where(n_classes > 0, n_clusters / np.where(n_classes > 0, n_classes, 1.0), 1.0)
    if n_items <= 1:
        nvi = np.zeros_like(homogeneity)
    else:
        nvi = np.minimum((class_given_cluster + cluster_given_class) / math.log(n_items), 1.0)
    v_beta, v_measure = weighted(vlachos), weighted(beta)
    # one row per profile, each averaged alone (a contiguous row: the same sum as the row by itself)
    means = zip(*(np.ascontiguousarray(x).mean(axis=1).tolist() for x in (v_beta, v_measure, nvi)))
    return [dict(zip(BASELINE_MEANS, row)) for row in means]


def _joint_entropies(truths: np.ndarray, drawn: np.ndarray, width: int) -> np.ndarray:
    """H(C, L) of every (profile, draw, judge) comparison, in that order: ``-sum c log(c / N) / N``
    over its joint cells, added in the order of their codes (whatever ``width`` and whatever
    the comparisons beside it, so the same sums).

    With few possible cells (at most a few per item) every comparison's cells are counted
    in one table, cell by row, and each cell's term is looked up by its count and added to
    its comparison's sum (an empty cell adds 0); else the cells are found by sorting each
    comparison's codes."""
    n_items = truths.shape[1]
    n_comparisons = drawn.shape[0] * drawn.shape[1] * truths.shape[0]
    joint = (truths[None, None, :, :] * width + drawn[:, :, None, :]).reshape(-1, n_items)
    n_codes = (int(truths.max()) + 1) * width
    if n_codes <= _DENSE_CELLS_PER_ITEM * n_items + _DENSE_CODES:
        rows = np.arange(n_comparisons, dtype=np.int64)[:, np.newaxis]
        table = np.bincount((joint * n_comparisons + rows).ravel(), minlength=n_codes * n_comparisons)
        sizes = np.arange(n_items + 1, dtype=np.float64)
        term_of = sizes * (np.log(np.maximum(sizes, 1.0)) - math.log(n_items))
        term_of[0] = 0.0
        sums = np.zeros(n_comparisons)
        for cell in table.reshape(n_codes, n_comparisons):
            sums += term_of[cell]
    else:
        owner, _, counts = _cells_of_rows(joint)
        counts = counts.astype(np.float64)
        sums = np.bincount(owner, weights=counts * (np.log(counts) - math.log(n_items)), minlength=n_comparisons)
    joint_entropy = np.maximum(-sums / n_items, 0.0)
    if n_items <= 1:
        joint_entropy[:] = 0.0
    return joint_entropy


def _cells_of_rows(joint: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The non-empty cells of every row of ``joint`` (rows x items, at least one item): each
    cell's row, code and count, by row and then by code, from each row sorted on its own
    (many short rows sort faster than one long array of them all, and a dense table of
    rows x codes is mostly empty)."""
    n_items = joint.shape[1]
    ordered = np.sort(joint, axis=1)
    starts = np.empty(ordered.shape, dtype=bool)
    starts[:, 0] = True
    np.not_equal(ordered[:, 1:], ordered[:, :-1], out=starts[:, 1:])
    first = np.flatnonzero(starts)
    # a cell runs to the next start: in its row, or the next row's first item
    counts = np.diff(np.append(first, starts.size))
    return first // n_items, ordered.ravel()[first], counts


# ---------------------------------------------------------------------------
# Internals: validation
# ---------------------------------------------------------------------------


def _check_labellings(labels_true: ArrayLike, labels_pred: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    true_values = _as_labels(labels_true, "labels_true")
    pred_values = _as_labels(labels_pred, "labels_pred")
    if true_values.shape[0] != pred_values.shape[0]:
        raise ValueError(
            "labels_true and labels_pred must label the same items, "
            f"got {true_values.shape[0]} and {pred_values.shape[0]} labels"
        )
    return true_values, pred_values


def _as_labels(labels: ArrayLike, name: str) -> np.ndarray:
    try:
        values = np.asarray(labels)
    except ValueError as error:  # ragged nested sequences
        raise ValueError(f"{name} must be a 1-D sequence of labels: {error}") from None
    if values.ndim != 1:
        raise ValueError(f"{name} must be a 1-D sequence of labels, got shape {values.shape}")
    return values


def _check_beta(beta: float) -> float:
    if isinstance(beta, bool) or not isinstance(beta, (int, float, np.integer, np.floating)):
        raise ValueError(f"beta must be a number, got {beta!r}")
    if not (math.isfinite(beta) and beta >= 0):
        raise ValueError(f"beta must be finite and >= 0, got {beta!r}")
    return float(beta)


def _check_base(base: float) -> float:
    if isinstance(base, bool) or not isinstance(base, (int, float, np.integer, np.floating)):
        raise ValueError(f"base must be a number, got {base!r}")
    if not (math.isfinite(base) and base > 0 and base != 1):
        raise ValueError(f"base must be a finite number > 0 other than 1, got {base!r}")
    return float(base)


def _check_average(average: str) -> str:
    if average not in _AVERAGES:
        raise ValueError(f"average must be one of {', '.join(map(repr, _AVERAGES))}, got {average!r}")
    return average


def _check_completion(method: str) -> str:
    if method not in _COMPLETIONS:
        raise ValueError(f"method must be 'singleton' or 'bucket', got {method!r}")
    return method


# ---------------------------------------------------------------------------
# Internals: factorising labels and counting cells
# ---------------------------------------------------------------------------


def _factorize(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (distinct labels, code of each item, size of each label)."""
    if values.size == 0:
        return values[:0], np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if values.dtype.kind in "biu":
        fast = _factorize_small_integers(values)
        if fast is not None:
            return fast
    try:
        uniques, codes, sizes = np.unique(values, return_inverse=True, return_counts=True)
    except TypeError:  # object labels that cannot be ordered, e.g. str mixed with int
        return _factorize_by_first_appearance(values)
    return uniques, codes.reshape(-1).astype(np.int64, copy=False), sizes.astype(np.int64, copy=False)


def _factorize_small_integers(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    # A bincount over the label range avoids np.unique's O(N log N) sort.
    lowest, highest = int(values.min()), int(values.max())
    span = highest - lowest + 1
    if span > _DENSE_CELLS_PER_ITEM * values.size + _DENSE_CELLS_FLOOR or highest >= 2**62:
        return None
    shifted = values.astype(np.int64) - lowest
    counts = np.bincount(shifted, minlength=span)
    present = np.flatnonzero(counts)
    code_of_value = np.cumsum(counts > 0, dtype=np.int64) - 1
    uniques = (present + lowest).astype(values.dtype)
    return uniques, code_of_value[shifted], counts[present].astype(np.int64, copy=False)


def _factorize_by_first_appearance(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    code_of: dict[Any, int] = {}
    codes = np.fromiter((code_of.setdefault(v, len(code_of)) for v in values.tolist()), np.int64, values.size)
    uniques = np.empty(len(code_of), dtype=object)
    uniques[:] = list(code_of)
    return uniques, codes, np.bincount(codes, minlength=len(code_of)).astype(np.int64)


def _table_from_codes(
    class_codes: np.ndarray,
    cluster_codes: np.ndarray,
    classes: np.ndarray,
    clusters: np.ndarray,
    class_sizes: np.ndarray,
    cluster_sizes: np.ndarray,
) -> ContingencyTable:
    n_rows, n_cols = len(class_sizes), len(cluster_sizes)
    combined = class_codes * n_cols + cluster_codes
    if n_rows * n_cols <= _DENSE_CELLS_PER_ITEM * combined.size + _DENSE_CELLS_FLOOR:
        flat = np.bincount(combined, minlength=n_rows * n_cols)
        cells = np.flatnonzero(flat)
        counts = flat[cells]
    else:
        cells, counts = np.unique(combined, return_counts=True)
    rows, cols = np.divmod(cells, max(n_cols, 1))
    return ContingencyTable(
        classes=classes,
        clusters=clusters,
        rows=rows.astype(np.int64, copy=False),
        cols=cols.astype(np.int64, copy=False),
        counts=counts.astype(np.int64, copy=False),
        class_sizes=class_sizes,
        cluster_sizes=cluster_sizes,
    )


# ---------------------------------------------------------------------------
# Internals: information-theoretic measures
# ---------------------------------------------------------------------------


def _entropy_of_sizes(sizes: np.ndarray, n_items: int) -> float:
    """Entropy (nats) of a partition given its block sizes.

    Blocks of equal size contribute equal terms, so the sum runs over the
    distinct sizes, each term weighted by its multiplicity and added with
    ``math.fsum``: two partitions with the same multiset of sizes get the
    bit-identical entropy, which makes identical clusterings score exactly 1
    (or 0 for VI) whatever the label order.
    """
    if n_items == 0 or len(sizes) <= 1:
        return 0.0
    multiplicity = np.bincount(sizes)
    size = np.flatnonzero(multiplicity)
    terms = multiplicity[size] * size * (np.log(size) - math.log(n_items))
    return max(-math.fsum(terms.tolist()) / n_items, 0.0)


@dataclass(frozen=True)
class _Information:
    n_items: int
    n_classes: int
    n_clusters: int
    class_entropy: float
    cluster_entropy: float
    joint_entropy: float

    @property
    def mutual_information(self) -> float:
        # I = 0 exactly with a single class or cluster, so the sklearn
        # conventions that test I == 0 are not defeated by rounding.
        if self.n_classes <= 1 or self.n_clusters <= 1:
            return 0.0
        mi = self.class_entropy + self.cluster_entropy - self.joint_entropy
        return min(max(mi, 0.0), self.class_entropy, self.cluster_entropy)

    @property
    def class_given_cluster(self) -> float:
        """H(C|L) = H(C, L) - H(L)."""
        return max(self.joint_entropy - self.cluster_entropy, 0.0)

    @property
    def cluster_given_class(self) -> float:
        """H(L|C) = H(C, L) - H(C)."""
        return max(self.joint_entropy - self.class_entropy, 0.0)

    @property
    def variation_of_information(self) -> float:
        return self.class_given_cluster + self.cluster_given_class

    def homogeneity_completeness(self) -> tuple[float, float]:
        # Geiss's form 1 - H(C|L)/H(C) rather than I/H(C): H(C|L) is exactly
        # 0 for a perfectly homogeneous clustering, so h is exactly 1 there.
        homogeneity = 1.0 - self.class_given_cluster / self.class_entropy if self.class_entropy > 0 else 1.0
        completeness = 1.0 - self.cluster_given_class / self.cluster_entropy if self.cluster_entropy > 0 else 1.0
        return min(max(homogeneity, 0.0), 1.0), min(max(completeness, 0.0), 1.0)

    def nmi(self, average: str) -> float:
        if self.n_items == 0 or (self.n_classes == 1 and self.n_clusters == 1):
            return 1.0
        mi = self.mutual_information
        if mi == 0.0:
            return 0.0
        normaliser = _mean_of_two(self.class_entropy, self.cluster_entropy, average)
        return min(mi / normaliser, 1.0)

    def normalized_variation_of_information(self) -> float:
        if self.n_items <= 1:
            return 0.0
        return min(self.variation_of_information / math.log(self.n_items), 1.0)

    def zhao_karypis_entropy(self) -> float:
        if self.n_items == 0:
            return math.nan
        if self.n_classes <= 1:
            return 0.0
        return min(self.class_given_cluster / math.log(self.n_classes), 1.0)


def _information(table: ContingencyTable) -> _Information:
    n_items = table.n_items
    return _Information(
        n_items=n_items,
        n_classes=len(table.class_sizes),
        n_clusters=len(table.cluster_sizes),
        class_entropy=_entropy_of_sizes(table.class_sizes, n_items),
        cluster_entropy=_entropy_of_sizes(table.cluster_sizes, n_items),
        joint_entropy=_entropy_of_sizes(table.counts, n_items),
    )


def _mean_of_two(a: float, b: float, average: str) -> float:
    if average == "arithmetic":
        return (a + b) / 2
    if average == "geometric":
        return math.sqrt(a * b)
    if average == "min":
        return min(a, b)
    return max(a, b)


def weighted_v(homogeneity: float, completeness: float, beta: float) -> float:
    """The V-measure of weight ``beta`` from homogeneity and completeness (what
    ``clustering_scores(..., beta=beta).v_measure`` gives, bit for bit).

    >>> weighted_v(1.0, 0.5, 1.0), weighted_v(0.0, 0.5, 0.5)
    (0.6666666666666666, 0.0)
    """
    return _weighted_v(homogeneity, completeness, beta)


def _weighted_v(homogeneity: float, completeness: float, beta: float) -> float:
    if homogeneity == 0.0 or completeness == 0.0:
        return 0.0
    return (1 + beta) * homogeneity * completeness / (beta * homogeneity + completeness)


def _vlachos_beta(n_classes: int, n_clusters: int) -> float:
    # Geiss (2009), 5.1: beta = |L| / |C|, L the clusters, C the classes.
    return n_clusters / n_classes if n_classes else 1.0


# ---------------------------------------------------------------------------
# Internals: many comparisons at once (completed_scores_each)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _SideFigures:
    """What one side of many comparisons brings: each labelling's blocks, entropy and pairs within blocks."""

    blocks: np.ndarray
    entropy: np.ndarray
    pairs_within: np.ndarray

    @classmethod
    def of(cls, labellings: Sequence[Completed]) -> _SideFigures:
        return cls(
            np.array([len(x.sizes) for x in labellings], dtype=np.int64),
            np.array([x.entropy for x in labellings], dtype=np.float64),
            np.array([x.pairs_within for x in labellings], dtype=np.int64),
        )


@dataclass(frozen=True)
class _JointCells:
    """Each comparison's joint table, from its sorted joint codes: its entropy (the terms of
    :func:`_entropy_of_sizes`, one per distinct cell size, added with ``math.fsum``), its
    pairs within cells and its purity's majority count (the largest cell of each cluster)."""

    entropy: np.ndarray
    pairs_within: np.ndarray
    majority: np.ndarray

    @classmethod
    def of(cls, true: Sequence[Completed], pred: Sequence[Completed], n: int) -> _JointCells:
        width = max(len(x.sizes) for x in pred)
        joint = np.stack([t.codes for t in true]) * width + np.stack([p.codes for p in pred])
        owner, code, counts = _cells_of_rows(joint)
        comparisons = len(joint)
        row_starts = np.searchsorted(owner, np.arange(comparisons))  # every row has a cell: n >= 1
        n_cells = np.diff(np.append(row_starts, len(owner)))
        pairs_within = np.add.reduceat(counts * (counts - 1) // 2, row_starts)
        majority = np.zeros((comparisons, width), dtype=np.int64)
        np.maximum.at(majority, (owner, code % width), counts)
        return cls(_entropies(owner, counts, n_cells, n, comparisons), pairs_within, majority.sum(axis=1))


def _entropies(owner: np.ndarray, counts: np.ndarray, cells: np.ndarray, n: int, comparisons: int) -> np.ndarray:
    """:func:`_entropy_of_sizes` of each comparison's cell counts (``owner``: whose each cell is)."""
    size_of = np.unique(owner * (n + 1) + counts, return_counts=True)
    keys, multiplicity = size_of
    whose, size = np.divmod(keys, n + 1)
    terms = (multiplicity * size * (np.log(size) - math.log(n))).tolist()
    bounds = np.searchsorted(whose, np.arange(comparisons + 1)).tolist()
    return np.array(
        [
            max(-math.fsum(terms[lo:hi]) / n, 0.0) if cells[c] > 1 else 0.0
            for c, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:]))
        ]
    )


@dataclass(frozen=True)
class _InformationColumns:
    """:class:`_Information` of many comparisons, the same operations element by element
    (the figures several measures share worked out once)."""

    n_items: int
    n_classes: np.ndarray
    n_clusters: np.ndarray
    class_entropy: np.ndarray
    cluster_entropy: np.ndarray
    joint_entropy: np.ndarray

    @functools.cached_property
    def mutual_information(self) -> np.ndarray:
        mi = self.class_entropy + self.cluster_entropy - self.joint_entropy
        mi = np.minimum(np.minimum(np.maximum(mi, 0.0), self.class_entropy), self.cluster_entropy)
        return np.where((self.n_classes <= 1) | (self.n_clusters <= 1), 0.0, mi)

    @functools.cached_property
    def class_given_cluster(self) -> np.ndarray:
        return np.maximum(self.joint_entropy - self.cluster_entropy, 0.0)

    @functools.cached_property
    def cluster_given_class(self) -> np.ndarray:
        return np.maximum(self.joint_entropy - self.class_entropy, 0.0)

    @functools.cached_property
    def variation_of_information(self) -> np.ndarray:
        return self.class_given_cluster + self.cluster_given_class

    def homogeneity_completeness(self) -> tuple[np.ndarray, np.ndarray]:
        homogeneity = 1.0 - _divide(self.class_given_cluster, self.class_entropy, where=self.class_entropy > 0)
        completeness = 1.0 - _divide(self.cluster_given_class, self.cluster_entropy, where=self.cluster_entropy > 0)
        homogeneity = np.where(self.class_entropy > 0, homogeneity, 1.0)
        completeness = np.where(self.cluster_entropy > 0, completeness, 1.0)
        return np.minimum(np.maximum(homogeneity, 0.0), 1.0), np.minimum(np.maximum(completeness, 0.0), 1.0)

    def nmi(self, average: str) -> np.ndarray:
        mi = self.mutual_information
        a, b = self.class_entropy, self.cluster_entropy
        if average == "arithmetic":
            normaliser = (a + b) / 2
        elif average == "geometric":
            normaliser = np.sqrt(a * b)
        else:
            normaliser = np.minimum(a, b) if average == "min" else np.maximum(a, b)
        value = np.minimum(_divide(mi, normaliser, where=mi != 0.0), 1.0)
        value = np.where(mi == 0.0, 0.0, value)
        return np.where((self.n_classes == 1) & (self.n_clusters == 1), 1.0, value)

    def normalized_variation_of_information(self) -> np.ndarray:
        if self.n_items <= 1:
            return np.zeros(len(self.joint_entropy))
        return np.minimum(self.variation_of_information / math.log(self.n_items), 1.0)

    def zhao_karypis_entropy(self, log_classes: np.ndarray) -> np.ndarray:
        """``log_classes``: ``math.log`` of each comparison's number of classes (any value where it is 1)."""
        value = np.minimum(self.class_given_cluster / log_classes, 1.0)
        return np.where(self.n_classes <= 1, 0.0, value)


@dataclass(frozen=True)
class _PairCountColumns:
    """:class:`_PairCounts` of many comparisons: int64 while exact, else Python integers."""

    true_positive: np.ndarray
    false_positive: np.ndarray
    false_negative: np.ndarray
    true_negative: np.ndarray

    @classmethod
    def of(cls, together: np.ndarray, in_class: np.ndarray, in_cluster: np.ndarray, n: int) -> _PairCountColumns:
        all_pairs = n * (n - 1) // 2
        exact = 2 * all_pairs * all_pairs < 2**53  # ARI's products and their float
        kind = np.int64 if exact else object
        together, in_class, in_cluster = (x.astype(kind) for x in (together, in_class, in_cluster))
        false_positive = in_cluster - together
        false_negative = in_class - together
        true_negative = all_pairs - together - false_positive - false_negative
        return cls(together, false_positive, false_negative, true_negative)

    def rand_index(self) -> np.ndarray:
        agreeing = self.true_positive + self.true_negative
        total = agreeing + self.false_positive + self.false_negative
        value = _divide(agreeing, total, where=total != 0)
        return np.where((total == 0) | (agreeing == total), 1.0, value).astype(np.float64)

    def adjusted_rand_index(self) -> np.ndarray:
        tp, fp, fn, tn = self.true_positive, self.false_positive, self.false_negative, self.true_negative
        numerator = 2 * (tp * tn - fn * fp)
        denominator = (tp + fn) * (fn + tn) + (tp + fp) * (fp + tn)
        perfect = (fp == 0) & (fn == 0)
        value = _divide(numerator, denominator, where=~perfect)
        return np.where(perfect, 1.0, value).astype(np.float64)

    def precision_recall_f(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Precision, recall and F (beta 1), as :meth:`_PairCounts.precision_recall_f`."""
        tp = self.true_positive
        some = tp != 0
        precision = np.where(some, _divide(tp, tp + self.false_positive, where=some), 0.0).astype(np.float64)
        recall = np.where(some, _divide(tp, tp + self.false_negative, where=some), 0.0).astype(np.float64)
        weight = 1.0
        f = np.where(some, _divide((weight + 1) * precision * recall, weight * precision + recall, where=some), 0.0)
        return precision, recall, f


def _divide(numerator: np.ndarray, denominator: np.ndarray, *, where: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` where ``where`` holds, 0.0 elsewhere (no warning), element by element
    as Python divides: object (Python integer) operands are divided one by one."""
    numerator, denominator = np.asarray(numerator), np.asarray(denominator)
    if numerator.dtype == object or denominator.dtype == object:
        numerator, denominator = np.broadcast_arrays(numerator, denominator)
        return np.array(
            [
                a / b if w else 0.0
                for a, b, w in zip(
                    numerator.tolist(), denominator.tolist(), np.broadcast_to(where, numerator.shape).tolist()
                )
            ],
            dtype=np.float64,
        )
    return np.divide(
        numerator, denominator, out=np.zeros(np.broadcast_shapes(numerator.shape, denominator.shape)), where=where
    )


def _weighted_v_columns(homogeneity: np.ndarray, completeness: np.ndarray, beta: np.ndarray | float) -> np.ndarray:
    """:func:`_weighted_v` element by element."""
    zero = (homogeneity == 0.0) | (completeness == 0.0)
    value = _divide((1 + beta) * homogeneity * completeness, beta * homogeneity + completeness, where=~zero)
    return np.where(zero, 0.0, value)


# ---------------------------------------------------------------------------
# Internals: pair counting and purity
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _PairCounts:
    """Unordered pairs of items; Python ints, so nothing overflows."""

    true_positive: int
    false_positive: int
    false_negative: int
    true_negative: int

    @property
    def total(self) -> int:
        return self.true_positive + self.false_positive + self.false_negative + self.true_negative

    def rand_index(self) -> float:
        agreeing = self.true_positive + self.true_negative
        if self.total == 0 or agreeing == self.total:
            return 1.0
        return agreeing / self.total

    def adjusted_rand_index(self) -> float:
        tp, fp, fn, tn = self.true_positive, self.false_positive, self.false_negative, self.true_negative
        if fp == 0 and fn == 0:
            return 1.0
        return 2 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))

    def precision_recall_f(self, beta: float) -> tuple[float, float, float]:
        tp = self.true_positive
        precision = tp / (tp + self.false_positive) if tp else 0.0
        recall = tp / (tp + self.false_negative) if tp else 0.0
        if tp == 0:
            return precision, recall, 0.0
        weight = beta * beta
        return precision, recall, (weight + 1) * precision * recall / (weight * precision + recall)


def _pairs_within(sizes: np.ndarray) -> int:
    return (int(np.dot(sizes, sizes)) - int(sizes.sum())) // 2


def _pair_counts(table: ContingencyTable, within: tuple[int, int] | None = None) -> _PairCounts:
    """The pair counts of ``table``; ``within``: the pairs within classes and within clusters, when known."""
    n_items = table.n_items
    together_in_both = _pairs_within(table.counts)
    if within is None:
        within = (_pairs_within(table.class_sizes), _pairs_within(table.cluster_sizes))
    together_in_class, together_in_cluster = within
    false_positive = together_in_cluster - together_in_both
    false_negative = together_in_class - together_in_both
    all_pairs = n_items * (n_items - 1) // 2
    return _PairCounts(
        true_positive=together_in_both,
        false_positive=false_positive,
        false_negative=false_negative,
        true_negative=all_pairs - together_in_both - false_positive - false_negative,
    )


def _purity(table: ContingencyTable) -> float:
    n_items = table.n_items
    if n_items == 0:
        return math.nan
    majority = np.zeros(len(table.cluster_sizes), dtype=np.int64)
    np.maximum.at(majority, table.cols, table.counts)
    return int(majority.sum()) / n_items


# ---------------------------------------------------------------------------
# Internals: judges' clusterings and the random baseline
# ---------------------------------------------------------------------------


def _item_positions(items: Sequence[Hashable]) -> dict[Hashable, int]:
    if isinstance(items, (str, bytes)):
        raise ValueError("items must be a sequence of item ids, got a string")
    position = {item: k for k, item in enumerate(items)}
    if len(position) != len(items):
        seen: set[Hashable] = set()
        duplicates = [item for item in items if item in seen or seen.add(item)]
        raise ValueError(f"items must not repeat an id; repeated: {_list_ids(duplicates)}")
    return position


def _list_ids(ids: Sequence[Hashable]) -> str:
    return ", ".join(sorted({repr(item) for item in ids}))


def _judge_cluster_codes(
    clusters: Sequence[Sequence[Hashable]], position: dict[Hashable, int]
) -> tuple[np.ndarray, int]:
    """Cluster code of every item (-1 where left out) and the number of clusters."""
    if isinstance(clusters, (str, bytes)):
        raise ValueError("clusters must be a sequence of clusters, got a string")
    members: list[Hashable] = []
    sizes: list[int] = []
    for index, cluster in enumerate(clusters):
        if isinstance(cluster, (str, bytes)):
            raise ValueError(f"clusters[{index}] must be a sequence of item ids, got the string {cluster!r}")
        cluster = list(cluster)
        if cluster:
            members.extend(cluster)
            sizes.append(len(cluster))
    unknown = [item for item in members if item not in position]
    if unknown:
        raise ValueError(f"clusters contain ids that are not in items: {_list_ids(unknown)}")
    where = np.fromiter((position[item] for item in members), dtype=np.int64, count=len(members))
    times_used = np.bincount(where, minlength=len(position))
    if (times_used > 1).any():
        ids = list(position)
        repeated = [ids[k] for k in np.flatnonzero(times_used > 1)]
        raise ValueError(f"clusters must be disjoint; in more than one cluster: {_list_ids(repeated)}")
    cluster_of = np.full(len(position), -1, dtype=np.int64)
    cluster_of[where] = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    return cluster_of, len(sizes)


def _profile_template(profile: Sequence[Sequence[Hashable]], items: Sequence[Hashable], method: str) -> np.ndarray:
    """Labels of one clustering with the profile's shape, before shuffling."""
    cluster_of, n_clusters = _judge_cluster_codes(profile, _item_positions(items))
    sizes = np.bincount(cluster_of[cluster_of >= 0], minlength=n_clusters)
    n_left_out = int((cluster_of < 0).sum())
    clustered = np.repeat(np.arange(n_clusters, dtype=np.int64), sizes)
    if method == "singleton":
        left_out = n_clusters + np.arange(n_left_out, dtype=np.int64)
    else:
        left_out = np.full(n_left_out, n_clusters, dtype=np.int64)
    return np.concatenate([clustered, left_out])


def _shuffled_labellings(template: np.ndarray, n_random: int, rng: np.random.Generator) -> np.ndarray:
    return rng.permuted(np.broadcast_to(template, (n_random, template.size)), axis=1)


def _scores_from_codes(true_codes: np.ndarray, pred_codes: np.ndarray, beta: float) -> ClusteringScores:
    # Completed labellings are already codes 0..k-1 with no gaps, so the
    # factorising step of contingency() can be skipped.
    class_sizes = np.bincount(true_codes)
    cluster_sizes = np.bincount(pred_codes)
    table = _table_from_codes(
        true_codes, pred_codes, np.arange(len(class_sizes)), np.arange(len(cluster_sizes)), class_sizes, cluster_sizes
    )
    return scores_from_contingency(table, beta=beta)


def _measure_vector(scores: ClusteringScores) -> list[float]:
    return [getattr(scores, name) for name in MEASURES]


def _summarise(values: np.ndarray, *, n_random: int, method: str, beta: float) -> RandomBaseline:
    n_comparisons = values.shape[0]
    means = values.mean(axis=0)
    sds = values.std(axis=0, ddof=1) if n_comparisons > 1 else np.full(values.shape[1], np.nan)
    return RandomBaseline(
        mean={name: float(m) for name, m in zip(MEASURES, means)},
        sd={name: float(s) for name, s in zip(MEASURES, sds)},
        n_random=n_random,
        n_comparisons=n_comparisons,
        method=method,
        beta=beta,
    )
