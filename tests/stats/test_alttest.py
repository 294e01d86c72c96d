"""The Alternative Annotator Test (stats/alttest.py) against its definitions, its invariants,
a plain implementation written here, and the authors' released code.

Calderon, Reichart & Dror (2025), "The Alternative Annotator Test for LLM-as-a-Judge: How to
Statistically Justify Replacing Human Annotators with LLMs", ACL 2025 (Long Papers),
pp. 16051-16081: alignment scores (section 3.1), advantage probabilities (3.2), the
one-sided paired t-test, Benjamini-Yekutieli and the winning rate (3.3, Appendix C.6),
the average advantage probability and the optimal judge (3.4, Theorem 1, Appendix D).
The paper prints no worked example, so the hand-made tables below work every step out in
their comments. The reference implementation (``reference_alt_test``) follows the paper's
formulas with loops over annotators and instances, scipy's t-tests and statsmodels'
``multipletests(method="fdr_by")``. The authors' values (``AUTHORS_*``) are what their
``alt_test`` (github.com/nitaytech/AltTest, ``alt_test_example.ipynb``) returns on the
tables built here; none of their code or data is in this repository.
"""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from stats.alttest import (
    RECOMMENDED_EPSILON,
    AltTestResult,
    advantage_units,
    alt_test,
    compare_judges,
)
from stats.ratings import SparseRatings

nan = float("nan")


# --- tables -----------------------------------------------------------------------------

# Seven instances, three annotators (A, B, C), label codes 0-2, and the judge's labels.
# Row x5 has one human rating (no "remaining annotators": it never counts) and the judge
# gave no label on x6 (it never counts either).
SMALL_ACC = np.array(
    [
        [0, 0, 1],  # x1
        [1, 1, 1],  # x2
        [0, 1, 1],  # x3
        [2, 2, nan],  # x4
        [1, nan, nan],  # x5
        [0, 2, 2],  # x6
        [nan, 0, 2],  # x7
    ]
)
SMALL_ACC_JUDGE = np.array([0, 1, 1, 0, 1, nan, 2])

# Three instances rated 1-5 by A, B, C, and the judge's ratings.
SMALL_RMSE = np.array([[1, 2, 4], [5, 5, 4], [2, 4, 3]], dtype=float)
SMALL_RMSE_JUDGE = np.array([3, 5, 3], dtype=float)


def lcg(seed: int):
    """A plain linear congruential generator (the table is the same on every machine and numpy)."""
    state = seed
    while True:
        state = (1103515245 * state + 12345) % 2**31
        yield state >> 16


def lcg_panel(
    n_items: int, n_raters: int, labels: list[float], seed: int, *, agree: int = 75, missing: int = 10
) -> tuple[np.ndarray, np.ndarray]:
    """Raters who give an item's true label ``agree``% of the time (else any label), skip ``missing``%
    of items, and a judge that gives the true label 80% of the time and skips 5% of items."""
    draw = lcg(seed)
    truth = [labels[next(draw) % len(labels)] for _ in range(n_items)]
    table = np.full((n_items, n_raters), nan)
    judge = np.full(n_items, nan)
    for i, label in enumerate(truth):
        for j in range(n_raters):
            roll = next(draw) % 100
            if roll >= missing:
                table[i, j] = label if next(draw) % 100 < agree else labels[next(draw) % len(labels)]
        roll = next(draw) % 100
        if roll >= 5:
            judge[i] = label if next(draw) % 100 < 80 else labels[next(draw) % len(labels)]
    return table, judge


