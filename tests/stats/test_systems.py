"""Tests for stats.systems: systems' precision, recall and F1 over a pool (Arehart, Wolf & Miller, section 2.4)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import precision_recall_fscore_support

from stats.systems import (
    precision_recall_f1,
    query_counts,
    scores_from_counts,
)


def test_query_counts_on_a_hand_made_pool():
    # Two queries; item 3's truth is unknown and counts for nothing.
    returned = [[1, 1, 0, 1, 0], [0, 1, 1, 0, 1]]
    truth = [1, 0, 1, np.nan, 1]
    queries = ["q2", "q2", "q1", "q1", "q1"]
    counts = query_counts(returned, truth, queries)
    # Queries in sorted label order: q1 (items 2, 3, 4), then q2 (items 0, 1).
    assert counts.tolist() == [
        [[0, 0, 2], [1, 1, 0]],
        [[2, 0, 0], [0, 1, 1]],
    ]


def test_precision_recall_f1_by_hand():
    # System returns items 0, 1, 3: tp = 2 (items 0, 3), fp = 1 (item 1), fn = 1 (item 4).
    scores = precision_recall_f1([1, 1, 0, 1, 0, 1], [1, 0, 0, 1, 1, np.nan])
    assert scores.precision == pytest.approx(2 / 3)
    assert scores.recall == pytest.approx(2 / 3)
    assert scores.f1 == pytest.approx(2 / 3)
    assert isinstance(scores.f1, float)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pooled_scores_match_sklearn_on_known_items(seed):
    rng = np.random.default_rng(seed)
    n_systems, n_sets, n_items = 4, 3, 120
    returned = rng.random((n_systems, n_items)) < 0.4
    truth = (rng.random((n_sets, n_items)) < 0.3).astype(float)
    truth[rng.random((n_sets, n_items)) < 0.1] = np.nan
    scores = precision_recall_f1(returned, truth)
    assert np.shape(scores.f1) == (n_sets, n_systems)
    for t in range(n_sets):
        known = ~np.isnan(truth[t])
        for s in range(n_systems):
            expected = precision_recall_fscore_support(
                truth[t, known], returned[s, known], average="binary", zero_division=0
            )
            assert (scores.precision[t, s], scores.recall[t, s], scores.f1[t, s]) == pytest.approx(expected[:3])


@pytest.mark.parametrize("seed", [3, 4])
def test_per_query_and_macro_scores_match_sklearn(seed):
    rng = np.random.default_rng(seed)
    n_items = 90
    queries = rng.integers(0, 6, n_items)
    returned = rng.random((2, n_items)) < 0.5
    truth = (rng.random(n_items) < 0.4).astype(float)
    per_query = precision_recall_f1(returned, truth, queries=queries, average=None)
    macro = precision_recall_f1(returned, truth, queries=queries, average="macro")
    for s in range(2):
        expected = [
            precision_recall_fscore_support(
                truth[queries == q], returned[s, queries == q], average="binary", zero_division=0
            )[2]
            for q in range(6)
        ]
        np.testing.assert_allclose(per_query.f1[s], expected)
        assert macro.f1[s] == pytest.approx(np.mean(expected))


def test_unknown_items_do_not_change_scores():
    rng = np.random.default_rng(9)
    returned = rng.random((3, 60)) < 0.5
    truth = (rng.random(60) < 0.5).astype(float)
    with_unknown = np.concatenate([truth, [np.nan] * 10])
    extended = np.concatenate([returned, rng.random((3, 10)) < 0.5], axis=1)
    np.testing.assert_allclose(precision_recall_f1(extended, with_unknown).f1, precision_recall_f1(returned, truth).f1)


def test_scores_are_invariant_to_item_order():
    rng = np.random.default_rng(10)
    returned = rng.random((3, 80)) < 0.5
    truth = (rng.random(80) < 0.5).astype(float)
    queries = rng.integers(0, 5, 80)
    order = rng.permutation(80)
    before = query_counts(returned, truth, queries)
    after = query_counts(returned[:, order], truth[order], queries[order])
    np.testing.assert_array_equal(before, after)


def test_zero_division_convention():
    # Nothing returned and no known match: every denominator is 0.
    assert scores_from_counts([0, 0, 0]).f1 == 0.0
    assert np.isnan(scores_from_counts([0, 0, 0], zero_division=np.nan).precision)
    assert scores_from_counts([0, 3, 2]).f1 == 0.0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: precision_recall_f1([[1, 0, 2]], [1, 0, 1]), "returned"),
        (lambda: precision_recall_f1([1, 0, 1], [1, 0]), "truth must cover"),
        (lambda: precision_recall_f1([1, 0, 1], [1, 0, 0.5]), "truth"),
        (lambda: precision_recall_f1([1, 0, 1], [1, 0, 1], average="macro"), "queries is required"),
        (lambda: precision_recall_f1([1, 0, 1], [1, 0, 1], average="weighted"), "average"),
        (lambda: query_counts([1, 0, 1], [1, 0, 1], [0, 1]), "queries"),
        (lambda: scores_from_counts([1, 2]), "counts"),
        (lambda: scores_from_counts([1, -1, 0]), "counts"),
    ],
)
def test_bad_scoring_input_names_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()
