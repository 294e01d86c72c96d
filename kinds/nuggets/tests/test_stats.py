"""Tests for kinds.nuggets.stats (Lin and Demner-Fushman, NAACL 2006)."""

import itertools
import math

import numpy as np
import pytest
import scipy.stats

from kinds.nuggets.stats import (
    Anova,
    NuggetScore,
    PairedTTest,
    _assessor_subsets,
    assessor_agreement,
    kendall_tau,
    kendall_tau_matrix,
    nugget_f,
    nugget_f_batch,
    one_way_anova,
    paired_t_test,
    pyramid_f,
    pyramid_f_batch,
    pyramid_size_analysis,
    pyramid_weights,
    quantisation,
    response_length,
    run_ranking,
    run_scores,
    zero_median_questions,
)

# --------------------------------------------------------------------------
# Worked values, checked by hand against
# Figure 1: r=2, a=1, R=4 -> recall 0.5, allowance 100*(2+1) = 300;
# l=250 < 300 -> P=1, F3 = 10*1*0.5/(9*1+0.5) = 5/9.5 = 0.5263158;
# l=600 -> P = 1-300/600 = 0.5, F3 = 2.5/(4.5+0.5) = 0.5;
# l=900 -> P = 1-600/900 = 1/3, F3 = (5/3)/(3+0.5) = 0.4761905.
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("length", "precision", "f"),
    [(250, 1.0, 0.5263158), (600, 0.5, 0.5), (900, 1 / 3, 0.4761905)],
)
def test_nugget_f_worked_values(length, precision, f):
    score = nugget_f(vital_matched=2, okay_matched=1, vital_total=4, length=length)
    assert isinstance(score, NuggetScore)
    assert all(type(v) is float for v in score)
    assert score.precision == pytest.approx(precision)
    assert score.recall == pytest.approx(0.5)
    assert score.f == pytest.approx(f, abs=5e-8)


def test_nugget_f_unpacks_as_triple_and_uses_beta():
    p, r, f = nugget_f(vital_matched=2, okay_matched=1, vital_total=4, length=600, beta=5.0)
    # beta=5 (TREC 2003): F = 26*0.25/(25*0.5+0.5) = 6.5/13
    assert (p, r) == (0.5, 0.5)
    assert f == pytest.approx(0.5)
    _, _, f5 = nugget_f(vital_matched=2, okay_matched=1, vital_total=4, length=900, beta=5.0)
    assert f5 == pytest.approx(26 * (1 / 3) * 0.5 / (25 / 3 + 0.5))


def test_pyramid_worked_values():
    # votes (4, 2, 1, 0) -> weights (1, .5, .25, 0); matched {1, 3} ->
    # R = (.5 + 0) / 1.75 = 0.2857143; allowance 200 > 150 -> P = 1;
    # F3 = 10 * 0.2857143 / (9 + 0.2857143) = 0.3076923.
    weights = pyramid_weights([4, 2, 1, 0])
    assert weights.tolist() == [1.0, 0.5, 0.25, 0.0]
    for matched in ([1, 3], [False, True, False, True], np.array([3, 1])):
        p, r, f = pyramid_f(weights=weights, matched=matched, length=150)
        assert p == 1.0
        assert r == pytest.approx(0.2857143, abs=5e-8)
        assert f == pytest.approx(0.3076923, abs=5e-8)


def test_pyramid_allowance_counts_zero_weight_nuggets():
    # Nugget 3 has weight 0 but still earns 100 characters: l=150 fits only
    # because two nuggets matched.
    with_zero = pyramid_f(weights=[1, 0.5, 0.25, 0], matched=[1, 3], length=150)
    without = pyramid_f(weights=[1, 0.5, 0.25, 0], matched=[1], length=150)
    assert with_zero.precision == 1.0
    assert without.precision == pytest.approx(100 / 150)


# --------------------------------------------------------------------------
# Degenerate cases
# --------------------------------------------------------------------------


def test_no_vital_nuggets_gives_nan_recall_and_f():
    p, r, f = nugget_f(vital_matched=0, okay_matched=2, vital_total=0, length=300)
    assert p == pytest.approx(200 / 300)
    assert math.isnan(r) and math.isnan(f)


