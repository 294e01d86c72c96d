"""Tests for stats.agreement: published values, reference packages, invariants."""

from __future__ import annotations

import csv
import pathlib

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss_kappa

from stats import agreement
from stats.agreement import (
    CategoryCounts,
    PairwiseAgreement,
    category_counts,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    pairwise_agreement,
)

# Degenerate inputs must return NaN quietly: a numpy RuntimeWarning fails any test here,
# and the degenerate-input tests fail on any warning at all.
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")
quietly = pytest.mark.filterwarnings("error")

NAN = np.nan
LEVELS = ["nominal", "ordinal", "interval", "ratio"]
SEEDS = [0, 1, 2, 3, 4]

# Fleiss (1971) "Measuring nominal scale agreement among many raters", Table 1:
# 30 patients, 6 psychiatrists each, 5 diagnoses (1 depression, 2 personality
# disorder, 3 schizophrenia, 4 neurosis, 5 other), in raw form as typed in
# statsmodels/stats/tests/test_inter_rater.py (`diagnoses`, the R irr data set).
# Fleiss reports kappa = .430; R `irr::kappam.fleiss(diagnoses)` gives 0.4302445.
FLEISS_1971_DIAGNOSES = np.array(
    [
        [4, 4, 4, 4, 4, 4],
        [2, 2, 2, 5, 5, 5],
        [2, 3, 3, 3, 3, 5],
        [5, 5, 5, 5, 5, 5],
        [2, 2, 2, 4, 4, 4],
        [1, 1, 3, 3, 3, 3],
        [3, 3, 3, 3, 5, 5],
        [1, 1, 3, 3, 3, 4],
        [1, 1, 4, 4, 4, 4],
        [5, 5, 5, 5, 5, 5],
        [1, 4, 4, 4, 4, 4],
        [1, 2, 4, 4, 4, 4],
        [2, 2, 2, 3, 3, 3],
        [1, 4, 4, 4, 4, 4],
        [2, 2, 4, 4, 4, 5],
        [3, 3, 3, 3, 3, 5],
        [1, 1, 1, 4, 5, 5],
        [1, 1, 1, 1, 1, 2],
        [2, 2, 4, 4, 4, 4],
        [1, 3, 3, 5, 5, 5],
        [5, 5, 5, 5, 5, 5],
        [2, 4, 4, 4, 4, 4],
        [2, 2, 4, 5, 5, 5],
        [1, 1, 4, 4, 4, 4],
        [1, 4, 4, 4, 4, 5],
        [2, 2, 2, 2, 2, 4],
        [1, 1, 1, 1, 5, 5],
        [2, 2, 4, 4, 4, 4],
        [1, 3, 3, 3, 3, 3],
        [5, 5, 5, 5, 5, 5],
    ]
)

# Krippendorff (2011) "Computing Krippendorff's Alpha-Reliability", section C
# ("Nominal data, any number of observers, missing data"): observers A-D
# (rows) x units 1-12, '*' = missing. Published: alpha nominal = 0.743; section
# D, same data: ordinal 0.815, interval 0.849, ratio 0.797 (the ratio figure as
# confirmed by the krippendorff package's own doctest on these data).
KRIPPENDORFF_2011_C = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ]
)


def test_fleiss_1971_diagnoses_published_kappa() -> None:
    counts, categories = category_counts(FLEISS_1971_DIAGNOSES)
    # Column sums as asserted in statsmodels' test_aggregate_raters.
    np.testing.assert_array_equal(counts.sum(axis=0), [26, 26, 30, 55, 43])
    np.testing.assert_array_equal(categories, [1, 2, 3, 4, 5])
    kappa = fleiss_kappa(counts)
    assert round(kappa, 3) == 0.430
    assert kappa == pytest.approx(0.4302445, abs=5e-8)


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_2011_section_c_published_alpha(level: str, published: float) -> None:
    alpha = krippendorff_alpha(KRIPPENDORFF_2011_C, level=level)
    assert round(alpha, 3) == published
    assert alpha == pytest.approx(krippendorff.alpha(KRIPPENDORFF_2011_C, level_of_measurement=level), abs=1e-12)


