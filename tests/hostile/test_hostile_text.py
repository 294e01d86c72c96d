"""Bad text: lone surrogates and NUL characters in any
JSON body, JSON/JSONL upload or text file get a 400 naming where they are,
and nothing is written; text already stored (bypassing the API) can always
be answered; ids equal after Unicode normalisation are duplicates.

A lone surrogate ("\\ud800" in JSON) is not Unicode text: it cannot be
encoded as UTF-8, so it can be neither answered nor stored in PostgreSQL.
"""

from __future__ import annotations

import io
import json
import unicodedata

import pytest
from django.db import connection
from django.test import Client
from hostile_samples import PAYLOADS, hostile_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
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

BAD = "\ud800"  # a lone (high) surrogate


def counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (Campaign, Topic, Run, Judgment, JudgmentRevision, Membership, Curation, Job)
    }


def as_json(value) -> str:
    """The body as a client sends it: json.dumps escapes the surrogate (``"\\ud800"``)."""
    return json.dumps(value)


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


# -- every JSON body field type -------------------------------------------------------------


def judgment(body):
    return {"payload": body, "status": "draft", "version": 0}


# (who, method, url, body, the field named); {kind} is /api/campaigns/<id of that kind's campaign>
BODIES = [
    ("alice", "put", "{pairs}/topics/t1/judgment/", judgment({"matches": {"c1": BAD}}), "payload.matches.c1"),
    (
        "alice",
        "put",
        "{pairs}/topics/t1/judgment/",
        judgment({"matches": {"c7" + BAD: True}}),
        "payload.matches.c7\\ud800",
    ),
    ("alice", "put", "{ordering}/topics/t1/judgment/", judgment({"order": ["b", "a" + BAD, "c"]}), "payload.order[1]"),
    (
        "alice",
        "put",
        "{factoids}/topics/t1/judgment/",
        judgment({"factoids": [{"id": "F1", "text": "Iraq " + BAD}], "marks": {}}),
        "payload.factoids[0].text",
    ),
    (
        "alice",
        "put",
        "{clustering}/topics/t1/judgment/",
        judgment({"clusters": [["s1", "s3"], ["s2", "s4"]], "descriptions": [BAD, "x"]}),
        "payload.descriptions[0]",
    ),
    ("alice", "put", "{nuggets}/topics/t1/judgment/", judgment({"labels": {"n1": "vital" + BAD}}), "payload.labels.n1"),
    (
        "alice",
        "put",
        "{pairs}/topics/t1/judgment/",
        {"payload": {"matches": {}}, "status": "draft" + BAD, "version": 0},
        "status",
    ),
    ("organiser", "post", "/api/campaigns/", {"kind": "pairs", "name": "Names " + BAD}, "name"),
    ("organiser", "post", "/api/campaigns/", {"kind": "pairs", "name": "x", "guidelines": BAD}, "guidelines"),
    (
        "organiser",
        "post",
        "/api/campaigns/",
        {"kind": "pairs", "name": "x", "params": {"scope": [BAD]}},
        "params.scope[0]",
    ),
    ("organiser", "post", "/api/campaigns/", {"kind": BAD, "name": "x"}, "kind"),
    (
        "organiser",
        "post",
        "{pairs}/topics/",
        [{"external_id": "t" + BAD, "data": {"query": "q", "candidates": [{"id": "a", "text": "b"}]}}],
        "[0].external_id",
    ),
    (
        "organiser",
        "post",
        "{pairs}/topics/",
        {
            "topics": [
                {"external_id": "t9", "title": BAD, "data": {"query": "q", "candidates": [{"id": "a", "text": "b"}]}}
            ]
        },
        "topics[0].title",
    ),
    (
        "organiser",
        "post",
        "{pairs}/topics/",
        [{"external_id": "t9", "data": {"query": "q", "candidates": [{"id": "a", "text": "b" + BAD}]}}],
        "[0].data.candidates[0].text",
    ),
    (
        "organiser",
        "post",
        "{ordering}/runs/",
        [{"name": "sys" + BAD, "data": {"orderings": {"t1": ["a", "b", "c"]}}}],
        "[0].name",
    ),
    (
        "organiser",
        "post",
        "{ordering}/runs/",
        [{"name": "sys", "data": {"orderings": {"t1": ["a", "b", BAD]}}}],
        "[0].data.orderings.t1[2]",
    ),
    ("organiser", "post", "{pairs}/members/", {"username": "carol" + BAD, "role": "assessor"}, "username"),
    ("organiser", "post", "{pairs}/members/", {"username": "carol", "role": BAD}, "role"),
    ("organiser", "post", "{pairs}/analyses/", {"analysis": "agreement", "params": {"note": BAD}}, "params.note"),
    ("organiser", "post", "{pairs}/analyses/", {"analysis": BAD}, "analysis"),
    ("organiser", "post", "{pairs}/pools/", {"queries": {"q1": "Smith" + BAD}, "runs": []}, "queries.q1"),
    ("organiser", "post", "{factoids}/phase/", {"phase": BAD}, "phase"),
    (
        "organiser",
        "put",
        "{factoids}/topics/t1/curations/consensus/",
        {"data": {"factoids": [{"id": "F1", "text": BAD}], "marks": {}}, "version": 0},
        "data.factoids[0].text",
    ),
    (None, "post", "/api/auth/token/", {"username": "alice" + BAD, "password": "pw-alice"}, "username"),
]


