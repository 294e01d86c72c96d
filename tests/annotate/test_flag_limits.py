"""One assessor cannot flood the organisers with flags
(annotate/services/flags.py, annotate/flags.py): open flags per topic are capped, creation is rate-limited,
and every list of flags is read a page at a time (pages and API)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotate import flags
from annotate.models import Flag, Topic
from annotate.services.flags import resolve_flag

pytestmark = pytest.mark.django_db


def flag_url(campaign, topic: str) -> str:
    return reverse("api-topic-flags", args=[campaign.pk, topic])


def test_open_flags_per_topic_are_capped_until_one_is_resolved(api, campaign, people, settings):
    settings.CONCORD_FLAGS_OPEN_PER_TOPIC = 2
    alice = api(people["alice"])
    made = [alice.post(flag_url(campaign, "q1"), {"comment": f"typo {i}"}, format="json") for i in range(3)]
    assert [r.status_code for r in made] == [201, 201, 429]
    assert made[2].json()["field"] == "topic" and "2 open flags on this topic" in made[2].json()["detail"]
    assert Flag.objects.filter(author=people["alice"]).count() == 2
    assert alice.post(flag_url(campaign, "q2"), {"comment": "another topic"}, format="json").status_code == 201
    resolve_flag(flag=Flag.objects.filter(topic__external_id="q1").first(), organiser=people["organiser"])
    assert alice.post(flag_url(campaign, "q1"), {"comment": "typo 3"}, format="json").status_code == 201


def test_flags_per_hour_are_limited_with_retry_after(api, campaign, people, settings):
    settings.CONCORD_FLAGS_PER_HOUR = 3
    alice = api(people["alice"])
    made = [alice.post(flag_url(campaign, f"q{1 + i % 3}"), {"comment": f"c{i}"}, format="json") for i in range(4)]
    assert [r.status_code for r in made] == [201, 201, 201, 429]
    assert made[3].json()["field"] == "comment"
    assert 3590 <= int(made[3]["Retry-After"]) <= 3600
    # bob has his own allowance.
    assert api(people["bob"]).post(flag_url(campaign, "q1"), {"comment": "mine"}, format="json").status_code == 201
    # An hour later the oldest no longer counts.
    oldest = Flag.objects.filter(author=people["alice"]).order_by("created_at").first()
    Flag.objects.filter(pk=oldest.pk).update(created_at=timezone.now() - timedelta(minutes=61))
    assert alice.post(flag_url(campaign, "q1"), {"comment": "later"}, format="json").status_code == 201


@pytest.fixture
def flood(campaign, people):
    """120 open flags of alice's on q1 and 3 resolved ones, as stored before the limits."""
    topic = Topic.objects.get(campaign=campaign, external_id="q1")
    Flag.objects.bulk_create(Flag(topic=topic, author=people["alice"], comment=f"flood {i}") for i in range(120))
    Flag.objects.bulk_create(
        Flag(topic=topic, author=people["bob"], comment=f"old {i}", resolved_at=timezone.now()) for i in range(3)
    )
    return topic


def test_the_organisers_inbox_shows_a_page_of_each_list(client, campaign, people, flood):
    client.force_login(people["organiser"])
    url = reverse("campaign", args=[campaign.pk]) + "?section=flags"
    page = client.get(url).content.decode()
    assert page.count('class="flag open"') == flags.PAGE_SIZE
    assert "Page 1 of 3 (120 open flags)" in page and 'href="?section=flags&amp;open_page=2#flags"' in page
    assert "3 resolved" in page and page.count('class="flag resolved"') == 3
    last = client.get(url, {"section": "flags", "open_page": "3"}).content.decode()
    assert last.count('class="flag open"') == 20 and "flood 0" in last and "flood 119" not in last
    for bad in ("4", "0", "x", "٣"):
        refused = client.get(url, {"section": "flags", "open_page": bad})
        assert refused.status_code == 400 and "open_page" in refused.content.decode(), bad


def test_the_flags_api_is_paginated(api, campaign, people, flood):
    inbox = api(people["organiser"]).get(reverse("api-flags", args=[campaign.pk]), {"state": "open"}).json()
    assert (inbox["count"], inbox["page"], inbox["pages"], inbox["previous"], inbox["next"]) == (120, 1, 3, None, 2)
    assert len(inbox["results"]) == flags.PAGE_SIZE and inbox["results"][0]["comment"] == "flood 119"
    last = api(people["alice"]).get(flag_url(campaign, "q1"), {"page": "3"}).json()
    assert (len(last["results"]), last["next"], last["results"][-1]["comment"]) == (20, None, "flood 0")
    refused = api(people["organiser"]).get(reverse("api-flags", args=[campaign.pk]), {"page": "9"})
    assert refused.status_code == 400 and refused.json()["field"] == "page"


def test_the_judging_page_shows_the_newest_of_ones_own_flags(client, campaign, people, flood):
    client.force_login(people["alice"])
    page = client.get(reverse("judge", args=[campaign.pk, "q1"])).content.decode()
    shown = page[page.index('id="topic-flag-list"') :]
    assert shown.count('<li class="flag') == flags.SHOWN_ON_TOPIC
    assert "flood 119" in shown and "flood 99" not in shown
    assert "The newest 20 of 120." in shown
