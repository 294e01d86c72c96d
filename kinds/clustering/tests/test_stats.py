"""Tests for kinds.clustering.stats (Geiss 2009, sections 5-7)."""

from __future__ import annotations

import glob
import math
import pathlib
import warnings
import xml.etree.ElementTree as ET
from dataclasses import fields

import numpy as np
import pytest
from scipy.stats import entropy as scipy_entropy
from sklearn import metrics as skm

from kinds.clustering import stats as clustering_module
from kinds.clustering.stats import (
    MEASURES,
    ClusteringScores,
    Completed,
    adjusted_rand_index,
    clustering_scores,
    complete_with_irrelevant,
    complete_with_irrelevant_each,
    completed_scores,
    completed_scores_each,
    contingency,
    entropy,
    homogeneity_completeness_v,
    normalized_mutual_information,
    normalized_variation_of_information,
    pair_f_measure,
    purity,
    rand_index,
    random_baseline,
    random_baseline_means,
    random_baseline_means_completed,
    random_baseline_means_each,
    v_beta,
    v_measure,
    variation_of_information,
)

AVERAGES = ["arithmetic", "geometric", "min", "max"]

# ---------------------------------------------------------------------------
# Published values
# ---------------------------------------------------------------------------

# Manning, Raghavan & Schuetze (2008), Introduction to Information Retrieval,
# figure 16.4 and section 16.3: three clusters of 17 items of classes x, o, d
#   cluster 1: x x x x x o   cluster 2: x o o o o d   cluster 3: x x d d d
# "purity = (1/17) x (5 + 4 + 3) ~ 0.71"; NMI ~ 0.36 (I / [(H(Omega)+H(C))/2]);
# TP = 20, FP = 20, FN = 24, TN = 72, "RI = (20 + 72)/(20 + 20 + 24 + 72) ~ 0.68";
# P = 20/40 = 0.5, R = 20/44 ~ 0.455, "F5 ~ 0.456".
IIR_CLASSES = list("xxxxxoxoooodxxddd")
IIR_CLUSTERS = [1] * 6 + [2] * 6 + [3] * 5


def test_iir_figure_16_4_purity_nmi_rand_index():
    assert purity(IIR_CLASSES, IIR_CLUSTERS) == pytest.approx(12 / 17, abs=1e-15)
    assert normalized_mutual_information(IIR_CLASSES, IIR_CLUSTERS) == pytest.approx(0.3646, abs=5e-5)
    assert rand_index(IIR_CLASSES, IIR_CLUSTERS) == pytest.approx(92 / 136, abs=1e-15)
    assert round(rand_index(IIR_CLASSES, IIR_CLUSTERS), 4) == 0.6765


def test_iir_figure_16_4_pair_precision_recall_f():
    precision, recall, f1 = pair_f_measure(IIR_CLASSES, IIR_CLUSTERS)
    assert precision == pytest.approx(20 / 40, abs=1e-15)
    assert recall == pytest.approx(20 / 44, abs=1e-15)
    assert f1 == pytest.approx(0.4762, abs=5e-5)
    # IIR's F_beta weights recall beta^2 times as much: F5 ~ 0.456.
    assert pair_f_measure(IIR_CLASSES, IIR_CLUSTERS, beta=5)[2] == pytest.approx(0.456, abs=5e-4)


def test_iir_nmi_is_the_arithmetic_normalisation():
    # IIR normalises I by [H(Omega) + H(C)] / 2; the other averages differ here.
    s = clustering_scores(IIR_CLASSES, IIR_CLUSTERS)
    assert s.nmi_arithmetic == pytest.approx(2 * s.mutual_information / (s.class_entropy + s.cluster_entropy))
    assert s.nmi_min > s.nmi_geometric > s.nmi_arithmetic > s.nmi_max


# sklearn 1.9 docstrings of v_measure_score, homogeneity_score,
# completeness_score, adjusted_rand_score, rand_score and
# homogeneity_completeness_v_measure (values as printed there).
@pytest.mark.parametrize(
    ("labels_true", "labels_pred", "expected"),
    [
        ([0, 0, 1, 1], [0, 0, 1, 1], 1.0),
        ([0, 0, 1, 1], [1, 1, 0, 0], 1.0),
        ([0, 0, 1, 2], [0, 0, 1, 1], 0.8),
        ([0, 1, 2, 3], [0, 0, 1, 1], 0.67),
        ([0, 0, 1, 1], [0, 0, 1, 2], 0.8),
        ([0, 0, 1, 1], [0, 1, 2, 3], 0.67),
        ([0, 0, 0, 0], [0, 1, 2, 3], 0.0),
        ([0, 0, 1, 1], [0, 0, 0, 0], 0.0),
    ],
)
def test_sklearn_documented_v_measure(labels_true, labels_pred, expected):
    assert v_measure(labels_true, labels_pred) == pytest.approx(expected, abs=0.005)


@pytest.mark.parametrize(
    ("labels_true", "labels_pred", "homogeneity", "completeness"),
    [
        ([0, 0, 1, 1], [1, 1, 0, 0], 1.0, 1.0),
        ([0, 0, 1, 1], [0, 0, 1, 2], 1.0, None),
        ([0, 0, 1, 1], [0, 1, 2, 3], 1.0, None),
        ([0, 0, 1, 1], [0, 1, 0, 1], 0.0, 0.0),
        ([0, 0, 1, 1], [0, 0, 0, 0], 0.0, 1.0),
        ([0, 1, 2, 3], [0, 0, 1, 1], None, 1.0),
        ([0, 0, 0, 0], [0, 1, 2, 3], None, 0.0),
    ],
)
def test_sklearn_documented_homogeneity_completeness(labels_true, labels_pred, homogeneity, completeness):
    h, c, _ = homogeneity_completeness_v(labels_true, labels_pred)
    if homogeneity is not None:
        assert h == pytest.approx(homogeneity, abs=1e-12)
    if completeness is not None:
        assert c == pytest.approx(completeness, abs=1e-12)


