"""Model truth sets (Dawid-Skene, MACE, Wawa), the adjudicated gold with its
provenance, per-assessor reliability and accuracy against a reference
 for the label kinds: pairs, graded relevance,
nugget labels."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC
from pathlib import Path

import numpy as np
import pytest
from django.core.management import call_command

from annotate.imports.write import import_runs, import_topics
from annotate.services.campaigns import create_campaign
from annotate.services.curations import save_curation
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from concord import typed
from kinds.nuggets import partials as nuggets_partials
from kinds.pairs import partials as pairs_partials
from kinds.pairs import report as pairs_report
from kinds.registry import KINDS
from kinds.relevance import partials as relevance_partials
from kinds.relevance import report as relevance_report
from scoring.selectors import report_input
from stats import labelmodels as lm

pytestmark = pytest.mark.django_db

RTE = Path(__file__).resolve().parents[2] / "data" / "snow2008" / "rte.csv"
TEMP = RTE.with_name("temp.csv")
PROVENANCE = ["source", "posterior", "adjudicated_by", "adjudicated_at"]


# -- the shared pieces, on hand-computed examples ---------------------------------------------


def test_accuracy_and_kappa_against_a_reference():
    # 3 items both label: 2 agree; p(yes) 2/3 vs 1/3 -> pe = 2/9 + 2/9 = 4/9; kappa (2/3 - 4/9)/(5/9) = 0.4.
    assert lm.accuracy_kappa(np.array([1, 0, 1, np.nan]), np.array([1, 0, 0, 1])) == (3, 2 / 3, pytest.approx(0.4))
    # Draws x items: the mean of the draws' figures.
    n, accuracy, kappa = lm.accuracy_kappa(np.array([[1, 0], [0, 0]]), np.array([1, 0]))
    assert (n, accuracy) == (2, 0.75) and kappa == pytest.approx(0.5)  # kappa 1 and 0


def test_majority_three_ways():
    votes = np.array([[1, 1, 0, 0], [1, 1, 1, 0], [0, np.nan, np.nan, np.nan], [np.nan] * 4])
    v = lm.majority_variants(votes, draws=50)
    assert v["ties as match"].tolist()[:3] == [1.0, 1.0, 0.0] and np.isnan(v["ties as match"][3])
    assert np.isnan(v["ties left out"][0]) and v["ties left out"][1:3].tolist() == [1.0, 0.0]
    assert v["ties broken at random"].shape == (50, 4)
    # Only the tie varies between draws, and both ways occur.
    assert set(v["ties broken at random"][:, 0]) == {0.0, 1.0}
    assert (v["ties broken at random"][:, 1:3] == [1.0, 0.0]).all()


def test_provenance_overrides_items_with_an_adjudicated_label():
    from datetime import datetime

    when = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    gold = lm.with_provenance(
        np.array([1.0, 0.0, np.nan]),
        model=True,
        posterior=np.array([0.9, 0.8, np.nan]),
        adjudicated=[None, lm.Adjudicated(1.0, "olga", when), None],
    )
    assert gold.labels[:2].tolist() == [1.0, 1.0] and np.isnan(gold.labels[2])
    assert gold.source == ["model", "adjudicated", ""]
    assert gold.posterior[0] == 0.9 and np.isnan(gold.posterior[1])
    assert gold.by == ["", "olga", ""] and gold.at == ["", "2025-01-02T03:04:05+00:00", ""]


# -- pairs -------------------------------------------------------------------------------------


@pytest.fixture
def pairs(people):
    """One query, four candidates; alice, bob and carol vote (c3 is 2 to 1, c4 a 1-2 split)."""
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="M", overlap=3)
    for name in ("alice", "bob", "carol"):
        add_member(campaign=campaign, username=name, role="assessor")
    (topic,) = import_topics(
        campaign=campaign,
        topics=[
            {
                "external_id": "q1",
                "data": {"query": "Q", "candidates": [{"id": f"c{i}", "text": f"C{i}"} for i in range(1, 5)]},
            }
        ],
    )
    votes = {
        "alice": {"c1": True, "c2": False, "c3": True, "c4": True},
        "bob": {"c1": True, "c2": False, "c3": True, "c4": False},
        "carol": {"c1": True, "c2": False, "c3": False, "c4": False},
    }
    for name, matches in votes.items():
        save_judgment(topic=topic, assessor=people[name], payload={"matches": matches}, status="submitted", version=0)
    return campaign


def export(api, people, campaign, truth, fmt="csv"):
    return api(people["admin"]).get(f"/api/campaigns/{campaign.pk}/export/", {"format": fmt, "truth": truth})


def table(response):
    assert response.status_code == 200, response.content
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_pairs_offer_the_model_and_adjudicated_truth_sets(pairs):
    truths = KINDS["pairs"].exports.truths(["alice", "bob"])
    assert truths[-4:] == ["dawid-skene", "mace", "wawa", "adjudicated"]
    assert truths[:3] == ["consensus", "union", "intersection"]


@pytest.mark.parametrize("truth", ["dawid-skene", "mace", "wawa"])
def test_pairs_model_truth_sets_export_labels_and_posteriors(api, people, pairs, truth):
    rows = table(export(api, people, pairs, truth))
    assert list(rows[0]) == ["topic", "candidate", "truth", "label", "matches", "judged", *PROVENANCE]
    # Unanimous items take the unanimous label under every model.
    labels = {r["candidate"]: r["label"] for r in rows}
    assert (labels["c1"], labels["c2"]) == ("1", "0")
    assert {r["source"] for r in rows} == {"model"}
    assert all(0.5 <= float(r["posterior"]) <= 1.0 for r in rows)
    assert {(r["matches"], r["judged"]) for r in rows} == {("3", "3"), ("0", "3"), ("2", "3"), ("1", "3")}
    assert all(r["adjudicated_by"] == r["adjudicated_at"] == "" for r in rows)


def test_pairs_adjudicated_uses_the_curation_per_item_and_falls_back(api, people, pairs):
    topic = pairs.topics.get()
    curation = save_curation(
        topic=topic, name="consensus", data={"matches": {"c4": True, "c2": True}}, version=0, user=people["organiser"]
    )
    rows = {r["candidate"]: r for r in table(export(api, people, pairs, "adjudicated"))}
    # c2 and c4 adjudicated (c2 against the unanimous vote); c1 and c3 from the consensus (2 of 3 say match).
    assert {c: (r["label"], r["source"]) for c, r in rows.items()} == {
        "c1": ("1", "vote"),
        "c2": ("1", "adjudicated"),
        "c3": ("1", "vote"),
        "c4": ("1", "adjudicated"),
    }
    assert rows["c4"]["adjudicated_by"] == "organiser"
    assert rows["c4"]["adjudicated_at"] == curation.updated_at.isoformat()
    assert rows["c1"]["adjudicated_by"] == rows["c1"]["adjudicated_at"] == rows["c1"]["posterior"] == ""
    assert rows["c2"]["truth"] == "adjudicated" and rows["c2"]["matches"] == "0"
    # Another fallback: intersection says no match on c3; a model fallback marks its items "model".
    rows = {r["candidate"]: r for r in table(export(api, people, pairs, "adjudicated:intersection"))}
    assert (rows["c3"]["label"], rows["c3"]["source"]) == ("0", "vote")
    rows = {r["candidate"]: r for r in table(export(api, people, pairs, "adjudicated:dawid-skene"))}
    assert [rows[c]["source"] for c in ("c1", "c2", "c3", "c4")] == ["model", "adjudicated", "model", "adjudicated"]
    assert rows["c1"]["posterior"] != "" and rows["c2"]["posterior"] == ""
    # qrels stay four columns, with the adjudicated labels.
    qrels = export(api, people, pairs, "adjudicated", "qrels").content.decode().splitlines()
    assert qrels == ["q1 0 c1 1", "q1 0 c2 1", "q1 0 c3 1", "q1 0 c4 1"]


def test_pairs_vote_truth_sets_say_vote_and_keep_their_columns(api, people, pairs):
    rows = table(export(api, people, pairs, "consensus"))
    assert [(r["candidate"], r["label"], r["matches"], r["judged"], r["source"]) for r in rows] == [
        ("c1", "1", "3", "3", "vote"),
        ("c2", "0", "0", "3", "vote"),
        ("c3", "1", "2", "3", "vote"),
        ("c4", "0", "1", "3", "vote"),
    ]
    assert {r["posterior"] for r in rows} == {""}


@pytest.mark.parametrize("truth", ["nope", "adjudicated:nope", "adjudicated:adjudicated", "adjudicated:", "mace:1"])
def test_pairs_unknown_truth_is_a_400_naming_truth(api, people, pairs, truth):
    response = export(api, people, pairs, truth)
    assert response.status_code == 400 and response.json()["field"] == "truth", response.content


def test_pairs_report_has_typed_reliability(pairs):
    report = pairs_partials.campaign_report(report_input(pairs))
    assert [(r.assessor, r.n_labels) for r in report.reliability] == [("alice", 4), ("bob", 4), ("carol", 4)]
    assert all(isinstance(r, lm.BinaryReliability) for r in report.reliability)
    for r in report.reliability:
        assert 0 <= r.sensitivity <= 1 and 0 <= r.specificity <= 1
    assert report.references == []
    stored = typed.load(pairs_report.PairsCampaignReport, typed.dump(report))
    assert stored.reliability[0].n_labels == 4


def test_pairs_reference_run_gives_the_accuracy_table(pairs):
    import_runs(
        campaign=pairs,
        runs=[{"name": "gold", "data": {"reference": True, "labels": {"q1": {"c1": True, "c3": False}}}}],
    )
    report = pairs_partials.campaign_report(report_input(pairs))
    (ref,) = report.references
    assert (ref.reference, ref.items, ref.ties, ref.draws) == ("gold", 2, 0, 100)
    rows = {row.name: (row.n, row.accuracy) for row in ref.truth_sets}
    # c1 3/3 match (gold match), c3 2/3 match (gold no match): majority right on 1 of 2.
    assert rows["majority vote, ties as match"] == (2, 0.5)
    assert rows["majority vote, ties left out"] == (2, 0.5)
    assert set(rows) == {
        "majority vote, ties as match",
        "majority vote, ties broken at random",
        "majority vote, ties left out",
        "dawid-skene",
        "mace",
        "wawa",
    }
    # carol said no match on c3: right on both.
    assert {row.name: (row.n, row.accuracy) for row in ref.assessors}["carol"] == (2, 1.0)


# -- the real files: Snow et al. (2008) RTE and temporal ordering -----------------------------


def accuracy_table(people, path, *extra):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name=path.stem, overlap=10)
    call_command("import_judgments", campaign.pk, str(path), *extra, stdout=io.StringIO())
    report = pairs_partials.campaign_report(report_input(campaign))
    (ref,) = report.references
    return ref, {row.name: (row.n, round(row.accuracy, 4), round(row.kappa, 4)) for row in ref.truth_sets}


def test_rte_accuracy_against_the_gold_column(people):
    ref, rows = accuracy_table(people, RTE)
    assert (ref.items, ref.ties) == (800, 65)
    assert rows["majority vote, ties as match"][:2] == (800, 0.875)
    assert rows["majority vote, ties left out"][:2] == (735, 0.9320)
    # Snow et al.'s 0.897 is the expectation of random tie-breaking: (685 + 65 / 2) / 800 = 0.896875.
    assert rows["majority vote, ties broken at random"][0] == 800
    assert abs(rows["majority vote, ties broken at random"][1] - 0.896875) < 0.005
    assert rows == RTE_TABLE


def test_temp_accuracy_against_the_gold_column(people):
    ref, rows = accuracy_table(people, TEMP, "--positive", "before")
    assert ref.items == 462
    assert rows == TEMP_TABLE


# Measured (n, accuracy, Cohen's kappa) against the gold column; docs/formats.md quotes them (Model truth sets).
# Dawid-Skene is at or above majority vote on both files (ties left out scores higher on fewer items).
RTE_TABLE = {
    "majority vote, ties as match": (800, 0.875, 0.75),
    "majority vote, ties broken at random": (800, 0.8967, 0.7933),
    "majority vote, ties left out": (735, 0.932, 0.8632),
    "dawid-skene": (800, 0.9275, 0.855),
    "mace": (800, 0.9263, 0.8525),
    "wawa": (800, 0.9213, 0.8425),
}
TEMP_TABLE = {
    "majority vote, ties as match": (462, 0.9394, 0.8772),
    "majority vote, ties broken at random": (462, 0.9364, 0.8718),
    "majority vote, ties left out": (445, 0.9528, 0.9048),
    "dawid-skene": (462, 0.9416, 0.8818),
    "mace": (462, 0.9416, 0.8816),
    "wawa": (462, 0.9459, 0.8907),
}


# -- relevance --------------------------------------------------------------------------------


@pytest.fixture
def graded(people):
    example = KINDS["relevance"].examples
    campaign = create_campaign(
        creator=people["organiser"], kind="relevance", name="G", overlap=3, params=dict(example.params)
    )
    for name in ("alice", "bob", "carol"):
        add_member(campaign=campaign, username=name, role="assessor")
    (topic,) = import_topics(campaign=campaign, topics=[{"external_id": "t1", "data": dict(example.topic)}])
    payloads = [*example.payloads, {"grades": {"d1": 3, "d2": 1, "d3": 0, "d4": 1}}]
    for name, payload in zip(("alice", "bob", "carol"), payloads):
        save_judgment(topic=topic, assessor=people[name], payload=payload, status="submitted", version=0)
    return campaign


def test_relevance_labels_export_with_provenance(api, people, graded):
    assert KINDS["relevance"].exports.truths(["alice"])[-4:] == ["dawid-skene", "mace", "wawa", "adjudicated"]
    rows = table(export(api, people, graded, "consensus", "labels"))
    assert list(rows[0]) == ["topic", "document", "truth", "grade", "judged", "grades", *PROVENANCE]
    # Lower median of d1: 3 2 3 -> 3; d2: 1 0 1 -> 1; d3: 0; d4: 2 2 1 -> 2.
    assert [(r["document"], r["grade"], r["grades"], r["source"]) for r in rows] == [
        ("d1", "3", "3 2 3", "vote"),
        ("d2", "1", "1 0 1", "vote"),
        ("d3", "0", "0 0 0", "vote"),
        ("d4", "2", "2 2 1", "vote"),
    ]
    topic = graded.topics.get()
    save_curation(topic=topic, name="consensus", data={"grades": {"d2": 2}}, version=0, user=people["organiser"])
    rows = {r["document"]: r for r in table(export(api, people, graded, "adjudicated", "labels"))}
    assert (rows["d2"]["grade"], rows["d2"]["source"], rows["d2"]["adjudicated_by"]) == (
        "2",
        "adjudicated",
        "organiser",
    )
    assert (rows["d1"]["grade"], rows["d1"]["source"]) == ("3", "vote")
    qrels = export(api, people, graded, "adjudicated", "qrels").content.decode().splitlines()
    assert qrels == ["t1 0 d1 3", "t1 0 d2 2", "t1 0 d3 0", "t1 0 d4 2"]
    rows = table(export(api, people, graded, "dawid-skene", "labels"))
    assert {r["source"] for r in rows} == {"model"} and all(r["posterior"] for r in rows)
    assert rows[2]["grade"] == "0"  # d3: everyone said 0
    response = export(api, people, graded, "adjudicated:nope", "labels")
    assert response.status_code == 400 and response.json()["field"] == "truth"


def test_relevance_report_has_typed_reliability(graded):
    report = relevance_partials.campaign_report(report_input(graded))
    assert [(r.assessor, r.n_labels, len(r.per_grade)) for r in report.reliability] == [
        ("alice", 4, 4),
        ("bob", 4, 4),
        ("carol", 4, 4),
    ]
    assert all(0 <= r.accuracy <= 1 for r in report.reliability)
    stored = typed.load(relevance_report.RelevanceCampaignReport, typed.dump(report))
    assert isinstance(stored.reliability[0], lm.GradedReliability)


# -- nugget labels ----------------------------------------------------------------------------


@pytest.fixture
def nuggets(people):
    example = KINDS["nuggets"].examples
    campaign = create_campaign(
        creator=people["organiser"], kind="nuggets", name="N", overlap=2, params=dict(example.params)
    )
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    (topic,) = import_topics(campaign=campaign, topics=[{"external_id": "t1", "data": dict(example.topic)}])
    for name, payload in zip(("alice", "bob"), example.payloads):
        save_judgment(topic=topic, assessor=people[name], payload=payload, status="submitted", version=0)
    return campaign


def test_nugget_label_truth_sets_with_provenance(api, people, nuggets):
    # Labellings: original (n1 vital, n2 okay), alice (vital, vital), bob (vital, okay).
    rows = table(export(api, people, nuggets, "consensus"))
    assert list(rows[0]) == ["topic", "nugget", "truth", "label", "vital", "labelled", *PROVENANCE]
    assert [(r["nugget"], r["label"], r["vital"], r["labelled"], r["source"]) for r in rows] == [
        ("n1", "vital", "3", "3", "vote"),
        ("n2", "okay", "1", "3", "vote"),
    ]
    save_curation(
        topic=nuggets.topics.get(),
        name="consensus",
        data={"labels": {"n2": "vital"}},
        version=0,
        user=people["organiser"],
    )
    rows = json.loads(export(api, people, nuggets, "adjudicated", "json").content)
    assert [(r["nugget"], r["label"], r["source"], r["adjudicated_by"]) for r in rows] == [
        ("n1", "vital", "vote", ""),
        ("n2", "vital", "adjudicated", "organiser"),
    ]
    rows = table(export(api, people, nuggets, "mace"))
    assert rows[0]["label"] == "vital" and rows[0]["source"] == "model"
    assert export(api, people, nuggets, "adjudicated", "tsv").json()["field"] == "format"
    assert export(api, people, nuggets, "adjudicated:scores").json()["field"] == "truth"
    report = nuggets_partials.campaign_report(report_input(nuggets))
    assert [(r.assessor, r.n_labels) for r in report.reliability] == [("original", 2), ("alice", 2), ("bob", 2)]
