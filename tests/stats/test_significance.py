"""Tests for stats.significance (Arehart, Wolf & Miller, sections 2.4 and 3.2; Table 2)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.weightstats import DescrStatsW

from stats.significance import (
    TIE_TOLERANCE,
    approximate_randomization,
    bootstrap_f1,
    bootstrap_weights,
    compare_statements,
    compare_systems,
    evaluation_statements,
    exact_randomization,
    paired_bootstrap,
    sensitivity,
    statement_text,
    summarize_against_baseline,
    system_pairs,
)
from stats.systems import precision_recall_f1, query_counts

# A worked example: per-query scores of two systems on 10 queries.
A = [0.60, 0.50, 0.80, 0.70, 0.90, 0.40, 0.65, 0.55, 0.30, 0.75]
B = [0.50, 0.45, 0.70, 0.72, 0.80, 0.35, 0.60, 0.50, 0.32, 0.60]


def _f1(totals) -> float:
    tp, fp, fn = totals
    return 2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else 0.0


def _loop_bootstrap_f1(counts_a, counts_b, *, n_resamples, seed) -> float:
    """The textbook shift-method bootstrap, one resample at a time."""
    counts_a, counts_b = np.asarray(counts_a), np.asarray(counts_b)
    n = len(counts_a)
    observed = _f1(counts_a.sum(axis=0)) - _f1(counts_b.sum(axis=0))
    rng = np.random.default_rng(seed)
    count = 0
    for _ in range(n_resamples):
        sample = rng.integers(0, n, size=n)
        resampled = _f1(counts_a[sample].sum(axis=0)) - _f1(counts_b[sample].sum(axis=0))
        if abs(resampled - observed) >= abs(observed) - TIE_TOLERANCE * max(1.0, abs(observed)):
            count += 1
    return (count + 1) / (n_resamples + 1)


def _close_systems(seed: int, n_queries: int = 30) -> tuple[np.ndarray, np.ndarray]:
    """Two systems' per-query (tp, fp, fn) whose F1 differ by a few points: p-values in the middle."""
    rng = np.random.default_rng(seed)
    positives = rng.integers(1, 8, n_queries)
    tp_a = rng.binomial(positives, 0.75)
    tp_b = rng.binomial(positives, 0.70)
    counts_a = np.column_stack([tp_a, rng.integers(0, 4, n_queries), positives - tp_a])
    counts_b = np.column_stack([tp_b, rng.integers(0, 4, n_queries), positives - tp_b])
    return counts_a, counts_b


# --------------------------------------------------------------------------- exact randomisation


def test_exact_sign_flip_p_value_of_the_worked_example():
    # d = A - B = [.10, .05, .10, -.02, .10, .05, .05, .05, -.02, .15]; the
    # statistic is mean(d), 10 * mean = .61, and sum |d| = .69. A swap pattern
    # gives sum(s_i |d_i|) = .69 - 2 * (sum of |d_i| given a minus sign), so
    # |pattern| >= .61 iff the minus signs carry <= .04 (a subset of the two
    # .02: 4 patterns) or >= .65 (their complements: 4 patterns).
    # Exact two-sided p = 8 / 1024 = 0.0078125 (no +1: the identity is counted).
    result = exact_randomization(A, B, statistic="mean")
    assert result.p_value == 8 / 1024 == 0.0078125
    assert result.n_resamples == 1024
    assert result.difference == pytest.approx(0.061)
    assert result.significant


def test_exact_randomization_matches_scipy_on_the_worked_example():
    reference = stats.permutation_test(
        (np.array(A), np.array(B)),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        n_resamples=np.inf,
        alternative="two-sided",
    )
    assert reference.pvalue == pytest.approx(0.0078125)
    assert exact_randomization(A, B).p_value == pytest.approx(reference.pvalue)


@pytest.mark.parametrize(("seed", "n"), [(0, 6), (1, 8), (2, 11), (3, 12)])
def test_exact_randomization_matches_scipy_on_random_scores(seed, n):
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    b = a - rng.normal(0.1, 0.2, n)
    reference = stats.permutation_test(
        (a, b), lambda x, y, axis: np.mean(x - y, axis=axis), permutation_type="samples", n_resamples=np.inf
    )
    assert exact_randomization(a, b).p_value == pytest.approx(reference.pvalue, abs=1e-12)