def test_length_zero_has_precision_one():
    assert nugget_f(vital_matched=0, okay_matched=0, vital_total=3, length=0).precision == 1.0
    assert pyramid_f(weights=[1, 0.5], matched=[], length=0).precision == 1.0


def test_precision_and_recall_zero_give_f_zero():
    score = nugget_f(vital_matched=0, okay_matched=0, vital_total=3, length=50)
    assert score == (0.0, 0.0, 0.0)


def test_length_at_allowance_has_precision_one():
    assert nugget_f(vital_matched=1, okay_matched=1, vital_total=2, length=200).precision == 1.0
    assert nugget_f(vital_matched=1, okay_matched=1, vital_total=2, length=201).precision == pytest.approx(200 / 201)


def test_all_zero_votes_give_zero_weights_and_nan_pyramid_recall():
    weights = pyramid_weights([0, 0, 0])
    assert weights.tolist() == [0.0, 0.0, 0.0]
    p, r, f = pyramid_f(weights=weights, matched=[0], length=10)
    assert p == 1.0
    assert math.isnan(r) and math.isnan(f)


def test_pyramid_weights_per_question_and_batched():
    votes = np.array([[2, 1, 3, 0, 0], [0, 0, 1, 2, 4]])
    weights = pyramid_weights(votes, question_index=[0, 0, 1, 1, 2], n_questions=4)
    assert weights.tolist() == [[1.0, 0.5, 1.0, 0.0, 0.0], [0.0, 0.0, 0.5, 1.0, 1.0]]


def test_pyramid_recall_is_invariant_to_the_normalisation():
    # Dividing by the question's maximum (section 4) scales numerator and
    # denominator alike, so raw votes give the same recall as weights.
    votes = np.array([4, 2, 1, 0])
    normalised = pyramid_f(weights=pyramid_weights(votes), matched=[0, 2], length=500)
    raw = pyramid_f(weights=votes / 10, matched=[0, 2], length=500)
    assert normalised.recall == pytest.approx(raw.recall)


# --------------------------------------------------------------------------
# response_length
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 0),
        ("   \n\t", 0),
        ("AARP lobbies", 11),
        ("a\u00a0b\u3000c\u2003d", 4),  # no-break, ideographic and em spaces
        (["First F16s", " built in 1974 "], 9 + 11),
    ],
)
def test_response_length_counts_non_whitespace(text, expected):
    assert response_length(text) == expected


def test_response_length_rejects_non_text():
    with pytest.raises(ValueError, match="text"):
        response_length(b"bytes")


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------

GOOD = {"vital_matched": 2, "okay_matched": 1, "vital_total": 4, "length": 250}


@pytest.mark.parametrize(
    ("change", "argument"),
    [
        ({"vital_matched": -1}, "vital_matched"),
        ({"okay_matched": -2}, "okay_matched"),
        ({"vital_total": -4}, "vital_total"),
        ({"length": -1}, "length"),
        ({"vital_matched": 5}, "vital_matched"),
        ({"vital_matched": 1.5}, "vital_matched"),
        ({"vital_total": float("nan")}, "vital_total"),
        ({"length": "long"}, "length"),
        ({"beta": 0}, "beta"),
        ({"beta": -3}, "beta"),
        ({"length": [1, 2]}, "length"),
    ],
)
def test_nugget_f_rejects_bad_arguments(change, argument):
    with pytest.raises(ValueError, match=argument):
        nugget_f(**{**GOOD, **change})


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"weights": [1.2, 0.5], "matched": [0], "length": 10}, "weights"),
        ({"weights": [-0.1, 0.5], "matched": [0], "length": 10}, "weights"),
        ({"weights": [[1, 0.5]], "matched": [0], "length": 10}, "weights"),
        ({"weights": [1, 0.5], "matched": [2], "length": 10}, "matched"),
        ({"weights": [1, 0.5], "matched": [-1], "length": 10}, "matched"),
        ({"weights": [1, 0.5, 0], "matched": [0, 1, 0], "length": 10}, "matched"),
        ({"weights": [1, 0.5], "matched": [True, False, True], "length": 10}, "matched"),
        ({"weights": [1, 0.5], "matched": [0.5], "length": 10}, "matched"),
        ({"weights": [1, 0.5], "matched": [0], "length": -5}, "length"),
    ],
)
def test_pyramid_f_rejects_bad_arguments(kwargs, argument):
    with pytest.raises(ValueError, match=argument):
        pyramid_f(**kwargs)


