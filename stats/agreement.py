"""Chance-corrected agreement between raters.

Cohen's kappa for two raters, Fleiss' kappa for many raters who all rate every
item, Krippendorff's alpha for any number of coders with missing values at any
level of measurement, and the 2x2 figures (overlap, specific agreement) used to
compare two adjudicators of binary match judgments.

Orientation follows each method's reference implementation: ``category_counts``
takes items x raters (statsmodels' ``aggregate_raters``), ``krippendorff_alpha``
takes coders x units (the ``krippendorff`` package, Krippendorff's own layout).
Missing values are ``NaN`` or ``None`` (a string ``"nan"`` is a category).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import sparse

if TYPE_CHECKING:
    from stats.ratings import SparseRatings

__all__ = [
    "CategoryCounts",
    "PairCells",
    "PairConfusions",
    "PairwiseAgreement",
    "category_counts",
    "cohen_kappa",
    "kappas_from_confusions",
    "pair_confusions",
    "fleiss_kappa",
    "krippendorff_alpha",
    "largest",
    "most_partnered",
    "pair_matrix",
    "pairwise_agreement",
    "pairwise_of_table",
    "sparse_pair_cells",
    "sparse_pair_confusions",
]

KappaWeights = Literal["linear", "quadratic"]
Level = Literal["nominal", "ordinal", "interval", "ratio"]
_LEVELS = ("nominal", "ordinal", "interval", "ratio")

# Integer-valued labels spanning at most this many values are factorised by
# bincount (linear time) rather than np.unique (a sort): rating scales and
# category codes, the common case, then cost a few linear passes.
_MAX_DIRECT_SPAN = 1 << 20
# Pair confusions of at most this many one-hot cells (items x raters x categories) take a
# dense product: a topic of a few items and assessors, where scipy.sparse's set-up dominates.
_SMALL_ONE_HOT = 1 << 12
# Up to this many raters x raters cells the pairs that share an item are found in a bitmap
# (4 MB of bools, a 32 MB running count), beyond it by sorting their keys.
_PAIR_BITMAP = 1 << 22
# Beyond this many units x values cells the unit count matrix is kept sparse,
# so many distinct values (continuous interval data) cost memory per rating,
# not per cell.
_MAX_DENSE_CELLS = 1 << 23
# Rows per block when the ratio metric's expected disagreement is summed over
# all value pairs: bounds its temporaries to about this many cells.
_BLOCK_CELLS = 1 << 22
# Confusion matrices per block when the kappas of a stack are computed: bounds their
# temporaries (a stack of 5 x 5 matrices: 25 cells each) to tens of megabytes.
_KAPPA_BLOCK = 1 << 16

Difference = Callable[[npt.NDArray[np.intp], npt.NDArray[np.intp]], npt.NDArray[np.float64]]


class CategoryCounts(NamedTuple):
    """The items x categories table that :func:`fleiss_kappa` takes.

    A named tuple so that ``counts, categories = category_counts(r)`` unpacks,
    and :func:`fleiss_kappa` also accepts the whole object.

    Attributes
    ----------
    counts : ndarray of int64, shape (n_items, n_categories)
        How many raters put each item in each category.
    categories : ndarray, shape (n_categories,)
        The category of each column: the given ``categories``, or the sorted
        distinct non-missing values of the ratings.
    """

    counts: npt.NDArray[np.int64]
    categories: np.ndarray


@dataclass(frozen=True)
class PairwiseAgreement:
    """Agreement of two raters on binary labels, from their 2x2 table.

    Attributes
    ----------
    a, b, c, d : int
        Both positive; first positive, second negative; first negative,
        second positive; both negative.
    n : int
        ``a + b + c + d``.
    observed : float
        ``(a + d) / n``.
    overlap : float
        ``a / (a + b + c)``: positives in common over all positives.
    positive : float
        ``2a / (2a + b + c)``: specific agreement on positives (p+).
    negative : float
        ``2d / (2d + b + c)``: specific agreement on negatives (p-).
    kappa : float
        Cohen's kappa of the table.
    """

    a: int
    b: int
    c: int
    d: int
    n: int
    observed: float
    overlap: float
    positive: float
    negative: float
    kappa: float


class _Labels(NamedTuple):
    codes: npt.NDArray[np.intp]  # shape of the input; len(categories) where missing
    categories: np.ndarray  # sorted distinct non-missing values


def cohen_kappa(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    *,
    weights: KappaWeights | None = None,
    labels: npt.ArrayLike | None = None,
) -> float:
    r"""Cohen's kappa of two raters, optionally weighted.

    .. math:: \kappa = 1 - \frac{\sum_{ij} w_{ij} O_{ij}}{\sum_{ij} w_{ij} E_{ij}}

    where :math:`O` is the confusion matrix, :math:`E` the outer product of its
    margins over :math:`n`, and :math:`w_{ij}` is :math:`[i \ne j]`,
    :math:`|i - j|` (linear) or :math:`(i - j)^2` (quadratic) over the
    category positions. Cohen (1960) "A coefficient of agreement for nominal
    scales", Educ. Psychol. Meas. 20(1); weighted: Cohen (1968) "Weighted
    kappa", Psychol. Bull. 70(4). Same definition and results as
    ``sklearn.metrics.cohen_kappa_score``.

    Parameters
    ----------
    a, b : array_like of shape (n_items,)
        The two raters' labels (numbers or strings), no missing values.
    weights : {None, "linear", "quadratic"}, default None
        Disagreement weights; the category positions are the order of
        ``labels``, or the sorted labels when ``labels`` is None.
    labels : array_like, optional
        The categories to count and their order. Items where either rater
        used a label outside ``labels`` are left out (as in scikit-learn).

    Returns
    -------
    float
        Kappa, or NaN when it is 0/0: no item left to count, or a single
        category used by both raters. (scikit-learn raises when no label in
        ``labels`` occurs in ``a``; here that is NaN too, keeping kappa
        symmetric.)

    Raises
    ------
    ValueError
        If ``a`` or ``b`` is not 1-D, they differ in length, hold missing
        values or mix numbers and strings, or ``weights`` or ``labels`` is
        invalid.

    Examples
    --------
    >>> cohen_kappa(["neg", "pos", "neg", "neu", "pos"], ["neg", "pos", "neg", "neu", "neg"])
    0.6875
    >>> round(cohen_kappa([1, 2, 3, 3], [1, 2, 3, 2], weights="quadratic"), 4)
    0.8
    """
    _check_weights(weights)
    first, second = _two_raters(a, b)
    first_index, second_index, n_categories = _shared_positions(first, second, labels)
    counted = (first_index >= 0) & (second_index >= 0)
    confusion = np.bincount(
        first_index[counted] * n_categories + second_index[counted], minlength=n_categories**2
    ).reshape(n_categories, n_categories)
    return _kappa_from_confusion(confusion, weights)


class PairConfusions(NamedTuple):
    """The confusion matrices of every pair of raters who share an item, from one encoding.

    Attributes
    ----------
    first, second : ndarray of intp, shape (n_pairs,)
        The pair's raters (rows of the codes), ``first <= second``, in
        row-major order of (first, second).
    confusion : ndarray of int64, shape (n_pairs, n_categories, n_categories)
        ``confusion[p, i, j]``: items on which ``first[p]`` said category
        ``i`` and ``second[p]`` category ``j``.
    """

    first: npt.NDArray[np.intp]
    second: npt.NDArray[np.intp]
    confusion: npt.NDArray[np.int64]


def pair_confusions(codes: npt.ArrayLike, n_categories: int, *, same: bool = False) -> PairConfusions:
    """Every pair of raters' confusion matrix in one sparse product.

    ``codes``: raters x items, each label's category position (0 ..
    ``n_categories`` - 1) or -1 where the rater gave none. A pair's matrix
    counts the items both labelled, as :func:`cohen_kappa` of their shared
    items with ``labels`` the categories in position order builds it; only
    pairs sharing an item are listed, and a rater with itself only when
    ``same``. The labels are one-hot encoded once (items x (raters x
    categories), sparse) and multiplied by themselves: one pass for every
    pair, where :func:`cohen_kappa` per pair encodes both raters' labels
    again.

    >>> found = pair_confusions([[0, 1, 1, -1], [0, 1, 0, 1], [-1, -1, -1, 1]], 2)
    >>> found.first.tolist(), found.second.tolist()
    ([0, 1], [1, 2])
    >>> found.confusion[0].tolist()
    [[1, 0], [1, 1]]
    """
    table = np.asarray(codes)
    if table.ndim != 2 or (table.size and table.dtype.kind not in "iu"):
        raise ValueError("codes must be a 2-D array of integer category positions (-1: none)")
    if table.size and (table.min() < -1 or table.max() >= n_categories):
        raise ValueError(f"codes must lie in -1 .. {n_categories - 1}")
    raters, items = table.shape
    rater, item = np.nonzero(table >= 0)
    return _pair_confusions(item, rater, table[rater, item], items, raters, int(n_categories), same)


def sparse_pair_confusions(ratings: SparseRatings, n_categories: int, *, same: bool = False) -> PairConfusions:
    """:func:`pair_confusions` of ratings held sparse (values: category positions 0 ..
    ``n_categories`` - 1): time and memory grow with the ratings, not items x raters.

    >>> from stats.ratings import SparseRatings
    >>> codes = [[0, 1, 1, -1], [0, 1, 0, 1], [-1, -1, -1, 1]]
    >>> ratings = SparseRatings.from_dense(np.where(np.array(codes) < 0, np.nan, codes).T)
    >>> found = sparse_pair_confusions(ratings, 2)
    >>> found.first.tolist(), found.second.tolist(), found.confusion[0].tolist()
    ([0, 1], [1, 2], [[1, 0], [1, 1]])
    """
    codes = _rating_codes(ratings, n_categories)
    return _pair_confusions(ratings.items, ratings.raters, codes, ratings.n_items, ratings.n_raters, n_categories, same)


def largest(values: npt.ArrayLike, k: int) -> npt.NDArray[np.intp]:
    """The positions of the ``k`` largest ``values`` (ties: the earlier), in position order:
    ``np.sort(np.argsort(-values, kind="stable")[:k])`` in linear time (a crowd's 2,000,000
    pairs are not sorted to list 500 of them).

    >>> largest([3, 1, 3, 2, 3], 2).tolist()
    [0, 2]
    >>> largest([1, 2], 5).tolist()
    [0, 1]
    """
    values = np.asarray(values)
    if len(values) <= k:
        return np.arange(len(values))
    if k <= 0:
        return np.zeros(0, dtype=np.intp)
    threshold = np.partition(values, len(values) - k)[len(values) - k]
    above = np.flatnonzero(values > threshold)
    tied = np.flatnonzero(values == threshold)[: k - len(above)]
    return np.sort(np.concatenate([above, tied]))


def most_partnered(first: npt.ArrayLike, second: npt.ArrayLike, n: int, k: int) -> npt.NDArray[np.intp]:
    """Of ``n`` raters, the ``k`` who share items with the most others (ties: the earlier),
    in rater order: ``first`` and ``second`` list every pair sharing an item, once each.

    >>> most_partnered([0, 0, 1], [1, 2, 2], 4, 2).tolist()
    [0, 1]
    """
    partners = np.bincount(np.asarray(first, dtype=np.intp), minlength=n) + np.bincount(
        np.asarray(second, dtype=np.intp), minlength=n
    )
    return largest(partners, k)


def pair_matrix(
    n: int,
    first: npt.ArrayLike,
    second: npt.ArrayLike,
    values: npt.ArrayLike,
    chosen: npt.ArrayLike | None = None,
) -> list[list[float | None]]:
    """A symmetric matrix of a figure per pair of ``n`` raters (``values[p]`` of the pair
    ``first[p]``, ``second[p]``) over the raters ``chosen`` (indexes in order; None: all),
    1 on the diagonal, None where two share no item (NaN where they do and it is undefined).

    >>> pair_matrix(3, [0, 1], [1, 2], [0.5, float("nan")])
    [[1.0, 0.5, None], [0.5, 1.0, nan], [None, nan, 1.0]]
    >>> pair_matrix(3, [0, 1], [1, 2], [0.5, 0.25], chosen=[1, 2])
    [[1.0, 0.25], [0.25, 1.0]]
    """
    chosen = np.arange(n) if chosen is None else np.asarray(chosen, dtype=np.intp)
    place = np.full(n, -1, dtype=np.intp)
    place[chosen] = np.arange(len(chosen))
    i, j = place[np.asarray(first, dtype=np.intp)], place[np.asarray(second, dtype=np.intp)]
    inside = (i >= 0) & (j >= 0)
    values = np.asarray(values, dtype=np.float64)[inside]
    matrix = np.full((len(chosen), len(chosen)), None, dtype=object)
    # filled as an array of Python objects, not pair by pair: a crowd has millions of pairs
    kept = values.astype(object)
    matrix[i[inside], j[inside]] = kept
    matrix[j[inside], i[inside]] = kept
    np.fill_diagonal(matrix, 1.0)
    return matrix.tolist()


class PairCells(NamedTuple):
    """The non-zero cells of every pair of raters' confusion matrix (what
    :func:`sparse_pair_cells` gives): a crowd's pairs share few items, so
    their matrices are mostly zeros.

    Attributes
    ----------
    first, second : ndarray of intp, shape (n_pairs,)
        As in :class:`PairConfusions`.
    pair, row, column : ndarray of intp, shape (n_cells,)
        Each cell's pair (index into ``first``/``second``) and its categories:
        ``first[pair]`` said ``row``, ``second[pair]`` said ``column``;
        each (pair, row, column) once.
    count : ndarray of int64, shape (n_cells,)
        Items in the cell (at least 1).
    """

    first: npt.NDArray[np.intp]
    second: npt.NDArray[np.intp]
    pair: npt.NDArray[np.intp]
    row: npt.NDArray[np.intp]
    column: npt.NDArray[np.intp]
    count: npt.NDArray[np.int64]


def sparse_pair_cells(ratings: SparseRatings, n_categories: int, *, same: bool = False) -> PairCells:
    """:func:`sparse_pair_confusions` as the matrices' non-zero cells: memory grows with the
    ratings' pairs, not with pairs x categories^2 (the same one sparse product).

    >>> from stats.ratings import SparseRatings
    >>> codes = [[0, 1, 1, -1], [0, 1, 0, 1], [-1, -1, -1, 1]]
    >>> ratings = SparseRatings.from_dense(np.where(np.array(codes) < 0, np.nan, codes).T)
    >>> cells = sparse_pair_cells(ratings, 2)
    >>> cells.first.tolist(), cells.second.tolist()
    ([0, 1], [1, 2])
    >>> sorted(zip(cells.pair.tolist(), cells.row.tolist(), cells.column.tolist(), cells.count.tolist()))
    [(0, 0, 0, 1), (0, 1, 0, 1), (0, 1, 1, 1), (1, 1, 1, 1)]
    """
    codes = _rating_codes(ratings, n_categories)
    return _pair_cells(ratings.items, ratings.raters, codes, ratings.n_items, ratings.n_raters, n_categories, same)


def _rating_codes(ratings: SparseRatings, n_categories: int) -> npt.NDArray[np.intp]:
    values = ratings.values
    if values.size and (values.min() < 0 or values.max() >= n_categories or (values != np.floor(values)).any()):
        raise ValueError(f"ratings must be category positions 0 .. {n_categories - 1}")
    return values.astype(np.intp)


def _pair_confusions(
    item: np.ndarray, rater: np.ndarray, code: np.ndarray, items: int, raters: int, q: int, same: bool
) -> PairConfusions:
    cells = _pair_cells(item, rater, code, items, raters, q, same)
    confusion = np.zeros((len(cells.first), q, q), dtype=np.int64)
    confusion[cells.pair, cells.row, cells.column] = cells.count  # each cell once: the product summed them
    return PairConfusions(cells.first, cells.second, confusion)


def _pair_cells(
    item: np.ndarray, rater: np.ndarray, code: np.ndarray, items: int, raters: int, q: int, same: bool
) -> PairCells:
    if items * raters * q <= _SMALL_ONE_HOT:
        # a topic's few items: the dense product, without scipy.sparse's set-up (the same counts)
        dense = np.zeros((items, raters * q), dtype=np.int64)
        dense[item, rater * q + code] = 1
        product = dense.T @ dense
        rows, columns = (np.asarray(found, dtype=np.intp) for found in np.nonzero(product))
        data = product[rows, columns]
    else:
        one_hot = sparse.csr_array(
            (np.ones(len(item), dtype=np.int64), (item, rater * q + code)), shape=(items, raters * q)
        )
        found = (one_hot.T @ one_hot).tocoo()  # (raters x categories)^2: rater a's i with rater b's j
        rows, columns, data = np.asarray(found.row, dtype=np.intp), np.asarray(found.col, dtype=np.intp), found.data
    first, second = rows // q, columns // q
    kept = (first < second) | (same & (first == second))
    first, second, counts = first[kept], second[kept], np.asarray(data, dtype=np.int64)[kept]
    pair_key = first * raters + second
    if raters * raters <= _PAIR_BITMAP:
        # few raters: which pairs occur, marked in a raters x raters bitmap (linear), not sorted
        seen = np.zeros(raters * raters, dtype=bool)
        seen[pair_key] = True
        keys = np.flatnonzero(seen)
        pair = (np.cumsum(seen) - 1)[pair_key]
    else:
        keys, pair = np.unique(pair_key, return_inverse=True)
    return PairCells(
        keys // raters if raters else keys,
        keys % raters if raters else keys,
        pair.reshape(-1).astype(np.intp),
        rows[kept] % q,
        columns[kept] % q,
        counts,
    )


def kappas_from_confusions(confusion: npt.ArrayLike, weights: KappaWeights | None = None) -> npt.NDArray[np.float64]:
    """Cohen's kappa of each of a stack of confusion matrices (``(..., q, q)`` counts), exactly as
    :func:`cohen_kappa` computes it from one (NaN where it is 0/0), for every matrix at once.

    >>> kappas_from_confusions([[[2, 1], [0, 1]], [[3, 0], [0, 0]]]).tolist()
    [0.5, nan]
    """
    _check_weights(weights)
    table = np.asarray(confusion)
    if table.ndim < 2 or table.shape[-1] != table.shape[-2]:
        raise ValueError(f"confusion must have shape (..., q, q), got {table.shape}")
    if table.ndim == 3 and len(table) > _KAPPA_BLOCK:
        # a block of matrices at a time: the temporaries are several times the stack (a crowd's
        # 1.8 million pairs of 5 x 5 counts are 360 MB, their temporaries 1 GB more at once)
        blocks = range(0, len(table), _KAPPA_BLOCK)
        return np.concatenate([kappas_from_confusions(table[b : b + _KAPPA_BLOCK], weights) for b in blocks])
    n = table.sum(axis=(-2, -1))
    distance = _kappa_distance(table.shape[-1], weights)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = table.sum(axis=-1)[..., :, np.newaxis] * table.sum(axis=-2)[..., np.newaxis, :] / n[..., None, None]
        expected_disagreement = np.sum(distance * expected, axis=(-2, -1))
        kappa = 1 - np.sum(distance * table, axis=(-2, -1)) / expected_disagreement
    return np.where((n > 0) & (expected_disagreement != 0), kappa, np.nan)


def fleiss_kappa(counts: npt.ArrayLike | CategoryCounts) -> float:
    r"""Fleiss' kappa of many raters who each put every item in one category.

    With :math:`N` items, :math:`n` raters per item and :math:`n_{ij}` raters
    putting item :math:`i` in category :math:`j` (Fleiss 1971, "Measuring
    nominal scale agreement among many raters", Psychol. Bull. 76(5):378-382):

    .. math::
        P_i = \frac{\sum_j n_{ij}^2 - n}{n(n-1)},\quad
        \bar P = \frac1N \sum_i P_i,\quad
        p_j = \frac{\sum_i n_{ij}}{Nn},\quad
        \bar P_e = \sum_j p_j^2,\quad
        \kappa = \frac{\bar P - \bar P_e}{1 - \bar P_e}

    Same as ``statsmodels.stats.inter_rater.fleiss_kappa(method="fleiss")``.

    Every item must have the same number of raters, as in Fleiss (1971) and
    statsmodels: the generalisations to varying numbers of raters disagree
    with each other (items weighted equally or by their raters), so none is
    picked silently. With missing ratings use :func:`krippendorff_alpha`, which
    is defined for them, or keep only the fully rated items.

    Parameters
    ----------
    counts : array_like of shape (n_items, n_categories), or CategoryCounts
        Non-negative whole numbers; each row sums to the number of raters.
        The output of :func:`category_counts` is accepted as it is.

    Returns
    -------
    float
        Kappa, or NaN when it is 0/0: no items or categories, fewer than two
        raters per item, or every rating in one category.

    Raises
    ------
    ValueError
        If ``counts`` is not 2-D, holds negative, fractional or non-finite
        values, or its rows have different sums.

    Examples
    --------
    >>> round(fleiss_kappa([[3, 0], [0, 3], [2, 1], [1, 2]]), 4)
    0.3333
    >>> round(fleiss_kappa(category_counts([["yes", "yes"], ["no", "yes"]])), 4)
    -0.3333
    """
    table = _count_table(counts)
    n_items, n_categories = table.shape
    if n_items == 0 or n_categories == 0:
        return float("nan")
    # einsum sums the short rows of a tall table several times faster than ndarray.sum.
    raters = np.einsum("ij->i", table)
    if np.any(raters != raters[0]):
        raise ValueError(
            "counts must have the same number of raters (row sum) for every item, got row sums "
            f"from {raters.min():g} to {raters.max():g}; use krippendorff_alpha for missing ratings"
        )
    n_raters = raters[0]
    category_totals = np.einsum("ij->j", table)
    if n_raters < 2 or np.count_nonzero(category_totals) < 2:
        return float("nan")
    squares_per_item = np.einsum("ij,ij->i", table, table)
    mean_item_agreement = np.mean((squares_per_item - n_raters) / (n_raters * (n_raters - 1.0)))
    chance_agreement = np.sum(np.square(category_totals / (n_items * n_raters)))
    return float((mean_item_agreement - chance_agreement) / (1 - chance_agreement))


def category_counts(ratings: npt.ArrayLike, *, categories: npt.ArrayLike | None = None) -> CategoryCounts:
    """Count how many raters put each item in each category.

    Parameters
    ----------
    ratings : array_like of shape (n_items, n_raters)
        One row per item, one column per rater; ``NaN`` or ``None`` where a
        rater did not rate the item. Numbers or strings.
    categories : array_like, optional
        The columns of the table, in order; may include categories nobody
        used. Default: the sorted distinct values in ``ratings``.

    Returns
    -------
    CategoryCounts
        ``(counts, categories)``: ``counts[i, j]`` raters put item ``i`` in
        ``categories[j]``; missing ratings are not counted, so rows of
        partially rated items sum to fewer raters.

    Raises
    ------
    ValueError
        If ``ratings`` is not 2-D or mixes numbers and strings, or
        ``categories`` has duplicates or misses a value that occurs in
        ``ratings``.

    Examples
    --------
    >>> counts, labels = category_counts([["a", "b", "a"], ["b", None, "b"]])
    >>> counts
    array([[2, 1],
           [0, 2]])
    >>> labels
    array(['a', 'b'], dtype='<U1')
    >>> category_counts([[1, 1], [3, 1]], categories=[3, 2, 1]).counts
    array([[0, 0, 2],
           [1, 0, 1]])
    """
    table = _as_array(ratings, "ratings")
    _check_ndim(table, 2, "ratings", "(n_items, n_raters)")
    labels = _encode(table, "ratings")
    if categories is None:
        counts = _count_cells(labels.codes, len(labels.categories), item_axis=0)
        return CategoryCounts(counts, labels.categories)
    wanted = _category_list(categories, "categories", like=labels.categories)
    position = _positions_in(labels.categories, wanted)
    unknown = labels.categories[position < 0]
    if unknown.size:
        raise ValueError(f"ratings holds values missing from categories: {unknown[:5].tolist()}")
    codes = np.append(position, len(wanted))[labels.codes]
    return CategoryCounts(_count_cells(codes, len(wanted), item_axis=0), wanted)


def krippendorff_alpha(reliability_data: npt.ArrayLike, *, level: Level = "nominal") -> float:
    r"""Krippendorff's alpha for any number of coders, with missing values.

    Follows Krippendorff (2011) "Computing Krippendorff's Alpha-Reliability"
    (Annenberg School for Communication, U. Pennsylvania), section C for the
    coincidences and section D for the metric differences:

    .. math::
        o_{ck} = \sum_u \frac{n_{uc} n_{uk} - [c = k]\, n_{uc}}{m_u - 1},\quad
        \alpha = 1 - (n - 1)
            \frac{\sum_{c,k} o_{ck}\,\delta^2_{ck}}{\sum_{c,k} n_c n_k\,\delta^2_{ck}}

    with :math:`n_{uc}` the coders giving value :math:`c` to unit :math:`u`,
    :math:`m_u` the values in unit :math:`u`, :math:`n_c = \sum_k o_{ck}` and
    :math:`n = \sum_c n_c`. Units with fewer than two values are not
    pairable and are left out. Differences :math:`\delta^2_{ck}` (zero when
    :math:`c = k`): nominal 1; ordinal
    :math:`(\sum_{g=c}^{k} n_g - (n_c + n_k)/2)^2`; interval :math:`(c - k)^2`;
    ratio :math:`((c - k)/(c + k))^2`.

    The coincidences come from the units x values count matrix by one
    sparse or dense matrix product, never from a units x coders x values
    array: memory grows with the ratings and the values in use. Expected
    disagreement has a closed form for the nominal, ordinal and interval
    differences; the ratio difference is summed over all pairs of distinct
    values in blocks, so with many distinct values (continuous data) the
    ratio level takes time quadratic in their number.

    Parameters
    ----------
    reliability_data : array_like of shape (n_coders, n_units)
        The value each coder gave each unit; ``NaN`` or ``None`` where the
        coder gave none. Numbers, or strings for the nominal level.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of measurement; all but nominal need numbers (ordinal uses only
        their order), ratio needs them non-negative.

    Returns
    -------
    float
        Alpha, or NaN when it is 0/0: no pairable unit, or a single value
        among the pairable units (no expected disagreement).

    Raises
    ------
    ValueError
        If ``reliability_data`` is not 2-D, mixes numbers and strings, or
        does not suit ``level``, or ``level`` is unknown.

    Examples
    --------
    Krippendorff (2011), section C: 4 coders, 12 units, missing values.

    >>> nan = float("nan")
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...         [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    >>> round(krippendorff_alpha(data), 3)
    0.743
    >>> round(krippendorff_alpha(data, level="interval"), 3)
    0.849
    """
    _check_level(level)
    data = _as_array(reliability_data, "reliability_data")
    _check_ndim(data, 2, "reliability_data", "(n_coders, n_units)")
    labels = _encode(data, "reliability_data")
    values = _values_for_level(labels.categories, level)
    unit_counts = _pairable_unit_counts(labels.codes, len(values))
    value_totals = np.asarray(unit_counts.sum(axis=0), dtype=np.float64).ravel()
    if np.count_nonzero(value_totals) < 2:
        return float("nan")
    difference = _difference_function(level, values, value_totals)
    rows, cols, coincidences = _nonzero_entries(_coincidences(unit_counts))
    observed = coincidences @ difference(rows, cols)
    expected = _expected_disagreement(level, values, value_totals, difference)
    return float(1 - (value_totals.sum() - 1) * observed / expected)


def pairwise_agreement(a: npt.ArrayLike, b: npt.ArrayLike) -> PairwiseAgreement:
    r"""Agreement figures of two raters' binary judgments (match / no match).

    From the 2x2 table (a: both positive, b: first only, c: second only,
    d: both negative), as in Arehart, Wolf & Miller, "Adjudicator Agreement
    and System Rankings for Person Name Search", section 3.1 ("Levels of
    Agreement"), Figure 3; their Figure 4 reports these with kappa for each
    pair of adjudicators:

    .. math::
        \mathrm{overlap} = \frac{a}{a+b+c},\quad
        p_+ = \frac{2a}{2a+b+c},\quad
        p_- = \frac{2d}{2d+b+c}

    :math:`p_+` and :math:`p_-` are the proportions of specific agreement of
    Fleiss (1981) "Statistical Methods for Rates and Proportions" (see also
    Cicchetti & Feinstein 1990). ``kappa`` is Cohen's, in the 2x2 closed form
    :math:`2(ad - bc) / ((a+b)(b+d) + (a+c)(c+d))`, equal to
    :func:`cohen_kappa` on the same labels.

    Parameters
    ----------
    a, b : array_like of shape (n_items,)
        The two raters' judgments: bool, or numbers that are all 0 or 1.

    Returns
    -------
    PairwiseAgreement
        The counts and figures. A figure whose denominator is 0 is NaN:
        all of them when there are no items, ``overlap`` and ``positive``
        when neither rater said positive, ``negative`` when neither said
        negative, ``kappa`` when both raters gave one and the same label
        throughout.

    Raises
    ------
    ValueError
        If ``a`` or ``b`` is not 1-D, they differ in length, or either holds
        a value other than 0/1/True/False (missing values included).

    Examples
    --------
    >>> agreement = pairwise_agreement([1, 1, 1, 0, 0, 0], [1, 1, 0, 1, 0, 0])
    >>> agreement.a, agreement.b, agreement.c, agreement.d
    (2, 1, 1, 2)
    >>> agreement.overlap, agreement.positive, round(agreement.kappa, 4)
    (0.5, 0.6666666666666666, 0.3333)
    """
    first = _binary(a, "a")
    second = _binary(b, "b")
    _check_same_length(first, second)
    both = int(np.count_nonzero(first & second))
    first_only = int(np.count_nonzero(first)) - both
    second_only = int(np.count_nonzero(second)) - both
    return pairwise_of_table(both, first_only, second_only, len(first) - both - first_only - second_only)


def pairwise_of_table(both: int, first_only: int, second_only: int, neither: int) -> PairwiseAgreement:
    """:func:`pairwise_agreement` of the 2x2 table itself (a, b, c, d): the same figures
    from the same integers, for pairs whose tables came from one product
    (:func:`sparse_pair_confusions`).

    >>> found = pairwise_of_table(2, 1, 1, 2)
    >>> found == pairwise_agreement([1, 1, 1, 0, 0, 0], [1, 1, 0, 1, 0, 0])
    True
    """
    both, first_only, second_only, neither = int(both), int(first_only), int(second_only), int(neither)
    if min(both, first_only, second_only, neither) < 0:
        raise ValueError("the cells of a 2x2 table must be non-negative counts")
    n = both + first_only + second_only + neither
    disagreements = first_only + second_only
    return PairwiseAgreement(
        a=both,
        b=first_only,
        c=second_only,
        d=neither,
        n=n,
        observed=_ratio(both + neither, n),
        overlap=_ratio(both, both + disagreements),
        positive=_ratio(2 * both, 2 * both + disagreements),
        negative=_ratio(2 * neither, 2 * neither + disagreements),
        kappa=_ratio(
            2 * (both * neither - first_only * second_only),
            (both + first_only) * (first_only + neither) + (both + second_only) * (second_only + neither),
        ),
    )


# --- validation -------------------------------------------------------------


def _as_array(values: Any, name: str) -> np.ndarray:
    try:
        return np.asarray(values)
    except ValueError as error:  # ragged nested sequences
        raise ValueError(f"{name} must be a rectangular array: {error}") from None


def _check_ndim(array: np.ndarray, ndim: int, name: str, shape: str) -> None:
    if array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D with shape {shape}, got shape {array.shape}")


def _check_same_length(first: np.ndarray, second: np.ndarray) -> None:
    if len(first) != len(second):
        raise ValueError(f"a and b must have the same length, got {len(first)} and {len(second)}")


def _check_weights(weights: Any) -> None:
    if not (weights is None or (isinstance(weights, str) and weights in ("linear", "quadratic"))):
        raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")


def _check_level(level: Any) -> None:
    if not (isinstance(level, str) and level in _LEVELS):
        raise ValueError(f"level must be one of {', '.join(map(repr, _LEVELS))}, got {level!r}")


def _two_raters(a: Any, b: Any) -> tuple[_Labels, _Labels]:
    first = _as_array(a, "a")
    second = _as_array(b, "b")
    _check_ndim(first, 1, "a", "(n_items,)")
    _check_ndim(second, 1, "b", "(n_items,)")
    _check_same_length(first, second)
    encoded = []
    for array, name in ((first, "a"), (second, "b")):
        labels = _encode(array, name)
        if np.any(labels.codes == len(labels.categories)):
            raise ValueError(f"{name} holds missing values (NaN or None); every item needs both labels")
        encoded.append(labels)
    _check_compatible(encoded[0].categories, encoded[1].categories, "a and b")
    return encoded[0], encoded[1]


def _binary(values: Any, name: str) -> npt.NDArray[np.bool_]:
    array = _as_array(values, name)
    _check_ndim(array, 1, name, "(n_items,)")
    if array.dtype.kind == "b":
        return array
    if array.dtype.kind in "iuf" and np.all((array == 0) | (array == 1)):
        return array.astype(bool)
    raise ValueError(f"{name} must hold binary labels (bool, or numbers 0 and 1 only)")


def _count_table(counts: Any) -> npt.NDArray[np.int64] | npt.NDArray[np.float64]:
    if isinstance(counts, CategoryCounts):
        counts = counts.counts
    table = _as_array(counts, "counts")
    _check_ndim(table, 2, "counts", "(n_items, n_categories)")
    if table.dtype.kind in "biu":
        table = table.astype(np.int64, copy=False)
    elif table.dtype.kind == "f":
        if not np.all(np.isfinite(table)) or np.any(table != np.floor(table)):
            raise ValueError("counts must hold whole numbers (numbers of raters)")
    else:
        raise ValueError(f"counts must hold numbers, got dtype {table.dtype}")
    if np.any(table < 0):
        raise ValueError("counts must not be negative")
    return table


def _category_list(values: Any, name: str, *, like: np.ndarray) -> np.ndarray:
    array = _as_array(values, name)
    _check_ndim(array, 1, name, "(n_categories,)")
    if array.size == 0:
        raise ValueError(f"{name} must not be empty")
    labels = _encode(array, name)
    if np.any(labels.codes == len(labels.categories)):
        raise ValueError(f"{name} must not hold missing values")
    if len(labels.categories) != len(array):
        raise ValueError(f"{name} must not hold duplicates")
    _check_compatible(like, labels.categories, f"the data and {name}")
    return labels.categories[labels.codes]


def _check_compatible(first: np.ndarray, second: np.ndarray, what: str) -> None:
    if first.size and second.size and _family(first) != _family(second):
        raise ValueError(f"{what} must both hold numbers or both hold strings")


def _family(values: np.ndarray) -> str:
    return "string" if values.dtype.kind in "US" else "number"


def _values_for_level(values: np.ndarray, level: str) -> np.ndarray:
    if level == "nominal":
        return values
    if values.dtype.kind not in "biuf":
        raise ValueError(f"reliability_data must hold numbers for level={level!r}, got {values.dtype}")
    if level == "ratio" and np.any(values < 0):
        raise ValueError("reliability_data must not hold negative values for level='ratio'")
    return values.astype(np.float64)


# --- labels to integer codes -------------------------------------------------


def _encode(array: np.ndarray, name: str) -> _Labels:
    """Replace each value by its index among the sorted distinct values."""
    if array.dtype.kind not in "biufUSO":
        raise ValueError(f"{name} must hold numbers or strings, got dtype {array.dtype}")
    if array.dtype.kind != "O":
        return _encode_plain(array)
    missing = np.asarray(_is_missing_elementwise(array), dtype=bool)
    present = _encode_plain(_plain_values(array[~missing], name))
    codes = np.full(array.shape, len(present.categories), dtype=np.intp)
    codes[~missing] = present.codes
    return _Labels(codes, present.categories)


def _encode_plain(array: np.ndarray) -> _Labels:
    """_encode for numbers (NaN missing) or strings: no Python objects."""
    if array.size and array.dtype.kind in "biuf":
        direct = _encode_small_integers(array)
        if direct is not None:
            return direct
    missing = np.isnan(array) if array.dtype.kind == "f" else np.zeros(array.shape, dtype=bool)
    categories, present_codes = np.unique(array[~missing], return_inverse=True)
    codes = np.full(array.shape, len(categories), dtype=np.intp)
    codes[~missing] = present_codes.reshape(-1)
    return _Labels(codes, categories)


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float | np.floating) and bool(np.isnan(value)))


_is_missing_elementwise = np.frompyfunc(_is_missing, 1, 1)


def _plain_values(objects: np.ndarray, name: str) -> np.ndarray:
    """Turn the non-missing entries of an object array into numbers or strings."""
    values = np.asarray(objects.tolist())
    if values.dtype.kind in "biuf" or (values.dtype.kind in "US" and all(isinstance(value, str) for value in objects)):
        return values
    raise ValueError(f"{name} must hold only numbers or only strings (besides missing values)")


def _encode_small_integers(array: np.ndarray) -> _Labels | None:
    """_encode in a few linear passes for whole numbers in a short range, else None.

    NaN is sent to the bin past the largest value, which is then exactly the
    missing code, so missing values need no mask.
    """
    numbers = array.view(np.uint8) if array.dtype.kind == "b" else array
    low, high = np.fmin.reduce(numbers, axis=None), np.fmax.reduce(numbers, axis=None)
    if not (np.isfinite(low) and np.isfinite(high)):  # all missing, or infinite values
        return None
    # A span far wider than the data would make the bincount cost more than the sort it replaces.
    span_limit = min(_MAX_DIRECT_SPAN, 1024 + 4 * array.size)
    if max(abs(float(low)), abs(float(high))) >= 2**53 or float(high) - float(low) >= span_limit:
        return None
    span = int(high) - int(low)
    if numbers.dtype.kind == "f":
        shifted = numbers - low
        np.fmin(shifted, span + 1, out=shifted)  # fmin keeps the number, not the NaN
        offsets = shifted.astype(np.intp)
        if np.any(offsets != shifted):  # a fraction was truncated
            return None
    else:
        offsets = numbers.astype(np.intp)
        offsets -= np.intp(low)
    seen = np.bincount(offsets.ravel(), minlength=span + 2)[: span + 1] > 0
    categories = (np.flatnonzero(seen) + low).astype(array.dtype)
    if seen.all():
        return _Labels(offsets, categories)
    code_of_offset = np.append(np.cumsum(seen, dtype=np.intp) - 1, len(categories))
    return _Labels(code_of_offset[offsets], categories)


def _positions_in(found: np.ndarray, wanted: np.ndarray) -> npt.NDArray[np.intp]:
    """Index of each of ``found`` in ``wanted``, -1 where absent."""
    if found.size == 0:
        return np.zeros(0, dtype=np.intp)
    order = np.argsort(wanted, kind="stable")
    candidate = np.minimum(np.searchsorted(wanted[order], found), len(wanted) - 1)
    return np.where(wanted[order][candidate] == found, order[candidate], -1)


def _shared_positions(
    first: _Labels, second: _Labels, labels: Any
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], int]:
    """Both raters' labels as positions in one category order (-1: not counted)."""
    if labels is None:
        categories = np.union1d(first.categories, second.categories)
        first_map = np.searchsorted(categories, first.categories)
        second_map = np.searchsorted(categories, second.categories)
    else:
        found = first.categories if first.categories.size else second.categories
        categories = _category_list(labels, "labels", like=found)
        first_map = _positions_in(first.categories, categories)
        second_map = _positions_in(second.categories, categories)
    return first_map[first.codes], second_map[second.codes], len(categories)


# --- kappa ------------------------------------------------------------------


def _kappa_distance(n_categories: int, weights: str | None) -> npt.NDArray[np.float64]:
    """The disagreement weights between category positions: [i != j], |i - j| or (i - j)^2."""
    positions = np.arange(n_categories)
    distance = np.abs(positions[:, np.newaxis] - positions[np.newaxis, :]).astype(np.float64)
    if weights is None:
        return np.minimum(distance, 1.0)
    if weights == "quadratic":
        return np.square(distance)
    return distance


def _kappa_from_confusion(confusion: npt.NDArray[np.int64], weights: str | None) -> float:
    n = confusion.sum()
    if n == 0:
        return float("nan")
    distance = _kappa_distance(confusion.shape[0], weights)
    expected = np.outer(confusion.sum(axis=1), confusion.sum(axis=0)) / n
    expected_disagreement = np.sum(distance * expected)
    # Zero exactly when one category holds every label: a sum of products of counts.
    if expected_disagreement == 0:
        return float("nan")
    return float(1 - np.sum(distance * confusion) / expected_disagreement)


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else float("nan")


# --- counts -----------------------------------------------------------------


def _count_cells(codes: npt.NDArray[np.intp], n_values: int, *, item_axis: int) -> npt.NDArray[np.int64]:
    """Items x values counts of ``codes`` (missing = n_values) along ``item_axis``; overwrites ``codes``."""
    width = n_values + 1  # the last column counts the missing values, then is dropped
    n_items = codes.shape[item_axis]
    offsets = np.arange(n_items, dtype=np.intp) * width
    cells = codes  # consumed: the callers never read their codes again
    cells += offsets[:, np.newaxis] if item_axis == 0 else offsets[np.newaxis, :]
    counts = np.bincount(cells.ravel(), minlength=n_items * width).reshape(n_items, width)
    return counts[:, :n_values].astype(np.int64)


def _pairable_unit_counts(codes: npt.NDArray[np.intp], n_values: int) -> np.ndarray | sparse.csr_array:
    """Units x values counts (float) of coders x units ``codes``, for units with two or more values."""
    n_units = codes.shape[1]
    if n_units * n_values <= _MAX_DENSE_CELLS:
        counts: np.ndarray | sparse.csr_array = _count_cells(codes, n_values, item_axis=1).astype(np.float64)
    else:
        present = codes < n_values
        units = np.broadcast_to(np.arange(n_units)[np.newaxis, :], codes.shape)[present]
        # COO to CSR sums the duplicate (unit, value) entries: the counts.
        counts = sparse.csr_array((np.ones(units.size), (units, codes[present])), shape=(n_units, n_values))
    values_per_unit = np.asarray(counts.sum(axis=1)).ravel()
    return counts[np.flatnonzero(values_per_unit >= 2)]


# --- Krippendorff's alpha -----------------------------------------------------


def _coincidences(unit_counts: np.ndarray | sparse.csr_array) -> np.ndarray | sparse.csr_array:
    """o = sum over units of (n_u n_u^T - diag(n_u)) / (m_u - 1), by one matrix product."""
    pairs_weight = 1.0 / (np.asarray(unit_counts.sum(axis=1)).ravel() - 1)
    if isinstance(unit_counts, np.ndarray):
        weighted = unit_counts * pairs_weight[:, np.newaxis]
        coincidences = weighted.T @ unit_counts
        coincidences[np.diag_indices_from(coincidences)] -= weighted.sum(axis=0)
        return coincidences
    weighted = sparse.diags_array(pairs_weight) @ unit_counts
    self_pairs = sparse.diags_array(np.asarray(weighted.sum(axis=0)).ravel())
    return sparse.csr_array(weighted.T @ unit_counts - self_pairs)


def _nonzero_entries(
    matrix: np.ndarray | sparse.csr_array,
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], npt.NDArray[np.float64]]:
    if isinstance(matrix, np.ndarray):
        rows, cols = np.nonzero(matrix)
        return rows, cols, matrix[rows, cols]
    entries = matrix.tocoo()
    return entries.row.astype(np.intp), entries.col.astype(np.intp), entries.data


def _difference_function(level: str, values: np.ndarray, value_totals: np.ndarray) -> Difference:
    """delta^2(c, k) for arrays of value indices (Krippendorff 2011, section D)."""
    if level == "nominal":
        return lambda c, k: (c != k).astype(np.float64)
    if level == "ratio":
        return lambda c, k: _ratio_difference(values[c], values[k])
    position = _ordinal_positions(value_totals) if level == "ordinal" else values
    return lambda c, k: np.square(position[c] - position[k])


def _ordinal_positions(value_totals: np.ndarray) -> npt.NDArray[np.float64]:
    """Positions whose squared gaps are the ordinal differences.

    sum_{g=c}^{k} n_g - (n_c + n_k)/2 = f_k - f_c with f_c = sum_{g<=c} n_g - n_c/2.
    """
    return np.cumsum(value_totals) - value_totals / 2


def _ratio_difference(first: np.ndarray, second: np.ndarray) -> npt.NDArray[np.float64]:
    total = first + second
    # Both zero is the only way to a zero total for non-negative values: no difference.
    gap = np.divide(first - second, total, out=np.zeros(np.broadcast(first, second).shape), where=total != 0)
    return np.square(gap)


def _expected_disagreement(level: str, values: np.ndarray, value_totals: np.ndarray, difference: Difference) -> float:
    """sum over value pairs of n_c n_k delta^2(c, k), without a values x values array where possible."""
    n = value_totals.sum()
    if level == "nominal":
        return float(n * n - value_totals @ value_totals)
    if level != "ratio":
        # sum_ck n_c n_k (f_c - f_k)^2 = 2 n sum_c n_c (f_c - mean f)^2
        position = _ordinal_positions(value_totals) if level == "ordinal" else values
        centred = position - (value_totals @ position) / n
        return float(2 * n * (value_totals @ np.square(centred)))
    return _blockwise_expected(value_totals, difference)


def _blockwise_expected(value_totals: np.ndarray, difference: Difference) -> float:
    n_values = len(value_totals)
    every = np.arange(n_values, dtype=np.intp)
    block = max(1, _BLOCK_CELLS // n_values)
    total = 0.0
    for start in range(0, n_values, block):  # blocks of values, not items
        rows = every[start : start + block]
        differences = difference(rows[:, np.newaxis], every[np.newaxis, :])
        total += float(value_totals[rows] @ differences @ value_totals)
    return total