def test_exact_randomization_of_f1_by_brute_force():
    counts_a, counts_b = _close_systems(seed=4, n_queries=9)
    observed = _f1(counts_a.sum(axis=0)) - _f1(counts_b.sum(axis=0))
    count = 0
    for swap in itertools.product([False, True], repeat=9):
        mask = np.array(swap)[:, None]
        first = np.where(mask, counts_b, counts_a).sum(axis=0)
        second = np.where(mask, counts_a, counts_b).sum(axis=0)
        count += abs(_f1(first) - _f1(second)) >= abs(observed) - 1e-12
    assert exact_randomization(counts_a, counts_b, statistic="f1").p_value == count / 512


def test_approximate_randomization_converges_to_the_exact_p_value():
    approximate = approximate_randomization(A, B, n_resamples=40_000, seed=12)
    # Monte Carlo standard error at p = 0.0078 with R = 40000 is 0.00044.
    assert approximate.p_value == pytest.approx(0.0078125, abs=0.0022)


def test_approximate_randomization_equals_a_loop_with_the_same_seed():
    counts_a, counts_b = _close_systems(seed=6)
    observed = _f1(counts_a.sum(axis=0)) - _f1(counts_b.sum(axis=0))
    rng = np.random.default_rng(77)
    count = 0
    for _ in range(500):
        swap = rng.integers(0, 2, size=len(counts_a)).astype(bool)[:, None]
        first = np.where(swap, counts_b, counts_a).sum(axis=0)
        second = np.where(swap, counts_a, counts_b).sum(axis=0)
        count += abs(_f1(first) - _f1(second)) >= abs(observed) - TIE_TOLERANCE
    result = approximate_randomization(counts_a, counts_b, statistic="f1", n_resamples=500, seed=77)
    assert result.p_value == (count + 1) / 501


# --------------------------------------------------------------------------- bootstrap


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_bootstrap_p_values_equal_a_loop_with_the_same_seed(seed):
    counts_a, counts_b = _close_systems(seed)
    result = bootstrap_f1(counts_a, counts_b, n_resamples=400, seed=seed)
    expected = _loop_bootstrap_f1(counts_a, counts_b, n_resamples=400, seed=seed)
    assert result.p_value == expected
    assert 0.01 < expected < 1.0  # a p-value that exercises the counting, not a corner


def test_bootstrap_weights_equal_one_draw_per_resample():
    rng = np.random.default_rng(5)
    expected = np.stack([np.bincount(rng.integers(0, 7, size=7), minlength=7) for _ in range(50)])
    np.testing.assert_array_equal(bootstrap_weights(7, n_resamples=50, seed=5), expected)


@pytest.mark.parametrize(
    "test",
    [
        lambda a: paired_bootstrap(a, a, n_resamples=300, seed=1),
        lambda a: approximate_randomization(a, a, n_resamples=300, seed=1),
        lambda a: exact_randomization(a, a),
    ],
)
def test_a_system_compared_with_itself_is_never_significant(test):
    result = test(A)
    assert result.p_value == 1.0
    assert result.difference == 0.0
    assert not result.significant


def test_a_system_compared_with_itself_on_f1_is_never_significant():
    counts, _ = _close_systems(seed=8)
    for seed in range(5):
        result = bootstrap_f1(counts, counts, n_resamples=200, seed=seed)
        assert result.p_value == 1.0 and not result.significant