def random_panel(
    seed: int, n_items: int, n_raters: int, n_labels: int, *, agree: float = 0.7, present: float = 0.75
) -> tuple[np.ndarray, np.ndarray]:
    """Integer labels 0..n_labels-1 with missing ratings, and a noisy judge with missing labels."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_labels, n_items)
    table = np.where(
        rng.random((n_items, n_raters)) < agree, truth[:, None], rng.integers(0, n_labels, (n_items, n_raters))
    )
    table = np.where(rng.random((n_items, n_raters)) < present, table, np.nan)
    judge = np.where(rng.random(n_items) < 0.75, truth, rng.integers(0, n_labels, n_items)).astype(float)
    judge[rng.random(n_items) < 0.05] = np.nan
    return table.astype(float), judge


# --- the plain implementation -------------------------------------------------------------


def accuracy(label, others):
    return float(np.mean([label == other for other in others]))


def neg_rmse(label, others):
    return -float(np.sqrt(np.mean([(label - other) ** 2 for other in others])))


def reference_alt_test(table, judge, score, *, epsilon, q=0.05, min_instances=30, min_raters=2):
    """The paper's procedure written out: loops over annotators and instances, scipy's t-test,
    statsmodels' Benjamini-Yekutieli. Returns per-annotator rows and (omega, rho)."""
    n_items, n_raters = table.shape
    humans = {j: {i: table[i, j] for i in range(n_items) if not np.isnan(table[i, j])} for j in range(n_raters)}
    raters_of = {i: [j for j in range(n_raters) if i in humans[j]] for i in range(n_items)}
    counted = {i for i in range(n_items) if len(raters_of[i]) >= min_raters and not np.isnan(judge[i])}
    rows = {}
    for j in range(n_raters):
        judge_wins, human_wins = [], []
        for i in sorted(humans[j]):
            if i not in counted:
                continue
            others = [humans[k][i] for k in raters_of[i] if k != j]
            s_judge, s_human = score(judge[i], others), score(humans[j][i], others)
            judge_wins.append(1.0 if s_judge >= s_human else 0.0)
            human_wins.append(1.0 if s_judge <= s_human else 0.0)
        rows[j] = {"instances": len(judge_wins), "judge_wins": judge_wins, "human_wins": human_wins}
    tested = [j for j in range(n_raters) if rows[j]["instances"] >= min_instances]
    for j in tested:
        w_judge, w_human = np.array(rows[j]["judge_wins"]), np.array(rows[j]["human_wins"])
        one_sample = stats.ttest_1samp(w_human - w_judge, epsilon, alternative="less")
        paired = stats.ttest_rel(w_judge, w_human - epsilon, alternative="greater")
        rows[j].update(
            rho_judge=w_judge.mean(),
            rho_human=w_human.mean(),
            t=float(one_sample.statistic),
            p=float(one_sample.pvalue),
            p_paired=float(paired.pvalue),
        )
    rejected = set()
    if tested:
        reject, adjusted, _, _ = multipletests([rows[j]["p"] for j in tested], alpha=q, method="fdr_by")
        for j, is_rejected, p_adjusted in zip(tested, reject, adjusted):
            rows[j]["rejected"], rows[j]["p_adjusted"] = bool(is_rejected), float(p_adjusted)
            if is_rejected:
                rejected.add(j)
    omega = len(rejected) / len(tested) if tested else nan
    rho = float(np.mean([rows[j]["rho_judge"] for j in tested])) if tested else nan
    return rows, omega, rho


def assert_matches_reference(result: AltTestResult, reference) -> None:
    rows, omega, rho = reference
    assert result.tested == sum(1 for row in rows.values() if "t" in row)
    for comparison in result.annotators:
        row = rows[comparison.annotator]
        assert comparison.instances == row["instances"]
        assert comparison.tested == ("t" in row)
        if not comparison.tested:
            assert math.isnan(comparison.t) and math.isnan(comparison.p_value) and not comparison.rejected
            continue
        assert comparison.rho_judge == row["rho_judge"]
        assert comparison.rho_human == row["rho_human"]
        assert comparison.t == pytest.approx(row["t"], rel=1e-12, abs=1e-12)
        assert comparison.p_value == pytest.approx(row["p"], rel=1e-12, abs=1e-15)
        assert comparison.p_value == pytest.approx(row["p_paired"], rel=1e-9, abs=1e-15)
        assert comparison.p_adjusted == pytest.approx(row["p_adjusted"], rel=1e-12, abs=1e-15)
        assert comparison.rejected == row["rejected"]
    assert result.winning_rate == pytest.approx(omega, abs=1e-12, nan_ok=True)
    assert result.average_advantage == pytest.approx(rho, abs=1e-12, nan_ok=True)


# --- the definitions worked by hand ----------------------------------------------------------


def student_cdf_3(t: float) -> float:
    """P(T_3 <= t) in closed form: 1/2 + (atan(u) + u / (1 + u^2)) / pi, u = t / sqrt(3)."""
    u = t / math.sqrt(3)
    return 0.5 + (math.atan(u) + u / (1 + u * u)) / math.pi


def student_cdf_4(t: float) -> float:
    """P(T_4 <= t) in closed form: 1/2 + 3/8 t / sqrt(1 + x) (1 - x / (3 (1 + x))), x = t^2 / 4."""
    x = t * t / 4
    return 0.5 + 3 / 8 * t / math.sqrt(1 + x) * (1 - x / (3 * (1 + x)))


def student_cdf_2(t: float) -> float:
    """P(T_2 <= t) in closed form: 1/2 + t / (2 sqrt(2 + t^2))."""
    return 0.5 + t / (2 * math.sqrt(2 + t * t))