def test_sklearn_documented_homogeneity_completeness_v_example():
    # ">>> homogeneity_completeness_v_measure([0, 0, 1, 1, 2, 2], [0, 0, 1, 2, 2, 2])
    #  (0.71, 0.771, 0.74)"
    h, c, v = homogeneity_completeness_v([0, 0, 1, 1, 2, 2], [0, 0, 1, 2, 2, 2])
    assert (round(h, 2), math.floor(c * 1000) / 1000, round(v, 2)) == (0.71, 0.771, 0.74)


@pytest.mark.parametrize(
    ("labels_true", "labels_pred", "expected"),
    [
        ([0, 0, 1, 1], [0, 0, 1, 1], 1.0),
        ([0, 0, 1, 1], [1, 1, 0, 0], 1.0),
        ([0, 0, 1, 2], [0, 0, 1, 1], 0.57),
        ([0, 0, 1, 1], [0, 0, 1, 2], 0.57),
        ([0, 0, 0, 0], [0, 1, 2, 3], 0.0),
        ([0, 0, 1, 1], [0, 1, 0, 1], -0.5),
    ],
)
def test_sklearn_documented_adjusted_rand(labels_true, labels_pred, expected):
    assert adjusted_rand_index(labels_true, labels_pred) == pytest.approx(expected, abs=0.005)


def test_sklearn_documented_rand_and_nmi():
    assert rand_index([0, 0, 1, 1], [1, 1, 0, 0]) == 1.0
    assert rand_index([0, 0, 1, 2], [0, 0, 1, 1]) == pytest.approx(10 / 12, abs=1e-15)  # "0.83"
    assert normalized_mutual_information([0, 0, 1, 1], [1, 1, 0, 0]) == 1.0
    assert normalized_mutual_information([0, 0, 0, 0], [0, 1, 2, 3]) == 0.0


# ---------------------------------------------------------------------------
# Identities from the paper
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0, 3.7])
def test_v_beta_equals_geiss_nmi_beta(beta):
    # Geiss (2009), equations (5)-(6): V_beta = (1 + beta) I / (beta H(L) + H(C)).
    rng = np.random.default_rng(7)
    truth, found = rng.integers(0, 6, 80), rng.integers(0, 9, 80)
    s = clustering_scores(truth, found, beta=beta)
    nmi_beta = (1 + beta) * s.mutual_information / (beta * s.cluster_entropy + s.class_entropy)
    assert s.v_measure == pytest.approx(nmi_beta, rel=1e-12)


def test_v_one_is_arithmetic_nmi():
    rng = np.random.default_rng(8)
    truth, found = rng.integers(0, 5, 60), rng.integers(0, 7, 60)
    assert v_measure(truth, found) == pytest.approx(normalized_mutual_information(truth, found), rel=1e-12)


def test_v_beta_uses_clusters_over_classes():
    # Geiss (2009), 5.1: beta = |L| / |C|, L the clusters (labels_pred), C the classes.
    truth, found = [0, 0, 0, 1, 1, 1], [0, 0, 1, 2, 3, 3]
    expected = v_measure(truth, found, beta=4 / 2)
    assert v_beta(truth, found) == pytest.approx(expected, abs=1e-15)
    assert v_beta(truth, found) != pytest.approx(v_measure(truth, found, beta=2 / 4), abs=1e-3)


def test_v_beta_is_symmetric():
    rng = np.random.default_rng(9)
    truth, found = rng.integers(0, 4, 50), rng.integers(0, 11, 50)
    assert v_beta(truth, found) == pytest.approx(v_beta(found, truth), rel=1e-12)
    assert v_measure(truth, found, beta=0.5) != pytest.approx(v_measure(found, truth, beta=0.5), abs=1e-3)


def test_v_half_favours_homogeneity():
    # Splitting a class keeps h = 1; V_0.5 then forgives it more than V_1 does.
    truth, found = [0, 0, 0, 0, 1, 1, 1, 1], [0, 0, 1, 1, 2, 2, 3, 3]
    assert v_measure(truth, found, beta=0.5) > v_measure(truth, found) > v_measure(truth, found, beta=2)


def test_entropy_is_conditional_entropy_over_log_classes_and_base_free():
    # Zhao & Karypis (2001) / Geiss (2009) eq. (10), written out cluster by cluster
    # in base 10: the 1/log|C| factor makes the base cancel.
    classes, clusters = np.array(IIR_CLASSES), np.array(IIR_CLUSTERS)
    total = 0.0
    for cluster in (1, 2, 3):
        members = classes[clusters == cluster]
        _, sizes = np.unique(members, return_counts=True)
        share = sizes / members.size
        total += members.size / classes.size * (-np.sum(share * np.log10(share)) / np.log10(3))
    assert entropy(IIR_CLASSES, IIR_CLUSTERS) == pytest.approx(total, rel=1e-12)


def test_entropy_and_purity_reward_splitting_more_than_merging():
    # Geiss (2009), 5.5: both improve with more clusters, best for L_single.
    truth = [0, 0, 0, 1, 1, 1, 2, 2, 2]
    singles = list(range(9))
    one = [0] * 9
    assert entropy(truth, singles) == 0.0 and purity(truth, singles) == 1.0
    assert entropy(truth, one) == pytest.approx(1.0, abs=1e-15)
    assert purity(truth, one) == pytest.approx(1 / 3, abs=1e-15)


