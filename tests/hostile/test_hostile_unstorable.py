"""Input no database stores: NUL characters (PostgreSQL refuses them in text
and JSON) and non-finite numbers (1e400 parses to infinity, which is not
JSON) get a 400 naming where they are, on every endpoint, page or API, and
nothing is written. Run on SQLite and, in CI, on PostgreSQL."""

from __future__ import annotations

import io
import json

import pytest
from django.test import Client

from annotate.models import Campaign, Judgment, Run, Topic

pytestmark = pytest.mark.django_db


def organiser(api, people):
    client = api(people["organiser"])
    client.raise_request_exception = False
    return client


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ('{"kind": "pairs", "name": "a\\u0000b"}', "name"),
        ('{"kind": "pairs", "name": "x", "params": {"n\\u0000": 1}}', "params.n\\u0000"),
        ('{"kind": "pairs", "name": "x", "params": {"a": 1e400}}', "params.a"),
        ('{"kind": "pairs", "name": "x", "params": {"a": [-1E+999]}}', "params.a[0]"),
        ('{"kind": "pairs", "name": "x", "params": {"a": NaN}}', "params.a"),
        ('{"kind": "pairs", "name": "x", "params": {"a": Infinity}}', "params.a"),
    ],
)
def test_json_bodies(api, people, body, field):
    """The one strict JSON parser (concord/jsonsafe.py) names the path of what it refuses."""
    before = Campaign.objects.count()
    response = organiser(api, people).post("/api/campaigns/", body, content_type="application/json")
    assert response.status_code == 400, response.content[:200]
    assert response.json()["field"] == field
    assert Campaign.objects.count() == before


def test_json_that_looks_close_but_is_fine(api, people, every_kind):
    client = organiser(api, people)
    body = '{"kind": "pairs", "name": "a\\\\u0000b"}'  # an escaped backslash, then the text u0000
    assert client.post("/api/campaigns/", body, content_type="application/json").status_code == 201
    scores = (
        '[{"name": "r", "data": {"results": {"t1": [{"id": "c1", "text": "x", "score": 1e300}, '
        '{"id": "c2", "text": "y", "score": -2.5E-400}, {"id": "c3", "text": "z", "score": 12345678901234567890}]}}}]'
    )
    response = client.post(f"/api/campaigns/{every_kind['pairs'].pk}/runs/", scores, content_type="application/json")
    assert response.status_code == 201, response.content[:200]


def test_a_judgment_with_a_nul_in_a_factoid(api, people, every_kind):
    payload = {"factoids": [{"id": "F1", "text": "x\x00"}], "marks": {}}
    client = api(people["alice"])
    response = client.put(
        f"/api/campaigns/{every_kind['factoids'].pk}/topics/t1/judgment/",
        {"payload": payload, "status": "draft", "version": 0},
        format="json",
    )
    assert response.status_code == 400 and not Judgment.objects.exists()


def test_uploaded_files(api, people, every_kind):
    topic = {"external_id": "x", "data": {"query": "q\x00", "candidates": [{"id": "a", "text": "b"}]}}
    topics = io.BytesIO(json.dumps([topic]).encode())
    topics.name = "topics.json"
    runs = io.BytesIO(b"topic,run,order\nt1,sys\x001,a b c\n")
    runs.name = "runs.csv"
    client = organiser(api, people)
    before = Topic.objects.count(), Run.objects.count()
    for url, upload in (
        (f"/api/campaigns/{every_kind['pairs'].pk}/topics/", topics),
        (f"/api/campaigns/{every_kind['ordering'].pk}/runs/", runs),
    ):
        assert client.post(url, {"file": upload}, format="multipart").status_code == 400
    assert (Topic.objects.count(), Run.objects.count()) == before


def test_paths_and_queries(api, people, every_kind):
    client = organiser(api, people)
    response = client.get(f"/api/campaigns/{every_kind['pairs'].pk}/topics/a%00b/judgment/")
    assert response.status_code == 400 and response.json()["field"] == "path"
    response = client.get(f"/api/campaigns/{every_kind['pairs'].pk}/export/", {"format": "csv\x00"})
    assert response.status_code == 400 and response.json()["field"] == "query"


def test_pages_say_so_too(people, every_kind):
    browser = Client()
    browser.force_login(people["organiser"])
    response = browser.post(f"/campaigns/{every_kind['pairs'].pk}/analyses/", {"analysis": "agree\x00ment"})
    assert response.status_code == 400 and "NUL character" in response.content.decode()
    assert browser.get(f"/campaigns/{every_kind['pairs'].pk}/topics/t%001/judge/").status_code == 400