def test_accuracy_by_hand():
    result = alt_test(SMALL_ACC, SMALL_ACC_JUDGE, epsilon=0.2, min_instances=3)
    rows = result.instances
    # Counted (annotator, instance) pairs, by item then annotator: x5 (one rating) and x6 (no
    # judge label) never count. ACC(a) = share of the other annotators who gave label a.
    assert list(zip(rows.item.tolist(), rows.annotator.tolist())) == [
        (0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2), (3, 0), (3, 1), (6, 1), (6, 2),
    ]  # fmt: skip
    # x1 [0, 0, 1], judge 0: A's others B=0, C=1: ACC(A=0) = 1/2, ACC(f=0) = 1/2 (tie);
    #   B's others A=0, C=1: 1/2 vs 1/2 (tie); C's others A=0, B=0: ACC(C=1) = 0, ACC(f=0) = 1.
    # x2 [1, 1, 1], judge 1: every score 1 (ties).
    # x3 [0, 1, 1], judge 1: A's others 1, 1: ACC(A=0) = 0, ACC(f=1) = 1; B's others 0, 1: 1/2 vs 1/2;
    #   C's others 0, 1: 1/2 vs 1/2.
    # x4 [2, 2, -], judge 0: A's other B=2: ACC(A=2) = 1, ACC(f=0) = 0; B likewise.
    # x7 [-, 0, 2], judge 2: B's other C=2: ACC(B=0) = 0, ACC(f=2) = 1; C's other B=0: 0 vs 0.
    assert rows.judge_score.tolist() == [0.5, 0.5, 1, 1, 1, 1, 1, 0.5, 0.5, 0, 0, 1, 0]
    assert rows.human_score.tolist() == [0.5, 0.5, 0, 1, 1, 1, 0, 0.5, 0.5, 1, 1, 0, 0]
    # W^f = [S(f) >= S(h)], W^h = [S(f) <= S(h)]: a tie counts for both (section 3.2).
    assert rows.judge_wins.tolist() == [True, True, True, True, True, True, True, True, True, False, False, True, True]
    assert rows.human_wins.tolist() == [True, True, False, True, True, True, False, True, True, True, True, False, True]
    a, b, c = result.annotators
    # A: I_A = {x1, x2, x3, x4}, d = W^h - W^f = [0, 0, -1, +1]: rho^f = rho^h = 3/4, mean d = 0,
    #   s^2 = 2 / 3, t = (0 - 0.2) / (sqrt(2/3) / 2) = -0.2 sqrt(6), 3 degrees of freedom.
    assert (a.instances, a.rho_judge, a.rho_human) == (4, 0.75, 0.75)
    assert a.t == pytest.approx(-0.2 * math.sqrt(6), rel=1e-14)
    assert a.p_value == pytest.approx(student_cdf_3(-0.2 * math.sqrt(6)), rel=1e-12)  # 0.32890
    # B: I_B = {x1, x2, x3, x4, x7}, d = [0, 0, 0, +1, -1]: rho^f = rho^h = 4/5, mean 0, s^2 = 2/4,
    #   t = -0.2 / (sqrt(1/2) / sqrt(5)) = -0.2 sqrt(10), 4 degrees of freedom.
    assert (b.instances, b.rho_judge, b.rho_human) == (5, 0.8, 0.8)
    assert b.t == pytest.approx(-0.2 * math.sqrt(10), rel=1e-14)
    assert b.p_value == pytest.approx(student_cdf_4(-0.2 * math.sqrt(10)), rel=1e-12)  # 0.28072
    # C: I_C = {x1, x2, x3, x7}, d = [-1, 0, 0, 0]: rho^f = 1, rho^h = 3/4, mean -1/4,
    #   s^2 = ((3/4)^2 + 3 (1/4)^2) / 3 = 1/4, t = (-1/4 - 0.2) / (1/2 / 2) = -1.8, 3 degrees of freedom.
    assert (c.instances, c.rho_judge, c.rho_human) == (4, 1.0, 0.75)
    assert c.t == pytest.approx(-1.8, rel=1e-14)
    assert c.p_value == pytest.approx(student_cdf_3(-1.8), rel=1e-12)  # 0.08484
    # Benjamini-Yekutieli, m = 3, c_3 = 1 + 1/2 + 1/3 = 11/6: thresholds (k/3) 0.05 / (11/6) = k / 110.
    # Sorted: C 0.0848 > 1/110, B 0.2807 > 2/110, A 0.3289 > 3/110: nothing rejected.
    # Adjusted p: m c_3 p / rank = 5.5 p / rank, made monotone from the largest rank down:
    #   A (rank 3) 5.5 x 0.32890 / 3 = 0.60298, B (rank 2) min(5.5 x 0.28072 / 2, 0.60298) = 0.60298,
    #   C (rank 1) min(5.5 x 0.08484, 0.60298) = 0.46662.
    assert [x.rejected for x in result.annotators] == [False, False, False]
    assert a.p_adjusted == pytest.approx(5.5 * a.p_value / 3, rel=1e-12)
    assert b.p_adjusted == a.p_adjusted
    assert c.p_adjusted == pytest.approx(5.5 * c.p_value, rel=1e-12)
    # omega = 0 / 3: the judge fails; rho = (3/4 + 4/5 + 1) / 3 = 0.85 (section 3.4).
    assert (result.winning_rate, result.passes, result.tested) == (0.0, False, 3)
    assert result.average_advantage == pytest.approx(0.85, rel=1e-15)


