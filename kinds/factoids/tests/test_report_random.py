"""Factoid reports build on whatever assessors submit: random inventories and marks
(as the load test's assessors send them), including two annotators who share no
factoid-pair-summary item, which once made the definition kappa's interval fail
(an empty item array reshaped) and every recompute of the campaign with it."""

from __future__ import annotations

import random

import pytest

from annotate.imports.write import import_topics
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.registry import get_kind
from scoring.selectors import report_input

pytestmark = pytest.mark.django_db


def topic_data(index: int) -> dict:
    return {
        "text": f"Story {index}.",
        "summaries": [
            {
                "id": f"m{m}",
                "author": f"person-{m}",
                "sentences": [{"id": f"m{m}.{s}", "text": f"Sentence {s} of summary {m}."} for s in range(1, 4)],
            }
            for m in range(1, 4)
        ],
    }


def random_payload(data: dict, rng: random.Random) -> dict:
    sentences = [s["id"] for summary in data["summaries"] for s in summary["sentences"]]
    ids = [f"f{i}" for i in range(1, rng.randint(1, 6) + 1)]
    marks = {}
    for sentence in sentences:
        found = [f for f in ids if rng.random() < 0.4]
        if found:
            marks[sentence] = found
    return {"factoids": [{"id": f, "text": f"factoid {f}"} for f in ids], "marks": marks}


@pytest.mark.parametrize("seed", range(12))
def test_reports_build_on_random_submissions(people, seed):
    rng = random.Random(seed)
    campaign = create_campaign(creator=people["organiser"], kind="factoids", name="F", overlap=2)
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    topics = import_topics(
        campaign=campaign, topics=[{"external_id": f"t{i}", "data": topic_data(i)} for i in range(3)]
    )
    for topic in topics:
        for name in ("alice", "bob"):
            save_judgment(
                topic=topic,
                assessor=people[name],
                payload=random_payload(topic.data, rng),
                status="submitted",
                version=0,
            )
    spec = get_kind("factoids")
    data = report_input(campaign)
    reports = [spec.reports.topic(data, topic) for topic in topics]
    assert len(reports) == 3
    campaign_report = spec.reports.campaign(data)
    assert isinstance(campaign_report, spec.reports.campaign_type)


def test_no_shared_item_gives_no_interval(people):
    # Seed 1 of the load test's generator: a pair of inventories with no definition item.
    from kinds.factoids.report import kappa_ci
    from stats.intervals import IntervalSettings

    ci = kappa_ci([], "factoid-pair-summary items", IntervalSettings())
    assert ci.units == 0