@pytest.mark.parametrize("seed", range(5))
def test_a_clearly_better_system_is_always_significant(seed):
    rng = np.random.default_rng(seed)
    positives = rng.integers(3, 10, 40)
    better = np.column_stack([positives - 1, rng.integers(0, 2, 40), np.ones(40)])
    worse = np.column_stack([positives // 3, rng.integers(5, 9, 40), positives - positives // 3])
    result = bootstrap_f1(better, worse, n_resamples=999, seed=seed)
    # No resample comes near a zero difference: the smallest possible p.
    assert result.p_value == 1 / 1000
    assert result.significant and result.difference > 0.3


def test_bootstrap_is_antisymmetric_in_the_systems():
    counts_a, counts_b = _close_systems(seed=2)
    forward = bootstrap_f1(counts_a, counts_b, n_resamples=300, seed=4)
    backward = bootstrap_f1(counts_b, counts_a, n_resamples=300, seed=4)
    assert forward.p_value == backward.p_value
    assert forward.difference == -backward.difference


def test_bootstrap_of_the_mean_equals_a_loop():
    rng = np.random.default_rng(0)
    a, b = np.array(A), np.array(B)
    observed = a.mean() - b.mean()
    count = 0
    for _ in range(300):
        sample = rng.integers(0, 10, size=10)
        count += abs(a[sample].mean() - b[sample].mean() - observed) >= abs(observed) - TIE_TOLERANCE
    assert paired_bootstrap(A, B, n_resamples=300, seed=0).p_value == (count + 1) / 301


def test_callable_statistic_receives_resampled_totals():
    counts_a, counts_b = _close_systems(seed=3)
    builtin = bootstrap_f1(counts_a, counts_b, n_resamples=200, seed=9)
    custom = paired_bootstrap(
        counts_a,
        counts_b,
        statistic=lambda t: 2 * t[..., 0] / (2 * t[..., 0] + t[..., 1] + t[..., 2]),
        n_resamples=200,
        seed=9,
    )
    assert custom.p_value == builtin.p_value


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: paired_bootstrap(A, B[:9]), "same shape"),
        (lambda: paired_bootstrap([0.5], [0.4]), "at least 2 units"),
        (lambda: paired_bootstrap(A, B, alpha=1.5), "alpha"),
        (lambda: paired_bootstrap(A, B, n_resamples=0), "n_resamples"),
        (lambda: paired_bootstrap(A, B, statistic="median"), "statistic"),
        (lambda: paired_bootstrap([[1, 2, 3]] * 4, [[1, 2, 3]] * 4, statistic="mean"), "statistic='mean'"),
        (lambda: bootstrap_f1([1, 2, 3], [1, 2, 3]), "statistic='f1'"),
        (lambda: paired_bootstrap([0.1, np.nan], [0.1, 0.2]), "finite"),
        (lambda: exact_randomization(np.zeros(21), np.zeros(21)), "max_units"),
        (lambda: paired_bootstrap(A, B, seed="x"), "seed"),
    ],
)
def test_bad_input_names_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --------------------------------------------------------------------------- many systems


def _pool(seed: int, n_systems: int = 5, n_queries: int = 25):
    rng = np.random.default_rng(seed)
    queries = np.repeat(np.arange(n_queries), rng.integers(8, 20, n_queries))
    n_items = len(queries)
    truth = (rng.random(n_items) < 0.3).astype(float)
    recall = np.linspace(0.95, 0.6, n_systems)
    false_rate = np.linspace(0.3, 0.1, n_systems)
    draws = rng.random((n_systems, n_items))
    returned = np.where(truth == 1, draws < recall[:, None], draws < false_rate[:, None])
    return returned, truth, queries


def test_compare_systems_equals_a_per_pair_loop():
    returned, truth, queries = _pool(seed=1)
    result = compare_systems(returned, truth, queries, n_resamples=300, seed=21)
    counts = query_counts(returned, truth, queries)
    for k, (a, b) in enumerate(itertools.combinations(range(len(returned)), 2)):
        assert tuple(result.pairs[k]) == (a, b)
        assert result.p_values[k] == _loop_bootstrap_f1(counts[a], counts[b], n_resamples=300, seed=21)
    np.testing.assert_allclose(result.f1, precision_recall_f1(returned, truth).f1)
    np.testing.assert_allclose(result.differences, result.f1[result.pairs[:, 0]] - result.f1[result.pairs[:, 1]])


def test_compare_systems_statements_follow_p_values():
    returned, truth, queries = _pool(seed=2, n_systems=6)
    result = compare_systems(returned, truth, queries, n_resamples=500, seed=3)
    assert len(result.statements) == 15
    significant = result.p_values <= 0.05
    assert np.array_equal(result.statements != 0, significant)
    assert np.array_equal(np.sign(result.statements[significant]), np.sign(result.differences[significant]))
    assert 0 < significant.sum() < 15


def test_compare_systems_with_a_duplicated_system():
    returned, truth, queries = _pool(seed=4, n_systems=3)
    result = compare_systems(np.vstack([returned, returned[:1]]), truth, queries, n_resamples=200, seed=1)
    # Pair (0, 3) is the system against its copy.
    k = [tuple(p) for p in result.pairs].index((0, 3))
    assert result.p_values[k] == 1.0 and result.statements[k] == 0


