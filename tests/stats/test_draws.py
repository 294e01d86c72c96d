"""stats.draws: the bootstrap over items counted by the items' distinct rows of labels draws
what the library's resample weights draw, numbers the rows as the dense matrix would, and
gives the library's intervals."""

from __future__ import annotations

import numpy as np
import pytest

from stats import draws
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


def _dense_row_codes(matrix: np.ndarray) -> np.ndarray:
    """The rows' numbers as the report numbered them from the dense matrix (before it went sparse)."""
    if not matrix.size:
        return np.zeros(len(matrix), np.int64)
    digits = np.where(np.isnan(matrix), 0, matrix + 1).astype(np.int64)
    chunks = [
        digits[:, start : start + 39] @ (3 ** np.arange(min(39, matrix.shape[1] - start), dtype=np.int64))
        for start in range(0, matrix.shape[1], 39)
    ]
    if len(chunks) == 1:
        _, rows = np.unique(chunks[0], return_inverse=True)
    else:
        _, rows = np.unique(np.column_stack(chunks), axis=0, return_inverse=True)
    return np.asarray(rows, dtype=np.int64).reshape(-1)


def _votes(n_items: int, n_assessors: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    matrix = (rng.random((n_items, n_assessors)) < 0.6).astype(float)
    matrix[rng.random((n_items, n_assessors)) < 0.3] = np.nan
    return matrix


@pytest.mark.parametrize("workers", [5, 39, 40, 130])
def test_the_items_rows_are_numbered_as_from_the_dense_matrix(workers):
    """The same numbers in the same order: the bootstrap's counts columns (and so its sums) do not move."""
    matrix = _crowd(300, workers, min(workers, 6), workers)
    matrix[:40] = matrix[40:80]  # rows that repeat
    found = draws.row_codes(SparseRatings.from_dense(matrix))
    assert found.tolist() == _dense_row_codes(matrix).tolist()
    assert found.max() < 300 - 30
    with pytest.raises(ValueError, match="label codes 0 to 1"):
        draws.row_codes(SparseRatings.from_dense([[2.0]]))


@pytest.mark.parametrize("block", [1 << 22, 500])
def test_the_draws_counted_by_row_are_the_library_s_resample_weights(monkeypatch, block):
    from stats import draws
    from stats.uncertainty import resample_weights

    monkeypatch.setattr(draws, "_BLOCK_CELLS", block)  # several blocks of draws: the same stream
    matrix = _votes(120, 4, 5)
    found = draws.ItemDraws(SparseRatings.from_dense(matrix), resamples=300, seed=0, unit="items")
    assert found.n_rows <= 3**4 < 120  # fewer distinct rows than items
    subset = ~np.isnan(matrix[:, 0])
    rows, counts = found.counts(subset)
    assert np.array_equal(np.unique(found.rows[subset], return_inverse=True)[1].ravel(), rows)
    weights = resample_weights(int(subset.sum()), n_resamples=300, seed=0)
    expected = np.stack([weights[:, rows == g].sum(axis=1) for g in range(int(rows.max()) + 1)], axis=1)
    assert np.array_equal(counts, expected)


def test_the_intervals_by_row_equal_the_library_bootstrap(monkeypatch):
    from stats import draws

    monkeypatch.setattr(draws, "_ROWS_FROM", 2)  # every pair counted by rows
    from stats.gwet import gwet_units
    from stats.intervals import binary_cells, binary_pair_statistics, pair_intervals
    from stats.uncertainty import krippendorff_alpha_units

    matrix = _votes(400, 5, 9)
    judged = ~np.isnan(matrix)
    found = draws.ItemDraws(SparseRatings.from_dense(matrix), resamples=500, seed=0, unit="items")
    subsets, cells = [], []
    for i in range(5):
        for j in range(i + 1, 5):
            shared = judged[:, i] & judged[:, j]
            subsets.append(shared)
            cells.append(binary_cells(matrix[shared, i] == 1, matrix[shared, j] == 1))
    ours = found.pair_intervals(subsets, cells, 4, binary_pair_statistics())
    theirs = pair_intervals(cells, 4, binary_pair_statistics(), "items", resamples=500, seed=0)
    assert ours == theirs  # whole-number cells: the same sums, bit for bit
    pairable = judged.sum(axis=1) >= 2
    for subset, stats in (
        (pairable, krippendorff_alpha_units(matrix[pairable].T, level="nominal")),
        (judged.any(axis=1), gwet_units(matrix[judged.any(axis=1)], categories=[0.0, 1.0])),
    ):
        mine, library = found.interval(subset, stats), stats.interval(n_resamples=500, seed=0)
        assert (mine.method, mine.units) == (library.method, library.units)
        assert [mine.value, mine.low, mine.high] == pytest.approx([library.value, library.low, library.high], abs=1e-12)


def _labels(n_items: int, n_raters: int, per_item: int, q: int, seed: int) -> SparseRatings:
    """Each item labelled 0 .. q - 1 by ``per_item`` distinct raters of ``n_raters`` (a crowd: the
    items' rows of labels all differ)."""
    rng = np.random.default_rng(seed)
    raters = np.stack([rng.choice(n_raters, per_item, replace=False) for _ in range(n_items)])
    truth = rng.integers(0, q, n_items)
    values = np.where(rng.random(raters.shape) < 0.7, truth[:, None], rng.integers(0, q, raters.shape))
    return SparseRatings.from_entries(
        np.repeat(np.arange(n_items), per_item), raters.ravel(), values.ravel(), n_items=n_items, n_raters=n_raters
    )


def test_figures_over_the_same_items_take_one_product_and_give_the_library_s_intervals():
    from stats.gwet import gwet_units
    from stats.ratingtables import rating_table_units
    from stats.stopping import MIN_UNITS
    from stats.uncertainty import mean_units

    ratings = _labels(300, 12, 4, 3, seed=5)
    rated = ratings.per_item > 0
    codes = np.arange(3)
    figures = [
        rating_table_units(ratings, "conger", categories=codes),  # sparse statistics, a product of its own
        gwet_units(ratings.packed(), categories=codes),
        rating_table_units(ratings, "specific_agreement", categories=codes, category=1),
        rating_table_units(ratings, "percent_agreement", categories=codes),
        mean_units(np.r_[np.full(298, np.nan), 0.5, 0.7]),  # 2 units: too few for an interval
    ]
    found = draws.ItemDraws(ratings, resamples=400, seed=0, unit="items", n_values=3).intervals(rated, figures)
    for mine, stats in zip(found, figures):
        library = stats.interval(n_resamples=400, seed=0)
        assert (mine.method, mine.units) == (("too few" if stats.units < MIN_UNITS else library.method), library.units)
        assert mine.value == pytest.approx(library.value, abs=1e-12)
        if stats.units >= MIN_UNITS:
            assert [mine.low, mine.high] == pytest.approx([library.low, library.high], abs=1e-12)


def test_sparse_statistics_are_never_laid_out_items_x_raters():
    """Conger's statistics are one-hot per rater and label; a crowd's items each take a row of
    their own, so dense they would be items x raters x labels (here 1,000 x 2,000 x 5: 80 MB)."""
    import tracemalloc

    from stats.ratingtables import rating_table_units

    ratings = _labels(1000, 2000, 10, 5, seed=6)
    stats = rating_table_units(ratings, "conger", categories=np.arange(5))
    found = draws.ItemDraws(ratings, resamples=50, seed=0, unit="items", n_values=5)
    found.counts(ratings.per_item > 0)  # the draws themselves (50 x 1,000 counts), outside the measure
    tracemalloc.start()
    try:
        mine = found.interval(ratings.per_item > 0, stats)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    library = stats.interval(n_resamples=50, seed=0)
    assert [mine.value, mine.low, mine.high] == pytest.approx([library.value, library.low, library.high], abs=1e-12)
    # the 50 resamples' sums over the 10,002 statistics are 4 MB; the dense statistics 80 MB
    assert peak < 20 * 2**20
