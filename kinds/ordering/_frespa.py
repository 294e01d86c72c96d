"""Exact counting of FreSPA's frequent sequential patterns without listing them (private).

Kim, Zhai & Han, "Aggregation of Multiple Judgments for Evaluating Ordered
Lists", section 4.4, score patterns found by PrefixSpan, whose output grows
exponentially with the number of items k. Here the patterns are counted.

Orderings are permutations, so a pattern (distinct items ``x_1 .. x_L``) is
contained in an ordering iff every consecutive pair ``x_i, x_{i+1}`` is in
that order there (precedence is transitive). The set of gold orderings that
contain a pattern is therefore the intersection, over its consecutive pairs,
of ``M[a, b]`` = the golds that put ``a`` before ``b``; and a pattern whose
set is ``G`` is a chain of the partial order "before in every gold of G".

The dynamic programme walks states ``(last item, G)``: extending a chain
ending at ``a`` by ``b`` moves it to ``(b, G & M[a, b])``. ``G`` only shrinks,
and support (``|G|``, counting repeated golds) is anti-monotone, so a chain
whose support drops below the threshold is dropped for good. Support sets are
processed from the largest support down, so when a set is processed every
chain entering it from a larger set is already known; inside one set the
chains are counted per length by ``C[:, L] = E[:, L] + A_G^T C[:, L - 1]``,
``A_G`` the common precedence of ``G``. Counts of chains also contained in the
target (and in its other targets, e.g. its reverse) are carried alongside
with ``A_G`` restricted to the target's own precedence.

Cost: with ``S`` the number of distinct support sets reached (only sets of
support >= the threshold are ever created), time is ``O(S k^2 L)`` and memory
``O(S k L)`` for patterns up to length ``L <= k``: polynomial in ``k`` for a
fixed number of golds ``n``, but ``S`` can grow exponentially with ``n``. It
is at most the number of subsets of the distinct golds with support >= the
threshold (repeated golds are merged), and is small when golds agree (few ways
to lose a gold) or disagree wildly (chains die young). It is largest for many
golds that each differ from the rest in their own few places: 30 golds with 2
private adjacent swaps each at ``min_sup = 0.75`` can lose any 7 golds, up to
2.8 million sets. Measured (``python -m benchmarks.frespa``, 2 cores): 10
such golds reach at most 56 sets, k = 100 in about 0.03 s and k = 200 in
about 0.1 s; 30 golds at ``min_sup = 0.9`` reach 3767 sets at k = 200
(about 4 s); at 0.75 they finish at k = 50 (11073 sets, about 1 s), where
the swaps overlap, but pass 12000 sets without finishing at k = 100 and 200.
Counting patterns by exact support is a counting problem over subsets of
golds, so some exponential dependence on ``n - threshold`` is to be expected.

Counts are float64 scaled per length by an exact power of two close to
``C(k, L)``, the most chains a length can have, so nothing overflows for any
``k``; while a count is below 2**53 (always for ``k <= 53``) it is exact, and
beyond that each sum has a relative error of a few ulps.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray
from scipy.special import gammaln

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]

# Up to this many items in a support set, chains are extended by repeated
# squaring (few large steps) rather than one length at a time.
_DOUBLING_MAX_MEMBERS = 48
# Cells of the per-pair copy made when chains are handed on to smaller sets.
_RUN_CELLS = 1 << 22
# Most layers x items x lengths of one support set's chains when many targets share a
# walk (held_out_counts): the targets beyond are walked again in another group.
_TARGET_CELLS = 1 << 18


class SupportSetBudgetExceeded(RuntimeError):
    """More support sets than the caller allowed (see ``max_sets``)."""


@dataclass(frozen=True)
class PatternCounts:
    """Frequent-pattern counts by support and length, scaled per length.

    ``layers[0, s, L] * 2**exponents[L]`` is the number of patterns of length
    ``L`` contained in exactly ``s`` golds (only ``s >= threshold`` is
    filled); ``layers[1 + t]`` counts those also contained in target ``t``.
    :func:`held_out_counts` puts one such stack per held-out gold on a leading axis.
    """

    layers: FloatArray
    exponents: IntArray
    threshold: int
    n_support_sets: int
    #: ``by_gold[g]``: layer 0's patterns that gold ``g`` (a row of ``gold_ranks``) contains,
    #: when :func:`count_patterns` is asked for them (``per_gold``)
    by_gold: FloatArray | None = None


def support_threshold(min_sup: float, n_golds: int) -> int:
    """``ceil(min_sup * n)``, reading ``min_sup`` as the decimal it was written as, and at least 1.

    ``0.7 * 10`` is ``7.000000000000001`` in binary floating point, whose
    ceiling 8 is not what anyone means; ``Fraction(repr(0.7))`` is exactly 7/10.
    A pattern has to occur in at least one gold to be a pattern of the golds.
    """
    exact = Fraction(repr(float(min_sup))) * n_golds
    return max(1, math.ceil(exact))


def count_patterns(
    target_ranks: IntArray,
    gold_ranks: IntArray,
    *,
    threshold: int,
    max_len: int,
    max_sets: int | None = None,
    per_gold: bool = False,
) -> PatternCounts:
    """Count frequent patterns (support >= ``threshold``) of length <= ``max_len``.

    ``gold_ranks[g, x]`` is the position of item ``x`` in gold ``g``;
    ``target_ranks`` is one such row or a 2-D stack of them (several targets
    share one pass). ``max_sets`` aborts with :class:`SupportSetBudgetExceeded`.
    ``per_gold``: also count, for every gold, the patterns it contains
    (``PatternCounts.by_gold``): a chain's support set is the set of golds containing
    it, so these are the chains of every set holding the gold, at no extra walk.
    """
    targets = np.atleast_2d(np.asarray(target_ranks))
    golds, row_of, multiplicity = np.unique(np.asarray(gold_ranks), axis=0, return_inverse=True, return_counts=True)
    n_items = golds.shape[1]
    precedence = _precedence_masks(golds)
    support = _SupportCounter(multiplicity)
    # Layer 0 counts every pattern, layer 1 + t only those target t also
    # contains: the same walk with the target's precedence as an extra filter.
    allowed = np.ones((1 + len(targets), n_items, n_items), dtype=bool)
    allowed[1:] = targets[:, :, None] < targets[:, None, :]
    exponents = _length_exponents(n_items, max_len)
    step = np.ldexp(1.0, exponents[:-1] - exponents[1:])  # scale from length L-1 to L

    n_total = int(multiplicity.sum())
    layers = np.zeros((len(allowed), n_total + 1, max_len + 1))
    by_gold = np.zeros((len(golds), n_total + 1, max_len + 1)) if per_gold else None
    start = np.zeros((len(allowed), n_items, max_len + 1))
    start[:, :, 1] = np.ldexp(1.0, -int(exponents[1]))
    pending = _Pending()
    pending.add(_full_mask(len(golds)), n_total, np.arange(n_items), start)

    n_sets = 0
    while pending:
        mask, sup, items, entering = pending.pop()
        n_sets += 1
        if max_sets is not None and n_sets > max_sets:
            raise SupportSetBudgetExceeded(f"more than {max_sets} support sets")
        members, chains = _chains_inside(mask, items, entering, precedence, allowed, exponents)
        totals = chains.sum(axis=1)
        layers[:, sup] += totals
        if by_gold is not None:
            by_gold[_members_of(mask, len(golds)), sup] += totals[0]
        # At the threshold, losing any gold makes a chain infrequent: nothing to hand on.
        if max_len > 1 and sup > threshold:
            _hand_on(mask, members, chains, precedence, allowed, support, threshold, step, pending)

    return PatternCounts(
        layers, exponents, threshold, n_sets, by_gold=None if by_gold is None else by_gold[row_of.reshape(-1)]
    )


def held_out_counts(gold_ranks: IntArray, *, threshold: int, max_len: int) -> PatternCounts:
    """:func:`count_patterns` of each gold and its reverse against the other golds, for
    every gold held out in turn (the leave-one-out of ED, KZH section 5.2), from one walk
    over all the golds.

    ``layers[i]`` is what ``count_patterns([g_i, reverse(g_i)], golds without g_i,
    threshold=threshold, max_len=max_len).layers`` holds (shape ``(3, n, max_len + 1)``):
    support is counted among the other golds, ``threshold`` applies to it.

    A pattern whose support among all n golds is ``s`` has support ``s - 1`` among
    the others when gold i contains it and ``s`` when it does not. So one walk over
    all the golds with the held-out threshold (every pattern frequent among some n - 1
    golds is at least as frequent among all n), the golds and their reverses as
    targets, gives each held-out gold's counts by shifting the patterns gold i
    contains one support down and keeping the others where they are. Patterns of two
    or more items in the reverse of gold i are not in gold i; single items are in
    every ordering. While counts are exact (below 2**53, always for ``k <= 53``) the
    layers equal the per-gold ones exactly; beyond that, the patterns not in gold i are
    the count of all less the count of gold i's, each a few ulps off.

    The golds' own counts come with the walk (``count_patterns(per_gold=True)``); only
    the reverses are targets, walked in groups so that a support set's chains (layers x
    items x lengths) stay within ``_TARGET_CELLS``: the walk is repeated per group.
    """
    golds = np.asarray(gold_ranks)
    n_golds, n_items = golds.shape
    reverses = n_items - 1 - golds
    group = max(1, _TARGET_CELLS // (n_items * (max_len + 1)) - 1)
    parts, n_sets, contained = [], 0, None
    for lo in range(0, n_golds, group):
        counts = count_patterns(
            reverses[lo : lo + group], golds, threshold=threshold, max_len=max_len, per_gold=contained is None
        )
        if contained is None:
            everything, contained = counts.layers[0], counts.by_gold
        parts.append(counts.layers[1:])
        n_sets = max(n_sets, counts.n_support_sets)
    in_reverse = np.concatenate(parts)
    held_out = np.zeros((n_golds, 3, n_golds, max_len + 1))
    # Support among the others: s - 1 for the patterns gold i contains, s for the rest.
    held_out[:, 0] = everything[None, :-1] - contained[:, :-1] + contained[:, 1:]
    held_out[:, 1] = contained[:, 1:]
    held_out[:, 2] = in_reverse[:, :-1]
    held_out[:, 2, :, 1] = in_reverse[:, 1:, 1]  # single items: in gold i too
    held_out[:, :, :threshold] = 0.0  # infrequent among the others
    return PatternCounts(
        held_out, exponents=_length_exponents(n_items, max_len), threshold=threshold, n_support_sets=n_sets
    )


def weighted_score(
    counts: PatternCounts,
    *,
    target: int = 0,
    w_len: float,
    w_sup: float,
    min_len: int,
    max_len: int,
) -> float:
    """FreSPA's ratio of weights (section 4.4) from counts; 0.0 when no pattern qualifies."""
    return float(weighted_scores(counts, w_len=w_len, w_sup=w_sup, min_len=min_len, max_len=max_len)[..., target])