def test_compare_systems_ignores_queries_without_known_truth():
    returned, truth, queries = _pool(seed=5, n_systems=3)
    hidden = queries == 0
    blinded = truth.copy()
    blinded[hidden] = np.nan
    with_hidden = compare_systems(returned, blinded, queries, n_resamples=200, seed=6)
    without = compare_systems(returned[:, ~hidden], truth[~hidden], queries[~hidden], n_resamples=200, seed=6)
    np.testing.assert_array_equal(with_hidden.p_values, without.p_values)
    assert with_hidden.n_units == without.n_units == 24


def test_compare_systems_item_resampling_and_randomization():
    returned, truth, queries = _pool(seed=7, n_systems=3)
    by_items = compare_systems(returned, truth, queries, n_resamples=200, seed=2, resample="items")
    assert by_items.n_units == len(truth)
    counts = query_counts(returned, truth, np.arange(len(truth)))
    assert by_items.p_values[0] == _loop_bootstrap_f1(counts[0], counts[1], n_resamples=200, seed=2)
    swapped = compare_systems(returned, truth, queries, n_resamples=200, seed=2, method="randomization")
    pair_counts = query_counts(returned, truth, queries)
    single = approximate_randomization(pair_counts[1], pair_counts[2], statistic="f1", n_resamples=200, seed=2)
    assert swapped.p_values[2] == pytest.approx(single.p_value)


def test_compare_systems_rejects_one_system():
    returned, truth, queries = _pool(seed=1, n_systems=2)
    with pytest.raises(ValueError, match="at least 2 systems"):
        compare_systems(returned[:1], truth, queries)
    with pytest.raises(ValueError, match="method"):
        compare_systems(returned, truth, queries, method="t-test")


# --------------------------------------------------------------------------- statements


def test_system_pairs_are_combinations():
    assert [tuple(p) for p in system_pairs(13)] == list(itertools.combinations(range(13), 2))
    assert len(system_pairs(13)) == 78  # AWM section 2.4: 13 algorithms, 78 statements


def test_evaluation_statements_by_hand():
    f1 = [0.80, 0.60, 0.70, 0.70]
    # pairs: (0,1) (0,2) (0,3) (1,2) (1,3) (2,3)
    p_values = [0.001, 0.05, 0.051, 0.01, 0.2, 1.0]
    assert evaluation_statements(f1, p_values).tolist() == [1, 1, 0, -1, 0, 0]
    assert statement_text([1, 1, 0, -1, 0, 0], ["A", "B", "C", "D"]) == [
        "A > B",
        "A > C",
        "A = D",
        "C > B",
        "B = D",
        "C = D",
    ]


def test_evaluation_statements_are_vectorised_over_truth_sets():
    rng = np.random.default_rng(0)
    f1 = rng.random((7, 5))
    p_values = rng.random((7, 10)) / 5
    stacked = evaluation_statements(f1, p_values)
    for t in range(7):
        np.testing.assert_array_equal(stacked[t], evaluation_statements(f1[t], p_values[t]))


def _statements_like(baseline: np.ndarray, *, lost: int, gained: int, reversed_: int) -> np.ndarray:
    """Change a baseline: `lost` significant -> '=', `gained` '=' -> significant, `reversed_` flipped."""
    statements = baseline.copy()
    significant = np.flatnonzero(baseline != 0)
    equal = np.flatnonzero(baseline == 0)
    statements[significant[:lost]] = 0
    statements[significant[lost : lost + reversed_]] *= -1
    statements[equal[:gained]] = 1
    return statements


# AWM Table 2 (78 statements, 13 systems):
# Truth Set     Sensitivity  Disagreement  Reversal
# Consensus     0.744        n/a           n/a
# Union         0.782        0.064         0
# Intersection  0.538        0.423         0.038
# Judge A       0.769        0.051         0
# Judge B       0.705        0.038         0
# Judge C       0.756        0.115         0
# Judge D       0.692        0.179         0
# Each row is reproduced by a hand-made set of statements: from Consensus's
# 58 significant and 20 equal statements, `lost` become '=', `gained` become
# significant and `reversed_` flip (58 - lost + gained significant; lost +
# gained + reversed_ disagreements).
TABLE_2 = [
    ("Union", dict(lost=1, gained=4, reversed_=0), (0.782, 0.064, 0.0)),
    ("Intersection", dict(lost=23, gained=7, reversed_=3), (0.538, 0.423, 0.038)),
    ("Judge A", dict(lost=1, gained=3, reversed_=0), (0.769, 0.051, 0.0)),
    ("Judge B", dict(lost=3, gained=0, reversed_=0), (0.705, 0.038, 0.0)),
    ("Judge C", dict(lost=4, gained=5, reversed_=0), (0.756, 0.115, 0.0)),
    ("Judge D", dict(lost=9, gained=5, reversed_=0), (0.692, 0.179, 0.0)),
]


