"""The labels kind's own statistics: its consensus and the figures of a pair's confusion matrix.

Labels are codes 0 .. q-1, each a position on the campaign's scale (the
categories in their order, or the numbers of a numeric scale ascending); the
agreement coefficients themselves are the shared library's (stats.agreement,
stats.gwet, stats.uncertainty). What is the kind's alone:

- the consensus of an item's labels (the gold a vote gives): the label given
  most (no consensus on a tie), on any scale; and on an ordered scale the
  median (the lower of the two middle labels on an even count, so that it is a
  label of the scale);
- the figures of two assessors' q x q confusion matrix (percent agreement,
  Cohen's 1960 kappa and his 1968 weighted kappa with agreement weights), as
  functions of the matrix's cells, so that one bootstrap over the shared items
  gives their intervals (stats.intervals.pair_intervals).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from stats.intervals import Statistic

__all__ = ["consensus", "median", "pair_cells", "pair_statistics"]


def consensus(packed: npt.ArrayLike, n_values: int) -> npt.NDArray[np.float64]:
    """Each item's consensus label: the label given most, NaN on a tie or without labels
    (items x their labels packed left, NaN: none; codes 0..q-1).

    Examples
    --------
    >>> nan = float("nan")
    >>> consensus([[0, 0, 1], [0, 1, nan], [2, 1, 0], [nan, nan, nan]], 3).tolist()
    [0.0, nan, nan, nan]
    """
    array, given, codes = _codes(packed, n_values)
    counts = np.zeros((len(array), n_values), np.int64)
    np.add.at(counts, (np.nonzero(given)[0], codes[given]), 1)
    top = counts.max(axis=1) if n_values else np.zeros(len(array), np.int64)
    tie = (counts == top[:, np.newaxis]).sum(axis=1) > 1
    return np.where(given.any(axis=1) & ~tie, counts.argmax(axis=1).astype(np.float64), np.nan)


def median(packed: npt.ArrayLike, n_values: int) -> npt.NDArray[np.float64]:
    """Each item's median label on an ordered scale, the lower of the two middle labels on an
    even count (so that it is a label of the scale); NaN without labels.

    Examples
    --------
    >>> nan = float("nan")
    >>> median([[0, 0, 1], [0, 1, nan], [2, 1, 0], [nan, nan, nan]], 3).tolist()
    [0.0, 0.0, 1.0, nan]
    """
    array, given, _ = _codes(packed, n_values)
    if array.shape[1] == 0:  # nobody gave a label: no middle to take
        return np.full(len(array), np.nan)
    ordered_rows = np.sort(np.where(given, array, np.inf), axis=1)
    n = given.sum(axis=1)
    middle = np.take_along_axis(ordered_rows, np.maximum((n - 1) // 2, 0)[:, np.newaxis], axis=1)[:, 0]
    return np.where(n > 0, middle, np.nan)


def _codes(packed: npt.ArrayLike, n_values: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    array = np.asarray(packed, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"packed must be items x labels, got {array.ndim} dimension(s)")
    if n_values < 1:
        raise ValueError(f"n_values must be at least 1, got {n_values}")
    given = ~np.isnan(array)
    codes = np.where(given, array, 0).astype(np.int64)
    if ((codes < 0) | (codes >= n_values))[given].any():
        raise ValueError(f"packed must hold codes 0 to {n_values - 1}")
    return array, given, codes


def pair_cells(first: npt.ArrayLike, second: npt.ArrayLike, n_values: int) -> npt.NDArray[np.int64]:
    """The cell of each shared item in two assessors' q x q confusion matrix, flattened (row: the first).

    >>> pair_cells([0, 2, 1], [0, 1, 1], 3).tolist()
    [0, 7, 4]
    """
    a, b = np.asarray(first, dtype=np.int64), np.asarray(second, dtype=np.int64)
    if a.shape != b.shape:
        raise ValueError(f"first and second must have the same length, got {a.shape} and {b.shape}")
    return a * n_values + b


def pair_statistics(weights: npt.ArrayLike) -> Mapping[str, Statistic]:
    """Percent agreement, Cohen's kappa and weighted kappa of a q x q confusion matrix's summed cells.

    ``weights``: the q x q agreement weights (1 on the diagonal, stats.gwet.agreement_weights).
    Cohen (1968): with ``p`` the shares of the table, ``r``/``c`` its margins and ``w`` the
    weights, ``p_o = sum w p``, ``p_e = sum w r c^T`` and ``kappa_w = (p_o - p_e) / (1 - p_e)``;
    identity weights give Cohen's (1960) kappa. Each statistic takes the summed one-hot cells
    (..., q*q) and returns (...), NaN where undefined (no item, or ``p_e`` = 1).

    Examples
    --------
    >>> from stats.gwet import agreement_weights
    >>> figures = pair_statistics(agreement_weights([0, 1, 2], "quadratic"))
    >>> table = np.array([[5.0, 1, 0], [1, 3, 1], [0, 0, 4]]).ravel()
    >>> round(float(figures["observed"](table)), 4), round(float(figures["kappa"](table)), 4)
    (0.8, 0.698)
    >>> round(float(figures["weighted"](table)), 4)
    0.8553
    """
    w = np.asarray(weights, dtype=np.float64)
    q = w.shape[0]
    identity = np.eye(q)

    def coefficient(matrix: np.ndarray) -> Statistic:
        def statistic(sums: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
            table = np.asarray(sums, dtype=np.float64).reshape(*np.shape(sums)[:-1], q, q)
            total = table.sum(axis=(-1, -2))
            with np.errstate(divide="ignore", invalid="ignore"):
                shares = table / total[..., np.newaxis, np.newaxis]
                rows, columns = shares.sum(axis=-1), shares.sum(axis=-2)
                observed = (shares * matrix).sum(axis=(-1, -2))
                expected = np.einsum("...k,kl,...l->...", rows, matrix, columns)
                value = (observed - expected) / (1 - expected)
            return np.where((total > 0) & (expected < 1), value, np.nan)

        return statistic

    def observed(sums: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        table = np.asarray(sums, dtype=np.float64).reshape(*np.shape(sums)[:-1], q, q)
        total = table.sum(axis=(-1, -2))
        with np.errstate(divide="ignore", invalid="ignore"):
            agreeing = np.trace(table, axis1=-2, axis2=-1)
            return np.where(total > 0, agreeing / total, np.nan)

    return {"observed": observed, "kappa": coefficient(identity), "weighted": coefficient(w)}
