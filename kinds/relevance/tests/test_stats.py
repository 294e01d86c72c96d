"""Tests for kinds.relevance.stats: worked examples, reference packages, invariants."""

from __future__ import annotations

import itertools

import krippendorff
import numpy as np
import pytest
from scipy.stats import kendalltau
from sklearn.metrics import cohen_kappa_score

from kinds.relevance.stats import (
    consensus_grades,
    grade_alpha,
    pairwise_kappa,
    ranking_stability,
    relevant_overlap,
)

# Degenerate inputs must give NaN quietly, never a numpy warning.
pytestmark = pytest.mark.filterwarnings("error")

NAN = np.nan
SEEDS = [0, 1, 2, 3]
SCALE = [0, 1, 2, 3]


def campaign(seed: int, *, assessors: int = 4, topics: int = 6, missing: float = 0.25):
    """Grades on the TREC 0-3 scale: a hidden grade, shifted and noised per assessor, some unjudged."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 30, topics)
    topic_index = rng.permutation(np.repeat(np.arange(topics), sizes))
    truth = rng.integers(0, 4, topic_index.size)
    shift = rng.integers(-1, 2, (assessors, 1))
    noise = rng.integers(-1, 2, (assessors, topic_index.size)) * (rng.random((assessors, topic_index.size)) < 0.3)
    grades = np.clip(truth + shift + noise, 0, 3).astype(float)
    grades[rng.random(grades.shape) < missing] = NAN
    return grades, topic_index


# --- kappa -----------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_equals_sklearn_on_the_documents_both_judged(seed, weights):
    grades, _ = campaign(seed)
    result = pairwise_kappa(grades, scale=SCALE)
    matrix = {None: result.unweighted, "linear": result.linear, "quadratic": result.quadratic}[weights]
    for a, b in itertools.combinations(range(len(grades)), 2):
        common = ~np.isnan(grades[a]) & ~np.isnan(grades[b])
        expected = cohen_kappa_score(grades[a, common], grades[b, common], labels=SCALE, weights=weights)
        assert matrix[a, b] == pytest.approx(expected, abs=1e-12)
        assert result.n_common[a, b] == common.sum()


def test_kappa_worked_example():
    # Confusion (0,0), (1,1), (1,2), (2,2) on the scale 0-2: 7/11, 5/7, 4/5 (see the docstring).
    result = pairwise_kappa([[0, 1, 1, 2], [0, 1, 2, 2]], scale=[0, 1, 2])
    assert result.unweighted[0, 1] == pytest.approx(7 / 11, abs=1e-15)
    assert result.linear[0, 1] == pytest.approx(5 / 7, abs=1e-15)
    assert result.quadratic[0, 1] == pytest.approx(4 / 5, abs=1e-15)


def test_kappa_weights_count_unused_grades_of_the_scale():
    # Grades 0 and 3 only: on the scale 0-3 they are three steps apart, on the used grades one.
    a, b = [0, 3, 3, 0, 3], [0, 3, 0, 0, 3]
    full = pairwise_kappa([a, b], scale=SCALE).linear[0, 1]
    assert full == pytest.approx(cohen_kappa_score(a, b, labels=SCALE, weights="linear"), abs=1e-12)
    assert pairwise_kappa([a, b]).linear[0, 1] == pytest.approx(cohen_kappa_score(a, b, weights="linear"), abs=1e-12)


def test_kappa_is_symmetric_and_perfect_on_identical_assessors():
    grades, _ = campaign(5)
    result = pairwise_kappa(grades, scale=SCALE)
    for matrix in (result.unweighted, result.linear, result.quadratic):
        np.testing.assert_array_equal(matrix, matrix.T)
        np.testing.assert_array_equal(np.diag(matrix), np.ones(len(grades)))
    twins = pairwise_kappa(np.vstack([grades[0], grades[0]]), scale=SCALE)
    assert twins.unweighted[0, 1] == twins.quadratic[0, 1] == 1.0


def test_kappa_permutes_with_the_assessors():
    grades, _ = campaign(6)
    order = [2, 0, 3, 1]
    permuted = pairwise_kappa(grades[order], scale=SCALE)
    original = pairwise_kappa(grades, scale=SCALE)
    np.testing.assert_allclose(permuted.quadratic, original.quadratic[np.ix_(order, order)], atol=1e-15)


def test_kappa_degenerate_pairs_are_nan():
    # Assessors 0 and 1 share no document; 2 and 3 both use grade 1 only (kappa 0/0).
    grades = [[1, 2, NAN, NAN], [NAN, NAN, 0, 3], [1, 1, 1, NAN], [1, 1, NAN, 1]]
    result = pairwise_kappa(grades, scale=SCALE)
    assert np.isnan(result.unweighted[0, 1]) and result.n_common[0, 1] == 0
    assert np.isnan(result.linear[2, 3]) and result.n_common[2, 3] == 2


@pytest.mark.parametrize(
    "grades, scale, message",
    [
        ([1, 2, 3], None, "grades must be 2-D"),
        ([[1, 2.5]], None, "grades must be non-negative whole numbers"),
        ([[1, -1]], None, "grades must be non-negative whole numbers"),
        ([[1, np.inf]], None, "grades must be non-negative whole numbers"),
        ([["a", "b"]], None, "grades must hold numbers"),
        ([[1, 3]], [0, 1, 2], r"grades holds values missing from scale: \[3.0\]"),
        ([[1, 2]], [1, 1, 2], "scale must not hold duplicates"),
    ],
)
def test_kappa_rejects_bad_input_naming_the_argument(grades, scale, message):
    with pytest.raises(ValueError, match=message):
        pairwise_kappa(grades, scale=scale)


# --- overlap -----------------------------------------------------------------


def naive_overlap(grades, topic_index, threshold, a, b, topic):
    both = [
        n
        for n in range(grades.shape[1])
        if topic_index[n] == topic and not np.isnan(grades[a, n]) and not np.isnan(grades[b, n])
    ]
    first = {n for n in both if grades[a, n] >= threshold}
    second = {n for n in both if grades[b, n] >= threshold}
    return len(first & second), len(first | second)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("threshold", [1, 2, 3])
def test_overlap_equals_set_arithmetic_per_topic_mean_and_pooled(seed, threshold):
    grades, topic_index = campaign(seed)
    result = relevant_overlap(grades, topic_index, threshold=threshold)
    n_topics = topic_index.max() + 1
    for a, b in itertools.product(range(len(grades)), repeat=2):
        counts = [naive_overlap(grades, topic_index, threshold, a, b, t) for t in range(n_topics)]
        per_topic = [i / u if u else NAN for i, u in counts]
        np.testing.assert_allclose(result.per_topic[:, a, b], per_topic, atol=1e-15)
        assert result.intersection[:, a, b].tolist() == [i for i, _ in counts]
        assert result.union[:, a, b].tolist() == [u for _, u in counts]
        defined = [v for v in per_topic if not np.isnan(v)]
        assert result.mean[a, b] == pytest.approx(np.mean(defined) if defined else NAN, nan_ok=True, abs=1e-15)
        pooled_union = sum(u for _, u in counts)
        expected_pooled = sum(i for i, _ in counts) / pooled_union if pooled_union else NAN
        assert result.pooled[a, b] == pytest.approx(expected_pooled, nan_ok=True, abs=1e-15)


def test_overlap_worked_example_mean_differs_from_pooled():
    # Topic 0: {d0, d1} vs {d0}: 1/2; topic 1: {d3} vs {}: 0/1. Mean 1/4, pooled 1/3.
    result = relevant_overlap([[2, 1, 0, 1, 0], [1, 0, 0, 0, 0]], [0, 0, 0, 1, 1])
    assert result.per_topic[:, 0, 1].tolist() == [0.5, 0.0]
    assert result.mean[0, 1] == 0.25
    assert result.pooled[0, 1] == pytest.approx(1 / 3, abs=1e-15)


def test_group_overlap_of_three_assessors_counts_documents_all_judged():
    # Topic 0 (d0-d3): d3 judged by two only, so left out; relevant sets among d0-d2:
    # {d0, d1}, {d0}, {d0, d2}: all three share d0, union {d0, d1, d2}: 1/3.
    # Topic 1 (d4, d5): {d4}, {d4}, {d4}: 1/1. Mean (1/3 + 1)/2 = 2/3; pooled 2/4.
    grades = [
        [3, 1, 0, 2, 2, 0],
        [2, 0, 0, NAN, 1, 0],
        [1, 0, 1, 3, 3, 0],
    ]
    result = relevant_overlap(grades, [0, 0, 0, 0, 1, 1])
    np.testing.assert_allclose(result.group_per_topic, [1 / 3, 1.0], atol=1e-15)
    assert result.group_mean == pytest.approx(2 / 3, abs=1e-15)
    assert result.group_pooled == 0.5


def test_overlap_is_symmetric_and_one_for_identical_assessors():
    grades, topic_index = campaign(7, missing=0.0)
    result = relevant_overlap(grades, topic_index)
    np.testing.assert_array_equal(result.per_topic, result.per_topic.transpose(0, 2, 1))
    twins = relevant_overlap(np.vstack([grades[0], grades[0]]), topic_index)
    defined = ~np.isnan(twins.per_topic[:, 0, 1])
    assert defined.any() and np.all(twins.per_topic[defined, 0, 1] == 1.0)
    assert twins.pooled[0, 1] == 1.0 and twins.group_pooled == 1.0


def test_overlap_degenerate_inputs_give_nan():
    # No relevant document anywhere; an extra empty topic (n_topics = 3).
    result = relevant_overlap([[0, 0, 0], [0, NAN, 0]], [0, 0, 1], n_topics=3)
    assert np.all(np.isnan(result.per_topic)) and np.all(np.isnan(result.mean)) and np.all(np.isnan(result.pooled))
    assert result.union.sum() == 0 and np.isnan(result.group_mean) and np.isnan(result.group_pooled)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"threshold": 0}, "threshold must be a positive finite number"),
        ({"threshold": "1"}, "threshold must be a number"),
        ({"topic_index": [0, 1]}, r"topic_index must be 1-D with one entry per document \(3\)"),
        ({"topic_index": [0, -1, 0]}, "topic_index must hold non-negative integers"),
        ({"topic_index": [0.0, 1.0, 0.0]}, "topic_index must hold non-negative integers"),
        ({"topic_index": [0, 2, 0], "n_topics": 2}, r"n_topics must be an integer >= 3"),
    ],
)
def test_overlap_rejects_bad_input_naming_the_argument(kwargs, message):
    with pytest.raises(ValueError, match=message):
        relevant_overlap([[1, 0, 2], [1, 1, 0]], **kwargs)


# --- alpha -----------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_alpha_equals_the_krippendorff_package(seed):
    grades, _ = campaign(seed, assessors=5)
    result = grade_alpha(grades)
    for level, value in (("ordinal", result.ordinal), ("interval", result.interval)):
        expected = krippendorff.alpha(reliability_data=grades, level_of_measurement=level)
        assert value == pytest.approx(expected, abs=1e-9)


def test_alpha_worked_example_and_perfect_agreement():
    result = grade_alpha([[0, 1, 2, 3], [0, 1, 3, 3]])
    assert result.interval == pytest.approx(88 / 95, abs=1e-12)
    assert result.ordinal == pytest.approx(71 / 78, abs=1e-12)
    perfect = grade_alpha([[0, 1, 2, NAN], [0, 1, 2, 3]])
    assert perfect.ordinal == perfect.interval == 1.0


def test_alpha_degenerate_inputs_give_nan():
    assert np.isnan(grade_alpha([[1, NAN], [NAN, 2]]).ordinal)  # no document judged twice
    assert np.isnan(grade_alpha([[2, 2], [2, 2]]).interval)  # one grade only


# --- consensus ---------------------------------------------------------------


def test_consensus_takes_the_lower_median_on_an_even_split():
    grades = [
        [1, 0, 1, 0, 3, NAN],
        [2, 3, 2, 1, NAN, NAN],
        [NAN, NAN, 2, 2, NAN, NAN],
        [NAN, NAN, 3, 3, NAN, NAN],
    ]
    # {1, 2} -> 1; {0, 3} -> 0; {1, 2, 2, 3} -> 2; {0, 1, 2, 3} -> 1; {3} -> 3; nobody -> NaN
    np.testing.assert_array_equal(consensus_grades(grades), [1, 0, 2, 1, 3, NAN])


@pytest.mark.parametrize("seed", SEEDS)
def test_consensus_is_relevant_exactly_when_a_strict_majority_says_so(seed):
    grades, _ = campaign(seed, assessors=4, missing=0.3)
    consensus = consensus_grades(grades)
    judged = ~np.isnan(grades)
    for threshold in (1, 2, 3):
        votes = np.sum(judged & (np.nan_to_num(grades, nan=-1) >= threshold), axis=0)
        majority = votes * 2 > judged.sum(axis=0)
        has = judged.any(axis=0)
        np.testing.assert_array_equal(consensus[has] >= threshold, majority[has])
    np.testing.assert_array_equal(np.isnan(consensus), ~judged.any(axis=0))


def test_consensus_min_assessors_and_bad_values():
    assert np.isnan(consensus_grades([[1, 2], [1, NAN]], min_assessors=2)).tolist() == [False, True]
    with pytest.raises(ValueError, match="min_assessors must be a positive integer"):
        consensus_grades([[1]], min_assessors=0)
    assert consensus_grades(np.zeros((0, 3))).shape == (3,)


# --- ranking stability ---------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_tau_matrix_and_swaps_equal_scipy_and_a_pair_count(seed):
    rng = np.random.default_rng(seed)
    base = rng.random(15)
    scores = base + rng.normal(0, 0.1, (5, 15))
    scores[1, :4] = scores[1, 4]  # ties
    scores = np.round(scores, 2)  # more ties
    result = ranking_stability(scores)
    for i, j in itertools.product(range(5), repeat=2):
        assert result.tau[i, j] == pytest.approx(kendalltau(scores[i], scores[j]).statistic, abs=1e-12)
        swapped = sum(
            (scores[i, x] - scores[i, y]) * (scores[j, x] - scores[j, y]) < 0
            for x, y in itertools.combinations(range(15), 2)
        )
        assert result.swaps[i, j] == swapped
    assert result.n_pairs == 105
    np.testing.assert_array_equal(result.tau, result.tau.T)
    assert np.all(np.diag(result.tau) == 1.0) and np.all(np.diag(result.swaps) == 0)


def test_tau_without_ties_is_one_minus_four_swaps_over_pairs():
    rng = np.random.default_rng(11)
    scores = np.array([rng.permutation(12) for _ in range(4)], dtype=float)
    result = ranking_stability(scores)
    np.testing.assert_allclose(result.tau, 1 - 4 * result.swaps / (12 * 11), atol=1e-15)


def test_tau_of_a_constant_ranking_is_nan_and_bad_scores_are_refused():
    result = ranking_stability([[0.5, 0.5, 0.5], [0.1, 0.2, 0.3]])
    assert np.isnan(result.tau[0, 1]) and result.swaps[0, 1] == 0
    with pytest.raises(ValueError, match="scores must be finite"):
        ranking_stability([[0.1, NAN]])
    with pytest.raises(ValueError, match="scores must be 2-D"):
        ranking_stability([0.1, 0.2])
