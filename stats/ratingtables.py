r"""Every agreement figure of a rating table: many raters, missing ratings, weights.

A rating table gives each item at most one label per rater on a scale the
organiser declares (nominal categories, ordered categories, or a numeric grid);
a rater may leave an item out ("can't tell" is a missing rating). This module
holds the figures of such a table that :mod:`stats.agreement` and
:mod:`stats.gwet` do not: they share one encoding of the ratings (each rating's
item, rater and category position), so :func:`rating_table` computes all of
them in one pass over the ratings (category counts per item, per-rater category
counts, the pairs' confusion matrices) and never builds the items x raters
array. They sit in a module of their own rather than in ``agreement.py``
because they are one family, Gwet's (2014) framework for many raters with
missing ratings and agreement weights, built on one table and checked against
one reference (irrCAC), and :func:`rating_table` needs every one of them.

Notation (Gwet 2014, "Handbook of Inter-Rater Reliability", 4th ed., Advanced
Analytics, ch. 2-5): ``n`` items rated at least once, ``n_2`` of them rated
twice or more, ``q`` categories, agreement weights ``w_kl`` (1 on the
diagonal; :func:`stats.gwet.agreement_weights`), ``r_ik`` raters putting item
``i`` in category ``k``, ``r_i = sum_k r_ik`` and ``r*_ik = sum_l w_kl r_il``.
The percent agreement every coefficient but Cohen's starts from is

.. math::
    p_a = \frac{1}{n_2}\sum_{i: r_i \ge 2}\sum_k \frac{r_{ik}(r^*_{ik} - 1)}{r_i(r_i - 1)}

(the share of agreeing ordered pairs of ratings per item, weighted, averaged
over the items rated twice or more), and each coefficient is
``(p_a - p_e) / (1 - p_e)`` for its chance agreement ``p_e``:

- Brennan & Prediger (1981, "Coefficient kappa: some uses, misuses, and
  alternatives", Educ. Psychol. Meas. 41(3):687-699): ``p_e = sum_kl w_kl / q^2``;
- Conger (1980, "Integration and generalization of kappas for multiple
  raters", Psychol. Bull. 88(2):322-328): ``p_e`` the mean over ordered pairs
  of distinct raters ``g != h`` of ``sum_kl w_kl p_gk p_hl``, with ``p_gk`` the
  share of rater ``g``'s ratings in category ``k`` (Gwet 2014, section 2.4,
  eq. 2.4.6 with missing ratings);
- Fleiss (1971), generalised to missing ratings and weights (Gwet 2014,
  section 2.3): ``p_e = sum_kl w_kl pi_k pi_l``, ``pi_k`` the mean over items
  of ``r_ik / r_i``;
- Gwet's AC1/AC2: :mod:`stats.gwet`;
- Krippendorff's alpha with weights (Gwet 2014, section 2.5; Krippendorff 2011):
  the same alpha as :func:`stats.agreement.krippendorff_alpha` (nominal:
  identity weights; interval: quadratic weights on the category values;
  ratio: ratio weights).

Standard errors are Gwet's linearised variances without finite-population
correction, exactly as the irrCAC package computes them (Gwet 2014, ch. 5;
for percent agreement, irrCAC's R ``pa.coeff.raw``), and intervals use
Student's t with ``n - 1`` degrees of freedom (``n_2 - 1`` for alpha), the
upper bound capped at 1. Per-unit statistics for the shared bootstrap of
:mod:`stats.uncertainty` come from :func:`rating_table_units`; summing its
rows by topic gives topic units.

Ratings come as a :class:`stats.ratings.SparseRatings` whose values are
category positions ``0 .. q - 1`` (``categories`` then names the scale's
values, in order, for the named weights), or as a dense items x raters array
of labels (numbers or strings, ``NaN``/``None`` missing) for small tables.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import special

from stats import agreement as _agreement
from stats.gwet import WeightName, _weights, gwet_counts
from stats.ratings import SparseRatings
from stats.uncertainty import Interval, UnitStatistics, no_interval

__all__ = [
    "CategoryAgreement",
    "Coefficient",
    "IntraclassCorrelation",
    "IntraclassCorrelations",
    "PairTables",
    "RatingTable",
    "brennan_prediger",
    "category_agreement",
    "conger_kappa",
    "intraclass_correlations",
    "intraclass_units",
    "pair_tables",
    "percent_agreement",
    "rating_table",
    "rating_table_units",
]

Weights = WeightName | npt.ArrayLike
Figure = Literal[
    "percent_agreement",
    "brennan_prediger",
    "conger",
    "fleiss",
    "gwet",
    "krippendorff",
    "specific_agreement",
    "category_kappa",
]
_FIGURES = (
    "percent_agreement",
    "brennan_prediger",
    "conger",
    "fleiss",
    "gwet",
    "krippendorff",
    "specific_agreement",
    "category_kappa",
)
IccForm = Literal["ICC(1,1)", "ICC(2,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)", "ICC(3,k)"]
_ICC_FORMS = ("ICC(1,1)", "ICC(2,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)", "ICC(3,k)")
_NAN = float("nan")


# --- results ----------------------------------------------------------------------


@dataclass(frozen=True)
class Coefficient:
    """An agreement coefficient of a rating table with its parts and standard error.

    Attributes
    ----------
    name : str
        ``"percent agreement"``, ``"Brennan-Prediger"``, ``"Conger's kappa"``,
        ``"Fleiss' kappa"``, ``"Gwet's AC1"`` / ``"Gwet's AC2"`` or ``"Krippendorff's alpha"``.
    value : float
        The coefficient (NaN when undefined).
    pa, pe : float
        Observed (weighted) and chance agreement (``pe`` is 0 for percent agreement).
    se : float
        Gwet's linearised standard error (NaN with fewer than two items).
    items : int
        Items behind the standard error: rated at least once (rated twice or more for alpha).
    weights : str
        The weights' name, or ``"custom"``.
    """

    name: str
    value: float
    pa: float
    pe: float
    se: float
    items: int
    weights: str

    def interval(self, level: float = 0.95) -> Interval:
        """``value +- t(items - 1) * se``, the upper bound capped at 1, as irrCAC gives it.

        >>> result = percent_agreement([[1, 1, 1], [1, 2, 2], [2, 2, 2], [1, 1, None]])
        >>> interval = result.interval()
        >>> round(result.value, 4), round(interval.low, 4), interval.high, interval.method
        (0.8333, 0.3029, 1.0, 'analytic')
        """
        if not 0 < level < 1:
            raise ValueError(f"level must be strictly between 0 and 1, got {level!r}")
        if not (np.isfinite(self.value) and np.isfinite(self.se)) or self.items < 2:
            return no_interval(self.value, self.items, level)
        half = _t_quantile(level, self.items - 1) * self.se
        return Interval(
            self.value, self.value - half, min(1.0, self.value + half), units=self.items, level=level, method="analytic"
        )


@dataclass(frozen=True, eq=False)
class CategoryAgreement:
    """Agreement on each category of a rating table (Fleiss 1971, "Measuring nominal
    scale agreement among many raters", Psychol. Bull. 76(5):378-382, eq. 9-11).

    Over the items rated twice or more, with ``r_ij`` raters putting item ``i``
    in category ``j`` and ``r_i`` its ratings:

    - ``specific[j] = sum_i r_ij (r_ij - 1) / sum_i r_ij (r_i - 1)``: the chance
      that another rater of the item said ``j`` too, given one said ``j``
      (the proportion of specific agreement; Uebersax's specific agreement for
      many raters);
    - ``kappa[j] = (specific[j] - p_j) / (1 - p_j)`` with ``p_j`` the share of
      category ``j`` among those items' ratings: Fleiss' (1971) ``kappa_j =
      1 - sum_i r_ij (n - r_ij) / (N n (n - 1) p_j q_j)`` when every item has
      ``n`` ratings, its generalisation otherwise;
    - ``z[j] = kappa[j] / se0`` with ``se0 = sqrt(2 / sum_i r_i (r_i - 1))``,
      Fleiss, Nee & Landis's (1979, Psychol. Bull. 86(5):974-977) standard
      error of ``kappa_j`` *when it is 0* (``sqrt(2 / (N n (n - 1)))`` with
      ``n`` ratings per item): a test of "no agreement beyond chance on
      ``j``", as R's ``irr::kappam.fleiss(detail = TRUE)`` reports it, not an
      interval; intervals come from :func:`rating_table_units`.

    Attributes
    ----------
    categories : ndarray, shape (q,)
    specific, kappa, z, p_value : ndarray of float64, shape (q,)
        NaN where a category was never used on those items (or used by every rating).
    ratings : ndarray of int64, shape (q,)
        Ratings of each category on the items rated twice or more.
    se0 : float
    items : int
        Items rated twice or more.
    """

    categories: np.ndarray
    specific: npt.NDArray[np.float64]
    kappa: npt.NDArray[np.float64]
    z: npt.NDArray[np.float64]
    p_value: npt.NDArray[np.float64]
    ratings: npt.NDArray[np.int64]
    se0: float
    items: int


@dataclass(frozen=True, eq=False)
class PairTables:
    """Every pair of raters' confusion matrix (raters who share an item), and its figures.

    The matrices are held as their non-zero cells (a crowd's pairs share few
    items: :class:`stats.agreement.PairCells`); :attr:`confusion` gives them
    dense. The figures are computed for all pairs at once from the cells,
    for any weights (a name of :func:`stats.gwet.agreement_weights` over
    ``categories``, or a q x q matrix of agreement weights): Cohen's (1960;
    weighted: 1968) kappa ``(p_o - p_e) / (1 - p_e)`` with ``p_o = sum w_kl
    p_kl`` and ``p_e = sum w_kl p_k. p_.l``, the same value as
    ``sklearn.metrics.cohen_kappa_score`` (whose "linear" and "quadratic" are
    these weights over equally spaced categories), and the standard errors
    of Fleiss, Cohen & Everitt (1969, "Large sample standard errors of kappa
    and weighted kappa", Psychol. Bull. 72(5):323-327) as Gwet (2014, ch. 5)
    and irrCAC's ``cohen`` and ``pa2`` write them.

    Attributes
    ----------
    first, second : ndarray of intp, shape (n_pairs,)
        The pair's raters, ``first < second``, in row-major order.
    cells : stats.agreement.PairCells
        The non-zero cells: ``first[cells.pair]`` said ``cells.row`` and
        ``second[cells.pair]`` said ``cells.column`` on ``cells.count`` items.
    categories : ndarray, shape (q,)

    Examples
    --------
    >>> pairs = pair_tables([[0, 0, None], [1, 1, 1], [2, 1, 2], [0, 1, 0]])
    >>> pairs.first.tolist(), pairs.second.tolist(), pairs.items.tolist()
    ([0, 0, 1], [1, 2, 2], [4, 3, 3])
    >>> pairs.agreement().tolist()
    [0.5, 1.0, 0.3333333333333333]
    >>> [round(float(k), 4) for k in pairs.kappa("quadratic")]
    [0.4286, 1.0, 0.0]
    """

    first: npt.NDArray[np.intp]
    second: npt.NDArray[np.intp]
    cells: _agreement.PairCells
    categories: np.ndarray

    @property
    def confusion(self) -> npt.NDArray[np.int64]:
        """The matrices dense, shape (n_pairs, q, q): ``[p, k, l]`` items on which ``first[p]``
        said category ``k`` and ``second[p]`` category ``l`` (pairs x q^2 integers: ask
        for a crowd's only when that fits)."""
        q = len(self.categories)
        confusion = np.zeros((len(self.first), q, q), dtype=np.int64)
        confusion[self.cells.pair, self.cells.row, self.cells.column] = self.cells.count
        return confusion

    @property
    def items(self) -> npt.NDArray[np.int64]:
        """Items each pair both rated."""
        return np.bincount(self.cells.pair, weights=self.cells.count, minlength=len(self.first)).astype(np.int64)

    def agreement(self, weights: Weights = "identity") -> npt.NDArray[np.float64]:
        """Each pair's (weighted) percent agreement ``sum_kl w_kl p_kl``."""
        return self._figures(weights)[0]

    def agreement_se(self, weights: Weights = "identity") -> npt.NDArray[np.float64]:
        """Its standard error ``sqrt((sum w_kl^2 p_kl - p_o^2) / n)`` (Gwet 2014, ch. 5; irrCAC ``pa2``)."""
        return self._figures(weights)[1]

    def kappa(self, weights: Weights = "identity") -> npt.NDArray[np.float64]:
        """Each pair's Cohen's kappa with these weights (NaN where it is 0/0)."""
        return self._figures(weights)[2]

    def kappa_se(self, weights: Weights = "identity") -> npt.NDArray[np.float64]:
        r"""Fleiss, Cohen & Everitt's (1969) standard error of each pair's kappa:
        :math:`\frac{1}{(1-p_e)\sqrt n}\sqrt{\sum_{kl} p_{kl}[w_{kl} - (1-\kappa)(\bar w_{k.}
        + \bar w_{.l})]^2 - (p_o - 2(1-\kappa)p_e)^2}` with :math:`\bar w_{k.} = \sum_l w_{kl} p_{.l}`,
        :math:`\bar w_{.l} = \sum_k w_{kl} p_{k.}` (NaN where kappa is)."""
        return self._figures(weights)[3]

    def _figures(self, weights: Weights) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        w, _ = _weight_matrix(weights, self.categories)
        q, n_pairs = len(self.categories), len(self.first)
        pair, row, column = self.cells.pair, self.cells.row, self.cells.column
        count = self.cells.count.astype(np.float64)
        n = np.bincount(pair, weights=count, minlength=n_pairs)
        cell_weight = w[row, column]

        def per_pair(values: np.ndarray) -> np.ndarray:
            return np.bincount(pair, weights=values, minlength=n_pairs) / n

        with np.errstate(divide="ignore", invalid="ignore"):
            rows = np.bincount(pair * q + row, weights=count, minlength=n_pairs * q).reshape(n_pairs, q) / n[:, None]
            cols = np.bincount(pair * q + column, weights=count, minlength=n_pairs * q).reshape(n_pairs, q) / n[:, None]
            observed = per_pair(count * cell_weight)
            observed_se = np.sqrt(np.maximum(per_pair(count * cell_weight**2) - observed**2, 0.0) / n)
            chance = np.einsum("pk,kl,pl->p", rows, w, cols)
            kappa = (observed - chance) / (1 - chance)
            row_weight = cols @ w.T  # sum_l w_kl p_.l
            col_weight = rows @ w  # sum_k w_kl p_k.
            term = cell_weight - (1 - kappa[pair]) * (row_weight[pair, row] + col_weight[pair, column])
            inner = per_pair(count * term**2) - (observed - 2 * (1 - kappa) * chance) ** 2
            kappa_se = np.sqrt(np.maximum(inner, 0.0) / n) / (1 - chance)
        defined = (n > 0) & (chance != 1)
        return (
            np.where(n > 0, observed, np.nan),
            np.where(n > 0, observed_se, np.nan),
            np.where(defined, kappa, np.nan),
            np.where(defined, kappa_se, np.nan),
        )


@dataclass(frozen=True, eq=False)
class RatingTable:
    """Every agreement figure of a rating table, from :func:`rating_table`.

    Attributes
    ----------
    categories : ndarray, shape (q,)
    weights : str
        The weights' name (``"custom"`` for a matrix).
    items, pairable, raters, ratings : int
        Items rated at least once, items rated twice or more, raters who gave
        a rating, ratings.
    percent_agreement, brennan_prediger, conger, fleiss, gwet, krippendorff : Coefficient
        The coefficients with these weights (identity: unweighted).
    by_category : CategoryAgreement
        Specific agreement and Fleiss' kappa per category (unweighted by definition).
    pairs : PairTables or None
        Every pair of raters' confusion matrix (None when not asked for).
    """

    categories: np.ndarray
    weights: str
    items: int
    pairable: int
    raters: int
    ratings: int
    percent_agreement: Coefficient
    brennan_prediger: Coefficient
    conger: Coefficient
    fleiss: Coefficient
    gwet: Coefficient
    krippendorff: Coefficient
    by_category: CategoryAgreement
    pairs: PairTables | None = field(default=None)

    @property
    def coefficients(self) -> tuple[Coefficient, ...]:
        """The six coefficients in the order of the attributes."""
        return (
            self.percent_agreement,
            self.brennan_prediger,
            self.conger,
            self.fleiss,
            self.gwet,
            self.krippendorff,
        )


# --- the encoding every figure shares --------------------------------------------


class _Coded(NamedTuple):
    """Each rating's item, rater and category position, sorted by item."""

    item: npt.NDArray[np.intp]
    rater: npt.NDArray[np.intp]
    code: npt.NDArray[np.intp]
    n_items: int
    n_raters: int
    categories: np.ndarray


def _coded(ratings: SparseRatings | npt.ArrayLike, categories: npt.ArrayLike | None) -> _Coded:
    if isinstance(ratings, SparseRatings):
        values = ratings.values
        if values.size and (values.min() < 0 or (values != np.floor(values)).any()):
            raise ValueError("ratings must hold category positions 0, 1, ... (whole numbers)")
        if categories is None:
            q = int(values.max()) + 1 if values.size else 0
            labels = np.arange(q)
        else:
            labels = np.asarray(categories)
            if labels.ndim != 1 or labels.size == 0:
                raise ValueError("categories must be a non-empty 1-D list of the scale's values")
            if len(np.unique(labels)) != labels.size:
                raise ValueError("categories must not hold duplicates")
            q = labels.size
        if values.size and values.max() >= q:
            raise ValueError(f"ratings must hold category positions 0 .. {q - 1} (categories lists {q})")
        return _Coded(
            ratings.items.astype(np.intp),
            ratings.raters.astype(np.intp),
            values.astype(np.intp),
            ratings.n_items,
            ratings.n_raters,
            labels,
        )
    table = _agreement._as_array(ratings, "ratings")
    _agreement._check_ndim(table, 2, "ratings", "(n_items, n_raters)")
    labels_found = _agreement._encode(table, "ratings")
    codes, labels = labels_found.codes, labels_found.categories
    if categories is not None:
        wanted = _agreement._category_list(categories, "categories", like=labels)
        position = _agreement._positions_in(labels, wanted)
        unknown = labels[position < 0]
        if unknown.size:
            raise ValueError(f"ratings holds values missing from categories: {unknown[:5].tolist()}")
        codes, labels = np.append(position, len(wanted))[codes], wanted
    item, rater = np.nonzero(codes < len(labels))
    return _Coded(item, rater, codes[item, rater], table.shape[0], table.shape[1], labels)


def _weight_matrix(weights: Weights, categories: np.ndarray) -> tuple[npt.NDArray[np.float64], str]:
    matrix, name = _weights(weights, categories)
    if not np.all(np.isfinite(matrix)):
        raise ValueError("weights must be finite")
    return matrix, name


class _Counts(NamedTuple):
    """Category counts of the items rated at least once, and what every figure reads of them."""

    counts: npt.NDArray[np.float64]  # (n, q)
    raters: npt.NDArray[np.float64]  # r_i
    several: npt.NDArray[np.bool_]  # r_i >= 2
    item_agreement: npt.NDArray[np.float64]  # p_a|i (0 where r_i < 2)
    pair_agreement: npt.NDArray[np.float64]  # sum_k r_ik (r*_ik - 1)
    row: npt.NDArray[np.intp]  # each rating's row in counts
    weights: npt.NDArray[np.float64]


def _counts(coded: _Coded, weights: np.ndarray) -> _Counts:
    q = len(coded.categories)
    per_item = np.bincount(coded.item, minlength=coded.n_items)
    rated = per_item > 0
    row_of_item = np.cumsum(rated) - 1
    row = row_of_item[coded.item]
    n = int(np.count_nonzero(rated))
    counts = np.bincount(row * q + coded.code, minlength=n * q).reshape(n, q).astype(np.float64)
    raters = per_item[rated].astype(np.float64)
    several = raters >= 2
    pair_agreement = np.einsum("ik,ik->i", counts, counts @ weights.T - 1)
    item_agreement = np.divide(pair_agreement, raters * (raters - 1), out=np.zeros(n), where=several)
    return _Counts(counts, raters, several, item_agreement, pair_agreement, row, weights)


# --- the coefficients ---------------------------------------------------------------


def _linearised_se(terms: np.ndarray, value: float) -> float:
    """sqrt(sum (terms - value)^2 / (n (n - 1))): Gwet's variance of a mean of linearised terms."""
    n = len(terms)
    if n < 2 or not np.isfinite(value):
        return _NAN
    return math.sqrt(float(np.sum(np.square(terms - value))) / (n * (n - 1)))


def _observed(table: _Counts) -> tuple[float, int]:
    n2 = int(np.count_nonzero(table.several))
    return (float(table.item_agreement.sum() / n2) if n2 else _NAN), n2


def _percent_agreement(table: _Counts, name: str) -> Coefficient:
    pa, n2 = _observed(table)
    n = len(table.raters)
    se = _linearised_se(n / n2 * table.item_agreement, pa) if n2 else _NAN
    return Coefficient("percent agreement", pa, pa, 0.0, se, n, name)


def _kappa_like(table: _Counts, pe: float, item_chance: np.ndarray | None, title: str, name: str) -> Coefficient:
    """(pa - pe) / (1 - pe) and Gwet's linearised SE, ``item_chance`` the items' p_e|i (None: pe is fixed)."""
    pa, n2 = _observed(table)
    n = len(table.raters)
    if not n2 or not np.isfinite(pe) or pe == 1:
        return Coefficient(title, _NAN, pa, pe, _NAN, n, name)
    value = (pa - pe) / (1 - pe)
    terms = (n / n2) * (table.item_agreement - pe * table.several) / (1 - pe)
    if item_chance is not None:
        terms = terms - 2 * (1 - value) * (item_chance - pe) / (1 - pe)
    return Coefficient(title, float(value), pa, pe, _linearised_se(terms, value), n, name)


def _brennan_prediger(table: _Counts, name: str) -> Coefficient:
    q = table.weights.shape[0]
    pe = float(table.weights.sum() / q**2) if q >= 2 else _NAN
    return _kappa_like(table, pe, None, "Brennan-Prediger", name)


def _fleiss(table: _Counts, name: str) -> Coefficient:
    if table.weights.shape[0] < 2 or len(table.raters) == 0:
        return _kappa_like(table, _NAN, None, "Fleiss' kappa", name)
    w = table.weights
    shares = (table.counts / table.raters[:, None]).mean(axis=0)
    pe = float(shares @ w @ shares)
    item_chance = table.counts @ ((w @ shares + w.T @ shares) / 2) / table.raters
    return _kappa_like(table, pe, item_chance, "Fleiss' kappa", name)


def _conger(table: _Counts, coded: _Coded, name: str) -> Coefficient:
    """Conger's kappa; its p_e|i sums, over the ratings of item i, each rater's term (module docstring)."""
    q = table.weights.shape[0]
    w = table.weights
    by_rater = np.bincount(coded.rater * q + coded.code, minlength=coded.n_raters * q).reshape(coded.n_raters, q)
    given = by_rater.sum(axis=1)
    present = given > 0
    r = int(np.count_nonzero(present))
    if q < 2 or r < 2:
        return _kappa_like(table, _NAN, None, "Conger's kappa", name)
    shares = by_rater[present] / given[present, None]  # p_gk
    totals = shares.sum(axis=0)  # S_k = sum_g p_gk
    pairs = r * (r - 1)
    pe = float((totals @ w @ totals - np.einsum("gk,kl,gl->", shares, w, shares)) / pairs)
    # Gwet's (2014, ch. 5) linearisation, as irrCAC's conger() computes it rating by rating:
    # p_e|i = p_e + sum over the raters g of item i of (n / n_g)(v_g[k_ig] - p_g . v_g) / (r (r - 1)),
    # v_gl = sum_k w_kl (S_k - p_gk).
    v = (totals[None, :] - shares) @ w
    own = np.einsum("gl,gl->g", v, shares)
    rater_row = np.cumsum(present) - 1
    g = rater_row[coded.rater]
    n = len(table.raters)
    per_rating = (n / given[present][g]) * (v[g, coded.code] - own[g])
    item_chance = pe + np.bincount(table.row, weights=per_rating, minlength=n) / pairs
    return _kappa_like(table, pe, item_chance, "Conger's kappa", name)


def _gwet(table: _Counts, categories: np.ndarray, name: str) -> Coefficient:
    result = gwet_counts(table.counts, weights=table.weights, categories=categories)
    title = "Gwet's AC1" if np.array_equal(table.weights, np.eye(len(categories))) else "Gwet's AC2"
    return Coefficient(title, result.value, result.pa, result.pe, result.se, result.items, name)


def _krippendorff(table: _Counts, name: str) -> Coefficient:
    """Krippendorff's alpha with agreement weights and Gwet's (2014, ch. 5) SE, as irrCAC computes them."""
    title = "Krippendorff's alpha"
    keep = table.several
    counts, raters, agree = table.counts[keep], table.raters[keep], table.pair_agreement[keep]
    n2 = len(raters)
    w = table.weights
    if n2 == 0 or w.shape[0] < 2:
        return Coefficient(title, _NAN, _NAN, _NAN, _NAN, n2, name)
    total = raters.sum()
    mean_raters = total / n2
    unit_agreement = agree / (mean_raters * (raters - 1))
    pa_prime = float(unit_agreement.sum() / n2)
    pa = (1 - 1 / total) * pa_prime + 1 / total
    shares = counts.sum(axis=0) / total
    pe = float(shares @ w @ shares)
    if pe == 1:
        return Coefficient(title, _NAN, pa, pe, _NAN, n2, name)
    alpha = (pa - pe) / (1 - pe)
    alpha_prime = (pa_prime - pe) / (1 - pe)
    spread = (raters - mean_raters) / mean_raters
    item_value = (unit_agreement - pa * spread - pe) / (1 - pe)
    item_chance = counts @ ((w @ shares + w.T @ shares) / 2) / mean_raters - pe * spread
    terms = item_value - 2 * (1 - alpha_prime) * (item_chance - pe) / (1 - pe)
    return Coefficient(title, float(alpha), float(pa), pe, _linearised_se(terms, alpha_prime), n2, name)


def _category_agreement(table: _Counts, categories: np.ndarray) -> CategoryAgreement:
    keep = table.several
    counts, raters = table.counts[keep], table.raters[keep]
    both = np.einsum("ij,ij->j", counts, counts - 1)
    opportunities = counts.T @ (raters - 1)
    used = counts.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        specific = np.where(opportunities > 0, both / opportunities, np.nan)
        share = used / used.sum()
        kappa = np.where((share > 0) & (share < 1), (specific - share) / (1 - share), np.nan)
    pairs = float(np.sum(raters * (raters - 1)))
    se0 = math.sqrt(2 / pairs) if pairs else _NAN
    z = kappa / se0
    p_value = 2 * special.ndtr(-np.abs(z))
    return CategoryAgreement(categories, specific, kappa, z, p_value, used.astype(np.int64), se0, len(raters))


# --- public functions ------------------------------------------------------------


def rating_table(
    ratings: SparseRatings | npt.ArrayLike,
    *,
    categories: npt.ArrayLike | None = None,
    weights: Weights = "identity",
    pairs: bool = True,
) -> RatingTable:
    """Every agreement figure of a rating table, from one encoding of the ratings.

    One pass over the ratings builds the items' category counts (items x
    categories, for the items rated at least once), the raters' category
    counts (raters x categories) and, with ``pairs``, every pair of raters'
    confusion matrix as its non-zero cells
    (:func:`stats.agreement.sparse_pair_cells`, one sparse product); every coefficient, its standard error and the
    per-category figures are then vectorised arithmetic on those. Nothing is
    ever items x raters.

    Cost, measured (``python -m benchmarks.ratingtables``, in-process, best of
    3, peak traced memory, a shared 2-core machine): 100,000 items x 10
    ratings from 2,000 raters, 5 categories (1,000,000 ratings, 1.8 million
    pairs of raters sharing an item) take 1.0 s and 611 MB with the pairs,
    0.05-0.18 s and 68 MB without them (``pairs=False``): the pairs' sparse
    product and cells are most of both. irrCAC 0.4.4, which needs the items x
    raters frame, takes 17.8 s for its five coefficients on the first 2,000
    of those items (all 2,000 raters' columns) against 0.018 s here on the
    same items (1,000x); it was not run on all 100,000 (a 1.6 GB frame,
    copied per category). Time and memory grow with the ratings, items x
    categories, raters x categories and the pairs' non-zero cells: linear in
    the ratings for a fixed scale. A 1,000-resample bootstrap of one figure
    (:func:`rating_table_units`) adds 2.5-2.8 s at 100,000 items, most of it
    drawing the resamples, which figures over the same items share.

    Parameters
    ----------
    ratings : SparseRatings or array_like of shape (n_items, n_raters)
        Category positions held sparse, or labels (NaN/None: no rating).
    categories : array_like, optional
        The scale's categories in order (named weights use their values when
        numeric, else their positions); default: the positions used
        (SparseRatings) or the sorted labels used (array).
    weights : str or array_like of shape (q, q), default "identity"
        Agreement weights for the six coefficients (a name of
        :func:`stats.gwet.agreement_weights` or a matrix).
    pairs : bool, default True
        Whether to build every pair's confusion matrix.

    Returns
    -------
    RatingTable

    Raises
    ------
    ValueError
        On ratings that are not a 2-D table or SparseRatings of positions, on
        categories missing a label used, or on unknown or mis-shaped weights.

    Examples
    --------
    Gwet (2014), the 4 raters x 12 units of Krippendorff (2011), as irrCAC prints them:

    >>> nan = float("nan")
    >>> data = [[1, 1, nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2],
    ...         [1, 2, 3, 4], [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [nan, 5, 5, 5],
    ...         [nan, nan, 1, 1], [nan, nan, 3, nan]]
    >>> table = rating_table(data)
    >>> [(c.name, round(c.value, 5), round(c.se, 5)) for c in table.coefficients]  # doctest: +NORMALIZE_WHITESPACE
    [('percent agreement', 0.81818, 0.12561), ('Brennan-Prediger', 0.77273, 0.14472),
     ("Conger's kappa", 0.76282, 0.14917), ("Fleiss' kappa", 0.76117, 0.15302),
     ("Gwet's AC1", 0.77544, 0.14295), ("Krippendorff's alpha", 0.74342, 0.14557)]
    >>> table.items, table.pairable, table.raters, table.ratings, len(table.pairs.first)
    (12, 11, 4, 41, 6)
    """
    coded = _coded(ratings, categories)
    weight_matrix, name = _weight_matrix(weights, coded.categories)
    table = _counts(coded, weight_matrix)
    found_pairs = None
    if pairs:
        found_pairs = _pair_tables(coded)
    return RatingTable(
        categories=coded.categories,
        weights=name,
        items=len(table.raters),
        pairable=int(np.count_nonzero(table.several)),
        raters=int(np.count_nonzero(np.bincount(coded.rater, minlength=coded.n_raters))),
        ratings=len(coded.item),
        percent_agreement=_percent_agreement(table, name),
        brennan_prediger=_brennan_prediger(table, name),
        conger=_conger(table, coded, name),
        fleiss=_fleiss(table, name),
        gwet=_gwet(table, coded.categories, name),
        krippendorff=_krippendorff(table, name),
        by_category=_category_agreement(table, coded.categories),
        pairs=found_pairs,
    )


def percent_agreement(
    ratings: SparseRatings | npt.ArrayLike, *, categories: npt.ArrayLike | None = None, weights: Weights = "identity"
) -> Coefficient:
    r"""Gwet's (2014, ch. 2) percent agreement ``p_a`` of a rating table, weighted or not.

    The share of agreeing ordered pairs of ratings of an item, averaged over
    the items rated twice or more; with weights, a pair rated ``k`` and ``l``
    counts ``w_kl`` (module docstring). Standard error (irrCAC's R
    ``pa.coeff.raw``): :math:`\sqrt{\sum_i (\frac{n}{n_2} p_{a|i} - p_a)^2 / (n(n-1))}`
    over the ``n`` items rated at least once.

    >>> result = percent_agreement([[1, 1, 1], [1, 2, 2], [2, 2, 2], [1, 1, None]])
    >>> round(result.value, 4), round(result.se, 4), result.items
    (0.8333, 0.1667, 4)
    >>> round(percent_agreement([[1, 3], [2, 3]], weights="linear").value, 4)
    0.25
    """
    coded = _coded(ratings, categories)
    weight_matrix, name = _weight_matrix(weights, coded.categories)
    return _percent_agreement(_counts(coded, weight_matrix), name)


def brennan_prediger(
    ratings: SparseRatings | npt.ArrayLike, *, categories: npt.ArrayLike | None = None, weights: Weights = "identity"
) -> Coefficient:
    """Brennan & Prediger's (1981) coefficient: chance agreement ``sum_kl w_kl / q^2`` (``1/q``
    unweighted), as irrCAC's ``bp`` (Gwet 2014, section 2.2; its SE: ch. 5).

    ``q`` counts every category of ``categories``, used or not.

    >>> result = brennan_prediger([[1, 1, 1], [1, 2, 2], [2, 2, 2], [1, 1, None]], categories=[1, 2, 3])
    >>> round(result.value, 4), round(result.pe, 4), round(result.se, 4)
    (0.75, 0.3333, 0.25)
    """
    coded = _coded(ratings, categories)
    weight_matrix, name = _weight_matrix(weights, coded.categories)
    return _brennan_prediger(_counts(coded, weight_matrix), name)


def conger_kappa(
    ratings: SparseRatings | npt.ArrayLike, *, categories: npt.ArrayLike | None = None, weights: Weights = "identity"
) -> Coefficient:
    r"""Conger's (1980) kappa for many raters, with missing ratings and weights, as irrCAC's ``conger``.

    Chance agreement is the mean of the pairwise Cohen chance agreements:
    with ``p_gk`` the share of rater ``g``'s ratings in category ``k`` (over
    the items ``g`` rated), ``r`` raters who gave a rating and ``S_k = sum_g p_gk``,

    .. math::
        p_e = \frac{1}{r(r-1)} \sum_{g \ne h} \sum_{kl} w_{kl} p_{gk} p_{hl}
            = \frac{S^T W S - \sum_g p_g^T W p_g}{r(r-1)}

    (Gwet 2014, section 2.4: ``sum_kl w_kl (p_k p_l - s^2_kl / r)``, ``s^2_kl``
    the raters' covariance of ``p_gk`` and ``p_gl``). With two raters and no
    missing rating it is Cohen's kappa. Raters who gave no rating are left
    out (irrCAC would divide by their zero count).

    >>> round(conger_kappa([[1, 1], [1, 2], [2, 2], [2, 2]]).value, 4)
    0.5
    >>> from stats.agreement import cohen_kappa
    >>> cohen_kappa([1, 1, 2, 2], [1, 2, 2, 2])
    0.5
    """
    coded = _coded(ratings, categories)
    weight_matrix, name = _weight_matrix(weights, coded.categories)
    return _conger(_counts(coded, weight_matrix), coded, name)


def category_agreement(
    ratings: SparseRatings | npt.ArrayLike, *, categories: npt.ArrayLike | None = None
) -> CategoryAgreement:
    """Specific agreement and Fleiss' kappa of each category (:class:`CategoryAgreement`).

    Fleiss (1971), 6 psychiatrists, the first 3 of his 30 patients (diagnoses 1-5):

    >>> data = [[4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5]]
    >>> result = category_agreement(data, categories=[1, 2, 3, 4, 5])
    >>> result.specific.tolist(), result.ratings.tolist()
    ([nan, 0.3, 0.6, 1.0, 0.3], [0, 4, 4, 6, 4])
    >>> [round(float(k), 4) for k in result.kappa], round(result.se0, 4), result.items
    ([nan, 0.1, 0.4857, 1.0, 0.1], 0.1491, 3)
    """
    coded = _coded(ratings, categories)
    return _category_agreement(_counts(coded, np.eye(len(coded.categories))), coded.categories)


def pair_tables(ratings: SparseRatings | npt.ArrayLike, *, categories: npt.ArrayLike | None = None) -> PairTables:
    """Every pair of raters' confusion matrix, from one sparse product (:class:`PairTables`).

    Built on :func:`stats.agreement.sparse_pair_cells` (the cells of
    :func:`stats.agreement.sparse_pair_confusions`): time and memory
    grow with the ratings and the pairs that share an item, never with
    raters x raters or items x raters.

    >>> pairs = pair_tables([["a", "a"], ["b", "a"], ["b", "b"]])
    >>> pairs.confusion[0].tolist(), pairs.kappa().round(12).tolist()
    ([[1, 0], [1, 1]], [0.4])
    """
    return _pair_tables(_coded(ratings, categories))


def _pair_tables(coded: _Coded) -> PairTables:
    sparse = SparseRatings(
        coded.n_items, coded.n_raters, coded.item.astype(np.int64), coded.rater.astype(np.int64), coded.code
    )
    cells = _agreement.sparse_pair_cells(sparse, len(coded.categories))
    return PairTables(cells.first, cells.second, cells, coded.categories)


# --- per-unit statistics for the bootstrap ---------------------------------------


def rating_table_units(
    ratings: SparseRatings | npt.ArrayLike,
    figure: Figure,
    *,
    categories: npt.ArrayLike | None = None,
    weights: Weights = "identity",
    category: int | None = None,
) -> UnitStatistics:
    """One figure of :func:`rating_table` as a function of per-item sums, for the shared bootstrap.

    Rows are the items rated at least once, in item order (``figure`` names
    a coefficient of :class:`RatingTable`, or ``"specific_agreement"`` /
    ``"category_kappa"`` of the category at position ``category``). Per
    item: ``p_a|i`` and ``[r_i >= 2]`` for the observed agreement; and, for
    chance agreement, Fleiss' and Gwet's the shares ``r_ik / r_i`` and 1,
    Conger's the item's ratings one-hot per (rater, category) (a sparse
    matrix, raters x categories wide: the raters' category counts are its
    sums), Krippendorff's the counts of items rated twice or more, their
    ``r_i`` and ``sum_k r_ik (r*_ik - 1) / (r_i - 1)``; per category:
    ``r_ij (r_ij - 1)``, ``r_ij (r_i - 1)`` and ``r_ij`` on items rated twice
    or more. The statistic of the full sums is the figure of
    :func:`rating_table` to rounding. Summing the rows of each topic's items
    gives topic units.

    >>> data = [[1, 1, 1], [1, 2, 2], [2, 2, 2], [1, 1, None], [2, 1, 1]]
    >>> stats = rating_table_units(data, "conger")
    >>> round(stats.value, 6) == round(conger_kappa(data).value, 6), stats.units
    (True, 5)
    >>> round(rating_table_units(data, "specific_agreement", category=0).value, 4)
    0.7143
    """
    if figure not in _FIGURES:
        raise ValueError(f"figure must be one of {', '.join(_FIGURES)}, got {figure!r}")
    coded = _coded(ratings, categories)
    by_category = figure in ("specific_agreement", "category_kappa")
    weight_matrix, _ = _weight_matrix("identity" if by_category else weights, coded.categories)
    table = _counts(coded, weight_matrix)
    q = len(coded.categories)
    n = len(table.raters)
    several = table.several.astype(np.float64)
    if by_category:
        return _category_units(table, figure, category, q)
    if figure == "krippendorff":
        return _krippendorff_units(table)
    observed = np.column_stack([table.item_agreement, several])
    if figure == "conger":
        return _conger_units(table, coded, observed)
    w = weight_matrix

    def fixed_pe(pe: float) -> UnitStatistics:
        def statistic(sums: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
            with np.errstate(divide="ignore", invalid="ignore"):
                pa = sums[..., 0] / sums[..., 1]
                value = (pa - pe) / (1 - pe)
            return np.where(sums[..., 1] > 0, value, np.nan)

        return UnitStatistics(observed, statistic, n)

    if figure == "percent_agreement":
        return fixed_pe(0.0)
    if figure == "brennan_prediger":
        return fixed_pe(float(w.sum() / q**2) if q >= 2 else _NAN)
    shares = table.counts / table.raters[:, None]  # every row is an item rated at least once
    per_unit = np.column_stack([observed, shares, np.ones(n)])
    chance_factor = float(w.sum() / (q * (q - 1))) if q >= 2 else _NAN

    def statistic(sums: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        with np.errstate(divide="ignore", invalid="ignore"):
            pa = sums[..., 0] / sums[..., 1]
            pi = sums[..., 2 : 2 + q] / sums[..., 2 + q, None]
            if figure == "fleiss":
                pe = np.einsum("...k,kl,...l->...", pi, w, pi)
            else:
                pe = chance_factor * np.sum(pi * (1 - pi), axis=-1)
            value = (pa - pe) / (1 - pe)
        return np.where((sums[..., 1] > 0) & (pe != 1) & (q >= 2), value, np.nan)

    return UnitStatistics(per_unit, statistic, n)


def _conger_units(table: _Counts, coded: _Coded, observed: np.ndarray) -> UnitStatistics:
    from scipy import sparse  # scipy.sparse only where the one-hot rows are built

    q, w, n = table.weights.shape[0], table.weights, len(table.raters)
    width = coded.n_raters * q
    one_hot = sparse.csr_array((np.ones(len(table.row)), (table.row, coded.rater * q + coded.code)), shape=(n, width))
    per_unit = sparse.hstack([sparse.csr_array(observed), one_hot], format="csr")

    def statistic(sums: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        by_rater = sums[..., 2:].reshape(*sums.shape[:-1], coded.n_raters, q)
        given = by_rater.sum(axis=-1)
        present = given > 0
        r = present.sum(axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            shares = np.where(present[..., None], by_rater / given[..., None], 0.0)
            totals = shares.sum(axis=-2)
            across = np.einsum("...k,kl,...l->...", totals, w, totals)
            within = np.einsum("...gk,kl,...gl->...", shares, w, shares)
            pe = (across - within) / (r * (r - 1))
            pa = sums[..., 0] / sums[..., 1]
            value = (pa - pe) / (1 - pe)
        return np.where((sums[..., 1] > 0) & (r >= 2) & (pe != 1) & (q >= 2), value, np.nan)

    return UnitStatistics(per_unit, statistic, n)


def _krippendorff_units(table: _Counts) -> UnitStatistics:
    q, w = table.weights.shape[0], table.weights
    keep = table.several[:, None]
    raters = np.where(table.several, table.raters, 0.0)
    agreement = np.divide(table.pair_agreement, raters - 1, out=np.zeros_like(raters), where=table.several)
    per_unit = np.column_stack([np.where(keep, table.counts, 0.0), raters, agreement])

    def statistic(sums: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        totals, total, agree = sums[..., :q], sums[..., q], sums[..., q + 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            pa = (1 - 1 / total) * agree / total + 1 / total
            pi = totals / total[..., None]
            pe = np.einsum("...k,kl,...l->...", pi, w, pi)
            value = (pa - pe) / (1 - pe)
        return np.where((total > 0) & (pe != 1) & (q >= 2), value, np.nan)

    return UnitStatistics(per_unit, statistic, int(np.count_nonzero(table.several)))


def _category_units(table: _Counts, figure: str, category: Any, q: int) -> UnitStatistics:
    if not (isinstance(category, int | np.integer) and 0 <= category < q):
        raise ValueError(f"category must be a category position 0 .. {q - 1}, got {category!r}")
    j = int(category)
    counts = np.where(table.several, table.counts[:, j], 0.0)
    raters = np.where(table.several, table.raters, 0.0)
    per_unit = np.column_stack([counts * (counts - 1), counts * (raters - 1), counts, raters])

    def statistic(sums: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        both, opportunities, used, total = (sums[..., c] for c in range(4))
        with np.errstate(divide="ignore", invalid="ignore"):
            specific = both / opportunities
            if figure == "specific_agreement":
                return np.where(opportunities > 0, specific, np.nan)
            share = used / total
            return np.where((opportunities > 0) & (share < 1), (specific - share) / (1 - share), np.nan)

    return UnitStatistics(per_unit, statistic, int(np.count_nonzero(table.several)))


# --- intraclass correlations --------------------------------------------------------


@dataclass(frozen=True)
class IntraclassCorrelation:
    """One of Shrout & Fleiss's (1979) six ICCs with McGraw & Wong's (1996) F test and interval.

    Attributes
    ----------
    form : str
        Shrout & Fleiss's name: ``ICC(1,1)`` ... ``ICC(3,k)``.
    mcgraw_wong : str
        McGraw & Wong's name: ``ICC(1)``, ``ICC(A,1)``, ``ICC(C,1)``, ``ICC(k)``,
        ``ICC(A,k)``, ``ICC(C,k)``.
    model : str
        ``"one-way random"``, ``"two-way random, absolute agreement"`` or
        ``"two-way mixed, consistency"``; ``single`` or ``average`` measures.
    value, f, df1, df2, p_value, low, high : float
        The ICC, the F test of ICC = 0 (``f`` on ``df1``, ``df2`` degrees of
        freedom, one-sided ``p_value``) and the interval at ``level``.
    level : float
    items, raters : int
    """

    form: str
    mcgraw_wong: str
    model: str
    value: float
    f: float
    df1: float
    df2: float
    p_value: float
    low: float
    high: float
    level: float
    items: int
    raters: int

    def interval(self) -> Interval:
        """The F-based interval as an :class:`stats.uncertainty.Interval` (``method="analytic"``)."""
        if not (np.isfinite(self.low) and np.isfinite(self.high)):
            return no_interval(self.value, self.items, self.level)
        return Interval(self.value, self.low, self.high, units=self.items, level=self.level, method="analytic")


@dataclass(frozen=True)
class IntraclassCorrelations:
    """The six ICCs of a complete table and what was left out to make it complete.

    Attributes
    ----------
    forms : tuple of IntraclassCorrelation
        In the order ICC(1,1), ICC(2,1), ICC(3,1), ICC(1,k), ICC(2,k), ICC(3,k).
    items, raters : int
        The complete table's items (targets) and raters (judges), ``k = raters``.
    dropped_items : int
        Items rated by some raters but not all, left out.
    mean_squares : dict
        ``between_items``, ``within_items``, ``between_raters``, ``residual`` (BMS, WMS, JMS, EMS).
    """

    forms: tuple[IntraclassCorrelation, ...]
    items: int
    raters: int
    dropped_items: int
    mean_squares: dict[str, float]

    def __getitem__(self, form: str) -> IntraclassCorrelation:
        """The form by either name (``"ICC(2,1)"`` or ``"ICC(A,1)"``)."""
        for found in self.forms:
            if form in (found.form, found.mcgraw_wong):
                return found
        raise KeyError(form)


_MCGRAW_WONG = {
    "ICC(1,1)": ("ICC(1)", "one-way random, single"),
    "ICC(2,1)": ("ICC(A,1)", "two-way random, absolute agreement, single"),
    "ICC(3,1)": ("ICC(C,1)", "two-way mixed, consistency, single"),
    "ICC(1,k)": ("ICC(k)", "one-way random, average"),
    "ICC(2,k)": ("ICC(A,k)", "two-way random, absolute agreement, average"),
    "ICC(3,k)": ("ICC(C,k)", "two-way mixed, consistency, average"),
}


class _Complete(NamedTuple):
    values: npt.NDArray[np.float64]  # (n, k) complete table, centred on its grand mean
    dropped: int


def _complete_table(ratings: SparseRatings | npt.ArrayLike) -> _Complete:
    """The items rated by every rater who rated anything, as items x raters (centred)."""
    if isinstance(ratings, SparseRatings):
        sparse = ratings
    else:
        array = _agreement._as_array(ratings, "ratings")
        _agreement._check_ndim(array, 2, "ratings", "(n_items, n_raters)")
        if array.dtype.kind not in "biuf":
            try:
                array = array.astype(np.float64)
            except (TypeError, ValueError):
                raise ValueError("ratings must hold numbers (NaN or None: no rating)") from None
        sparse = SparseRatings.from_dense(array.astype(np.float64))
    present = sparse.per_rater > 0
    k = int(np.count_nonzero(present))
    per_item = sparse.per_item
    complete = (per_item == k) & (k > 0)
    column = np.cumsum(present) - 1
    row = np.cumsum(complete) - 1
    taken = complete[sparse.items]
    n = int(np.count_nonzero(complete))
    values = np.zeros((n, k))
    values[row[sparse.items[taken]], column[sparse.raters[taken]]] = sparse.values[taken]
    if values.size:
        values -= values.mean()
    return _Complete(values, int(np.count_nonzero((per_item > 0) & ~complete)))


def _mean_squares(rows: np.ndarray, columns: np.ndarray, squares: np.ndarray, grand: np.ndarray, n, k):
    """BMS, WMS, JMS, EMS from row totals' squares, column totals' squares, the sum of squares and the grand total."""
    with np.errstate(divide="ignore", invalid="ignore"):  # an empty table: NaN
        correction = grand**2 / (n * k)
        total = squares - correction
        between = rows / k - correction
        judges = columns / n - correction
        within = total - between
        residual = within - judges
        return between / (n - 1), within / (n * (k - 1)), judges / (k - 1), residual / ((n - 1) * (k - 1))


def _icc_values(bms, wms, jms, ems, n, k) -> dict[str, Any]:
    with np.errstate(divide="ignore", invalid="ignore"):
        return {
            "ICC(1,1)": (bms - wms) / (bms + (k - 1) * wms),
            "ICC(2,1)": (bms - ems) / (bms + (k - 1) * ems + k * (jms - ems) / n),
            "ICC(3,1)": (bms - ems) / (bms + (k - 1) * ems),
            "ICC(1,k)": (bms - wms) / bms,
            "ICC(2,k)": (bms - ems) / (bms + (jms - ems) / n),
            "ICC(3,k)": (bms - ems) / bms,
        }


def intraclass_correlations(ratings: SparseRatings | npt.ArrayLike, *, level: float = 0.95) -> IntraclassCorrelations:
    r"""Shrout & Fleiss's (1979) six intraclass correlations of numeric ratings, with their
    F tests and F-based intervals as McGraw & Wong (1996) give them.

    Shrout & Fleiss (1979, "Intraclass correlations: uses in assessing rater
    reliability", Psychol. Bull. 86(2):420-428, Table 1 and eq. 1-6): with
    ``n`` targets, ``k`` judges and the mean squares between targets (BMS),
    within targets (WMS), between judges (JMS) and residual (EMS) of the
    two-way table,

    .. math::
        ICC(1,1) = \frac{BMS - WMS}{BMS + (k-1)WMS},\quad
        ICC(2,1) = \frac{BMS - EMS}{BMS + (k-1)EMS + k(JMS - EMS)/n},\quad
        ICC(3,1) = \frac{BMS - EMS}{BMS + (k-1)EMS}

    and the average-measure forms ICC(1,k) = (BMS - WMS)/BMS, ICC(2,k) =
    (BMS - EMS)/(BMS + (JMS - EMS)/n), ICC(3,k) = (BMS - EMS)/BMS. McGraw &
    Wong (1996, "Forming inferences about some intraclass correlation
    coefficients", Psychol. Methods 1(1):30-46, Tables 4 and 7) name them
    one-way random ICC(1)/ICC(k); two-way random, absolute agreement
    ICC(A,1)/ICC(A,k); two-way mixed, consistency ICC(C,1)/ICC(C,k), and give
    the F tests of ICC = 0 (BMS/WMS on ``n - 1``, ``n(k - 1)`` degrees of
    freedom for the one-way forms, BMS/EMS on ``n - 1``, ``(n - 1)(k - 1)``
    for the others) and the intervals: exact F-based for the one-way and
    consistency forms, Satterthwaite's approximate degrees of freedom for
    absolute agreement. The same figures as ``pingouin.intraclass_corr`` and
    R's ``irr::icc``.

    The sources define the ICCs on a complete table (every judge rates every
    target). Here the judges are the raters who gave any rating, and an item
    that some of them did not rate is left out (pingouin's listwise
    deletion), counted in ``dropped_items``; a crowd's table, where each item
    has a few of many raters, keeps nothing, so crowd ratings want the
    one-way forms over items with the same number of ratings (pass those
    items' ratings packed left, :meth:`stats.ratings.SparseRatings.packed`).

    Parameters
    ----------
    ratings : SparseRatings or array_like of shape (n_items, n_raters)
        Numbers; NaN or None (or no entry) where a rater gave none.
    level : float, default 0.95

    Returns
    -------
    IntraclassCorrelations
        NaN figures with fewer than two complete items or two raters.

    Examples
    --------
    Shrout & Fleiss (1979), Table 2: 4 judges rate 6 targets.

    >>> data = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    >>> found = intraclass_correlations(data)
    >>> [(icc.form, round(icc.value, 2)) for icc in found.forms]  # doctest: +NORMALIZE_WHITESPACE
    [('ICC(1,1)', 0.17), ('ICC(2,1)', 0.29), ('ICC(3,1)', 0.71), ('ICC(1,k)', 0.44),
     ('ICC(2,k)', 0.62), ('ICC(3,k)', 0.91)]
    >>> icc = found["ICC(A,1)"]
    >>> round(icc.f, 3), icc.df1, icc.df2, round(icc.low, 3), round(icc.high, 3)
    (11.027, 5.0, 15.0, 0.019, 0.761)
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be strictly between 0 and 1, got {level!r}")
    complete = _complete_table(ratings)
    values = complete.values
    n, k = values.shape
    rows, columns = values.sum(axis=1), values.sum(axis=0)
    # numpy floats, not Python's: a table without error variance (every rater gives an item the
    # same number) divides by a zero mean square, which gives inf or NaN under np.errstate
    bms, wms, jms, ems = (
        np.float64(square)
        for square in _mean_squares(
            np.float64(rows @ rows), np.float64(columns @ columns), np.sum(values * values), np.sum(values), n, k
        )
    )
    mean_squares = {
        "between_items": float(bms),
        "within_items": float(wms),
        "between_raters": float(jms),
        "residual": float(ems),
    }
    if n < 2 or k < 2:
        forms = tuple(
            IntraclassCorrelation(form, *_MCGRAW_WONG[form], *(7 * [_NAN]), level, n, k) for form in _ICC_FORMS
        )
        return IntraclassCorrelations(forms, n, k, complete.dropped, mean_squares)
    from scipy import stats  # scipy.stats takes 1.7 s to import: loaded where an ICC is computed

    iccs = _icc_values(bms, wms, jms, ems, n, k)
    tail = (1 + level) / 2
    df1, df_one_way, df_two_way = n - 1.0, n * (k - 1.0), (n - 1.0) * (k - 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        f_one_way, f_two_way = bms / wms, bms / ems
        p_one_way = float(stats.f.sf(f_one_way, df1, df_one_way))
        p_two_way = float(stats.f.sf(f_two_way, df1, df_two_way))
        # one-way and consistency (McGraw & Wong 1996, Table 7, cases 1 and 3)
        low_one = f_one_way / stats.f.ppf(tail, df1, df_one_way)
        high_one = f_one_way * stats.f.ppf(tail, df_one_way, df1)
        low_three = f_two_way / stats.f.ppf(tail, df1, df_two_way)
        high_three = f_two_way * stats.f.ppf(tail, df_two_way, df1)
        # absolute agreement (case 2A): Satterthwaite's degrees of freedom
        icc2 = iccs["ICC(2,1)"]
        fj = jms / ems
        spread = n * (1 + (k - 1) * icc2) - k * icc2
        v = df_two_way * (k * icc2 * fj + spread) ** 2 / (df1 * k**2 * icc2**2 * fj**2 + spread**2)
        f_high, f_low = stats.f.ppf(tail, n - 1, v), stats.f.ppf(tail, v, n - 1)
        low_two = n * (bms - f_high * ems) / (f_high * (k * jms + (k * n - k - n) * ems) + n * bms)
        high_two = n * (f_low * bms - ems) / (k * jms + (k * n - k - n) * ems + n * f_low * bms)
        bounds = {
            "ICC(1,1)": ((low_one - 1) / (low_one + k - 1), (high_one - 1) / (high_one + k - 1)),
            "ICC(2,1)": (low_two, high_two),
            "ICC(3,1)": ((low_three - 1) / (low_three + k - 1), (high_three - 1) / (high_three + k - 1)),
            "ICC(1,k)": (1 - 1 / low_one, 1 - 1 / high_one),
            "ICC(2,k)": (low_two * k / (1 + low_two * (k - 1)), high_two * k / (1 + high_two * (k - 1))),
            "ICC(3,k)": (1 - 1 / low_three, 1 - 1 / high_three),
        }
    forms = []
    for form in _ICC_FORMS:
        one_way = form.startswith("ICC(1")
        forms.append(
            IntraclassCorrelation(
                form,
                *_MCGRAW_WONG[form],
                float(iccs[form]),
                float(f_one_way if one_way else f_two_way),
                df1,
                df_one_way if one_way else df_two_way,
                p_one_way if one_way else p_two_way,
                float(bounds[form][0]),
                float(bounds[form][1]),
                level,
                n,
                k,
            )
        )
    return IntraclassCorrelations(tuple(forms), n, k, complete.dropped, mean_squares)


def intraclass_units(ratings: SparseRatings | npt.ArrayLike, form: IccForm) -> UnitStatistics:
    """One ICC as a function of per-item sums, for the shared bootstrap.

    Per complete item (as :func:`intraclass_correlations` keeps them, values
    centred on the grand mean): its total, its sum of squares, its total
    squared, its ``k`` ratings and 1; the mean squares, and so every form,
    are functions of their sums.

    >>> data = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    >>> stats = intraclass_units(data, "ICC(3,1)")
    >>> round(stats.value, 4), stats.units
    (0.7148, 6)
    """
    if form not in _ICC_FORMS:
        raise ValueError(f"form must be one of {', '.join(_ICC_FORMS)}, got {form!r}")
    values = _complete_table(ratings).values
    n, k = values.shape
    rows = values.sum(axis=1)
    per_unit = np.column_stack([rows, np.sum(values * values, axis=1), rows * rows, values, np.ones(n)])

    def statistic(sums: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        grand, squares, row_squares = sums[..., 0], sums[..., 1], sums[..., 2]
        columns, items = sums[..., 3 : 3 + k], sums[..., 3 + k]
        column_squares = np.sum(columns * columns, axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            bms, wms, jms, ems = _mean_squares(row_squares, column_squares, squares, grand, items, k)
            value = _icc_values(bms, wms, jms, ems, items, k)[form]
        return np.where((items >= 2) & (k >= 2), value, np.nan)

    return UnitStatistics(per_unit, statistic, n)


# --- helpers ----------------------------------------------------------------------


def _t_quantile(level: float, df: int) -> float:
    from scipy import stats  # scipy.stats takes 1.7 s to import: loaded where an interval is drawn

    return float(stats.t.ppf((1 + level) / 2, df))