def test_pyramid_weights_rejects_bad_votes():
    with pytest.raises(ValueError, match="vital_votes"):
        pyramid_weights([1, -1])
    with pytest.raises(ValueError, match="vital_votes"):
        pyramid_weights(3)
    with pytest.raises(ValueError, match="question_index"):
        pyramid_weights([1, 2, 3], question_index=[0, 1])
    with pytest.raises(ValueError, match="question_index"):
        pyramid_weights([1, 2], question_index=[0.0, 1.0])
    with pytest.raises(ValueError, match="n_questions"):
        pyramid_weights([1, 2], question_index=[0, 2], n_questions=2)


def test_batch_functions_reject_mismatched_shapes():
    with pytest.raises(ValueError, match="broadcast"):
        nugget_f_batch([1, 2], [0, 0, 0], 3, 100)
    with pytest.raises(ValueError, match="vital_matched"):
        nugget_f_batch([1, 4], 0, [3, 3], 100)
    with pytest.raises(ValueError, match="matches"):
        pyramid_f_batch([1, 0.5], [[True, False, True]], [10])
    with pytest.raises(ValueError, match="matches"):
        pyramid_f_batch([1, 0.5], [[0, 2]], [10])
    with pytest.raises(ValueError, match="lengths"):
        pyramid_f_batch([1, 0.5], [[True, False]], [10, 20])
    with pytest.raises(ValueError, match="lengths"):
        pyramid_f_batch([1, 0.5], [[True, False]], [10], question_index=[0, 1])
    with pytest.raises(ValueError, match="weights"):
        pyramid_f_batch([[[1, 0.5]]], [[True, False]], [10])


