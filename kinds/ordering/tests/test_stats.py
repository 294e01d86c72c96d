"""Tests for kinds.ordering.stats: the paper's examples, scipy and prefixspan, brute force, invariants."""

from __future__ import annotations

import itertools
import json
import math
import pathlib
from collections import Counter, defaultdict
from fractions import Fraction

import numpy as np
import pytest
from prefixspan import PrefixSpan
from scipy import stats

from kinds.ordering import _frespa
from kinds.ordering import stats as ordering
from kinds.ordering.stats import (
    METHODS,
    PAPER_SWEEPS,
    FrespaSetting,
    NoiseRobustness,
    average_correlation,
    discriminativeness,
    discriminativeness_each,
    frespa,
    frespa_sweep,
    kendall_tau,
    kendall_tau_matrix,
    noise_robustness,
    rank_based,
    rank_consensus,
    spearman_rho,
    support_threshold,
    tune,
    wca_weights,
    weighted_correlation,
)

pytestmark = pytest.mark.filterwarnings("error")

SQUALITY = pathlib.Path(__file__).resolve().parents[3] / "data" / "squality-human-eval" / "all-responses.jsonl"


def close_orderings(rng: np.random.Generator, k: int, n: int, swaps: int = 2) -> list[list[int]]:
    """n copies of one random permutation, each with ``swaps`` random adjacent swaps."""
    base = rng.permutation(k)
    golds = []
    for _ in range(n):
        gold = base.copy()
        for _ in range(swaps if k > 1 else 0):
            i = int(rng.integers(0, k - 1))
            gold[i], gold[i + 1] = gold[i + 1], gold[i]
        golds.append(gold.tolist())
    return golds


# --------------------------------------------------------------------------- oracles


def brute_force_frespa(target, golds, *, min_sup, w_len, w_sup, min_len, max_len) -> float:
    """FreSPA by listing every subsequence of every gold (KZH section 4.4, literally)."""
    threshold = max(1, math.ceil(Fraction(str(min_sup)) * len(golds)))
    support: Counter = Counter()
    for gold in golds:
        for length in range(1, len(gold) + 1):
            support.update(itertools.combinations(gold, length))
    return _weighted(target, support.items(), threshold, w_len, w_sup, min_len, max_len)


def prefixspan_frespa(target, golds, *, min_sup, w_len, w_sup, min_len, max_len) -> float:
    """FreSPA from the frequent patterns PrefixSpan lists (what the paper did)."""
    threshold = max(1, math.ceil(Fraction(str(min_sup)) * len(golds)))
    miner = PrefixSpan([list(g) for g in golds])
    miner.minlen, miner.maxlen = min_len, (len(target) if max_len is None else max_len)
    patterns = [(tuple(p), s) for s, p in miner.frequent(threshold)] if miner.minlen <= miner.maxlen else []
    return _weighted(target, patterns, threshold, w_len, w_sup, min_len, max_len)


def _weighted(target, patterns, threshold, w_len, w_sup, min_len, max_len) -> float:
    position = {item: i for i, item in enumerate(target)}
    longest = len(target) if max_len is None else max_len
    numerator = denominator = 0.0
    for pattern, sup in patterns:
        if sup < threshold or not min_len <= len(pattern) <= longest:
            continue
        weight = (1 + w_len * (len(pattern) - 1)) * (1 + w_sup * (sup - 1))
        denominator += weight
        if all(position[a] < position[b] for a, b in zip(pattern, pattern[1:])):
            numerator += weight
    return numerator / denominator if denominator else 0.0


def random_frespa_case(rng: np.random.Generator) -> tuple[list, list[list], dict]:
    k = int(rng.integers(1, 9))
    n = int(rng.integers(1, 7))
    golds = close_orderings(rng, k, n, swaps=int(rng.integers(0, 4)))
    for i in range(n):
        if rng.random() < 0.2:
            golds[i] = rng.permutation(k).tolist()
        elif rng.random() < 0.2 and i > 0:
            golds[i] = list(golds[0])  # repeated golds take the multiplicity path
    target = rng.permutation(k).tolist() if rng.random() < 0.5 else list(golds[0])
    params = {
        "min_sup": float(rng.choice([0.0, 0.25, 0.5, 0.6, 0.7, 0.75, 1.0])),
        "w_len": float(rng.choice([0.0, 0.25, 1.0, 5.0])),
        "w_sup": float(rng.choice([0.0, 1.0, 3.0, 100.0])),
        "min_len": int(rng.integers(1, 6)),
        "max_len": [None, 1, 2, 3, 5, 8][int(rng.integers(0, 6))],
    }
    return target, golds, params


