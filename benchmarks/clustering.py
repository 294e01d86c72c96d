"""Benchmark: every clustering measure from one contingency table vs sklearn.

1,000,000 items, 100 classes, 120 clusters (a noisy copy of the classes:
20 classes split in two, 20 % of items reassigned at random), fixed seed.
Concord computes all measures of ``kinds.clustering.stats`` together
(``clustering_scores``); sklearn computes each measure with its own call, as
a user would. The target: all of ours together faster than sklearn's
V-measure, NMI and ARI called separately.

Run from the project root: ``python -m benchmarks.clustering``.
"""

from __future__ import annotations

import math

import numpy as np
from sklearn import metrics as skm

from benchmarks._harness import measure, print_result, print_table
from kinds.clustering.stats import clustering_scores

N_ITEMS = 1_000_000
N_CLASSES = 100
N_SPLIT = 20  # classes split in two, giving 120 clusters
NOISE = 0.2
SEED = 20090802
REPEAT = 3
# Multiplying labels by a large prime spreads them out, which turns off the
# bincount factorisation and exercises the general np.unique path.
SPREAD = 1_000_003


def make_labels(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    truth = rng.integers(0, N_CLASSES, N_ITEMS)
    found = truth.copy()
    split = (truth < N_SPLIT) & (rng.random(N_ITEMS) < 0.5)
    found[split] = N_CLASSES + truth[split]
    noisy = rng.random(N_ITEMS) < NOISE
    found[noisy] = rng.integers(0, N_CLASSES + N_SPLIT, int(noisy.sum()))
    return truth, found


def sklearn_calls(truth: np.ndarray, found: np.ndarray) -> dict:
    return {
        "homogeneity_completeness_v_measure": lambda: skm.homogeneity_completeness_v_measure(truth, found),
        "normalized_mutual_info_score": lambda: skm.normalized_mutual_info_score(truth, found),
        "adjusted_rand_score": lambda: skm.adjusted_rand_score(truth, found),
        "rand_score": lambda: skm.rand_score(truth, found),
        "fowlkes_mallows_score": lambda: skm.fowlkes_mallows_score(truth, found),
    }


def max_abs_difference(ours, reference: dict) -> float:
    h, c, v = reference["homogeneity_completeness_v_measure"]
    pairs = [
        (ours.homogeneity, h),
        (ours.completeness, c),
        (ours.v_measure, v),
        (ours.nmi_arithmetic, reference["normalized_mutual_info_score"]),
        (ours.adjusted_rand_index, reference["adjusted_rand_score"]),
        (ours.rand_index, reference["rand_score"]),
        (math.sqrt(ours.pair_precision * ours.pair_recall), reference["fowlkes_mallows_score"]),
    ]
    return max(abs(a - b) for a, b in pairs)


def main() -> None:
    truth, found = make_labels(np.random.default_rng(SEED))
    spread_truth, spread_found = truth * SPREAD, found * SPREAD
    print(f"{N_ITEMS:,} items, {len(np.unique(truth))} classes, {len(np.unique(found))} clusters, seed {SEED}")
    print(f"best of {REPEAT} runs\n")

    ours = measure(lambda: clustering_scores(truth, found), repeat=REPEAT, trace_memory=False)
    ours_spread = measure(lambda: clustering_scores(spread_truth, spread_found), repeat=REPEAT, trace_memory=False)
    ours_memory = measure(lambda: clustering_scores(truth, found), trace_memory=True)

    reference = {
        name: measure(call, repeat=REPEAT, trace_memory=False) for name, call in sklearn_calls(truth, found).items()
    }
    reference_spread = {
        name: measure(call, repeat=REPEAT, trace_memory=False)
        for name, call in sklearn_calls(spread_truth, spread_found).items()
    }

    target_names = ["homogeneity_completeness_v_measure", "normalized_mutual_info_score", "adjusted_rand_score"]
    target = sum(reference[name].seconds for name in target_names)
    target_spread = sum(reference_spread[name].seconds for name in target_names)
    all_five = sum(m.seconds for m in reference.values())
    all_five_spread = sum(m.seconds for m in reference_spread.values())

    rows = [["concord clustering_scores (all measures, one table)", ours.seconds, ours_spread.seconds]]
    rows += [[f"sklearn {name}", reference[name].seconds, reference_spread[name].seconds] for name in reference]
    rows += [
        ["sklearn V + NMI + ARI (target)", target, target_spread],
        ["sklearn all five calls", all_five, all_five_spread],
    ]
    print_table(["what", "seconds (labels 0..119)", "seconds (spread labels)"], rows)

    difference = max_abs_difference(ours.value, {k: m.value for k, m in reference.items()})
    difference_spread = max_abs_difference(ours_spread.value, {k: m.value for k, m in reference_spread.items()})
    print()
    print(
        f"ours, all measures together: {ours.seconds:.4f} s vs sklearn V + NMI + ARI separately: {target:.4f} s "
        f"-> {target / ours.seconds:.1f}x faster ({'target met' if ours.seconds < target else 'TARGET MISSED'})"
    )
    print(
        f"spread labels (np.unique path): {ours_spread.seconds:.4f} s vs {target_spread:.4f} s "
        f"-> {target_spread / ours_spread.seconds:.1f}x faster "
        f"({'target met' if ours_spread.seconds < target_spread else 'TARGET MISSED'})"
    )
    print(
        f"max |ours - sklearn| over h, c, V, NMI, ARI, RI, FMI: {difference:.2e} "
        f"(spread labels: {difference_spread:.2e})"
    )
    print(f"peak traced memory of ours: {ours_memory.peak_mb:.1f} MB\n")

    print_result(
        "clustering",
        seconds=ours.seconds,
        reference_seconds=target,
        peak_mb=ours_memory.peak_mb,
        items=N_ITEMS,
        sklearn_all_five_seconds=all_five,
        spread_seconds=ours_spread.seconds,
        spread_reference_seconds=target_spread,
        spread_ratio=target_spread / ours_spread.seconds,
        max_abs_diff=f"{max(difference, difference_spread):.2e}",
    )


if __name__ == "__main__":
    main()
