"""Truth sets built from several adjudicators' match judgments: the pairs kind's own statistics.

Arehart, Wolf & Miller, "Adjudicator Agreement and System Rankings for Person
Name Search" (referred to below as AWM): section 2.2 (adjudication pools),
section 2.3 and Table 1 (the five kinds of truth set).

Votes are an ``(items x adjudicators)`` array: ``1`` match, ``0`` no match,
``NaN`` (or ``None``) not adjudicated. A truth set is a float array over items
with ``1.0`` (match), ``0.0`` (no match) or ``NaN`` (unknown: nobody judged the
item). The systems' scores against these truth sets (section 2.4: F1 over
the pool, unknown items left out) are :mod:`stats.systems`, shared with the
significance tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from stats.systems import binary_or_nan

__all__ = ["VoteCounts", "consensus", "intersection", "random_truth_sets", "single", "union", "vote_counts"]

FloatArray = NDArray[np.float64]
Seed = int | np.random.SeedSequence


@dataclass(frozen=True, eq=False)
class VoteCounts:
    """Per item: how many adjudicators said match, and how many judged it at all.

    Attributes
    ----------
    matches : ndarray of int64, shape (n_items,)
    judged : ndarray of int64, shape (n_items,)
    """

    matches: NDArray[np.int64]
    judged: NDArray[np.int64]


def vote_counts(votes: ArrayLike) -> VoteCounts:
    """Count match votes and votes cast per item (the provenance of every truth set).

    Parameters
    ----------
    votes : array-like of shape (n_items, n_adjudicators)
        1 = match, 0 = no match, NaN or None = not adjudicated.

    Returns
    -------
    VoteCounts
        ``matches`` and ``judged``, integer arrays of shape (n_items,).

    Examples
    --------
    >>> counts = vote_counts([[1, 1, 0, 0], [1, 0, None, None], [None, None, None, None]])
    >>> counts.matches.tolist(), counts.judged.tolist()
    ([2, 1, 0], [4, 2, 0])
    """
    array = _as_votes(votes)
    judged = ~np.isnan(array)
    matches = np.where(judged, array, 0.0).sum(axis=1)
    return VoteCounts(matches=matches.astype(np.int64), judged=judged.sum(axis=1).astype(np.int64))


def consensus(votes: ArrayLike) -> FloatArray:
    """Consensus truth set: a tie or a majority of match votes makes a match (AWM Table 1, type 1).

    The vote is over the adjudicators who judged the item; an item nobody
    judged is unknown (NaN) and is left out of every score.

    Parameters
    ----------
    votes : array-like of shape (n_items, n_adjudicators)
        1 = match, 0 = no match, NaN or None = not adjudicated.

    Returns
    -------
    ndarray of shape (n_items,)
        1.0 match, 0.0 no match, NaN unknown.

    Examples
    --------
    >>> consensus([[1, 1, 0, 0], [1, 0, 0, None], [None, None, None, None]])
    array([ 1.,  0., nan])
    """
    counts = vote_counts(votes)
    return _resolve(counts, 2 * counts.matches >= counts.judged)


def union(votes: ArrayLike) -> FloatArray:
    """Union truth set: a match if anyone judged it a match (AWM Table 1, type 2).

    Parameters
    ----------
    votes : array-like of shape (n_items, n_adjudicators)
        1 = match, 0 = no match, NaN or None = not adjudicated.

    Returns
    -------
    ndarray of shape (n_items,)
        1.0 match, 0.0 no match, NaN when nobody judged the item.

    Examples
    --------
    >>> union([[1, 0, 0], [0, 0, None], [None, None, None]])
    array([ 1.,  0., nan])
    """
    counts = vote_counts(votes)
    return _resolve(counts, counts.matches > 0)


def intersection(votes: ArrayLike) -> FloatArray:
    """Intersection truth set: a match if everyone judged it a match (AWM Table 1, type 3).

    "Everyone" means every adjudicator *who judged the item*: a missing vote is
    neither a match nor a veto. In AWM every one of the four adjudicators
    judged all 1712 pooled items (section 2.2), so the paper's definition
    does not need this convention; ignoring missing votes keeps Union,
    Intersection and Consensus equal to the single vote cast when only one
    adjudicator judged an item, as they are "special cases" of the Random
    truth sets (section 2.3).

    Parameters
    ----------
    votes : array-like of shape (n_items, n_adjudicators)
        1 = match, 0 = no match, NaN or None = not adjudicated.

    Returns
    -------
    ndarray of shape (n_items,)
        1.0 match, 0.0 no match, NaN when nobody judged the item.

    Examples
    --------
    >>> intersection([[1, 1, 1], [1, 1, 0], [1, None, 1], [None, None, None]])
    array([ 1.,  0.,  1., nan])
    """
    counts = vote_counts(votes)
    return _resolve(counts, counts.matches == counts.judged)


def single(votes: ArrayLike, adjudicator: int) -> FloatArray:
    """Single truth set: one adjudicator's judgments (AWM Table 1, type 4).

    Parameters
    ----------
    votes : array-like of shape (n_items, n_adjudicators)
        1 = match, 0 = no match, NaN or None = not adjudicated.
    adjudicator : int
        Column index of the adjudicator (negative indices count from the end).

    Returns
    -------
    ndarray of shape (n_items,)
        That adjudicator's votes; NaN (unknown) where they did not judge.

    Examples
    --------
    >>> single([[1, 0], [None, 1], [0, 0]], 0)
    array([ 1., nan,  0.])
    """
    array = _as_votes(votes)
    n_adjudicators = array.shape[1]
    if isinstance(adjudicator, bool) or not isinstance(adjudicator, (int, np.integer)):
        raise ValueError(f"adjudicator must be an integer column index; got {adjudicator!r}")
    if not -n_adjudicators <= adjudicator < n_adjudicators:
        raise ValueError(
            f"adjudicator must be a column index in [{-n_adjudicators}, {n_adjudicators - 1}]; got {adjudicator}"
        )
    return array[:, adjudicator].copy()


def random_truth_sets(
    votes: ArrayLike,
    *,
    n_sets: int,
    seed: Seed,
    start: int = 0,
    stop: int | None = None,
) -> FloatArray:
    """Random truth sets: for each item, the vote of one adjudicator drawn at random (AWM Table 1, type 5).

    The adjudicator is drawn uniformly among those who judged the item; an
    item nobody judged is NaN in every set. AWM generated 1000 such sets
    (section 2.3).

    Set ``i`` draws its adjudicators from its own stream,
    ``SeedSequence(seed, spawn_key=(i,))`` -- the ``i``-th child of
    ``SeedSequence(seed).spawn(n_sets)`` -- so rows ``start:stop`` are the
    same whether they are computed in one call or in chunks by different
    workers: ``random_truth_sets(v, n_sets=n, seed=s, start=a, stop=b)``
    equals ``random_truth_sets(v, n_sets=n, seed=s)[a:b]``.

    Parameters
    ----------
    votes : array-like of shape (n_items, n_adjudicators)
        1 = match, 0 = no match, NaN or None = not adjudicated.
    n_sets : int
        Total number of random truth sets R.
    seed : int or numpy.random.SeedSequence
        Required: reproducibility (and chunking) depends on it. For a
        SeedSequence, set ``i`` uses its spawn key extended by ``(i,)``.
    start, stop : int
        The chunk of sets to compute, ``0 <= start <= stop <= n_sets``
        (default: all of them).

    Returns
    -------
    ndarray of shape (stop - start, n_items)
        Row ``k`` is truth set ``start + k``.

    Examples
    --------
    >>> votes = [[1, 0], [1, 1], [0, None]]
    >>> sets = random_truth_sets(votes, n_sets=4, seed=7)
    >>> sets.shape
    (4, 3)
    >>> sets[:, 1:].tolist()  # unanimous and single-vote items never change
    [[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 0.0]]
    >>> bool((random_truth_sets(votes, n_sets=4, seed=7, start=2, stop=4) == sets[2:]).all())
    True
    """
    array = _as_votes(votes)
    n_sets = _check_nonnegative_int(n_sets, "n_sets")
    start = _check_nonnegative_int(start, "start")
    stop = n_sets if stop is None else _check_nonnegative_int(stop, "stop")
    if not start <= stop <= n_sets:
        raise ValueError(f"start and stop must satisfy 0 <= start <= stop <= n_sets={n_sets}; got {start}, {stop}")
    _check_seed(seed)

    n_items = array.shape[0]
    judged = ~np.isnan(array)
    n_judged = judged.sum(axis=1)
    # A stable sort puts each item's judging adjudicators first, in column
    # order, so "the k-th judge of item i" is judging_columns[i, k].
    judging_columns = np.argsort(~judged, axis=1, kind="stable")
    uniforms = np.empty((stop - start, n_items))
    for row, set_index in enumerate(range(start, stop)):
        uniforms[row] = np.random.default_rng(_set_seed_sequence(seed, set_index)).random(n_items)
    # min() guards the last rank against u * n rounding up to n.
    rank = np.minimum(np.floor(uniforms * n_judged), np.maximum(n_judged - 1, 0)).astype(np.intp)
    items = np.arange(n_items)
    chosen = judging_columns[items, rank]
    return array[items, chosen]


def _resolve(counts: VoteCounts, is_match: NDArray[np.bool_]) -> FloatArray:
    return np.where(counts.judged == 0, np.nan, is_match.astype(np.float64))


def _as_votes(votes: ArrayLike) -> FloatArray:
    array = binary_or_nan(votes, "votes")
    if array.ndim != 2:
        raise ValueError(f"votes must be a 2-D array (items x adjudicators); got {array.ndim} dimension(s)")
    if array.shape[1] == 0:
        raise ValueError("votes must have at least one adjudicator column")
    return array


def _check_nonnegative_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer; got {value!r}")
    return int(value)


def _check_seed(seed: object) -> None:
    if isinstance(seed, np.random.SeedSequence):
        return
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer or a numpy SeedSequence; got {seed!r}")


def _set_seed_sequence(seed: Seed, index: int) -> np.random.SeedSequence:
    if isinstance(seed, np.random.SeedSequence):
        return np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, index), pool_size=seed.pool_size)
    return np.random.SeedSequence(int(seed), spawn_key=(index,))
