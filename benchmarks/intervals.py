"""The cost of 95% intervals (1000 bootstrap resamples) next to the figures themselves.

Run from the project root: ``python -m benchmarks.intervals``.

For each judgment kind, a synthetic campaign shaped like its demo (and a
larger one, 10x the units), seeded: the agreement figures its report shows,
computed by the metric library alone, then the same figures plus their
intervals from ``stats.uncertainty`` (one resample draw per unit
set, shared by every figure over those units, as the reports use it). Both
are timed as best of 5 (memory traced in a separate run); the ratio printed is (figures + intervals) / figures.
The figures alone are only the arithmetic of the report (no database reads,
no rendering), so this ratio is an upper bound on what intervals add to a
report's build.

Shapes (units in brackets):
- pairs: 400 pooled items x 3 assessors, binary [items]: overlap, p+, p-,
  kappa for each of the 3 pairs, Fleiss' kappa, Krippendorff's alpha, AC1;
- relevance: 8 topics x 30 documents x 3 assessors, grades 0-3 [items]:
  quadratic Cohen's kappa per pair, ordinal alpha, Fleiss' kappa, AC2;
  mean per-topic Kendall tau of 13 systems under two assessors [topics];
- nuggets: 10 topics x 20 nuggets x 3 assessors, 3 labels [items]: Cohen's
  kappa per pair, Fleiss' kappa, alpha;
- clustering: 10 topics, V-measure per topic for each of 3 pairs of judges
  [topics]: mean per pair;
- ordering: 10 topics, 3 judges, mean pairwise Kendall tau per topic
  [topics];
- factoids: 16 summaries x 150 factoids, 2 annotators, binary [combinations]:
  annotation kappa, p+.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from itertools import combinations

import numpy as np
from scipy import stats

from benchmarks._harness import measure, print_result, print_table
from stats import agreement
from stats.gwet import gwet, gwet_units
from stats.uncertainty import (
    cohen_kappa_units,
    fleiss_kappa_units,
    krippendorff_alpha_units,
    mean_units,
    pairwise_units,
    resample_weights,
)

SEED = 20240615
REPEAT = 5
N_RESAMPLES = 1000


def shared_weights(n_units: int) -> np.ndarray:
    """One draw for every figure over these units, as floats once (as the reports use it)."""
    return resample_weights(n_units, n_resamples=N_RESAMPLES, seed=0).astype(np.float64)


def labels(rng: np.random.Generator, n_items: int, n_raters: int, n_values: int, agree: float) -> np.ndarray:
    """Items x raters labels: each rater copies the item's value with probability ``agree``."""
    truth = rng.integers(0, n_values, n_items)
    guesses = rng.integers(0, n_values, (n_items, n_raters))
    return np.where(rng.random((n_items, n_raters)) < agree, truth[:, None], guesses)


def pairs_shape(rng: np.random.Generator, scale: int) -> tuple[Callable, Callable]:
    votes = labels(rng, 400 * scale, 3, 2, 0.7)

    def figures():
        out = []
        for i, j in combinations(range(3), 2):
            table = agreement.pairwise_agreement(votes[:, i], votes[:, j])
            out += [table.overlap, table.positive, table.negative, table.kappa]
        counts = agreement.category_counts(votes).counts
        out += [agreement.fleiss_kappa(counts), agreement.krippendorff_alpha(votes.T), gwet(votes).value]
        return out

    def with_intervals():
        weights = shared_weights(len(votes))
        out = []
        for i, j in combinations(range(3), 2):
            for figure in ("overlap", "positive", "negative", "kappa"):
                out.append(pairwise_units(votes[:, i], votes[:, j], figure=figure).interval(weights=weights))
        counts = agreement.category_counts(votes).counts
        out.append(fleiss_kappa_units(counts).interval(weights=weights))
        out.append(krippendorff_alpha_units(votes.T).interval(weights=weights))
        out.append(gwet_units(votes).interval(weights=weights))
        return out

    return figures, with_intervals


def relevance_shape(rng: np.random.Generator, scale: int) -> tuple[Callable, Callable]:
    grades = labels(rng, 240 * scale, 3, 4, 0.6)
    n_topics = 8 * scale
    scores = rng.random((n_topics, 2, 13))

    def taus():
        return np.array([stats.kendalltau(scores[t, 0], scores[t, 1]).statistic for t in range(n_topics)])

    def figures():
        out = [
            agreement.cohen_kappa(grades[:, i], grades[:, j], weights="quadratic") for i, j in combinations(range(3), 2)
        ]
        counts = agreement.category_counts(grades).counts
        out += [agreement.krippendorff_alpha(grades.T, level="ordinal"), agreement.fleiss_kappa(counts)]
        out += [gwet(grades, weights="quadratic").value, float(np.mean(taus()))]
        return out

    def with_intervals():
        weights = shared_weights(len(grades))
        out = [
            cohen_kappa_units(grades[:, i], grades[:, j], weights="quadratic").interval(weights=weights)
            for i, j in combinations(range(3), 2)
        ]
        counts = agreement.category_counts(grades).counts
        out.append(krippendorff_alpha_units(grades.T, level="ordinal").interval(weights=weights))
        out.append(fleiss_kappa_units(counts).interval(weights=weights))
        out.append(gwet_units(grades, weights="quadratic").interval(weights=weights))
        out.append(mean_units(taus()).interval(seed=0))
        return out

    return figures, with_intervals