@pytest.mark.parametrize("bad", [BAD, "\udfff", "\x00"], ids=["high-surrogate", "low-surrogate", "nul"])
@pytest.mark.parametrize(
    ("who", "method", "url", "data", "field"), BODIES, ids=[f"{b[1]} {b[2]} {b[4]}" for b in BODIES]
)
def test_bad_text_in_any_json_body_is_refused_naming_the_path(
    api, people, every_kind, who, method, url, data, field, bad
):
    url = url.format(**{kind: f"/api/campaigns/{campaign.pk}" for kind, campaign in every_kind.items()})
    text = as_json(data).replace("\\ud800", json.dumps(bad)[1:-1])
    field = field.replace("\\ud800", json.dumps(bad)[1:-1])
    client = client_for(people[who] if who else None)
    before = counts()
    response = getattr(client, method)(url, text, content_type="application/json")
    assert response.status_code == 400, (response.status_code, response.content[:300])
    assert response.json()["field"] == field
    assert counts() == before


def test_the_message_says_what_is_wrong(api, people, every_kind):
    client = client_for(people["alice"])
    url = f"/api/campaigns/{every_kind['pairs'].pk}/topics/t1/judgment/"
    response = client.put(url, as_json(judgment({"matches": {"c1": BAD}})), content_type="application/json")
    assert "surrogate" in response.json()["detail"] and "UTF-8" in response.json()["detail"]
    response = client.put(url, as_json(judgment({"matches": {"c1": "\x00"}})), content_type="application/json")
    assert "NUL" in response.json()["detail"]


def test_bytes_that_are_not_utf8_are_refused(api, people, every_kind):
    """A surrogate encoded directly (CESU-style bytes ED A0 80) is not UTF-8 either."""
    before = counts()
    body = b'{"kind": "pairs", "name": "a\xed\xa0\x80"}'
    response = client_for(people["organiser"]).post("/api/campaigns/", body, content_type="application/json")
    assert response.status_code == 400 and response.json()["field"] == "body"
    assert "UTF-8" in response.json()["detail"]
    assert counts() == before


