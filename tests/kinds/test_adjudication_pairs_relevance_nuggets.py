"""The pairs, relevance and nuggets kinds' adjudication (kinds/<kind>/adjudication.py):
the comparison and the consensus, with concrete values."""

from __future__ import annotations

from kinds.nuggets import adjudication as nuggets
from kinds.pairs import adjudication as pairs
from kinds.relevance import adjudication as relevance

PAIRS_VIEW = {"query": "Ann Lee", "candidates": [{"id": f"c{i}", "text": f"Cand {i}"} for i in range(1, 6)]}


def test_pairs_votes_per_candidate_with_names_and_splits():
    judgments = [
        ("alice", {"matches": {"c1": True, "c2": True, "c3": False, "c4": True}}),
        ("bob", {"matches": {"c1": True, "c2": False, "c3": False, "c4": False}}),
        # carol judged only c1-c3 (one adjudicator per pair shares), never c5.
        ("carol", {"matches": {"c1": False, "c2": False, "c3": False}}),
    ]
    c = pairs.compare(PAIRS_VIEW, judgments)
    assert c.query == "Ann Lee" and c.assessors == ("alice", "bob", "carol")
    assert [(r.id, r.matches, r.judged, r.split, r.consensus) for r in c.rows] == [
        ("c1", 2, 3, True, True),
        ("c2", 1, 3, True, False),
        ("c3", 0, 3, False, False),
        ("c4", 1, 2, True, True),  # a 1-1 tie is a match (AWM Table 1, type 1)
        ("c5", 0, 0, False, None),
    ]
    assert c.rows[0].voted_match == ["alice", "bob"] and c.rows[0].voted_no_match == ["carol"]
    assert [v.match for v in c.rows[3].votes] == [True, False, None]
    assert c.splits == 3


def test_pairs_consensus_is_the_majority_with_ties_a_match_and_leaves_unjudged_out():
    payloads = [
        {"matches": {"c1": True, "c2": True, "c3": False, "c4": True}},
        {"matches": {"c1": True, "c2": False, "c3": False, "c4": False}},
        {"matches": {"c1": False, "c2": False, "c3": False}},
    ]
    assert pairs.consensus(PAIRS_VIEW, payloads) == {"matches": {"c1": True, "c2": False, "c3": False, "c4": True}}


RELEVANCE_VIEW = {
    "title": "coral bleaching",
    "description": "Causes?",
    "documents": [{"id": f"d{i}", "text": f"Doc {i}"} for i in range(1, 6)],
}


def test_relevance_grades_per_document_with_range_and_lower_median():
    judgments = [
        ("alice", {"grades": {"d1": 3, "d2": 1, "d3": 0, "d4": 2}}),
        ("bob", {"grades": {"d1": 2, "d2": 2, "d3": 0, "d4": 0}}),
        ("carol", {"grades": {"d1": 0, "d2": 2, "d3": 0}}),
    ]
    c = relevance.compare(RELEVANCE_VIEW, judgments)
    assert (c.title, c.description, c.narrative) == ("coral bleaching", "Causes?", "")
    assert [(r.id, [g.grade for g in r.grades], r.low, r.high, r.split, r.spread, r.consensus) for r in c.rows] == [
        ("d1", [3, 2, 0], 0, 3, True, 3, 2),
        ("d2", [1, 2, 2], 1, 2, True, 1, 2),
        ("d3", [0, 0, 0], 0, 0, False, 0, 0),
        ("d4", [2, 0, None], 0, 2, True, 2, 0),  # two grades, 0 and 2: the lower median is 0
        ("d5", [None, None, None], None, None, False, 0, None),
    ]
    assert c.splits == 3


def test_relevance_consensus_is_the_lower_median_grade():
    payloads = [{"grades": {"d1": 1, "d2": 3, "d3": 2}}, {"grades": {"d1": 2, "d2": 3}}]
    # d1: 1-2 tie gives 1; d2: 3; d3: one grade, 2; d4 and d5: nobody graded them.
    assert relevance.consensus(RELEVANCE_VIEW, payloads) == {"grades": {"d1": 1, "d2": 3, "d3": 2}}


NUGGETS_VIEW = {
    "target": "Aspirin",
    "nuggets": [
        {"id": "n1", "text": "a painkiller"},
        {"id": "n2", "text": "made by Bayer"},
        {"id": "n3", "text": "1897"},
    ],
    "responses": [{"id": "r1", "text": "A painkiller by Bayer."}, {"id": "r2", "text": "Since 1897."}],
}


def test_nuggets_labels_and_response_marks_per_assessor():
    judgments = [
        ("alice", {"labels": {"n1": "vital", "n2": "vital", "n3": "okay"}, "matches": {"r1": ["n1", "n2"]}}),
        ("bob", {"labels": {"n1": "vital", "n2": "okay", "n3": "okay"}, "matches": {"r1": ["n1"]}}),
    ]
    c = nuggets.compare(NUGGETS_VIEW, judgments)
    assert [(r.id, [x.label for x in r.labels], r.vital, r.split, r.consensus) for r in c.nuggets] == [
        ("n1", ["vital", "vital"], 2, False, "vital"),
        ("n2", ["vital", "okay"], 1, True, "vital"),  # a 1-1 tie is vital
        ("n3", ["okay", "okay"], 0, False, "okay"),
    ]
    assert [r.id for r in c.responses] == ["r1"]  # nobody judged r2
    assert [(r.nugget, [m.found for m in r.marks], r.split, r.consensus) for r in c.responses[0].rows] == [
        ("n1", [True, True], False, True),
        ("n2", [True, False], True, True),
        ("n3", [False, False], False, False),
    ]
    assert (c.label_splits, c.match_splits) == (1, 1)


def test_nuggets_consensus_is_the_majority_of_labels_and_marks():
    payloads = [
        {"labels": {"n1": "okay", "n2": "vital"}, "matches": {"r1": ["n1"], "r2": ["n3"]}},
        {"labels": {"n1": "okay", "n2": "okay", "n3": "okay"}, "matches": {"r1": ["n1", "n2"]}},
        {"labels": {"n1": "vital", "n2": "okay"}, "matches": {"r1": ["n2"]}},
    ]
    assert nuggets.consensus(NUGGETS_VIEW, payloads) == {
        "labels": {"n1": "okay", "n2": "okay", "n3": "okay"},
        # r1: n1 and n2 found by 2 of 3; r2: judged by one assessor, who found n3.
        "matches": {"r1": ["n1", "n2"], "r2": ["n3"]},
    }
