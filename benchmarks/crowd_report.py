"""Benchmark: the agreement part of a crowd campaign's report (pairs kind), every pair listed
against the ``LIVE_PAIRS`` with the most shared items (listing every pair, a rebuild of a
200-worker crowd campaign grows with the worker pairs, and so does the organiser's page).

A synthetic crowd: ``--items`` items, each judged match / no match by ``--per-item`` of
``--workers`` workers (80% agreeing with a hidden truth), as an RTE-like CSV would give.
Timed: ``kinds.pairs.report.agreement_of`` (the per-pair figures and intervals, the kappa
matrix, Fleiss, alpha, AC1), its report packed as Concord stores it (``scoring.fields.pack_stored``)
and read back (``unpack``), as every organiser page view does. The reference is the same code
listing every pair (``keep=None``, as the campaign report did before the cap); the kappa
matrix (every pair's kappa) must be equal in both (``unequal`` counts the cells that differ).

Run from the project root::

    python -m benchmarks.crowd_report [--items 2000] [--workers 200] [--per-item 10]
"""

from __future__ import annotations

import argparse
import math
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings_test")

import django  # noqa: E402

django.setup()

import msgspec  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks._harness import measure, print_result, print_table  # noqa: E402
from kinds.pairs import partials as pairs_partials  # noqa: E402
from kinds.pairs import report as pairs_report  # noqa: E402
from scoring.fields import pack_stored as pack  # noqa: E402
from scoring.fields import unpack_stored as unpack  # noqa: E402
from stats.intervals import IntervalSettings  # noqa: E402
from stats.ratings import SparseRatings  # noqa: E402


def crowd(items: int, workers: int, per_item: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    matrix = np.full((items, workers), np.nan)
    truth = rng.random(items) < 0.5
    for item in range(items):
        who = rng.choice(workers, per_item, replace=False)
        matrix[item, who] = np.where(rng.random(per_item) < 0.8, truth[item], ~truth[item])
    return matrix


def stored(fields: dict) -> bytes:
    """The fields as the report stores them: JSON-ready (NaN as null), packed."""
    ready = msgspec.json.decode(msgspec.json.encode(fields).replace(b"NaN", b"null"))
    return pack(ready)


def run(matrix: np.ndarray, names: list[str], keep: int | None, repeat: int):
    votes = SparseRatings.from_dense(matrix)
    # untraced: tracemalloc slows code that makes many small objects several times over
    timed = measure(
        lambda: pairs_report.agreement_of(votes, names, IntervalSettings(), keep=keep),
        repeat=repeat,
        trace_memory=False,
    )
    packed = stored(timed.value)
    read = measure(lambda: unpack(packed), repeat=repeat, trace_memory=False)
    return timed, packed, read


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=200)
    parser.add_argument("--per-item", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    matrix = crowd(args.items, args.workers, args.per_item)
    names = [f"W{k:04d}" for k in range(args.workers)]
    pairs_report.agreement_of(
        SparseRatings.from_dense(matrix[:50]), names, IntervalSettings()
    )  # imports and first calls
    before, before_packed, before_read = run(matrix, names, None, args.repeat)
    after, after_packed, after_read = run(matrix, names, pairs_partials.LIVE_PAIRS, args.repeat)
    votes = SparseRatings.from_dense(matrix)
    peak = measure(lambda: pairs_report.agreement_of(votes, names, IntervalSettings(), keep=pairs_partials.LIVE_PAIRS))
    unequal = sum(
        not (x == y or (x is None and y is None) or (isinstance(x, float) and math.isnan(x) and math.isnan(y)))
        for row, other in zip(before.value["kappa_matrix"], after.value["kappa_matrix"])
        for x, y in zip(row, other)
    )
    print_table(
        ["", "pairs listed", "compute s", "stored KB", "read s"],
        [
            [
                "every pair",
                len(before.value["pairs"]),
                f"{before.seconds:.2f}",
                len(before_packed) // 1024,
                f"{before_read.seconds:.3f}",
            ],
            [
                f"LIVE_PAIRS={pairs_partials.LIVE_PAIRS}",
                len(after.value["pairs"]),
                f"{after.seconds:.2f}",
                len(after_packed) // 1024,
                f"{after_read.seconds:.3f}",
            ],
        ],
    )
    print_result(
        "crowd_report",
        seconds=after.seconds,
        reference_seconds=before.seconds,
        peak_mb=peak.peak_mb,
        items=args.items,
        workers=args.workers,
        pair_count=after.value["pair_count"],
        stored_kb=len(after_packed) / 1024,
        reference_stored_kb=len(before_packed) / 1024,
        read_s=after_read.seconds,
        reference_read_s=before_read.seconds,
        unequal=unequal,
    )


if __name__ == "__main__":
    main()