# --------------------------------------------------------------------------- the paper


def test_kendall_tau_paper_example():
    # KZH 4.1: "(ABCD) and (ACDB) have two discordant pairs since the orders of
    # BC and BD are reversed": tau = 1 - 2*2 / (4*3/2) = 1/3.
    assert kendall_tau("ABCD", "ACDB") == pytest.approx(1 / 3, abs=1e-15)
    assert kendall_tau(list("ACDB"), list("ABCD")) == pytest.approx(1 / 3, abs=1e-15)


def test_spearman_paper_formula_by_hand():
    # ranks A1 B2 C3 D4 vs A1 C2 D3 B4: d^2 = 0 + 4 + 1 + 1 = 6; 1 - 6*6 / (4*15) = 0.4.
    assert spearman_rho("ABCD", "ACDB") == pytest.approx(0.4, abs=1e-15)


def test_frespa_hand_worked_example():
    # KZH 4.4 with min_sup 0.75 of 3 golds -> support 3: the patterns in all of
    # ABCD, ABDC, ACBD are AB, AC, AD, BD (weight (1+1)(1+2) = 6) and ABD (weight 9).
    golds = ["ABCD", "ABDC", "ACBD"]
    assert frespa("BACD", golds) == pytest.approx(18 / 33, abs=1e-15)  # keeps AC, AD, BD
    assert frespa("ABDC", golds) == 1.0
    assert frespa("BACD", golds, min_len=3) == 0.0  # ABD only, which BACD breaks
    assert frespa("BACD", golds, w_len=0.0, w_sup=0.0) == pytest.approx(3 / 5, abs=1e-15)


def test_frespa_patterns_have_gaps():
    # KZH 4.4: in ABCD "both BC and BD are potential sequential patterns".
    # Of the six pairs of ABCD (equal weights), BDAC keeps AC, BC and BD.
    assert frespa("BDAC", ["ABCD"], min_sup=1.0, min_len=2, max_len=2) == 0.5


# KZH Table 1, rows "0" and "1" and the two summary rows, per method.
TABLE_1 = {
    "AC-tau": (0.454, 0.113, 0.341, 75.1),
    "AC-Sp": (0.542, 0.136, 0.406, 74.9),
    "WCA-tau": (0.459, 0.133, 0.326, 71.0),
    "WCA-Sp": (0.549, 0.159, 0.389, 70.9),
    "RBA-tau": (0.564, 0.307, 0.257, 45.6),
    "RBA-Sp": (0.676, 0.379, 0.297, 43.9),
    "FreSPA": (0.722, 0.395, 0.327, 45.3),
}


@pytest.mark.parametrize("method", TABLE_1)
def test_degradation_is_defined_as_in_table_1(method):
    ed_clean, ed_noisiest, max_min, percent = TABLE_1[method]
    got_max_min, got_percent = ordering._degradation([0, 0.25, 0.5, 0.75, 1], [ed_clean, 0, 0, 0, ed_noisiest])
    # The table's EDs are rounded to 3 decimals, hence the tolerances.
    assert got_max_min == pytest.approx(max_min, abs=1.01e-3)
    assert got_percent == pytest.approx(percent, abs=0.2)


# --------------------------------------------------------------------------- reference packages


def test_kendall_and_spearman_match_scipy_on_random_permutations():
    rng = np.random.default_rng(20100328)
    for _ in range(200):
        k = int(rng.integers(2, 40))
        a, b = rng.permutation(k), rng.permutation(k)
        ranks_a, ranks_b = np.argsort(a), np.argsort(b)
        assert kendall_tau(a, b) == pytest.approx(stats.kendalltau(ranks_a, ranks_b).statistic, abs=1e-12)
        assert spearman_rho(a, b) == pytest.approx(stats.spearmanr(ranks_a, ranks_b).statistic, abs=1e-12)
    # Long orderings are summed over blocks of item pairs.
    a, b = rng.permutation(2500), rng.permutation(2500)
    assert kendall_tau(a, b) == pytest.approx(stats.kendalltau(np.argsort(a), np.argsort(b)).statistic, abs=1e-12)


