"""Which pairs of a topic each assessor judges (the campaign's ``allocation``).

``uniform``: the topic's pairs in an order shuffled once per topic, each new
assessor of the topic taking the next ``pairs_per_assignment`` of them (wrapping
round), so every pair is judged as often as the others, to within one.

``active`` (Chiang et al. 2024, "Chatbot Arena", ICML 2024, section 5: sample the
pair whose next vote most reduces the intervals of the ratings) weighs the pairs by
:func:`pair_weights`, the hook where the statistics' active sampling rule plugs in;
until it is connected every pair weighs the same, so ``active`` hands pairs out as
``uniform`` does.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt


def uniform_share(pairs: Sequence[str], size: int, *, slot: int, seed: str) -> list[str]:
    """The ``slot``-th assessor's ``size`` pairs of ``pairs``: the next window of a shuffled
    order of them (the order fixed by ``seed``), in the pairs' own order.

    >>> pairs = ["1-2", "1-3", "2-3"]
    >>> shares = [uniform_share(pairs, 2, slot=k, seed="s") for k in range(3)]
    >>> sorted(p for share in shares for p in share) == sorted(pairs * 2)
    True
    """
    order = list(pairs)
    random.Random(seed).shuffle(order)
    start = (slot * size) % len(order)
    chosen = set((order + order)[start : start + min(size, len(order))])
    return [pair for pair in pairs if pair in chosen]


def pair_weights(counts: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """How much another vote of each pair of systems is worth, from the votes so far
    (``counts``: the ``(k, k, 4)`` table of ``stats.preference.vote_counts``), as a ``(k, k)``
    matrix (symmetric, zero diagonal, summing to 1 over the pairs i < j).

    The hook of the ``active`` allocation: every pair weighs the same here.

    >>> pair_weights(np.zeros((3, 3, 4))).round(3).tolist()
    [[0.0, 0.333, 0.333], [0.333, 0.0, 0.333], [0.333, 0.333, 0.0]]
    """
    k = np.asarray(counts).shape[0]
    weights = np.ones((k, k)) - np.eye(k)
    pairs = k * (k - 1) / 2
    return weights / pairs if pairs else weights
