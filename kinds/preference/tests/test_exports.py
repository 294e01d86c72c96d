"""The preference downloads: the leaderboard a user downloads right after a submission, before
the rebuild it queued has run, is the one the rebuild then stores."""

from __future__ import annotations

import copy
import csv
import io
import json

import pytest

from annotate.imports.write import import_topics
from annotate.models import Topic
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.preference.examples import EXAMPLES
from scoring import jobs
from scoring.downloads import export_file
from scoring.models import Report

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(people):
    campaign = create_campaign(
        creator=people["organiser"], kind="preference", name="Arena", overlap=2, params=dict(EXAMPLES.params)
    )
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(campaign=campaign, topics=[{"external_id": "t1", "data": copy.deepcopy(EXAMPLES.topic)}])
    return campaign


def leaderboard(campaign) -> tuple[list[dict[str, str]], dict]:
    rows = list(csv.DictReader(io.StringIO(export_file(campaign, format="csv", truth="leaderboard").content.decode())))
    whole = json.loads(export_file(campaign, format="json", truth="leaderboard").content)
    return rows, whole


@pytest.mark.parametrize("submitted", [1, 2])
def test_the_leaderboard_downloads_before_the_first_rebuild_as_the_rebuild_then_stores_it(people, campaign, submitted):
    topic = Topic.objects.get(campaign=campaign)
    for name, payload in list(zip(("alice", "bob"), EXAMPLES.payloads, strict=True))[:submitted]:
        save_judgment(topic=topic, assessor=people[name], payload=copy.deepcopy(payload), status="submitted", version=0)
    assert not Report.objects.filter(campaign=campaign).exists()  # the rebuild is queued, not run
    rows, whole = leaderboard(campaign)
    assert sorted(row["system"] for row in rows) == ["gpt", "llama", "mistral"]
    assert sum(int(row["votes"]) for row in rows) == 2 * 3 * submitted  # each verdict: a vote for both its systems
    assert whole["votes"] == 3 * submitted and whole["topics"] == 1
    jobs.recompute_reports(campaign.pk, everything=True)
    assert Report.objects.filter(campaign=campaign, name="agreement").exists()
    assert leaderboard(campaign) == (rows, whole)


def test_a_campaign_without_a_judgment_downloads_an_empty_leaderboard(campaign):
    rows, whole = leaderboard(campaign)
    assert rows == [] and whole["votes"] == 0