def test_krippendorff_2011_section_a_binary_two_observers() -> None:
    # Section A: alpha = 1 - (n - 1) o_01 / (n_0 n_1) = 1 - 19 * 4 / (14 * 6) = 0.095.
    data = [[0, 1, 0, 0, 0, 0, 0, 0, 1, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]]
    assert krippendorff_alpha(data) == pytest.approx(1 - 19 * 4 / (14 * 6), abs=1e-15)


def test_krippendorff_2011_section_b_nominal_two_observers() -> None:
    # Section B: 2 observers x 12 units, no missing data; published alpha = 0.692.
    data = [[1, 1, 2, 2, 4, 3, 3, 3, 5, 4, 4, 1], [2, 1, 2, 2, 2, 3, 3, 3, 5, 4, 4, 4]]
    assert round(krippendorff_alpha(data), 3) == 0.692


def test_cohen_kappa_sklearn_docstring_example() -> None:
    # sklearn.metrics.cohen_kappa_score docstring: 0.6875.
    first = ["negative", "positive", "negative", "neutral", "positive"]
    second = ["negative", "positive", "negative", "neutral", "negative"]
    assert cohen_kappa(first, second) == 0.6875


# --- against the reference packages -------------------------------------------


def _correlated_labels(rng: np.random.Generator, n_items: int, n_categories: int) -> tuple[np.ndarray, np.ndarray]:
    first = rng.integers(0, n_categories, n_items)
    second = np.where(rng.random(n_items) < 0.6, first, rng.integers(0, n_categories, n_items))
    return first, second


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
@pytest.mark.parametrize("labels", [None, [4, 2, 0, 1, 3, 5], [3, 1, 0]])
def test_cohen_kappa_matches_sklearn(seed: int, weights: str | None, labels: list[int] | None) -> None:
    first, second = _correlated_labels(np.random.default_rng(seed), 60, 5)
    expected = cohen_kappa_score(first, second, weights=weights, labels=labels)
    assert cohen_kappa(first, second, weights=weights, labels=labels) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_cohen_kappa_matches_sklearn_on_strings_with_labels(seed: int) -> None:
    names = np.array(["bad", "fair", "good", "great"])
    first, second = _correlated_labels(np.random.default_rng(seed), 40, 4)
    order = ["great", "good", "fair", "bad"]
    for weights in (None, "linear", "quadratic"):
        expected = cohen_kappa_score(names[first], names[second], weights=weights, labels=order)
        got = cohen_kappa(names[first], names[second], weights=weights, labels=order)
        assert got == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("n_items", "n_raters", "n_categories"), [(40, 3, 2), (25, 7, 5), (60, 4, 9)])
def test_fleiss_kappa_matches_statsmodels(seed: int, n_items: int, n_raters: int, n_categories: int) -> None:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_categories, (n_items, 1))
    guesses = rng.integers(0, n_categories, (n_items, n_raters))
    ratings = np.where(rng.random((n_items, n_raters)) < 0.5, truth, guesses)
    table, _ = aggregate_raters(ratings)
    np.testing.assert_array_equal(category_counts(ratings).counts, table)
    assert fleiss_kappa(category_counts(ratings)) == pytest.approx(statsmodels_fleiss_kappa(table), abs=1e-12)


def _reliability_data(rng: np.random.Generator, n_coders: int, n_units: int, values: np.ndarray) -> np.ndarray:
    truth = rng.choice(values, n_units)
    guesses = rng.choice(values, (n_coders, n_units))
    data = np.where(rng.random((n_coders, n_units)) < 0.6, truth, guesses).astype(float)
    data[rng.random(data.shape) < 0.3] = NAN
    return data


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    "values",
    [np.arange(1, 6), np.array([0, 3, 4, 10, 11, 40]), np.round(np.linspace(0.5, 9.5, 17), 2)],
    ids=["1-5", "gapped-integers", "fractions"],
)
def test_krippendorff_alpha_matches_package(seed: int, level: str, values: np.ndarray) -> None:
    data = _reliability_data(np.random.default_rng(seed), 6, 50, values)
    expected = krippendorff.alpha(data, level_of_measurement=level)
    assert krippendorff_alpha(data, level=level) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("level", LEVELS)
