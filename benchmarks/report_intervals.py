"""What every interval of the pairs report costs on Snow et al.'s RTE file (164 workers).

Run from the project root: ``python -m benchmarks.report_intervals``.

The RTE file (800 items, 164 workers, 10 labels per item: 1,254 pairs of
workers that share items) as the pairs report's vote matrix; the report's
arithmetic (agreement figures, the truth models, Dawid-Skene reliability)
timed as best of 5 (memory traced in a separate run) with its intervals (``stats/intervals.py``: every
pair's kappa, overlap, p+, p-, AC1; Fleiss' kappa bootstrap and analytic;
alpha; AC1; 1,000 resamples, seed 0) and with every interval replaced by a
constant. No database reads or rendering: those are the same either way.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings_test")
django.setup()

import numpy as np  # noqa: E402

import stats.intervals as intervals  # noqa: E402
from benchmarks._harness import measure, print_result  # noqa: E402
from kinds.pairs import report  # noqa: E402
from stats import labelmodels as lm  # noqa: E402

RTE = Path(__file__).resolve().parents[1] / "data" / "snow2008" / "rte.csv"


def rte_votes() -> report.Votes:
    rows = list(csv.DictReader(RTE.open(encoding="utf-8")))
    items = sorted({r["orig_id"] for r in rows}, key=int)
    workers = sorted({r["!amt_worker_ids"] for r in rows})
    item, worker = {x: i for i, x in enumerate(items)}, {x: i for i, x in enumerate(workers)}
    matrix = np.full((len(items), len(workers)), np.nan)
    for r in rows:
        matrix[item[r["orig_id"]], worker[r["!amt_worker_ids"]]] = float(r["response"])
    return report.Votes([(i, "c") for i in items], workers, matrix)


def main() -> None:
    v = rte_votes()
    settings = intervals.IntervalSettings()

    def build():
        fits = {model: lm.model_truth(v.matrix, model, 2) for model in lm.MODELS}
        figures = report._agreement(v, settings)
        lm.binary_reliability(v.matrix, v.assessors, fits["dawid-skene"])
        return figures

    with_intervals = measure(build, repeat=5, trace_memory=False)
    peak_mb = measure(build).peak_mb
    pairs = len(with_intervals.value["pairs"])
    none = intervals.no_ci(0.0, 0, "items")
    report.pair_intervals = lambda cells, *a, **k: [
        dict.fromkeys([*intervals.BINARY_FIGURES, "ac1"], none) for _ in cells
    ]
    intervals.IntervalSettings.interval = lambda self, *a, **k: none
    report.fleiss_kappa_interval = lambda *a, **k: intervals.Interval(0.0, 0.0, 0.0, units=0)
    without = measure(build, repeat=5, trace_memory=False)
    print(f"RTE: {len(v.items)} items, {len(v.assessors)} workers, {pairs} pairs sharing items")
    print(f"report arithmetic without intervals {without.seconds:.3f} s, with {with_intervals.seconds:.3f} s")
    print_result(
        "report_intervals",
        seconds=with_intervals.seconds,
        reference_seconds=without.seconds,
        peak_mb=peak_mb,
        added_seconds=round(with_intervals.seconds - without.seconds, 3),
    )


if __name__ == "__main__":
    main()
