"""The preference kind's own statistics: what the leaderboard's report needs beside
``stats.preference`` (the fits, their intervals, settled pairs) and ``stats.agreement``.

- :func:`system_outcomes`: a vote's outcome in the terms of its pair of systems rather
  than of its sides (the first system of the pair won, the second, or a tie; "both bad"
  counted as a tie), the three outcomes agreement is measured over;
- :func:`self_consistency`: how often a rater who judged the same pair of one prompt twice
  or more gave the same outcome (Zheng et al. 2023, "Judging LLM-as-a-Judge with MT-Bench and
  Chatbot Arena", NeurIPS 2023 Datasets and Benchmarks, section 3.3, Table 2: a judge's
  consistency when the sides are swapped);
- :func:`leaderboard_tau`: Kendall's tau between two leaderboards' ratings of the same
  systems with a percentile interval over paired bootstrap rounds, and
  :func:`ordered_differently`, the pairs of systems they order the other way round.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from stats.rank import kendall_tau_b

__all__ = [
    "FIRST",
    "SECOND",
    "SYSTEM_TIE",
    "leaderboard_tau",
    "ordered_differently",
    "self_consistency",
    "system_outcomes",
]

#: Outcomes in the terms of the pair of systems: the first (lower position or index) won, the second, a tie.
FIRST, SECOND, SYSTEM_TIE = 0, 1, 2


def system_outcomes(left: npt.ArrayLike, right: npt.ArrayLike, outcome: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Each vote's outcome for its pair of systems: ``FIRST`` (the lower of ``left`` and ``right``
    won), ``SECOND`` or ``SYSTEM_TIE`` (a tie or "both bad": stats.preference's outcomes 2, 3).

    >>> system_outcomes([0, 1, 1, 0], [1, 0, 0, 1], [0, 0, 1, 3]).tolist()
    [0, 1, 0, 2]
    """
    left, right, outcome = (np.asarray(a, dtype=np.int64) for a in (left, right, outcome))
    if not (left.shape == right.shape == outcome.shape):
        raise ValueError("left, right, outcome: one entry per vote each")
    left_first = left < right
    won = np.where(outcome == 0, np.where(left_first, FIRST, SECOND), np.where(left_first, SECOND, FIRST))
    return np.where(outcome >= 2, SYSTEM_TIE, won).astype(np.int64)


class Consistency(NamedTuple):
    """Per rater: ``units`` judged twice or more, ``pairs`` of verdicts on those units, ``same``: those
    pairs with the same outcome."""

    units: npt.NDArray[np.int64]
    pairs: npt.NDArray[np.int64]
    same: npt.NDArray[np.int64]


def self_consistency(
    rater: npt.ArrayLike, unit: npt.ArrayLike, outcome: npt.ArrayLike, *, n_raters: int
) -> Consistency:
    """How consistent each rater is with themselves on the units (a prompt's pair of systems) they
    judged more than once: of every two of their verdicts on one unit, how many agree
    (``same / pairs``; with two verdicts a unit, the share of repeats judged alike).

    >>> c = self_consistency([0, 0, 0, 0, 1], [5, 5, 6, 6, 5], [0, 0, 0, 2, 1], n_raters=2)
    >>> c.units.tolist(), c.pairs.tolist(), c.same.tolist()
    ([2, 0], [2, 0], [1, 0])
    """
    rater, unit, outcome = (np.asarray(a, dtype=np.int64) for a in (rater, unit, outcome))
    if not (rater.shape == unit.shape == outcome.shape):
        raise ValueError("rater, unit, outcome: one entry per verdict each")
    units = np.zeros(n_raters, np.int64)
    pairs = np.zeros(n_raters, np.int64)
    same = np.zeros(n_raters, np.int64)
    if not rater.size:
        return Consistency(units, pairs, same)
    keys, inverse = np.unique(np.column_stack([rater, unit]), axis=0, return_inverse=True)
    inverse = inverse.ravel()
    counts = np.zeros((len(keys), 3), np.int64)
    np.add.at(counts, (inverse, outcome), 1)
    total = counts.sum(axis=1)
    repeated = total >= 2
    np.add.at(units, keys[repeated, 0], 1)
    np.add.at(pairs, keys[:, 0], total * (total - 1) // 2)
    np.add.at(same, keys[:, 0], (counts * (counts - 1) // 2).sum(axis=1))
    return Consistency(units, pairs, same)


class Tau(NamedTuple):
    """Kendall's tau-b between two leaderboards, its percentile interval over bootstrap rounds and
    the rounds it rests on (NaN bounds: fewer than two rounds with a defined tau)."""

    value: float
    low: float
    high: float
    rounds: int


def leaderboard_tau(
    first: npt.ArrayLike,
    second: npt.ArrayLike,
    *,
    first_samples: npt.ArrayLike | None = None,
    second_samples: npt.ArrayLike | None = None,
    level: float = 0.95,
) -> Tau:
    """Kendall's tau-b between two leaderboards' ratings of the same systems, with the
    percentile interval of the taus of paired bootstrap rounds (round ``b`` of each: rounds x
    systems, NaN for a failed round, left out).

    >>> leaderboard_tau([3, 2, 1], [3, 1, 2]).value
    0.3333333333333333
    >>> t = leaderboard_tau([3, 2, 1], [3, 2, 1], first_samples=[[3, 2, 1], [3, 1, 2]], second_samples=[[3, 2, 1]] * 2)
    >>> round(t.low, 3), round(t.high, 3), t.rounds
    (0.35, 0.983, 2)
    """
    a, b = np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("first, second: one rating per system each, the same systems")
    nan = float("nan")
    if a.size < 2:
        return Tau(nan, nan, nan, 0)
    value = float(kendall_tau_b(a, b)[0, 0])
    if first_samples is None or second_samples is None:
        return Tau(value, nan, nan, 0)
    sa, sb = np.asarray(first_samples, dtype=np.float64), np.asarray(second_samples, dtype=np.float64)
    rounds = min(len(sa), len(sb))
    sa, sb = sa[:rounds], sb[:rounds]
    kept = np.isfinite(sa).all(axis=1) & np.isfinite(sb).all(axis=1)
    taus = np.array([kendall_tau_b(x, y)[0, 0] for x, y in zip(sa[kept], sb[kept])], dtype=np.float64)
    taus = taus[np.isfinite(taus)]
    if len(taus) < 2:
        return Tau(value, nan, nan, int(len(taus)))
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(taus, [tail, 100 - tail])
    return Tau(value, float(low), float(high), int(len(taus)))


def ordered_differently(first: npt.ArrayLike, second: npt.ArrayLike) -> list[tuple[int, int]]:
    """The pairs of systems ``(i, j)``, ``i < j``, that one leaderboard puts in one order and the
    other in the other (a tie in either counts as no order).

    >>> ordered_differently([3, 2, 1], [3, 1, 2])
    [(1, 2)]
    """
    a, b = np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64)
    i, j = np.triu_indices(len(a), 1)
    differ = np.sign(a[i] - a[j]) * np.sign(b[i] - b[j]) < 0
    return [(int(x), int(y)) for x, y in zip(i[differ], j[differ])]
