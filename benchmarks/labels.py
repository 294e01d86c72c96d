"""Benchmark: a labels campaign's merge of 1,000,000 labels against irrCAC and krippendorff.

Data, seeded: 100,000 items, each labelled by 10 distinct raters of 2,000 (1,000,000 labels),
on a nominal scale of 5 categories. Each item has a hidden true category (shares 40, 25, 15,
12 and 8%); each rater has an accuracy of their own (90% of them drawn from Beta(9, 2), mean
0.82; 10% careless, Beta(2, 6)) and gives the true category with that probability, another
one at random otherwise. Fleiss' kappa comes out about 0.46, AC1 about 0.52.

The items are grouped into topics of 20 in item order (5,000 topics), as a crowd table is
imported: each item keeps its own raters (``--shape crowd``, the default, about 190 raters
to a topic), or each topic's 20 items are all labelled by the same 10 raters
(``--shape panel``, an assessor judging a whole topic). The topics' ``LabelsPartial``\\ s are
built directly (what ``kinds.labels.partials.topic_partial`` stores for each topic), with a
``MergeInput`` of unsaved ``Campaign``, ``Topic`` and ``Run`` objects: no database.

Timed (CPU of this process, ``time.process_time``, one run untraced; the peak traced by
tracemalloc in a separate run, which sees numpy's allocations):

- the merge: ``kinds.labels.partials.merge`` of every topic's partial, the campaign report
  as the worker builds it after a submission: percent agreement, Brennan-Prediger, Conger,
  Fleiss, alpha, AC1 and AC2, each with its 1,000-resample bootstrap interval; per category
  the specific agreement and kappa with theirs; every pair of raters' confusion matrix and
  kappa (the kappa matrix), the 500 pairs with the most shared items with their intervals;
  Dawid-Skene's reliability of every rater. ``--reference-run`` adds a gold run (the hidden
  truth), so the merge also fits every truth model (MACE, Wawa, ...) and the accuracy tables.
- the reference: irrCAC 0.4.4's ``CAC`` (``fleiss``, ``gwet`` (AC1), ``conger``, ``bp``;
  percent agreement is their ``pa``; with their analytic standard errors) and the
  ``krippendorff`` package's ``alpha`` (nominal), on the items x raters data frame both need
  dense. At 100,000 items x 2,000 raters that frame is 1.6 GB and irrCAC's Conger loops over
  categories^2 items x raters arrays (its CPU grows with items x raters), so the reference
  runs on the first ``--reference-items`` items (default 4,000: 200 topics) with the columns
  of the raters who labelled them (all 2,000, or nearly), and on half as many, to show its
  growth; the merge is timed on the same topics for the ratio (``ratio``). The reference's
  time at 100,000 items is extrapolated linearly in items from the larger sample
  (``reference_extrapolated_s``; the raters' columns stay 2,000) and set against the merge
  at 100,000 items (``full_ratio``). The merge computes far more than the reference (every
  interval, every pair, the models): the ratios understate what the same work would cost.

Checks: the merge's percent agreement, Brennan-Prediger, Conger, Fleiss, AC1 and alpha on the
reference's items equal irrCAC's and krippendorff's (``max_difference``, to 1e-9); at 100,000
items they equal ``stats.ratingtables.rating_table`` of the whole table, the library
``benchmarks.ratingtables`` checks against irrCAC (``full_max_difference``).

Run from the project root::

    python -m benchmarks.labels [--shape crowd|panel] [--reference-items 4000] [--reference-run] [--profile]

(about two minutes; ``--items 20000`` for a quicker run). ``--profile`` prints where the
merge's time goes (cProfile, the 25 costliest calls).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import resource
import time
import tracemalloc
import warnings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings_test")

import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402

from annotate.models import Campaign, Run, Topic  # noqa: E402
from benchmarks._harness import print_result, print_table  # noqa: E402
from kinds.labels import partials as labels_partials  # noqa: E402
from kinds.labels.report import LabelsCampaignReport  # noqa: E402
from scoring.partials import MergeInput  # noqa: E402
from stats.ratings import SparseRatings  # noqa: E402
from stats.ratingtables import rating_table  # noqa: E402

SEED = 20260612
N_ITEMS, N_RATERS, PER_ITEM, PER_TOPIC = 100_000, 2_000, 10, 20
CATEGORIES = ["a", "b", "c", "d", "e"]
PREVALENCE = [0.40, 0.25, 0.15, 0.12, 0.08]
TOLERANCE = 1e-9


class Crowd:
    """The labels: ``raters[i]`` and ``codes[i]`` item ``i``'s raters and their category codes."""

    def __init__(self, items: int, shape: str, seed: int = SEED):
        rng = np.random.default_rng(seed)
        careless = rng.random(N_RATERS) < 0.1
        accuracy = np.where(careless, rng.beta(2, 6, N_RATERS), rng.beta(9, 2, N_RATERS))
        self.truth = rng.choice(len(CATEGORIES), items, p=PREVALENCE)
        if shape == "panel":  # a topic's items share its raters
            per_topic = _distinct_raters(rng, -(-items // PER_TOPIC))
            raters = np.repeat(per_topic, PER_TOPIC, axis=0)[:items]
        else:
            raters = _distinct_raters(rng, items)
        self.raters = np.sort(raters, axis=1)
        right = rng.random(self.raters.shape) < accuracy[self.raters]
        # a wrong label is one of the other categories, uniformly
        other = (self.truth[:, None] + rng.integers(1, len(CATEGORIES), self.raters.shape)) % len(CATEGORIES)
        self.codes = np.where(right, self.truth[:, None], other)
        self.items = items

    def sparse(self, items: int) -> SparseRatings:
        """The first ``items`` items' labels, held sparse."""
        return SparseRatings.from_entries(
            np.repeat(np.arange(items), PER_ITEM),
            self.raters[:items].ravel(),
            self.codes[:items].ravel(),
            n_items=items,
            n_raters=N_RATERS,
        )

    def dense(self, items: int) -> np.ndarray:
        """The first ``items`` items x the raters who labelled any of them (NaN: no label)."""
        columns = np.unique(self.raters[:items])
        matrix = np.full((items, len(columns)), np.nan)
        matrix[np.arange(items)[:, None], np.searchsorted(columns, self.raters[:items])] = self.codes[:items]
        return matrix


def _distinct_raters(rng: np.random.Generator, rows: int) -> np.ndarray:
    raters = rng.integers(0, N_RATERS, (rows, PER_ITEM))
    while True:  # redraw the rows that drew a rater twice (about 2% of them, fewer each round)
        ordered = np.sort(raters, axis=1)
        repeated = np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))
        if repeated.size == 0:
            return raters
        raters[repeated] = rng.integers(0, N_RATERS, (repeated.size, PER_ITEM))