def test_benjamini_yekutieli_by_hand():
    # The small table ten times over: the same advantage probabilities on ten times the instances.
    result = alt_test(np.tile(SMALL_ACC, (10, 1)), np.tile(SMALL_ACC_JUDGE, 10), epsilon=0.2)
    a, b, c = result.annotators
    # A: n = 40, d = [0, 0, -1, +1] x 10: mean 0, s^2 = 20 / 39, s / sqrt(n) = sqrt(1 / 78): t = -0.2 sqrt(78) = -sqrt(3.12).
    # B: n = 50, d = [0, 0, 0, +1, -1] x 10: mean 0, s^2 = 20 / 49, s / sqrt(n) = sqrt(2 / 245): t = -sqrt(4.9).
    # C: n = 40, d = [-1, 0, 0, 0] x 10: mean -1/4, s^2 = 7.5 / 39, s / sqrt(n) = sqrt(1 / 208): t = -0.45 sqrt(208) = -sqrt(42.12).
    assert [x.instances for x in result.annotators] == [40, 50, 40]
    assert (a.t, b.t, c.t) == pytest.approx((-math.sqrt(3.12), -math.sqrt(4.9), -math.sqrt(42.12)), rel=1e-13)
    # p = P(T_{n-1} <= t): Student's t with 39, 49 and 39 degrees of freedom.
    assert (a.p_value, b.p_value, c.p_value) == pytest.approx(
        (0.04258179622420187, 0.015771467660363667, 5.411872423330606e-08), rel=1e-9
    )
    # Thresholds k / 110 (m = 3, c_3 = 11/6, q = 0.05): C 5.4e-8 <= 0.00909 (rank 1), B 0.01577 <=
    # 0.01818 (rank 2), A 0.04258 > 0.02727 (rank 3): the largest rank under its threshold is 2, so
    # B and C are rejected, A is not. (Bonferroni's 0.05 / 3 = 0.0167 would reject the same two;
    # a plain 0.05 would reject all three.)
    assert [x.rejected for x in result.annotators] == [False, True, True]
    # omega = 2/3 >= 0.5: the judge passes; rho is still (0.75 + 0.8 + 1) / 3 = 0.85.
    assert result.winning_rate == pytest.approx(2 / 3, rel=1e-15)
    assert result.passes
    assert result.average_advantage == pytest.approx(0.85, rel=1e-15)


def test_neg_rmse_by_hand():
    result = alt_test(SMALL_RMSE, SMALL_RMSE_JUDGE, level="interval", epsilon=0.2, min_instances=3)
    rows = result.instances
    r = math.sqrt
    # -RMSE(a) = -sqrt(mean over the other two annotators of (a - h_k)^2):
    # y1 [1, 2, 4], judge 3: A others 2, 4: -sqrt((1 + 9) / 2) = -sqrt(5) vs f: -sqrt((1 + 1) / 2) = -1;
    #   B others 1, 4: -sqrt((1 + 4) / 2) vs f: -sqrt((4 + 1) / 2): a tie (the midpoint of 2 and 3 is the
    #   others' mean 2.5); C others 1, 2: -sqrt((9 + 4) / 2) vs f: -sqrt((4 + 1) / 2).
    # y2 [5, 5, 4], judge 5: A others 5, 4: -sqrt(1/2) vs the same (tie); B likewise; C others 5, 5:
    #   -sqrt((1 + 1) / 2) = -1 vs f: 0.
    # y3 [2, 4, 3], judge 3: A others 4, 3: -sqrt((4 + 1) / 2) vs f: -sqrt((1 + 0) / 2); B others 2, 3:
    #   -sqrt((4 + 1) / 2) vs f: -sqrt((1 + 0) / 2); C others 2, 4: -sqrt((1 + 1) / 2) = -1 vs f: -1 (tie).
    assert rows.human_score.tolist() == pytest.approx(
        [-r(5), -r(2.5), -r(6.5), -r(0.5), -r(0.5), -1, -r(2.5), -r(2.5), -1], rel=1e-15
    )
    assert rows.judge_score.tolist() == pytest.approx(
        [-1, -r(2.5), -r(2.5), -r(0.5), -r(0.5), 0, -r(0.5), -r(0.5), -1], rel=1e-15
    )
    a, b, c = result.annotators
    # A: d = [-1, 0, -1]: rho^f = 1, rho^h = 1/3, mean -2/3, s^2 = (1/9 + 4/9 + 1/9) / 2 = 1/3,
    #   t = (-2/3 - 0.2) / (sqrt(1/3) / sqrt(3)) = -13/15 x 3 = -2.6, 2 degrees of freedom.
    # B: d = [0, 0, -1]: rho^h = 2/3, mean -1/3, s^2 = 1/3, t = (-1/3 - 0.2) x 3 = -1.6.
    # C: d = [-1, -1, 0]: as A, t = -2.6.
    assert [(x.rho_judge, x.rho_human) for x in result.annotators] == [(1, 1 / 3), (1, 2 / 3), (1, 1 / 3)]
    assert (a.t, b.t, c.t) == pytest.approx((-2.6, -1.6, -2.6), rel=1e-14)
    assert (a.p_value, b.p_value, c.p_value) == pytest.approx(
        (student_cdf_2(-2.6), student_cdf_2(-1.6), student_cdf_2(-2.6)), rel=1e-12
    )  # 0.0608, 0.1254, 0.0608
    # Thresholds k / 110: 0.0608 > 1/110 and > 2/110, 0.1254 > 3/110: nothing rejected. rho = 1 (the
    # judge is at least as good as each annotator on every instance), omega = 0: three instances give
    # the t-test no power (section 5.1).
    assert not any(x.rejected for x in result.annotators)
    assert (result.winning_rate, result.average_advantage, result.passes) == (0.0, 1.0, False)


