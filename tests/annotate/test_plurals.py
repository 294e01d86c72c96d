"""Counts of one read as one ("1 assessor per topic", not "1 assessors")."""

from __future__ import annotations

import pytest

from annotate.imports.write import import_topics
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from tests.campaigns import pairs_topics

pytestmark = pytest.mark.django_db


def test_the_organisers_page_says_one_assessor_and_one_topic(client, people, django_capture_on_commit_callbacks):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="Single", overlap=1)
    add_member(campaign=campaign, username="alice", role="assessor")
    import_topics(campaign=campaign, topics=pairs_topics(1))
    topic = campaign.topics.get()
    with django_capture_on_commit_callbacks(execute=True):
        save_judgment(
            topic=topic,
            assessor=people["alice"],
            payload={"matches": {f"c{c}": c % 2 == 0 for c in range(1, 5)}},
            status="submitted",
            version=0,
        )
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/?section=progress").content.decode()
    assert "1 assessor per topic" in page
    assert "<summary>1 topic</summary>" in page
    report = client.get(f"/campaigns/{campaign.pk}/?section=report").content.decode()
    assert '<span id="judgments-seen">1</span> submitted judgment (one per assessor and topic) ·' in report


def test_and_more_than_one_is_plural(client, people, campaign):
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/?section=progress").content.decode()
    assert "2 assessors per topic" in page
    assert "<summary>3 topics</summary>" in page
