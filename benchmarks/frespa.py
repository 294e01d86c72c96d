"""FreSPA: exact counting (Concord) against listing the frequent patterns with PrefixSpan.

Kim, Zhai & Han (section 4.4) score a target ordering by the frequent
sequential patterns of the gold orderings, found with PrefixSpan. Their
number grows about 4x for every 2 more items, so listing them is exponential
in k; ``kinds.ordering.stats.frespa`` counts them by support and length
instead.

Data (seed 2010): 10 "close" gold orderings, each a base permutation with 2
random adjacent swaps, and as target another close ordering (3 swaps), with
the paper's defaults (min_sup 0.75, w_len = w_sup = 1, min_len 2, max_len k).

Part 1: k = 16, 18, 20, 22; PrefixSpan lists the frequent patterns (its
callback scores each one as it is found, so nothing is stored) and the
weighted score is compared with Concord's.
Part 2: Concord alone on k = 50, 100, 200 with 10 and 30 golds. With 30 golds
that each differ from the base in their own two places, a pattern can lose
any 7 of them and stay frequent at min_sup 0.75, so the dynamic programme
can meet up to sum_{d<=7} C(30, d) ~ 2.8 million support sets: runs are cut
off at a budget of support sets and reported as such (k = 50 finishes, its
swaps overlapping); 30 golds at min_sup 0.9 (at most 3 golds lost) complete.

Run from the repository root: ``.venv/bin/python -m benchmarks.frespa``.
"""

from __future__ import annotations

import math
import time

import numpy as np
from prefixspan import PrefixSpan

from benchmarks._harness import measure, print_result, print_table
from kinds.ordering import _frespa
from kinds.ordering.stats import frespa, support_threshold

SEED = 2010
PREFIXSPAN_SIZES = (16, 18, 20, 22)
LARGE_SIZES = (50, 100, 200)
SET_BUDGET = 12_000


def close_orderings(rng: np.random.Generator, base: np.ndarray, n: int, swaps: int) -> list[list[int]]:
    orderings = []
    for _ in range(n):
        ordering = base.copy()
        for _ in range(swaps):
            i = int(rng.integers(0, len(base) - 1))
            ordering[i], ordering[i + 1] = ordering[i + 1], ordering[i]
        orderings.append(ordering.tolist())
    return orderings


def data(k: int, n: int) -> tuple[list[int], list[list[int]]]:
    rng = np.random.default_rng([SEED, k, n])
    base = rng.permutation(k)
    return close_orderings(rng, base, 1, 3)[0], close_orderings(rng, base, n, 2)


def prefixspan_frespa(target: list[int], golds: list[list[int]], *, min_sup: float = 0.75) -> tuple[float, int]:
    """FreSPA from PrefixSpan's frequent patterns (w_len = w_sup = 1, lengths 2..k); also the pattern count."""
    position = {item: i for i, item in enumerate(target)}
    sums = [0.0, 0.0, 0]  # weight of P, weight in the target, number of patterns

    def score(pattern: list[int], matches: list) -> None:
        weight = len(pattern) * len(matches)  # (1 + (len - 1)) (1 + (sup - 1))
        sums[0] += weight
        sums[2] += 1
        if all(position[a] < position[b] for a, b in zip(pattern, pattern[1:])):
            sums[1] += weight

    miner = PrefixSpan(golds)
    miner.minlen, miner.maxlen = 2, len(target)
    miner.frequent(support_threshold(min_sup, len(golds)), callback=score)
    return (sums[1] / sums[0] if sums[0] else 0.0), sums[2]


def part_one() -> tuple[float, float, float, float]:
    rows = []
    worst = peak = 0.0
    for k in PREFIXSPAN_SIZES:
        target, golds = data(k, 10)
        # Times without tracemalloc, which slows both sides' many small allocations.
        ours = measure(lambda t=target, g=golds: frespa(t, g), repeat=5, trace_memory=False)
        peak = max(peak, measure(lambda t=target, g=golds: frespa(t, g)).peak_mb)
        reference = measure(lambda t=target, g=golds: prefixspan_frespa(t, g), trace_memory=False)
        difference = abs(ours.value - reference.value[0])
        worst = max(worst, difference)
        ratio = reference.seconds / ours.seconds
        rows.append([k, reference.value[1], ours.value, reference.seconds, ours.seconds, ratio, f"{difference:.1e}"])
    print("Part 1: 10 close golds; PrefixSpan lists the frequent patterns, Concord counts them")
    print_table(["k", "patterns", "score", "prefixspan_s", "concord_s", "ratio", "abs_diff"], rows)
    print(f"max |score difference| = {worst:.1e}\n")
    return ours.seconds, reference.seconds, worst, peak


def part_two() -> dict[str, float]:
    rows = []
    figures: dict[str, float] = {"peak_mb": 0.0}
    for n, min_sup in ((10, 0.75), (30, 0.75), (30, 0.9)):
        for k in LARGE_SIZES:
            target, golds = data(k, n)
            threshold = support_threshold(min_sup, n)
            bound = sum(math.comb(n, d) for d in range(n - threshold + 1))
            seconds, sets, score = budgeted_run(target, golds, threshold)
            peak = "-"
            if score is not None and seconds < 5:
                peak = measure(lambda t=target, g=golds, s=min_sup: frespa(t, g, min_sup=s)).peak_mb
                figures["peak_mb"] = max(figures["peak_mb"], peak)
            if score is not None:
                figures[f"k{k}_n{n}{'' if min_sup == 0.75 else '_minsup09'}_seconds"] = seconds
            shown = "not finished" if score is None else f"{score:.6f}"
            rows.append([k, n, min_sup, bound, sets, shown, seconds, peak])
    print("Part 2: Concord alone ('bound': how many support sets the golds could form above the threshold)")
    print_table(["k", "n", "min_sup", "bound", "support_sets", "score", "seconds", "peak_mb"], rows)
    print(f"(a run is stopped after {SET_BUDGET} support sets)\n")
    return figures


def budgeted_run(target: list[int], golds: list[list[int]], threshold: int) -> tuple[float, int | str, float | None]:
    """Time counting and scoring as ``frespa`` does, stopping at ``SET_BUDGET`` support sets."""
    gold_ranks = np.argsort(np.asarray(golds), axis=1)
    k = len(target)
    start = time.perf_counter()
    try:
        counts = _frespa.count_patterns(
            np.argsort(target), gold_ranks, threshold=threshold, max_len=k, max_sets=SET_BUDGET
        )
    except _frespa.SupportSetBudgetExceeded:
        return time.perf_counter() - start, f">{SET_BUDGET}", None
    score = _frespa.weighted_score(counts, w_len=1.0, w_sup=1.0, min_len=2, max_len=k)
    return time.perf_counter() - start, counts.n_support_sets, score


def main() -> None:
    seconds, reference_seconds, worst, peak = part_one()
    figures = part_two()
    print_result(
        "frespa",
        seconds=seconds,
        reference_seconds=reference_seconds,
        peak_mb=max(peak, figures.pop("peak_mb")),
        max_abs_diff=f"{worst:.1e}",
        **figures,
    )


if __name__ == "__main__":
    main()