def test_a_valid_surrogate_pair_is_ordinary_text(api, people, every_kind):
    """An escaped pair (\\ud83d\\ude00) is one character, U+1F600: accepted."""
    body = '{"kind": "pairs", "name": "Smile \\ud83d\\ude00"}'
    response = client_for(people["organiser"]).post("/api/campaigns/", body, content_type="application/json")
    assert response.status_code == 201
    assert Campaign.objects.get(pk=response.json()["id"]).name == "Smile \U0001f600"


# -- uploaded files ---------------------------------------------------------------------------


def test_json_and_jsonl_uploads_name_the_path(api, people, every_kind):
    client = client_for(people["organiser"])
    topics = as_json(
        [{"external_id": "t9", "title": BAD, "data": {"query": "q", "candidates": [{"id": "a", "text": "b"}]}}]
    )
    runs = as_json([{"name": "r", "data": {"orderings": {"t1": ["a", "b", "c" + BAD]}}}])
    judgments = as_json([{"assessor": "ann", "topic": "t1", "payload": {"order": ["a", "b", "c"], "x": BAD}}])
    squality = (
        as_json({"passage-id": 1, "questions": {}})
        + "\n"
        + as_json({"passage-id": 2, "questions": {"1": {"bart": {"response": BAD, "reviews": []}}}})
        + "\n"
    )
    cases = [
        ("pairs", "topics/", "topics.json", topics, "file[0].title"),
        ("ordering", "runs/", "runs.json", runs, "file[0].data.orderings.t1[2]"),
        ("ordering", "judgments/import/", "judgments.json", judgments, "file[0].payload.x"),
        ("ordering", "judgments/import/", "all-responses.jsonl", squality, "line 2: questions.1.bart.response"),
    ]
    for kind, path, name, content, field in cases:
        before = counts()
        response = client.post(
            f"/api/campaigns/{every_kind[kind].pk}/{path}", {"file": upload(name, content.encode())}, format="multipart"
        )
        assert response.status_code == 400, (name, response.content[:300])
        assert response.json()["field"] == field, name
        assert counts() == before, name


CSV = "worker,topic,candidate,label\nw1,t1,c1,1\nw1,t1,c2,0\nw1,t1,c3,1\nw2,t1,c1,0\nw2,t1,c2,0\nw2,t1,c3,1\nw1,t1,c4,1\nw2,t1,c4,0\n"


def test_text_files_not_utf8_name_the_line(api, people, every_kind):
    client = client_for(people["organiser"])
    url = f"/api/campaigns/{every_kind['pairs'].pk}/judgments/import/"
    for content, field, words in [
        (CSV.replace("w2", "w\u00e92").encode("latin-1"), "line 5", "not UTF-8"),
        (CSV.encode().replace(b"w2", b"w\xed\xa0\x802"), "line 5", "not UTF-8"),  # an encoded surrogate
        (CSV.replace("w2", "w\x002").encode(), "line 5", "NUL"),
        (CSV.encode("utf-16-le"), "line 1", "not UTF-8"),  # UTF-16 without a byte-order mark
    ]:
        before = counts()
        response = client.post(url, {"file": upload("crowd.csv", content)}, format="multipart")
        assert response.status_code == 400, (content[:40], response.content[:300])
        assert response.json()["field"] == field, content[:40]
        assert words in response.json()["detail"], response.json()
        assert counts() == before


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-le", "utf-16-be"])
def test_utf8_with_a_bom_and_utf16_with_a_bom_are_read(api, people, every_kind, encoding):
    content = CSV.encode(encoding)
    if encoding in ("utf-16-le", "utf-16-be"):  # these codecs write no byte-order mark: add it
        content = "\ufeff".encode(encoding) + content
    response = client_for(people["organiser"]).post(
        f"/api/campaigns/{every_kind['pairs'].pk}/judgments/import/",
        {"file": upload("crowd.csv", content)},
        format="multipart",
    )
    assert response.status_code == 201, response.content[:300]
    assert Judgment.objects.filter(assessor__username__in=["w1", "w2"]).count() == 2


