"""Crowd quality control (stats.quality): intervals against statsmodels, hand-computed
weighted scores, the pausing rule's decisions and words, and its exact error rates
against brute-force enumeration and a seeded Monte Carlo."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats
from statsmodels.stats.proportion import proportion_confint

from stats.quality import (
    control_accuracy,
    credits,
    pause_boundary,
    pause_probability,
    should_pause,
    weighted_score,
)

METHODS = ("wilson", "beta", "jeffreys")


def _random_counts(seed: int, size: int = 3000):
    rng = np.random.default_rng(seed)
    total = rng.integers(1, 400, size)
    correct = rng.integers(0, total + 1)
    # the edges every method treats apart: none right, all right, one control
    correct[:50], correct[50:100] = 0, total[50:100]
    total[100:120], correct[100:110], correct[110:120] = 1, 0, 1
    return correct, total


# --------------------------------------------------------------------------- control_accuracy


@pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
@pytest.mark.parametrize("method", METHODS)
def test_control_accuracy_equals_statsmodels(method, level):
    correct, total = _random_counts(7)
    result = control_accuracy(correct, total, level=level, method=method)
    low, high = proportion_confint(correct, total, alpha=1 - level, method=method)
    if method == "jeffreys":
        # Brown, Cai & DasGupta's bounds at the edges; statsmodels keeps the Beta quantiles.
        assert np.all(result.low[correct == 0] == 0.0) and np.all(result.high[correct == total] == 1.0)
        low = np.where(correct == 0, 0.0, low)
        high = np.where(correct == total, 1.0, high)
    np.testing.assert_allclose(result.low, low, rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.high, high, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(result.accuracy, correct / total)
    assert result.level == level and result.method == method


def test_wilson_bound_by_hand():
    # 7 of 20 at 95%: centre and half-width of Wilson's formula written out.
    z = scipy_stats.norm.ppf(0.975)
    p, n = 0.35, 20
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    result = control_accuracy(7, 20)
    assert result.low == pytest.approx(centre - half, abs=1e-15)
    assert result.high == pytest.approx(centre + half, abs=1e-15)
    assert round(float(result.high), 4) == 0.5671


def test_no_controls_is_no_evidence():
    result = control_accuracy([0, 3], [0, 4])
    assert math.isnan(result.accuracy[0]) and result.low[0] == 0.0 and result.high[0] == 1.0
    assert result.accuracy[1] == 0.75


def test_control_accuracy_keeps_the_shape_and_broadcasts():
    result = control_accuracy([[1, 2], [3, 4]], 4)
    assert result.high.shape == (2, 2) and result.total.tolist() == [[4, 4], [4, 4]]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"correct": 5, "total": 4}, "correct must not exceed total"),
        ({"correct": -1, "total": 4}, "correct must hold non-negative"),
        ({"correct": 1.5, "total": 4}, "correct must hold whole numbers"),
        ({"correct": 1, "total": 4.5}, "total must hold non-negative whole"),
        ({"correct": 1, "total": float("nan")}, "total must hold"),
        ({"correct": "x", "total": 4}, "correct must hold numbers"),
        ({"correct": [1, 2], "total": [3, 4, 5]}, "correct and total must have the same shape"),
        ({"correct": 1, "total": 4, "level": 1.0}, "level must be"),
        ({"correct": 1, "total": 4, "level": True}, "level must be"),
        ({"correct": 1, "total": 4, "method": "normal"}, "method must be one of"),
        ({"correct": 1, "total": 4, "method": "hoeffding"}, "method must be one of"),
    ],
)
def test_control_accuracy_refusals_name_the_argument(kwargs, message):
    with pytest.raises(ValueError, match=message):
        control_accuracy(**kwargs)


# --------------------------------------------------------------------------- weighted scores


def test_credits_by_hand():
    given, known = [0, 2.5, 10, 7.5], [10, 5, 10, 10]
    assert credits(given, known, scale=(0, 10)).tolist() == [0.0, 0.75, 1.0, 0.75]
    assert credits(given, known, scale=(0, 10), weight="quadratic").tolist() == [0.0, 0.9375, 1.0, 0.9375]


def test_weighted_score_mean_credit_by_hand():
    # Assessor 0: 4 for 5, 5 for 5, 3 for 5 on a 1-5 scale: credits 0.75, 1, 0.5; assessor 1 none;
    # assessor 2: 1 for 1.
    result = weighted_score([4, 5, 3, 1], [5, 5, 5, 1], scale=(1, 5), assessors=[0, 0, 0, 2])
    assert result.correct.tolist() == [2.25, 0.0, 1.0]
    assert result.total.tolist() == [3, 0, 1]
    assert result.accuracy[0] == 0.75 and math.isnan(result.accuracy[1]) and result.accuracy[2] == 1.0
    assert (result.low[1], result.high[1]) == (0.0, 1.0)
    quadratic = weighted_score([4, 5, 3], [5, 5, 5], scale=(1, 5), weight="quadratic")
    assert quadratic.correct.tolist() == [0.9375 + 1 + 0.75]


def test_hoeffding_bounds_by_hand():
    # One credit of 0.5: KL(0.5 || u) = -log(2 sqrt(u (1 - u))) = log(2 / 0.05), so
    # u (1 - u) = 1 / 6400, u = (1 +- sqrt(1 - 4 / 6400)) / 2.
    result = weighted_score([3], [5], scale=(1, 5))
    root = math.sqrt(1 - 4 / 6400)
    assert result.low[0] == pytest.approx((1 - root) / 2, abs=1e-14)
    assert result.high[0] == pytest.approx((1 + root) / 2, abs=1e-14)
    # n credits of 0: KL(0 || u) = -log(1 - u) = log(40) / n, u = 1 - 0.025^(1/n), which is
    # also Clopper-Pearson's upper bound at 0 of n.
    for n in (1, 7, 30):
        zeros = weighted_score([1] * n, [5] * n, scale=(1, 5))
        assert zeros.low[0] == 0.0
        assert zeros.high[0] == pytest.approx(1 - 0.025 ** (1 / n), abs=1e-14)
        assert zeros.high[0] == pytest.approx(float(control_accuracy(0, n, method="beta").high), abs=1e-12)
    # All full credit: the mirror image, lower bound 0.025^(1/n), upper 1.
    ones = weighted_score([5] * 4, [5] * 4, scale=(1, 5))
    assert ones.low[0] == pytest.approx(0.025 ** (1 / 4), abs=1e-14) and ones.high[0] == 1.0


@pytest.mark.parametrize("method", METHODS)
def test_binary_credits_reduce_to_the_proportion(method):
    rng = np.random.default_rng(3)
    assessors = rng.integers(0, 40, 600)
    known = rng.integers(0, 2, 600).astype(float)
    right = rng.random(600) < rng.uniform(0.3, 1.0, 40)[assessors]
    given = np.where(right, known, 1 - known)
    result = weighted_score(given, known, scale=(0, 1), assessors=assessors, method=method, level=0.9)
    counts = control_accuracy(
        np.bincount(assessors, right, minlength=40).astype(int),
        np.bincount(assessors, minlength=40),
        method=method,
        level=0.9,
    )
    for field in ("correct", "total", "accuracy", "low", "high"):
        np.testing.assert_array_equal(getattr(result, field), getattr(counts, field))


def test_hoeffding_is_never_narrower_than_clopper_pearson_on_binary_scores():
    correct, total = _random_counts(11)
    for level in (0.9, 0.95, 0.99):
        hoeffding = should_pause(correct, total, threshold=1.0, minimum=0, level=level, method="hoeffding")
        exact = control_accuracy(correct, total, level=level, method="beta")
        upper = np.array([d.upper for d in hoeffding])
        assert np.all(upper >= exact.high - 1e-12)
        lower = weighted_score(
            np.repeat(np.tile([1.0, 0.0], len(total)), np.column_stack([correct, total - correct]).ravel()),
            np.ones(int(total.sum())),
            scale=(0, 1),
            assessors=np.repeat(np.arange(len(total)), total),
            level=level,
        ).low
        assert np.all(lower <= exact.low + 1e-12)


def test_hoeffding_covers_three_point_credits_exactly_enumerated():
    # Credits 0, 0.5, 1 with probabilities q: every outcome of n = 12 answers enumerated
    # (multinomial), the interval's coverage of the true mean summed exactly.
    n = 12
    outcomes = [(a, b, n - a - b) for a in range(n + 1) for b in range(n + 1 - a)]
    sums = np.array([0.5 * b + c for a, b, c in outcomes])
    bounds = weighted_score(
        np.concatenate([[0.0] * a + [0.5] * b + [1.0] * c for a, b, c in outcomes]),
        np.ones(n * len(outcomes)),
        scale=(0, 1),
        assessors=np.repeat(np.arange(len(outcomes)), n),
    )
    np.testing.assert_allclose(bounds.correct, sums)
    for q in ([0.1, 0.2, 0.7], [0.0, 1.0, 0.0], [0.05, 0.05, 0.9], [0.3, 0.4, 0.3], [0.6, 0.3, 0.1]):
        mean = 0.5 * q[1] + q[2]
        pmf = np.array([scipy_stats.multinomial.pmf(o, n, q) for o in outcomes])
        covered = (bounds.low <= mean) & (mean <= bounds.high)
        assert pmf[covered].sum() >= 0.95, q


def test_weighted_score_refusals_name_the_argument():
    with pytest.raises(ValueError, match="scale must be finite with low < high"):
        weighted_score([1], [1], scale=(5, 1))
    with pytest.raises(ValueError, match="scale must be two numbers"):
        weighted_score([1], [1], scale=5)
    with pytest.raises(ValueError, match=r"given must hold numbers within the scale \[1, 5\]"):
        weighted_score([6], [1], scale=(1, 5))
    with pytest.raises(ValueError, match="known must hold numbers within"):
        weighted_score([1], [float("nan")], scale=(1, 5))
    with pytest.raises(ValueError, match="given and known must have equal lengths"):
        weighted_score([1, 2], [1], scale=(1, 5))
    with pytest.raises(ValueError, match="weight must be"):
        weighted_score([1], [1], scale=(1, 5), weight="cubic")
    with pytest.raises(ValueError, match="assessors must be 1-D with one code per answer"):
        weighted_score([1, 2], [1, 2], scale=(1, 5), assessors=[0])
    with pytest.raises(ValueError, match="assessors must hold non-negative integer codes"):
        weighted_score([1, 2], [1, 2], scale=(1, 5), assessors=[0, -1])
    with pytest.raises(ValueError, match="n_assessors must be a whole number >= 3"):
        weighted_score([1, 2], [1, 2], scale=(1, 5), assessors=[0, 2], n_assessors=2)
    with pytest.raises(ValueError, match="method 'wilson' needs every credit to be 0 or 1"):
        weighted_score([2], [1], scale=(1, 5), method="wilson")


# --------------------------------------------------------------------------- should_pause


def test_pausing_words_and_numbers():
    paused, early, kept = should_pause([7, 3, 15], [20, 5, 20], threshold=0.7, minimum=10, method="beta")
    assert paused.paused and paused.because == ("accuracy",)
    assert paused.reason == "7 of 20 controls right; the 95% interval's upper bound 0.59 is below the 0.70 required"
    assert paused.upper == pytest.approx(float(control_accuracy(7, 20, method="beta").high), abs=0)
    assert (paused.correct, paused.total, paused.accuracy) == (7.0, 20, 0.35)
    assert not early.paused and early.because == ()
    assert early.reason == "3 of 5 controls right; accuracy is judged from 10 controls"
    assert not kept.paused
    assert kept.reason.endswith("upper bound 0.91 is not below the 0.70 required")


def test_pausing_needs_the_minimum_and_an_upper_bound_below_the_threshold():
    # Wilson at 95%: 4 of 10 has upper bound 0.687 < 0.7, 5 of 10 has 0.763; 3 of 9 has 0.646.
    assert control_accuracy(4, 10).high < 0.7 < control_accuracy(5, 10).high
    assert control_accuracy(3, 9).high < 0.7
    decisions = should_pause([4, 5, 3], [10, 10, 9], threshold=0.7, minimum=10)
    assert [d.paused for d in decisions] == [True, False, False]
    # threshold equal to the bound: not below it, not paused
    bound = float(control_accuracy(4, 10).high)
    assert not should_pause(4, 10, threshold=bound, minimum=10)[0].paused
    assert should_pause(4, 10, threshold=np.nextafter(bound, 1), minimum=10)[0].paused


def test_reason_shows_digits_enough_to_tell_bound_and_threshold_apart():
    bound = float(control_accuracy(4, 10).high)  # 0.6873...
    decision = should_pause(4, 10, threshold=0.69, minimum=10)[0]
    assert decision.paused
    assert decision.reason.endswith("upper bound 0.687 is below the 0.690 required")
    assert f"{bound:.2f}" == "0.69"


def test_attention_checks_pause_at_the_limit():
    decisions = should_pause(
        [9, 9, 2], [10, 10, 10], threshold=0.7, minimum=10, failed_checks=[2, 3, 4], failed_limit=3
    )
    assert [d.because for d in decisions] == [(), ("attention",), ("accuracy", "attention")]
    assert decisions[0].reason.endswith("; 2 attention checks failed; pausing at 3")
    assert decisions[1].paused and decisions[1].failed_checks == 3 and decisions[1].failed_limit == 3
    one = should_pause(0, 0, threshold=0.7, minimum=10, failed_checks=1, failed_limit=1)[0]
    assert (
        one.paused
        and one.reason
        == "0 of 0 controls right; accuracy is judged from 10 controls; 1 attention check failed; pausing at 1"
    )


def test_credit_sums_pause_with_hoeffding():
    decision = should_pause(14.5, 20, threshold=0.99, minimum=10, method="hoeffding")[0]
    assert decision.reason.startswith(
        "a credit of 14.5 over 20 controls (mean 0.72); the 95% interval's upper bound 0.93"
    )
    assert decision.paused and decision.upper == pytest.approx(
        weighted_score([0.725] * 20, [1.0] * 20, scale=(0, 1)).high[0], abs=1e-12
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"threshold": 0.0}, "threshold must be a number in"),
        ({"threshold": 1.5}, "threshold must be a number in"),
        ({"threshold": "0.7"}, "threshold must be a number in"),
        ({"minimum": -1}, "minimum must be a whole number >= 0"),
        ({"minimum": 2.5}, "minimum must be a whole number"),
        ({"method": "exact"}, "method must be one of"),
        ({"failed_checks": [1, 2]}, "failed_checks and failed_limit go together"),
        ({"failed_limit": 3}, "failed_checks and failed_limit go together"),
        ({"failed_checks": [1, 2], "failed_limit": 0}, "failed_limit must be a whole number >= 1"),
        ({"failed_checks": [1, -2], "failed_limit": 3}, "failed_checks must hold non-negative whole"),
        ({"failed_checks": [1], "failed_limit": 3}, "failed_checks must have the shape of correct"),
        ({"correct": [1.5, 2]}, "correct must hold whole numbers"),
    ],
)
def test_should_pause_refusals_name_the_argument(kwargs, message):
    arguments = {"correct": [1, 2], "total": [10, 10], "threshold": 0.7, "minimum": 5, **kwargs}
    with pytest.raises(ValueError, match=message):
        should_pause(**arguments)


# --------------------------------------------------------------------------- error rates


def _pause_grid(n, *, threshold, minimum, level, method):
    """paused[m, k] for every k <= m <= n, straight from the intervals (no boundary)."""
    grid = np.zeros((n + 1, n + 1), dtype=bool)
    for m in range(max(minimum, 1), n + 1):
        k = np.arange(m + 1)
        if method == "hoeffding":
            high = np.array([d.upper for d in should_pause(k, m, threshold=1.0, minimum=0, level=level, method=method)])
        else:
            high = control_accuracy(k, m, level=level, method=method).high
        grid[m, : m + 1] = high < threshold
    return grid


@pytest.mark.parametrize("method", ["wilson", "beta", "jeffreys", "hoeffding"])
def test_pause_boundary_is_the_rule_on_every_count(method):
    n, rule = 150, {"threshold": 0.72, "minimum": 8, "level": 0.9, "method": method}
    boundary = pause_boundary(n, **rule)
    grid = _pause_grid(n, **rule)
    expected = np.array([np.flatnonzero(row).max() if row.any() else -1 for row in grid])
    np.testing.assert_array_equal(boundary, expected)
    assert np.all(boundary[:8] == -1) and boundary[-1] > 0


@pytest.mark.parametrize(("method", "p"), [("wilson", 0.55), ("beta", 0.7), ("jeffreys", 0.8), ("hoeffding", 0.4)])
def test_pause_probability_equals_enumeration_of_every_sequence(method, p):
    n, rule = 14, {"threshold": 0.8, "minimum": 3, "level": 0.8, "method": method}
    grid = _pause_grid(n, **rule)
    sequences = np.array(list(itertools.product([0, 1], repeat=n)))
    right = np.cumsum(sequences, axis=1)
    ever = grid[np.arange(1, n + 1), right].any(axis=1)
    k = right[:, -1]
    expected = np.sum(ever * p**k * (1 - p) ** (n - k))
    risk = pause_probability(p, n, **rule)
    assert 0.01 < expected < 0.99  # a case where the rule is neither sure nor idle
    assert float(risk.probability[0]) == pytest.approx(expected, abs=1e-12)
    # by control m: the sequences whose first m answers already cross
    by_m = [np.sum(grid[np.arange(1, m + 1), right[:, :m]].any(axis=1) * p**k * (1 - p) ** (n - k)) for m in (3, 7)]
    np.testing.assert_allclose(risk.by_control[0, [3, 7]], by_m, rtol=0, atol=1e-12)


def test_pause_probability_against_seeded_monte_carlo():
    n, rule = 80, {"threshold": 0.7, "minimum": 10, "level": 0.95, "method": "wilson"}
    accuracies = np.array([0.55, 0.65, 0.75, 0.85])
    risk = pause_probability(accuracies, n, **rule)
    boundary = pause_boundary(n, **rule)
    rng = np.random.default_rng(20240601)
    draws = 40_000
    for i, p in enumerate(accuracies):
        right = np.cumsum(rng.random((draws, n)) < p, axis=1)
        crossed = right <= boundary[1:]
        ever = crossed.any(axis=1)
        estimate = ever.mean()
        standard_error = math.sqrt(risk.probability[i] * (1 - risk.probability[i]) / draws)
        assert abs(estimate - risk.probability[i]) <= 4 * standard_error + 1e-9, (p, estimate, risk.probability[i])
        when = crossed.argmax(axis=1)[ever] + 1
        if ever.sum() > 100:
            spread = when.std() / math.sqrt(ever.sum())
            assert abs(when.mean() - risk.expected_controls[i]) <= 4 * spread + 1e-9


def test_pause_probability_limits_and_shape():
    rule = {"threshold": 0.7, "minimum": 10}
    risk = pause_probability([0.0, 1.0, 0.9], 50, **rule)
    assert risk.probability[0] == 1.0 and risk.expected_controls[0] == 10.0  # paused at the minimum
    assert risk.probability[1] == 0.0 and math.isnan(risk.expected_controls[1])
    assert risk.by_control.shape == (3, 51) and np.all(np.diff(risk.by_control, axis=1) >= 0)
    assert np.all(risk.by_control[:, :10] == 0.0)
    # more controls, more chances to be paused
    longer = pause_probability(0.85, 200, **rule).probability[0]
    assert pause_probability(0.85, 100, **rule).probability[0] < longer
    assert pause_probability(0.85, 0, **rule).probability[0] == 0.0


def test_pause_probability_refusals_name_the_argument():
    rule = {"threshold": 0.7, "minimum": 10}
    with pytest.raises(ValueError, match="accuracy must be"):
        pause_probability(1.2, 10, **rule)
    with pytest.raises(ValueError, match="accuracy must be"):
        pause_probability([[0.5]], 10, **rule)
    with pytest.raises(ValueError, match="n must be at most 10,000 controls"):
        pause_probability(0.5, 10_001, **rule)
    with pytest.raises(ValueError, match="n must be a whole number >= 0"):
        pause_probability(0.5, -1, **rule)
    with pytest.raises(ValueError, match=r"accuracy x n\^2 must be at most"):
        pause_probability(np.full(11, 0.5), 10_000, **rule)