def test_campaign_analyses_reject_bad_inputs():
    labels = [[1, 0], [0, 1]]
    matches = [[1, 1]]
    with pytest.raises(ValueError, match="matches"):
        assessor_agreement(labels, [[1, 1, 0]], [[10]], question_index=[0, 0])
    with pytest.raises(ValueError, match="vital_labels"):
        assessor_agreement([[1, 2], [0, 1]], matches, [[10]], question_index=[0, 0])
    with pytest.raises(ValueError, match="lengths"):
        quantisation(labels, matches, [[10, 10]], question_index=[0, 0])
    with pytest.raises(ValueError, match="original"):
        assessor_agreement(labels, matches, [[10]], question_index=[0, 0], original=2)
    with pytest.raises(ValueError, match="max_subsets"):
        pyramid_size_analysis(labels, matches, [[10]], question_index=[0, 0], max_subsets=0)
    with pytest.raises(ValueError, match="a and b"):
        paired_t_test([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="groups"):
        one_way_anova([1, 2, 3])


# --------------------------------------------------------------------------
# Batch forms against the scalar forms
# --------------------------------------------------------------------------


def test_nugget_f_batch_equals_scalar_with_broadcasting():
    rng = np.random.default_rng(1)
    total = rng.integers(0, 6, (4, 1, 5))
    vital = np.minimum(rng.integers(0, 6, (4, 3, 5)), total)
    okay = rng.integers(0, 4, (3, 5))
    length = rng.choice([0, 50, 150, 300, 800, 2000], (1, 3, 5))
    batch = nugget_f_batch(vital, okay, total, length)
    assert batch.f.shape == (4, 3, 5)
    for a, r, q in np.ndindex(4, 3, 5):
        scalar = nugget_f(
            vital_matched=int(vital[a, r, q]),
            okay_matched=int(okay[r, q]),
            vital_total=int(total[a, 0, q]),
            length=float(length[0, r, q]),
        )
        np.testing.assert_allclose([b[a, r, q] for b in batch], scalar, rtol=1e-12)
    assert np.isnan(batch.f).any() and (batch.f == 0).any()


def random_campaign(rng, *, n_sets=3, n_runs=5, n_questions=4, shuffle=True):
    sizes = rng.integers(1, 7, n_questions)
    question_index = np.repeat(np.arange(n_questions), sizes)
    if shuffle:
        question_index = rng.permutation(question_index)
    n = question_index.size
    weights = rng.choice([0.0, 0.25, 0.5, 1.0], (n_sets, n))
    matches = rng.random((n_runs, n)) < 0.4
    lengths = rng.choice([0, 80, 250, 700, 1500], (n_runs, n_questions)).astype(float)
    return weights, matches, lengths, question_index


def test_pyramid_f_batch_equals_scalar():
    rng = np.random.default_rng(2)
    weights, matches, lengths, question_index = random_campaign(rng)
    batch = pyramid_f_batch(weights, matches, lengths, question_index=question_index)
    assert batch.f.shape == (3, 5, 4)
    for j, r, q in np.ndindex(*batch.f.shape):
        in_q = question_index == q
        scalar = pyramid_f(weights=weights[j, in_q], matched=matches[r, in_q], length=lengths[r, q])
        np.testing.assert_allclose([b[j, r, q] for b in batch], scalar, rtol=1e-12)


def test_pyramid_f_batch_single_question_and_single_set_shapes():
    weights = np.array([1.0, 0.5, 0.25, 0.0])
    matches = np.array([[0, 1, 0, 1], [1, 1, 1, 1]], dtype=bool)
    batch = pyramid_f_batch(weights, matches, [150, 1000])
    assert batch.f.shape == (2,)
    assert batch.recall.tolist() == pytest.approx([0.2857143, 1.0])
    assert batch.precision.tolist() == pytest.approx([1.0, 0.4])
    per_question = pyramid_f_batch(weights, matches, [[150], [1000]], question_index=[0, 0, 0, 0])
    assert per_question.f.shape == (2, 1)
    np.testing.assert_allclose(per_question.f[:, 0], batch.f)


def test_pyramid_f_batch_question_without_nuggets_is_nan():
    batch = pyramid_f_batch([1.0, 0.0], [[True, True]], [[100, 0, 10]], question_index=[0, 2], n_questions=3)
    assert np.isnan(batch.recall[0, 1])
    assert batch.precision[0, 1] == 1.0  # length 0
    assert batch.precision[0, 2] == 1.0  # 10 characters, one matched nugget


def test_pyramid_reduces_to_binary_model_for_one_assessor():
    # Section 4: "vital nuggets get a score of one, and okay nuggets zero".
    rng = np.random.default_rng(3)
    _, matches, lengths, question_index = random_campaign(rng, n_runs=6, n_questions=5)
    labels = rng.random(question_index.size) < 0.4
    weights = pyramid_weights(labels.astype(int), question_index=question_index)
    has_vital = np.bincount(question_index, weights=labels, minlength=5) > 0
    np.testing.assert_array_equal(weights, labels * has_vital[question_index])
    batch = pyramid_f_batch(weights, matches, lengths, question_index=question_index)
    for r, q in np.ndindex(6, 5):
        in_q = question_index == q
        binary = nugget_f(
            vital_matched=int((matches[r] & labels & in_q).sum()),
            okay_matched=int((matches[r] & ~labels & in_q).sum()),
            vital_total=int((labels & in_q).sum()),
            length=lengths[r, q],
        )
        np.testing.assert_allclose([b[r, q] for b in batch], binary, rtol=1e-12)


def test_scores_do_not_depend_on_nugget_order():
    rng = np.random.default_rng(4)
    weights, matches, lengths, question_index = random_campaign(rng, shuffle=False)
    order = rng.permutation(question_index.size)
    before = pyramid_f_batch(weights, matches, lengths, question_index=question_index)
    after = pyramid_f_batch(weights[:, order], matches[:, order], lengths, question_index=question_index[order])
    np.testing.assert_allclose(after.f, before.f, rtol=1e-12)


# --------------------------------------------------------------------------
# Run scores, rankings, Kendall tau, tests
# --------------------------------------------------------------------------


def test_run_scores_skip_undefined_questions():
    scores = np.array([[[0.5, np.nan, 0.1], [0.2, np.nan, 0.4]], [[np.nan] * 3, [1.0, 0.0, 0.5]]])
    np.testing.assert_allclose(run_scores(scores), [[0.3, 0.3], [np.nan, 0.5]])


def test_run_ranking_orders_best_first():
    assert run_ranking([0.1, 0.9, 0.5, np.nan, 0.9]).tolist() == [1, 4, 2, 0, 3]


def test_kendall_tau_matrix_equals_scipy_tau_b_with_ties():
    rng = np.random.default_rng(5)
    x = rng.integers(0, 5, (6, 15)).astype(float)  # many ties
    y = rng.integers(0, 4, (4, 15)).astype(float)
    x[0] = 2.0  # constant: tau undefined
    y[1, 3] = np.nan
    tau = kendall_tau_matrix(x, y)
    for i, j in np.ndindex(6, 4):
        assert kendall_tau(x[i], y[j]) == pytest.approx(tau[i, j], abs=1e-12, nan_ok=True)
        if i > 0 and j != 1:
            assert tau[i, j] == pytest.approx(scipy.stats.kendalltau(x[i], y[j]).statistic, abs=1e-12)
    assert np.isnan(tau[0]).all() and np.isnan(tau[:, 1]).all()


def test_kendall_tau_perfect_and_reversed():
    scores = np.array([0.3, 0.1, 0.7, 0.2])
    assert kendall_tau(scores, 2 * scores) == pytest.approx(1.0)
    assert kendall_tau_matrix(scores, -scores)[0, 0] == pytest.approx(-1.0)
    # symmetry
    other = np.array([0.1, 0.3, 0.7, 0.2])
    assert kendall_tau(scores, other) == pytest.approx(kendall_tau(other, scores))


def test_paired_t_test_and_anova_equal_scipy():
    rng = np.random.default_rng(6)
    a, b = rng.normal(0.8, 0.05, 9), rng.normal(0.75, 0.05, 9)
    expected = scipy.stats.ttest_rel(a, b)
    result = paired_t_test(a, b)
    assert isinstance(result, PairedTTest)
    assert (result.statistic, result.pvalue, result.df) == pytest.approx((expected.statistic, expected.pvalue, 8))
    groups = [rng.normal(0.8, 0.05, 10) for _ in range(5)]
    anova = one_way_anova(*groups)
    expected = scipy.stats.f_oneway(*groups)
    assert isinstance(anova, Anova)
    assert (anova.statistic, anova.pvalue) == pytest.approx((expected.statistic, expected.pvalue))
    assert (anova.df_between, anova.df_within) == (4, 45)


def test_zero_median_questions():
    scores = np.array([[0.0, 0.0, np.nan], [0.0, 0.4, np.nan], [0.5, 0.1, np.nan]])
    assert zero_median_questions(scores).tolist() == [True, False, False]


# --------------------------------------------------------------------------
# Campaign analyses against straightforward loops over scalar functions
# --------------------------------------------------------------------------


def labelled_campaign(seed, *, n_assessors=4, n_runs=8, n_questions=6):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 7, n_questions)
    question_index = rng.permutation(np.repeat(np.arange(n_questions), sizes))
    n = question_index.size
    labels = rng.random((n_assessors, n)) < 0.35
    matches = rng.random((n_runs, n)) < rng.uniform(0.1, 0.7, (n_runs, 1))
    lengths = rng.integers(0, 1200, (n_runs, n_questions)).astype(float)
    return labels, matches, lengths, question_index


