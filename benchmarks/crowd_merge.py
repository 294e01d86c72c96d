"""Benchmark: a crowd campaign's pairs merge, its votes held sparse, against the same figures
computed by the library from the dense items x workers matrix (how the merge read them before).

A synthetic crowd as ``benchmarks.distributed`` imports it: ``--items`` topics of one candidate,
each judged by 10 of ``--workers`` workers (80% agreeing with a hidden truth), a reference run
(the gold column) labelling every item. Timed (CPU, one process, untraced; the peak traced
separately with tracemalloc, which sees numpy's allocations):

- ``merge``: ``kinds.pairs.partials.merge`` of the topics' partials: every figure of the campaign
  report (Fleiss, alpha, AC1 with their bootstrap intervals, the 500 live pairs, the kappa
  matrix, Dawid-Skene, MACE and Wawa, each worker's reliability, the accuracy table).
- the reference: the dense matrix laid out from the same votes, then the library's figures of it
  as the dense merge computed them: the pair confusions of the codes matrix, Fleiss, alpha and
  AC1 with their per-unit statistics, the three models (``stats.labelmodels.model_truth`` of the
  matrix). Less than the merge does (no intervals, no accuracy table), so the ratio understates
  the gain.

``unequal`` counts the figures that differ between the two (Fleiss, alpha, AC1 and the three
models' labels exactly; every pair's kappa, the 2x2 closed form against the library's general
one, beyond 1e-12): 0 expected.

Run from the project root::

    python -m benchmarks.crowd_merge [--items 20000] [--workers 400]

``--items 100000 --workers 2000`` is the distributed run's crowd (the reference then needs about
9 GB).
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings_test")

import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402

from annotate.models import Campaign, Run, Topic  # noqa: E402
from benchmarks._harness import print_result, print_table  # noqa: E402
from kinds.pairs import partials as pairs_partials  # noqa: E402
from scoring.partials import MergeInput  # noqa: E402
from stats import agreement, gwet, uncertainty  # noqa: E402
from stats import labelmodels as lm  # noqa: E402

PER_ITEM = 10


def crowd(items: int, workers: int, seed: int = 1) -> tuple[MergeInput, list[pairs_partials.PairsPartial]]:
    rng = np.random.default_rng(seed)
    names = [f"W{k:06d}" for k in range(workers)]
    truth = rng.random(items) < 0.5
    topics, partials = [], []
    for i in range(items):
        who = np.sort(rng.choice(workers, PER_ITEM, replace=False))
        said = np.where(rng.random(PER_ITEM) < 0.8, truth[i], ~truth[i]).astype(float)
        topics.append(Topic(id=i + 1, external_id=str(i + 1), position=i))
        partials.append(
            pairs_partials.PairsPartial(
                items=1,
                candidates=[str(i + 1)],
                assessors=[names[k] for k in who],
                votes=said.tolist(),
                systems=[],
                returned=[],
                references=["gold"],
                reference_labels=[float(truth[i])],
                adjudicated=[float("nan")],
            )
        )
    runs = [Run(name="gold", data={"reference": True, "labels": {}})]
    return MergeInput(Campaign(kind="pairs", params={}), topics, runs), partials


def dense_reference(partials: list[pairs_partials.PairsPartial], workers: list[str]) -> dict:
    """The dense matrix of the partials and the library's figures of it, as the dense merge read them."""
    column = {name: k for k, name in enumerate(workers)}
    matrix = np.full((len(partials), len(workers)), np.nan)
    for i, partial in enumerate(partials):
        matrix[i, [column[name] for name in partial.assessors]] = partial.votes
    judged = ~np.isnan(matrix)
    raters = judged.sum(axis=1)
    confusions = agreement.pair_confusions(np.where(judged, matrix == 1, -1).T.astype(np.int64), 2)
    m = np.bincount(raters[raters >= 2]).argmax()
    table = agreement.category_counts(matrix[raters == m], categories=[0.0, 1.0])
    pairable = raters >= 2
    return {
        "fleiss": agreement.fleiss_kappa(table),
        "fleiss_units": uncertainty.fleiss_kappa_units(table),
        "alpha": agreement.krippendorff_alpha(matrix[pairable].T),
        "alpha_units": uncertainty.krippendorff_alpha_units(matrix[pairable].T),
        "ac1": gwet.gwet_units(matrix[raters > 0], categories=[0.0, 1.0]).value,
        "kappas": agreement.kappas_from_confusions(confusions.confusion),
        "pairs": (confusions.first, confusions.second),
        "models": {model: lm.model_truth(matrix, model, 2).labels for model in lm.MODELS},
    }


def _timed(fn):
    started = time.process_time()
    value = fn()
    return value, time.process_time() - started


def _peak_mb(fn) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=20000)
    parser.add_argument("--workers", type=int, default=400)
    args = parser.parse_args()
    given, partials = crowd(args.items, args.workers)
    workers = sorted({name for p in partials for name in p.assessors})
    pairs_partials.merge(*crowd(200, 40))  # imports and first calls
    report, merge_s = _timed(lambda: pairs_partials.merge(given, partials))
    reference, reference_s = _timed(lambda: dense_reference(partials, workers))
    merge_mb = _peak_mb(lambda: pairs_partials.merge(given, partials))
    reference_mb = _peak_mb(lambda: dense_reference(partials, workers))
    unequal = int(report.fleiss.kappa != reference["fleiss"]) + int(report.alpha.alpha != reference["alpha"])
    unequal += int(report.ac1.value != reference["ac1"])
    for model, labels in reference["models"].items():
        fit = lm.model_truth(pairs_partials._concatenate(given.topics, partials, [], []).votes, model, 2)
        unequal += int(not np.array_equal(fit.labels, labels, equal_nan=True))
    first, second = reference["pairs"]
    for i, j, kappa in zip(first.tolist(), second.tolist(), reference["kappas"].tolist()):
        found = report.kappa_matrix[i][j]
        # the report's 2x2 closed form against the library's general kappa: equal to rounding
        both_nan = (found is None or found != found) and kappa != kappa
        unequal += int(not (both_nan or (found is not None and abs(found - kappa) <= 1e-12)))
    print_table(
        ["", "CPU s", "peak MB (traced)"],
        [
            ["merge, votes sparse (every figure)", f"{merge_s:.2f}", f"{merge_mb:.0f}"],
            ["dense matrix + the library's figures", f"{reference_s:.2f}", f"{reference_mb:.0f}"],
        ],
    )
    print_result(
        "crowd_merge",
        seconds=merge_s,
        reference_seconds=reference_s,
        peak_mb=merge_mb,
        reference_peak_mb=reference_mb,
        items=args.items,
        workers=args.workers,
        dense_copy_mb=args.items * args.workers * 8 / 2**20,
        unequal=unequal,
    )


if __name__ == "__main__":
    main()
