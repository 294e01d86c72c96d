"""Ratings held sparse: one entry per rating given, not a cell per item and rater.

A crowd campaign of 100,000 items, each labelled by 10 of 2,000 workers, has
1,000,000 ratings; as the dense items x raters array the other modules take
(NaN: no rating) it is 200,000,000 cells, 1.6 GB of float64 of which 99.5%
say "no rating", and every figure over it reads all of them. :class:`SparseRatings`
keeps the ratings as three arrays (item, rater, value), sorted by item and by
rater within an item, and gives each figure the view it needs:

- :meth:`SparseRatings.packed`: items x the most ratings any item has, each
  item's values left-aligned. Every figure that depends only on how many
  raters gave each value to each item (Fleiss' kappa, Krippendorff's alpha,
  Gwet's AC1, majority and consensus truth sets: their category counts) takes
  it in place of the dense array and returns the same numbers, summed in the
  same item order; a crowd's packed array is 10 columns wide, not 2,000.
- :meth:`SparseRatings.rater`: one rater's items and values (per-rater and
  per-pair figures).
- the arrays themselves (truth inference's long form, the one-product pair
  confusions of :func:`stats.agreement.sparse_pair_confusions`).

Time and memory grow with the ratings, not with items x raters.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

__all__ = ["SparseRatings"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class SparseRatings:
    """``n_items`` x ``n_raters`` ratings, one entry per rating given.

    Attributes
    ----------
    n_items, n_raters : int
        The shape of the dense array the ratings stand for.
    items, raters : ndarray of int64, shape (n,)
        Each rating's item and rater, sorted by item, then by rater; at most one
        rating per item and rater.
    values : ndarray of float64, shape (n,)
        Each rating's value (finite).

    Build it with :meth:`from_dense` or :meth:`from_entries` (which check and sort).

    Examples
    --------
    >>> nan = float("nan")
    >>> r = SparseRatings.from_dense([[1, 0, nan], [nan, nan, nan], [nan, 1, 1]])
    >>> r.items.tolist(), r.raters.tolist(), r.values.tolist()
    ([0, 0, 2, 2], [0, 1, 1, 2], [1.0, 0.0, 1.0, 1.0])
    >>> r.per_item.tolist(), r.per_rater.tolist()
    ([2, 0, 2], [1, 2, 1])
    >>> r.packed()
    array([[ 1.,  0.],
           [nan, nan],
           [ 1.,  1.]])
    >>> [a.tolist() for a in r.rater(1)]
    [[0, 2], [0.0, 1.0]]
    """

    n_items: int
    n_raters: int
    items: IntArray
    raters: IntArray
    values: FloatArray

    @classmethod
    def from_dense(cls, matrix: npt.ArrayLike) -> SparseRatings:
        """The ratings of an items x raters array (NaN: no rating).

        >>> SparseRatings.from_dense([[float("nan"), 2.0]]).values.tolist()
        [2.0]
        """
        array = np.asarray(matrix, dtype=np.float64)
        if array.ndim != 2:
            raise ValueError(f"matrix must be 2-D (items x raters), got {array.ndim}-D")
        if np.isinf(array).any():
            raise ValueError("matrix must hold finite values or NaN")
        items, raters = np.nonzero(~np.isnan(array))
        return cls(
            array.shape[0], array.shape[1], items.astype(np.int64), raters.astype(np.int64), array[items, raters]
        )

    @classmethod
    def from_entries(
        cls, items: npt.ArrayLike, raters: npt.ArrayLike, values: npt.ArrayLike, *, n_items: int, n_raters: int
    ) -> SparseRatings:
        """The ratings given as (item, rater, value) entries in any order; NaN values are dropped.

        >>> r = SparseRatings.from_entries([2, 0, 0], [0, 1, 0], [1, 0, float("nan")], n_items=3, n_raters=2)
        >>> r.items.tolist(), r.raters.tolist(), r.values.tolist()
        ([0, 2], [1, 0], [0.0, 1.0])
        """
        item = np.asarray(items, dtype=np.int64).reshape(-1)
        rater = np.asarray(raters, dtype=np.int64).reshape(-1)
        value = np.asarray(values, dtype=np.float64).reshape(-1)
        if not (len(item) == len(rater) == len(value)):
            raise ValueError("items, raters and values must have the same length")
        if item.size and (item.min() < 0 or item.max() >= n_items):
            raise ValueError(f"items must lie in 0 .. {n_items - 1}")
        if rater.size and (rater.min() < 0 or rater.max() >= n_raters):
            raise ValueError(f"raters must lie in 0 .. {n_raters - 1}")
        if np.isinf(value).any():
            raise ValueError("values must be finite or NaN")
        given = ~np.isnan(value)
        item, rater, value = item[given], rater[given], value[given]
        key = item * max(n_raters, 1) + rater
        if key.size > 1 and not (key[1:] > key[:-1]).all():
            order = np.argsort(key, kind="stable")
            item, rater, value, key = item[order], rater[order], value[order], key[order]
            if (key[1:] == key[:-1]).any():
                raise ValueError("an item has two ratings from one rater")
        return cls(int(n_items), int(n_raters), item, rater, value)

    def dense(self) -> FloatArray:
        """The items x raters array (NaN: no rating).

        >>> SparseRatings.from_entries([1], [0], [3.0], n_items=2, n_raters=1).dense().tolist()
        [[nan], [3.0]]
        """
        matrix = np.full((self.n_items, self.n_raters), np.nan)
        matrix[self.items, self.raters] = self.values
        return matrix

    @cached_property
    def per_item(self) -> IntArray:
        """How many ratings each item has."""
        return np.bincount(self.items, minlength=self.n_items).astype(np.int64)

    @cached_property
    def per_rater(self) -> IntArray:
        """How many ratings each rater gave."""
        return np.bincount(self.raters, minlength=self.n_raters).astype(np.int64)

    def value_sums(self) -> FloatArray:
        """Each rater's sum of values (with values 0 and 1: how many times they said 1).

        >>> SparseRatings.from_dense([[1, 0], [1, float("nan")]]).value_sums().tolist()
        [2.0, 0.0]
        """
        return np.bincount(self.raters, weights=self.values, minlength=self.n_raters)

    def packed(self, rows: npt.ArrayLike | None = None) -> FloatArray:
        """Items x the most ratings an item has, each item's values left-aligned in rater
        order and NaN after them (at least one column while there are raters).

        The same category counts per item as :meth:`dense`: what a figure over the items'
        value counts reads. ``rows``: a mask or index of the items wanted (in item order).

        >>> SparseRatings.from_dense([[float("nan"), 1, 0], [0, float("nan"), float("nan")]]).packed()
        array([[ 1.,  0.],
               [ 0., nan]])
        """
        starts = np.concatenate([[0], np.cumsum(self.per_item)[:-1]]) if self.n_items else np.zeros(0, np.int64)
        width = int(self.per_item.max()) if self.n_items else 0
        width = max(width, 1 if self.n_raters else 0)
        matrix = np.full((self.n_items, width), np.nan)
        matrix[self.items, np.arange(len(self.items)) - starts[self.items]] = self.values
        return matrix if rows is None else matrix[rows]

    @cached_property
    def _by_rater(self) -> tuple[IntArray, IntArray]:
        order = np.argsort(self.raters, kind="stable")  # items stay in order within a rater
        return order, np.searchsorted(self.raters[order], np.arange(self.n_raters + 1))

    def rater(self, k: int) -> tuple[IntArray, FloatArray]:
        """Rater ``k``'s items (in order) and values: the dense array's column ``k`` without its NaNs."""
        if not 0 <= k < self.n_raters:
            raise ValueError(f"rater must lie in 0 .. {self.n_raters - 1}")
        order, starts = self._by_rater
        taken = order[starts[k] : starts[k + 1]]
        return self.items[taken], self.values[taken]