def test_krippendorff_alpha_sparse_and_blockwise_paths_match_package(
    level: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Large data switch to a sparse unit count matrix and to blockwise sums;
    # force both on small data so the package can check them.
    data = _reliability_data(np.random.default_rng(7), 5, 80, np.round(np.linspace(0.1, 20.0, 40), 1))
    expected = krippendorff.alpha(data, level_of_measurement=level)
    monkeypatch.setattr(agreement, "_MAX_DENSE_CELLS", 0)
    monkeypatch.setattr(agreement, "_BLOCK_CELLS", 7)
    assert krippendorff_alpha(data, level=level) == pytest.approx(expected, abs=1e-12)


def _rte_worker_by_pair() -> tuple[np.ndarray, np.ndarray]:
    """Snow et al. (2008) RTE: workers x pairs (NaN = not judged), and pairs x their 10 labels."""
    with open(
        pathlib.Path(__file__).resolve().parents[2] / "data" / "snow2008" / "rte.csv", newline="", encoding="utf-8"
    ) as handle:
        rows = [(row["!amt_worker_ids"], row["orig_id"], int(row["response"])) for row in csv.DictReader(handle)]
    workers, worker_index = np.unique([row[0] for row in rows], return_inverse=True)
    pairs, pair_index = np.unique([row[1] for row in rows], return_inverse=True)
    responses = np.array([row[2] for row in rows], dtype=float)
    matrix = np.full((len(workers), len(pairs)), NAN)
    matrix[worker_index, pair_index] = responses
    per_pair = np.sort(np.where(np.isnan(matrix), np.inf, matrix).T, axis=1)[:, :10]
    return matrix, per_pair


def test_rte_crowd_labels_match_references() -> None:
    matrix, per_pair = _rte_worker_by_pair()
    assert matrix.shape == (164, 800)
    assert np.all(np.sum(~np.isnan(matrix), axis=0) == 10)
    alpha = krippendorff_alpha(matrix)
    assert alpha == pytest.approx(krippendorff.alpha(matrix, level_of_measurement="nominal"), abs=1e-12)
    # Fleiss from the sparse worker x pair matrix: every pair has 10 labels.
    counts = category_counts(matrix.T)
    table, _ = aggregate_raters(per_pair)
    np.testing.assert_array_equal(counts.counts, table)
    assert fleiss_kappa(counts) == pytest.approx(statsmodels_fleiss_kappa(table), abs=1e-12)
    # Krippendorff's alpha tends to Fleiss' kappa as the number of values grows (8000 here).
    assert alpha == pytest.approx(fleiss_kappa(counts), abs=2e-3)


# --- pairwise agreement ----------------------------------------------------------


def test_pairwise_agreement_hand_computed() -> None:
    # a = 3 (both), b = 2 (first only), c = 1 (second only), d = 4 (neither), n = 10.
    first = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
    second = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    result = pairwise_agreement(first, second)
    assert (result.a, result.b, result.c, result.d, result.n) == (3, 2, 1, 4, 10)
    assert result.observed == pytest.approx(7 / 10)
    assert result.overlap == pytest.approx(3 / 6)  # a / (a + b + c)
    assert result.positive == pytest.approx(6 / 9)  # 2a / (2a + b + c)
    assert result.negative == pytest.approx(8 / 11)  # 2d / (2d + b + c)
    # p_o = .7, p_e = (.5 * .4) + (.5 * .6) = .5, kappa = (.7 - .5) / (1 - .5) = .4
    assert result.kappa == pytest.approx(0.4)
    assert result.kappa == pytest.approx(cohen_kappa(first, second), abs=1e-12)


def test_pairwise_agreement_accepts_bool_and_is_frozen() -> None:
    result = pairwise_agreement(np.array([True, False, True]), [1.0, 0.0, 0.0])
    assert (result.a, result.b, result.c, result.d) == (1, 1, 0, 1)
    with pytest.raises(AttributeError):
        result.a = 5  # type: ignore[misc]


@pytest.mark.parametrize("seed", SEEDS)
def test_pairwise_agreement_symmetry_and_kappa(seed: int) -> None:
    rng = np.random.default_rng(seed)
    first = rng.random(200) < 0.3
    second = np.where(rng.random(200) < 0.7, first, rng.random(200) < 0.3)
    forward = pairwise_agreement(first, second)
    backward = pairwise_agreement(second, first)
    assert (forward.a, forward.b, forward.c, forward.d) == (backward.a, backward.c, backward.b, backward.d)
    for figure in ("observed", "overlap", "positive", "negative", "kappa"):
        assert getattr(forward, figure) == pytest.approx(getattr(backward, figure), abs=1e-15)
    assert forward.kappa == pytest.approx(cohen_kappa_score(first, second), abs=1e-12)
    # Swapping positive and negative swaps the specific agreements.
    flipped = pairwise_agreement(~first, ~second)
    assert flipped.positive == pytest.approx(forward.negative)
    assert flipped.kappa == pytest.approx(forward.kappa)


def test_pairwise_agreement_perfect() -> None:
    result = pairwise_agreement([1, 0, 1, 0], [1, 0, 1, 0])
    assert (result.observed, result.overlap, result.positive, result.negative, result.kappa) == (1, 1, 1, 1, 1)


@quietly
def test_pairwise_agreement_degenerate_is_nan() -> None:
    empty = pairwise_agreement([], [])
    assert (empty.a, empty.b, empty.c, empty.d, empty.n) == (0, 0, 0, 0, 0)
    assert all(np.isnan([empty.observed, empty.overlap, empty.positive, empty.negative, empty.kappa]))
    negatives = pairwise_agreement([0, 0, 0], [0, 0, 0])
    assert np.isnan(negatives.overlap) and np.isnan(negatives.positive) and np.isnan(negatives.kappa)
    assert negatives.negative == 1.0 and negatives.observed == 1.0
    positives = pairwise_agreement([1, 1], [1, 1])
    assert np.isnan(positives.negative) and positives.positive == 1.0


# --- invariants -------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_kappa_is_symmetric(seed: int, weights: str | None) -> None:
    first, second = _correlated_labels(np.random.default_rng(seed), 50, 4)
    assert cohen_kappa(first, second, weights=weights) == pytest.approx(
        cohen_kappa(second, first, weights=weights), abs=1e-15
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_nominal_measures_ignore_label_names(seed: int) -> None:
    rng = np.random.default_rng(seed)
    first, second = _correlated_labels(rng, 50, 4)
    renamed = np.array(["d", "b", "a", "c"])  # a permutation of the sorted order
    assert cohen_kappa(renamed[first], renamed[second]) == pytest.approx(cohen_kappa(first, second), abs=1e-15)
    ratings = np.stack([first, second, rng.integers(0, 4, 50)], axis=1)
    assert fleiss_kappa(category_counts(renamed[ratings])) == pytest.approx(
        fleiss_kappa(category_counts(ratings)), abs=1e-15
    )
    data = _reliability_data(rng, 5, 40, np.arange(4))
    relabelled = np.where(np.isnan(data), NAN, np.array([7.0, 2.0, 9.0, 0.0])[np.nan_to_num(data).astype(int)])
    assert krippendorff_alpha(relabelled) == pytest.approx(krippendorff_alpha(data), abs=1e-15)


@pytest.mark.parametrize("level", LEVELS)
def test_krippendorff_alpha_ignores_coder_and_unit_order(level: str) -> None:
    rng = np.random.default_rng(11)
    data = _reliability_data(rng, 6, 40, np.arange(1, 8))
    shuffled = data[rng.permutation(6)][:, rng.permutation(40)]
    expected = krippendorff_alpha(data, level=level)
    assert krippendorff_alpha(shuffled, level=level) == pytest.approx(expected, abs=1e-14)


def test_interval_alpha_is_affine_invariant_and_ratio_scale_invariant() -> None:
    data = _reliability_data(np.random.default_rng(5), 4, 30, np.arange(1, 10))
    interval = krippendorff_alpha(data, level="interval")
    assert krippendorff_alpha(3 * data - 11, level="interval") == pytest.approx(interval, abs=1e-12)
    assert krippendorff_alpha(2.5 * data, level="ratio") == pytest.approx(krippendorff_alpha(data, level="ratio"))


def test_missing_values_as_none_or_nan_and_strings() -> None:
    with_none = np.array(KRIPPENDORFF_2011_C, dtype=object)
    with_none[np.isnan(KRIPPENDORFF_2011_C)] = None
    for level in LEVELS:
        assert krippendorff_alpha(with_none, level=level) == krippendorff_alpha(KRIPPENDORFF_2011_C, level=level)
    names = np.array(["", "one", "two", "three", "four", "five"], dtype=object)
    as_strings = np.where(np.isnan(KRIPPENDORFF_2011_C), None, names[np.nan_to_num(KRIPPENDORFF_2011_C).astype(int)])
    assert krippendorff_alpha(as_strings) == pytest.approx(krippendorff_alpha(KRIPPENDORFF_2011_C), abs=1e-15)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_perfect_agreement_is_one(weights: str | None) -> None:
    labels = [3, 1, 2, 2, 5, 1]
    assert cohen_kappa(labels, labels, weights=weights) == 1.0
    ratings = np.repeat(np.array(labels)[:, np.newaxis], 4, axis=1)
    assert fleiss_kappa(category_counts(ratings)) == 1.0
    data = np.array([labels, labels, [3, NAN, 2, 2, NAN, 1]], dtype=float)
    for level in LEVELS:
        assert krippendorff_alpha(data, level=level) == 1.0


def test_category_counts_with_given_categories_and_missing() -> None:
    ratings = [["b", "a", None], ["c", "c", "c"], [None, None, "a"]]
    result = category_counts(ratings, categories=["c", "b", "a", "z"])
    assert isinstance(result, CategoryCounts)
    np.testing.assert_array_equal(result.counts, [[0, 1, 1, 0], [3, 0, 0, 0], [0, 0, 1, 0]])
    assert result.categories.tolist() == ["c", "b", "a", "z"]
    counts, categories = category_counts([[1.0, NAN], [2.0, 1.0]])
    np.testing.assert_array_equal(counts, [[1, 0], [1, 1]])
    np.testing.assert_array_equal(categories, [1.0, 2.0])


def test_cohen_kappa_labels_restrict_items() -> None:
    # Items where either rater used a label outside `labels` are left out, as in sklearn.
    first = [0, 1, 2, 2, 1, 0]
    second = [0, 1, 1, 2, 2, 0]
    # Kept: items 1, 2 and 6, on which the raters agree; the other three fall outside.
    assert cohen_kappa(first, second, labels=[0, 1]) == 1.0
    assert cohen_kappa_score(first, second, labels=[0, 1]) == 1.0
    assert cohen_kappa(first, second) == pytest.approx(cohen_kappa_score(first, second), abs=1e-15)
    assert cohen_kappa(first, second) < 1.0


# --- degenerate inputs: NaN, no warning -------------------------------------------------


@quietly
@pytest.mark.parametrize(
    ("first", "second", "labels"),
    [
        ([], [], None),  # nothing to count
        ([2, 2, 2], [2, 2, 2], None),  # one category: expected agreement 1
        ([1, 2], [1, 2], [7, 8]),  # no item inside labels
    ],
)
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_kappa_degenerate_is_nan(first: list, second: list, labels: list | None, weights: str | None) -> None:
    assert np.isnan(cohen_kappa(first, second, weights=weights, labels=labels))


@quietly
@pytest.mark.parametrize(
    "counts",
    [
        np.zeros((0, 3)),  # no items
        np.zeros((3, 0)),  # no categories
        [[4, 0], [4, 0]],  # every rating in one category
        [[1, 0], [0, 1]],  # one rater per item
        [[0, 0], [0, 0]],  # no raters
    ],
)
def test_fleiss_kappa_degenerate_is_nan(counts: object) -> None:
    assert np.isnan(fleiss_kappa(counts))


@quietly
@pytest.mark.parametrize(
    "data",
    [
        [[1, 1, 1], [1, 1, 1]],  # one value: no expected disagreement
        [[1, NAN, 2], [NAN, 3, NAN]],  # no unit has two values
        [[NAN, NAN], [NAN, NAN]],  # all missing
        np.zeros((3, 0)),  # no units
        np.zeros((0, 4)),  # no coders
    ],
)
@pytest.mark.parametrize("level", LEVELS)
def test_krippendorff_alpha_degenerate_is_nan(data: object, level: str) -> None:
    assert np.isnan(krippendorff_alpha(data, level=level))


@quietly
def test_krippendorff_alpha_degenerate_strings_are_nan() -> None:
    assert np.isnan(krippendorff_alpha([[None, "a"], ["b", None]]))
    assert np.isnan(krippendorff_alpha([["a", "a"], ["a", "a"]]))


def test_krippendorff_alpha_drops_unpairable_units() -> None:
    # Unit 12 of section C has a single value (3): adding more such units changes nothing.
    extra = np.full((4, 3), NAN)
    extra[0, :] = [1, 5, 2]
    widened = np.concatenate([KRIPPENDORFF_2011_C, extra], axis=1)
    for level in LEVELS:
        assert krippendorff_alpha(widened, level=level) == krippendorff_alpha(KRIPPENDORFF_2011_C, level=level)


# --- invalid inputs: ValueError naming the argument ---------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"a": [1, 2, 3], "b": [1, 2]}, "a and b must have the same length"),
        ({"a": [[1, 2]], "b": [1, 2]}, "a must be 1-D"),
        ({"a": [1, 2], "b": [[1], [2]]}, "b must be 1-D"),
        ({"a": [1, 2], "b": [1, 2], "weights": "cubic"}, "weights"),
        ({"a": [1, 2], "b": [1, 2], "labels": [1, 1, 2]}, "labels must not hold duplicates"),
        ({"a": [1, 2], "b": [1, 2], "labels": []}, "labels must not be empty"),
        ({"a": [1, 2], "b": [1, 2], "labels": ["x", "y"]}, "labels"),
        ({"a": [1, 2], "b": [1.0, NAN]}, "b holds missing values"),
        ({"a": [1, None], "b": [1, 2]}, "a holds missing values"),
        ({"a": [1, 2], "b": ["x", "y"]}, "a and b must both hold numbers or both hold strings"),
    ],
)
def test_cohen_kappa_invalid_input(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        cohen_kappa(**kwargs)


@pytest.mark.parametrize(
    ("counts", "match"),
    [
        ([1, 2, 3], "counts must be 2-D"),
        ([[2, -1], [1, 0]], "counts must not be negative"),
        ([[1.5, 0.5], [1, 1]], "counts must hold whole numbers"),
        ([[1, NAN], [1, 1]], "counts must hold whole numbers"),
        ([[2, 1], [1, 1]], "counts must have the same number of raters"),
        ([["a", "b"]], "counts must hold numbers"),
    ],
)
def test_fleiss_kappa_invalid_input(counts: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        fleiss_kappa(counts)


def test_fleiss_kappa_rejects_partially_rated_items() -> None:
    with pytest.raises(ValueError, match="counts must have the same number of raters"):
        fleiss_kappa(category_counts([[1, 2, NAN], [1, 1, 2]]))


@pytest.mark.parametrize(
    ("ratings", "categories", "match"),
    [
        ([1, 2, 3], None, "ratings must be 2-D"),
        ([[1, 2], [1]], None, "ratings must be a rectangular array"),
        ([[1, 2], [3, 1]], [1, 2], r"ratings holds values missing from categories: \[3\]"),
        ([[1, 2]], [1, 2, 2], "categories must not hold duplicates"),
        ([[1, 2]], [[1, 2]], "categories must be 1-D"),
        ([[1, 2]], [1, None], "categories must not hold missing values"),
        ([[1, None, "a"]], None, "ratings must hold only numbers or only strings"),
    ],
)
def test_category_counts_invalid_input(ratings: object, categories: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        category_counts(ratings, categories=categories)


@pytest.mark.parametrize(
    ("data", "level", "match"),
    [
        ([[1, 2], [1, 2]], "metric", "level must be one of"),
        ([[1, 2], [1, 2]], None, "level must be one of"),
        ([1, 2, 3], "nominal", "reliability_data must be 2-D"),
        ([["a", "b"], ["a", "a"]], "interval", "reliability_data must hold numbers for level='interval'"),
        ([["a", "b"], ["a", "a"]], "ordinal", "reliability_data must hold numbers for level='ordinal'"),
        ([[-1, 2], [1, 2]], "ratio", "reliability_data must not hold negative values"),
        ([[1, "a"], [None, 2]], "nominal", "reliability_data must hold only numbers or only strings"),
        ([[1 + 2j, 2], [1, 2]], "nominal", "reliability_data must hold numbers or strings"),
    ],
)
def test_krippendorff_alpha_invalid_input(data: object, level: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        krippendorff_alpha(data, level=level)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("first", "second", "match"),
    [
        ([1, 0, 2], [1, 0, 1], "a must hold binary labels"),
        ([1, 0, 1], [1, NAN, 1], "b must hold binary labels"),
        (["yes", "no"], [1, 0], "a must hold binary labels"),
        ([1, 0, None], [1, 0, 1], "a must hold binary labels"),
        ([1, 0], [1, 0, 1], "a and b must have the same length"),
        ([[1, 0]], [1, 0], "a must be 1-D"),
    ],
)
def test_pairwise_agreement_invalid_input(first: object, second: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        pairwise_agreement(first, second)


def test_result_types_are_plain_python() -> None:
    assert type(cohen_kappa([1, 2, 1], [1, 2, 2])) is float
    assert type(fleiss_kappa([[2, 0], [1, 1]])) is float
    assert type(krippendorff_alpha([[1, 2, 1], [1, 2, 2]])) is float
    result = pairwise_agreement([1, 0, 1], [1, 0, 0])
    assert isinstance(result, PairwiseAgreement)
    assert type(result.a) is int and type(result.kappa) is float


# --- every pair at once (one encoding per topic, not one per pair) ---------------------------


def _codes_with_gaps(seed: int, raters: int = 7, items: int = 40, categories: int = 4) -> np.ndarray:
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, categories, (raters, items))
    codes[rng.random((raters, items)) < 0.3] = -1
    codes[-1, :] = -1  # a rater who labelled nothing shares no item
    codes[-2, : items - 3] = -1  # one who shares three items with the others
    return codes


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_pair_confusions_kappas_equal_cohen_kappa_of_each_pair(seed, weights):
    codes = _codes_with_gaps(seed)
    found = agreement.pair_confusions(codes, 4, same=True)
    values = agreement.kappas_from_confusions(found.confusion, weights)
    expected_pairs = []
    for a in range(len(codes)):
        for b in range(a, len(codes)):
            common = (codes[a] >= 0) & (codes[b] >= 0)
            if not common.any():
                continue
            expected_pairs.append((a, b))
            reference = cohen_kappa(codes[a, common], codes[b, common], weights=weights, labels=[0, 1, 2, 3])
            p = len(expected_pairs) - 1
            assert (found.first[p], found.second[p]) == (a, b)
            assert found.confusion[p].sum() == common.sum()
            if np.isnan(reference):
                assert np.isnan(values[p])
            else:
                assert values[p] == pytest.approx(reference, abs=1e-12)
    assert len(found.first) == len(expected_pairs)


def test_pair_confusions_leave_out_self_pairs_and_check_codes():
    codes = _codes_with_gaps(9)
    assert (agreement.pair_confusions(codes, 4).first < agreement.pair_confusions(codes, 4).second).all()
    with pytest.raises(ValueError, match="codes must lie in -1 .. 3"):
        agreement.pair_confusions([[0, 4]], 4)
    with pytest.raises(ValueError, match="2-D array of integer"):
        agreement.pair_confusions([0.5, 1.0], 2)
    empty = agreement.pair_confusions(np.zeros((0, 0), dtype=int), 3)
    assert empty.confusion.shape == (0, 3, 3)


def test_kappas_from_confusions_equal_sklearn():
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 3, 50), rng.integers(0, 3, 50)
    confusion = np.zeros((3, 3), dtype=np.int64)
    np.add.at(confusion, (a, b), 1)
    for weights in (None, "linear", "quadratic"):
        got = agreement.kappas_from_confusions(confusion[np.newaxis], weights)[0]
        assert got == pytest.approx(cohen_kappa_score(a, b, labels=[0, 1, 2], weights=weights), abs=1e-12)


@pytest.mark.parametrize("weights", [None, "quadratic"])
def test_kappas_of_a_large_stack_are_computed_a_block_at_a_time(monkeypatch, weights):
    """A crowd's 1.8 million pairs of 5 x 5 tables are 360 MB; the kappas' temporaries, taken
    over the whole stack at once, several times that."""
    import tracemalloc

    rng = np.random.default_rng(4)
    stack = rng.integers(0, 4, (20_000, 5, 5))
    stack[:3] = 0  # no shared item: NaN
    whole = agreement.kappas_from_confusions(stack, weights)  # at the default block, one block
    monkeypatch.setattr(agreement, "_KAPPA_BLOCK", 1000, raising=False)
    tracemalloc.start()
    try:
        blocked = agreement.kappas_from_confusions(stack, weights)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.array_equal(blocked, whole, equal_nan=True)  # the same numbers, bit for bit
    assert np.isnan(blocked[:3]).all() and np.isfinite(blocked[3:]).all()
    # the stack is 4 MB (20,000 x 25 int64), its float temporaries as many each; a block's 0.2 MB
    assert peak < 2 * 2**20