def loop_scores(weights_of_question, matches, lengths, question_index):
    """F[r, q] with pyramid_f; weights_of_question(q) gives the question's weights."""
    n_runs, n_questions = lengths.shape
    scores = np.empty((n_runs, n_questions))
    for q in range(n_questions):
        in_q = question_index == q
        weights = weights_of_question(q)
        for r in range(n_runs):
            scores[r, q] = pyramid_f(weights=weights, matched=matches[r, in_q], length=lengths[r, q]).f
    return scores


def loop_assessor_scores(labels, matches, lengths, question_index):
    """F[a, r, q] with nugget_f from each assessor's vital/okay counts."""
    n_runs, n_questions = lengths.shape
    out = []
    for a in range(labels.shape[0]):
        scores = np.empty((n_runs, n_questions))
        for q in range(n_questions):
            in_q = question_index == q
            for r in range(n_runs):
                scores[r, q] = nugget_f(
                    vital_matched=int((matches[r] & labels[a] & in_q).sum()),
                    okay_matched=int((matches[r] & ~labels[a] & in_q).sum()),
                    vital_total=int((labels[a] & in_q).sum()),
                    length=lengths[r, q],
                ).f
        out.append(scores)
    return np.array(out)


def loop_pyramid_scores(subset, labels, matches, lengths, question_index):
    votes = labels[list(subset)].sum(axis=0)
    return loop_scores(lambda q: pyramid_weights(votes[question_index == q]), matches, lengths, question_index)


