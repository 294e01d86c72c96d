"""Every endpoint, every role: the right 200 / 401 / 403 / 404, and blind assessment."""

from __future__ import annotations

import io

import pytest

from annotate.models import Campaign, Judgment, Membership, Topic
from annotate.services.judgments import save_judgment
from scoring.models import Job

pytestmark = pytest.mark.django_db

ROLES = ["anonymous", "alice", "carol", "organiser", "other_organiser", "admin"]
PAYLOAD = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}


def alice_topic(campaign, people) -> Topic:
    return Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).first()


def request(api, people, role, method, url, data=None, fmt="json"):
    client = api(None if role == "anonymous" else people[role])
    return getattr(client, method)(url, data, format=fmt) if data is not None else getattr(client, method)(url)


# (method, path, body, expected status per role in ROLES order)
def endpoints(campaign, topic, job):
    c = f"/api/campaigns/{campaign.pk}"
    crowd = io.BytesIO(b"worker,topic,candidate,label\nw1,q1,c1,1\nw1,q1,c2,0\nw1,q1,c3,1\nw1,q1,c4,0\n")
    crowd.name = "crowd.csv"
    new_topic = [{"external_id": "new", "data": {"query": "x", "candidates": [{"id": "a", "text": "A"}]}}]
    return [
        ("get", "/api/campaigns/", None, [401, 200, 200, 200, 200, 200]),
        ("get", f"{c}/", None, [401, 200, 404, 200, 404, 200]),
        ("get", f"{c}/members/", None, [401, 403, 404, 200, 404, 200]),
        ("post", f"{c}/members/", {"username": "carol", "role": "assessor"}, [401, 403, 404, 201, 404, 201]),
        ("get", f"{c}/topics/", None, [401, 200, 404, 200, 404, 200]),
        ("post", f"{c}/topics/", new_topic, [401, 403, 404, 201, 404, 201]),
        ("get", f"{c}/runs/", None, [401, 403, 404, 200, 404, 200]),
        (
            "post",
            f"{c}/runs/",
            [{"name": "sys1", "data": {"results": {"q1": [{"id": "c1", "text": "x"}]}}}],
            [401, 403, 404, 201, 404, 201],
        ),
        ("get", f"{c}/topics/{topic.external_id}/judgment/", None, [401, 200, 404, 200, 404, 200]),
        (
            "put",
            f"{c}/topics/{topic.external_id}/judgment/",
            {"payload": PAYLOAD, "status": "submitted", "version": 0},
            [401, 200, 404, 403, 404, 403],
        ),
        ("get", f"{c}/judgments/", None, [401, 200, 404, 200, 404, 200]),
        ("post", f"{c}/judgments/import/", {"file": crowd}, [401, 403, 404, 201, 404, 201]),
        ("get", f"{c}/agreement/", None, [401, 403, 404, 200, 404, 200]),
        ("post", f"{c}/analyses/", {"analysis": "agreement"}, [401, 403, 404, 202, 404, 202]),
        ("get", f"/api/jobs/{job.pk}/", None, [401, 403, 404, 200, 404, 200]),
        ("get", f"{c}/export/?format=csv&truth=consensus", None, [401, 403, 404, 403, 404, 200]),
    ]


@pytest.mark.parametrize("index", range(16))
@pytest.mark.parametrize("role", ROLES)
def test_permission_matrix(api, people, campaign, role, index):
    topic = alice_topic(campaign, people)
    job = Job.objects.create(campaign=campaign, analysis="agreement")
    method, url, data, expected = endpoints(campaign, topic, job)[index]
    fmt = "multipart" if url.endswith("/import/") else "json"
    response = request(api, people, role, method, url, data, fmt)
    assert response.status_code == expected[ROLES.index(role)], (role, method, url, response.content[:300])


def test_campaign_list_shows_only_own_campaigns(api, people, campaign):
    names = lambda user: sorted(c["name"] for c in api(user).get("/api/campaigns/").json())  # noqa: E731
    assert names(people["alice"]) == ["Names"]
    assert names(people["carol"]) == ["Elsewhere"]
    assert names(people["outsider"]) == []
    assert names(people["admin"]) == ["Elsewhere", "Names"]


