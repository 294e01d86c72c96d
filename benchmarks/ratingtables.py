"""A rating table's figures at crowd scale (stats.ratingtables.rating_table) against irrCAC.

Run from the project root: ``python -m benchmarks.ratingtables [--reference-items N]``.

Data: 100,000 items, each labelled by 10 distinct raters drawn from 2,000
(1,000,000 ratings), 5 categories; each rater copies the item's true category
with probability 0.6, else guesses uniformly. Drawn with a fixed seed.

- Concord: ``rating_table`` on the ratings held sparse (``SparseRatings``),
  identity weights, with every pair of raters' confusion matrix and without;
  best of 3 runs, peak traced memory.
- irrCAC 0.4.4 (``irrCAC.raw.CAC``): its five coefficients (``bp``,
  ``conger``, ``fleiss``, ``gwet``, ``krippendorff``; percent agreement comes
  with each) on the items x raters data frame, which it needs dense. At
  100,000 x 2,000 that frame is 1.6 GB and its Conger loops over categories^2
  items x raters arrays, so irrCAC runs on the first ``--reference-items``
  items (default 2,000) with all 2,000 raters' columns, and Concord runs on
  the same items for the ratio. Every coefficient and standard error is
  checked equal to 1e-9.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

from benchmarks._harness import measure, print_result, print_table
from stats.ratings import SparseRatings
from stats.ratingtables import rating_table

SEED = 20260611
N_ITEMS = 100_000
N_RATERS = 2_000
PER_ITEM = 10
N_CATEGORIES = 5
REPEAT = 3
TOLERANCE = 1e-9


def crowd(rng: np.random.Generator, n_items: int) -> SparseRatings:
    """Each item's PER_ITEM distinct raters and their category positions."""
    raters = rng.integers(0, N_RATERS, (n_items, PER_ITEM))
    while True:  # redraw the rows that drew a rater twice (about 2% of them, fewer each round)
        ordered = np.sort(raters, axis=1)
        repeated = np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))
        if repeated.size == 0:
            break
        raters[repeated] = rng.integers(0, N_RATERS, (repeated.size, PER_ITEM))
    truth = rng.integers(0, N_CATEGORIES, n_items)
    guesses = rng.integers(0, N_CATEGORIES, (n_items, PER_ITEM))
    values = np.where(rng.random((n_items, PER_ITEM)) < 0.6, truth[:, None], guesses)
    items = np.repeat(np.arange(n_items), PER_ITEM)
    return SparseRatings.from_entries(items, raters.ravel(), values.ravel(), n_items=n_items, n_raters=N_RATERS)


def first_items(ratings: SparseRatings, n_items: int) -> SparseRatings:
    kept = ratings.items < n_items
    return SparseRatings(n_items, ratings.n_raters, ratings.items[kept], ratings.raters[kept], ratings.values[kept])


def irrcac_figures(ratings: SparseRatings) -> dict[str, dict]:
    import pandas as pd
    from irrCAC.raw import CAC

    frame = pd.DataFrame(ratings.dense())
    frame = frame.loc[:, frame.notna().any()]  # irrCAC divides by each rater's count: raters who rated here
    categories = list(np.arange(N_CATEGORIES, dtype=np.float64))
    cac = CAC(frame, categories=categories, digits=15)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {name: getattr(cac, name)()["est"] for name in ("bp", "conger", "fleiss", "gwet", "krippendorff")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference-items", type=int, default=2_000)
    parser.add_argument("--items", type=int, default=N_ITEMS)
    args = parser.parse_args()
    rng = np.random.default_rng(SEED)
    ratings = crowd(rng, args.items)
    categories = np.arange(N_CATEGORIES)

    full = measure(lambda: rating_table(ratings, categories=categories), repeat=REPEAT)
    bare = measure(lambda: rating_table(ratings, categories=categories, pairs=False), repeat=REPEAT)
    small = first_items(ratings, args.reference_items)
    ours = measure(lambda: rating_table(small, categories=categories), repeat=REPEAT)
    reference = measure(lambda: irrcac_figures(small), repeat=1)

    found = ours.value
    mine = {
        "bp": found.brennan_prediger,
        "conger": found.conger,
        "fleiss": found.fleiss,
        "gwet": found.gwet,
        "krippendorff": found.krippendorff,
    }
    difference = max(
        max(abs(mine[name].value - est["coefficient_value"]), abs(mine[name].se - est["se"]))
        for name, est in reference.value.items()
    )
    if difference > TOLERANCE:
        raise AssertionError(f"rating_table differs from irrCAC by {difference:.3g}")
    table = full.value
    print(
        f"{args.items:,} items x {PER_ITEM} ratings from {N_RATERS:,} raters, {N_CATEGORIES} categories: "
        f"{table.ratings:,} ratings, {len(table.pairs.first):,} pairs of raters sharing an item"
    )
    print_table(
        ["what", "items", "seconds", "peak MB"],
        [
            ["rating_table (with pairs)", args.items, full.seconds, full.peak_mb],
            ["rating_table (pairs=False)", args.items, bare.seconds, bare.peak_mb],
            ["rating_table (with pairs)", args.reference_items, ours.seconds, ours.peak_mb],
            [
                "irrCAC CAC: bp, conger, fleiss, gwet, krippendorff",
                args.reference_items,
                reference.seconds,
                reference.peak_mb,
            ],
        ],
    )
    print(f"largest difference from irrCAC (coefficients and SEs): {difference:.3g}")
    print_result(
        "ratingtables",
        seconds=ours.seconds,
        reference_seconds=reference.seconds,
        peak_mb=ours.peak_mb,
        reference_items=args.reference_items,
        full_items=args.items,
        full_seconds=full.seconds,
        full_peak_mb=full.peak_mb,
        full_no_pairs_seconds=bare.seconds,
        max_difference=difference,
    )


if __name__ == "__main__":
    main()
