"""A member's JSON body is bounded by what its endpoint can use, and refused
before it is parsed (annotate/api/bodies.py): a judgment by its kind's payload
size plus 1 MiB (and its objects and lists by the kind's list caps), the
small endpoints at 64 KiB, a campaign at 1 MiB, uploads at the upload limit.
JSON is UTF-8 only and names each key once per object (concord/jsonsafe.py)."""

from __future__ import annotations

import codecs
import io
import json
from types import SimpleNamespace

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from annotate.api import bodies
from annotate.api.bodies import PAYLOAD_MARGIN_BYTES, SMALL_BODY_BYTES, BodyLimit, StrictJSONParser
from annotate.models import Judgment, JudgmentRevision
from concord import jsonsafe, tokens
from concord.errors import BodyTooLarge
from kinds.base import payload_bytes
from kinds.registry import KINDS

pytestmark = pytest.mark.django_db


def token_client(user) -> APIClient:
    """As a script calls the API: a token, so that the upload middleware knows the
    sender and lets a body over 64 KiB through to the view's own limit."""
    client = APIClient()
    client.raise_request_exception = False
    client.credentials(HTTP_AUTHORIZATION=f"Token {tokens.issue(user)[1]}")
    return client


@pytest.fixture
def parses(monkeypatch):
    """How many times the strict parser ran."""
    calls = []
    real = jsonsafe.loads

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(jsonsafe, "loads", counted)
    return calls


def judgment_url(campaign) -> str:
    return f"/api/campaigns/{campaign.pk}/topics/t1/judgment/"


def put_counted(client, url: str, body: bytes, *, method: str = "PUT", **extra):
    """Send ``body`` through a stream whose position says how much of it the server read."""
    stream = io.BytesIO(body)
    response = client.generic(method, url, body, content_type="application/json", **{"wsgi.input": stream, **extra})
    return response, stream.tell()


def post_counted(client, url: str, body: bytes, **extra):
    return put_counted(client, url, body, method="POST", **extra)


# -- the hostile body, refused unread ------------------------------------------------


def test_an_assessors_huge_judgment_body_is_refused_before_it_is_parsed(people, every_kind, parses):
    """A hostile PUT, scaled to just over the clustering kind's limit: empty
    lists in an unknown field. Nothing of it is read or parsed."""
    campaign = every_kind["clustering"]
    limit = KINDS["clustering"].data.limits.payload_bytes + PAYLOAD_MARGIN_BYTES
    head = b'{"payload": {"clusters": []}, "status": "draft", "version": 0, "x": ['
    lists = (limit - len(head)) // 3 + 1
    body = head + b"[]," * lists + b"[]]}"
    assert limit < len(body) < limit + 16
    response, read = put_counted(token_client(people["alice"]), judgment_url(campaign), body)
    assert response.status_code == 413, response.content[:300]
    assert response.json() == {
        "detail": f"The request body is {len(body):,} bytes; a clustering judgment's body is at most 5 MiB "
        f"({limit:,} bytes).",
        "field": "body",
    }
    assert read == 0 and parses == []
    assert not Judgment.objects.exists()


def test_a_judgment_body_at_the_limit_is_read_and_parsed(people, every_kind, parses):
    """One byte under the limit the same body is parsed (and refused for what it says)."""
    campaign = every_kind["pairs"]
    limit = KINDS["pairs"].data.limits.payload_bytes + PAYLOAD_MARGIN_BYTES
    head = b'{"payload": {"matches": {}}, "status": "draft", "version": 0, "x": "'
    body = head + b"a" * (limit - len(head) - 2) + b'"}'
    assert len(body) == limit
    response, read = put_counted(token_client(people["alice"]), judgment_url(campaign), body)
    assert response.status_code == 400 and response.json()["field"] == "body.x", response.content[:300]
    assert read == limit and parses == [1]


