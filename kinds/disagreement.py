"""A topic's disagreement from its items' votes, for the kinds whose judgments are labels
(KindSpec ``Reports.disagreement``; the measures: stats/dispute.py).

The topic's value is the mean over its items judged twice or more of each item's
measure (vote entropy for labels without an order, Tastle & Wierman's dissention
for grades), so a topic of one item scores as that item, and a topic of many scores
by how split its items are on average. The reason names the votes: of the item
alone, or how many items are split and the most disputed one's votes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from kinds.spec import Disagreement
from stats.dispute import ordinal_dissent, vote_entropy

__all__ = ["label_disagreement", "pairwise_disagreement", "votes_text"]

#: An item id longer than this is cut in a reason (the reason is a short phrase).
ID_SHOWN = 40


def label_disagreement(
    items: Sequence[str],
    counts: npt.ArrayLike,
    labels: Sequence[str],
    *,
    noun: str,
    ordinal: bool = False,
) -> Disagreement | None:
    """The disagreement of a topic's items from their votes.

    ``counts[i, k]``: the votes of item ``items[i]`` for label ``labels[k]``
    (grades in scale order when ``ordinal``); ``noun``: what the items are
    ("candidates"). None when no item has two votes.

    >>> label_disagreement(["c1"], [[5, 5]], ["match", "no match"], noun="candidates")
    Disagreement(value=1.0, reason='5 match / 5 no match')
    >>> found = label_disagreement(["c1", "c2", "c3"], [[2, 0], [1, 1], [0, 1]], ["match", "no match"], noun="candidates")
    >>> found.value, found.reason
    (0.5, '1 of 2 candidates split; most: c2 (1 match / 1 no match)')
    >>> label_disagreement(["d1"], [[3, 0, 0, 1]], ["0", "1", "2", "3"], noun="documents", ordinal=True).reason
    '3 × 0 / 1 × 3'
    """
    table = np.asarray(counts, dtype=np.float64).reshape(len(items), len(labels))
    shared = np.flatnonzero(table.sum(axis=1) >= 2)
    if not shared.size:
        return None
    measure = ordinal_dissent(table[shared]) if ordinal else vote_entropy(table[shared])
    value = float(np.mean(measure))
    most = int(shared[np.argmax(measure)])
    votes = votes_text(table[most], labels, ordinal=ordinal)
    if len(items) == 1:
        return Disagreement(value, votes)
    if shared.size == 1:
        return Disagreement(value, f"{_short(items[most])}: {votes}")
    split = int(np.count_nonzero(measure > 0))
    if not split:
        if shared.size == len(items):
            return Disagreement(value, f"unanimous on all {shared.size} {noun}")
        return Disagreement(value, f"unanimous on the {shared.size} {noun} judged twice or more")
    return Disagreement(value, f"{split} of {shared.size} {noun} split; most: {_short(items[most])} ({votes})")


def votes_text(row: npt.ArrayLike, labels: Sequence[str], *, ordinal: bool = False) -> str:
    """One item's votes in words, the most given first (grades in scale order, with "×"):
    ``5 match / 5 no match``, ``3 × 0 / 1 × 3``.

    >>> votes_text([2, 8], ["match", "no match"])
    '8 no match / 2 match'
    >>> votes_text([0, 3], ["vital", "okay"])
    '3 okay'
    """
    row = np.asarray(row, dtype=np.float64)
    given = [k for k in range(len(labels)) if row[k] > 0]
    if ordinal:
        return " / ".join(f"{int(row[k])} × {labels[k]}" for k in given)
    given.sort(key=lambda k: -row[k])  # stable: ties keep the labels' order
    return " / ".join(f"{int(row[k])} {labels[k]}" for k in given)


def pairwise_disagreement(pairs: Sequence[tuple[str, str, float | None]], *, figure: str) -> Disagreement | None:
    """1 - the mean similarity of every pair of judgments (``(first, second, similarity)``,
    undefined ones left out: None or NaN), for the kinds whose judgments are compared whole
    (orderings by Kendall's tau, clusterings by V_beta, factoid inventories by kappa); the
    reason names the mean and the pair furthest apart. None without a defined pair.

    >>> pairwise_disagreement([("ann", "bob", 0.8), ("ann", "cy", 0.2), ("bob", "cy", 0.5)], figure="τ")
    Disagreement(value=0.5, reason='mean τ 0.50 over 3 pairs; furthest apart: ann and cy (τ 0.20)')
    >>> pairwise_disagreement([("ann", "bob", 1.0)], figure="τ").reason
    'ann and bob: τ 1.00'
    """
    found = [(a, b, float(v)) for a, b, v in pairs if v is not None and v == v]
    if not found:
        return None
    mean = sum(v for *_, v in found) / len(found)
    if len(found) == 1:
        a, b, v = found[0]
        return Disagreement(1.0 - mean, f"{_short(a)} and {_short(b)}: {figure} {v:.2f}")
    a, b, v = min(found, key=lambda pair: pair[2])
    return Disagreement(
        1.0 - mean,
        f"mean {figure} {mean:.2f} over {len(found)} pairs; furthest apart: {_short(a)} and {_short(b)} ({figure} {v:.2f})",
    )


def _short(item: str) -> str:
    return item if len(item) <= ID_SHOWN else item[: ID_SHOWN - 1] + "…"
