"""Tests for kinds.factoids.stats (van Halteren and Teufel, EMNLP 2004)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss_kappa

from kinds.factoids import stats as factoids_stats
from kinds.factoids.stats import (
    DISCREPANCY_MESSAGES,
    Discrepancy,
    FactoidKappa,
    FactoidRelation,
    TopicAnnotations,
    _kappa_of_many,
    _kappa_of_two,
    _row_spearman,
    annotation_items,
    annotation_kappa,
    definition_items,
    definition_kappa,
    discrepancies,
    factoid_table,
    inventory_growth,
    labels_kappa,
    remerged_count,
    suggest_relations,
    tokenize,
    unigram_comparison,
    weighted_factoid_scores,
    wfs_distribution,
    wfs_stability,
)
from stats.agreement import category_counts, fleiss_kappa

# Degenerate inputs must give NaN quietly, never a numpy warning.
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

SEEDS = [0, 1, 2, 3]


def one_sentence_summaries(names: str, *, model: bool = True) -> list[dict]:
    return [{"id": s, "model": model, "sentences": [s + "1"]} for s in names]


# --------------------------------------------------------------------------
# Section 3.2 worked example. The paper: "given 5 summaries a, b, c, d, e,
# Annotator A1 assigns P30 to summaries a, c and e. Annotator A2 (who has
# split P30 into F9.21 and F9.22), assigns a to F9.21 and c and e to F9.22.
# This creates the 10 items for Kappa calculation given in Figure 2."
# Items A^b - s, labels (P30 in s by A1, b in s by A2):
#   P30^F9.21: a (1,1) b (0,0) c (1,0) d (0,0) e (1,0)
#   P30^F9.22: a (1,0) b (0,0) c (1,1) d (0,0) e (1,1)
# By hand: agreeing items 3 + 4 = 7 of 10 -> P(A) = 0.7; present labels
# 6 (A1) + 3 (A2) = 9 of 20 -> p = 0.45, P(E) = 0.45^2 + 0.55^2 = 0.505;
# kappa = (0.7 - 0.505) / (1 - 0.505) = 0.195 / 0.495 = 13/33 = 0.393939...
# --------------------------------------------------------------------------

P30_SUMMARIES = one_sentence_summaries("abcde")
P30_ONE = {
    "factoids": [{"id": "P30", "text": "Saddam/Iraq will leave the country soon/when situation stabilises"}],
    "marks": {"a1": ["P30"], "c1": ["P30"], "e1": ["P30"]},
}
P30_TWO = {
    "factoids": [{"id": "F9.21", "text": "will leave"}, {"id": "F9.22", "text": "soon"}],
    "marks": {"a1": ["F9.21"], "c1": ["F9.22"], "e1": ["F9.22"]},
}
P30_ITEMS = [
    ("P30", "F9.21", "a", True, True),
    ("P30", "F9.21", "b", False, False),
    ("P30", "F9.21", "c", True, False),
    ("P30", "F9.21", "d", False, False),
    ("P30", "F9.21", "e", True, False),
    ("P30", "F9.22", "a", True, False),
    ("P30", "F9.22", "b", False, False),
    ("P30", "F9.22", "c", True, True),
    ("P30", "F9.22", "d", False, False),
    ("P30", "F9.22", "e", True, True),
]


@pytest.mark.parametrize(
    "relation",
    [
        ("P30", ["F9.21", "F9.22"]),
        FactoidRelation("P30", ("F9.21", "F9.22")),
        {"first": ["P30"], "second": ["F9.21", "F9.22"]},
    ],
)
def test_definition_items_worked_example(relation):
    items = definition_items([relation], P30_ONE, P30_TWO, P30_SUMMARIES)
    got = list(
        zip(
            items.first.tolist(),
            items.second.tolist(),
            items.unit.tolist(),
            items.labels[:, 0].tolist(),
            items.labels[:, 1].tolist(),
        )
    )
    assert got == P30_ITEMS


def test_definition_kappa_worked_example():
    result = definition_kappa([("P30", ["F9.21", "F9.22"])], P30_ONE, P30_TWO, P30_SUMMARIES)
    assert result.n_items == 10
    assert result.observed == pytest.approx(0.7)
    assert result.expected == pytest.approx(0.505)
    assert result.kappa == pytest.approx(13 / 33)
    assert all(type(v) is float for v in (result.kappa, result.observed, result.expected))
    labels = definition_items([("P30", ["F9.21", "F9.22"])], P30_ONE, P30_TWO, P30_SUMMARIES).labels
    assert fleiss_kappa(category_counts(labels.astype(int), categories=[0, 1])) == pytest.approx(13 / 33)
    assert statsmodels_fleiss_kappa(aggregate_raters(labels.astype(int))[0]) == pytest.approx(13 / 33)


def test_definition_kappa_is_symmetric_in_the_annotators():
    # Annotator 2 subsuming: same items, columns swapped; kappa unchanged.
    forward = definition_items([("P30", ["F9.21", "F9.22"])], P30_ONE, P30_TWO, P30_SUMMARIES)
    backward = definition_items([(["F9.21", "F9.22"], "P30")], P30_TWO, P30_ONE, P30_SUMMARIES)
    assert backward.first.tolist() == ["F9.21"] * 5 + ["F9.22"] * 5
    assert np.array_equal(backward.labels, forward.labels[:, ::-1])
    assert definition_kappa([(["F9.21", "F9.22"], "P30")], P30_TWO, P30_ONE, P30_SUMMARIES).kappa == pytest.approx(
        13 / 33
    )


def test_definition_items_identity_and_sentence_unit():
    summaries = [{"id": "a", "sentences": ["a1", "a2"]}, {"id": "b", "sentences": ["b1"]}]
    one = {"factoids": ["X"], "marks": {"a2": ["X"], "b1": ["X"]}}
    two = {"factoids": ["Y"], "marks": {"a1": ["Y"], "b1": ["Y"]}}
    by_summary = definition_items([("X", "Y")], one, two, summaries)
    assert by_summary.labels.tolist() == [[True, True], [True, True]]
    by_sentence = definition_items([("X", "Y")], one, two, summaries, unit="sentence")
    assert by_sentence.unit.tolist() == ["a1", "a2", "b1"]
    assert by_sentence.labels.tolist() == [[False, True], [True, False], [True, True]]
    # 1 of 3 agree; p = 4/6: P(E) = 4/9 + 1/9 = 5/9; kappa = (1/3 - 5/9)/(4/9) = -1/2
    assert definition_kappa([("X", "Y")], one, two, summaries, unit="sentence").kappa == pytest.approx(-0.5)


def test_definition_kappa_without_relations_is_nan():
    result = definition_kappa([], P30_ONE, P30_TWO, P30_SUMMARIES)
    assert result.n_items == 0 and np.isnan(result.kappa) and np.isnan(result.observed)


@pytest.mark.parametrize(
    ("relations", "message"),
    [
        ([("P30", ["F9.21", "F9.99"])], "F9.99"),
        ([("F9.21", "P30")], "annotation_1"),
        ([(["P30", "P31"], ["F9.21", "F9.22"])], "single factoid"),
        ([("P30", [])], "at least one"),
        ([("P30", ["F9.21", "F9.21"])], "repeat"),
        (["P30"], "relations\\[0\\]"),
    ],
)
def test_definition_items_rejects_bad_relations(relations, message):
    with pytest.raises(ValueError, match=message):
        definition_items(relations, P30_ONE, P30_TWO, P30_SUMMARIES)


# --------------------------------------------------------------------------
# Annotation kappa (section 3.1)
# --------------------------------------------------------------------------

TINY_SUMMARIES = [{"id": "s", "model": True, "sentences": ["s1", "s2"]}]


def test_annotation_kappa_tiny_case_by_hand():
    # 3 annotators, factoids F1, F2 on sentences s1, s2: 4 items.
    #   F1-s1: 1 1 1   (3 of 3 pairs agree)
    #   F1-s2: 0 0 1   (1 of 3)
    #   F2-s1: 0 0 0   (3 of 3)
    #   F2-s2: 1 1 0   (1 of 3)
    # P(A) = (1 + 1/3 + 1 + 1/3) / 4 = 2/3; present 6 of 12 -> P(E) = 0.5;
    # kappa = (2/3 - 1/2) / (1/2) = 1/3.
    annotations = [
        {"factoids": ["F1", "F2"], "marks": {"s1": ["F1"], "s2": ["F2"]}},
        {"factoids": ["F1", "F2"], "marks": {"s1": ["F1"], "s2": ["F2"]}},
        {"factoids": ["F1", "F2"], "marks": {"s1": ["F1"], "s2": ["F1"]}},
    ]
    result = annotation_kappa(annotations, TINY_SUMMARIES, unit="sentence")
    assert result == FactoidKappa(pytest.approx(1 / 3), pytest.approx(2 / 3), 0.5, 4)
    items = annotation_items(annotations, TINY_SUMMARIES, unit="sentence")
    assert items.factoid.tolist() == ["F1", "F1", "F2", "F2"]
    assert items.unit.tolist() == ["s1", "s2", "s1", "s2"]
    assert items.labels.astype(int).tolist() == [[1, 1, 1], [0, 0, 1], [0, 0, 0], [1, 1, 0]]
    # As whole summaries: F1 (1,1,1), F2 (1,1,0): P(A) = (1 + 1/3)/2 = 2/3,
    # p = 5/6, P(E) = 26/36, kappa = (24/36 - 26/36) / (10/36) = -0.2.
    by_summary = annotation_kappa(annotations, TINY_SUMMARIES, unit="summary")
    assert (by_summary.observed, by_summary.n_items) == (pytest.approx(2 / 3), 2)
    assert by_summary.kappa == pytest.approx(-0.2)


def random_annotations(
    rng: np.random.Generator, n_annotators: int, n_factoids: int, sentences: list[str]
) -> list[dict]:
    truth = rng.random((len(sentences), n_factoids)) < 0.25
    annotations = []
    for _ in range(n_annotators):
        noisy = truth ^ (rng.random(truth.shape) < 0.1)
        marks = {s: [f"F{j}" for j in np.flatnonzero(row)] for s, row in zip(sentences, noisy)}
        annotations.append({"factoids": [f"F{j}" for j in range(n_factoids)], "marks": marks})
    return annotations


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("unit", ["sentence", "summary"])
def test_annotation_kappa_matches_fleiss_and_statsmodels(seed, unit):
    rng = np.random.default_rng(seed)
    summaries = [{"id": f"S{i}", "sentences": [f"S{i}.{k}" for k in range(rng.integers(1, 5))]} for i in range(8)]
    sentences = [s for summary in summaries for s in summary["sentences"]]
    annotations = random_annotations(rng, int(rng.integers(2, 6)), 12, sentences)
    result = annotation_kappa(annotations, summaries, unit=unit)
    labels = annotation_items(annotations, summaries, unit=unit).labels.astype(int)
    assert result.n_items == 12 * (len(sentences) if unit == "sentence" else 8)
    assert result.kappa == pytest.approx(fleiss_kappa(category_counts(labels, categories=[0, 1])), abs=1e-12)
    assert result.kappa == pytest.approx(statsmodels_fleiss_kappa(aggregate_raters(labels)[0]), abs=1e-12)
    assert result.kappa == pytest.approx((result.observed - result.expected) / (1 - result.expected), abs=1e-12)
    # annotator order does not matter
    assert annotation_kappa(annotations[::-1], summaries, unit=unit).kappa == pytest.approx(result.kappa, abs=1e-12)


def test_two_annotators_kappa_equals_the_general_path_bit_for_bit():
    # _kappa_of_two (a topic's 45 pairs call it twice each) against the general path and
    # fleiss_kappa, on tables of every kind: all-absent, all-present, one item, many items.
    rng = np.random.default_rng(27)
    tables = [np.zeros((5, 2), bool), np.ones((3, 2), bool), np.array([[True, False]]), np.array([[True, True]])]
    tables += [rng.random((int(rng.integers(1, 400)), 2)) < rng.random() for _ in range(300)]
    for table in tables:
        two, many = _kappa_of_two(table), _kappa_of_many(table)
        assert (two.observed, two.expected, two.n_items) == (many.observed, many.expected, many.n_items)
        assert type(two.n_items) is int and type(two.observed) is float
        assert two.kappa == many.kappa or (np.isnan(two.kappa) and np.isnan(many.kappa)), table.tolist()
        assert labels_kappa(table) == two or np.isnan(two.kappa)


def test_annotation_items_keep_only_factoids_every_annotator_defined():
    one = {"factoids": ["F1", "F2", "F3"], "marks": {"s1": ["F1", "F3"]}}
    two = {"factoids": ["F3", "F1", "F4"], "marks": {"s1": ["F4"]}}
    items = annotation_items([one, two], TINY_SUMMARIES, unit="sentence")
    # F2 and F4 are one annotator's only; F1, F3 in the first annotator's order;
    # F1 is never marked by the second annotator: items still count (absent).
    assert items.factoid.tolist() == ["F1", "F1", "F3", "F3"]
    assert items.labels.astype(int).tolist() == [[1, 0], [0, 0], [1, 0], [0, 0]]


def test_annotation_kappa_with_factoid_keys_equals_common_ids():
    common = random_annotations(np.random.default_rng(7), 2, 5, ["s1", "s2"])
    renamed = {
        "factoids": [f"own{j}" for j in range(5)] + ["extra"],
        "marks": {s: [f"own{f[1:]}" for f in fs] + ["extra"] for s, fs in common[1]["marks"].items()},
    }
    keys = [{f"F{j}": f"k{j}" for j in range(5)}, {f"own{j}": f"k{j}" for j in range(5)}]
    by_keys = annotation_kappa([common[0], renamed], TINY_SUMMARIES, unit="sentence", factoid_keys=keys)
    assert by_keys == annotation_kappa(common, TINY_SUMMARIES, unit="sentence")
    items = annotation_items([common[0], renamed], TINY_SUMMARIES, unit="sentence", factoid_keys=keys)
    assert items.factoid.tolist()[:2] == [
        "k0",
        "k0",
    ]


def test_annotation_kappa_perfect_and_degenerate():
    same = {"factoids": ["F1", "F2"], "marks": {"s1": ["F1"], "s2": ["F2"]}}
    assert annotation_kappa([same, same, same], TINY_SUMMARIES, unit="sentence").kappa == 1.0
    nothing = {"factoids": ["F1"], "marks": {}}
    empty = annotation_kappa([nothing, nothing], TINY_SUMMARIES, unit="sentence")  # every label "absent": P(E) = 1
    assert (empty.observed, empty.expected, empty.n_items) == (1.0, 1.0, 2) and np.isnan(empty.kappa)
    disjoint = annotation_kappa([{"factoids": ["A"], "marks": {}}, {"factoids": ["B"], "marks": {}}], TINY_SUMMARIES)
    assert disjoint.n_items == 0 and np.isnan(disjoint.kappa) and np.isnan(disjoint.expected)


def test_marks_outside_the_summaries_are_ignored():
    one = {"factoids": ["F1"], "marks": {"s1": ["F1"], "other-topic-sentence": ["F1"]}}
    assert annotation_items([one, one], TINY_SUMMARIES).labels.sum() == 2


@pytest.mark.parametrize(
    ("annotations", "summaries", "message"),
    [
        ([{"factoids": ["F1"], "marks": {}}], TINY_SUMMARIES, "at least two"),
        ([{"factoids": ["F1"], "marks": {"s1": ["F9"]}}] * 2, TINY_SUMMARIES, "F9"),
        ([{"factoids": ["F1", "F1"], "marks": {}}] * 2, TINY_SUMMARIES, "unique factoid ids"),
        ([{"marks": {}}] * 2, TINY_SUMMARIES, "'factoids'"),
        ([{"factoids": ["F1"], "marks": {"s1": "F1"}}] * 2, TINY_SUMMARIES, "sequence"),
        ([{"factoids": ["F1"], "marks": {}}] * 2, [{"id": "s", "sentences": ["x", "x"]}], "unique sentence ids"),
        (
            [{"factoids": ["F1"], "marks": {}}] * 2,
            [{"id": "s", "sentences": ["x"]}, {"id": "s", "sentences": []}],
            "summary ids",
        ),
        ([{"factoids": ["F1"], "marks": {}}] * 2, [{"id": "s", "model": "yes", "sentences": []}], "model"),
        ([{"factoids": [""], "marks": {}}] * 2, TINY_SUMMARIES, "non-empty"),
    ],
)
def test_annotation_kappa_rejects_malformed_input(annotations, summaries, message):
    with pytest.raises(ValueError, match=message):
        annotation_kappa(annotations, summaries)


def test_annotation_kappa_rejects_bad_options():
    a = {"factoids": ["F1"], "marks": {}}
    with pytest.raises(ValueError, match="unit"):
        annotation_kappa([a, a], TINY_SUMMARIES, unit="word")
    with pytest.raises(ValueError, match="one mapping per annotation"):
        annotation_kappa([a, a], TINY_SUMMARIES, factoid_keys=[{"F1": "k"}])
    with pytest.raises(ValueError, match="one factoid per key"):
        annotation_kappa(
            [{"factoids": ["F1", "F2"], "marks": {}}, a],
            TINY_SUMMARIES,
            factoid_keys=[{"F1": "k", "F2": "k"}, {"F1": "k"}],
        )


# --------------------------------------------------------------------------
# Suggested relations (section 3.2)
# --------------------------------------------------------------------------


def relation_summaries(n: int) -> list[dict]:
    return [{"id": f"S{i}", "sentences": [f"S{i}.1", f"S{i}.2"]} for i in range(n)]


def test_suggest_relations_split_identity_unrelated_and_merge():
    # Annotator 1: P30 on 6 sentences, which annotator 2 split into F9.21 (3)
    # and F9.22 (3); P31 = F4 up to one slip; P32 and F7 are unrelated;
    # annotator 1's Q1 and Q2 are merged by annotator 2 into G1.
    one_marks = {
        "S0.1": ["P30"],
        "S1.1": ["P30"],
        "S2.1": ["P30"],
        "S3.1": ["P30"],
        "S4.1": ["P30"],
        "S5.1": ["P30"],
        "S0.2": ["P31"],
        "S1.2": ["P31"],
        "S2.2": ["P31"],
        "S3.2": ["P31", "Q1"],
        "S4.2": ["Q1"],
        "S5.2": ["P32"],
        "S6.1": ["Q1"],
        "S6.2": ["Q2"],
        "S7.1": ["Q2"],
    }
    two_marks = {
        "S0.1": ["F9.21"],
        "S1.1": ["F9.21"],
        "S2.1": ["F9.21"],
        "S3.1": ["F9.22"],
        "S4.1": ["F9.22"],
        "S5.1": ["F9.22"],
        "S0.2": ["F4"],
        "S1.2": ["F4"],
        "S2.2": ["F4"],
        "S3.2": ["F4", "G1"],
        "S4.2": ["G1"],
        "S6.1": ["G1"],
        "S6.2": ["G1"],
        "S7.1": ["G1"],
        "S7.2": ["F7"],
    }
    one = {"factoids": ["P30", "P31", "P32", "Q1", "Q2"], "marks": one_marks}
    two = {"factoids": ["F4", "F7", "F9.21", "F9.22", "G1"], "marks": two_marks}
    relations = suggest_relations(one, two, relation_summaries(8))
    assert relations == (
        FactoidRelation("P30", ("F9.21", "F9.22")),
        FactoidRelation("P31", "F4"),
        FactoidRelation(("Q1", "Q2"), "G1"),
    )
    assert [r.kind for r in relations] == ["subsumption", "identity", "subsumption"]
    # The suggestions feed definition_kappa directly.
    assert definition_kappa(relations, one, two, relation_summaries(8)).n_items == (2 + 1 + 2) * 8


def test_suggest_relations_p30_paper_split():
    # The paper's P30 / F9.21 / F9.22, one sentence per summary: P30's best
    # single match F9.22 has Jaccard 2/3 >= 0.6 but covers only 2/3 < 0.8 of
    # P30, so the split wins over an identity.
    assert suggest_relations(P30_ONE, P30_TWO, P30_SUMMARIES) == (FactoidRelation("P30", ("F9.21", "F9.22")),)
    # With min_cover 0.6, F9.22 alone covers enough of P30: no split, and
    # the mutual best match P30 = F9.22 (Jaccard 2/3) becomes an identity
    # unless min_identity asks for more.
    assert suggest_relations(P30_ONE, P30_TWO, P30_SUMMARIES, min_cover=0.6) == (FactoidRelation("P30", "F9.22"),)
    assert suggest_relations(P30_ONE, P30_TWO, P30_SUMMARIES, min_cover=0.6, min_identity=0.7) == ()


def test_suggest_relations_prefers_identity_when_one_part_covers_the_whole():
    summaries = relation_summaries(5)
    one = {"factoids": ["A"], "marks": {f"S{i}.1": ["A"] for i in range(5)}}
    two = {"factoids": ["B1", "B2"], "marks": {**{f"S{i}.1": ["B1"] for i in range(5)}, "S0.1": ["B1", "B2"]}}
    assert suggest_relations(one, two, summaries) == (FactoidRelation("A", "B1"),)


def test_suggest_relations_thresholds_and_validation():
    summaries = relation_summaries(4)
    one = {"factoids": ["A"], "marks": {"S0.1": ["A"], "S1.1": ["A"], "S2.1": ["A"]}}
    two = {"factoids": ["C"], "marks": {"S1.1": ["C"], "S2.1": ["C"], "S3.1": ["C"]}}
    # Jaccard 2/4 = 0.5
    assert suggest_relations(one, two, summaries) == ()
    assert suggest_relations(one, two, summaries, min_identity=0.5) == (FactoidRelation("A", "C"),)
    for bad in (0, 1.5, "high"):
        with pytest.raises(ValueError, match="min_identity"):
            suggest_relations(one, two, summaries, min_identity=bad)


def test_suggest_relations_without_marks():
    empty = {"factoids": [], "marks": {}}
    assert suggest_relations(empty, P30_TWO, P30_SUMMARIES) == ()
    assert suggest_relations({"factoids": ["X"], "marks": {}}, {"factoids": ["Y"], "marks": {}}, P30_SUMMARIES) == ()


def related_annotations(rng: np.random.Generator) -> tuple[list[dict], dict[str, dict]]:
    """Summaries and 2-5 annotators' inventories and marks around one hidden set of
    factoids: each annotator splits, merges, drops or adds some, so that identities and
    subsumptions both occur (and inventories may be empty)."""
    summaries, sentences = [], []
    for s in range(int(rng.integers(1, 5))):
        ids = [f"S{s}.{k}" for k in range(int(rng.integers(1, 6)))]
        summaries.append({"id": f"S{s}", "model": bool(rng.random() < 0.5), "sentences": ids})
        sentences += ids
    hidden = int(rng.integers(1, 7))
    truth = {x: rng.choice(hidden, size=min(hidden, int(rng.integers(0, 3))), replace=False) for x in sentences}
    annotations = {}
    for a in range(int(rng.integers(2, 6))):
        size = int(rng.integers(0, 8))
        inventory = [f"F{a}.{j}" for j in range(size)]
        marks = {}
        for x in sentences:
            chosen = set()
            for fact in truth[x] if size else ():
                if rng.random() < 0.85:
                    chosen.add(int(fact) % size)
                if rng.random() < 0.2:
                    chosen.add(int(rng.integers(0, size)))
            marks[x] = [inventory[c] for c in sorted(chosen)]
        annotations[f"a{a}"] = {"factoids": inventory, "marks": marks}
    return summaries, annotations


@pytest.mark.parametrize("blocks", ["whole", "one pair"])
def test_suggest_relations_each_equal_suggesting_pair_by_pair(blocks, monkeypatch):
    # A topic suggests the relations of all its pairs of annotators at once; every pair's
    # must be what suggest_relations gives for the two annotations alone, whatever the
    # thresholds, also with the pairs taken one at a time (large inventories).
    if blocks == "one pair":
        monkeypatch.setattr(factoids_stats, "_SUGGEST_CELLS", 1)
    rng = np.random.default_rng(41)
    kinds = {"identity": 0, "subsumption": 0}
    for _ in range(120 if blocks == "whole" else 30):
        summaries, annotations = related_annotations(rng)
        topic = TopicAnnotations(annotations, summaries)
        pairs = [(a, b) for a in annotations for b in annotations if a != b]
        thresholds = {
            "min_identity": float(rng.choice([0.3, 0.6, 1.0])),
            "min_inside": float(rng.choice([0.5, 0.8, 1.0])),
            "min_cover": float(rng.choice([0.5, 0.8, 1.0])),
        }
        for (a, b), found in zip(pairs, topic.suggest_relations_each(pairs, **thresholds)):
            expected = suggest_relations(annotations[a], annotations[b], summaries, **thresholds)
            assert found == expected, (a, b, annotations[a], annotations[b], thresholds)
            for relation in found:
                kinds[relation.kind] += 1
    assert min(kinds.values()) >= 5, kinds  # both kinds of relation were compared
    assert TopicAnnotations(annotations, summaries).suggest_relations_each([]) == []


def test_identity_labels_are_the_annotation_labels_of_the_identities_keys():
    rng = np.random.default_rng(42)
    compared = 0
    for _ in range(60):
        summaries, annotations = related_annotations(rng)
        topic = TopicAnnotations(annotations, summaries)
        (a, one), (b, two) = list(annotations.items())[:2]
        if not one["factoids"] or not two["factoids"]:
            continue
        count = int(rng.integers(1, min(len(one["factoids"]), len(two["factoids"])) + 1))
        firsts = rng.choice(one["factoids"], size=count, replace=False).tolist()
        seconds = rng.choice(two["factoids"], size=count, replace=False).tolist()
        identities = [FactoidRelation(f, g) for f, g in zip(firsts, seconds)]
        keys = ({f: f for f in firsts}, {g: f for f, g in zip(firsts, seconds)})
        for unit in ("summary", "sentence"):
            expected = topic.annotation_labels([a, b], unit=unit, factoid_keys=keys)
            assert np.array_equal(topic.identity_labels(identities, a, b, unit=unit), expected)
            compared += 1
    assert compared > 60
    topic = TopicAnnotations({"one": P30_ONE, "two": P30_TWO}, P30_SUMMARIES)
    with pytest.raises(ValueError, match="one factoid to one factoid"):
        topic.identity_labels([("P30", ["F9.21", "F9.22"])], "one", "two")
    with pytest.raises(ValueError, match="each factoid once"):
        topic.identity_labels([("P30", "F9.21"), ("P30", "F9.22")], "one", "two")


# --------------------------------------------------------------------------
# Phase 2 discrepancy list (section 3.1)
# --------------------------------------------------------------------------


def test_discrepancies_with_counterparts():
    summaries = [{"id": "a", "sentences": ["a1", "a2"]}, {"id": "b", "sentences": ["b1"]}]
    mine = {"factoids": ["X1", "X2", "X3"], "marks": {"a1": ["X1"], "a2": ["X2"], "b1": ["X1", "X3"]}}
    theirs = {"factoids": ["Y1", "Y2"], "marks": {"a1": ["Y1", "Y2"], "b1": ["Y2"]}}
    found = discrepancies(mine, theirs, summaries, counterparts={"X2": "Y2", "X1": "Y1"})
    # X3 has no counterpart: never listed.
    assert found == (
        Discrepancy("a1", "X2", "only_other"),
        Discrepancy("a2", "X2", "only_you"),
        Discrepancy("b1", "X1", "only_you"),
        Discrepancy("b1", "X2", "only_other"),
    )
    assert found[0].message == "the other marked it, you did not" == DISCREPANCY_MESSAGES["only_other"]
    mirrored = discrepancies(theirs, mine, summaries, counterparts={"Y1": "X1", "Y2": "X2"})
    flip = {"only_you": "only_other", "only_other": "only_you"}
    mapped = {"X1": "Y1", "X2": "Y2"}
    assert sorted((d.sentence, d.factoid, d.kind) for d in mirrored) == sorted(
        (d.sentence, mapped[d.factoid], flip[d.kind]) for d in found
    )


def test_discrepancies_common_list_and_errors():
    mine = {"factoids": ["F1", "F2"], "marks": {"s1": ["F1", "F2"]}}
    assert discrepancies(mine, mine, TINY_SUMMARIES) == ()
    theirs = {"factoids": ["F2", "F3"], "marks": {"s2": ["F2", "F3"]}}
    assert discrepancies(mine, theirs, TINY_SUMMARIES) == (
        Discrepancy("s1", "F2", "only_you"),
        Discrepancy("s2", "F2", "only_other"),
    )
    with pytest.raises(ValueError, match="one-to-one"):
        discrepancies(mine, theirs, TINY_SUMMARIES, counterparts={"F1": "F2", "F2": "F2"})
    with pytest.raises(ValueError, match="not a factoid of other"):
        discrepancies(mine, theirs, TINY_SUMMARIES, counterparts={"F1": "F9"})


# --------------------------------------------------------------------------
# Factoid tables
# --------------------------------------------------------------------------


def test_factoid_table_arrays():
    summaries = [
        {"id": "m1", "model": True, "sentences": [{"id": "m1.1", "text": "..."}, "m1.2", "m1.3"]},
        {"id": "empty", "model": True, "sentences": []},
        {"id": "r1", "model": False, "sentences": ["r1.1", "r1.2"]},
    ]
    table = factoid_table(
        {"factoids": ["A", "B", "C"], "marks": {"m1.2": ["B"], "m1.3": ["A", "B"], "r1.2": ["A"]}}, summaries
    )
    assert table.sentences == ("m1.1", "m1.2", "m1.3", "r1.1", "r1.2")
    assert table.summary_of_sentence.tolist() == [0, 0, 0, 2, 2]
    assert table.model.tolist() == [True, True, False]
    assert table.by_summary.astype(int).tolist() == [[1, 1, 0], [0, 0, 0], [1, 0, 0]]
    assert table.first_position.tolist() == [[3, 2, 0], [0, 0, 0], [2, 0, 0]]


# --------------------------------------------------------------------------
# Inventory growth (section 4)
# --------------------------------------------------------------------------

# Summary 0: sentences 0, 1; summary 1: sentences 2, 3; summary 2: sentence 4.
#   A: s0        B: s0        (never apart: always merge)
#   C: s1, s2    D: s1        (apart only in summary 1, sentence 2)
#   E: s3        F: s4
REMERGE_PRESENCE = np.array(
    [
        # A  B  C  D  E  F
        [1, 1, 0, 0, 0, 0],  # s0
        [0, 0, 1, 1, 0, 0],  # s1
        [0, 0, 1, 0, 0, 0],  # s2
        [0, 0, 0, 0, 1, 0],  # s3
        [0, 0, 0, 0, 0, 1],  # s4
    ],
    dtype=bool,
)
REMERGE_OWNER = np.array([0, 0, 1, 1, 2])


@pytest.mark.parametrize(
    ("summaries", "count"),
    [
        ([0], 2),  # {A,B} on s0, {C,D} on s1; E, F absent
        ([1], 2),  # C on s2, E on s3; A, B, D, F absent
        ([2], 1),  # F
        ([0, 1], 4),  # {A,B}, C (s1,s2), D (s1), E
        ([0, 2], 3),  # {A,B}, {C,D}, F
        ([0, 1, 2], 5),  # {A,B}, C, D, E, F: A and B still merge
        ([], 0),
    ],
)
def test_remerged_count_hand_case(summaries, count):
    assert remerged_count(REMERGE_PRESENCE, REMERGE_OWNER, summaries) == count


def test_growth_per_sentence_hand_case():
    # Summaries 0 and 1 together (the REMERGE case): groups {A,B}, C, D, E.
    # s0 carries {A,B}: 1; s1 carries C and D: 2; s2 carries C: 1; s3 E: 1.
    # Mean 5/4 factoids per sentence; with summary 0 alone, 1 per sentence;
    # with summary 1 alone, C and E on one sentence each: 1.
    growth = inventory_growth(REMERGE_PRESENCE[:4], REMERGE_OWNER[:4], draws=20)
    assert growth.mean.tolist() == [2.0, 4.0]
    assert growth.mean_per_sentence.tolist() == [1.0, 1.25]


def test_remerged_count_rejects_bad_summaries():
    with pytest.raises(ValueError, match="summaries"):
        remerged_count(REMERGE_PRESENCE, REMERGE_OWNER, [3])
    with pytest.raises(ValueError, match="summary_of_sentence"):
        remerged_count(REMERGE_PRESENCE, REMERGE_OWNER[:-1], [0])


def synthetic_sentences(rng: np.random.Generator, n_summaries: int, n_factoids: int):
    popularity = rng.pareto(1.2, n_factoids) + 0.05
    popularity /= popularity.sum()
    lengths = rng.integers(2, 7, n_summaries)
    owner = np.repeat(np.arange(n_summaries), lengths)
    presence = np.zeros((len(owner), n_factoids), dtype=bool)
    for row in range(len(owner)):
        presence[row, rng.choice(n_factoids, rng.integers(1, 4), replace=False, p=popularity)] = True
    return presence, owner


def loop_growth(presence, owner, n_summaries, draws, seed):
    """Straightforward: per size and draw, a dict from each distinct non-empty
    column tuple to its group; then the distinct groups on each marked sentence."""
    means, per_sentence = [], []
    for size in range(1, n_summaries + 1):
        keys = np.random.default_rng([seed, size]).random((draws, n_summaries))
        counts, ratios = [], []
        for d in range(draws):
            rows = np.flatnonzero(np.isin(owner, np.argsort(keys[d])[:size]))
            group = {}
            for f in range(presence.shape[1]):
                pattern = tuple(presence[rows, f])
                if any(pattern):
                    group[f] = group.setdefault(pattern, len(group))
            counts.append(len({g for g in group.values()}))
            carried = [len({group[f] for f in np.flatnonzero(presence[r])}) for r in rows if presence[r].any()]
            if carried:
                ratios.append(np.mean(carried))
        means.append(np.mean(counts))
        per_sentence.append(np.mean(ratios))
    return np.array(means), np.array(per_sentence)


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_inventory_growth_equals_loop(seed):
    rng = np.random.default_rng(seed)
    presence, owner = synthetic_sentences(rng, 9, 70)  # 70 factoids x ~36 sentences: multi-word patterns too
    growth = inventory_growth(presence, owner, draws=15, seed=seed)
    means, per_sentence = loop_growth(presence, owner, 9, 15, seed)
    assert growth.sizes.tolist() == list(range(1, 10))
    assert growth.mean.tolist() == means.tolist()
    assert growth.mean_per_sentence == pytest.approx(per_sentence, abs=1e-12)
    assert np.all(np.diff(growth.mean) > 0)  # more summaries, more factoids
    assert growth.sd[-1] == 0.0  # every draw of all summaries is the same


def test_inventory_growth_wide_sentence_axis():
    # More than 64 sentences: patterns span several 64-bit words.
    rng = np.random.default_rng(11)
    presence, owner = synthetic_sentences(rng, 40, 30)
    assert presence.shape[0] > 128
    growth = inventory_growth(presence, owner, draws=3, seed=5)
    means, _ = loop_growth(presence, owner, 40, 3, 5)
    assert growth.mean.tolist() == means.tolist()


def test_inventory_growth_draws_are_prefix_stable():
    presence, owner = synthetic_sentences(np.random.default_rng(3), 6, 20)
    few = inventory_growth(presence, owner, draws=1, seed=9)
    many = inventory_growth(presence, owner, draws=10, seed=9)
    first = [
        remerged_count(presence, owner, np.argsort(np.random.default_rng([9, n]).random((10, 6))[0])[:n])
        for n in range(1, 7)
    ]
    assert few.mean.tolist() == first
    assert np.isnan(few.sd).all() and not np.isnan(many.sd).any()


def test_inventory_growth_degenerate():
    # No factoids: counts 0, per-sentence undefined.
    nothing = inventory_growth(np.zeros((3, 0), dtype=bool), [0, 0, 1], draws=4)
    assert nothing.mean.tolist() == [0.0, 0.0] and np.isnan(nothing.mean_per_sentence).all()
    # One summary: one size, every draw identical.
    one = inventory_growth(REMERGE_PRESENCE[:2], [0, 0], draws=5)
    assert (one.sizes.tolist(), one.mean.tolist(), one.sd.tolist(), one.mean_per_sentence.tolist()) == (
        [1],
        [2.0],
        [0.0],
        [1.0],
    )
    # A summary without sentences (n_summaries given): drawn alone it has no marked sentence.
    padded = inventory_growth(REMERGE_PRESENCE[:2], [0, 0], n_summaries=2, draws=50)
    assert 0 < padded.mean[0] < 2 and padded.mean_per_sentence[0] == 1.0
    with pytest.raises(ValueError, match="at least one summary"):
        inventory_growth(np.zeros((0, 2), dtype=bool), [])
    with pytest.raises(ValueError, match="draws"):
        inventory_growth(REMERGE_PRESENCE, REMERGE_OWNER, draws=0)
    with pytest.raises(ValueError, match="booleans"):
        inventory_growth(REMERGE_PRESENCE * 2, REMERGE_OWNER)


# --------------------------------------------------------------------------
# Weighted factoid scores (section 5)
# --------------------------------------------------------------------------

# Model summaries m0..m2, machine summaries r0, r1; factoids F0..F3.
WFS_PRESENCE = np.array(
    [
        [1, 1, 0, 0],  # m0
        [1, 0, 1, 0],  # m1
        [1, 1, 0, 0],  # m2
        [0, 1, 1, 1],  # r0
        [1, 0, 0, 0],  # r1
    ],
    dtype=bool,
)
WFS_MODELS = np.array([True, True, True, False, False])


def test_wfs_hand_case():
    # weights (3, 2, 1, 0): m0 = 3+2, m1 = 3+1, m2 = 3+2, r0 = 2+1+0, r1 = 3
    assert weighted_factoid_scores(WFS_PRESENCE, WFS_MODELS).tolist() == [5.0, 4.0, 5.0, 3.0, 3.0]
    # sample m1 twice: weights (2, 0, 2, 0)
    assert weighted_factoid_scores(WFS_PRESENCE, WFS_MODELS, sample=[1, 1]).tolist() == [2.0, 4.0, 2.0, 2.0, 2.0]
    # sample m0, m0, m2: weights (3, 3, 0, 0)
    assert weighted_factoid_scores(WFS_PRESENCE, WFS_MODELS, sample=[0, 2, 0]).tolist() == [6.0, 3.0, 6.0, 3.0, 3.0]


def test_wfs_position_adjustment_hand_case():
    # First sentences: m0 has F0 at 2, F1 at 1; m1 F0 at 1, F2 at 3; m2 F0 at 1, F1 at 2.
    # Weights: F0 = 1/2 + 1 + 1 = 2.5, F1 = 1 + 1/2 = 1.5, F2 = 1/3, F3 = 0.
    position = np.zeros(WFS_PRESENCE.shape, dtype=int)
    position[WFS_PRESENCE] = [2, 1, 1, 3, 1, 2, 5, 5, 5, 1]
    scores = weighted_factoid_scores(WFS_PRESENCE, WFS_MODELS, first_position=position)
    assert scores == pytest.approx([4.0, 2.5 + 1 / 3, 4.0, 1.5 + 1 / 3, 2.5])
    bad = position.copy()
    bad[0, 0] = 0
    with pytest.raises(ValueError, match="first_position"):
        weighted_factoid_scores(WFS_PRESENCE, WFS_MODELS, first_position=bad)


def test_wfs_rejects_bad_input():
    with pytest.raises(ValueError, match="model summaries only"):
        weighted_factoid_scores(WFS_PRESENCE, WFS_MODELS, sample=[0, 3])
    with pytest.raises(ValueError, match="at least one model"):
        weighted_factoid_scores(WFS_PRESENCE, np.zeros(5, dtype=bool))
    with pytest.raises(ValueError, match="model_mask"):
        weighted_factoid_scores(WFS_PRESENCE, WFS_MODELS[:3])


# --------------------------------------------------------------------------
# Stability (section 5, Figures 5-7)
# --------------------------------------------------------------------------


def synthetic_summaries(rng: np.random.Generator, n_models: int = 20, n_machines: int = 16, n_factoids: int = 80):
    """Factoids with a popularity; summaries of different lengths pick them by it."""
    popularity = rng.beta(0.6, 3.0, n_factoids)
    length = rng.uniform(0.7, 1.3, n_models + n_machines)
    presence = rng.random((n_models + n_machines, n_factoids)) < np.clip(length[:, None] * popularity[None, :], 0, 1)
    models = np.arange(n_models + n_machines) < n_models
    return presence, models


@pytest.mark.parametrize("seed", SEEDS)
def test_row_spearman_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 6, (30, 12)).astype(float)  # many ties
    y = x + rng.integers(-2, 3, x.shape)
    ours = _row_spearman(x, y)
    reference = [scipy.stats.spearmanr(a, b).statistic for a, b in zip(x, y)]
    assert ours == pytest.approx(reference, abs=1e-12)


def test_row_spearman_undefined():
    assert np.isnan(_row_spearman(np.ones((2, 4)), np.arange(8.0).reshape(2, 4))).all()
    assert np.isnan(_row_spearman(np.ones((1, 1)), np.ones((1, 1)))).all()


def loop_stability(presence, models, sizes, pairs, seed):
    model_rows = np.flatnonzero(models)
    means = []
    for size in sizes:
        picks = np.random.default_rng([seed, size]).integers(0, len(model_rows), size=(pairs, 2, size))
        rhos = []
        for p in range(pairs):
            first = weighted_factoid_scores(presence, models, sample=model_rows[picks[p, 0]])
            second = weighted_factoid_scores(presence, models, sample=model_rows[picks[p, 1]])
            rhos.append(scipy.stats.spearmanr(first, second).statistic)
        means.append(np.mean(rhos))
    return np.array(means)


def test_wfs_stability_equals_loop():
    presence, models = synthetic_summaries(np.random.default_rng(5))
    sizes = [1, 3, 8, 30]
    result = wfs_stability(presence, models, sizes=sizes, pairs=25, seed=4)
    assert result.mean_rho == pytest.approx(loop_stability(presence, models, sizes, 25, 4), abs=1e-12)
    assert result.undefined.tolist() == [0, 0, 0, 0]
    # The first k pairs are the same whatever the number of pairs.
    fewer = wfs_stability(presence, models, sizes=[8], pairs=5, seed=4)
    assert fewer.mean_rho == pytest.approx(loop_stability(presence, models, [8], 5, 4), abs=1e-12)


def test_wfs_stability_rises_with_n():
    presence, models = synthetic_summaries(np.random.default_rng(2006))
    sizes = [1, 2, 5, 10, 20, 40]
    result = wfs_stability(presence, models, sizes=sizes, pairs=200, seed=0)
    by_size = dict(zip(sizes, result.mean_rho))
    assert by_size[40] > by_size[5] + 0.1
    assert by_size[40] > 0.9
    assert np.all(np.diff(result.mean_rho) > -0.01)  # monotone up to sampling noise
    assert np.all(result.sd_rho[1:] <= result.sd_rho[:-1] + 0.02)
    # first_above is the first size whose mean exceeds the threshold
    for threshold, size in result.first_above.items():
        above = [n for n, rho in by_size.items() if rho > threshold]
        assert size == (above[0] if above else None)
    assert result.first_above[0.8] is not None and result.first_above[0.8] <= result.first_above[0.9]


def test_wfs_stability_degenerate():
    no_factoids = wfs_stability(np.zeros((4, 0), dtype=bool), [True, True, False, False], sizes=[1, 2], pairs=3)
    assert no_factoids.undefined.tolist() == [3, 3] and np.isnan(no_factoids.mean_rho).all()
    assert no_factoids.first_above == {0.8: None, 0.9: None}
    single = wfs_stability([[1, 0]], [True], sizes=[1], pairs=2)
    assert np.isnan(single.mean_rho[0]) and single.undefined.tolist() == [2]
    with pytest.raises(ValueError, match="strictly increasing"):
        wfs_stability(WFS_PRESENCE, WFS_MODELS, sizes=[3, 2])
    with pytest.raises(ValueError, match="pairs"):
        wfs_stability(WFS_PRESENCE, WFS_MODELS, pairs=0)
    with pytest.raises(ValueError, match="seed"):
        wfs_stability(WFS_PRESENCE, WFS_MODELS, seed=-1)


def test_wfs_distribution_matches_scores_of_the_drawn_samples():
    presence, models = synthetic_summaries(np.random.default_rng(8))
    result = wfs_distribution(presence, models, n=10, draws=6, seed=3)
    picks = np.random.default_rng([3, 10]).integers(0, models.sum(), size=(6, 10))
    expected = [weighted_factoid_scores(presence, models, sample=np.flatnonzero(models)[p]) for p in picks]
    assert result.scores.tolist() == np.array(expected).tolist()
    assert result.five_numbers.shape == (5, len(models))
    assert np.array_equal(result.five_numbers[2], np.median(result.scores, axis=0))
    # Fewer models per sample, more spread (Figure 7 against Figure 6).
    narrow = wfs_distribution(presence, models, n=50, draws=200).scores
    wide = wfs_distribution(presence, models, n=5, draws=200).scores
    assert np.mean(wide.std(axis=0) / wide.mean(axis=0)) > np.mean(narrow.std(axis=0) / narrow.mean(axis=0))


# --------------------------------------------------------------------------
# Unigram comparison (end of section 5)
# --------------------------------------------------------------------------


def test_tokenize():
    assert tokenize("Kuwait's  only sizable town—Kuwait City, 1990!") == [
        "kuwait's",
        "only",
        "sizable",
        "town",
        "kuwait",
        "city",
        "1990",
    ]
    assert tokenize("snake_case") == ["snake", "case"]
    with pytest.raises(ValueError, match="string"):
        tokenize(None)  # type: ignore[arg-type]


def test_unigram_comparison_hand_case():
    texts = [
        "Iraq invaded Kuwait. Iraq!",  # {iraq, invaded, kuwait}
        "Iraq invaded Kuwait in August.",  # {iraq, invaded, kuwait, in, august}
        "Troops invaded in August.",  # {troops, invaded, in, august}
        "Nothing here.",  # {nothing, here}
    ]
    presence = [[1, 1, 0], [1, 0, 0], [0, 1, 1], [0, 0, 1]]
    result = unigram_comparison(texts, presence, min_summaries=2)
    # consensus unigrams (>= 2 summaries): august, in, invaded, iraq, kuwait (5)
    assert result.consensus_unigrams == ("august", "in", "invaded", "iraq", "kuwait")
    # F = 2|U & C| / (|U| + |C|): 6/8, 10/10, 6/9, 0/7
    assert result.unigram_f == pytest.approx([0.75, 1.0, 2 / 3, 0.0])
    # consensus factoids (>= 2 summaries): F0, F1, F2; F = 4/5, 2/4, 4/5, 2/4
    assert result.consensus_factoids.tolist() == [0, 1, 2]
    assert result.factoid_f == pytest.approx([0.8, 0.5, 0.8, 0.5])
    assert result.rho == pytest.approx(scipy.stats.spearmanr(result.unigram_f, result.factoid_f).statistic)
    separate = unigram_comparison(texts, presence, min_summaries=2, min_factoid_summaries=3)
    assert separate.consensus_factoids.size == 0 and separate.factoid_f.tolist() == [0.0, 0.0, 0.0, 0.0]
    assert np.isnan(separate.rho)  # a constant list has no rank correlation


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_unigram_comparison_random_against_sets(seed):
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(30)]
    texts = [" ".join(rng.choice(words, rng.integers(3, 15))) for _ in range(12)]
    presence = rng.random((12, 20)) < 0.3
    result = unigram_comparison(texts, presence, min_summaries=4)
    sets = [set(t.split()) for t in texts]
    consensus = {w for w in words if sum(w in s for s in sets) >= 4}
    assert set(result.consensus_unigrams) == consensus
    expected = [2 * len(s & consensus) / (len(s) + len(consensus)) for s in sets]
    assert result.unigram_f == pytest.approx(expected)
    assert result.rho == pytest.approx(scipy.stats.spearmanr(result.unigram_f, result.factoid_f).statistic)


def test_unigram_comparison_rejects_bad_input():
    with pytest.raises(ValueError, match="rows"):
        unigram_comparison(["a"], [[1], [0]], min_summaries=1)
    with pytest.raises(ValueError, match="min_summaries"):
        unigram_comparison(["a"], [[1]], min_summaries=0)
    with pytest.raises(ValueError, match="summary_texts\\[1\\]"):
        unigram_comparison(["a", 3], [[1], [0]], min_summaries=1)
