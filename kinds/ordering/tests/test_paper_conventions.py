"""Paper-exact conventions: WCA's weights (Kim, Zhai & Han 4.2), RBA's ties
(4.3) and the factoid annotation kappa's unit (van Halteren & Teufel 3.1)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kinds.ordering.stats import (
    discriminativeness,
    kendall_tau,
    noise_robustness,
    rank_based,
    spearman_rho,
    wca_weights,
    weighted_correlation,
)

pytestmark = pytest.mark.filterwarnings("error")


def close_orderings(rng: np.random.Generator, k: int, n: int, swaps: int) -> list[list[int]]:
    """n copies of one random permutation of k items, each with ``swaps`` random adjacent swaps."""
    base = rng.permutation(k)
    golds = []
    for _ in range(n):
        gold = base.copy()
        for _ in range(swaps):
            i = int(rng.integers(0, k - 1))
            gold[i], gold[i + 1] = gold[i + 1], gold[i]
        golds.append(gold.tolist())
    return golds


def test_wca_paper_weights_give_minus_three_where_clamped_give_minus_one():
    # Four agreeing golds (weight (3 x 1 + -1) / 4 = 1/2 each) and their reverse (weight -1).
    golds = ["ABCD"] * 4 + ["DCBA"]
    assert wca_weights(golds).tolist() == [0.5, 0.5, 0.5, 0.5, -1.0]
    assert wca_weights(golds, weights="clamped").tolist() == [0.5, 0.5, 0.5, 0.5, 0.0]
    assert weighted_correlation("DCBA", golds) == -1.0
    assert weighted_correlation("DCBA", golds, weights="clamped") == -1.0
    # (4 x 0.5 x -1 + -1 x 1) / (4 x 0.5 - 1) = -3 / 1
    assert weighted_correlation("DCBA", golds, weights="paper") == -3.0
    assert weighted_correlation("DCBA", golds, measure="spearman", weights="paper") == -3.0


def test_wca_paper_is_the_formula_as_written():
    rng = np.random.default_rng(15)
    for _ in range(50):
        k, n = int(rng.integers(3, 8)), int(rng.integers(2, 7))
        golds = [rng.permutation(k).tolist() for _ in range(n)]
        target = rng.permutation(k).tolist()
        for measure, correlation in (("tau", kendall_tau), ("spearman", spearman_rho)):
            c = np.array([[correlation(a, b) for b in golds] for a in golds])
            w = (c.sum(axis=1) - 1.0) / (n - 1)
            scores = np.array([correlation(target, g) for g in golds])
            got = weighted_correlation(target, golds, measure=measure, weights="paper")
            if abs(w.sum()) < 1e-12:
                assert got == pytest.approx(scores.mean(), abs=1e-12)  # undefined: AC
            else:
                assert got == pytest.approx(scores @ w / w.sum(), rel=1e-9, abs=1e-12)
            assert wca_weights(golds, measure=measure, weights="paper") == pytest.approx(w, abs=1e-12)


def test_wca_paper_with_weights_summing_to_zero_is_ac():
    golds = ["ABC", "ABC", "ABC", "CBA"]  # weights 1/3, 1/3, 1/3, -1: the formula divides by 0
    assert wca_weights(golds).sum() == pytest.approx(0.0, abs=1e-15)
    # tau(ACB, ABC) = 1/3 three times, tau(ACB, CBA) = -1/3: AC = 1/6
    assert weighted_correlation("ACB", golds, weights="paper") == pytest.approx(1 / 6, abs=1e-15)
    # A single gold has no weight (a mean over no other gold): AC under both conventions.
    assert weighted_correlation("ACB", ["ABC"], weights="paper") == pytest.approx(1 / 3)


def test_wca_rejects_unknown_weights():
    with pytest.raises(ValueError, match="weights must be 'clamped' or 'paper'"):
        weighted_correlation("ABC", ["ABC", "ACB"], weights="raw")
    with pytest.raises(ValueError, match="weights must be"):
        wca_weights(["ABC", "ACB"], weights="raw")


def test_wca_named_ed_takes_the_weights():
    golds = ["ABCD"] * 4 + ["DCBA"]
    clamped = discriminativeness(golds, "wca-tau")
    paper = discriminativeness(golds, "wca-tau", weights="paper")
    assert clamped == discriminativeness(golds, weighted_correlation) / 2
    assert paper == discriminativeness(golds, weighted_correlation, weights="paper") / 2
    assert clamped != paper


def test_table_1_style_noise_experiment_under_both_weights():
    """KZH Table 1's design on synthetic data: 10 topics of 9 items, 10 assessors each (a shared
    order with 4 random adjacent swaps per assessor, seed 2010), random orderings added at
    r = 0, 0.25, ..., 1, 3 seeds. These are this setup's values (the paper gives neither its data nor its seeds). Here the
    paper's weights lose less ED with noise (random assessors' negative weights count against
    them instead of being ignored)."""
    rng = np.random.default_rng(2010)
    topics = {t: close_orderings(rng, 9, 10, 4) for t in range(10)}
    clamped = noise_robustness(topics, "wca-tau", seeds=3)
    paper = noise_robustness(topics, "wca-tau", seeds=3, weights="paper")
    assert clamped.ed == pytest.approx((0.745300, 0.552790, 0.465895, 0.375567, 0.328256), abs=5e-7)
    assert paper.ed == pytest.approx((0.745300, 0.605157, 0.541021, 0.464429, 0.415358), abs=5e-7)
    assert (round(clamped.max_min, 3), round(paper.max_min, 3)) == (0.417, 0.330)


def test_rba_default_does_not_depend_on_the_order_of_the_golds():
    # B and C tie on summed ranks; tie_break="first" follows the first gold: 0.667 vs 1.0.
    assert rank_based("ABCD", ["ACBD", "ABCD"], tie_break="first") == pytest.approx(2 / 3)
    assert rank_based("ABCD", ["ABCD", "ACBD"], tie_break="first") == 1.0
    assert rank_based("ABCD", ["ACBD", "ABCD"]) == rank_based("ABCD", ["ABCD", "ACBD"]) == pytest.approx(5 / 6)
    # Spearman: mean of rho(ABCD, ACBD) = 0.8 and rho(ABCD, ABCD) = 1.
    assert rank_based("ABCD", ["ACBD", "ABCD"], measure="spearman") == pytest.approx(0.9)
    assert rank_based("ABCD", ["ACBD", "ABCD"], tie_break="id") == 1.0


def _mean_over_tied_orders(target, golds, correlation) -> float:
    items = list(golds[0])
    sums = {x: sum(list(g).index(x) for g in golds) for x in items}
    groups = [[x for x in items if sums[x] == s] for s in sorted(set(sums.values()))]
    values = [
        correlation(target, [x for group in combo for x in group])
        for combo in itertools.product(*(list(itertools.permutations(g)) for g in groups))
    ]
    return float(np.mean(values))


def test_rba_average_is_the_exact_mean_over_the_tied_consensus_orders():
    rng = np.random.default_rng(43)
    for _ in range(200):
        k, n = int(rng.integers(2, 7)), int(rng.integers(1, 5))
        golds = [rng.permutation(k).tolist() for _ in range(n)]
        target = rng.permutation(k).tolist()
        for measure, correlation in (("tau", kendall_tau), ("spearman", spearman_rho)):
            expected = _mean_over_tied_orders(target, golds, correlation)
            assert rank_based(target, golds, measure=measure) == pytest.approx(expected, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 7).flatmap(
        lambda k: st.tuples(
            st.permutations(list(range(k))),
            st.lists(st.permutations(list(range(k))), min_size=1, max_size=6),
            st.randoms(use_true_random=False),
        )
    ),
    st.sampled_from(["tau", "spearman"]),
)
def test_permuting_the_golds_never_changes_rba(case, measure):
    target, golds, random = case
    shuffled = list(golds)
    random.shuffle(shuffled)
    assert rank_based(target, shuffled, measure=measure) == pytest.approx(
        rank_based(target, golds, measure=measure), abs=1e-12
    )
    if len(golds) >= 2:
        assert discriminativeness(shuffled, "rba-" + ("tau" if measure == "tau" else "sp")) == pytest.approx(
            discriminativeness(golds, "rba-" + ("tau" if measure == "tau" else "sp")), abs=1e-12
        )


def test_rba_rejects_unknown_tie_break():
    with pytest.raises(ValueError, match="'average', 'first' or 'id'"):
        rank_based("ABC", ["ABC"], tie_break="random")