def test_the_topic_import_command_refuses_a_surrogate(people, every_kind, tmp_path):
    from django.core.management import CommandError, call_command

    file = tmp_path / "topics.json"
    file.write_text(
        as_json([{"external_id": "t9", "title": BAD, "data": {"query": "q", "candidates": [{"id": "a", "text": "b"}]}}])
    )
    before = counts()
    with pytest.raises(CommandError, match=r"file\[0\]\.title"):
        call_command("import_topics", str(every_kind["pairs"].pk), str(file))
    assert counts() == before


def test_the_create_campaign_command_refuses_a_surrogate_in_params(people):
    from django.core.management import CommandError, call_command

    before = counts()
    with pytest.raises(CommandError, match=r"params\.x"):
        call_command("create_campaign", "pairs", "x", "--organiser", "organiser", "--params", '{"x": "\\ud800"}')
    assert counts() == before


def test_command_arguments_are_checked_too(people):
    """Text that never was JSON (a command's arguments, which Python decodes
    with surrogate escapes) meets the same check in the services."""
    from django.core.management import CommandError, call_command

    before = counts()
    with pytest.raises(CommandError, match="name: contains a lone surrogate"):
        call_command("create_campaign", "pairs", "Names \udcff", "--organiser", "organiser")
    with pytest.raises(CommandError, match="guidelines: contains a NUL"):
        call_command("create_campaign", "pairs", "Names", "--organiser", "organiser", "--guidelines", "a\x00")
    assert counts() == before


# -- stored text is always answered -----------------------------------------------------------


def test_text_stored_before_the_checks_is_still_answered(api, people, every_kind):
    """A surrogate stored through the ORM (JSON fields keep it escaped on
    SQLite): every GET showing it answers 200, JSON and HTML alike."""
    if connection.vendor == "postgresql":
        pytest.skip("PostgreSQL cannot store a lone surrogate at all")
    campaign = every_kind["factoids"]
    topic = Topic.objects.get(campaign=campaign)
    topic.data = {**topic.data, "text": "Iraq " + BAD}
    topic.save()
    payload = {**PAYLOADS["factoids"], "factoids": [{"id": "F1", "text": "Iraq " + BAD}, {"id": "F2", "text": "x"}]}
    judgment = Judgment.objects.create(
        topic=topic,
        assessor=people["alice"],
        payload=payload,
        status="submitted",
        version=1,
        submitted_version=1,
    )
    JudgmentRevision.objects.create(
        judgment=judgment, version=1, author=people["alice"], payload=payload, status="submitted", source="api"
    )
    Job.objects.create(campaign=campaign, analysis="agreement", params={"note": BAD})
    base = f"/api/campaigns/{campaign.pk}"
    for who, url in [
        ("alice", f"{base}/topics/t1/judgment/"),
        ("alice", f"{base}/topics/"),
        ("organiser", f"{base}/judgments/"),
        ("organiser", f"{base}/topics/"),
        ("admin", f"{base}/export/?format=csv&truth=annotations"),
        ("admin", f"{base}/export/?format=json&truth=annotations"),
    ]:
        response = client_for(people[who]).get(url)
        assert response.status_code == 200, (who, url, response.status_code)
        body = response.content.decode("utf-8")  # valid UTF-8
        assert "\\ud800" in body or "\ufffd" in body, (url, body[:300])
    browser = Client(raise_request_exception=False)
    for who, url in [
        ("alice", f"/campaigns/{campaign.pk}/topics/t1/judge/"),
        ("organiser", f"/campaigns/{campaign.pk}/"),
        ("organiser", f"/campaigns/{campaign.pk}/jobs/"),
        ("admin", f"/admin/annotate/judgment/{judgment.pk}/change/"),
    ]:
        browser.force_login(people[who])
        response = browser.get(url)
        assert response.status_code == 200, (who, url, response.status_code)
        response.content.decode("utf-8")


# -- mixed normalisation forms ------------------------------------------------------------------