def scipy_tau(x, y):
    if np.isnan(x).any() or np.isnan(y).any():
        return np.nan
    return scipy.stats.kendalltau(x, y).statistic


def test_assessor_agreement_matches_loop_reference():
    labels, matches, lengths, question_index = labelled_campaign(7)
    result = assessor_agreement(labels, matches, lengths, question_index=question_index)
    assessor_f = loop_assessor_scores(labels, matches, lengths, question_index)
    pyramid_f_ = loop_pyramid_scores(range(4), labels, matches, lengths, question_index)
    np.testing.assert_allclose(result.assessor_scores, assessor_f, rtol=1e-12)
    np.testing.assert_allclose(result.pyramid_scores, pyramid_f_, rtol=1e-12)
    runs = np.array([np.nanmean(s, axis=1) for s in assessor_f])
    pyramid_runs = np.nanmean(pyramid_f_, axis=1)
    tau_original = [scipy_tau(runs[0], runs[a]) for a in range(4)]
    tau_pyramid = [scipy_tau(pyramid_runs, runs[a]) for a in range(4)]
    np.testing.assert_allclose(result.tau_original, tau_original, rtol=1e-12)
    np.testing.assert_allclose(result.tau_pyramid, tau_pyramid, rtol=1e-12)
    assert result.tau_original[0] == pytest.approx(1.0)
    assert result.mean_tau_original == pytest.approx(np.mean(tau_original[1:]))
    assert result.mean_tau_pyramid == pytest.approx(np.mean(tau_pyramid[1:]))
    expected = scipy.stats.ttest_rel(tau_pyramid[1:], tau_original[1:])
    assert (result.t_test.statistic, result.t_test.pvalue) == pytest.approx((expected.statistic, expected.pvalue))


def test_assessor_agreement_original_can_be_another_row():
    labels, matches, lengths, question_index = labelled_campaign(8)
    moved = assessor_agreement(labels[[2, 1, 0, 3]], matches, lengths, question_index=question_index, original=2)
    base = assessor_agreement(labels, matches, lengths, question_index=question_index)
    np.testing.assert_allclose(moved.tau_original, base.tau_original[[2, 1, 0, 3]])
    assert moved.mean_tau_pyramid == pytest.approx(base.mean_tau_pyramid)


@pytest.mark.parametrize("exclude_members", [False, True])
def test_pyramid_size_analysis_matches_loop_reference(exclude_members):
    labels, matches, lengths, question_index = labelled_campaign(9)
    n = labels.shape[0]
    result = pyramid_size_analysis(
        labels, matches, lengths, question_index=question_index, exclude_members=exclude_members
    )
    assessor_runs = np.nanmean(loop_assessor_scores(labels, matches, lengths, question_index), axis=2)
    expected_tau = np.full((n, n), np.nan)
    expected_zero = np.empty(n)
    for m in range(1, n + 1):
        taus = {a: [] for a in range(n)}
        zero = []
        for subset in itertools.combinations(range(n), m):
            scores = loop_pyramid_scores(subset, labels, matches, lengths, question_index)
            zero.append(np.mean(np.median(scores, axis=0) == 0))
            for a in range(n):
                if not (exclude_members and a in subset):
                    taus[a].append(scipy_tau(np.nanmean(scores, axis=1), assessor_runs[a]))
        expected_tau[m - 1] = [np.mean(taus[a]) if taus[a] else np.nan for a in range(n)]
        expected_zero[m - 1] = np.mean(zero)
    assert result.n_subsets.tolist() == [math.comb(n, m) for m in range(1, n + 1)]
    np.testing.assert_allclose(result.tau_by_assessor, expected_tau, rtol=1e-12)
    np.testing.assert_allclose(result.mean_tau, np.mean(expected_tau, axis=1), rtol=1e-12)
    np.testing.assert_allclose(result.zero_median_fraction, expected_zero, rtol=1e-12)
    if exclude_members:
        assert np.isnan(result.tau_by_assessor[-1]).all()
    else:
        t = scipy.stats.ttest_rel(expected_tau[1], expected_tau[0])
        assert (result.one_vs_two.statistic, result.one_vs_two.pvalue) == pytest.approx((t.statistic, t.pvalue))
        f = scipy.stats.f_oneway(*expected_tau[1:])
        assert (result.anova_beyond_two.statistic, result.anova_beyond_two.pvalue) == pytest.approx(
            (f.statistic, f.pvalue)
        )