def nuggets_shape(rng: np.random.Generator, scale: int) -> tuple[Callable, Callable]:
    votes = labels(rng, 200 * scale, 3, 3, 0.65)

    def figures():
        out = [agreement.cohen_kappa(votes[:, i], votes[:, j]) for i, j in combinations(range(3), 2)]
        counts = agreement.category_counts(votes).counts
        return [*out, agreement.fleiss_kappa(counts), agreement.krippendorff_alpha(votes.T)]

    def with_intervals():
        weights = shared_weights(len(votes))
        out = [
            cohen_kappa_units(votes[:, i], votes[:, j]).interval(weights=weights) for i, j in combinations(range(3), 2)
        ]
        counts = agreement.category_counts(votes).counts
        out.append(fleiss_kappa_units(counts).interval(weights=weights))
        out.append(krippendorff_alpha_units(votes.T).interval(weights=weights))
        return out

    return figures, with_intervals


def per_topic_shape(rng: np.random.Generator, scale: int, n_pairs: int) -> tuple[Callable, Callable]:
    """Clustering and ordering: per-topic figures (already computed by the report) averaged over topics."""
    per_topic = rng.random((10 * scale, n_pairs))

    def figures():
        return [float(np.mean(per_topic[:, p])) for p in range(n_pairs)]

    def with_intervals():
        weights = shared_weights(len(per_topic))
        return [mean_units(per_topic[:, p]).interval(weights=weights) for p in range(n_pairs)]

    return figures, with_intervals


def factoids_shape(rng: np.random.Generator, scale: int) -> tuple[Callable, Callable]:
    marks = labels(rng, 16 * 150 * scale, 2, 2, 0.8)

    def figures():
        table = agreement.pairwise_agreement(marks[:, 0], marks[:, 1])
        return [agreement.cohen_kappa(marks[:, 0], marks[:, 1]), table.positive]

    def with_intervals():
        weights = shared_weights(len(marks))
        return [
            cohen_kappa_units(marks[:, 0], marks[:, 1]).interval(weights=weights),
            pairwise_units(marks[:, 0], marks[:, 1], figure="positive").interval(weights=weights),
        ]

    return figures, with_intervals


SHAPES = {
    "pairs": pairs_shape,
    "relevance": relevance_shape,
    "nuggets": nuggets_shape,
    "clustering": lambda rng, scale: per_topic_shape(rng, scale, 3),
    "ordering": lambda rng, scale: per_topic_shape(rng, scale, 3),
    "factoids": factoids_shape,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", default="1,10", help="comma-separated multiples of the demo's units")
    args = parser.parse_args()
    rows = []
    total_figures = total_both = 0.0
    peak = 0.0
    for scale in (int(s) for s in args.scales.split(",")):
        for kind, build in SHAPES.items():
            figures, with_intervals = build(np.random.default_rng(SEED), scale)
            alone = measure(figures, repeat=REPEAT, trace_memory=False)
            both = measure(lambda f=figures, w=with_intervals: (f(), w()), repeat=REPEAT, trace_memory=False)
            peak = max(peak, measure(with_intervals).peak_mb)  # tracemalloc slows numpy: a separate run
            intervals = both.value[1]
            assert np.allclose([i.value for i in intervals], alone.value, atol=1e-12, equal_nan=True)
            rows.append(
                [
                    kind,
                    scale,
                    len(intervals),
                    max(i.units for i in intervals),
                    alone.seconds * 1e3,
                    both.seconds * 1e3,
                    both.seconds / alone.seconds,
                ]
            )
            total_figures += alone.seconds
            total_both += both.seconds
    print_table(["kind", "scale", "figures", "units", "figures ms", "+ intervals ms", "ratio"], rows)
    print_result(
        "intervals",
        seconds=total_both,
        reference_seconds=total_figures,
        peak_mb=peak,
        resamples=N_RESAMPLES,
        intervals_ms=(total_both - total_figures) * 1e3,
    )


if __name__ == "__main__":
    main()
