r"""How disputed one item is, from its votes: the adjudication queue's order.

An item judged by several people is settled when they agree and disputed
when their votes split evenly; a measure of that must grow with the
uncertainty the votes leave, so that a 5-5 split of ten votes ranks above a
2-8 split (the share of items on which the votes are not unanimous, which
the queue used before, scores both 1).

* :func:`vote_entropy`, for labels without an order (match / no match,
  vital / okay): the Shannon entropy of the vote shares,
  :math:`H = -\sum_k p_k \log p_k`, divided by :math:`\log K` for
  :math:`K` labels, so 0 when every vote is one label and 1 when the votes
  are spread evenly over all of them (the "vote entropy" of query-by-committee
  active learning: Dagan & Engelson 1995, "Committee-based sampling for
  training probabilistic classifiers", ICML; Settles 2012, "Active
  Learning", section 3.1). Two labels: 10 votes split 5-5 give 1, 4-6
  0.971, 3-7 0.881, 2-8 0.722, 1-9 0.469, 0-10 0.
* :func:`ordinal_dissent`, for grades on a scale (graded relevance):
  Tastle & Wierman's (2007, "Consensus and dissention: a measure of ordinal
  dispersion", Int. J. Approximate Reasoning 45(3):531-545) dissention
  :math:`D = -\sum_k p_k \log_2 (1 - |X_k - \mu| / d_X)`, with
  :math:`X_k` the grades, :math:`\mu` the mean grade of the votes and
  :math:`d_X` the width of the scale: 0 when every vote is one grade, 1 when
  half the votes are at each end of the scale, and votes one grade apart
  count less than votes at the two ends (0 and 3 split 1-1 on a 0-3 scale
  give 1; 1 and 2 give 0.263). On a two-grade scale it is the vote entropy
  in bits, so the two measures agree where both apply.

Both take vote counts, ``(..., K)`` (one row per item), and are vectorised
over the rows; a row with no vote is NaN.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["ordinal_dissent", "vote_entropy"]


def vote_entropy(counts: npt.ArrayLike) -> npt.NDArray[np.float64] | float:
    """Normalised entropy of each row of vote counts: 0 unanimous, 1 spread evenly.

    Parameters
    ----------
    counts : array_like of shape (..., K), K >= 2
        Votes per label (non-negative).

    Returns
    -------
    ndarray of shape (...) or float
        ``H / log K`` per row; NaN for a row without votes.

    Raises
    ------
    ValueError
        If ``counts`` has fewer than two labels or a negative or non-finite count.

    Examples
    --------
    >>> [round(float(h), 3) for h in vote_entropy([[5, 5], [4, 6], [3, 7], [2, 8], [1, 9], [0, 10]])]
    [1.0, 0.971, 0.881, 0.722, 0.469, 0.0]
    >>> round(float(vote_entropy([1, 1, 1])), 12)
    1.0
    """
    table = _counts(counts)
    totals = table.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        shares = table / totals
        terms = np.where(shares > 0, shares * np.log(shares), 0.0)
    entropy = -terms.sum(axis=-1) / np.log(table.shape[-1])
    result = np.where(totals[..., 0] > 0, np.clip(entropy, 0.0, 1.0) + 0.0, np.nan)  # + 0.0: no -0.0
    return float(result) if result.ndim == 0 else result


def ordinal_dissent(counts: npt.ArrayLike) -> npt.NDArray[np.float64] | float:
    """Tastle & Wierman's (2007) dissention of each row of votes over grades 0..K-1.

    Parameters
    ----------
    counts : array_like of shape (..., K), K >= 2
        Votes per grade, grades in scale order (column ``k``: grade ``k``),
        the scale's width ``K - 1``.

    Returns
    -------
    ndarray of shape (...) or float
        ``-sum_k p_k log2(1 - |k - mean| / (K - 1))`` per row, from 0 (one
        grade) to 1 (half at each end); NaN for a row without votes.

    Raises
    ------
    ValueError
        If ``counts`` has fewer than two grades or a negative or non-finite count.

    Examples
    --------
    On TREC's 0-3 scale: one vote at each end, one each on 1 and 2, three of
    0 and one of 3:

    >>> [round(float(d), 3) for d in ordinal_dissent([[1, 0, 0, 1], [0, 1, 1, 0], [3, 0, 0, 1], [0, 4, 0, 0]])]
    [1.0, 0.263, 0.811, 0.0]
    >>> round(float(ordinal_dissent([2, 8])), 3) == round(float(vote_entropy([2, 8])), 3)  # two grades: entropy
    True
    """
    table = _counts(counts)
    width = table.shape[-1] - 1
    grades = np.arange(table.shape[-1], dtype=np.float64)
    totals = table.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        shares = table / totals
        mean = np.sum(shares * grades, axis=-1, keepdims=True)
        closeness = 1 - np.abs(grades - mean) / width
        terms = np.where(shares > 0, shares * np.log2(closeness), 0.0)
    result = np.where(totals[..., 0] > 0, np.clip(-terms.sum(axis=-1), 0.0, 1.0) + 0.0, np.nan)
    return float(result) if result.ndim == 0 else result


def _counts(counts: npt.ArrayLike) -> npt.NDArray[np.float64]:
    table = np.asarray(counts, dtype=np.float64)
    if table.ndim < 1 or table.shape[-1] < 2:
        raise ValueError(f"counts must have two or more labels in its last axis, got shape {table.shape}")
    if not np.isfinite(table).all() or (table < 0).any():
        raise ValueError("counts must be finite and non-negative")
    return table