def test_quantisation_matches_loop_reference():
    labels, matches, lengths, question_index = labelled_campaign(10)
    result = quantisation(labels, matches, lengths, question_index=question_index)
    counts = np.array([[labels[a, question_index == q].sum() for q in range(6)] for a in range(4)])
    zero = np.median(loop_assessor_scores(labels, matches, lengths, question_index), axis=1) == 0
    pyramid = loop_pyramid_scores(range(4), labels, matches, lengths, question_index)
    np.testing.assert_array_equal(result.vital_counts, counts)
    np.testing.assert_array_equal(result.zero_median, zero)
    assert result.one_vital.tolist() == (counts == 1).sum(axis=1).tolist()
    assert result.two_vital.tolist() == (counts == 2).sum(axis=1).tolist()
    assert result.no_vital.tolist() == (counts == 0).sum(axis=1).tolist()
    assert result.zero_median_count.tolist() == zero.sum(axis=1).tolist()
    few = (counts == 1) | (counts == 2)
    assert result.zero_median_few_vital.tolist() == (zero & few).sum(axis=1).tolist()
    assert result.pyramid_zero_median_count == int((np.median(pyramid, axis=0) == 0).sum())


def test_subset_sample_is_seeded_distinct_and_capped():
    rng = np.random.default_rng(0)
    members = _assessor_subsets(10, 4, 50, rng)
    assert members.shape == (50, 10)
    assert (members.sum(axis=1) == 4).all()
    assert np.unique(members, axis=0).shape[0] == 50
    again = _assessor_subsets(10, 4, 50, np.random.default_rng(0))
    np.testing.assert_array_equal(members, again)
    assert _assessor_subsets(10, 4, 210, rng).shape[0] == 210  # C(10, 4): all of them


def test_pyramid_size_analysis_samples_when_subsets_are_many():
    labels, matches, lengths, question_index = labelled_campaign(11, n_assessors=6)
    kwargs = {"question_index": question_index, "max_subsets": 5}
    first = pyramid_size_analysis(labels, matches, lengths, seed=1, **kwargs)
    assert first.n_subsets.tolist() == [5, 5, 5, 5, 5, 1]
    again = pyramid_size_analysis(labels, matches, lengths, seed=1, **kwargs)
    np.testing.assert_array_equal(first.tau_by_assessor, again.tau_by_assessor)


# --------------------------------------------------------------------------
# Synthetic campaign: assessors are noisy copies of a common truth
# --------------------------------------------------------------------------


def noisy_campaign(seed=2006, *, n_assessors=8, n_runs=40, n_questions=40, flip=0.25):
    """Assessors flip each true vital/okay label with probability ``flip``.

    One question in three has few true vital nuggets (Table 2). Each run has
    its own rates of finding truly vital and truly okay nuggets, so which
    nuggets count as vital changes the ranking.
    """
    rng = np.random.default_rng(seed)
    sizes = rng.integers(6, 16, n_questions)
    question_index = np.repeat(np.arange(n_questions), sizes)
    n = question_index.size
    truth = rng.random(n) < np.where(np.arange(n_questions) % 3 == 0, 0.12, 0.35)[question_index]
    labels = truth ^ (rng.random((n_assessors, n)) < flip)
    find_vital = rng.uniform(0.05, 0.6, (n_runs, 1))
    find_okay = rng.uniform(0.05, 0.6, (n_runs, 1))
    matches = rng.random((n_runs, n)) < np.where(truth, find_vital, find_okay)
    lengths = rng.integers(100, 2500, (n_runs, n_questions)).astype(float)
    return labels, matches, lengths, question_index


