"""The adjudicated gold as a reference: once a topic of a pairs
campaign has a gold, the campaign report's accuracy table measures every assessor
and truth set against it, over the adjudicated items only."""

from __future__ import annotations

import pytest

from annotate.imports.write import import_runs, import_topics
from annotate.services.campaigns import create_campaign
from annotate.services.curations import save_curation
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.pairs import partials as pairs_partials
from scoring.selectors import report_input

pytestmark = pytest.mark.django_db


@pytest.fixture
def pairs(people):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="M", overlap=3)
    for name in ("alice", "bob", "carol"):
        add_member(campaign=campaign, username=name, role="assessor")
    topics = import_topics(
        campaign=campaign,
        topics=[
            {"external_id": q, "data": {"query": q, "candidates": [{"id": f"c{i}", "text": f"C{i}"} for i in (1, 2)]}}
            for q in ("q1", "q2")
        ],
    )
    votes = {
        "alice": {"c1": True, "c2": True},
        "bob": {"c1": True, "c2": False},
        "carol": {"c1": False, "c2": False},
    }
    for topic in topics:
        for name, matches in votes.items():
            save_judgment(
                topic=topic, assessor=people[name], payload={"matches": matches}, status="submitted", version=0
            )
    return campaign, topics


def test_no_gold_no_adjudicated_reference(pairs):
    campaign, _ = pairs
    assert pairs_partials.campaign_report(report_input(campaign)).references == []


def test_the_adjudicated_gold_is_a_reference_over_its_items(pairs, people):
    campaign, (q1, _) = pairs
    # The adjudicator overrules the majority on c2 of q1 only (alice was right) and leaves c1 out.
    save_curation(topic=q1, name="consensus", data={"matches": {"c2": True}}, version=0, user=people["organiser"])
    (ref,) = pairs_partials.campaign_report(report_input(campaign)).references
    assert (ref.reference, ref.items, ref.ties) == ("adjudicated gold", 1, 0)
    truth_sets = {row.name: (row.n, row.accuracy) for row in ref.truth_sets}
    assert truth_sets["majority vote, ties as match"] == (1, 0.0)  # 1 of 3 said match on q1/c2
    assessors = {row.name: (row.n, row.accuracy) for row in ref.assessors}
    assert assessors == {"alice": (1, 1.0), "bob": (1, 0.0), "carol": (1, 0.0)}


def test_a_reference_run_comes_first_then_the_gold(pairs, people):
    campaign, (q1, q2) = pairs
    import_runs(
        campaign=campaign,
        runs=[{"name": "gold", "data": {"reference": True, "labels": {"q2": {"c1": True, "c2": False}}}}],
    )
    save_curation(
        topic=q2, name="consensus", data={"matches": {"c1": False, "c2": False}}, version=0, user=people["organiser"]
    )
    refs = pairs_partials.campaign_report(report_input(campaign)).references
    assert [(r.reference, r.items) for r in refs] == [("gold", 2), ("adjudicated gold", 2)]
    carol = {r.reference: {row.name: row.accuracy for row in r.assessors}["carol"] for r in refs}
    assert carol == {"gold": 0.5, "adjudicated gold": 1.0}