def test_kendall_tau_matrix_equals_kendall_tau_of_every_pair_bit_for_bit():
    # A topic report's tau matrix ranks every ordering once; each entry must be
    # what kendall_tau gives for the two orderings alone (item ids, not ranks).
    rng = np.random.default_rng(27)
    for k in (2, 3, 7, 30):
        items = [f"i{x}" for x in range(k)]
        orders = [[items[x] for x in rng.permutation(k)] for _ in range(6)] + [items, items[::-1]]
        matrix = kendall_tau_matrix(orders)
        for a in range(len(orders)):
            for b in range(len(orders)):
                assert matrix[a, b] == kendall_tau(orders[a], orders[b])
    with pytest.raises(ValueError, match="orders\\[1\\] has item ids not in orders\\[0\\]"):
        kendall_tau_matrix([["a", "b"], ["a", "c"]])
    with pytest.raises(ValueError, match="at least 2"):
        kendall_tau_matrix([["a", "b"]])


@pytest.mark.parametrize("path", ["doubling", "length-by-length"])
def test_frespa_equals_brute_force_on_random_small_cases(path, monkeypatch):
    if path == "length-by-length":
        # What support sets of more than 48 items take, here with chains handed
        # on one row at a time (as large sets are, in runs).
        monkeypatch.setattr(_frespa, "_DOUBLING_MAX_MEMBERS", 0)
        monkeypatch.setattr(_frespa, "_RUN_CELLS", 1)
    rng = np.random.default_rng(7)
    for _ in range(300):
        target, golds, params = random_frespa_case(rng)
        expected = brute_force_frespa(target, golds, **params)
        assert frespa(target, golds, **params) == pytest.approx(expected, rel=1e-12, abs=1e-12), (target, golds, params)


