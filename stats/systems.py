"""Systems scored against a truth set: precision, recall and F1 per query and pooled.

Arehart, Wolf & Miller, "Adjudicator Agreement and System Rankings for Person
Name Search", LREC 2008 (referred to below as AWM), section 2.4: each system is
scored by F1 over the adjudication pool, counts summed over the queries. The
per-query (tp, fp, fn) counts are also the units :mod:`stats.significance`
resamples. A truth set is a float array over items with ``1.0`` (match),
``0.0`` (no match) or ``NaN`` (unknown); unknown items are left out of every
score, and recall is relative to the pool.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse

__all__ = ["PrecisionRecallF1", "binary_or_nan", "precision_recall_f1", "query_counts", "scores_from_counts"]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class PrecisionRecallF1:
    """Precision, recall and F1; Python floats for one score, arrays otherwise.

    Attributes
    ----------
    precision : float or ndarray
        tp / (tp + fp).
    recall : float or ndarray
        tp / (tp + fn), relative to the pool.
    f1 : float or ndarray
        2 tp / (2 tp + fp + fn).
    """

    precision: float | FloatArray
    recall: float | FloatArray
    f1: float | FloatArray


def query_counts(returned: ArrayLike, truth: ArrayLike, queries: ArrayLike | None = None) -> NDArray[np.int64]:
    """Per-query true positives, false positives and false negatives of systems over a pool.

    These are the sufficient statistics for pooled F1 and for resampling
    queries in the significance tests (AWM section 2.4). Items whose truth is
    unknown (NaN) count as neither right nor wrong. Recall is relative to the
    pool: matches no system returned are not known (TREC pooling, AWM 2.2).

    Parameters
    ----------
    returned : array-like of bool, shape (n_items,) or (n_systems, n_items)
        Whether each system returned each pooled item.
    truth : array-like, shape (n_items,) or (n_sets, n_items)
        1 match, 0 no match, NaN unknown.
    queries : array-like of shape (n_items,), optional
        The query of each item (any sortable labels); queries are numbered in
        sorted label order. Default: the whole pool is one query.

    Returns
    -------
    ndarray of int64, shape truth.shape[:-1] + returned.shape[:-1] + (n_queries, 3)
        The last axis is (tp, fp, fn).

    Examples
    --------
    >>> returned = [[1, 1, 0, 1], [0, 1, 1, 0]]
    >>> truth = [1, 0, 1, np.nan]
    >>> query_counts(returned, truth, ["q1", "q1", "q2", "q2"]).tolist()
    [[[1, 1, 0], [0, 0, 1]], [[0, 1, 1], [1, 0, 0]]]
    """
    returned_array = _as_returned(returned)
    n_items = returned_array.shape[-1]
    truth_array = _as_truth(truth, n_items)
    codes, n_queries = _query_codes(queries, n_items)

    systems = returned_array.reshape(-1, n_items)
    sets = truth_array.reshape(-1, n_items)
    positive = (sets == 1.0).astype(np.float64)
    known = (~np.isnan(sets)).astype(np.float64)

    by_system_query = _system_query_matrix(systems, codes, n_queries)
    by_query = sparse.csr_array((np.ones(n_items), (np.arange(n_items), codes)), shape=(n_items, n_queries))
    # Sparse products keep the cost proportional to the returned items, not
    # to items x systems x queries.
    true_positives = (by_system_query.T @ positive.T).T.reshape(len(sets), len(systems), n_queries)
    returned_known = (by_system_query.T @ known.T).T.reshape(len(sets), len(systems), n_queries)
    positives = (by_query.T @ positive.T).T[:, None, :]
    counts = np.stack([true_positives, returned_known - true_positives, positives - true_positives], axis=-1)
    shape = truth_array.shape[:-1] + returned_array.shape[:-1] + (n_queries, 3)
    return np.rint(counts).astype(np.int64).reshape(shape)


def scores_from_counts(counts: ArrayLike, *, zero_division: float = 0.0) -> PrecisionRecallF1:
    """Precision, recall and F1 from (tp, fp, fn) counts.

    F1 = 2 tp / (2 tp + fp + fn), the harmonic mean of precision and recall
    (AWM section 2.4).

    Parameters
    ----------
    counts : array-like of shape (..., 3)
        Non-negative (tp, fp, fn) along the last axis.
    zero_division : float, keyword-only
        Value of a score whose denominator is 0 (nothing returned, no known
        match): 0.0 by default, as scikit-learn; ``np.nan`` to propagate.

    Returns
    -------
    PrecisionRecallF1
        Python floats for a single (3,) input, arrays of shape counts.shape[:-1] otherwise.

    Examples
    --------
    >>> scores_from_counts([6, 2, 4])
    PrecisionRecallF1(precision=0.75, recall=0.6, f1=0.6666666666666666)
    """
    array = np.asarray(counts, dtype=np.float64)
    if array.ndim == 0 or array.shape[-1] != 3:
        raise ValueError(f"counts must have shape (..., 3) holding (tp, fp, fn); got shape {array.shape}")
    if not np.isfinite(array).all() or (array < 0).any():
        raise ValueError("counts must be finite and non-negative")
    zero_division = float(zero_division)
    tp, fp, fn = array[..., 0], array[..., 1], array[..., 2]
    return PrecisionRecallF1(
        precision=_to_python(_ratio(tp, tp + fp, zero_division)),
        recall=_to_python(_ratio(tp, tp + fn, zero_division)),
        f1=_to_python(_ratio(2 * tp, 2 * tp + fp + fn, zero_division)),
    )


def precision_recall_f1(
    returned: ArrayLike,
    truth: ArrayLike,
    *,
    queries: ArrayLike | None = None,
    average: Literal["micro", "macro"] | None = "micro",
    zero_division: float = 0.0,
) -> PrecisionRecallF1:
    """Precision, recall and F1 of systems over the adjudication pool, for one or many truth sets.

    AWM (section 2.4) score each system by F1 over the whole pool: the
    ``"micro"`` average, counts summed over all queries. Items whose truth is
    unknown (NaN) are left out; recall is relative to the pool.

    Parameters
    ----------
    returned : array-like of bool, shape (n_items,) or (n_systems, n_items)
        Whether each system returned each pooled item.
    truth : array-like, shape (n_items,) or (n_sets, n_items)
        1 match, 0 no match, NaN unknown.
    queries : array-like of shape (n_items,), optional
        The query of each item; required unless ``average="micro"``.
    average : {"micro", "macro"} or None, keyword-only
        ``"micro"``: pooled counts (AWM); ``"macro"``: mean of per-query
        scores; ``None``: per-query scores, queries in sorted label order.
    zero_division : float, keyword-only
        Value of a score whose denominator is 0 (see :func:`scores_from_counts`).

    Returns
    -------
    PrecisionRecallF1
        Each score has shape truth.shape[:-1] + returned.shape[:-1]
        (+ (n_queries,) when ``average=None``); a Python float when that is ().

    Examples
    --------
    >>> returned = [[1, 1, 0, 1], [0, 1, 1, 0]]
    >>> truth = [1, 0, 1, np.nan]
    >>> precision_recall_f1(returned, truth).f1.round(4).tolist()
    [0.5, 0.5]
    >>> precision_recall_f1([1, 1, 0, 1], [[1, 0, 1, 1], [1, 1, 1, 1]]).recall.tolist()
    [0.6666666666666666, 0.75]
    """
    if average not in ("micro", "macro", None):
        raise ValueError(f"average must be 'micro', 'macro' or None; got {average!r}")
    if average != "micro" and queries is None:
        raise ValueError(f"queries is required for average={average!r}")
    counts = query_counts(returned, truth, queries)
    if average == "micro":
        return scores_from_counts(counts.sum(axis=-2), zero_division=zero_division)
    per_query = scores_from_counts(counts, zero_division=zero_division)
    if average is None:
        return per_query
    return PrecisionRecallF1(
        precision=_to_python(np.mean(per_query.precision, axis=-1)),
        recall=_to_python(np.mean(per_query.recall, axis=-1)),
        f1=_to_python(np.mean(per_query.f1, axis=-1)),
    )


def _as_truth(truth: ArrayLike, n_items: int) -> FloatArray:
    array = _as_float_array(truth, "truth")
    if array.ndim not in (1, 2):
        raise ValueError(f"truth must be 1-D (items) or 2-D (sets x items); got {array.ndim} dimension(s)")
    if array.shape[-1] != n_items:
        raise ValueError(f"truth must cover the {n_items} items of returned; got {array.shape[-1]}")
    _check_binary_or_nan(array, "truth")
    return array


def _as_returned(returned: ArrayLike) -> FloatArray:
    array = _as_float_array(returned, "returned")
    if array.ndim not in (1, 2):
        raise ValueError(f"returned must be 1-D (items) or 2-D (systems x items); got {array.ndim} dimension(s)")
    if not np.isin(array, (0.0, 1.0)).all():
        raise ValueError("returned must be boolean (or 0/1): whether each system returned each item")
    return array


def _as_float_array(values: ArrayLike, name: str) -> FloatArray:
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numeric (1, 0, NaN or None)") from None


def _check_binary_or_nan(array: FloatArray, name: str) -> None:
    known = array[~np.isnan(array)]
    if not np.isin(known, (0.0, 1.0)).all():
        raise ValueError(f"{name} must hold only 1 (match), 0 (no match) or NaN/None (unknown)")


def _query_codes(queries: ArrayLike | None, n_items: int) -> tuple[NDArray[np.intp], int]:
    if queries is None:
        return np.zeros(n_items, dtype=np.intp), 1
    labels = np.asarray(queries)
    if labels.shape != (n_items,):
        raise ValueError(f"queries must have shape ({n_items},), one query per item; got {labels.shape}")
    try:
        unique, codes = np.unique(labels, return_inverse=True)
    except TypeError:
        raise ValueError("queries must be sortable labels of one type") from None
    return codes.astype(np.intp), len(unique)


def _system_query_matrix(systems: FloatArray, codes: NDArray[np.intp], n_queries: int) -> sparse.csr_array:
    """(items x systems*queries) indicator: item i was returned by system s and belongs to query q."""
    system_index, item_index = np.nonzero(systems)
    columns = system_index * n_queries + codes[item_index]
    return sparse.csr_array(
        (np.ones(len(item_index)), (item_index, columns)),
        shape=(systems.shape[1], systems.shape[0] * n_queries),
    )


def _ratio(numerator: FloatArray, denominator: FloatArray, zero_division: float) -> FloatArray:
    safe = np.where(denominator > 0, denominator, 1.0)
    return np.where(denominator > 0, numerator / safe, zero_division)


def _to_python(values: FloatArray) -> float | FloatArray:
    return float(values) if np.ndim(values) == 0 else np.asarray(values)


def binary_or_nan(values: ArrayLike, name: str) -> FloatArray:
    """``values`` as floats holding only 1 (match), 0 (no match) or NaN (unknown).

    Raises ``ValueError`` naming ``name`` otherwise.

    Examples
    --------
    >>> binary_or_nan([1, 0, None], "votes").tolist()
    [1.0, 0.0, nan]
    """
    array = _as_float_array(values, name)
    _check_binary_or_nan(array, name)
    return array