def campaign(crowd: Crowd, reference_run: bool) -> tuple[MergeInput, list[labels_partials.LabelsPartial]]:
    """Each topic's partial, as ``topic_partial`` builds it (items x the topic's raters, codes row
    by row, NaN no label), and the merge's input."""
    names = [f"r{k:04d}" for k in range(N_RATERS)]
    nan = float("nan")
    topics, partials = [], []
    for t, start in enumerate(range(0, crowd.items, PER_TOPIC)):
        stop = min(start + PER_TOPIC, crowd.items)
        raters, codes = crowd.raters[start:stop], crowd.codes[start:stop]
        columns = np.unique(raters)
        matrix = np.full((stop - start, len(columns)), np.nan)
        matrix[np.arange(stop - start)[:, None], np.searchsorted(columns, raters)] = codes
        topics.append(Topic(id=t + 1, external_id=f"t{t + 1}", position=t))
        partials.append(
            labels_partials.LabelsPartial(
                items=stop - start,
                item_ids=[f"i{k}" for k in range(start, stop)],
                assessors=[names[c] for c in columns.tolist()],
                codes=matrix.ravel().tolist(),
                cant_tell=[0] * len(columns),
                references=["gold"] if reference_run else [],
                reference_codes=crowd.truth[start:stop].astype(float).tolist() if reference_run else [],
                adjudicated=[nan] * (stop - start),
            )
        )
    runs = [Run(name="gold", data={"reference": True, "labels": {}})] if reference_run else []
    params = {"level": "nominal", "categories": CATEGORIES}
    return MergeInput(Campaign(kind="labels", params=params), topics, runs), partials


def reference_figures(matrix: np.ndarray) -> dict[str, float]:
    """irrCAC's coefficients and krippendorff's alpha of an items x raters table."""
    import krippendorff
    import pandas as pd
    from irrCAC.raw import CAC

    cac = CAC(pd.DataFrame(matrix), categories=[float(k) for k in range(len(CATEGORIES))], digits=15)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # irrCAC's pandas deprecations
        found = {name: getattr(cac, name)()["est"] for name in ("fleiss", "gwet", "conger", "bp")}
    return {
        "percent": found["bp"]["pa"],
        "brennan_prediger": found["bp"]["coefficient_value"],
        "conger": found["conger"]["coefficient_value"],
        "fleiss": found["fleiss"]["coefficient_value"],
        "ac1": found["gwet"]["coefficient_value"],
        "alpha": float(krippendorff.alpha(reliability_data=matrix.T, level_of_measurement="nominal")),
    }


