"""Benchmark: the alternative annotator test (stats.alttest) on a crowd, against a plain loop.

Synthetic crowd, seeded: 100,000 items with a hidden label out of 4, 2,000
raters, 10 distinct raters per item (1,000,000 ratings), each rating the
hidden label 80% of the time and any label otherwise; a judge right 85% of the
time. Concord's ``alt_test`` runs on the ratings held sparse with ACC, with
-RMSE (the labels read as a 0-3 scale) and with a caller's similarity
(``-|a - b|``, over every pair of ratings of an item); then the 1,000-resample
bootstrap interval of the average advantage probability
(``advantage_units(...).interval()``). Best of 3 for time; peak memory traced
by tracemalloc in a separate run.

The reference is the paper's procedure written as loops (one annotator at a
time, a Python list of the other ratings per instance, numpy's mean,
``scipy.stats.ttest_1samp``, ``statsmodels``' Benjamini-Yekutieli), as the
authors' released code does it; one run. ``unequal`` counts annotators whose
p-value differs by more than 1e-12 or whose decision differs.

Run from the project root: ``python -m benchmarks.alttest`` (about a minute,
most of it the reference), ``--small`` for 10,000 items x 200 raters.
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import numpy as np

from benchmarks._harness import measure, print_result, print_table
from stats.alttest import advantage_units, alt_test
from stats.ratings import SparseRatings

SEED = 2025
PER_ITEM, N_LABELS = 10, 4


def synthetic(n_items: int, n_raters: int, seed: int = SEED) -> tuple[SparseRatings, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, N_LABELS, n_items)
    # Distinct raters per item: a random start on a shuffled ring, stepping n_raters / PER_ITEM.
    ring = rng.permutation(n_raters)
    start = rng.integers(0, n_raters, n_items)
    raters = ring[(start[:, None] + (n_raters // PER_ITEM) * np.arange(PER_ITEM)) % n_raters].ravel()
    items = np.repeat(np.arange(n_items), PER_ITEM)
    values = np.where(rng.random(items.size) < 0.8, truth[items], rng.integers(0, N_LABELS, items.size))
    judge = np.where(rng.random(n_items) < 0.85, truth, rng.integers(0, N_LABELS, n_items)).astype(float)
    return SparseRatings.from_entries(items, raters, values, n_items=n_items, n_raters=n_raters), judge


def reference(table: SparseRatings, judge: np.ndarray, epsilon: float = 0.2, q: float = 0.05) -> list[tuple]:
    """The paper's procedure as loops: (annotator, p-value, rejected) per annotator tested."""
    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    by_item: dict[int, dict[int, float]] = defaultdict(dict)
    for item, rater, value in zip(table.items.tolist(), table.raters.tolist(), table.values.tolist()):
        by_item[item][rater] = value
    by_rater: dict[int, list[int]] = defaultdict(list)
    for item, ratings in by_item.items():
        for rater in ratings:
            by_rater[rater].append(item)
    tested, p_values = [], []
    for rater in sorted(by_rater):
        differences = []
        for item in by_rater[rater]:
            ratings = by_item[item]
            if len(ratings) < 2 or np.isnan(judge[item]):
                continue
            others = [value for other, value in ratings.items() if other != rater]
            s_judge = float(np.mean([judge[item] == value for value in others]))
            s_human = float(np.mean([ratings[rater] == value for value in others]))
            differences.append(float(s_human >= s_judge) - float(s_judge >= s_human))
        if len(differences) >= 30:
            tested.append(rater)
            p_values.append(float(stats.ttest_1samp(differences, epsilon, alternative="less").pvalue))
    rejected = multipletests(p_values, alpha=q, method="fdr_by")[0]
    return list(zip(tested, p_values, rejected.tolist()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="10,000 items x 200 raters")
    args = parser.parse_args()
    n_items, n_raters = (10_000, 200) if args.small else (100_000, 2_000)
    table, judge = synthetic(n_items, n_raters)
    print(
        f"Alternative annotator test, {n_items:,} items x {n_raters:,} raters x {PER_ITEM} ratings per item "
        f"({table.items.size:,} ratings), seed {SEED}\n"
    )
    cases = [
        ("accuracy", lambda: alt_test(table, judge)),
        ("neg_rmse", lambda: alt_test(table, judge, level="interval")),
        ("similarity", lambda: alt_test(table, judge, alignment=lambda a, b: -np.abs(a - b))),
    ]
    rows, timings = [], {}
    for name, run in cases:
        timed = measure(run, repeat=3, trace_memory=False)
        peak = measure(run).peak_mb
        result = timed.value
        timings[name] = (timed.seconds, peak, result)
        rows.append([name, timed.seconds, peak, result.tested, result.winning_rate, result.average_advantage])
    result = timings["accuracy"][2]
    interval = measure(lambda: advantage_units(result).interval(seed=0), trace_memory=False)
    interval_peak = measure(lambda: advantage_units(result).interval(seed=0)).peak_mb
    rows.append(["rho interval", interval.seconds, interval_peak, "", interval.value.low, interval.value.high])
    print_table(["alignment", "seconds", "peak MB", "tested", "omega / low", "rho / high"], rows)

    plain = measure(lambda: reference(table, judge), trace_memory=False)
    ours = {a.annotator: a for a in result.annotators if a.tested}
    unequal = sum(
        1
        for rater, p_value, rejected in plain.value
        if rater not in ours or abs(ours[rater].p_value - p_value) > 1e-12 or ours[rater].rejected != rejected
    ) + abs(len(plain.value) - len(ours))
    seconds, peak, _ = timings["accuracy"]
    print(f"\nreference (loops, accuracy): {plain.seconds:.2f} s; unequal annotators {unequal}")
    print_result(
        "alttest_accuracy",
        seconds=seconds,
        reference_seconds=plain.seconds,
        peak_mb=peak,
        unequal=unequal,
        ratings=int(table.items.size),
    )


if __name__ == "__main__":
    main()
