"""Hostile JSON: deep nesting and numbers that are not
finite get a 400 (never a RecursionError's 500) on every JSON endpoint and
every JSON/JSONL import, naming the path where it can; anonymous endpoints
(login page, admin login, API token) read at most 64 KiB of body."""

from __future__ import annotations

import io
import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from annotate.models import (
    Campaign,
    Curation,
    Judgment,
    JudgmentRevision,
    Membership,
    Run,
    Topic,
)
from scoring.models import Job

pytestmark = pytest.mark.django_db

DEEP_LISTS = "[" * 1000 + "]" * 1000
DEEP_OBJECTS = '{"a":' * 1000 + "1" + "}" * 1000
DEEP_WITH_HUGE = "[" * 1000 + "1e999" + "]" * 1000


def nested(depth: int) -> str:
    return "[" * (depth - 1) + "[1]" + "]" * (depth - 1)


def counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (Campaign, Topic, Run, Judgment, JudgmentRevision, Membership, Curation, Job)
    }


def client_for(user) -> APIClient:
    client = APIClient()
    client.raise_request_exception = False
    if user is not None:
        client.force_authenticate(user)
    return client


def upload(name: str, content: bytes) -> io.BytesIO:
    file = io.BytesIO(content)
    file.name = name
    return file


# (who, method, url): every endpoint that reads a JSON body
ENDPOINTS = [
    (None, "post", "/api/auth/token/"),
    ("organiser", "post", "/api/campaigns/"),
    ("organiser", "post", "{pairs}/members/"),
    ("organiser", "post", "{pairs}/topics/"),
    ("organiser", "post", "{ordering}/runs/"),
    ("organiser", "post", "{pairs}/pools/"),
    ("organiser", "post", "{factoids}/phase/"),
    ("organiser", "post", "{pairs}/analyses/"),
    ("organiser", "put", "{factoids}/topics/t1/curations/consensus/"),
    ("alice", "put", "{pairs}/topics/t1/judgment/"),
]


def resolve(url: str, every_kind) -> str:
    return url.format(**{kind: f"/api/campaigns/{campaign.pk}" for kind, campaign in every_kind.items()})


@pytest.mark.parametrize(
    "body",
    [DEEP_LISTS, DEEP_OBJECTS, DEEP_WITH_HUGE, nested(65), '{"x": ' + nested(80) + "}"],
    ids=["lists", "objects", "lists-around-1e999", "depth-65", "depth-80-in-a-field"],
)
@pytest.mark.parametrize(("who", "method", "url"), ENDPOINTS, ids=[f"{e[1]} {e[2]}" for e in ENDPOINTS])
def test_deep_nesting_is_a_400_on_every_json_endpoint(people, every_kind, who, method, url, body):
    before = counts()
    client = client_for(people[who] if who else None)
    response = getattr(client, method)(resolve(url, every_kind), body, content_type="application/json")
    assert response.status_code == 400, (response.status_code, response.content[:200])
    assert response.json()["field"] == "body"
    assert "nested deeper than 64" in response.json()["detail"]
    assert counts() == before


def test_depth_64_is_allowed(people, every_kind):
    """The limit is 64 levels: a body of exactly 64 parses (whatever the view then says of it)."""
    body = '{"kind": "pairs", "name": "x", "params": {"a": ' + nested(62) + "}}"
    response = client_for(people["organiser"]).post("/api/campaigns/", body, content_type="application/json")
    assert response.status_code < 500 and b"nested deeper" not in response.content, response.content[:200]
    response = client_for(people["organiser"]).post(
        "/api/campaigns/", '{"x": ' + nested(64) + "}", content_type="application/json"
    )
    assert response.status_code == 400 and "nested deeper than 64" in response.json()["detail"]


@pytest.mark.parametrize(
    ("number", "field"),
    [
        ("1e999", "params.a[1]"),
        ("-1E+999", "params.a[1]"),
        ("NaN", "params.a[1]"),
        ("Infinity", "params.a[1]"),
        ("-Infinity", "params.a[1]"),
        ("1" * 5000, "params.a[1]"),
    ],
    ids=["1e999", "-1E+999", "NaN", "Infinity", "-Infinity", "5000-digits"],
)
def test_numbers_that_are_not_finite_name_the_path(people, every_kind, number, field):
    before = counts()
    body = '{"kind": "pairs", "name": "x", "params": {"a": [1, ' + number + "]}}"
    response = client_for(people["organiser"]).post("/api/campaigns/", body, content_type="application/json")
    assert response.status_code == 400, response.content[:200]
    assert response.json()["field"] == field
    assert counts() == before


@pytest.mark.parametrize(("who", "method", "url"), ENDPOINTS, ids=[f"{e[1]} {e[2]}" for e in ENDPOINTS])
def test_1e999_is_a_400_on_every_json_endpoint(people, every_kind, who, method, url):
    before = counts()
    client = client_for(people[who] if who else None)
    response = getattr(client, method)(resolve(url, every_kind), '{"version": 1e999}', content_type="application/json")
    assert response.status_code == 400, (response.status_code, response.content[:200])
    assert response.json()["field"] == "version"
    assert counts() == before


@pytest.mark.parametrize(
    "url", ["/", "/accounts/login/", "/admin/login/", "/no-such-page/", "/api/campaigns/", "/campaigns/1/analyses/"]
)
@pytest.mark.parametrize("body", [DEEP_LISTS, DEEP_WITH_HUGE, "1e999"], ids=["deep", "deep-1e999", "1e999"])
def test_no_url_answers_500_to_hostile_json(people, url, body):
    """Pages do not read JSON bodies: whatever they answer, it is not a 500."""
    for user in (None, people["organiser"]):
        browser = Client(raise_request_exception=False)
        if user is not None:
            browser.force_login(user)
        response = browser.post(url, body, content_type="application/json")
        assert response.status_code < 500, (url, response.status_code)