def test_a_judgment_body_of_many_small_lists_is_refused_by_their_count(people, every_kind, parses):
    """Under the byte limit, but more objects and lists than any payload of the kind
    has (the sum of its payload list caps): refused by a count, before parsing."""
    campaign = every_kind["pairs"]
    cap = KINDS["pairs"].data.limits["payload.matches"] + bodies.FIXED_CONTAINERS
    body = b'{"payload": {"matches": {}}, "status": "draft", "version": 0, "x": [' + b"[]," * cap + b"[]]}"
    response = token_client(people["alice"]).generic(
        "PUT", judgment_url(campaign), body, content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json() == {
        "detail": f"more objects and lists than this body takes (at most {cap:,})",
        "field": "body",
    }
    assert not Judgment.objects.exists()


def test_a_body_without_content_length_is_not_read(people, every_kind):
    """A chunked body (no Content-Length) is read as empty by Django's WSGI handler:
    nothing of it is read, and the view says what is missing."""
    campaign = every_kind["pairs"]
    body = b'{"payload": {"matches": {}}, "status": "draft", "version": 0, "x": [' + b"[]," * 100_000 + b"[]]}"
    response, read = put_counted(
        token_client(people["alice"]),
        judgment_url(campaign),
        body,
        CONTENT_LENGTH="",
        HTTP_TRANSFER_ENCODING="chunked",
    )
    assert response.status_code == 400 and read == 0
    assert not Judgment.objects.exists()


class Counting(io.BytesIO):
    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.asked: list[int] = []

    def read(self, size: int = -1) -> bytes:
        self.asked.append(size)
        return super().read(size)


def test_the_parser_reads_at_most_one_byte_past_the_limit_whatever_the_content_length():
    """Should a server hand the parser a stream longer than the Content-Length says
    (or without one), it still reads no more than the limit and one byte."""
    stream = Counting(b"[" + b"0," * 500_000 + b"0]")
    context = {"view": SimpleNamespace(body_limit=BodyLimit(1000)), "request": SimpleNamespace(META={})}
    with pytest.raises(BodyTooLarge) as refused:
        StrictJSONParser().parse(stream, "application/json", context)
    assert stream.tell() == 1001 and stream.asked == [1001]
    assert (
        refused.value.message
        == "The request body is 1,001 bytes; a body of this endpoint is at most 1000 bytes (1,000 bytes)."
    )


# -- every endpoint has its limit ----------------------------------------------------------

#: (who, method, url): endpoints whose bodies are a few small fields.
SMALL_ENDPOINTS = [
    ("organiser", "post", "{pairs}/members/"),
    ("organiser", "post", "{factoids}/phase/"),
    ("organiser", "post", "{pairs}/analyses/"),
    ("alice", "post", "{pairs}/topics/t1/judgment/reopen/"),
    ("alice", "post", "{pairs}/topics/t1/judgment/withdraw/"),
    ("alice", "post", "{pairs}/topics/t1/skip/"),
    ("alice", "post", "{pairs}/topics/t1/flags/"),
    ("alice", "post", "{pairs}/next-topic/"),
]


def resolve(url: str, every_kind) -> str:
    return url.format(**{kind: f"/api/campaigns/{campaign.pk}" for kind, campaign in every_kind.items()})


@pytest.mark.parametrize(("who", "method", "url"), SMALL_ENDPOINTS, ids=[f"{e[1]} {e[2]}" for e in SMALL_ENDPOINTS])
def test_small_endpoints_read_at_most_64_kib(people, every_kind, parses, who, method, url):
    body = json.dumps({"comment": "c" * SMALL_BODY_BYTES}).encode()
    response, read = put_counted(token_client(people[who]), resolve(url, every_kind), body, method=method.upper())
    assert response.status_code == 413, response.content[:200]
    assert response.json()["field"] == "body" and "at most 64 KiB" in response.json()["detail"]
    assert read == 0 and parses == []


def test_a_session_post_is_bounded_before_csrf_reads_it(people, every_kind, parses):
    """A page's POST to the API with its session: the CSRF check reads the body
    (DRF parses it to look for a form token) before the view runs; the limit
    applies there too."""
    client = APIClient(enforce_csrf_checks=True, raise_request_exception=False)
    client.force_login(people["alice"])
    secret = "s" * 32
    client.cookies[settings.CSRF_COOKIE_NAME] = secret
    url = resolve("{pairs}/topics/t1/flags/", every_kind)
    body = json.dumps({"comment": "c" * SMALL_BODY_BYTES}).encode()
    response, read = post_counted(client, url, body, HTTP_X_CSRFTOKEN=secret)
    assert response.status_code == 413 and read == 0 and parses == []
    response, _ = post_counted(client, url, json.dumps({"comment": "c"}).encode(), HTTP_X_CSRFTOKEN=secret)
    assert response.status_code == 201, response.content[:200]


def test_a_campaign_takes_1_mib(people, parses):
    client = token_client(people["organiser"])
    guidelines = "g" * 100_000  # the most a campaign's guidelines hold
    response = client.post("/api/campaigns/", {"kind": "pairs", "name": "n", "guidelines": guidelines}, format="json")
    assert response.status_code == 201
    over = client.post("/api/campaigns/", {"kind": "pairs", "name": "n", "guidelines": "g" * 2**20}, format="json")
    assert over.status_code == 413 and "a campaign is at most 1 MiB" in over.json()["detail"]


def test_a_gold_has_its_kinds_limit_and_a_kinds_own_curation_the_upload_limit(people, every_kind):
    client = token_client(people["organiser"])
    url = resolve("{factoids}/topics/t1/curations/", every_kind)
    limit = KINDS["factoids"].data.limits.payload_bytes + PAYLOAD_MARGIN_BYTES
    body = {"data": {"factoids": [], "marks": {}, "x": "a" * limit}, "version": 0}
    gold = client.put(url + "consensus/", body, format="json")
    assert gold.status_code == 413 and "a factoids gold's body is at most 5 MiB" in gold.json()["detail"]
    relations = client.put(url + "relations/", {"data": {"pairs": {}, "x": "a" * limit}, "version": 0}, format="json")
    assert relations.status_code == 400 and relations.json()["field"] == "data.x"


@pytest.mark.parametrize("name", sorted(KINDS))
def test_every_kinds_largest_payload_fits_its_judgments_body(name):
    """Every payload list at its cap at once, and a payload padded to the byte cap,
    sent as Python's json.dumps writes it by default (white space after , and :),
    parse within the limit of the kind's judgment body."""
    spec = KINDS[name]
    limits = spec.data.limits
    limit = bodies.payload_limit(spec, "a judgment")
    wanted = {path: cap if path.startswith("payload.") else 1 for path, cap in limits.lists.items()}
    _, payload = spec.examples.sized(wanted)
    body = json.dumps({"payload": payload, "status": "submitted", "version": 12, "active_ms": 600_000}).encode()
    assert len(body) <= limit.bytes
    assert jsonsafe.loads(body, max_containers=limit.containers)["payload"] == payload
    padded = {**payload, "x": "a" * (limits.payload_bytes - payload_bytes(payload) - len(',"x":""'))}
    assert payload_bytes(padded) == limits.payload_bytes
    body = json.dumps({"payload": padded, "status": "submitted", "version": 12, "active_ms": 600_000}).encode()
    assert len(body) <= limit.bytes


# -- UTF-8 only, each key once ----------------------------------------------------------------

DRAFT = {"payload": {"matches": {"c1": True}}, "status": "draft", "version": 0}


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (codecs.BOM_UTF16_LE + json.dumps(DRAFT).encode("utf-16-le"), "UTF-16 LE text (by its byte-order mark)"),
        (codecs.BOM_UTF16_BE + json.dumps(DRAFT).encode("utf-16-be"), "UTF-16 BE text (by its byte-order mark)"),
        (codecs.BOM_UTF32_LE + json.dumps(DRAFT).encode("utf-32-le"), "UTF-32 LE text (by its byte-order mark)"),
        (codecs.BOM_UTF32_BE + json.dumps(DRAFT).encode("utf-32-be"), "UTF-32 BE text (by its byte-order mark)"),
        (json.dumps(DRAFT).encode("utf-16-le"), "looks like UTF-16 without a byte-order mark"),
    ],
    ids=["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "utf-16-no-bom"],
)
def test_a_json_body_in_utf16_or_utf32_is_refused(people, every_kind, raw, words):
    response = token_client(people["alice"]).generic(
        "PUT", judgment_url(every_kind["pairs"]), raw, content_type="application/json"
    )
    assert response.status_code == 400, response.content[:200]
    assert response.json()["field"] == "body" and words in response.json()["detail"]
    assert not Judgment.objects.exists()