def _consensus_statements() -> np.ndarray:
    rng = np.random.default_rng(2008)
    statements = np.zeros(78, dtype=np.int8)
    statements[:58] = rng.choice([-1, 1], 58)
    return statements[rng.permutation(78)]


@pytest.mark.parametrize(("name", "changes", "table_row"), TABLE_2, ids=[row[0] for row in TABLE_2])
def test_table_2_rows_from_hand_made_statements(name, changes, table_row):
    baseline = _consensus_statements()
    assert round(sensitivity(baseline), 3) == 0.744
    comparison = compare_statements(_statements_like(baseline, **changes), baseline)
    assert (
        round(comparison.sensitivity, 3),
        round(comparison.disagreement, 3),
        round(comparison.reversal, 3),
    ) == table_row


def test_compare_statements_is_vectorised_over_truth_sets():
    baseline = _consensus_statements()
    stacked = np.stack([_statements_like(baseline, **changes) for _, changes, _ in TABLE_2])
    comparison = compare_statements(stacked, baseline)
    np.testing.assert_allclose(comparison.reversal, [0, 3 / 78, 0, 0, 0, 0])
    np.testing.assert_allclose(comparison.disagreement, [5 / 78, 33 / 78, 4 / 78, 3 / 78, 9 / 78, 14 / 78])


def test_a_baseline_agrees_with_itself():
    baseline = _consensus_statements()
    comparison = compare_statements(baseline, baseline)
    assert (comparison.disagreement, comparison.reversal) == (0.0, 0.0)
    assert comparison.sensitivity == 58 / 78


def test_summary_against_baseline_matches_statsmodels_t_interval():
    baseline = _consensus_statements()
    rng = np.random.default_rng(1)
    stacked = np.stack(
        [_statements_like(baseline, lost=int(k), gained=int(g), reversed_=0) for k, g in rng.integers(0, 6, (200, 2))]
    )
    stacked[17] = _statements_like(baseline, lost=0, gained=0, reversed_=2)
    summary = summarize_against_baseline(stacked, baseline)
    per_set = compare_statements(stacked, baseline)
    assert summary.n_sets == 200
    assert summary.mean_sensitivity == pytest.approx(np.mean(per_set.sensitivity))
    assert summary.sensitivity_ci == pytest.approx(DescrStatsW(per_set.sensitivity).tconfint_mean(alpha=0.05))
    assert summary.disagreement_ci == pytest.approx(DescrStatsW(per_set.disagreement).tconfint_mean(alpha=0.05))
    assert (summary.n_reversals, summary.n_sets_with_reversal) == (2, 1)


def test_summary_of_identical_sets_and_of_one_set():
    baseline = _consensus_statements()
    same = summarize_against_baseline(np.tile(baseline, (5, 1)), baseline)
    assert same.sensitivity_ci == (58 / 78, 58 / 78)
    assert same.disagreement_ci == (0.0, 0.0)
    one = summarize_against_baseline(baseline[None, :], baseline)
    assert np.isnan(one.sensitivity_ci).all()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: evaluation_statements([0.5, 0.4, 0.3], [0.01, 0.02]), "p_values must have shape"),
        (lambda: evaluation_statements([0.5, 0.4], [1.2]), "p_values"),
        (lambda: compare_statements([1, 0, 2], [1, 0, 0]), "statements"),
        (lambda: compare_statements([1, 0], [1, 0, 0]), "baseline"),
        (lambda: summarize_against_baseline([1, 0, 0], [1, 0, 0]), "2-D"),
        (lambda: summarize_against_baseline([[1, 0, 0]], [1, 0, 0], confidence=95), "confidence"),
        (lambda: statement_text([1, 0], ["A", "B", "C"]), "statements"),
    ],
)
def test_bad_statement_input_names_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()
