"""Which pairs of outputs each assessor judges (the campaign's ``allocation``).

``uniform``: assigned up front (annotate.services.assignments): a topic's pairs in an order
shuffled once per topic, each new assessor of the topic taking the next
``pairs_per_assignment`` of them (wrapping round), so every pair is judged as often as the
others, to within one (:func:`uniform_share`).

``active`` (Chiang et al. 2024, "Chatbot Arena", ICML 2024, section 5): handed out as each
assessor asks for work ("Next topic"; kinds/preference/active.py reads the campaign), one
assignment at a time. A pair of *systems* is drawn with the probabilities of eq. 9
(:func:`pair_weights`: in proportion to how much one more vote narrows the interval of the
pair's win rate, mixed with a uniform floor), then a prompt with both systems' outputs
(:func:`draw`). Each pair handed out keeps the probability it was drawn with
(``Assignment.draws``), and the leaderboard weighs its vote by the inverse (eq. 7).

``design``: handed out on request as ``active`` is, the pairs of systems drawn with the shares of
the optimal design for the leaderboard's neighbours (:func:`design_weights`:
kinds.preference.stats.adjacent_design at the stored leaderboard's scores, mixed with the same
uniform floor), then a prompt as above. Its votes are not weighted: the Bradley-Terry likelihood
of votes whose pairs were chosen from earlier votes alone is the likelihood of the same votes
on those pairs fixed in advance (the choice's probabilities do not depend on the strengths), so
the unweighted fit, its intervals and its bootstraps hold as under a fixed design (the
likelihood principle; Rosenberger & Lachin 2016, "Randomization in Clinical Trials", 2nd ed.,
Wiley, section 10.2). What it gives up is eq. 7's estimand under a misspecified model: the
scores a uniform draw of pairs would give. ``benchmarks.preference`` measures the votes each
allocation needs for the same precision of adjacent differences, against the optimum.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import numpy.typing as npt

from kinds.preference.stats import adjacent_design

#: The share of every active draw spread evenly over the pairs (kinds.preference.stats.active_weights'
#: ``floor``): no pair's probability is below ``FLOOR / pairs``, so no vote weighs more than
#: ``pairs / FLOOR`` (Chiang et al.'s condition that every probability stays above some epsilon).
FLOOR = 0.1


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


def pair_weights(votes: npt.ArrayLike, expected: npt.ArrayLike, *, floor: float = FLOOR) -> npt.NDArray[np.float64]:
    """The probability of drawing each pair of systems for the next vote: Chiang et al. (2024),
    section 5, eq. 9, ``P(a) ~ sqrt(S_a / n_a) - sqrt(S_a / (n_a + 1))``, mixed with the uniform
    draw, ``(1 - floor) P + floor / pairs``.

    ``votes``: each pair's votes so far (``n_a``; a pair never compared counts as one vote, so
    its weight is defined and the largest its ``S_a`` allows); ``expected``: the leaderboard's
    expected score of the pair's first system against the second (a win 1, a tie 1/2), NaN where
    the leaderboard has none (a system without a finite score yet), taken as 1/2: every system
    alike until the votes say otherwise. ``S_a = p (1 - p)``, the variance of one vote's score:
    kinds.preference.stats.active_weights' ``"win-rate"`` target, the one the paper evaluates, read from
    a stored leaderboard (its dispersion factor, common to every pair, cancels out).

    >>> pair_weights([20, 4, 20], [0.5, 0.5, 0.5]).round(3).tolist()
    [0.11, 0.781, 0.11]
    >>> pair_weights([0, 50], [float("nan"), 0.5]).round(3).tolist()
    [0.946, 0.054]
    """
    n = np.maximum(np.asarray(votes, dtype=np.float64), 1.0)
    p = np.asarray(expected, dtype=np.float64)
    if n.shape != p.shape or n.ndim != 1:
        raise ValueError("votes, expected: one number per pair each")
    if not 0 < floor <= 1:
        raise ValueError("floor: the uniform draw's share, more than 0 and at most 1")
    pairs = len(n)
    if not pairs:
        return np.zeros(0)
    p = np.where(np.isfinite(p), np.clip(p, 0.0, 1.0), 0.5)
    spread = np.sqrt(p * (1 - p))
    reduction = spread * (1 / np.sqrt(n) - 1 / np.sqrt(n + 1))
    total = reduction.sum()
    drawn = reduction / total if total > 0 else np.full(pairs, 1 / pairs)
    probability = (1 - floor) * drawn + floor / pairs
    return probability / probability.sum()


def design_weights(
    universe: Sequence[tuple[str, str]], theta: Mapping[str, float], *, floor: float = FLOOR
) -> npt.NDArray[np.float64]:
    """The probability of drawing each pair of systems of ``universe`` under the ``design``
    allocation: the optimal design for the adjacent differences at strengths ``theta`` (logits
    per system, kinds.preference.stats.adjacent_design) over every pair of the universe's systems,
    restricted to the universe, mixed with the uniform draw ``(1 - floor) w + floor / pairs``.
    A system without a finite strength counts as the average one; with fewer than two known, no
    order is known to serve, and every pair is drawn alike.

    >>> universe = [("a", "b"), ("a", "c"), ("b", "c")]
    >>> design_weights(universe, {"a": 1.0, "b": 0.0, "c": -1.0}).round(3).tolist()
    [0.469, 0.062, 0.469]
    >>> design_weights(universe, {"a": 0.2}).round(3).tolist()
    [0.333, 0.333, 0.333]
    """
    if not 0 < floor <= 1:
        raise ValueError("floor: the uniform draw's share, more than 0 and at most 1")
    pairs = len(universe)
    if not pairs:
        return np.zeros(0)
    systems = sorted({system for pair in universe for system in pair})
    known = np.array([float(theta.get(system, float("nan"))) for system in systems])
    finite = np.isfinite(known)
    if finite.sum() < 2:
        return np.full(pairs, 1 / pairs)
    centred = np.where(finite, known - (known[finite].mean() if finite.any() else 0.0), 0.0)
    shares = adjacent_design(centred)
    index = {system: k for k, system in enumerate(systems)}
    first, second = np.triu_indices(len(systems), 1)
    at = {(int(i), int(j)): m for m, (i, j) in enumerate(zip(first, second))}
    w = np.array([shares[at[tuple(sorted((index[a], index[b])))]] for a, b in universe])
    w = w / w.sum() if w.sum() > 0 else np.full(pairs, 1 / pairs)
    probability = (1 - floor) * w + floor / pairs
    return probability / probability.sum()


@dataclass(frozen=True)
class Draw:
    """An active draw: the topic, its pairs of outputs (positions, 1-based, lowest first, in the
    pairs' order) and the probability each was drawn with, in the same order."""

    topic: int
    pairs: list[tuple[int, int]]
    probabilities: list[float]


def draw(
    topics: Mapping[int, Sequence[str]],
    open_topics: set[int],
    weights: Mapping[tuple[str, str], float],
    size: int,
    rng: random.Random,
) -> Draw | None:
    """Draw an assessor's next ``size`` pairs (Chiang et al. 2024, section 5).

    ``topics``: each topic's systems by position; ``open_topics``: the topics the assessor
    holds no assignment of (so never a pair of a prompt they judged); ``weights``: each pair of
    systems' probability (:func:`pair_weights`, keyed by the two names in sorted order), over
    every pair that some topic compares.

    1. A pair of systems, among those that an open topic compares, with probability its weight
       over theirs: the active draw, redrawn until it lands on a pair the assessor can judge
       (the same as drawing among those pairs alone). None when no pair is left.
    2. A topic uniformly among the open topics with both systems' outputs.
    3. Up to ``size`` - 1 further pairs of that topic, one at a time, each among the topic's
       pairs not drawn yet with probability its weight over theirs.

    Each pair keeps the probability it was drawn with (a conditional one: given the pairs the
    assessor could still judge, and after the first, given the topic), what its vote's weight
    inverts. With one pair per assignment every vote's weight is that of Chiang et al.'s eq. 7
    over the pairs the assessor could judge; the further pairs of a topic stand for that topic's
    pairs.

    >>> topics = {1: ["a", "b", "c"], 2: ["a", "b"]}
    >>> weights = {("a", "b"): 0.1, ("a", "c"): 0.8, ("b", "c"): 0.1}
    >>> drawn = draw(topics, {1, 2}, weights, 1, random.Random(3))
    >>> drawn.topic, drawn.pairs, [round(p, 3) for p in drawn.probabilities]
    (1, [(1, 3)], [0.8])
    >>> draw(topics, {2}, weights, 2, random.Random(3)).probabilities
    [1.0]
    >>> draw(topics, set(), weights, 1, random.Random(3)) is None
    True
    """
    candidates: dict[tuple[str, str], list[int]] = {}
    for topic in sorted(open_topics):
        for first, second in combinations(topics.get(topic, ()), 2):
            candidates.setdefault(pair_key(first, second), []).append(topic)
    keys = sorted(candidates)
    if not keys:
        return None
    key, probability = _one(keys, weights, rng)
    topic = rng.choice(candidates[key])
    position = {system: k for k, system in enumerate(topics[topic], start=1)}
    chosen = {key: probability}
    rest = sorted(
        pair_key(first, second) for first, second in combinations(topics[topic], 2) if pair_key(first, second) != key
    )
    while rest and len(chosen) < size:
        key, probability = _one(rest, weights, rng)
        rest.remove(key)
        chosen[key] = probability
    by_position = sorted((tuple(sorted((position[a], position[b]))), p) for (a, b), p in chosen.items())
    return Draw(topic, [pair for pair, _ in by_position], [p for _, p in by_position])


def _one(
    keys: Sequence[tuple[str, str]], weights: Mapping[tuple[str, str], float], rng: random.Random
) -> tuple[tuple[str, str], float]:
    """One of ``keys`` with probability its weight over theirs, and that probability."""
    w = [max(float(weights.get(key, 0.0)), 0.0) for key in keys]
    total = sum(w)
    if not total > 0:  # no weight for any of them: the uniform draw
        w, total = [1.0] * len(keys), float(len(keys))
    at = rng.choices(range(len(keys)), weights=w)[0]
    return keys[at], w[at] / total


def pair_key(first: str, second: str) -> tuple[str, str]:
    """A pair of systems as :func:`draw`'s ``weights`` key it: the two names in sorted order.

    >>> pair_key("b", "a")
    ('a', 'b')
    """
    return (first, second) if first <= second else (second, first)