def test_pair_f_is_zero_for_all_singletons_against_a_clustering():
    # Geiss (2009), 5.7: "F = 0 if C_A is compared to L_A-single".
    truth = [0, 0, 0, 1, 1, 2, 2, 2]
    assert pair_f_measure(truth, range(8)) == (0.0, 0.0, 0.0)
    # ... while RI still counts the 28 - 7 pairs apart in both as agreement.
    assert rand_index(truth, range(8)) == pytest.approx(21 / 28, abs=1e-15)


def test_nvi_reaches_one_for_singletons_against_one_cluster():
    # Geiss (2009), 5.3: "The maximum of VI is log N e.g. for VI(L_single, C_one)".
    n = 13
    assert variation_of_information([0] * n, range(n)) == pytest.approx(math.log2(n), rel=1e-14)
    assert variation_of_information([0] * n, range(n), base=math.e) == pytest.approx(math.log(n), rel=1e-14)
    assert normalized_variation_of_information([0] * n, range(n)) == pytest.approx(1.0, rel=1e-14)


# ---------------------------------------------------------------------------
# Invariants
# ---------------------------------------------------------------------------


def _random_pair(seed: int, n: int, n_classes: int, n_clusters: int):
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_classes, n), rng.integers(0, n_clusters, n)


def test_identical_partitions_score_exactly_perfect_whatever_the_label_names():
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 12, 300)
    renamed = np.array([f"c{(k * 7) % 12}" for k in truth])
    s = clustering_scores(truth, renamed)
    perfect = (s.homogeneity, s.completeness, s.v_measure, s.v_beta, s.nmi_arithmetic, s.nmi_geometric)
    assert perfect == (1.0,) * 6
    assert (s.nmi_min, s.nmi_max, s.rand_index, s.adjusted_rand_index, s.purity) == (1.0,) * 5
    assert (s.variation_of_information, s.normalized_variation_of_information, s.entropy) == (0.0, 0.0, 0.0)
    assert (s.pair_precision, s.pair_recall, s.pair_f) == (1.0, 1.0, 1.0)


def test_symmetric_measures_are_symmetric_and_the_others_swap():
    truth, found = _random_pair(4, 120, 5, 8)
    ab, ba = clustering_scores(truth, found), clustering_scores(found, truth)
    for name in (
        "nmi_arithmetic",
        "nmi_geometric",
        "nmi_min",
        "nmi_max",
        "variation_of_information",
        "normalized_variation_of_information",
        "rand_index",
        "adjusted_rand_index",
        "pair_f",
        "v_beta",
    ):
        assert getattr(ab, name) == pytest.approx(getattr(ba, name), rel=1e-12, abs=1e-15), name
    assert ab.homogeneity == pytest.approx(ba.completeness, rel=1e-12)
    assert ab.pair_precision == pytest.approx(ba.pair_recall, rel=1e-12)


def test_relabelling_and_reordering_items_change_nothing():
    truth, found = _random_pair(5, 90, 4, 6)
    order = np.random.default_rng(6).permutation(90)
    base = clustering_scores(truth, found)
    shuffled = clustering_scores((truth * 31 + 5)[order], np.array(list("abcdef"))[found][order])
    for name in MEASURES:
        assert getattr(shuffled, name) == pytest.approx(getattr(base, name), rel=1e-12, abs=1e-15), name


def test_contingency_counts_every_cell():
    table = contingency(IIR_CLASSES, IIR_CLUSTERS)
    assert table.classes.tolist() == ["d", "o", "x"]
    assert table.clusters.tolist() == [1, 2, 3]
    assert table.to_dense().tolist() == [[0, 1, 3], [1, 4, 0], [5, 1, 2]]
    assert table.class_sizes.tolist() == [4, 5, 8]
    assert table.cluster_sizes.tolist() == [6, 6, 5]
    assert table.n_items == 17


@pytest.mark.parametrize(("n", "n_classes", "n_clusters"), [(2000, 3, 2500), (300, 40, 40), (50, 50, 3)])
def test_contingency_sparse_and_dense_paths_agree_with_sklearn(n, n_classes, n_clusters):
    truth, found = _random_pair(n, n, n_classes, n_clusters)
    found = found * 1_000_003  # sparse label values: forces np.unique rather than bincount
    table = contingency(truth, found)
    assert np.array_equal(table.to_dense(), skm.cluster.contingency_matrix(truth, found))


def test_mixed_type_labels_are_accepted():
    s = clustering_scores(np.array([1, "a", 1, "a"], dtype=object), [0, 0, 1, 1])
    assert s.n_classes == 2 and s.homogeneity == pytest.approx(0.0, abs=1e-15)