def weighted_scores(counts: PatternCounts, *, w_len: float, w_sup: float, min_len: int, max_len: int) -> FloatArray:
    """:func:`weighted_score` of every target (the last axis), for counts whose layers may
    carry leading axes (:func:`held_out_counts`: one per held-out gold)."""
    layers = counts.layers
    max_len = min(max_len, layers.shape[-1] - 1)
    if min_len > max_len:
        return np.zeros(layers.shape[:-3] + (layers.shape[-3] - 1,))
    lengths = np.arange(min_len, max_len + 1)
    supports = np.arange(layers.shape[-2])
    # Weights are factored by the largest length scale so that no term
    # overflows; the factor cancels in the ratio.
    scale = np.ldexp(1.0, counts.exponents[lengths] - counts.exponents[lengths].max())
    length_weight = (1.0 + w_len * (lengths - 1)) * scale
    support_weight = 1.0 + w_sup * (supports - 1)
    weights = support_weight[:, None] * length_weight[None, :]
    # Each layer's terms summed as one contiguous row: the sum of the flattened (support, length) block.
    weighted = (layers[..., lengths] * weights).reshape(layers.shape[:-2] + (-1,)).sum(axis=-1)
    denominator, numerators = weighted[..., :1], weighted[..., 1:]
    out = np.zeros(numerators.shape)
    return np.divide(numerators, denominator, out=out, where=denominator != 0.0)