# --- the authors' released code --------------------------------------------------------------

# Their alt_test(llm_annotations, humans_annotations, scoring_function, epsilon) with its defaults
# (q_fdr 0.05, at least 2 humans per instance, at least 30 instances per human), run on these
# tables given as their dictionaries (annotator -> instance -> label; missing ratings left out),
# returns (winning rate, advantage probability):
AUTHORS_TILED = (0.6666666666666666, 0.85)  # SMALL_ACC x 10, "accuracy", epsilon 0.2
AUTHORS_ACC = (0.4, 0.8638866144345597)  # lcg_panel(90, 5, [0, 1, 2, 3], seed=6, agree=70), "accuracy", epsilon 0.1
AUTHORS_RMSE = (0.6, 0.820684183456969)  # lcg_panel(90, 5, [1, 2, 3, 4, 5], seed=2, agree=60), "neg_rmse", epsilon 0.1


def test_authors_code_values():
    tiled = alt_test(np.tile(SMALL_ACC, (10, 1)), np.tile(SMALL_ACC_JUDGE, 10), epsilon=0.2)
    assert (tiled.winning_rate, tiled.average_advantage) == pytest.approx(AUTHORS_TILED, abs=1e-15)
    table, judge = lcg_panel(90, 5, [0, 1, 2, 3], seed=6, agree=70)
    result = alt_test(table, judge, epsilon=0.1)
    assert (result.winning_rate, result.average_advantage) == pytest.approx(AUTHORS_ACC, abs=1e-15)
    assert not result.passes  # 2 of 5 annotators beaten
    table, judge = lcg_panel(90, 5, [1, 2, 3, 4, 5], seed=2, agree=60)
    result = alt_test(table, judge, level="interval", epsilon=0.1)
    assert (result.winning_rate, result.average_advantage) == pytest.approx(AUTHORS_RMSE, abs=1e-15)
    assert result.passes  # 3 of 5


# --- against the plain implementation ---------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_accuracy_matches_reference(seed):
    rng = np.random.default_rng(seed)
    n_raters, n_labels = int(rng.integers(3, 8)), int(rng.integers(2, 6))
    table, judge = random_panel(seed, int(rng.integers(60, 140)), n_raters, n_labels)
    epsilon = float(rng.choice([0.0, 0.05, 0.1, 0.15, 0.2, 0.3]))
    result = alt_test(table, judge, epsilon=epsilon)
    assert_matches_reference(result, reference_alt_test(table, judge, accuracy, epsilon=epsilon))


@pytest.mark.parametrize("seed", range(6))
def test_neg_rmse_matches_reference_on_a_rating_scale(seed):
    table, judge = random_panel(100 + seed, 90, 5, 5, agree=0.5)
    table, judge = table + 1, judge + 1  # ratings 1-5
    epsilon = (0.0, 0.05, 0.1, 0.15, 0.2, 0.05)[seed]
    result = alt_test(table, judge, level="ordinal", alignment="neg_rmse", epsilon=epsilon, q=0.1)
    assert_matches_reference(result, reference_alt_test(table, judge, neg_rmse, epsilon=epsilon, q=0.1))