def test_assessors_see_only_their_own_topics_and_judgments(api, people, campaign):
    alice, bob = people["alice"], people["bob"]
    for user in (alice, bob):
        for topic in Topic.objects.filter(campaign=campaign, assignments__assessor=user):
            save_judgment(topic=topic, assessor=user, payload=PAYLOAD, status="submitted", version=0)
    seen = api(alice).get(f"/api/campaigns/{campaign.pk}/judgments/").json()
    assert {j["assessor"] for j in seen} == {"alice"}
    topics = api(alice).get(f"/api/campaigns/{campaign.pk}/topics/").json()
    assert sorted(t["external_id"] for t in topics) == sorted(
        Topic.objects.filter(assignments__assessor=alice).values_list("external_id", flat=True)
    )
    bobs_only = (
        Topic.objects.filter(campaign=campaign, assignments__assessor=bob).exclude(assignments__assessor=alice).first()
    )
    if bobs_only is not None:
        assert (
            api(alice).get(f"/api/campaigns/{campaign.pk}/topics/{bobs_only.external_id}/judgment/").status_code == 404
        )
    everything = api(people["organiser"]).get(f"/api/campaigns/{campaign.pk}/judgments/").json()
    assert {j["assessor"] for j in everything} == {"alice", "bob"}


def test_body_fields_that_would_reassign_are_refused(api, people, campaign):
    topic = alice_topic(campaign, people)
    url = f"/api/campaigns/{campaign.pk}/topics/{topic.external_id}/judgment/"
    for extra in ({"assessor": people["bob"].pk}, {"campaign": 999}, {"topic": "q2"}):
        response = api(people["alice"]).put(
            url, {"payload": PAYLOAD, "status": "draft", "version": 0, **extra}, format="json"
        )
        assert response.status_code == 400
        assert response.json()["field"] == f"body.{next(iter(extra))}"
    assert not Judgment.objects.exists()
    response = api(people["organiser"]).post(
        "/api/campaigns/", {"kind": "pairs", "name": "X", "created_by": people["alice"].pk}, format="json"
    )
    assert response.status_code == 400 and response.json()["field"] == "body.created_by"
    assert not Campaign.objects.filter(name="X").exists()


def test_organiser_creating_a_campaign_becomes_its_organiser(api, people):
    response = api(people["organiser"]).post(
        "/api/campaigns/", {"kind": "pairs", "name": "Fresh", "overlap": 3}, format="json"
    )
    assert response.status_code == 201 and response.json()["role"] == "organiser"
    membership = Membership.objects.get(campaign_id=response.json()["id"])
    assert (membership.user.username, membership.role) == ("organiser", "organiser")


def test_token_auth_for_scripts(client, people, campaign):
    response = client.post("/api/auth/token/", {"username": "alice", "password": "pw-alice"})
    token = response.json()["token"]
    listing = client.get("/api/campaigns/", HTTP_AUTHORIZATION=f"Token {token}")
    assert [c["name"] for c in listing.json()] == ["Names"]
    assert client.get("/api/campaigns/", HTTP_AUTHORIZATION="Token wrong").status_code == 401


def test_browser_session_writes_need_the_csrf_token(people, campaign):
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(people["alice"])
    topic = alice_topic(campaign, people)
    url = f"/api/campaigns/{campaign.pk}/topics/{topic.external_id}/judgment/"
    body = {"payload": PAYLOAD, "status": "draft", "version": 0}
    refused = browser.put(url, body, content_type="application/json")
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]
    page = browser.get(f"/campaigns/{campaign.pk}/topics/{topic.external_id}/judge/")
    token = page.context["csrf_token"]
    accepted = browser.put(url, body, content_type="application/json", HTTP_X_CSRFTOKEN=str(token))
    assert accepted.status_code == 200