def report_figures(report: LabelsCampaignReport) -> dict[str, float]:
    return {
        "percent": report.percent.value,
        "brennan_prediger": report.brennan_prediger.value,
        "conger": report.conger.value,
        "fleiss": report.fleiss.kappa,
        "ac1": report.ac1.value,
        "alpha": report.alpha.value,
    }


def library_figures(ratings: SparseRatings) -> dict[str, float]:
    table = rating_table(ratings, categories=np.arange(len(CATEGORIES)), pairs=False)
    return {
        "percent": table.percent_agreement.value,
        "brennan_prediger": table.brennan_prediger.value,
        "conger": table.conger.value,
        "fleiss": table.fleiss.value,
        "ac1": table.gwet.value,
        "alpha": table.krippendorff.value,
    }


def largest_difference(ours: dict[str, float], theirs: dict[str, float]) -> float:
    return max(abs(ours[name] - theirs[name]) for name in theirs)


def cpu(fn):
    started = time.process_time()
    value = fn()
    return value, time.process_time() - started


def traced_peak_mb(fn) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=N_ITEMS, help="items in the campaign (default 100,000)")
    parser.add_argument("--shape", choices=("crowd", "panel"), default="crowd")
    parser.add_argument("--reference-items", type=int, default=4_000)
    parser.add_argument("--reference-run", action="store_true", help="a gold run: every truth model and accuracy")
    parser.add_argument("--profile", action="store_true", help="where the merge's time goes")
    args = parser.parse_args()
    crowd = Crowd(args.items, args.shape)
    given, partials = campaign(crowd, args.reference_run)
    small_topics = -(-args.reference_items // PER_TOPIC)
    warm = Crowd(200, args.shape)  # imports and first calls, untimed
    labels_partials.merge(*campaign(warm, False))
    reference_figures(warm.dense(200))

    def merge_of(topics: int):
        cut = MergeInput(given.campaign, given.topics[:topics], given.runs)
        return lambda: labels_partials.merge(cut, partials[:topics])

    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    report, merge_s = cpu(merge_of(len(partials)))
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    merge_mb = traced_peak_mb(merge_of(len(partials)))
    full_difference = largest_difference(report_figures(report), library_figures(crowd.sparse(args.items)))

    small, small_s = cpu(merge_of(small_topics))
    half_items = args.reference_items // 2
    _, half_reference_s = cpu(lambda: reference_figures(crowd.dense(half_items)))
    reference, reference_s = cpu(lambda: reference_figures(crowd.dense(args.reference_items)))
    difference = largest_difference(report_figures(small), reference)
    extrapolated_s = reference_s * args.items / args.reference_items
    for name, found in (("reference items", difference), ("every item", full_difference)):
        if not found <= TOLERANCE:
            raise AssertionError(f"the merge's figures differ by {found:.3g} on {name}")

    print(
        f"{args.items:,} items x {PER_ITEM} labels from {N_RATERS:,} raters ({args.shape}), {len(CATEGORIES)} "
        f"categories, {len(partials):,} topics of {PER_TOPIC}: {crowd.codes.size:,} labels; "
        f"{report.pair_count:,} pairs of raters sharing an item"
    )
    print(
        "figures at every item: "
        + ", ".join(f"{name} {value:.4f}" for name, value in report_figures(report).items())
        + f"; Conger's interval {report.conger.low:.4f} to {report.conger.high:.4f}"
    )
    print_table(
        ["what", "items", "CPU s", "peak MB"],
        [
            ["merge (every figure, interval, pair, Dawid-Skene)", args.items, merge_s, f"{merge_mb:.0f} traced"],
            ["merge", small_topics * PER_TOPIC, small_s, "-"],
            ["irrCAC (fleiss, gwet, conger, bp) + krippendorff", args.reference_items, reference_s, "-"],
            ["irrCAC (fleiss, gwet, conger, bp) + krippendorff", half_items, half_reference_s, "-"],
            ["  extrapolated, linear in items", args.items, extrapolated_s, "-"],
        ],
    )
    print(
        f"peak RSS of the process {rss_after:.0f} MB ({rss_before:.0f} MB before the merge: the partials); "
        f"largest difference from irrCAC / krippendorff {difference:.3g}, from rating_table at every item "
        f"{full_difference:.3g}"
    )
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(merge_of(len(partials)))
        pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
    print_result(
        "labels",
        seconds=small_s,
        reference_seconds=reference_s,
        peak_mb=merge_mb,
        shape=args.shape,
        reference_items=args.reference_items,
        half_reference_s=half_reference_s,
        items=args.items,
        labels=int(crowd.codes.size),
        full_seconds=merge_s,
        full_peak_rss_mb=rss_after,
        reference_extrapolated_s=extrapolated_s,
        full_ratio=extrapolated_s / merge_s,
        max_difference=difference,
        full_max_difference=full_difference,
    )


if __name__ == "__main__":
    main()