@pytest.mark.parametrize("seed", range(4))
def test_neg_rmse_matches_reference_on_real_values(seed):
    rng = np.random.default_rng(200 + seed)
    truth = rng.normal(50, 10, 80)
    table = truth[:, None] + rng.normal(0, 3, (80, 6))
    table[rng.random((80, 6)) < 0.2] = np.nan
    judge = truth + rng.normal(0, 2.5, 80)
    result = alt_test(table, judge, level="ratio", epsilon=0.1)
    reference = reference_alt_test(table, judge, neg_rmse, epsilon=0.1)
    assert_matches_reference(result, reference)
    # The scores themselves agree to rounding (measured from the item's first rating, not from 0).
    rows = result.instances
    expected = [
        neg_rmse(table[i, j], [table[i, k] for k in range(6) if k != j and not np.isnan(table[i, k])])
        for i, j in zip(rows.item, rows.annotator)
    ]
    assert rows.human_score.tolist() == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_similarity_matches_reference(seed):
    def closeness(a, b):
        return 1 / (1 + np.abs(np.asarray(a) - np.asarray(b)))

    table, judge = random_panel(300 + seed, 70, 6, 7, agree=0.4, present=0.8)
    result = alt_test(table, judge, alignment=closeness, epsilon=0.1)
    assert result.alignment == "similarity"

    def score(label, others):
        return float(np.mean([closeness(label, other) for other in others]))

    assert_matches_reference(result, reference_alt_test(table, judge, score, epsilon=0.1))


def test_similarity_over_many_blocks(monkeypatch):
    # Blocks of a few pairs give the same sums as one block.
    table, judge = random_panel(5, 60, 5, 3)
    whole = alt_test(table, judge, alignment=lambda a, b: (a == b).astype(float), epsilon=0.1)
    monkeypatch.setattr("stats.alttest._BLOCK_PAIRS", 7)
    blocked = alt_test(table, judge, alignment=lambda a, b: (a == b).astype(float), epsilon=0.1)
    assert blocked.instances.judge_score.tolist() == whole.instances.judge_score.tolist()
    assert blocked.instances.human_score.tolist() == whole.instances.human_score.tolist()
    # Equality as a similarity is ACC.
    plain = alt_test(table, judge, epsilon=0.1)
    assert plain.instances.judge_score.tolist() == whole.instances.judge_score.tolist()
    assert [a.p_value for a in plain.annotators] == [a.p_value for a in whole.annotators]


def test_min_raters_and_min_instances_match_reference():
    table, judge = random_panel(11, 150, 6, 3, present=0.6)
    table[60:, 5] = np.nan  # annotator 5 rates about 36 of the first 60 items, fewer with two other ratings
    result = alt_test(table, judge, epsilon=0.2, min_raters=3, min_instances=35)
    reference = reference_alt_test(table, judge, accuracy, epsilon=0.2, min_raters=3, min_instances=35)
    assert_matches_reference(result, reference)
    assert result.tested == 5 and not result.annotators[5].tested  # left out of m, omega and rho


# --- invariants ---------------------------------------------------------------------------------


def reliable_panel(seed: int, n_items: int = 100, n_raters: int = 5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, n_items)
    table = np.where(rng.random((n_items, n_raters)) < 0.85, truth[:, None], rng.integers(0, 4, (n_items, n_raters)))
    return table.astype(float)


def majority(table: np.ndarray) -> np.ndarray:
    counts = np.stack([(table == label).sum(axis=1) for label in range(4)], axis=1)
    return counts.argmax(axis=1).astype(float)  # ties to the smallest label: Theorem 1 allows any


@pytest.mark.parametrize("seed", range(3))
def test_the_majority_is_the_optimal_judge_and_passes(seed):
    table = reliable_panel(seed)
    for epsilon in (0.05, 0.1, 0.2):
        result = alt_test(table, majority(table), epsilon=epsilon)
        # Theorem 1 (Appendix D): under ACC the majority vote has W^f = 1 on every instance.
        assert bool(result.instances.judge_wins.all())
        assert result.average_advantage == 1.0
        assert result.passes and result.winning_rate == 1.0


def test_the_mean_is_the_optimal_judge_under_neg_rmse():
    table = reliable_panel(4) + 1
    result = alt_test(table, table.mean(axis=1), level="interval", epsilon=0.1)
    assert bool(result.instances.judge_wins.all())  # Theorem 1: the mean has rho = 1
    assert result.average_advantage == 1.0 and result.passes


@pytest.mark.parametrize("seed", range(3))
def test_a_random_judge_fails(seed):
    table = reliable_panel(seed)
    guess = np.random.default_rng(seed + 50).integers(0, 4, len(table)).astype(float)
    for epsilon in RECOMMENDED_EPSILON.values():
        result = alt_test(table, guess, epsilon=epsilon)
        assert result.winning_rate == 0.0 and not result.passes
        assert result.average_advantage < 0.5