def test_pyramid_agrees_with_assessors_better_than_the_original():
    labels, matches, lengths, question_index = noisy_campaign()
    result = assessor_agreement(labels, matches, lengths, question_index=question_index)
    # Seeded values: mean tau 0.836 (pyramid) vs 0.711 (assessor 0).
    assert result.mean_tau_pyramid >= result.mean_tau_original + 0.05
    assert (result.tau_pyramid[1:] > result.tau_original[1:]).all()
    assert result.t_test.statistic > 0 and result.t_test.pvalue < 0.01


def test_a_wrongly_built_pyramid_fails_the_agreement_property():
    # Guard on the test above: weighting by "okay" votes instead of "vital"
    # votes must not reach the original assessor's agreement.
    labels, matches, lengths, question_index = noisy_campaign()
    result = assessor_agreement(labels, matches, lengths, question_index=question_index)
    wrong_weights = pyramid_weights((~labels).sum(axis=0), question_index=question_index)
    wrong = run_scores(pyramid_f_batch(wrong_weights, matches, lengths, question_index=question_index).f)
    wrong_tau = kendall_tau_matrix(wrong, result.assessor_run_scores)[0, 1:]
    # Seeded value: 0.584.
    assert wrong_tau.mean() < result.mean_tau_original - 0.1


def test_pyramid_size_properties_on_synthetic_campaign():
    labels, matches, lengths, question_index = noisy_campaign(n_assessors=6, n_runs=30, n_questions=30)
    result = pyramid_size_analysis(labels, matches, lengths, question_index=question_index)
    # Figure 2: a second assessor raises agreement significantly.
    assert result.mean_tau[1] > result.mean_tau[0] + 0.01
    assert result.one_vs_two.statistic > 0 and result.one_vs_two.pvalue < 0.05
    # ... and, as in the paper, nothing significant beyond two (seeded p = 0.95).
    assert result.anova_beyond_two.df_between == 4
    assert result.anova_beyond_two.pvalue > 0.05
    # Figure 3: more assessors, fewer questions whose median score is zero.
    assert result.zero_median_fraction[-1] < result.zero_median_fraction[0]
    assert np.all(np.diff(result.zero_median_fraction) <= 1e-12)


def test_quantisation_on_synthetic_campaign():
    labels, matches, lengths, question_index = noisy_campaign()
    result = quantisation(labels, matches, lengths, question_index=question_index)
    # Zero medians concentrate on questions with few vital nuggets, and the
    # pyramid of all assessors has fewer of them than any single assessor.
    few = (result.vital_counts >= 1) & (result.vital_counts <= 2)
    assert result.zero_median_few_vital.sum() > 0
    assert (result.zero_median & few).mean() / few.mean() > result.zero_median.mean()
    assert result.pyramid_zero_median_count < result.zero_median_count.min()


@pytest.mark.parametrize(
    ("a", "b"),
    [([0.9, 0.8, 0.7], [0.8, 0.7, 0.6]), ([0.5, 0.5, 0.5], [0.4, 0.4, 0.4]), ([1.0, 2.0], [1.0, 2.0])],
)
def test_a_paired_t_test_of_equal_differences_has_no_t(a, b):
    """Equal differences (or equal but for rounding: scipy's t is then about 2.7e15) have no
    variance to test against: no t, no p."""
    result = paired_t_test(a, b)
    assert np.isnan(result.statistic) and np.isnan(result.pvalue) and result.df == len(a) - 1
    # a spread of differences the scores themselves make is still tested, as scipy tests it
    spread = paired_t_test([0.9, 0.8, 0.7], [0.8, 0.7, 0.65])
    assert spread.statistic == pytest.approx(scipy.stats.ttest_rel([0.9, 0.8, 0.7], [0.8, 0.7, 0.65]).statistic)
