"""PUT of a judgment over HTTP: 400 names the field, 409 on a stale version,
and in both cases the stored judgment is unchanged."""

from __future__ import annotations

import pytest

from annotate.models import Judgment, JudgmentRevision, Topic

pytestmark = pytest.mark.django_db

FULL = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}


@pytest.fixture
def url_and_client(api, people, campaign):
    topic = Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).first()
    client = api(people["alice"])
    url = f"/api/campaigns/{campaign.pk}/topics/{topic.external_id}/judgment/"
    assert (
        client.put(
            url, {"payload": {"matches": {"c1": True}}, "status": "draft", "version": 0}, format="json"
        ).status_code
        == 200
    )
    return url, client, topic


def stored(topic, people):
    judgment = Judgment.objects.get(topic=topic, assessor=people["alice"])
    return judgment.version, judgment.status, judgment.payload, judgment.revisions.count()


@pytest.mark.parametrize(
    ("body", "field", "detail"),
    [
        (
            {"payload": {"matches": {"c99": True}}, "status": "draft", "version": 1},
            "payload.matches.c99",
            "unknown candidate id",
        ),
        (
            {"payload": {"matches": {"c1": "yes"}}, "status": "draft", "version": 1},
            "payload.matches.c1",
            "expected true or false",
        ),
        (
            {"payload": {"matches": {"c1": True}}, "status": "submitted", "version": 1},
            "payload.matches",
            "3 candidate(s) not judged: c2, c3, c4",
        ),
        ({"payload": FULL, "status": "done", "version": 1}, "status", "expected one of draft, submitted"),
        ({"payload": FULL, "status": "draft", "version": "1"}, "version", "whole number"),
        ({"payload": FULL, "status": "draft"}, "body.version", "required"),
        ({"payload": "all of them", "status": "draft", "version": 1}, "payload", "expected an object"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(url_and_client, people, body, field, detail):
    url, client, topic = url_and_client
    before = stored(topic, people)
    response = client.put(url, body, format="json")
    assert response.status_code == 400
    assert response.json()["field"] == field and detail in response.json()["detail"]
    assert stored(topic, people) == before


def test_stale_version_is_a_409_and_changes_nothing(url_and_client, people):
    url, client, topic = url_and_client
    assert client.put(url, {"payload": FULL, "status": "draft", "version": 1}, format="json").status_code == 200
    before = stored(topic, people)
    response = client.put(url, {"payload": {"matches": {"c1": False}}, "status": "draft", "version": 1}, format="json")
    assert response.status_code == 409 and response.json()["current_version"] == 2
    assert stored(topic, people) == before


def test_not_json_is_a_400(url_and_client, people):
    url, client, topic = url_and_client
    before = stored(topic, people)
    response = client.put(url, "{not json", content_type="application/json")
    assert response.status_code == 400
    assert stored(topic, people) == before


def test_a_retry_of_the_last_save_is_answered_without_a_new_revision(url_and_client, people):
    url, client, topic = url_and_client
    body = {"payload": FULL, "status": "submitted", "version": 1}
    first = client.put(url, body, format="json").json()
    again = client.put(url, body, format="json").json()
    assert (first["version"], first["replayed"], again["version"], again["replayed"]) == (2, False, 2, True)
    assert JudgmentRevision.objects.filter(judgment__topic=topic).count() == 2
