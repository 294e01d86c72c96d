"""Pages: who may open what, and what they show."""

from __future__ import annotations

import pytest

from annotate.models import Topic
from annotate.services.judgments import save_judgment

pytestmark = pytest.mark.django_db
FULL = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}


def as_user(client, user):
    client.force_login(user)
    return client


def test_anonymous_visitors_are_sent_to_log_in(client, campaign):
    for url in ("/", f"/campaigns/{campaign.pk}/", f"/campaigns/{campaign.pk}/report/"):
        response = client.get(url)
        assert response.status_code == 302 and response.url.startswith("/accounts/login/")


def test_login_page_logs_in(client, people):
    response = client.post("/accounts/login/", {"username": "alice", "password": "pw-alice"})
    assert response.status_code == 302 and response.url == "/"
    assert client.get("/").status_code == 200


def test_assessor_home_shows_queue_progress_and_next_topic(client, people, campaign):
    alice = people["alice"]
    first, *rest = Topic.objects.filter(campaign=campaign, assignments__assessor=alice).order_by("position")
    save_judgment(topic=first, assessor=alice, payload=FULL, status="submitted", version=0)
    page = as_user(client, alice).get("/")
    (queue,) = page.context["assessing"]
    assert (queue.submitted, len(queue.entries), queue.next_topic) == (1, 3, rest[0])
    assert f"/campaigns/{campaign.pk}/topics/{rest[0].external_id}/judge/".encode() in page.content


def test_judging_page_only_for_assigned_topics(client, people, campaign):
    topic = Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).first()
    url = f"/campaigns/{campaign.pk}/topics/{topic.external_id}/judge/"
    page = as_user(client, people["alice"]).get(url)
    assert page.status_code == 200
    assert b'id="judgment-state"' in page.content and b"Candidate 1.1" in page.content
    assert as_user(client, people["carol"]).get(url).status_code == 404


def test_organiser_page_shows_progress_assignments_and_the_stored_report(
    client, people, campaign, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        for name in ("alice", "bob"):
            for topic in Topic.objects.filter(campaign=campaign, assignments__assessor=people[name]):
                save_judgment(topic=topic, assessor=people[name], payload=FULL, status="submitted", version=0)
    page = as_user(client, people["organiser"]).get(f"/campaigns/{campaign.pk}/?section=progress")
    assert page.status_code == 200
    assert [(p.username, p.assigned, p.submitted) for p in page.context["progress"]] == [("alice", 3, 3), ("bob", 3, 3)]
    fragment = client.get(f"/campaigns/{campaign.pk}/report/").content.decode()
    assert 'id="fleiss-kappa">1.000<' in fragment and 'data-chart="heatmap"' in fragment


def test_assessors_cannot_read_agreement(client, people, campaign):
    client = as_user(client, people["alice"])
    assert client.get(f"/campaigns/{campaign.pk}/report/").status_code == 403
    page = client.get(f"/campaigns/{campaign.pk}/")
    assert page.status_code == 200 and b"kappa" not in page.content.lower()


def test_organisers_of_other_campaigns_see_nothing(client, people, campaign):
    client = as_user(client, people["other_organiser"])
    assert client.get(f"/campaigns/{campaign.pk}/").status_code == 404
    assert client.get(f"/campaigns/{campaign.pk}/report/").status_code == 404


def test_api_schema_and_docs(client, people):
    schema = client.get("/api/schema/")
    assert schema.status_code == 200
    assert b"/api/campaigns/{campaign_id}/topics/{topic_id}/judgment/" in schema.content
    as_user(client, people["alice"])
    assert client.get("/api/docs/").status_code == 200


def test_topic_report_page_for_organisers_only(client, people, campaign, django_capture_on_commit_callbacks):
    topic = Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).first()
    with django_capture_on_commit_callbacks(execute=True):
        for name in ("alice", "bob"):
            if topic.assignments.filter(assessor=people[name]).exists():
                save_judgment(topic=topic, assessor=people[name], payload=FULL, status="submitted", version=0)
    url = f"/campaigns/{campaign.pk}/topics/{topic.external_id}/report/"
    page = as_user(client, people["organiser"]).get(url).content.decode()
    assert "Pairwise kappa on this topic" in page and 'data-chart="heatmap"' in page
    assert as_user(client, people["alice"]).get(url).status_code == 403
