"""Benchmark: graded relevance, every run under every qrels set, vs a per-topic, per-run loop.

Synthetic TREC-style campaign: 50 topics x 1,000 pooled documents, 5
assessors of different strictness (each grade is a hidden 0-3 grade shifted
by the assessor's strictness and noised), 100 runs of depth 100 (each ranks
the pool by a noisy view of the hidden relevance, plus a few unjudged
documents). Qrels sets: the 5 assessors and their consensus (lower median).

Concord: :func:`stats.ireval.evaluate` (one ir-measures evaluator per qrels
set, over pytrec_eval) for nDCG@10, P@10, AP and bpref under all 6 qrels sets,
then :func:`kinds.relevance.stats.ranking_stability` (Kendall's tau and
swaps between the system rankings under every pair of qrels sets) for each
measure. Reference: the library's own single-query calls, one
``ir_measures.calc_aggregate`` per topic, run and qrels set (30,000 calls),
means over topics in Python, ``scipy.stats.kendalltau`` per pair of sets;
its figures must equal Concord's to 1e-9. Assessor agreement (kappas,
overlap, alpha) is printed with its own time.

No subprocess is run. Run from the project root: ``python -m benchmarks.relevance``.
"""

from __future__ import annotations

import itertools
import time

import ir_measures
import numpy as np
from scipy.stats import kendalltau

from benchmarks._harness import measure, print_result, print_table
from kinds.relevance import stats as relevance
from stats import ireval

N_TOPICS, POOL, N_ASSESSORS, N_RUNS, DEPTH, UNJUDGED = 50, 1000, 5, 100, 100, 20
SEED = 2000
STRICTNESS = (-0.3, -0.15, 0.0, 0.15, 0.3)  # grade units subtracted: assessor 0 lenient, 4 strict
NOISE = 0.3  # standard deviation of each assessor's view of the hidden relevance, in grade units
MEASURES = ("nDCG@10", "P@10", "AP", "Bpref")


def synthetic(rng: np.random.Generator):
    """Flat grades (assessors x topic-documents), their ids, and the runs."""
    # Hidden relevance on a continuous 0-4 scale whose floor is the true grade:
    # about 84% of the pool non-relevant, 13% related, 3% relevant, 0.4% highly relevant.
    latent = rng.beta(0.4, 3.0, (N_TOPICS, POOL)) * 4
    shifts = np.array(STRICTNESS)[:, None, None]
    seen = latent[None] - shifts + rng.normal(0, NOISE, (N_ASSESSORS, N_TOPICS, POOL))
    grades = np.floor(np.clip(seen, 0, 3.999)).reshape(N_ASSESSORS, -1)
    topic_ids = [f"{301 + t}" for t in range(N_TOPICS) for _ in range(POOL)]
    document_ids = [f"D{t:02d}-{d:04d}" for t in range(N_TOPICS) for d in range(POOL)]

    quality = rng.uniform(0.2, 2.0, (N_RUNS, 1, 1))
    candidates = np.concatenate([latent, np.zeros((N_TOPICS, UNJUDGED))], axis=1)
    scores = quality * candidates[None] + rng.normal(0, 1, (N_RUNS, N_TOPICS, POOL + UNJUDGED))
    top = np.argsort(-scores, axis=2)[:, :, :DEPTH]
    runs = {}
    for r in range(N_RUNS):
        runs[f"run{r:03d}"] = {
            f"{301 + t}": [
                (f"D{t:02d}-{d:04d}" if d < POOL else f"U{t:02d}-{d:04d}", round(float(scores[r, t, d]), 6))
                for d in top[r, t].tolist()
            ]
            for t in range(N_TOPICS)
        }
    return grades, topic_ids, document_ids, runs


def concord(qrels_sets, runs):
    evaluation = ireval.evaluate(qrels_sets, runs)
    stability = {name: relevance.ranking_stability(evaluation.scores(name)) for name in evaluation.measures}
    return evaluation, stability


def loop(qrels_sets, runs):
    """Means (sets, runs, measures) and taus, one single-topic, single-run library call at a time."""
    measures = [ir_measures.nDCG @ 10, ir_measures.P @ 10, ir_measures.AP, ir_measures.Bpref]
    means = np.zeros((len(qrels_sets), len(runs), len(measures)))
    for q, qrels in enumerate(qrels_sets.values()):
        for s, run in enumerate(runs.values()):
            totals = [0.0] * len(measures)
            for qid, judged in qrels.items():
                ranking = {qid: dict(run.get(qid, []))}
                values = ir_measures.calc_aggregate(measures, {qid: judged}, ranking)
                for m, library_measure in enumerate(measures):
                    totals[m] += values[library_measure]
            means[q, s] = [total / len(qrels) for total in totals]
    taus = np.array(
        [
            [
                [kendalltau(means[i, :, m], means[j, :, m]).statistic for j in range(len(qrels_sets))]
                for i in range(len(qrels_sets))
            ]
            for m in range(len(measures))
        ]
    )
    return means, taus


