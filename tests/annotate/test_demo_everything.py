"""The demo shows every part of every kind. Nugget matching has
demo data, and the people's (alice's and bob's) topics are judged by simulated
assessors too, so a person's submission moves the agreement figures."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotate.demo import SIMULATED
from annotate.models import Assignment, Campaign, Judgment
from annotate.services.judgments import save_judgment
from scoring import services as scoring_services
from scoring.selectors import campaign_report

pytestmark = pytest.mark.django_db


def test_demo_has_nugget_matching_and_company_on_the_peoples_topics():
    call_command("seed_demo")

    # Nugget matching: two systems' answers on every question, matched by the simulated assessors.
    nuggets = Campaign.objects.get(kind="nuggets", params__demo=True)
    assert nuggets.params["tasks"] == ["labels", "matches"]
    for topic in nuggets.topics.all():
        assert [(r["id"], r["run"]) for r in topic.data["responses"]] == [("r1", "reader-a"), ("r2", "reader-b")]
    payloads = Judgment.objects.filter(topic__campaign=nuggets, status="submitted").values_list("payload", flat=True)
    assert payloads and all(set(p["matches"]) == {"r1", "r2"} for p in payloads)
    scores = {row.run: row.scores["pyramid"] for row in campaign_report(nuggets).data.runs}
    assert {"reader-a", "reader-b"} <= set(scores) and len(scores) == 10
    assert scores["reader-a"] > scores["reader-b"]  # the careful reader finds more nuggets

    # Every topic waiting for alice or bob, in every demo campaign, has a simulated judgment already.
    for campaign in Campaign.objects.filter(params__demo=True):
        theirs = Assignment.objects.filter(topic__campaign=campaign, assessor__username__in=["alice", "bob"])
        for topic_id in set(theirs.values_list("topic_id", flat=True)):
            simulated = Judgment.objects.filter(
                topic_id=topic_id, assessor__username__in=SIMULATED, status="submitted"
            ).count()
            assert simulated >= 1, (campaign.name, topic_id)
    assert not Judgment.objects.filter(assessor__username__in=["alice", "bob"]).exists()


def test_alices_submission_moves_the_pairs_agreement():
    call_command("seed_demo")
    campaign = Campaign.objects.get(kind="pairs", params__demo=True, name__startswith="Person-name")
    before = campaign_report(campaign).data
    assert "alice" not in before.names
    alice = get_user_model().objects.get(username="alice")
    topic = Assignment.objects.filter(topic__campaign=campaign, assessor=alice).first().topic
    payload = {"matches": {c["id"]: True for c in topic.data["candidates"]}}
    save_judgment(topic=topic, assessor=alice, payload=payload, status="submitted", version=0)
    scoring_services.recompute_reports(campaign.pk)
    after = campaign_report(campaign).data
    assert "alice" in after.names
    assert [p for p in after.pairs if "alice" in p.assessors and p.n > 0]
    assert after.items_judged == before.items_judged
