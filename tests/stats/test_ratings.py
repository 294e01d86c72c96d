"""Ratings held sparse (stats/ratings.py): every view of them equals the dense
array's, and every figure read from the packed view equals the figure of the dense array."""

from __future__ import annotations

import numpy as np
import pytest

from kinds.pairs import stats as truthsets
from stats import agreement, gwet, uncertainty
from stats.ratings import SparseRatings


def _crowd(items: int, raters: int, per_item: int, values: int, seed: int) -> np.ndarray:
    """Each item rated by ``per_item`` of ``raters`` (a crowd: most cells empty)."""
    rng = np.random.default_rng(seed)
    matrix = np.full((items, raters), np.nan)
    for item in range(items):
        who = rng.choice(raters, rng.integers(1, per_item + 1), replace=False)
        matrix[item, who] = rng.integers(0, values, len(who))
    matrix[rng.integers(0, items, 3)] = np.nan  # a few items nobody rated
    return matrix


@pytest.fixture(params=[(200, 40, 6, 2, 1), (150, 7, 7, 3, 2), (60, 120, 4, 2, 3)], ids=["crowd", "dense", "wide"])
def matrix(request):
    return _crowd(*request.param)


def test_the_entries_are_the_dense_array_s_and_come_back_to_it(matrix):
    ratings = SparseRatings.from_dense(matrix)
    assert np.array_equal(ratings.dense(), matrix, equal_nan=True)
    assert len(ratings.values) == np.count_nonzero(~np.isnan(matrix))
    key = ratings.items * matrix.shape[1] + ratings.raters
    assert (np.diff(key) > 0).all()  # sorted by item, then rater
    assert ratings.per_item.tolist() == (~np.isnan(matrix)).sum(axis=1).tolist()
    assert ratings.per_rater.tolist() == (~np.isnan(matrix)).sum(axis=0).tolist()
    assert np.array_equal(ratings.value_sums(), np.nansum(matrix, axis=0))
    for k in range(matrix.shape[1]):
        items, values = ratings.rater(k)
        column = matrix[:, k]
        assert items.tolist() == np.flatnonzero(~np.isnan(column)).tolist()
        assert values.tolist() == column[~np.isnan(column)].tolist()


def test_entries_in_any_order_are_sorted_and_a_second_rating_is_refused(matrix):
    ratings = SparseRatings.from_dense(matrix)
    order = np.random.default_rng(0).permutation(len(ratings.values))
    shuffled = SparseRatings.from_entries(
        ratings.items[order],
        ratings.raters[order],
        ratings.values[order],
        n_items=ratings.n_items,
        n_raters=ratings.n_raters,
    )
    assert np.array_equal(shuffled.dense(), matrix, equal_nan=True)
    assert shuffled.items.tolist() == ratings.items.tolist() and shuffled.raters.tolist() == ratings.raters.tolist()
    with pytest.raises(ValueError, match="two ratings from one rater"):
        SparseRatings.from_entries([0, 1, 0], [1, 0, 1], [1, 0, 0], n_items=2, n_raters=2)
    with pytest.raises(ValueError, match="raters must lie in 0 .. 1"):
        SparseRatings.from_entries([0], [2], [1], n_items=2, n_raters=2)
    with pytest.raises(ValueError, match="items must lie"):
        SparseRatings.from_entries([-1], [0], [1], n_items=2, n_raters=2)
    with pytest.raises(ValueError, match="finite"):
        SparseRatings.from_dense([[np.inf]])