def main() -> None:
    rng = np.random.default_rng(SEED)
    grades, topic_ids, document_ids, runs = synthetic(rng)
    topic_index = np.repeat(np.arange(N_TOPICS), POOL)
    names = [f"assessor{a}" for a in range(N_ASSESSORS)] + ["consensus"]
    print(
        f"{N_TOPICS} topics x {POOL} pooled documents, {N_ASSESSORS} assessors "
        f"(strictness {STRICTNESS}), {N_RUNS} runs of depth {DEPTH}"
    )

    start = time.perf_counter()
    kappa = relevance.pairwise_kappa(grades, scale=[0, 1, 2, 3])
    overlap = relevance.relevant_overlap(grades, topic_index, threshold=1)
    alpha = relevance.grade_alpha(grades)
    consensus = relevance.consensus_grades(grades)
    agreement_seconds = time.perf_counter() - start
    qrels_sets = ireval.qrels_from_grades(np.vstack([grades, consensus]), topic_ids, document_ids, names)
    pairs = np.triu_indices(N_ASSESSORS, 1)
    print(
        f"agreement ({agreement_seconds:.3f} s): mean over assessor pairs of kappa "
        f"{np.mean(kappa.unweighted[pairs]):.3f} (linear {np.mean(kappa.linear[pairs]):.3f}, "
        f"quadratic {np.mean(kappa.quadratic[pairs]):.3f}); overlap at grade >= 1 mean over topics "
        f"{np.mean(overlap.mean[pairs]):.3f}, pooled {np.mean(overlap.pooled[pairs]):.3f}, all five "
        f"{overlap.group_mean:.3f}; alpha ordinal {alpha.ordinal:.3f}, interval {alpha.interval:.3f}"
    )

    # Timed without tracemalloc (it slows Python-level code, and the loop is timed without it);
    # the peak memory comes from a second, traced run.
    ours = measure(lambda: concord(qrels_sets, runs), repeat=1, trace_memory=False)
    evaluation, stability = ours.value
    peak_mb = measure(lambda: concord(qrels_sets, runs), repeat=1).peak_mb
    reference = measure(lambda: loop(qrels_sets, runs), repeat=1, trace_memory=False)
    loop_means, loop_taus = reference.value
    our_taus = np.array([stability[name].tau for name in MEASURES])
    max_diff = float(max(np.max(np.abs(evaluation.means - loop_means)), np.max(np.abs(our_taus - loop_taus))))
    calls = len(names) * N_RUNS * N_TOPICS

    print_table(
        ["part", "Concord s", "loop s", "note"],
        [
            [
                "4 measures x 6 qrels sets x 100 runs + taus",
                ours.seconds,
                reference.seconds,
                f"loop: {calls:,} single-topic, single-run calc_aggregate calls",
            ],
        ],
    )
    print("mean over runs under each qrels set:")
    print_table(
        ["qrels set", *MEASURES],
        [[name, *np.round(evaluation.means[q].mean(axis=0), 4).tolist()] for q, name in enumerate(names)],
    )
    print("Kendall's tau of the system rankings vs the consensus (swapped pairs of 4,950):")
    print_table(
        ["qrels set", *MEASURES],
        [
            [name, *[f"{stability[m].tau[q, -1]:.3f} ({stability[m].swaps[q, -1]})" for m in MEASURES]]
            for q, name in enumerate(names[:-1])
        ],
    )
    lowest = min(stability["AP"].tau[i, j] for i, j in itertools.combinations(range(len(names)), 2))
    print(f"lowest MAP tau between any two qrels sets: {lowest:.3f}")
    print(f"max |difference| of means and taus vs the loop: {max_diff:.2e}")
    assert max_diff <= 1e-9, f"batched figures differ from the loop's by {max_diff}"
    print_result(
        "relevance",
        seconds=ours.seconds,
        reference_seconds=reference.seconds,
        peak_mb=peak_mb,
        max_abs_diff=max_diff,
        calls=calls,
        map_tau_min=float(lowest),
    )


if __name__ == "__main__":
    main()