def test_frespa_equals_prefixspan_patterns():
    rng = np.random.default_rng(11)
    for _ in range(100):
        target, golds, params = random_frespa_case(rng)
        expected = prefixspan_frespa(target, golds, **params)
        assert frespa(target, golds, **params) == pytest.approx(expected, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize(
    ("golds", "target", "min_sup", "expected_threshold"),
    [
        ([[0, 1, 2]] * 10, [0, 1, 2], 0.7, 7),  # 0.7 * 10 is 7.000000000000001 in floats
        ([[0, 1, 2]] * 4, [0, 1, 2], 0.75, 3),
        ([[0, 1, 2]] * 5, [0, 1, 2], 0.0, 1),  # a pattern must still occur in some gold
        ([[0, 1, 2]] * 3, [0, 1, 2], 1.0, 3),
    ],
)
def test_support_threshold(golds, target, min_sup, expected_threshold):
    assert support_threshold(min_sup, len(golds)) == expected_threshold


def test_frespa_min_sup_edges_on_a_hand_case():
    golds = ["ABC", "ACB", "BAC"]
    # min_sup 0: every pattern of any gold.
    assert frespa("ABC", golds, min_sup=0.0) == pytest.approx(
        brute_force_frespa("ABC", golds, min_sup=0.0, w_len=1, w_sup=1, min_len=2, max_len=None), abs=1e-15
    )
    # min_sup 1: only AC is in all three golds.
    assert frespa("CBA", golds, min_sup=1.0) == 0.0
    assert frespa("BAC", golds, min_sup=1.0) == 1.0


# --------------------------------------------------------------------------- FreSPA edges and scale


def test_frespa_empty_pattern_set_scores_zero():
    golds = ["ABCD", "DCBA"]
    assert frespa("ABCD", golds, min_len=3, max_len=2) == 0.0
    assert frespa("ABCD", golds, min_sup=1.0) == 0.0  # the two golds share no pair
    assert frespa("ABCD", golds, min_len=5) == 0.0  # longer than k


def test_frespa_single_items_and_single_gold():
    assert frespa("DCBA", ["ABCD"], min_len=1, max_len=1) == 1.0  # every item is in the target
    # n = 1: every subsequence of the gold; the reverse shares only single items.
    assert frespa("DCBA", ["ABCD"], min_len=1, w_len=0.0, w_sup=0.0) == pytest.approx(4 / 15, abs=1e-15)
    assert frespa("ABCD", ["ABCD"]) == 1.0


def test_frespa_is_exact_and_finite_at_two_hundred_items():
    # Identical golds: the patterns are all subsets of size >= 2; one adjacent
    # swap in the target loses exactly those holding both swapped items.
    k = 200
    base = list(range(k))
    target = base[:99] + [100, 99] + base[101:]
    golds = [base, base, base]
    all_patterns = 2.0**k - 1 - k
    assert frespa(target, golds, w_len=0.0, w_sup=0.0) == pytest.approx(1 - 2.0 ** (k - 2) / all_patterns, rel=1e-13)
    weighted_all = k * 2.0 ** (k - 1) - k  # sum of L C(k, L) over L >= 2
    weighted_lost = 2 * 2.0 ** (k - 2) + (k - 2) * 2.0 ** (k - 3)
    assert frespa(target, golds, w_sup=0.0) == pytest.approx(1 - weighted_lost / weighted_all, rel=1e-13)


def test_frespa_counts_do_not_overflow_past_a_thousand_items():
    # C(1040, 520) is about 1e311, beyond float64: counts are scaled per length.
    k = 1040
    base = list(range(k))
    target = base[:-2] + [k - 1, k - 2]
    # 1 - 2^(k-2) / (2^k - 1 - k) is 0.75 to about 300 digits.
    assert frespa(target, [base, base], w_len=0.0, w_sup=0.0) == pytest.approx(0.75, rel=1e-12)


def test_frespa_is_invariant_to_relabelling_items_and_reordering_golds():
    rng = np.random.default_rng(3)
    golds = close_orderings(rng, 9, 5)
    target = rng.permutation(9).tolist()
    names = {i: f"item-{(7 * i) % 9}" for i in range(9)}
    renamed = [[names[x] for x in g] for g in golds]
    score = frespa(target, golds, w_sup=2.0)
    assert frespa([names[x] for x in target], renamed[::-1], w_sup=2.0) == pytest.approx(score, abs=1e-15)
    assert 0.0 < score < 1.0


# --------------------------------------------------------------------------- AC, WCA, RBA


def test_average_correlation_is_the_mean_of_pairwise_correlations():
    golds = ["ABCDE", "BACDE", "EDCBA"]
    for measure, correlation in (("tau", kendall_tau), ("spearman", spearman_rho)):
        expected = np.mean([correlation("ACBDE", g) for g in golds])
        assert average_correlation("ACBDE", golds, measure=measure) == pytest.approx(expected, abs=1e-15)


def test_wca_gives_a_random_ordering_a_lower_weight():
    rng = np.random.default_rng(5)
    golds = close_orderings(rng, 12, 6)
    noise = rng.permutation(12).tolist()
    for measure in ("tau", "spearman"):
        weights = wca_weights([*golds, noise], measure=measure)
        assert weights[-1] < weights[:-1].min()
        assert weights[:-1].min() > 0.7  # two adjacent swaps apart at most


def test_wca_weights_are_mean_correlations_with_the_others():
    golds = ["ABCD", "ABDC", "DCBA"]
    # tau(ABCD, ABDC) = 2/3, tau(ABCD, DCBA) = -1, tau(ABDC, DCBA) = -2/3.
    assert wca_weights(golds).tolist() == pytest.approx([-1 / 6, 0.0, -5 / 6], abs=1e-15)


def test_wca_ignores_negative_weights():
    golds = ["ABCD", "ABDC", "ACBD", "DCBA"]  # weights 1/9, 1/9, 1/9, -7/9
    assert weighted_correlation("ABCD", golds) == pytest.approx((1 + 2 / 3 + 2 / 3) / 3, abs=1e-15)
    assert weighted_correlation("DCBA", golds) == pytest.approx(-(1 + 2 / 3 + 2 / 3) / 3, abs=1e-15)


@pytest.mark.parametrize(
    "golds",
    [["ABCD"], ["ABCD", "DCBA"]],  # n = 1; all weights <= 0 (both -1)
    ids=["single-gold", "no-positive-weight"],
)
def test_wca_falls_back_to_ac(golds):
    for measure in ("tau", "spearman"):
        expected = average_correlation("ACBD", golds, measure=measure)
        assert weighted_correlation("ACBD", golds, measure=measure) == pytest.approx(expected, abs=1e-15)


def test_wca_equals_ac_when_golds_agree_equally():
    golds = ["ABCD", "ABCD", "ABCD"]
    assert weighted_correlation("BADC", golds) == average_correlation("BADC", golds) == pytest.approx(1 / 3)


def test_rank_consensus_sums_ranks():
    # Summed ranks (1-based) over the three golds: A 4, B 8, C 6, D 13, E 14.
    assert rank_consensus(["ABCDE", "ACBDE", "CABED"]) == ["A", "C", "B", "D", "E"]


def test_rank_consensus_tie_break():
    golds = [["c", "a", "b"], ["a", "b", "c"], ["b", "c", "a"]]  # every item sums to 6
    assert rank_consensus(golds) == ["c", "a", "b"]
    assert rank_consensus(golds, tie_break="id") == ["a", "b", "c"]
    assert rank_consensus(golds[1:] + golds[:1]) == ["a", "b", "c"]  # "first" follows golds[0]
    with pytest.raises(ValueError, match="tie_break"):
        rank_consensus(golds, tie_break="random")
    with pytest.raises(ValueError, match="sortable"):
        rank_consensus([[1, "a"], ["a", 1]], tie_break="id")


def test_rank_based_correlates_with_the_consensus():
    golds = ["ABCDE", "ACBDE", "CABED"]
    for measure, correlation in (("tau", kendall_tau), ("spearman", spearman_rho)):
        expected = correlation("EDCBA", "ACBDE")
        assert rank_based("EDCBA", golds, measure=measure) == pytest.approx(expected, abs=1e-15)


# --------------------------------------------------------------------------- discriminativeness


@pytest.mark.parametrize(
    ("score", "params", "maximum"),
    [
        (average_correlation, {}, 2.0),  # tau 1 for the gold, -1 for its reverse
        (average_correlation, {"measure": "spearman"}, 2.0),
        (weighted_correlation, {}, 2.0),
        (rank_based, {"measure": "spearman"}, 2.0),
        (frespa, {}, 1.0),
        ("ac-tau", {}, 1.0),  # named methods are rescaled to [0, 1] (KZH 5.2)
        ("wca-sp", {}, 1.0),
        ("rba-tau", {}, 1.0),
        ("frespa", {"min_sup": 1.0}, 1.0),
    ],
)
def test_ed_is_maximal_when_golds_agree(score, params, maximum):
    assert discriminativeness(["ABCDEF"] * 4, score, **params) == pytest.approx(maximum, abs=1e-15)


def test_ed_of_ac_tau_is_the_mean_pairwise_tau():
    # AC-tau's ED_i = mean_j [tau(O_i, O_j) - tau(rev O_i, O_j)] = 2 mean_j tau(O_i, O_j).
    rng = np.random.default_rng(2)
    golds = close_orderings(rng, 8, 5, swaps=3)
    taus = [kendall_tau(a, b) for a, b in itertools.permutations(golds, 2)]
    assert discriminativeness(golds, average_correlation) == pytest.approx(2 * np.mean(taus), abs=1e-14)
    assert discriminativeness(golds, "ac-tau") == pytest.approx(np.mean(taus), abs=1e-14)


@pytest.mark.parametrize("name", METHODS)
def test_named_and_generic_paths_agree(name):
    rng = np.random.default_rng(4)
    golds = [*close_orderings(rng, 7, 5), rng.permutation(7).tolist()]
    function, fixed = ordering._NAMED[name]
    scale = 1.0 if name == "frespa" else 0.5
    generic = discriminativeness(golds, lambda t, g, **p: function(t, g, **p), **fixed)
    assert discriminativeness(golds, name) == pytest.approx(scale * generic, abs=1e-14)


def test_ed_over_topics_is_the_mean_of_topic_eds():
    topics = {"t1": ["ABCD", "ABDC", "BACD"], "t2": ["xyz", "yxz"]}
    per_topic = [discriminativeness(g, frespa) for g in topics.values()]
    assert discriminativeness(topics, frespa) == pytest.approx(np.mean(per_topic), abs=1e-15)


# --------------------------------------------------------------------------- noise robustness


def test_noise_is_added_round_half_up_and_counted_as_assessors():
    seen = defaultdict(set)

    def counting_score(target, golds):
        seen[len(golds) + 1].add(len(target))
        return 0.0

    golds = close_orderings(np.random.default_rng(0), 6, 10)
    result = noise_robustness(golds, counting_score, ratios=(0, 0.25, 1), seeds=2)
    # 0.25 * 10 = 2.5 -> 3 random orderings (half up), 1 * 10 -> 10.
    assert sorted(seen) == [10, 13, 20]
    assert isinstance(result, NoiseRobustness)
    assert result.ed == (0.0, 0.0, 0.0)
    assert math.isnan(result.degradation_percent)


def test_noise_robustness_matches_discriminativeness_without_noise():
    rng = np.random.default_rng(8)
    golds = close_orderings(rng, 8, 6)
    progress = []
    result = noise_robustness(
        golds, "frespa", ratios=(0, 0.5, 1), seeds=3, progress=lambda done, total: progress.append((done, total))
    )
    assert result.ed[0] == pytest.approx(discriminativeness(golds, "frespa"), abs=1e-15)
    assert result.ed[0] > result.ed[1] > result.ed[2]
    assert result.max_min == pytest.approx(result.ed[0] - result.ed[2], abs=1e-15)
    assert result.degradation_percent == pytest.approx(100 * result.max_min / result.ed[0], abs=1e-12)
    assert progress[-1] == (9, 9)


def test_noise_robustness_averages_over_the_given_seeds():
    golds = close_orderings(np.random.default_rng(9), 7, 4)
    one = [noise_robustness(golds, "ac-sp", ratios=(1,), seeds=[s]).ed[0] for s in (3, 4)]
    assert noise_robustness(golds, "ac-sp", ratios=(1,), seeds=[3, 4]).ed[0] == pytest.approx(np.mean(one), abs=1e-15)
    assert one[0] != one[1]


# --------------------------------------------------------------------------- sweeps and tuning


def test_sweep_rows_match_direct_ed():
    rng = np.random.default_rng(12)
    golds = close_orderings(rng, 8, 5, swaps=3)
    rows = frespa_sweep(golds)
    assert len(rows) == sum(len(v) for v in PAPER_SWEEPS.values())
    for row in rows:
        direct = discriminativeness(golds, frespa, **row.setting.params(8))
        assert row.ed == pytest.approx(direct, abs=1e-14), row
    assert [r.setting.w_len for r in rows if r.parameter == "w_len"] == list(PAPER_SWEEPS["w_len"])


def test_length_ratios_follow_table_3():
    # Table 3: ratio 0 means length 2, ratio 1 means k; in between, round half up.
    setting = FrespaSetting(min_len_ratio=0.25, max_len_ratio=0.5)
    assert setting.params(10) == {"min_sup": 0.75, "w_len": 1.0, "w_sup": 1.0, "min_len": 3, "max_len": 5}
    assert FrespaSetting().params(9)["min_len"] == 2 and FrespaSetting().params(9)["max_len"] == 9


def test_tune_picks_the_best_and_keeps_the_first_of_ties():
    rng = np.random.default_rng(13)
    golds = close_orderings(rng, 8, 6, swaps=3)
    grid = {"min_sup": (0.5, 0.75, 1.0), "w_len": (1.0, 0.0)}
    best = tune(golds, grid=grid)
    eds = {(r.setting.min_sup, r.setting.w_len): r.ed for r in frespa_sweep(golds, grid={"min_sup": grid["min_sup"]})}
    assert best.n_settings == 6
    assert best.ed >= max(eds.values()) - 1e-15
    # All golds equal: every setting has ED 1, so the first one wins.
    tied = tune(["ABCDE"] * 3, grid={"w_sup": (5.0, 0.0, 1.0), "w_len": (2.0, 1.0)})
    assert (tied.setting.w_sup, tied.setting.w_len, tied.ed) == (5.0, 2.0, 1.0)


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: kendall_tau("ABC", "ABD"), "order_b has item ids not in order_a"),
        (lambda: kendall_tau("ABCA", "ABC"), "order_a repeats item ids"),
        (lambda: kendall_tau("A", "A"), "order_a must hold at least 2 items"),
        (lambda: average_correlation("ABC", ["ABC", "AB"]), r"golds\[1\] is missing item ids"),
        (lambda: average_correlation("ABC", ["ABC", "ABB"]), r"golds\[1\] repeats item ids \['B'\]"),
        (lambda: frespa("ABX", ["ABC"]), "target has item ids not in golds"),
        (lambda: frespa("ABC", []), "golds must hold at least 1"),
        (lambda: frespa("ABC", "ABC"), "golds must be a sequence of orderings"),
        (lambda: frespa("ABC", ["ABC"], min_sup=1.5), "min_sup must be a number in"),
        (lambda: frespa("ABC", ["ABC"], w_len=-1), "w_len must be a finite number >= 0"),
        (lambda: frespa("ABC", ["ABC"], w_sup=float("inf")), "w_sup must be"),
        (lambda: frespa("ABC", ["ABC"], min_len=0), "min_len must be an integer >= 1"),
        (lambda: frespa("ABC", ["ABC"], max_len=0), "max_len must be an integer >= 1 or None"),
        (lambda: average_correlation("ABC", ["ABC"], measure="pearson"), "measure must be"),
        (lambda: discriminativeness(["ABC"], frespa), "golds must hold at least 2"),
        (lambda: discriminativeness(["ABC", "ACB"], "mystery"), "score must be a callable or one of"),
        (lambda: discriminativeness(["ABC", "ACB"], "ac-tau", measure="spearman"), "fixes"),
        (lambda: discriminativeness({"t": ["AB", "BA"], "u": ["AB"]}, frespa), r"golds\['u'\] must hold at least 2"),
        (lambda: noise_robustness(["AB", "BA"], frespa, ratios=()), "ratios must hold"),
        (lambda: noise_robustness(["AB", "BA"], frespa, seeds=0), "seeds must be"),
        (lambda: tune(["AB", "BA"], grid={"colour": (1,)}), "grid keys must be among"),
        (lambda: FrespaSetting(max_len_ratio=2.0), "max_len_ratio must be"),
    ],
)
def test_invalid_input_names_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_unknown_score_parameter_is_a_type_error():
    with pytest.raises(TypeError):
        discriminativeness(["ABC", "ACB"], frespa, min_support=0.5)