def test_a_json_body_in_utf8_with_or_without_a_byte_order_mark_is_read(people, every_kind):
    client = token_client(people["alice"])
    url = judgment_url(every_kind["pairs"])
    plain = client.generic("PUT", url, json.dumps(DRAFT).encode(), content_type="application/json")
    assert plain.status_code == 200, plain.content[:200]
    marked = {**DRAFT, "version": 1, "payload": {"matches": {"c1": False}}}
    response = client.generic(
        "PUT", url, codecs.BOM_UTF8 + json.dumps(marked).encode(), content_type="application/json; charset=utf-8"
    )
    assert response.status_code == 200, response.content[:200]


def test_a_json_body_declared_in_another_charset_is_refused(people, every_kind):
    response = token_client(people["alice"]).generic(
        "PUT",
        judgment_url(every_kind["pairs"]),
        json.dumps(DRAFT).encode(),
        content_type="application/json; charset=utf-16",
    )
    assert response.status_code == 400
    assert response.json() == {
        "detail": "Content-Type says charset=utf-16: JSON is read as UTF-8 only",
        "field": "body",
    }


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ('{"payload": {"matches": {"c1": true, "c1": false}}, "status": "draft", "version": 0}', "payload.matches.c1"),
        ('{"payload": {"matches": {"c1": true}}, "status": "submitted", "status": "draft", "version": 0}', "status"),
    ],
)
def test_a_key_twice_in_one_object_is_refused_naming_it(people, every_kind, body, field):
    response = token_client(people["alice"]).generic(
        "PUT", judgment_url(every_kind["pairs"]), body.encode(), content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json() == {"detail": "appears twice in one object (JSON keys must be unique)", "field": field}
    assert not JudgmentRevision.objects.exists()


def test_a_key_twice_in_an_uploaded_json_file_is_refused_naming_it(people, every_kind):
    topics = '[{"external_id": "t9", "data": {"query": "q", "query": "r", "candidates": [{"id": "a", "text": "b"}]}}]'
    upload = io.BytesIO(topics.encode())
    upload.name = "topics.json"
    response = token_client(people["organiser"]).post(
        resolve("{pairs}/topics/", every_kind), {"file": upload}, format="multipart"
    )
    assert response.status_code == 400
    assert response.json()["field"] == "file[0].data.query"
    assert not every_kind["pairs"].topics.filter(external_id="t9").exists()
