"""The preference campaign report as its page renders it, read without a browser."""

from __future__ import annotations

import copy

import pytest
from django.test import Client

from annotate.imports.write import import_topics
from annotate.models import Topic
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.preference.examples import EXAMPLES
from scoring import jobs

pytestmark = pytest.mark.django_db


def test_the_report_says_how_many_prompt_pairs_its_agreement_reads(people):
    campaign = create_campaign(
        creator=people["organiser"], kind="preference", name="Arena", overlap=2, params=dict(EXAMPLES.params)
    )
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(campaign=campaign, topics=[{"external_id": "t1", "data": copy.deepcopy(EXAMPLES.topic)}])
    topic = Topic.objects.get(campaign=campaign)
    for name, payload in zip(("alice", "bob"), EXAMPLES.payloads, strict=True):
        save_judgment(topic=topic, assessor=people[name], payload=copy.deepcopy(payload), status="submitted", version=0)
    jobs.recompute_reports(campaign.pk, everything=True)
    client = Client()
    client.force_login(people["organiser"])
    page = " ".join(client.get(f"/campaigns/{campaign.pk}/?section=report").content.decode().split())
    assert "3 prompt pairs judged by two assessors or more; an assessor's repeats of one pair count once here." in page
