"""The pairs report reads its votes sparse (kinds/pairs/report.py and partials.py, stats/ratings.py):
every figure equals the one the library computes from the dense items x assessors matrix,
and the campaign's merge never lays a crowd out as that matrix."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest

from benchmarks.crowd_merge import crowd
from kinds.pairs import report as r
from kinds.pairs.partials import LIVE_PAIRS, merge
from stats import agreement, gwet
from stats import labelmodels as lm
from stats.intervals import IntervalSettings
from stats.ratings import SparseRatings


def _crowd(items: int, workers: int, per_item: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.random(items) < 0.4
    matrix = np.full((items, workers), np.nan)
    for item in range(items):
        who = rng.choice(workers, rng.integers(2, per_item + 1), replace=False)
        matrix[item, who] = np.where(rng.random(len(who)) < 0.8, truth[item], ~truth[item])
    matrix[rng.integers(0, items, 2)] = np.nan
    return matrix


@pytest.mark.parametrize("shape", [(400, 30, 8), (12, 4, 4), (90, 200, 6)], ids=["crowd", "topic", "wide"])
def test_every_agreement_figure_is_the_library_s_on_the_dense_matrix(shape):
    matrix = _crowd(*shape, seed=7)
    names = [f"w{k:03d}" for k in range(matrix.shape[1])]
    found = r.agreement_of(SparseRatings.from_dense(matrix), names, IntervalSettings(resamples=200))
    judged = ~np.isnan(matrix)
    raters = judged.sum(axis=1)
    assert (found["items"], found["items_judged"]) == (len(matrix), int((raters > 0).sum()))
    for k, row in enumerate(found["assessors"]):
        assert (row.judged, row.accepted) == (int(judged[:, k].sum()), int(np.nansum(matrix[:, k])))
        assert row.base_rate == float(np.nanmean(matrix[:, k])) if judged[:, k].any() else math.isnan(row.base_rate)
    listed = {p.assessors: p for p in found["pairs"]}
    shared_pairs = 0
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            shared = judged[:, i] & judged[:, j]
            if not shared.any():
                assert found["kappa_matrix"][i][j] is None
                continue
            shared_pairs += 1
            expected = agreement.pairwise_agreement(matrix[shared, i], matrix[shared, j])
            pair = listed[(names[i], names[j])]
            assert (pair.a, pair.b, pair.c, pair.d, pair.n) == (
                expected.a,
                expected.b,
                expected.c,
                expected.d,
                expected.n,
            )
            for figure in ("observed", "overlap", "positive", "negative", "kappa"):
                assert np.array_equal(getattr(pair, figure), getattr(expected, figure), equal_nan=True)
            assert np.array_equal(found["kappa_matrix"][i][j], expected.kappa, equal_nan=True)
            assert pair.kappa_ci.units == expected.n
            assert pair.kappa_ci.too_few == (expected.n < 30)
    assert len(found["pairs"]) == shared_pairs
    m = np.bincount(raters[raters >= 2]).argmax()
    table = agreement.category_counts(matrix[raters == m], categories=[0.0, 1.0])
    assert (found["fleiss"].kappa, found["fleiss"].raters) == (agreement.fleiss_kappa(table), m)
    assert found["alpha"].alpha == agreement.krippendorff_alpha(matrix[raters >= 2].T)
    assert found["alpha"].coders == int(judged[raters >= 2].any(axis=0).sum())
    ac1 = gwet.gwet_units(matrix[raters > 0], categories=[0.0, 1.0])
    assert found["ac1"].value == ac1.value and found["ac1"].units == ac1.units


def test_the_models_and_the_accuracy_table_read_the_sparse_votes_as_the_dense_matrix():
    matrix = _crowd(300, 25, 6, seed=3)
    votes = SparseRatings.from_dense(matrix)
    names = [f"w{k}" for k in range(25)]
    reference = np.where(np.random.default_rng(1).random(300) < 0.7, np.nan, 1.0)
    reference[::7] = 0.0
    fits = {}
    for model in lm.MODELS:
        mine, theirs = lm.model_truth(votes, model, 2), lm.model_truth(matrix, model, 2)
        assert np.array_equal(mine.labels, theirs.labels, equal_nan=True), model
        assert np.array_equal(mine.posterior, theirs.posterior, equal_nan=True), model
        fits[model] = mine.labels
    assert lm.binary_reliability(votes, names, lm.model_truth(votes, "dawid-skene", 2)) == lm.binary_reliability(
        matrix, names, lm.model_truth(matrix, "dawid-skene", 2)
    )
    mine = lm.reference_accuracy("gold", reference, votes, names, fits)
    theirs = lm.reference_accuracy("gold", reference, matrix, names, fits)
    assert repr(mine) == repr(theirs)  # NaN figures included
    assert mine.assessors[0].n > 0 and mine.ties > 0


def test_a_crowd_s_merge_never_holds_its_items_x_workers_matrix():
    """20,000 items x 1,000 workers, 10 votes an item: one dense float64 copy of the matrix is
    153 MB, and the dense merge held several (the matrix, its codes as int64, the figures'
    copies). The sparse merge (figures, intervals, the three models, the accuracy table) peaks
    below one copy: what it holds grows with the votes and the bootstrap's bounded blocks, not
    with items x workers (tracemalloc sees numpy's allocations)."""
    given, partials = crowd(20000, 1000)  # as benchmarks.crowd_merge times it
    given.campaign.params = {"resamples": 200}  # the bootstrap's blocks, bounded whatever the size, smaller
    dense_bytes = 20000 * 1000 * 8
    tracemalloc.start()
    try:
        report = merge(given, partials)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < dense_bytes, f"{peak / 2**20:.0f} MB"
    assert report.items == 20000 and report.fleiss.raters == 10 and report.fleiss.items == 20000
    assert report.references[0].items == 20000 and len(report.reliability) == 1000
    assert report.pair_count > LIVE_PAIRS == len(report.pairs)