NFC = unicodedata.normalize("NFC", "caf\u00e9")
NFD = unicodedata.normalize("NFD", "caf\u00e9")


def test_ids_equal_after_nfc_are_duplicates_in_a_topic(api, people, every_kind):
    assert NFC != NFD
    topic = {
        "external_id": "t9",
        "data": {"query": "q", "candidates": [{"id": NFC, "text": "a"}, {"id": NFD, "text": "b"}]},
    }
    before = counts()
    response = client_for(people["organiser"]).post(
        f"/api/campaigns/{every_kind['pairs'].pk}/topics/", as_json([topic]), content_type="application/json"
    )
    assert response.status_code == 400 and response.json()["field"] == "topics[0].data.candidates[1].id"
    assert "normalis" in response.json()["detail"]
    assert counts() == before


def test_topic_ids_equal_after_nfc_are_duplicates_in_a_campaign(api, people, every_kind):
    client = client_for(people["organiser"])
    url = f"/api/campaigns/{every_kind['pairs'].pk}/topics/"
    data = {"query": "q", "candidates": [{"id": "a", "text": "b"}]}
    assert (
        client.post(url, as_json([{"external_id": NFC, "data": data}]), content_type="application/json").status_code
        == 201
    )
    before = counts()
    response = client.post(url, as_json([{"external_id": NFD, "data": data}]), content_type="application/json")
    assert response.status_code == 400 and response.json()["field"] == "topics[0].external_id"
    assert counts() == before


def test_ids_are_otherwise_kept_as_given(api, people, every_kind):
    topic = {"external_id": NFD, "data": {"query": "q", "candidates": [{"id": NFD, "text": "a"}]}}
    response = client_for(people["organiser"]).post(
        f"/api/campaigns/{every_kind['pairs'].pk}/topics/", as_json([topic]), content_type="application/json"
    )
    assert response.status_code == 201
    assert Topic.objects.get(campaign=every_kind["pairs"], external_id=NFD).data["candidates"][0]["id"] == NFD


# -- the property, with hostile text anywhere -------------------------------------------------------


def plant(value, path: list[int], text: str):
    """``value`` with the string (or key) reached by following ``path`` replaced by ``text``."""
    if isinstance(value, dict):
        if not value:
            return {text: True}
        keys = list(value)
        key = keys[path[0] % len(keys)] if path else keys[0]
        if len(path) <= 1:  # replace the key itself
            return {(text if k == key else k): v for k, v in value.items()}
        return {k: (plant(v, path[1:], text) if k == key else v) for k, v in value.items()}
    if isinstance(value, list):
        if not value:
            return [text]
        index = path[0] % len(value) if path else 0
        return [plant(v, path[1:], text) if i == index else v for i, v in enumerate(value)]
    return text


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(kind=st.sampled_from(sorted(PAYLOADS)), path=st.lists(st.integers(0, 5), max_size=5), text=hostile_text())
def test_hostile_text_anywhere_in_a_payload_is_never_a_500(people_and_campaigns, kind, path, text):
    people, campaigns = people_and_campaigns
    body = judgment(plant(PAYLOADS[kind], path, text))
    before = counts()
    response = client_for(people["alice"]).put(
        f"/api/campaigns/{campaigns[kind].pk}/topics/t1/judgment/", as_json(body), content_type="application/json"
    )
    assert response.status_code < 500, response.content[:300]
    if response.status_code >= 400:
        assert counts() == before
    else:
        stored = Judgment.objects.get(topic__campaign=campaigns[kind], assessor=people["alice"]).payload
        assert "\x00" not in json.dumps(stored) and json.dumps(stored, ensure_ascii=False).encode("utf-8")
        Judgment.objects.filter(topic__campaign=campaigns[kind]).delete()  # the next example starts afresh


@pytest.fixture
def people_and_campaigns(people, every_kind):
    return people, every_kind
