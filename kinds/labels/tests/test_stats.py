"""The labels kind's own statistics (kinds/labels/stats.py): an item's consensus and median,
and the figures of a pair's confusion matrix, checked by hand and against scikit-learn's
``cohen_kappa_score`` (unweighted and with linear or quadratic weights)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from kinds.labels.stats import consensus, median, pair_cells, pair_statistics
from stats.gwet import agreement_weights
from stats.intervals import pair_intervals

nan = float("nan")


def same(found, expected) -> bool:
    return np.array_equal(np.asarray(found), np.asarray(expected, dtype=np.float64), equal_nan=True)


# -- consensus: the label given most, none on a tie ---------------------------------------------


def test_consensus_is_the_label_given_most_by_hand():
    packed = [
        [2, 2, 2, nan],  # unanimous
        [0, 1, 1, nan],  # 2 of 3
        [3, 0, 3, 0],  # a tie of two labels: none
        [0, 1, 2, nan],  # three labels once each: a tie
        [1, nan, nan, nan],  # one label: it
        [nan, nan, nan, nan],  # none
        [4, 4, 0, 0],  # a tie at the scale's ends: none
        [2, 4, 4, 1],  # the most, not the middle
    ]
    assert same(consensus(packed, 5), [2, 1, nan, nan, 1, nan, nan, 4])


def test_consensus_ignores_where_the_labels_sit_and_the_unused_labels():
    """Labels packed left or scattered across the row give the same consensus, and a scale
    with more labels than were used changes nothing."""
    rng = np.random.default_rng(3)
    packed = rng.integers(0, 4, (200, 6)).astype(np.float64)
    packed[rng.random(packed.shape) < 0.3] = nan
    expected = []
    for row in packed:
        given = row[~np.isnan(row)].astype(int)
        counts = np.bincount(given, minlength=4)
        top = np.flatnonzero(counts == counts.max())
        expected.append(float(top[0]) if len(given) and len(top) == 1 else nan)
    assert same(consensus(packed, 4), expected)
    shuffled = np.array([rng.permutation(row) for row in packed])
    assert same(consensus(shuffled, 4), expected)
    assert same(consensus(packed, 9), expected)


def test_median_is_the_lower_middle_label():
    packed = [
        [0, 0, 1, nan],  # 0 0 1: 0
        [3, 0, nan, nan],  # 0 3: the lower middle, 0
        [4, 1, 2, 3],  # 1 2 3 4: 2
        [2, nan, nan, nan],
        [nan, nan, nan, nan],
        [4, 4, 0, 1],  # 0 1 4 4: 1 (not the mode)
        [1, 3, 2, 2],  # 1 2 2 3: 2
    ]
    assert same(median(packed, 5), [0, 0, 2, 2, nan, 1, 2])


def test_median_is_numpys_lower_median_on_random_rows():
    rng = np.random.default_rng(5)
    packed = rng.integers(0, 7, (300, 5)).astype(np.float64)
    packed[rng.random(packed.shape) < 0.4] = nan
    expected = []
    for row in packed:
        given = np.sort(row[~np.isnan(row)])
        expected.append(given[(len(given) - 1) // 2] if len(given) else nan)
    assert same(median(packed, 7), expected)
    # the median of an odd count is numpy's median; every median is a label of the scale
    odd = (~np.isnan(packed)).sum(axis=1) % 2 == 1
    assert same(median(packed, 7)[odd], [np.median(r[~np.isnan(r)]) for r in packed[odd]])


@pytest.mark.parametrize("function", [consensus, median])
def test_codes_off_the_scale_or_a_wrong_shape_are_refused(function):
    with pytest.raises(ValueError, match="codes 0 to 2"):
        function([[0, 3]], 3)
    with pytest.raises(ValueError, match="codes 0 to 2"):
        function([[-1, 0]], 3)
    with pytest.raises(ValueError, match="items x labels"):
        function([0, 1], 3)
    with pytest.raises(ValueError, match="n_values"):
        function([[0]], 0)
    assert function(np.zeros((0, 3)), 2).shape == (0,)


@pytest.mark.parametrize("function", [consensus, median])
def test_items_without_a_label_packed_zero_wide_have_none(function):
    """A campaign nobody labelled (or where every label is "can't tell") packs its items zero
    labels wide."""
    assert same(function(np.zeros((3, 0)), 4), [nan, nan, nan])


# -- a pair's confusion matrix -------------------------------------------------------------------


def test_pair_cells_index_the_flattened_confusion_matrix():
    first, second = [0, 2, 1, 2, 2], [0, 1, 1, 2, 1]
    cells = pair_cells(first, second, 3)
    assert cells.tolist() == [0, 7, 4, 8, 7]
    table = np.bincount(cells, minlength=9).reshape(3, 3)
    assert table.tolist() == confusion_matrix(first, second, labels=[0, 1, 2]).tolist()
    with pytest.raises(ValueError, match="same length"):
        pair_cells([0, 1], [0], 3)


def test_pair_statistics_by_hand():
    """Cohen (1960, 1968) on the 3x3 table [[5, 1, 0], [1, 3, 1], [0, 0, 4]] (15 items):
    p_o = 12/15; margins rows (6, 5, 4), columns (6, 4, 5): p_e = (36 + 20 + 20)/225 = 76/225,
    kappa = (12/15 - 76/225) / (1 - 76/225) = 104/149. Quadratic weights on 3 labels are
    1, 3/4, 0: weighted p_o = (12 + 3/4 * 3)/15 = 0.95; p_e = sum w r c / 225 =
    (76 + 3/4 * (6*4 + 5*6 + 5*5 + 4*4))/225 = 147.25/225, kappa_w = (0.95 - 147.25/225) / (77.75/225)."""
    table = np.array([[5, 1, 0], [1, 3, 1], [0, 0, 4]], dtype=np.float64).ravel()
    figures = pair_statistics(agreement_weights([0, 1, 2], "quadratic"))
    assert float(figures["observed"](table)) == pytest.approx(12 / 15, abs=1e-15)
    assert float(figures["kappa"](table)) == pytest.approx(104 / 149, abs=1e-15)
    assert float(figures["weighted"](table)) == pytest.approx((0.95 - 147.25 / 225) / (77.75 / 225), abs=1e-15)
    # identity weights: the weighted kappa is Cohen's kappa
    plain = pair_statistics(np.eye(3))
    assert float(plain["weighted"](table)) == pytest.approx(104 / 149, abs=1e-15)


@pytest.mark.parametrize("weights", ["linear", "quadratic"])
@pytest.mark.parametrize("seed", range(5))
def test_pair_statistics_equal_scikit_learn(seed, weights):
    rng = np.random.default_rng(seed)
    q = 5
    truth = rng.integers(0, q, 60)
    first = np.where(rng.random(60) < 0.6, truth, rng.integers(0, q, 60))
    second = np.clip(truth + rng.integers(-1, 2, 60), 0, q - 1)
    table = np.bincount(pair_cells(first, second, q), minlength=q * q).astype(np.float64)
    figures = pair_statistics(agreement_weights(np.arange(q), weights))
    assert float(figures["observed"](table)) == pytest.approx(np.mean(first == second), abs=1e-12)
    assert float(figures["kappa"](table)) == pytest.approx(cohen_kappa_score(first, second), abs=1e-12)
    expected = cohen_kappa_score(first, second, weights=weights, labels=list(range(q)))
    assert float(figures["weighted"](table)) == pytest.approx(expected, abs=1e-12)


def test_pair_statistics_take_a_batch_of_tables_and_are_undefined_where_kappa_is():
    figures = pair_statistics(agreement_weights([0, 1, 2], "linear"))
    agreeing = np.diag([3.0, 0, 0]).ravel()  # both always said the first label: p_e = 1
    empty = np.zeros(9)
    mixed = np.array([[2, 1, 0], [0, 2, 1], [1, 0, 3]], dtype=np.float64).ravel()
    batch = np.stack([agreeing, empty, mixed])
    assert same(figures["observed"](batch), [1.0, nan, 7 / 10])
    kappas = figures["kappa"](batch)
    assert np.isnan(kappas[:2]).all()
    first, second = np.divmod(np.repeat(np.arange(9), mixed.astype(int)), 3)
    assert kappas[2] == pytest.approx(cohen_kappa_score(first, second), abs=1e-12)
    # resamples x pairs x cells, as the bootstrap hands them
    stacked = np.broadcast_to(batch, (4, 3, 9))
    assert same(figures["weighted"](stacked), np.broadcast_to(figures["weighted"](batch), (4, 3)))


def test_pair_statistics_bootstrap_through_the_shared_pair_intervals():
    """The statistics of summed one-hot cells are what stats.intervals.pair_intervals resamples:
    its interval brackets the figure, and its value is the figure."""
    rng = np.random.default_rng(1)
    first = rng.integers(0, 3, 80)
    second = np.where(rng.random(80) < 0.7, first, rng.integers(0, 3, 80))
    figures = pair_statistics(agreement_weights([0, 1, 2], "quadratic"))
    (found,) = pair_intervals([pair_cells(first, second, 3)], 9, figures, "items", resamples=300, seed=0)
    assert found["kappa"].value == pytest.approx(cohen_kappa_score(first, second), abs=1e-12)
    weighted = cohen_kappa_score(first, second, weights="quadratic")
    assert found["weighted"].value == pytest.approx(weighted, abs=1e-12)
    for figure in found.values():
        assert figure.method == "bootstrap" and figure.low <= figure.value <= figure.high and figure.units == 80