def test_a_judge_that_copies_an_annotator():
    table, _ = random_panel(21, 80, 4, 3)
    copy = table[:, 0].copy()
    result = alt_test(table, copy, epsilon=0.1)
    first = result.annotators[0]
    # Against the annotator it copies every instance is a tie: rho^f = rho^h = 1, every d = 0, so
    # s = 0 and t = -inf: p = 0 and the null (1 <= 1 - 0.1) is rejected.
    assert bool((result.instances.judge_score == result.instances.human_score)[result.instances.annotator == 0].all())
    assert (first.rho_judge, first.rho_human, first.t, first.p_value) == (1.0, 1.0, -math.inf, 0.0)
    assert first.rejected
    # With epsilon = 0 the null holds with equality: t is undefined, p = 1, not rejected.
    first = alt_test(table, copy, epsilon=0.0).annotators[0]
    assert math.isnan(first.t) and first.p_value == 1.0 and not first.rejected
    # The copy only labels what annotator 0 labelled.
    assert set(result.instances.item.tolist()) <= set(np.flatnonzero(~np.isnan(copy)).tolist())


def test_everyone_agrees():
    # Every instance a tie: the judge passes (the paper's Appendix C.1 notes this of a skewed label).
    result = alt_test(np.ones((40, 3)), np.ones(40), epsilon=0.2)
    assert result.passes and result.average_advantage == 1.0
    assert all(a.t == -math.inf and a.p_value == 0.0 for a in result.annotators)


def comparable(result: AltTestResult) -> list[tuple]:
    return [
        (a.instances, a.rho_judge, a.rho_human, a.t, a.p_value, a.p_adjusted, a.tested, a.rejected)
        for a in result.annotators
    ]


def test_label_permutation():
    table, judge = random_panel(31, 120, 5, 4)
    before = alt_test(table, judge, epsilon=0.1)
    relabel = np.array([7.0, -2.0, 0.5, 3.0])  # any relabelling of the nominal codes
    after = alt_test(
        np.where(np.isnan(table), np.nan, relabel[np.nan_to_num(table).astype(int)]),
        np.where(np.isnan(judge), np.nan, relabel[np.nan_to_num(judge).astype(int)]),
        epsilon=0.1,
    )
    assert comparable(after) == comparable(before)
    assert (after.winning_rate, after.average_advantage) == (before.winning_rate, before.average_advantage)


def test_scale_shift_and_reversal_under_neg_rmse():
    table, judge = random_panel(32, 120, 5, 5, agree=0.5)
    before = alt_test(table, judge, level="interval", epsilon=0.1)
    # 1e9 + a rating squares to about 1e18, beyond float64's exact integers: the sums are taken
    # from each item's first rating, so ties are still found exactly.
    shifted = ((table + 1000, judge + 1000), (table + 1e9, judge + 1e9), (6 - table, 6 - judge), (2 * table, 2 * judge))
    for moved, moved_judge in shifted:
        after = alt_test(moved, moved_judge, level="interval", epsilon=0.1)
        assert comparable(after) == comparable(before)
        assert after.instances.judge_wins.tolist() == before.instances.judge_wins.tolist()


def test_annotator_and_item_order():
    table, judge = random_panel(33, 100, 6, 3)
    before = alt_test(table, judge, epsilon=0.15)
    columns = np.array([3, 0, 5, 1, 4, 2])
    rows = np.random.default_rng(0).permutation(100)
    after = alt_test(table[rows][:, columns], judge[rows], epsilon=0.15)
    assert comparable(after) == [comparable(before)[c] for c in columns]
    assert after.winning_rate == before.winning_rate
    assert after.average_advantage == pytest.approx(before.average_advantage, abs=1e-15)


def test_sparse_ratings_give_the_same_result():
    table, judge = random_panel(34, 90, 5, 3)
    dense = alt_test(table, judge)
    sparse = alt_test(SparseRatings.from_dense(table), judge)
    assert comparable(sparse) == comparable(dense)


def test_nothing_to_test():
    table, judge = random_panel(35, 20, 4, 3)
    result = alt_test(table, judge)  # no annotator has 30 instances
    assert result.tested == 0 and not result.passes
    assert math.isnan(result.winning_rate) and math.isnan(result.average_advantage)
    assert not any(a.tested or a.rejected for a in result.annotators)
    assert math.isnan(advantage_units(result).value)
    silent = alt_test(table, np.full(20, np.nan), min_instances=2)  # the judge labelled nothing
    assert silent.tested == 0 and silent.instances.item.size == 0
    alone = alt_test(np.tile([[1.0, nan, nan]], (40, 1)), np.ones(40), min_instances=2)
    assert alone.tested == 0  # one rating per item: nobody to align with


# --- several judges and intervals -------------------------------------------------------------


