"""A label kind's bootstrap over items, counted by the items' distinct rows of labels.

Every interval of the pairs and labels reports is the percentile bootstrap of
:func:`stats.uncertainty.bootstrap` (seed 0): resample ``b`` draws
the ``n`` units of a figure with replacement as
``default_rng(seed).integers(0, n, (resamples, n))`` and sums the drawn units'
statistics. A unit's statistics are a function of its row of labels (who said
which label; for pairs, who said match and who no match), and a campaign's
items take far fewer distinct rows than
there are items (10,000 topics x 4 candidates x 10 assessors: 40,000 items,
a few hundred rows). So the same draws are counted per distinct row
(``counts[b, g]``: how many of resample ``b``'s draws fell on items of row
``g``) and the resampled sums are ``counts @ row statistics``: the same
numbers as ``weights @ per-unit statistics`` (exactly where the statistics
are whole numbers, as the 2x2 cells; to rounding otherwise), for every
figure and every pair of assessors over the same items at the cost of one
pass over the draws, where the product with the per-unit statistics cost
resamples x units x statistics per figure. The draws themselves (resamples x
units random numbers) are what the interval is; they are drawn once per set
of units and shared by the figures over it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from scipy import sparse

from stats.intervals import FigureCI, Statistic, pair_intervals, too_few_ci
from stats.ratings import SparseRatings
from stats.stopping import MIN_UNITS
from stats.uncertainty import UnitStatistics

__all__ = ["ItemDraws", "row_codes"]

#: Draws held at once (resamples x units, int64): 32 MB.
_BLOCK_CELLS = 1 << 22
#: Counts kept for the next figure over the same items.
_KEPT = 3
#: Pairs sharing fewer items go through stats.intervals.pair_intervals (the same intervals): counting
#: by rows pays where many items share few rows, not for a pair of a many-assessor campaign.
_ROWS_FROM = 1000


class ItemDraws:
    """Seeded bootstrap draws of subsets of the items of labels (items x assessors, the
    label codes 0 .. ``n_values`` - 1, held sparse; pairs: 1 match, 0 no match), counted
    by the items' distinct rows."""

    def __init__(
        self,
        ratings: SparseRatings,
        *,
        resamples: int,
        seed: int,
        unit: str,
        level: float = 0.95,
        min_units: int = MIN_UNITS,
        n_values: int = 2,
    ):
        self.resamples, self.seed, self.unit, self.level = int(resamples), int(seed), unit, level
        self.min_units = int(min_units)  # fewer units: no interval (stats.intervals.too_few_ci)
        self.rows = row_codes(ratings, n_values)
        self.n_rows = int(self.rows.max()) + 1 if len(self.rows) else 0
        self._counts: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}

    def counts(self, subset: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(each item's place among the distinct rows of the items in ``subset``, a mask over
        the items; resamples x those rows: how many of each resample's draws of the items in
        ``subset``, in item order, fell on each row). The last few are kept (figures over the
        same items share them)."""
        key = np.packbits(subset).tobytes() + len(subset).to_bytes(8, "little")
        if key not in self._counts:
            _, rows = np.unique(self.rows[subset], return_inverse=True)
            rows = np.asarray(rows).reshape(-1)
            n, width = len(rows), int(rows.max()) + 1 if len(rows) else 0
            index = np.int32 if max(n, self.resamples * width) < 2**31 else np.int64
            drawn_rows = rows.astype(index)
            rng = np.random.default_rng(self.seed)
            block = max(1, _BLOCK_CELLS // max(n, 1))
            found = []
            for start in range(0, self.resamples, block):
                size = min(block, self.resamples - start)
                # the draws of stats.uncertainty.resample_weights, in the same order (numpy
                # draws a range below 2**32 from the same 32-bit stream whatever the integer type)
                drawn = drawn_rows[rng.integers(0, n, size=(size, n), dtype=index)]
                drawn += (np.arange(size, dtype=index) * width)[:, np.newaxis]
                counted = np.bincount(drawn.ravel(), minlength=size * width).reshape(size, width)
                # held as the smallest integers that fit: a crowd's items each have a row of their
                # own, and 1,000 resamples x 100,000 rows are 100 MB as bytes, 800 MB as floats
                found.append(counted.astype(np.uint8 if counted.max(initial=0) < 256 else np.uint32))
            if len(self._counts) >= _KEPT:
                self._counts.pop(next(iter(self._counts)))
            self._counts[key] = (rows, np.vstack(found))
        return self._counts[key]

    def interval(self, subset: np.ndarray, stats: UnitStatistics) -> FigureCI:
        """:func:`stats.uncertainty.bootstrap` of ``stats`` (per-unit statistics of
        the items in ``subset``, in item order), as ``IntervalSettings.interval`` stores it."""
        return self.intervals(subset, [stats])[0]

    def intervals(self, subset: np.ndarray, figures: Sequence[UnitStatistics]) -> list[FigureCI]:
        """:meth:`interval` of each of ``figures``, all over the items in ``subset``: their
        resampled sums from one product with the counts (those with sparse statistics, one
        each), not one product a figure: a crowd's items each take a row of their own, so the
        counts are resamples x items, and a product with them is the cost of an interval."""
        found: list[FigureCI | None] = [None] * len(figures)
        wanted: list[tuple[int, np.ndarray | sparse.csr_array, float, int]] = []
        for f, stats in enumerate(figures):
            if sparse.issparse(stats.per_unit):
                per_unit = sparse.csr_array(stats.per_unit, dtype=np.float64)
            else:
                per_unit = np.asarray(stats.per_unit, dtype=np.float64)
                if per_unit.ndim == 1:
                    per_unit = per_unit[:, np.newaxis]
            value = float(stats.statistic(np.asarray(per_unit.sum(axis=0)).ravel()))
            n, units = per_unit.shape[0], int(stats.units)
            if units < self.min_units:
                found[f] = too_few_ci(value, units, self.unit, self.level)
            elif not np.isfinite(value) or units < 2 or n < 2:
                found[f] = self._none(value, units)
            else:
                wanted.append((f, per_unit, value, units))
        if not wanted:
            return found  # type: ignore[return-value]
        rows, counts = self.counts(subset)
        dense: list[tuple[int, np.ndarray, float, int]] = []
        for f, per_unit, value, units in wanted:
            by_row = _by_row(per_unit, rows, counts.shape[1])
            if by_row is None:  # items of one row differ: the plain bootstrap
                interval = figures[f].interval(n_resamples=self.resamples, seed=self.seed, level=self.level)
                found[f] = self._figure(value, interval)
            elif sparse.issparse(by_row):
                found[f] = self._resampled(figures[f], _times(counts, by_row), value, units)
            else:
                dense.append((f, by_row, value, units))
        if dense:
            sums = _times(counts, np.hstack([by_row for _, by_row, _, _ in dense]))
            ends = np.cumsum([by_row.shape[1] for _, by_row, _, _ in dense])
            for (f, _, value, units), stop, width in zip(dense, ends, (b.shape[1] for _, b, _, _ in dense)):
                found[f] = self._resampled(figures[f], sums[:, stop - width : stop], value, units)
        return found  # type: ignore[return-value]

    def _resampled(self, stats: UnitStatistics, sums: np.ndarray, value: float, units: int) -> FigureCI:
        """The percentile interval of ``stats`` from its resampled sums (resamples x statistics)."""
        resampled = np.asarray(stats.statistic(sums), dtype=np.float64)
        finite = resampled[np.isfinite(resampled)]
        if finite.size == 0:
            return self._none(value, units)
        low, high = np.quantile(finite, [(1 - self.level) / 2, (1 + self.level) / 2])
        return FigureCI(
            value, float(low), float(high), units=units, unit=self.unit, method="bootstrap", level=self.level
        )

    def pair_intervals(
        self,
        subsets: Sequence[np.ndarray],
        cells: Sequence[np.ndarray],
        n_cells: int,
        statistics: Mapping[str, Statistic],
    ) -> list[dict[str, FigureCI]]:
        """:func:`stats.intervals.pair_intervals` of pairs of assessors: ``subsets[p]`` the
        items pair ``p`` shares (a mask), ``cells[p]`` the cell of each of them (0..n_cells-1)."""
        results: list[dict[str, FigureCI]] = [{} for _ in cells]
        groups: dict[bytes, list[int]] = {}
        for p, subset in enumerate(subsets):
            groups.setdefault(np.packbits(subset).tobytes(), []).append(p)
        # pairs sharing few items (many assessors, each on a few items): the library's batched pass
        few = [p for members in groups.values() for p in members if subsets[members[0]].sum() < _ROWS_FROM]
        if few:
            found = pair_intervals(
                [cells[p] for p in few],
                n_cells,
                statistics,
                self.unit,
                resamples=self.resamples,
                seed=self.seed,
                level=self.level,
                min_units=self.min_units,
            )
            for p, figures in zip(few, found):
                results[p] = figures
        q = ((1 - self.level) / 2, (1 + self.level) / 2)
        for members in groups.values():
            subset = subsets[members[0]]
            n = int(subset.sum())
            if n < _ROWS_FROM:
                continue
            codes = [np.asarray(cells[p], dtype=np.int64) for p in members]
            full = np.stack([np.bincount(c, minlength=n_cells) for c in codes]).astype(np.float64)  # pairs x cells
            resampled = None
            if n >= 2:
                rows, counts = self.counts(subset)
                one_hot = np.zeros((counts.shape[1], len(members) * n_cells))
                for column, c in enumerate(codes):
                    cell = np.full(counts.shape[1], -1)
                    cell[rows] = c
                    if not np.array_equal(cell[rows], c):  # never for the 2x2 cells of two voters' rows
                        raise ValueError("a pair's cells must be a function of the items' vote rows")
                    present = np.flatnonzero(cell >= 0)
                    one_hot[present, column * n_cells + cell[present]] = 1.0
                resampled = _times(counts, one_hot).reshape(self.resamples, len(members), n_cells)
            for name, statistic in statistics.items():
                values = np.asarray(statistic(full), dtype=np.float64)
                figures = None if resampled is None else np.asarray(statistic(resampled), dtype=np.float64)
                complete = None if figures is None else np.isfinite(figures).all(axis=0)
                # the columns without an undefined resample in one call: each column's np.quantile
                bounds = (
                    None if complete is None or not complete.any() else np.quantile(figures[:, complete], q, axis=0)
                )
                place = None if complete is None else np.cumsum(complete) - 1
                for column, p in enumerate(members):
                    value = float(values[column])
                    finite = None if figures is None else figures[:, column][np.isfinite(figures[:, column])]
                    if finite is None or not np.isfinite(value) or n < 2 or finite.size == 0:
                        results[p][name] = self._none(value, n)
                        continue
                    low, high = bounds[:, place[column]] if complete[column] else np.quantile(finite, q)
                    results[p][name] = FigureCI(
                        value, float(low), float(high), units=n, unit=self.unit, method="bootstrap", level=self.level
                    )
        return results

    def analytic(self, interval) -> FigureCI:
        """An analytic interval over these items as stored; too few below ``min_units`` (as a bootstrap)."""
        if interval.units < self.min_units:
            return too_few_ci(interval.value, interval.units, self.unit, self.level)
        return self._figure(float(interval.value), interval)

    def _none(self, value: float, units: int) -> FigureCI:
        nan = float("nan")
        return FigureCI(float(value), nan, nan, units=int(units), unit=self.unit, method="none", level=self.level)

    def _figure(self, value: float, interval) -> FigureCI:
        return FigureCI(
            value,
            float(interval.low),
            float(interval.high),
            units=int(interval.units),
            unit=self.unit,
            method=interval.method,
            level=float(interval.level),
        )


def _by_row(
    per_unit: np.ndarray | sparse.csr_array, rows: np.ndarray, n_rows: int
) -> np.ndarray | sparse.csr_array | None:
    """Each distinct row's statistics (``rows``: each item's row), None where two items of one
    row have different statistics. A sparse ``per_unit`` stays sparse: Conger's is one-hot per
    assessor and label, and a crowd's items take as many rows as there are items, so laid out
    dense it would be items x assessors x labels (100,000 x 2,000 x 5: 8 GB)."""
    if sparse.issparse(per_unit):
        one = np.zeros(n_rows, np.int64)
        one[rows] = np.arange(len(rows))  # an item of each row
        by_row = per_unit[one]
        return by_row if (by_row[rows] != per_unit).nnz == 0 else None
    by_row = np.zeros((n_rows, per_unit.shape[1]))
    by_row[rows] = per_unit
    return by_row if np.array_equal(by_row[rows], per_unit) else None


def _times(counts: np.ndarray, matrix: np.ndarray | sparse.csr_array) -> np.ndarray:
    """``counts @ matrix`` in float64, a block of resamples at a time (the counts are kept as
    small integers; as floats at once they would be eight times the memory); a sparse
    ``matrix`` costs its entries a resample."""
    rows = max(1, _BLOCK_CELLS // max(counts.shape[1], 1))
    if sparse.issparse(matrix):
        # statistics x rows, column by column (a row's few entries at a time): the resamples'
        # counts are read in row order, and the sums they add to stay in cache
        across = sparse.csr_array(matrix).T
        return np.concatenate(
            [
                np.asarray(across @ np.ascontiguousarray(counts[start : start + rows].T, dtype=np.float64)).T
                for start in range(0, len(counts), rows)
            ]
        )
    return np.concatenate(
        [counts[start : start + rows].astype(np.float64) @ matrix for start in range(0, len(counts), rows)]
    )


def row_codes(ratings: SparseRatings, n_values: int = 2) -> np.ndarray:
    """Each item's row number among the distinct rows of its labels (codes 0 .. ``n_values`` - 1,
    or none), in the order of the rows written as numbers in base ``n_values + 1`` (digit 0
    none, ``v + 1`` label ``v``; the last assessor of a chunk most significant, as many
    assessors to a chunk as fit an int64, chunks compared from the first; for pairs' votes,
    base 3 and 39 assessors a chunk): each item's number is summed from its own labels only,
    so it costs one pass over them and items x chunks integers, not items x assessors cells.

    >>> nan = float("nan")
    >>> row_codes(SparseRatings.from_dense([[0, 2], [0, 2], [1, nan], [nan, nan]]), 3).tolist()
    [2, 2, 1, 0]
    """
    if not ratings.n_raters:
        return np.zeros(ratings.n_items, np.int64)
    values = ratings.values
    if values.size and (not np.isin(values, np.arange(n_values)).all()):
        raise ValueError(f"ratings must be label codes 0 to {n_values - 1}")
    base = n_values + 1
    per_chunk = max(1, int(63 // np.log2(base)))
    n_chunks = -(-ratings.n_raters // per_chunk)
    chunk = ratings.raters // per_chunk
    digits = (values.astype(np.int64) + 1) * base ** (ratings.raters % per_chunk)
    numbers = np.zeros((ratings.n_items, n_chunks), np.int64)
    if digits.size:
        # the votes are sorted by item and assessor, so each (item, chunk) is one run of them
        key = ratings.items * n_chunks + chunk
        starts = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
        numbers.ravel()[key[starts]] = np.add.reduceat(digits, starts)
    if n_chunks == 1:
        _, rows = np.unique(numbers[:, 0], return_inverse=True)
    else:
        _, rows = np.unique(numbers, axis=0, return_inverse=True)
    return np.asarray(rows, dtype=np.int64).reshape(-1)
