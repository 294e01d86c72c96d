"""Benchmark: inventory growth and WFS stability vs straightforward loops.

Synthetic data of a large factoid study (van Halteren & Teufel's Kuwait
set grown to 50 model summaries): 50 model summaries and 16 machine
summaries of 5-10 sentences each, 150 factoids with a long-tailed popularity;
each summary states
some factoids once, drawn by popularity, 1-4 per sentence. The full analysis
is Figure 4 (growth: 100 draws of N = 1..50 model summaries, sentence-level
re-merging) and Figure 5 (stability: 200 pairs of bootstrap samples for
N = 1..50, Spearman's rho over all 66 summaries).

The reference is the straightforward implementation: per draw, a dict of the
distinct factoid columns over the drawn sentences, and the distinct groups
on each sentence; per pair, the two weight
vectors, the two score vectors and ``scipy.stats.spearmanr``. It runs the
first draws (pairs) of a few sizes spread evenly over 1..50, where the cost
per draw is linear in N, and is extrapolated to all sizes and draws. Both
use the same seed scheme (``default_rng([seed, N])``, rows filled in order),
so the subset's figures are compared with Concord's exactly.

Run from the project root: ``python -m benchmarks.factoids``.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.stats import spearmanr

from benchmarks._harness import measure, print_result, print_table
from kinds.factoids import stats as f

N_MODELS, N_MACHINES, N_FACTOIDS = 50, 16, 150
GROWTH_DRAWS, PAIRS, MAX_N = 100, 200, 50
SEED = 2004
SUBSET_SIZES = [5, 15, 25, 35, 45]  # mean 25 ~ mean of 1..50: linear costs extrapolate by the mean
SUBSET_DRAWS = 10


def synthetic(rng: np.random.Generator):
    popularity = rng.pareto(1.0, N_FACTOIDS) + 0.02
    popularity /= popularity.sum()
    n_summaries = N_MODELS + N_MACHINES
    lengths = rng.integers(5, 11, n_summaries)
    owner = np.repeat(np.arange(n_summaries), lengths)
    by_sentence = np.zeros((len(owner), N_FACTOIDS), dtype=bool)
    for summary, length in enumerate(lengths):  # data generation only
        # a summary states each of its factoids once, 1-4 per sentence
        per_sentence = rng.integers(1, 5, length)
        chosen = rng.choice(N_FACTOIDS, per_sentence.sum(), replace=False, p=popularity)
        sentence = np.flatnonzero(owner == summary)
        by_sentence[np.repeat(sentence, per_sentence), chosen] = True
    models = np.arange(n_summaries) < N_MODELS
    by_summary = np.zeros((n_summaries, N_FACTOIDS), dtype=bool)
    np.logical_or.at(by_summary, owner, by_sentence)
    return by_sentence, owner, by_summary, models


def concord(by_sentence, owner, by_summary, models):
    model_sentences = models[owner]
    growth = f.inventory_growth(by_sentence[model_sentences], owner[model_sentences], draws=GROWTH_DRAWS, seed=SEED)
    stability = f.wfs_stability(by_summary, models, sizes=range(1, MAX_N + 1), pairs=PAIRS, seed=SEED)
    return growth, stability


def loop_growth(by_sentence, owner, sizes, draws):
    """Per draw: group the distinct factoid columns, count them and the groups on each sentence."""
    means, per_sentence = [], []
    for size in sizes:
        keys = np.random.default_rng([SEED, size]).random((GROWTH_DRAWS, N_MODELS))
        counts, carried = [], []
        for d in range(draws):
            rows = by_sentence[np.isin(owner, np.argsort(keys[d])[:size])]
            group: dict = {}
            for factoid, column in enumerate(rows.T):
                if column.any():
                    group[factoid] = group.setdefault(tuple(column), len(group))
            counts.append(len(set(group.values())))
            carried.append(np.mean([len({group[j] for j in np.flatnonzero(row)}) for row in rows if row.any()]))
        means.append(np.mean(counts))
        per_sentence.append(np.mean(carried))
    return np.array(means), np.array(per_sentence)


def loop_stability(by_summary, models, sizes, pairs):
    model_rows = np.flatnonzero(models)
    presence = by_summary.astype(float)
    means = []
    for size in sizes:
        picks = np.random.default_rng([SEED, size]).integers(0, N_MODELS, size=(PAIRS, 2, size))
        rhos = []
        for p in range(pairs):
            first = presence @ presence[model_rows[picks[p, 0]]].sum(axis=0)
            second = presence @ presence[model_rows[picks[p, 1]]].sum(axis=0)
            rhos.append(spearmanr(first, second).statistic)
        means.append(np.mean(rhos))
    return np.array(means)


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def main() -> None:
    by_sentence, owner, by_summary, models = synthetic(np.random.default_rng(SEED))
    model_sentences = models[owner]
    print(
        f"{N_MODELS} model + {N_MACHINES} machine summaries, {len(owner)} sentences "
        f"({int(model_sentences.sum())} in model summaries), {N_FACTOIDS} factoids"
    )
    ours = measure(lambda: concord(by_sentence, owner, by_summary, models), repeat=3)
    growth, stability = ours.value
    growth_seconds = measure(lambda: concord_growth(by_sentence, owner, models), repeat=3, trace_memory=False).seconds
    stability_seconds = ours.seconds - growth_seconds

    growth_loop_s, growth_loop = timed(
        lambda: loop_growth(by_sentence[model_sentences], owner[model_sentences], SUBSET_SIZES, SUBSET_DRAWS)
    )
    stability_loop_s, stability_loop = timed(lambda: loop_stability(by_summary, models, SUBSET_SIZES, SUBSET_DRAWS))
    scale_growth = (MAX_N * GROWTH_DRAWS) / (len(SUBSET_SIZES) * SUBSET_DRAWS)
    scale_stability = (MAX_N * PAIRS) / (len(SUBSET_SIZES) * SUBSET_DRAWS)
    reference_seconds = growth_loop_s * scale_growth + stability_loop_s * scale_stability

    # Concord on the same subset: the first draws of each size are the same draws.
    sub_growth = f.inventory_growth(by_sentence[model_sentences], owner[model_sentences], draws=SUBSET_DRAWS, seed=SEED)
    sub_stability = f.wfs_stability(by_summary, models, sizes=SUBSET_SIZES, pairs=SUBSET_DRAWS, seed=SEED)
    subset = np.array(SUBSET_SIZES) - 1
    growth_diff = float(
        max(
            np.max(np.abs(sub_growth.mean[subset] - growth_loop[0])),
            np.max(np.abs(sub_growth.mean_per_sentence[subset] - growth_loop[1])),
        )
    )
    stability_diff = float(np.max(np.abs(sub_stability.mean_rho - stability_loop)))

    print_table(
        ["part", "Concord s", "loop s", "loop measured on"],
        [
            [
                "Figure 4 growth, 100 draws x N=1..50",
                growth_seconds,
                growth_loop_s * scale_growth,
                f"{SUBSET_DRAWS} draws x N={SUBSET_SIZES}, extrapolated",
            ],
            [
                "Figure 5 stability, 200 pairs x N=1..50",
                stability_seconds,
                stability_loop_s * scale_stability,
                f"{SUBSET_DRAWS} pairs x N={SUBSET_SIZES}, extrapolated",
            ],
            ["full analysis", ours.seconds, reference_seconds, ""],
        ],
    )
    shown = [1, 2, 5, 10, 20, 30, 40, 50]
    print(f"growth mean, N = {shown}: {np.round(growth.mean[np.array(shown) - 1], 1).tolist()}")
    print(f"factoids per sentence, N = {shown}: {np.round(growth.mean_per_sentence[np.array(shown) - 1], 2).tolist()}")
    print(f"stability mean rho, N = {shown}: {np.round(stability.mean_rho[np.array(shown) - 1], 3).tolist()}")
    print(f"mean rho first above: {stability.first_above}")
    print(f"subset vs loop: max |growth mean diff| = {growth_diff:.2e}, max |rho diff| = {stability_diff:.2e}")
    print_result(
        "factoids",
        seconds=ours.seconds,
        reference_seconds=reference_seconds,
        peak_mb=ours.peak_mb,
        max_abs_diff=max(growth_diff, stability_diff),
        extrapolated="yes",
    )


def concord_growth(by_sentence, owner, models):
    model_sentences = models[owner]
    return f.inventory_growth(by_sentence[model_sentences], owner[model_sentences], draws=GROWTH_DRAWS, seed=SEED)


if __name__ == "__main__":
    main()