# --------------------------------------------------------------------------- real data


def squality_topics() -> dict[str, list[list[str]]]:
    """SQuALITY human eval: per question, each reviewer's overall ranking of the 3 answers."""
    topics = {}
    with open(SQUALITY, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            for question, answers in record["questions"].items():
                ranks = defaultdict(dict)
                for system, answer in answers.items():
                    for review in answer["reviews"]:
                        ranks[review["worker_id"]][system] = review["overall-rank"]
                topics[f"{record['passage-id']}/{question}"] = [
                    sorted(by_system, key=by_system.get) for by_system in ranks.values()
                ]
    return topics


def test_squality_reviewers():
    topics = squality_topics()
    assert len(topics) == 100 and all(len(golds) == 3 for golds in topics.values())
    pairwise = [kendall_tau(a, b) for golds in topics.values() for a, b in itertools.combinations(golds, 2)]
    scipy_pairwise = [
        stats.kendalltau([a.index(x) for x in a], [b.index(x) for x in a]).statistic
        for golds in topics.values()
        for a, b in itertools.combinations(golds, 2)
    ]
    assert pairwise == pytest.approx(scipy_pairwise, abs=1e-12)
    # AC-tau's ED on [0, 1] is the mean pairwise tau of each topic, averaged over topics.
    per_topic = [np.mean([kendall_tau(a, b) for a, b in itertools.combinations(g, 2)]) for g in topics.values()]
    assert discriminativeness(topics, "ac-tau") == pytest.approx(np.mean(per_topic), abs=1e-14)
    for golds in list(topics.values())[:20]:
        for target in itertools.permutations(golds[0]):
            expected = brute_force_frespa(target, golds, min_sup=0.5, w_len=1, w_sup=1, min_len=2, max_len=None)
            assert frespa(target, golds, min_sup=0.5) == pytest.approx(expected, abs=1e-15)


def test_discriminativeness_each_is_discriminativeness_of_every_method_bit_for_bit():
    rng = np.random.default_rng(27)
    items = [f"d{i}" for i in range(7)]
    golds = [list(rng.permutation(items)) for _ in range(6)]
    methods = [(name, {}) for name in ("ac-tau", "ac-sp", "wca-sp", "rba-tau", "rba-sp")]
    methods += [("wca-tau", {"weights": "paper"}), ("frespa", {"min_sup": 0.5, "max_len": 4})]
    methods += [(average_correlation, {"measure": "spearman"})]
    each = discriminativeness_each(golds, methods)
    assert each == [discriminativeness(golds, score, **params) for score, params in methods]
    assert len(set(each)) == len(each)  # the methods differ: none was computed as another


# --------------------------------------------------------------------------- ED from leave-one-out sums


def held_out_variants() -> list[tuple[object, dict]]:
    """Every score of the module with every option that changes its held-out arithmetic."""
    variants: list[tuple[object, dict]] = [(average_correlation, {"measure": m}) for m in ("tau", "spearman")]
    variants += [
        (weighted_correlation, {"measure": m, "weights": w}) for m in ("tau", "spearman") for w in ("clamped", "paper")
    ]
    variants += [
        (rank_based, {"measure": m, "tie_break": t}) for m in ("tau", "spearman") for t in ("average", "first", "id")
    ]
    variants += [
        (frespa, {"min_sup": s, "w_len": wl, "w_sup": ws, "min_len": lo, "max_len": hi})
        for s in (0.0, 0.5, 0.75, 1.0)
        for wl, ws in ((1.0, 1.0), (0.0, 5.0))
        for lo, hi in ((2, None), (1, 3), (3, 2))
    ]
    return variants


def each_held_out(method, topic) -> float:
    """ED the plain way: every gold and its reverse scored against the others, one held-out gold at a time."""
    return float(np.mean([method._good_minus_bad(topic, topic.ranks, i) for i in range(topic.n)])) * method.scale


@pytest.mark.parametrize("blocks", ["whole", "smallest"])
def test_ed_from_leave_one_out_sums_equals_scoring_each_held_out_gold(blocks, monkeypatch):
    # ED counts the patterns (FreSPA) or correlates the golds (AC, WCA, RBA) once for every
    # held-out gold; it must be what scoring each held-out gold and its reverse against the
    # others gives. "smallest": FreSPA's reverses walked two at a time, RBA one row at a time.
    if blocks == "smallest":
        monkeypatch.setattr(_frespa, "_TARGET_CELLS", 1)
        monkeypatch.setattr(ordering, "_PAIR_CELLS", 1)
    rng = np.random.default_rng(31)
    checked = 0
    for _ in range(40 if blocks == "whole" else 10):
        k, n = int(rng.integers(2, 9)), int(rng.integers(2, 9))
        golds = close_orderings(rng, k, n, swaps=int(rng.integers(0, 3)))
        if rng.random() < 0.3:
            golds[-1] = list(golds[0])  # a repeated gold: FreSPA's multiplicity path
        if rng.random() < 0.3:
            golds[0] = rng.permutation(k).tolist()
        topic = ordering._topic([[f"i{x}" for x in g] for g in golds], min_golds=2)
        for score, params in held_out_variants():
            method = ordering._Method(score, params)
            assert method.ed(topic, topic.ranks) == pytest.approx(each_held_out(method, topic), abs=1e-12), (
                score.__name__,
                params,
                golds,
            )
            checked += 1
    assert checked == (40 if blocks == "whole" else 10) * len(held_out_variants())


def test_held_out_pattern_counts_equal_counting_without_each_gold():
    # Up to 53 items the counts are exact, so every held-out gold's layers are what
    # count_patterns gives for it and its reverse against the other golds, exactly.
    rng = np.random.default_rng(32)
    for _ in range(60):
        k, n = int(rng.integers(1, 9)), int(rng.integers(2, 8))
        golds = np.array(close_orderings(rng, k, n, swaps=int(rng.integers(0, 4))))
        if rng.random() < 0.3:
            golds[1] = golds[0]
        threshold = support_threshold(float(rng.choice([0.0, 0.5, 0.75, 1.0])), n - 1)
        max_len = int(rng.integers(1, k + 1))
        counts = _frespa.held_out_counts(golds, threshold=threshold, max_len=max_len)
        for i in range(n):
            alone = _frespa.count_patterns(
                np.stack([golds[i], k - 1 - golds[i]]),
                np.delete(golds, i, axis=0),
                threshold=threshold,
                max_len=max_len,
            )
            assert np.array_equal(counts.layers[i], alone.layers)
            assert np.array_equal(counts.exponents, alone.exponents)


def test_pattern_counts_per_gold_are_the_counts_each_gold_contains():
    rng = np.random.default_rng(33)
    for _ in range(30):
        k, n = int(rng.integers(1, 8)), int(rng.integers(1, 7))
        golds = np.array(close_orderings(rng, k, n, swaps=int(rng.integers(0, 4))))
        if n > 1 and rng.random() < 0.4:
            golds[-1] = golds[0]
        counts = _frespa.count_patterns(golds[:1], golds, threshold=1, max_len=k, per_gold=True)
        for g in range(n):
            own = _frespa.count_patterns(golds[g], golds, threshold=1, max_len=k)
            assert np.array_equal(counts.by_gold[g], own.layers[1])


def test_ed_counts_a_topics_patterns_in_one_walk(monkeypatch):
    # A first build computes every topic's ED: FreSPA's patterns are counted once for all
    # ten held-out golds of a topic, not once per held-out gold.
    walks = []
    count_patterns = _frespa.count_patterns
    monkeypatch.setattr(_frespa, "count_patterns", lambda *a, **k: walks.append(1) or count_patterns(*a, **k))
    golds = close_orderings(np.random.default_rng(34), 5, 10)
    discriminativeness(golds, "frespa")
    assert len(walks) == 1


def test_scores_each_is_every_score_alone_bit_for_bit():
    rng = np.random.default_rng(35)
    for _ in range(30):
        k = int(rng.integers(2, 9))
        items = [f"i{x}" for x in range(k)]
        golds = [[items[x] for x in g] for g in close_orderings(rng, k, int(rng.integers(1, 7)))]
        target = [items[x] for x in rng.permutation(k)]
        scores = [(s, p) for s, p in held_out_variants() if s is not frespa or p["min_sup"] != 0.0]
        scores.append((lambda t, g, **p: kendall_tau(t, g[0]), {}))
        expected = [float(score(target, golds, **params)) for score, params in scores]
        assert ordering.scores_each(target, golds, scores) == expected
    with pytest.raises(ValueError, match="at least 2 items"):
        ordering.scores_each(["a"], [["a"]], [(average_correlation, {})])
    assert ordering.scores_each(["a"], [["a"]], [(frespa, {"min_len": 1})]) == [1.0]
