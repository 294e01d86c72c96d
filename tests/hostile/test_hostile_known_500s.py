"""Requests found by the hostile tests to answer 500, each a 4xx; once named where it broke
(reported; the fixes are outside the files of tests/hostile). When one is
fixed its test XPASSes, which fails the run: then drop its mark, and it stays
as a regression test that the answer is a 4xx."""

from __future__ import annotations

import io

import pytest
from hostile_samples import PAYLOADS

from annotate.models import Topic
from annotate.services.judgments import save_judgment

pytestmark = pytest.mark.django_db


def upload(name: str, content: bytes) -> io.BytesIO:
    file = io.BytesIO(content)
    file.name = name
    return file


def known(reason: str):
    return pytest.mark.xfail(strict=True, reason=reason)


CASES = [
    pytest.param(
        "organiser", "post", "/api/campaigns/", {"kind": ["pairs"], "name": "x"}, "json", id="campaign-kind-a-list"
    ),
    pytest.param(
        "organiser", "post", "/api/campaigns/", {"kind": "pairs", "name": "x"}, "multipart", id="campaign-as-multipart"
    ),
    pytest.param(
        "alice",
        "put",
        "{nuggets}/topics/t1/judgment/",
        {"payload": {"matches": {"r1": [{}]}}, "status": "draft", "version": 0},
        "json",
        id="nuggets-match-an-object",
    ),
    pytest.param(
        "alice",
        "put",
        "{factoids}/topics/t1/judgment/",
        {"payload": {"factoids": [], "marks": {"x1": [[1]]}}, "status": "draft", "version": 0},
        "json",
        id="factoids-mark-a-list",
    ),
    pytest.param(
        "organiser",
        "put",
        "{factoids}/topics/t1/curations/consensus/",
        {"data": {"factoids": [], "marks": {"x1": [{}]}}, "version": 0},
        "json",
        id="consensus-mark-an-object",
    ),
    pytest.param(
        "organiser",
        "put",
        "{factoids}/topics/t1/curations/relations/",
        {"data": {"pairs": {"alice|bob": [{"first": [{}], "second": ["F1"]}]}}, "version": 0},
        "json",
        id="relations-an-object",
    ),
    pytest.param(
        "organiser",
        "post",
        "{clustering}/topics/",
        [
            {
                "external_id": "z",
                "data": {
                    "documents": [{"id": "d1"}],
                    "sentences": [
                        {"id": "a", "document": [], "position": 0, "text": "x"},
                        {"id": "b", "document": "d1", "position": 1, "text": "y"},
                    ],
                },
            }
        ],
        "json",
        id="clustering-document-a-list",
    ),
    pytest.param(
        "organiser",
        "post",
        "{pairs}/runs/",
        {"file": b'[{"name": "r", "data": {"results": {"t1": [{"id": "c1", "text": "x", "score": 1e400}]}}}]'},
        "runs.json",
        id="runs-file-infinite-score",
    ),
    pytest.param(
        "organiser",
        "post",
        "{ordering}/judgments/import/",
        {"file": b'{"passage-id": 1, "questions": {"1": "no answers"}}\n'},
        "all-responses.jsonl",
        id="squality-answers-not-an-object",
    ),
    pytest.param(
        "organiser",
        "post",
        "{pairs}/judgments/import/",
        {"file": b"worker,topic,candidate,label\nw1,t1\n"},
        "crowd.csv",
        id="crowd-csv-short-row",
    ),
]


@pytest.mark.parametrize(("who", "method", "url", "data", "how"), CASES)
def test_hostile_requests_get_a_4xx(api, people, every_kind, who, method, url, data, how):
    factoids = Topic.objects.get(campaign=every_kind["factoids"])
    for name in ("alice", "bob"):
        save_judgment(
            topic=factoids, assessor=people[name], payload=PAYLOADS["factoids"], status="submitted", version=0
        )
    url = url.format(**{kind: f"/api/campaigns/{campaign.pk}" for kind, campaign in every_kind.items()})
    client = api(people[who])
    client.raise_request_exception = False
    if how in ("json", "multipart"):
        response = getattr(client, method)(url, data, format=how)
    else:
        response = getattr(client, method)(url, {"file": upload(how, data["file"])}, format="multipart")
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:200])
