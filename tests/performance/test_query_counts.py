"""Pages and the submit endpoint use the same number of queries however big the campaign."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotate.imports.write import import_topics
from annotate.models import Topic
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from scoring import services as scoring_services
from tests.campaigns import pairs_topics

pytestmark = pytest.mark.django_db
FULL = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}


def build(people, make_user, n_topics: int, n_assessors: int):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name=f"C{n_topics}", overlap=2)
    names = ["alice", "bob"] + [make_user(f"extra{n_topics}-{i}").username for i in range(n_assessors - 2)]
    for name in names:
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(
        campaign=campaign,
        topics=[{**t, "external_id": f"{n_topics}-{t['external_id']}"} for t in pairs_topics(n_topics)],
    )
    from django.contrib.auth import get_user_model

    users = {u.username: u for u in get_user_model().objects.filter(username__in=names)}
    for topic in Topic.objects.filter(campaign=campaign):
        for a in topic.assignments.all():
            if a.assessor.username != "alice" or topic.position % 2:
                save_judgment(
                    topic=topic, assessor=users[a.assessor.username], payload=FULL, status="submitted", version=0
                )
    scoring_services.recompute_reports(campaign.pk, everything=True)
    return campaign


def unjudged(campaign, user) -> Topic:
    return (
        Topic.objects.filter(campaign=campaign, assignments__assessor=user)
        .exclude(judgments__assessor=user)
        .order_by("position")
        .first()
    )


def count(client, method: str, url: str, **kwargs) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = getattr(client, method)(url, **kwargs)
    assert response.status_code in (200, 302), (url, response.status_code)
    return len(queries)


@pytest.fixture
def small_and_large(people, make_user):
    return build(people, make_user, 3, 3), build(people, make_user, 40, 8)


def pages(campaign, topic):
    return {
        "organiser page": ("organiser", f"/campaigns/{campaign.pk}/"),
        "report fragment": ("organiser", f"/campaigns/{campaign.pk}/report/"),
        "topic report": ("organiser", f"/campaigns/{campaign.pk}/topics/{topic.external_id}/report/"),
        "judging page": ("alice", f"/campaigns/{campaign.pk}/topics/{topic.external_id}/judge/"),
        "assessor home": ("alice", "/"),
        "agreement API": ("organiser", f"/api/campaigns/{campaign.pk}/agreement/"),
    }


@pytest.mark.parametrize(
    "page", ["organiser page", "report fragment", "topic report", "judging page", "assessor home", "agreement API"]
)
def test_pages_do_not_grow_with_the_campaign(client, people, small_and_large, page):
    counts = []
    for campaign in small_and_large:
        topic = (
            Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).order_by("position").first()
        )
        who, url = pages(campaign, topic)[page]
        client.force_login(people[who])
        counts.append(count(client, "get", url))
    assert counts[0] == counts[1], counts


def test_submitting_does_not_grow_with_the_campaign(client, people, small_and_large, django_assert_max_num_queries):
    counts = []
    for campaign in small_and_large:
        topic = unjudged(campaign, people["alice"])
        client.force_login(people["alice"])
        url = f"/api/campaigns/{campaign.pk}/topics/{topic.external_id}/judgment/"
        counts.append(
            count(
                client,
                "put",
                url,
                data={"payload": FULL, "status": "submitted", "version": 0},
                content_type="application/json",
            )
        )
    assert counts[0] == counts[1], counts
    with django_assert_max_num_queries(counts[1]):
        topic = unjudged(small_and_large[1], people["alice"])
        client.put(
            f"/api/campaigns/{small_and_large[1].pk}/topics/{topic.external_id}/judgment/",
            data={"payload": FULL, "status": "draft", "version": 0},
            content_type="application/json",
        )