def test_compare_judges():
    table = reliable_panel(40)
    rng = np.random.default_rng(41)
    best = majority(table)
    noisy = np.where(rng.random(100) < 0.7, best, rng.integers(0, 4, 100))
    guess = rng.integers(0, 4, 100).astype(float)
    comparison = compare_judges(table, [guess, best, noisy], epsilon=0.1)
    assert comparison.ranking == (1, 2, 0)
    assert comparison.average_advantage == tuple(
        alt_test(table, j, epsilon=0.1).average_advantage for j in (guess, best, noisy)
    )
    # Only the items every judge labelled count.
    noisy_gaps = noisy.astype(float)
    noisy_gaps[:10] = np.nan
    comparison = compare_judges(table, [best, noisy_gaps])
    assert comparison.results[0].instances.item.min() == 10
    assert compare_judges(table, [best, noisy_gaps], common_items=False).results[0].instances.item.min() == 0


def test_advantage_interval():
    table, judge = random_panel(42, 150, 5, 3)
    result = alt_test(table, judge, epsilon=0.1)
    units = advantage_units(result)
    assert units.value == result.average_advantage
    assert units.units == len(set(result.instances.item.tolist()))
    interval = units.interval(seed=1)
    assert interval.method == "bootstrap" and interval.low < result.average_advantage < interval.high
    for annotator in result.annotators:
        assert advantage_units(result, annotator=annotator.annotator).value == annotator.rho_judge


def test_crowd_is_held_sparse():
    # 20,000 items x 2,000 raters x 10 ratings: a dense items x raters array would be 40,000,000
    # cells (320 MB of float64); the test's arrays grow with the 200,000 ratings instead.
    rng = np.random.default_rng(43)
    n_items, n_raters, per_item = 20_000, 2_000, 10
    items = np.repeat(np.arange(n_items), per_item)
    raters = (np.arange(n_items)[:, None] * 37 + np.arange(per_item)[None, :] * 199).ravel() % n_raters
    truth = rng.integers(0, 3, n_items)
    values = np.where(rng.random(items.size) < 0.8, truth[items], rng.integers(0, 3, items.size))
    table = SparseRatings.from_entries(items, raters, values, n_items=n_items, n_raters=n_raters)
    tracemalloc.start()
    try:
        result = alt_test(table, truth.astype(float))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.tested == n_raters and result.passes
    assert peak < 60_000_000


# --- the boundary ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"ratings": [1, 2, 3]}, "ratings must be 2-D"),
        ({"ratings": [["a", "b"], ["a", "a"]], "judge": [0, 0]}, "ratings must be numeric"),
        ({"ratings": [[1], [2]], "judge": [1, 2]}, "at least two raters"),
        ({"judge": [0, 1]}, r"judge must have shape \(7,\)"),
        ({"judge": ["x"] * 7}, "judge must be numeric"),
        ({"judge": [math.inf] * 7}, "judge must hold finite labels"),
        ({"level": "binary"}, "level must be one of"),
        ({"alignment": "kappa"}, "alignment must be"),
        ({"alignment": "neg_rmse"}, "nominal codes"),
        ({"epsilon": -0.1}, "epsilon"),
        ({"epsilon": 1.0}, "epsilon"),
        ({"epsilon": math.nan}, "epsilon"),
        ({"epsilon": True}, "epsilon"),
        ({"q": 0.0}, "q must be"),
        ({"q": "0.05"}, "q must be"),
        ({"threshold": 0.0}, "threshold"),
        ({"threshold": 1.5}, "threshold"),
        ({"min_instances": 1}, "min_instances"),
        ({"min_instances": 2.5}, "min_instances"),
        ({"min_raters": True}, "min_raters"),
        ({"alignment": lambda a, b: np.zeros(1)}, "one value per pair"),
        ({"alignment": lambda a, b: np.full(len(a), np.nan)}, "finite values"),
    ],
)
def test_bad_arguments(kwargs, message):
    arguments = {"ratings": SMALL_ACC, "judge": SMALL_ACC_JUDGE, "min_instances": 2} | kwargs
    with pytest.raises(ValueError, match=message):
        alt_test(arguments.pop("ratings"), arguments.pop("judge"), **arguments)


def test_bad_judges_and_annotator():
    with pytest.raises(ValueError, match=r"judges must have shape \(n_judges, 7\)"):
        compare_judges(SMALL_ACC, SMALL_ACC_JUDGE)
    with pytest.raises(ValueError, match="judges must be numeric"):
        compare_judges(SMALL_ACC, [["x"] * 7])
    result = alt_test(SMALL_ACC, SMALL_ACC_JUDGE, min_instances=3)
    for annotator in (3, -1, True, 1.0):
        with pytest.raises(ValueError, match="annotator must be a column"):
            advantage_units(result, annotator=annotator)