# --------------------------------------------------------------------------- internals


def _precedence_masks(golds: IntArray) -> NDArray[np.uint64]:
    """``masks[a, b]``: bitset (uint64 words) of the golds that put ``a`` before ``b``."""
    n_golds, n_items = golds.shape
    masks = np.zeros((n_items, n_items, -(-n_golds // 64)), dtype=np.uint64)
    for g, ranks in enumerate(golds):
        before = ranks[:, None] < ranks[None, :]
        masks[:, :, g // 64] |= before.astype(np.uint64) << np.uint64(g % 64)
    return masks


def _members_of(mask: NDArray[np.uint64], n_golds: int) -> NDArray[np.bool_]:
    """The golds in a bitset, as a mask over the golds."""
    bits = np.unpackbits(np.ascontiguousarray(mask).view(np.uint8), bitorder="little")
    return bits[:n_golds].astype(bool)


def _full_mask(n_golds: int) -> NDArray[np.uint64]:
    words = np.zeros(-(-n_golds // 64), dtype=np.uint64)
    for g in range(n_golds):
        words[g // 64] |= np.uint64(1) << np.uint64(g % 64)
    return words


class _SupportCounter:
    """Support of bitsets: the number of golds in them, counting repeated golds."""

    def __init__(self, multiplicity: IntArray) -> None:
        self.multiplicity = multiplicity
        self.all_single = bool((multiplicity == 1).all())

    def __call__(self, masks: NDArray[np.uint64]) -> IntArray:
        if self.all_single:
            return np.bitwise_count(masks).sum(axis=-1, dtype=np.intp)
        bits = np.unpackbits(np.ascontiguousarray(masks).view(np.uint8), axis=-1, bitorder="little")
        return bits[..., : len(self.multiplicity)] @ self.multiplicity


def _length_exponents(n_items: int, max_len: int) -> IntArray:
    lengths = np.arange(max_len + 1)
    log_binomial = gammaln(n_items + 1) - gammaln(lengths + 1) - gammaln(n_items - lengths + 1)
    return np.rint(log_binomial / math.log(2)).astype(np.intp)


class _Pending:
    """Chains entering each support set not yet processed, largest support first."""

    def __init__(self) -> None:
        self._heap: list[tuple[int, bytes]] = []
        self._sets: dict[bytes, tuple[NDArray[np.uint64], int, list]] = {}

    def __bool__(self) -> bool:
        return bool(self._heap)

    def add(self, mask: NDArray[np.uint64], support: int, items: IntArray, block: FloatArray) -> None:
        key = mask.tobytes()
        if key not in self._sets:
            self._sets[key] = (mask, support, [])
            heapq.heappush(self._heap, (-support, key))
        self._sets[key][2].append((items, block))

    def pop(self) -> tuple[NDArray[np.uint64], int, IntArray, FloatArray]:
        _, key = heapq.heappop(self._heap)
        mask, support, blocks = self._sets.pop(key)
        if len(blocks) == 1:
            return mask, support, blocks[0][0], blocks[0][1]
        items = np.unique(np.concatenate([b[0] for b in blocks]))
        entering = np.zeros((blocks[0][1].shape[0], len(items), blocks[0][1].shape[2]))
        for block_items, block in blocks:
            # Items are unique within a block, so fancy-indexed += is safe.
            entering[:, np.searchsorted(items, block_items)] += block
        return mask, support, items, entering


def _unique_rows(masks: NDArray[np.uint64]) -> tuple[NDArray[np.uint64], IntArray]:
    """Distinct bitsets and the index of each row's; one word per row is the common, fast case."""
    if masks.shape[1] == 1:
        values, inverse = np.unique(masks[:, 0], return_inverse=True)
        return values[:, None], inverse
    rows = np.ascontiguousarray(masks).view(np.dtype((np.void, masks.dtype.itemsize * masks.shape[1])))[:, 0]
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    return masks[first], inverse


def _chains_inside(mask, items, entering, precedence, allowed, exponents) -> tuple[IntArray, FloatArray]:
    """Chains of each length ending at each item while the support set stays ``mask``."""
    common = ((precedence & mask) == mask).all(axis=-1)  # every gold of the set has a before b
    # Precedence within one set is transitive, so one step from the entry
    # items reaches every item a chain can be extended to.
    reachable = common[items].any(axis=0)
    reachable[items] = True
    members = np.flatnonzero(reachable)
    start = np.zeros((entering.shape[0], len(members), entering.shape[2]))
    start[:, np.searchsorted(members, items)] = entering
    adjacency = common[members[:, None], members][None] & allowed[:, members[:, None], members]
    return members, _extend_by_length(adjacency, start, exponents)


def _extend_by_length(adjacency: NDArray[np.bool_], start: FloatArray, exponents: IntArray) -> FloatArray:
    """Solve ``C[..., L] = start[..., L] + adjacency^T C[..., L-1]`` (scaled per length) for every layer."""
    # Contiguous operands keep matmul on BLAS; a strided one drops it to a slow loop.
    transposed = np.ascontiguousarray(np.swapaxes(adjacency, -1, -2), dtype=np.float64)
    n_members, n_lengths = start.shape[-2:]
    if n_members <= _DOUBLING_MAX_MEMBERS:
        return _extend_by_doubling(transposed, start, exponents)
    step = np.ldexp(1.0, exponents[:-1] - exponents[1:])  # scale from length L-1 to L
    by_length = np.ascontiguousarray(np.swapaxes(start, -1, -2))  # (..., lengths, members)
    # A chain entering at length L can gain at most one item per member.
    last_start = int(np.flatnonzero(start.reshape(-1, n_lengths).any(axis=0)).max(initial=0))
    longest = min(n_lengths - 1, last_start + n_members - 1)
    for length in range(1, longest + 1):
        extended = np.matmul(transposed, by_length[..., length - 1, :, None])[..., 0]
        if length > last_start and not extended.any():
            break  # no chain reaches this length, nor any longer one
        by_length[..., length, :] += step[length - 1] * extended
    return np.swapaxes(by_length, -1, -2)


def _extend_by_doubling(transposed: FloatArray, start: FloatArray, exponents: IntArray) -> FloatArray:
    """The same by repeated squaring, for few items.

    After the round with ``P = (A^T)^h`` the chains hold every extension of
    fewer than ``2 h`` steps: ``log2`` rounds instead of one per length. Path
    counts in ``P`` stay below ``2**members``, so they are exact here.
    """
    chains = start.copy()
    paths = transposed
    steps = 1
    n_members, n_lengths = start.shape[-2:]
    longest = min(n_lengths, n_members)  # a chain inside the set gains at most members - 1 items
    while True:
        scale = np.ldexp(1.0, exponents[: n_lengths - steps] - exponents[steps:])
        chains[..., steps:] += (paths @ chains[..., : n_lengths - steps]) * scale
        steps *= 2
        if steps >= longest:
            return chains
        paths = paths @ paths
        if not paths.any():
            return chains


def _hand_on(mask, members, chains, precedence, allowed, support, threshold, step, pending) -> None:
    """Pass every chain that loses a gold but stays frequent on to its smaller support set."""
    n_items = precedence.shape[0]
    smaller = precedence[members] & mask  # (members, items, words)
    keeps_all = (smaller == mask).all(axis=-1)
    frequent = support(smaller) >= threshold
    source, item = np.nonzero(frequent & ~keeps_all)
    if len(source) == 0:
        return
    children, child_of_pair = _unique_rows(smaller[source, item])
    child_support = support(children)

    # One row per (child set, item); pairs sorted by row so that each row's
    # contributions are one contiguous run for reduceat.
    row_key = child_of_pair.ravel() * n_items + item
    order = np.argsort(row_key, kind="stable")
    row_key, source = row_key[order], source[order]
    firsts = np.flatnonzero(np.r_[True, row_key[1:] != row_key[:-1]])
    rows = row_key[firsts]
    kept = allowed[:, members[source], item[order]]  # (layers, pairs)
    block = np.zeros((chains.shape[0], len(rows), chains.shape[2]))
    # In runs of whole rows, so that the per-pair copies stay small.
    pairs_per_run = max(1, _RUN_CELLS // chains[:, 0].size)
    lo = 0
    while lo < len(rows):
        hi = max(lo + 1, int(np.searchsorted(firsts, firsts[lo] + pairs_per_run, side="right")) - 1)
        pairs = slice(firsts[lo], firsts[hi] if hi < len(rows) else len(source))
        contributions = chains[:, source[pairs], :-1] * kept[:, pairs, None]
        block[:, lo:hi, 1:] = np.add.reduceat(contributions, firsts[lo:hi] - firsts[lo], axis=1) * step
        lo = hi

    child_of_row = rows // n_items
    bounds = np.searchsorted(child_of_row, np.arange(len(children) + 1))
    for c, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
        pending.add(children[c], int(child_support[c]), rows[lo:hi] % n_items, block[:, lo:hi])