# ---------------------------------------------------------------------------
# Degenerate inputs: documented values, no warnings
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("labels_true", "labels_pred", "expected"),
    [
        # empty: sklearn returns 1 for h, c, V, NMI, RI and ARI
        (
            [],
            [],
            dict(
                homogeneity=1.0,
                completeness=1.0,
                v_measure=1.0,
                v_beta=1.0,
                nmi_min=1.0,
                rand_index=1.0,
                adjusted_rand_index=1.0,
                variation_of_information=0.0,
                normalized_variation_of_information=0.0,
                pair_f=0.0,
            ),
        ),
        # N = 1
        (
            [7],
            ["a"],
            dict(
                homogeneity=1.0,
                completeness=1.0,
                v_measure=1.0,
                nmi_max=1.0,
                rand_index=1.0,
                adjusted_rand_index=1.0,
                purity=1.0,
                entropy=0.0,
                normalized_variation_of_information=0.0,
                pair_precision=0.0,
                pair_f=0.0,
            ),
        ),
        # one class, one cluster
        (
            [0] * 5,
            [3] * 5,
            dict(
                v_measure=1.0,
                nmi_arithmetic=1.0,
                rand_index=1.0,
                adjusted_rand_index=1.0,
                variation_of_information=0.0,
                entropy=0.0,
                pair_f=1.0,
            ),
        ),
        # one class, all singletons
        (
            [0] * 5,
            range(5),
            dict(
                homogeneity=1.0,
                completeness=0.0,
                v_measure=0.0,
                v_beta=0.0,
                nmi_geometric=0.0,
                rand_index=0.0,
                adjusted_rand_index=0.0,
                purity=1.0,
                entropy=0.0,
                normalized_variation_of_information=1.0,
                pair_precision=0.0,
                pair_recall=0.0,
                pair_f=0.0,
            ),
        ),
        # all singletons, one cluster
        (
            range(5),
            [0] * 5,
            dict(
                homogeneity=0.0,
                completeness=1.0,
                v_measure=0.0,
                nmi_min=0.0,
                rand_index=0.0,
                adjusted_rand_index=0.0,
                purity=0.2,
                entropy=1.0,
                normalized_variation_of_information=1.0,
                pair_precision=0.0,
                pair_f=0.0,
            ),
        ),
        # all singletons on both sides: a perfect match, except for pair F (TP = 0)
        (
            range(5),
            range(10, 15),
            dict(
                v_measure=1.0,
                nmi_max=1.0,
                rand_index=1.0,
                adjusted_rand_index=1.0,
                variation_of_information=0.0,
                purity=1.0,
                entropy=0.0,
                pair_f=0.0,
            ),
        ),
    ],
)
def test_degenerate_clusterings(labels_true, labels_pred, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = clustering_scores(list(labels_true), list(labels_pred))
    for name, value in expected.items():
        assert getattr(s, name) == pytest.approx(value, abs=1e-15), name


def test_empty_input_has_nan_purity_and_entropy():
    s = clustering_scores([], [])
    assert math.isnan(s.purity) and math.isnan(s.entropy)


@pytest.mark.parametrize(("labels_true", "labels_pred"), [([0] * 4, [0, 1, 2, 3]), ([], []), ([1], [1])])
def test_degenerate_cases_match_sklearn(labels_true, labels_pred):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn itself may warn here
        h, c, v = skm.homogeneity_completeness_v_measure(labels_true, labels_pred)
        expected = (
            h,
            c,
            v,
            skm.normalized_mutual_info_score(labels_true, labels_pred),
            skm.rand_score(labels_true, labels_pred),
            skm.adjusted_rand_score(labels_true, labels_pred),
        )
    s = clustering_scores(labels_true, labels_pred)
    got = (s.homogeneity, s.completeness, s.v_measure, s.nmi_arithmetic, s.rand_index, s.adjusted_rand_index)
    assert got == pytest.approx(expected, abs=1e-15)


def test_beta_zero_with_no_completeness_is_zero_not_a_division_error():
    # sklearn divides 0 by 0 here (h = 1, c = 0, beta = 0); we return V = 0.
    assert v_measure([0, 0, 0], [0, 1, 2], beta=0.0) == 0.0
    assert v_measure([0, 0, 1, 1], [0, 0, 1, 2], beta=0.0) == pytest.approx(1.0, abs=1e-15)  # V_0 = h


def test_scores_are_python_floats():
    s = clustering_scores([0, 0, 1], [0, 1, 1])
    for f in fields(ClusteringScores):
        assert type(getattr(s, f.name)) is (int if f.name.startswith("n_") else float), f.name
    assert all(type(x) is float for x in pair_f_measure([0, 0, 1], [0, 1, 1]))


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: v_measure([0, 1], [0, 1, 2]), "same items"),
        (lambda: v_measure([[0, 1]], [[0, 1]]), "labels_true must be a 1-D"),
        (lambda: v_measure([0, 1], 5), "labels_pred must be a 1-D"),
        (lambda: v_measure([0, 1], [0, 1], beta=-1), "beta must be finite and >= 0"),
        (lambda: v_measure([0, 1], [0, 1], beta=float("nan")), "beta"),
        (lambda: normalized_mutual_information([0], [0], average="harmonic"), "average must be one of"),
        (lambda: variation_of_information([0], [0], base=1), "base must be"),
        (lambda: complete_with_irrelevant([["s1"]], ["s1"], method="drop"), "method must be"),
        (lambda: complete_with_irrelevant([["s1", "s9"]], ["s1", "s2"]), "not in items: 's9'"),
        (lambda: complete_with_irrelevant([["s1", "s2"], ["s2"]], ["s1", "s2"]), "disjoint"),
        (lambda: complete_with_irrelevant(["s1s2"], ["s1", "s2"]), "clusters[0] must be a sequence"),
        (lambda: complete_with_irrelevant([["s1"]], ["s1", "s1"]), "items must not repeat"),
        (lambda: random_baseline([["s1", "s2"]], [], ["s1", "s2"]), "judges"),
        (lambda: random_baseline([["s1", "s2"]], [[["s1", "s2"]]], ["s1", "s2"], n_random=0), "n_random"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(call, message):
    with pytest.raises(ValueError) as error:
        call()
    assert message in str(error.value)


# ---------------------------------------------------------------------------
# Against sklearn and scipy on random labellings
# ---------------------------------------------------------------------------

SIZES = [(5, 2, 3), (40, 4, 7), (500, 12, 9), (3000, 60, 200), (20000, 7, 7)]


@pytest.mark.parametrize(("n", "n_classes", "n_clusters"), SIZES)
@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
def test_v_measure_against_sklearn(n, n_classes, n_clusters, beta):
    truth, found = _random_pair(n + n_classes, n, n_classes, n_clusters)
    assert homogeneity_completeness_v(truth, found, beta=beta) == pytest.approx(
        skm.homogeneity_completeness_v_measure(truth, found, beta=beta), abs=1e-12
    )


@pytest.mark.parametrize(("n", "n_classes", "n_clusters"), SIZES)
def test_nmi_rand_ari_pairs_against_sklearn(n, n_classes, n_clusters):
    truth, found = _random_pair(n * 3 + 1, n, n_classes, n_clusters)
    # A noisy copy keeps the measures away from 0, where errors would hide.
    found = np.where(np.random.default_rng(n).random(n) < 0.5, truth, found)
    s = clustering_scores(truth, found)
    for average in AVERAGES:
        expected = skm.normalized_mutual_info_score(truth, found, average_method=average)
        assert s.nmi(average) == pytest.approx(expected, abs=1e-12), average
    assert s.mutual_information == pytest.approx(skm.mutual_info_score(truth, found), abs=1e-12)
    assert s.rand_index == pytest.approx(skm.rand_score(truth, found), abs=1e-12)
    assert s.adjusted_rand_index == pytest.approx(skm.adjusted_rand_score(truth, found), abs=1e-12)
    # pair_confusion_matrix counts ordered pairs: [[TN, FP], [FN, TP]] times 2.
    (tn, fp), (fn, tp) = skm.cluster.pair_confusion_matrix(truth, found) // 2
    precision, recall, f1 = pair_f_measure(truth, found)
    assert (precision, recall, f1) == pytest.approx((tp / (tp + fp), tp / (tp + fn), 2 * tp / (2 * tp + fp + fn)))
    assert math.sqrt(precision * recall) == pytest.approx(skm.fowlkes_mallows_score(truth, found), abs=1e-12)


@pytest.mark.parametrize(("n", "n_classes", "n_clusters"), SIZES)
def test_vi_against_entropies_from_scipy(n, n_classes, n_clusters):
    # VI = H(C|L) + H(L|C) = 2 H(C, L) - H(C) - H(L), entropies by scipy.stats.entropy.
    truth, found = _random_pair(n + 17, n, n_classes, n_clusters)
    joint = skm.cluster.contingency_matrix(truth, found)
    h_joint = scipy_entropy(joint.ravel(), base=2)
    h_c, h_l = scipy_entropy(joint.sum(axis=1), base=2), scipy_entropy(joint.sum(axis=0), base=2)
    assert variation_of_information(truth, found) == pytest.approx(2 * h_joint - h_c - h_l, abs=1e-12)
    # sklearn's I gives the same through VI = H(C) + H(L) - 2 I (in nats).
    vi_nats = (
        scipy_entropy(joint.sum(axis=1)) + scipy_entropy(joint.sum(axis=0)) - 2 * skm.mutual_info_score(truth, found)
    )
    assert variation_of_information(truth, found, base=math.e) == pytest.approx(vi_nats, abs=1e-12)
    assert normalized_variation_of_information(truth, found) == pytest.approx(vi_nats / math.log(n), abs=1e-12)


def test_purity_against_a_dense_table():
    truth, found = _random_pair(11, 700, 9, 13)
    table = skm.cluster.contingency_matrix(truth, found)
    assert purity(truth, found) == pytest.approx(table.max(axis=0).sum() / 700, abs=1e-15)


# ---------------------------------------------------------------------------
# Irrelevant sentences (Geiss 2009, section 6)
# ---------------------------------------------------------------------------

ITEMS = ["s1", "s2", "s3", "s4", "s5", "s6"]
JUDGE_A = [["s1", "s2"], ["s3", "s4"]]  # leaves out s5, s6
JUDGE_B = [["s1", "s2"], ["s3", "s4", "s5"]]  # leaves out s6


def test_singleton_completion_by_hand():
    assert complete_with_irrelevant(JUDGE_A, ITEMS).tolist() == [0, 0, 1, 1, 2, 3]
    assert complete_with_irrelevant(JUDGE_B, ITEMS).tolist() == [0, 0, 1, 1, 1, 2]


def test_bucket_completion_by_hand():
    assert complete_with_irrelevant(JUDGE_A, ITEMS, method="bucket").tolist() == [0, 0, 1, 1, 2, 2]
    assert complete_with_irrelevant(JUDGE_B, ITEMS, method="bucket").tolist() == [0, 0, 1, 1, 1, 2]


def test_completion_edge_cases():
    assert complete_with_irrelevant([["b", "a"], []], ["a", "b"], method="bucket").tolist() == [0, 0]  # no bucket
    assert complete_with_irrelevant([], ["a", "b"], method="bucket").tolist() == [0, 0]
    assert complete_with_irrelevant([], ["a", "b"]).tolist() == [0, 1]
    assert complete_with_irrelevant([[3], [1, 2]], [1, 2, 3, 4]).tolist() == [1, 1, 0, 2]


def test_singleton_completion_v_and_vi_by_hand():
    # A (classes) = {s1 s2} {s3 s4} {s5} {s6};  B (clusters) = {s1 s2} {s3 s4 s5} {s6}.
    # Only B's second cluster is impure (2 of one class, 1 of another), weight 3/6:
    #   H(C|L) = 1/2 (log 3 - 2/3 log 2);  H(L|C) = 0 (no class is split)
    #   H(C) = 2 (1/3) log 3 + 2 (1/6) log 6 = log 3 + 1/3 log 2
    a = complete_with_irrelevant(JUDGE_A, ITEMS)
    b = complete_with_irrelevant(JUDGE_B, ITEMS)
    l2, l3 = math.log(2), math.log(3)
    h = 1 - 0.5 * (l3 - 2 / 3 * l2) / (l3 + l2 / 3)
    h_, c_, v_ = homogeneity_completeness_v(a, b)
    assert (h_, c_) == pytest.approx((h, 1.0), abs=1e-15)
    assert v_ == pytest.approx(2 * h / (h + 1), abs=1e-15)
    assert variation_of_information(a, b) == pytest.approx(0.5 * math.log2(3) - 1 / 3, abs=1e-15)
    # pairs: A together {s1s2, s3s4}; B together {s1s2, s3s4, s3s5, s4s5}: TP 2, FP 2, FN 0, TN 11
    assert rand_index(a, b) == pytest.approx(13 / 15, abs=1e-15)
    assert pair_f_measure(a, b) == pytest.approx((0.5, 1.0, 2 / 3), abs=1e-15)


def test_bucket_completion_v_and_vi_by_hand():
    # A (classes) = {s1 s2} {s3 s4} {s5 s6};  B (clusters) = {s1 s2} {s3 s4 s5} {s6}.
    #   H(C|L) = 1/2 (log 3 - 2/3 log 2)  (B's second cluster, as above)
    #   H(L|C) = 2/6 log 2                 (A's bucket splits 1 + 1)
    #   H(C) = log 3;  H(L) = 1/3 log 3 + 1/2 log 2 + 1/6 log 6 = 1/2 log 3 + 2/3 log 2
    a = complete_with_irrelevant(JUDGE_A, ITEMS, method="bucket")
    b = complete_with_irrelevant(JUDGE_B, ITEMS, method="bucket")
    l2, l3 = math.log(2), math.log(3)
    h = 1 - 0.5 * (l3 - 2 / 3 * l2) / l3
    c = 1 - (l2 / 3) / (l3 / 2 + 2 / 3 * l2)
    assert homogeneity_completeness_v(a, b) == pytest.approx((h, c, 2 * h * c / (h + c)), abs=1e-15)
    assert v_measure(a, b, beta=0.5) == pytest.approx(1.5 * h * c / (0.5 * h + c), abs=1e-15)
    assert v_beta(a, b) == pytest.approx(v_measure(a, b, beta=3 / 3), abs=1e-15)
    vi_nats = 0.5 * (l3 - 2 / 3 * l2) + l2 / 3
    assert normalized_variation_of_information(a, b) == pytest.approx(vi_nats / math.log(6), abs=1e-15)
    # pairs: A together {s1s2, s3s4, s5s6}; B as above: TP 2, FP 2, FN 1, TN 10
    assert rand_index(a, b) == pytest.approx(12 / 15, abs=1e-15)
    assert pair_f_measure(a, b) == pytest.approx((0.5, 2 / 3, 4 / 7), abs=1e-15)


def test_shared_singletons_inflate_agreement():
    # Geiss (2009), section 6: "With every singleton the judges agree on the
    # completeness and homogeneity of the whole set of clusters increases."
    clusters_a = [["s0", "s1", "s2"], ["s3", "s4"]]
    clusters_b = [["s0", "s1"], ["s2", "s3", "s4"]]
    few = [f"s{k}" for k in range(7)]
    many = [f"s{k}" for k in range(40)]

    def agreement(items, method):
        return v_beta(
            complete_with_irrelevant(clusters_a, items, method=method),
            complete_with_irrelevant(clusters_b, items, method=method),
        )

    assert agreement(many, "singleton") > agreement(few, "singleton") + 0.2
    # Geiss's section 7: Schulz A-B share 185 left-out sentences, V_beta 0.98.
    assert agreement(many, "singleton") > 0.9


# ---------------------------------------------------------------------------
# Random baseline (Geiss 2009, section 7)
# ---------------------------------------------------------------------------

BASE_ITEMS = [f"s{k}" for k in range(30)]
PROFILE = [["s0", "s1", "s2", "s3"], ["s4", "s5", "s6"], ["s7", "s8"], ["s9", "s10", "s11"]]
OTHER = [["s0", "s1", "s2"], ["s3", "s4", "s5", "s6"], ["s12", "s13"], ["s20", "s21", "s22"]]


def test_random_baseline_is_seeded_and_counts_comparisons():
    first = random_baseline(PROFILE, [PROFILE, OTHER], BASE_ITEMS, n_random=40, seed=3)
    again = random_baseline(PROFILE, [PROFILE, OTHER], BASE_ITEMS, n_random=40, seed=3)
    other = random_baseline(PROFILE, [PROFILE, OTHER], BASE_ITEMS, n_random=40, seed=4)
    assert first == again
    assert first.mean["v_beta"] != other.mean["v_beta"]
    assert (first.n_random, first.n_comparisons, first.method) == (40, 80, "singleton")
    assert set(first.mean) == set(MEASURES) == set(first.sd)
    assert random_baseline(PROFILE, [OTHER], BASE_ITEMS).n_random == 100


def test_random_clusterings_keep_the_profile():
    # With one judge equal to the profile, every random set has the profile's
    # clusters and singletons, so n_clusters, cluster_entropy and the pair
    # count of the random side never vary.
    base = random_baseline(PROFILE, [PROFILE], BASE_ITEMS, n_random=30, seed=0, method="bucket")
    expected = clustering_scores(
        complete_with_irrelevant(PROFILE, BASE_ITEMS, method="bucket"),
        complete_with_irrelevant(PROFILE, BASE_ITEMS, method="bucket"),
    )
    assert base.mean["cluster_entropy"] == pytest.approx(expected.cluster_entropy, abs=1e-12)
    assert base.sd["cluster_entropy"] == pytest.approx(0.0, abs=1e-12)
    assert base.sd["class_entropy"] == pytest.approx(0.0, abs=1e-12)


def test_random_baseline_is_chance_level_and_below_the_judges():
    base = random_baseline(PROFILE, [PROFILE, OTHER], BASE_ITEMS, n_random=200, seed=1, method="bucket")
    assert abs(base.mean["adjusted_rand_index"]) < 3 * base.sd["adjusted_rand_index"] / math.sqrt(400) + 0.01
    judges = clustering_scores(
        complete_with_irrelevant(PROFILE, BASE_ITEMS, method="bucket"),
        complete_with_irrelevant(OTHER, BASE_ITEMS, method="bucket"),
    )
    assert judges.v_beta > base.mean["v_beta"]
    assert judges.normalized_variation_of_information < base.mean["normalized_variation_of_information"]


def test_random_baseline_mean_equals_the_mean_of_individual_comparisons():
    rng = np.random.default_rng(12)
    base = random_baseline(PROFILE, [OTHER], BASE_ITEMS, n_random=5, seed=rng, beta=0.5)
    # Redraw the same five permutations and score them one by one.
    rng = np.random.default_rng(12)
    template = np.concatenate([np.repeat([0, 1, 2, 3], [4, 3, 2, 3]), 4 + np.arange(18)])
    drawn = rng.permuted(np.broadcast_to(template, (5, 30)), axis=1)
    truth = complete_with_irrelevant(OTHER, BASE_ITEMS)
    values = [v_measure(truth, labels, beta=0.5) for labels in drawn]
    assert base.mean["v_measure"] == pytest.approx(np.mean(values), abs=1e-14)
    assert base.sd["v_measure"] == pytest.approx(np.std(values, ddof=1), abs=1e-14)


def _random_clusterings(rng: np.random.Generator, n_items: int, n_judges: int) -> list[list[list[str]]]:
    """Judges' clusterings of ``s0..s{n_items-1}``, each leaving some items out (maybe all)."""
    judges = []
    for _ in range(n_judges):
        used = [f"s{k}" for k in rng.permutation(n_items)[: rng.integers(0, n_items + 1)]]
        cuts = sorted(rng.choice(np.arange(1, len(used)), size=min(len(used) - 1, 3), replace=False)) if used else []
        judges.append([list(part) for part in np.split(np.array(used, dtype=object), cuts) if len(part)])
    return judges


@pytest.mark.parametrize("method", ["singleton", "bucket"])
def test_completed_scores_equal_clustering_scores_bit_for_bit(method):
    # A topic report scores every pair of judges from their completed labellings
    # (cached sizes, entropies and pairs); every field must be what
    # clustering_scores gives from the labels, including the degenerate cases
    # (a judge clustering nothing, one cluster holding every item, one item).
    rng = np.random.default_rng(5)
    for n_items in (1, 2, 5, 13):
        items = [f"s{k}" for k in range(n_items)]
        judges = _random_clusterings(rng, n_items, 5) + [[], [items]]
        labels = [complete_with_irrelevant(judge, items, method=method) for judge in judges]
        for a in labels:
            for b in labels:
                for beta in (1.0, 0.5):
                    assert completed_scores(Completed.of(a), Completed.of(b), beta=beta) == clustering_scores(
                        a, b, beta=beta
                    )


@pytest.mark.parametrize("method", ["singleton", "bucket"])
def test_completed_scores_each_equal_completed_scores_of_each_pair_bit_for_bit(method):
    # A topic scores all its pairs of judges with one array operation per step; every
    # field of every pair must be what completed_scores gives for that pair alone,
    # including the degenerate cases (nothing clustered, one cluster, one item).
    rng = np.random.default_rng(6)
    checked = 0
    for n_items in (1, 2, 5, 13, 40):
        items = [f"s{k}" for k in range(n_items)]
        judges = _random_clusterings(rng, n_items, 6) + [[], [items]]
        done = [Completed.of(complete_with_irrelevant(judge, items, method=method)) for judge in judges]
        pairs = [(a, b) for a in done for b in done]
        for beta in (1.0, 0.5, 0.0):
            each = completed_scores_each([a for a, _ in pairs], [b for _, b in pairs], beta=beta)
            assert len(each) == len(pairs)
            for i, (a, b) in enumerate(pairs):
                assert each.row(i) == completed_scores(a, b, beta=beta)
                checked += 1
    assert checked == 5 * 3 * 8 * 8


def test_both_completions_from_one_reading_equal_each_alone():
    rng = np.random.default_rng(8)
    for n_items in (1, 4, 13):
        items = [f"s{k}" for k in range(n_items)]
        for judge in [*_random_clusterings(rng, n_items, 6), [], [items]]:
            both = complete_with_irrelevant_each(judge, items)
            assert list(both) == ["singleton", "bucket"]
            for method, labels in both.items():
                assert np.array_equal(labels, complete_with_irrelevant(judge, items, method=method))
    with pytest.raises(ValueError, match="method must be"):
        complete_with_irrelevant_each([["s1"]], ["s1"], methods=["both"])


def test_completed_scores_each_count_pairs_of_pairs_beyond_int64_floats_exactly():
    # Above about 13,000 items the adjusted Rand index's products leave the integers a
    # float holds exactly: the pair counts are then Python integers, as completed_scores counts.
    rng = np.random.default_rng(7)
    n_items = 14_000
    done = [Completed.of(np.unique(rng.integers(0, k, n_items), return_inverse=True)[1]) for k in (2, 40, 3000)]
    each = completed_scores_each([a for a in done for _ in done], [b for _ in done for b in done])
    for i, (a, b) in enumerate((a, b) for a in done for b in done):
        assert each.row(i) == completed_scores(a, b)


def test_completed_scores_each_refuse_what_cannot_pair_up():
    a, b = Completed.of(np.array([0, 0, 1])), Completed.of(np.array([0, 1]))
    with pytest.raises(ValueError, match="pair up: 2 and 1"):
        completed_scores_each([a, a], [a])
    with pytest.raises(ValueError, match="different numbers of items"):
        completed_scores_each([a], [b])
    assert len(completed_scores_each([], [])) == 0


@pytest.mark.parametrize("method", ["singleton", "bucket"])
def test_random_baseline_of_completed_labellings_equals_completing_them_bit_for_bit(method, monkeypatch):
    # A topic report draws its baseline from the judges it has already completed; the
    # draws and figures must be those of random_baseline_means_each from the clusters,
    # with the shuffles kept per seed and with them drawn afresh.
    rng = np.random.default_rng(9)
    items = [f"s{k}" for k in range(11)]
    judges = _random_clusterings(rng, 11, 6)
    profiles = [(judge, seed) for seed, judge in enumerate(judges) if judge]
    done = [Completed.of(complete_with_irrelevant(judge, items, method=method)) for judge in judges]
    completed_profiles = [(done[seed], seed) for _, seed in profiles]
    expected = random_baseline_means_each(profiles, judges, items, method=method, n_random=30, beta=0.5)
    assert random_baseline_means_completed(completed_profiles, done, method=method, n_random=30, beta=0.5) == expected
    monkeypatch.setattr(clustering_module, "_SHUFFLE_CELLS", 0)
    assert random_baseline_means_completed(completed_profiles, done, method=method, n_random=30, beta=0.5) == expected
    seeded = [(profile, np.random.default_rng(seed)) for profile, seed in completed_profiles]
    assert random_baseline_means_completed(seeded, done, method=method, n_random=30, beta=0.5) == expected


@pytest.mark.parametrize("method", ["singleton", "bucket"])
def test_baseline_joint_entropies_counted_densely_or_by_sorting_are_the_same(method, monkeypatch):
    # Few possible joint codes: one dense table of every comparison's cells; many: each
    # comparison's codes sorted. Both add a comparison's terms in code order: bit for bit.
    rng = np.random.default_rng(10)
    for n_items in (2, 7, 30):
        items = [f"s{k}" for k in range(n_items)]
        judges = [judge for judge in _random_clusterings(rng, n_items, 5) if judge] or [[items[:2]]]
        profiles = [(judge, seed) for seed, judge in enumerate(judges)]
        results = []
        for dense in (True, False):
            monkeypatch.setattr(clustering_module, "_DENSE_CODES", 10**9 if dense else -(10**9))
            results.append(random_baseline_means_each(profiles, judges, items, method=method, n_random=25))
        assert results[0] == results[1]


def test_completed_scores_refuse_labellings_of_other_items():
    with pytest.raises(ValueError, match="labellings of 3 and 2 items"):
        completed_scores(Completed.of(np.array([0, 0, 1])), Completed.of(np.array([0, 1])))


@pytest.mark.parametrize("method", ["singleton", "bucket"])
def test_random_baseline_means_each_equal_one_call_per_profile(method, monkeypatch):
    # A topic's baseline draws each judge's profile with its own seed against
    # the same judges; done for all profiles at once (the judges' side once, the
    # draws stacked), every profile's means must equal random_baseline_means
    # called alone, and the per-comparison reference to 1e-12, also when the
    # profiles are split into several chunks to bound memory.
    rng = np.random.default_rng(8)
    items = [f"s{k}" for k in range(11)]
    judges = _random_clusterings(rng, 11, 6)
    profiles = [(judge, seed) for seed, judge in enumerate(judges) if judge]
    each = random_baseline_means_each(profiles, judges, items, method=method, n_random=30, beta=0.5)
    alone = [random_baseline_means(p, judges, items, method=method, n_random=30, beta=0.5, seed=s) for p, s in profiles]
    assert each == alone
    for (profile, seed), means in zip(profiles, each):
        slow = random_baseline(profile, judges, items, method=method, n_random=30, beta=0.5, seed=seed).mean
        assert all(means[name] == pytest.approx(slow[name], abs=1e-12) for name in means)
    monkeypatch.setattr(clustering_module, "_BASELINE_CHUNK_LABELS", 30 * len(judges) * len(items) * 2)
    assert random_baseline_means_each(profiles, judges, items, method=method, n_random=30, beta=0.5) == each


# ---------------------------------------------------------------------------
# Real data: three annotators grouping the same nuggets (AIPHES hierarchical
# summarisation corpus, Tauchmann et al. 2018); top-level bubbles as clusters.
# ---------------------------------------------------------------------------

TREES = str(pathlib.Path(__file__).resolve().parents[3] / "data" / "aiphes-hiersum" / "Trees" / "FinishedTrees") + "/"


def _top_level_clusters(path: str) -> list[list[str]]:
    root = ET.parse(path).getroot()
    return [[nugget.get("id") for nugget in bubble.iter("Nugget")] for bubble in root.findall("Bubble")]


@pytest.mark.parametrize("topic", ["1002", "1035"])
def test_aiphes_annotators_against_sklearn_and_above_random(topic):
    paths = sorted(glob.glob(f"{TREES}Annotator*/Topic_{topic}_*.xml"))
    assert len(paths) == 3
    annotators = [_top_level_clusters(p) for p in paths]
    gold = _top_level_clusters(f"{TREES}FinalCorpusGoldTrees/{topic}_gold_opti.txt.xml")
    items = sorted({n for clusters in annotators for cluster in clusters for n in cluster}, key=int)
    assert len(items) == {"1002": 88, "1035": 146}[topic]  # the corpus's "Nuggets:" count
    gold_labels = complete_with_irrelevant(gold, items)
    base = random_baseline(gold, annotators, items, n_random=50, seed=0)
    for clusters in annotators:
        labels = complete_with_irrelevant(clusters, items)
        s = clustering_scores(gold_labels, labels, beta=0.5)
        h, c, v = skm.homogeneity_completeness_v_measure(gold_labels, labels, beta=0.5)
        assert (s.homogeneity, s.completeness, s.v_measure) == pytest.approx((h, c, v), abs=1e-12)
        assert s.adjusted_rand_index == pytest.approx(skm.adjusted_rand_score(gold_labels, labels), abs=1e-12)
        assert s.v_beta > base.mean["v_beta"]
        assert s.normalized_variation_of_information < base.mean["normalized_variation_of_information"]
