"""Rank correlations between rows of scores, written once for the whole library.

Kendall's tau-b and Spearman's rho between every row of one array and every
row of another, vectorised: the ordering kind correlates assessors'
orderings (Kim, Zhai & Han 2010, section 4.1), the nugget kind correlates run
rankings under scoring models (Lin & Demner-Fushman 2006, section 5), the
factoid kind correlates summary rankings under samples of model summaries
(van Halteren & Teufel 2004, section 5). Both equal ``scipy.stats.kendalltau``
(variant ``"b"``) and ``scipy.stats.spearmanr`` pair by pair (tested), and both
are computed from exact integer (or half-integer) sums with one final
division, so permutations give correctly rounded values such as exactly 0.4.

Rows must be finite; callers decide what a missing value means.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

__all__ = ["kendall_tau_b", "spearman_rho", "spearman_rho_paired"]

FloatArray = npt.NDArray[np.float64]

# Cells of the pair-sign arrays built at once (32 MiB of float64): pairs are
# taken a block of first items at a time so memory stays bounded for long rows.
_SIGN_CELLS = 1 << 22


def kendall_tau_b(x: ArrayLike, y: ArrayLike) -> FloatArray:
    """Kendall's tau-b between every row of ``x`` and every row of ``y``.

    ``tau_b = S / sqrt(n_x n_y)`` where ``S`` sums ``sign(x_a - x_b) sign(y_a - y_b)``
    over the unordered pairs of positions and ``n_x``, ``n_y`` count the pairs
    not tied in ``x`` and in ``y`` (Kendall 1945). Without ties it is Kendall's
    tau, ``1 - 2 D / (n (n - 1) / 2)`` with ``D`` discordant pairs.

    Parameters
    ----------
    x : array_like, shape (X, n) or (n,)
    y : array_like, shape (Y, n) or (n,)
        Finite scores (or ranks); the same positions in the same order.

    Returns
    -------
    ndarray, shape (X, Y)
        NaN where a row is constant (every pair tied).

    Examples
    --------
    Kim, Zhai & Han's example, ABCD against ACDB (ranks of A, B, C, D):

    >>> kendall_tau_b([0, 1, 2, 3], [[0, 3, 1, 2]]).tolist()
    [[0.3333333333333333]]

    With ties (scipy.stats.kendalltau gives the same):

    >>> round(float(kendall_tau_b([0.1, 0.2, 0.3, 0.4], [0.1, 0.3, 0.3, 0.4])[0, 0]), 6)
    0.912871
    """
    xs, ys = _rows(x, "x"), _rows(y, "y")
    _same_length(xs, ys)
    n = xs.shape[1]
    block = max(1, _SIGN_CELLS // max(1, n * (len(xs) + len(ys))))
    concordance = np.zeros((len(xs), len(ys)))
    untied_x = np.zeros(len(xs))
    untied_y = np.zeros(len(ys))
    for lo in range(0, n, block):
        signs_x, signs_y = _signs(xs, lo, block), _signs(ys, lo, block)
        concordance += signs_x @ signs_y.T
        untied_x += np.count_nonzero(signs_x, axis=1)
        untied_y += np.count_nonzero(signs_y, axis=1)
    # Ordered pairs counted each unordered pair twice; the halves are exact.
    denominator = _denominator(untied_x / 2, untied_y / 2)
    return _divide(concordance / 2, denominator)


def spearman_rho(x: ArrayLike, y: ArrayLike) -> FloatArray:
    """Spearman's rho between every row of ``x`` and every row of ``y``.

    The Pearson correlation of the rows' ranks, ties getting their average
    rank (as ``scipy.stats.spearmanr``). Without ties it equals
    ``1 - 6 sum d^2 / (n (n^2 - 1))``.

    Parameters
    ----------
    x : array_like, shape (X, n) or (n,)
    y : array_like, shape (Y, n) or (n,)
        Finite scores (or ranks).

    Returns
    -------
    ndarray, shape (X, Y)
        NaN where a row is constant.

    Examples
    --------
    ABCD against ACDB (Kim, Zhai & Han, section 4.1):

    >>> spearman_rho([0, 1, 2, 3], [0, 3, 1, 2]).tolist()
    [[0.4]]
    """
    xs, ys = _rows(x, "x"), _rows(y, "y")
    _same_length(xs, ys)
    rx, ry = _centred_ranks(xs), _centred_ranks(ys)
    covariance = rx @ ry.T
    denominator = _denominator((rx * rx).sum(axis=1), (ry * ry).sum(axis=1))
    return np.clip(_divide(covariance, denominator), -1.0, 1.0)


def spearman_rho_paired(x: ArrayLike, y: ArrayLike) -> FloatArray:
    """Spearman's rho of each row of ``x`` with the same row of ``y``.

    Parameters
    ----------
    x, y : array_like, shape (N, n)
        Finite scores, paired row by row.

    Returns
    -------
    ndarray, shape (N,)
        NaN where a row is constant or ``n < 2``.

    Examples
    --------
    >>> spearman_rho_paired([[1, 2, 3], [1, 2, 3]], [[1, 2, 3], [3, 2, 1]]).tolist()
    [1.0, -1.0]
    """
    xs, ys = _rows(x, "x"), _rows(y, "y")
    if xs.shape != ys.shape:
        raise ValueError(f"x and y must have the same shape, got {xs.shape} and {ys.shape}")
    if xs.shape[1] < 2:
        return np.full(xs.shape[0], np.nan)
    rx, ry = _centred_ranks(xs), _centred_ranks(ys)
    covariance = np.einsum("ij,ij->i", rx, ry)
    vx, vy = np.einsum("ij,ij->i", rx, rx), np.einsum("ij,ij->i", ry, ry)
    denominator = np.where(vx == vy, vx, np.sqrt(vx * vy))
    return np.clip(_divide(covariance, denominator), -1.0, 1.0)


def _rows(values: ArrayLike, name: str) -> FloatArray:
    rows = np.atleast_2d(np.asarray(values, dtype=np.float64))
    if rows.ndim != 2:
        raise ValueError(f"{name} must be 1-D or 2-D, got {rows.ndim} dimensions")
    if not np.isfinite(rows).all():
        raise ValueError(f"{name} must be finite (no NaN or infinity)")
    return rows


def _same_length(xs: FloatArray, ys: FloatArray) -> None:
    if xs.shape[1] != ys.shape[1]:
        raise ValueError(f"x and y rows must have the same length, got {xs.shape[1]} and {ys.shape[1]}")


def _signs(rows: FloatArray, lo: int, block: int) -> FloatArray:
    """``(m, b * n)``: sign of row[a] - row[c] for the positions a in [lo, lo + b) and every c."""
    part = rows[:, lo : lo + block]
    return np.sign(part[:, :, None] - rows[:, None, :]).reshape(len(rows), -1)


def _centred_ranks(rows: FloatArray) -> FloatArray:
    # Average ranks are integers or halves and their mean a multiple of 1/2,
    # so the centred ranks and the sums over them below are exact.
    from scipy.stats import (
        rankdata,
    )  # scipy.stats takes 1.7 s to import: loaded where used, not by every process that starts

    ranks = rankdata(rows, axis=1)
    return ranks - ranks.mean(axis=1, keepdims=True)


def _denominator(first: FloatArray, second: FloatArray) -> FloatArray:
    """sqrt(first_i * second_j), exactly first_i where the two are equal (no rounding)."""
    product = np.sqrt(np.outer(first, second))
    return np.where(np.equal.outer(first, second), first[:, None], product)


def _divide(numerator: FloatArray, denominator: FloatArray) -> FloatArray:
    return np.divide(numerator, denominator, out=np.full(np.shape(numerator), np.nan), where=denominator > 0)