def test_every_figure_of_the_items_counts_is_the_dense_array_s_from_the_packed_view(matrix):
    """The packed view is narrower (the most ratings an item has) and gives bit for bit the
    dense array's Fleiss, alpha, AC1 (values and per-unit statistics) and truth sets."""
    ratings = SparseRatings.from_dense(matrix)
    packed = ratings.packed()
    assert packed.shape == (len(matrix), ratings.per_item.max())
    values = np.unique(matrix[~np.isnan(matrix)])
    dense_counts = agreement.category_counts(matrix, categories=values).counts
    assert np.array_equal(agreement.category_counts(packed, categories=values).counts, dense_counts)
    pairable = ratings.per_item >= 2
    assert agreement.krippendorff_alpha(packed[pairable].T) == agreement.krippendorff_alpha(matrix[pairable].T)
    mine = uncertainty.krippendorff_alpha_units(packed[pairable].T)
    theirs = uncertainty.krippendorff_alpha_units(matrix[pairable].T)
    assert np.array_equal(mine.per_unit, theirs.per_unit) and mine.value == theirs.value
    rated = ratings.per_item > 0
    assert np.array_equal(
        gwet.gwet_units(packed[rated], categories=values).per_unit,
        gwet.gwet_units(matrix[rated], categories=values).per_unit,
    )
    most = np.bincount(ratings.per_item[ratings.per_item >= 2]).argmax()
    same = ratings.per_item == most
    mine = agreement.fleiss_kappa(agreement.category_counts(packed[same], categories=values))
    assert mine == agreement.fleiss_kappa(agreement.category_counts(matrix[same], categories=values))
    assert np.isfinite(mine)
    if len(values) == 2:
        for truth in (truthsets.consensus, truthsets.union, truthsets.intersection):
            assert np.array_equal(truth(packed), truth(matrix), equal_nan=True)
    assert np.array_equal(ratings.packed(same), packed[same], equal_nan=True)


def test_the_pair_confusions_of_the_sparse_ratings_are_those_of_the_dense_codes(matrix):
    ratings = SparseRatings.from_dense(matrix)
    codes = np.where(np.isnan(matrix), -1, matrix).T.astype(np.int64)
    q = int(np.nanmax(matrix)) + 1
    for same in (False, True):
        mine, theirs = (
            agreement.sparse_pair_confusions(ratings, q, same=same),
            agreement.pair_confusions(codes, q, same=same),
        )
        assert mine.first.tolist() == theirs.first.tolist() and mine.second.tolist() == theirs.second.tolist()
        assert np.array_equal(mine.confusion, theirs.confusion)
    with pytest.raises(ValueError, match="category positions 0 .. 0"):
        agreement.sparse_pair_confusions(ratings, 1)


def test_the_dense_product_for_a_few_items_counts_as_the_sparse_one(matrix, monkeypatch):
    ratings = SparseRatings.from_dense(matrix)
    q = int(np.nanmax(matrix)) + 1
    found = {}
    for route, cells in (("dense", 1 << 40), ("sparse", 0)):
        monkeypatch.setattr(agreement, "_SMALL_ONE_HOT", cells)
        found[route] = agreement.sparse_pair_confusions(ratings, q, same=True)
    assert found["dense"].first.tolist() == found["sparse"].first.tolist()
    assert found["dense"].second.tolist() == found["sparse"].second.tolist()
    assert np.array_equal(found["dense"].confusion, found["sparse"].confusion)
    assert found["dense"].confusion.sum() > 0


def test_a_pair_s_figures_from_its_table_are_pairwise_agreement_s():
    rng = np.random.default_rng(4)
    for _ in range(200):
        n = int(rng.integers(0, 12))
        a, b = rng.random(n) < rng.random(), rng.random(n) < rng.random()
        found = agreement.pairwise_agreement(a, b)
        table = agreement.pairwise_of_table(found.a, found.b, found.c, found.d)
        assert [getattr(table, f) for f in ("a", "b", "c", "d", "n")] == [found.a, found.b, found.c, found.d, n]
        for name in ("observed", "overlap", "positive", "negative", "kappa"):
            assert np.array_equal(getattr(table, name), getattr(found, name), equal_nan=True), name
    with pytest.raises(ValueError, match="non-negative"):
        agreement.pairwise_of_table(1, -1, 0, 0)