def test_the_login_pages_answer_a_deep_json_body(people):
    for url in ("/accounts/login/", "/admin/login/"):
        response = Client(raise_request_exception=False).post(url, DEEP_LISTS, content_type="application/json")
        assert response.status_code == 200, url  # the form again: no username, no password


# -- imports ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "path", "name", "content", "field", "words"),
    [
        ("pairs", "topics/", "topics.json", DEEP_LISTS, "file", "nested deeper than 64"),
        ("pairs", "topics/", "topics.json", DEEP_WITH_HUGE, "file", "nested deeper than 64"),
        (
            "pairs",
            "topics/",
            "topics.json",
            '[{"external_id": "t9", "data": {"query": "q", "candidates": [{"id": "a", "text": "b", "x": 1e999}]}}]',
            "file[0].data.candidates[0].x",
            "finite",
        ),
        ("ordering", "runs/", "runs.json", DEEP_OBJECTS, "file", "nested deeper than 64"),
        (
            "ordering",
            "runs/",
            "runs.json",
            '[{"name": "r", "data": {"orderings": {"t1": NaN}}}]',
            "file[0].data.orderings.t1",
            "finite",
        ),
        ("ordering", "judgments/import/", "judgments.json", DEEP_LISTS, "file", "nested deeper than 64"),
        (
            "ordering",
            "judgments/import/",
            "judgments.json",
            ('{"judgments": [{"assessor": "a", "topic": "t1", "payload": {"order": [Infinity]}}]}'),
            "file.judgments[0].payload.order[0]",
            "finite",
        ),
        (
            "ordering",
            "judgments/import/",
            "all-responses.jsonl",
            '{"passage-id": 1, "questions": {}}\n' + DEEP_LISTS,
            "line 2",
            "nested deeper than 64",
        ),
        (
            "ordering",
            "judgments/import/",
            "all-responses.jsonl",
            '{"passage-id": 1e999, "questions": {}}\n',
            "line 1: passage-id",
            "finite",
        ),
    ],
    ids=[
        "topics-deep",
        "topics-deep-1e999",
        "topics-1e999",
        "runs-deep",
        "runs-nan",
        "judgments-deep",
        "judgments-infinity",
        "squality-deep",
        "squality-1e999",
    ],
)
def test_json_and_jsonl_imports(people, every_kind, kind, path, name, content, field, words):
    before = counts()
    response = client_for(people["organiser"]).post(
        f"/api/campaigns/{every_kind[kind].pk}/{path}", {"file": upload(name, content.encode())}, format="multipart"
    )
    assert response.status_code == 400, response.content[:200]
    assert response.json()["field"] == field
    assert words in response.json()["detail"]
    assert counts() == before


def test_the_import_commands_refuse_deep_files(people, every_kind, tmp_path):
    from django.core.management import CommandError, call_command

    file = tmp_path / "topics.json"
    file.write_text(DEEP_LISTS)
    before = counts()
    with pytest.raises(CommandError, match="nested deeper than 64"):
        call_command("import_topics", str(every_kind["pairs"].pk), str(file))
    with pytest.raises(CommandError, match="nested deeper than 64"):
        call_command("create_campaign", "pairs", "x", "--organiser", "organiser", "--params", DEEP_OBJECTS)
    with pytest.raises(CommandError, match="finite"):
        call_command("create_campaign", "pairs", "x", "--organiser", "organiser", "--params", '{"a": 1e999}')
    assert counts() == before


# -- anonymous endpoints read at most 64 KiB ----------------------------------------------------------

LIMIT = 64 * 1024


@pytest.mark.parametrize("url", ["/accounts/login/", "/admin/login/", "/api/auth/token/"])
def test_anonymous_endpoints_refuse_bodies_over_64_kib(people, url):
    browser = Client(raise_request_exception=False)
    padding = "x" * LIMIT
    form = browser.post(url, {"username": "alice", "password": "pw-alice", "padding": padding})
    assert form.status_code == 413
    document = browser.post(
        url,
        json.dumps({"username": "alice", "password": "pw-alice", "padding": padding}),
        content_type="application/json",
    )
    assert document.status_code == 413
    if url.startswith("/api/"):
        assert document.json()["field"] == "body" and "64 KiB" in document.json()["detail"]
    else:
        assert "64 KiB" in document.content.decode()


def test_a_body_under_64_kib_is_read_as_usual(people):
    padding = "x" * (LIMIT - 1000)
    response = Client().post("/api/auth/token/", {"username": "alice", "password": "pw-alice", "padding": padding})
    assert response.status_code == 200 and "token" in response.json()


def test_signed_in_endpoints_keep_the_upload_limit(people, every_kind):
    """Only the anonymous endpoints have the small limit: a 200 KiB topic file from
    someone signed in (a session: concord.security reads no body before it knows who) is fine."""
    topics = [
        {"external_id": f"big{i}", "data": {"query": "q" * 1000, "candidates": [{"id": "a", "text": "b" * 1000}]}}
        for i in range(100)
    ]
    client = APIClient()
    client.force_login(people["organiser"])
    response = client.post(
        f"/api/campaigns/{every_kind['pairs'].pk}/topics/", json.dumps(topics), content_type="application/json"
    )
    assert response.status_code == 201, response.content[:200]
