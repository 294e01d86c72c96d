"""Topic ids "." and ".." are refused on every way in.

In a link (/campaigns/1/topics/../judge/) a browser resolves them as path
segments and lands on another page, so no topic may be called that. Every
import path checks ids with kinds.base.require_id: the topics API,
import_topics, crowd files that create topics, import_judgments JSON, pools,
and import_campaign. Nothing is written when one is refused."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from annotate.imports.backup import dump_campaign
from annotate.models import Campaign, Judgment, Topic
from concord.errors import InvalidInput
from kinds.base import require_id
from kinds.pairs.pools import build_pools

pytestmark = pytest.mark.django_db

DOTS = [".", ".."]


def topic(external_id: str) -> dict:
    return {"external_id": external_id, "data": {"query": "Q", "candidates": [{"id": "c1", "text": "C"}]}}


def test_require_id_refuses_dot_segments():
    for bad in DOTS:
        with pytest.raises(InvalidInput, match="'.' and '..'"):
            require_id(bad, "external_id")
    assert [require_id(ok, "id") for ok in ("...", ".a", "a.", "1.1", "a..b")] == ["...", ".a", "a.", "1.1", "a..b"]


@pytest.mark.parametrize("bad", DOTS)
def test_the_topics_api_refuses_them(api, people, campaign, bad):
    before = Topic.objects.count()
    client = api(people["organiser"])
    url = f"/api/campaigns/{campaign.pk}/topics/"
    for body in ([topic("fine"), topic(bad)], {"topics": [topic(bad)]}):
        response = client.post(url, body, format="json")
        assert response.status_code == 400, response.content
        assert response.json()["field"] in ("topics[1].external_id", "topics[0].external_id")
    upload = SimpleUploadedFile("topics.json", json.dumps([topic(bad)]).encode(), content_type="application/json")
    response = client.post(url, {"file": upload}, format="multipart")
    assert response.status_code == 400 and response.json()["field"] == "topics[0].external_id"
    assert Topic.objects.count() == before


@pytest.mark.parametrize("bad", DOTS)
def test_import_topics_refuses_them(campaign, tmp_path, bad):
    before = Topic.objects.count()
    path = tmp_path / "topics.json"
    path.write_text(json.dumps([topic("fine"), topic(bad)]))
    with pytest.raises(CommandError, match=r"topics\[1\]\.external_id"):
        call_command("import_topics", campaign.pk, str(path))
    assert Topic.objects.count() == before


@pytest.mark.parametrize("bad", DOTS)
def test_crowd_files_that_create_topics_refuse_them(api, people, campaign, tmp_path, bad):
    before = (Topic.objects.count(), Judgment.objects.count())
    # CrowdTruth files make a topic of every orig_id.
    text = f"!amt_worker_ids,orig_id,response\nw1,fine,1\nw1,{bad},0\n"
    response = api(people["organiser"]).post(
        f"/api/campaigns/{campaign.pk}/judgments/import/",
        {"file": SimpleUploadedFile("crowd.csv", text.encode(), content_type="text/csv")},
        format="multipart",
    )
    assert response.status_code == 400 and response.json()["field"] == "line 3: orig_id"
    path = tmp_path / "crowd.csv"
    path.write_text(text)
    with pytest.raises(CommandError, match=r"line 3: orig_id.*'\.' and '\.\.'"):
        call_command("import_judgments", campaign.pk, str(path))
    assert (Topic.objects.count(), Judgment.objects.count()) == before


@pytest.mark.parametrize("bad", DOTS)
def test_import_campaign_refuses_them(campaign, tmp_path, bad):
    document = dump_campaign(campaign)
    document["topics"][1]["external_id"] = bad
    path = tmp_path / "backup.json"
    path.write_text(json.dumps(document))
    before = (Campaign.objects.count(), Topic.objects.count())
    with pytest.raises(CommandError, match=r"file\.topics\[1\]\.external_id"):
        call_command("import_campaign", str(path))
    assert (Campaign.objects.count(), Topic.objects.count()) == before
    document["topics"][1]["external_id"] = "q2"
    path.write_text(json.dumps(document))
    call_command("import_campaign", str(path), stdout=open("/dev/null", "w"))
    assert Campaign.objects.count() == before[0] + 1


def test_pools_refuse_them_as_query_ids(campaign):
    before = Topic.objects.count()
    runs = [{"name": "sysA", "data": {"results": {"..": [{"id": "r1", "text": "x"}]}}}]
    with pytest.raises(InvalidInput) as error:
        build_pools(campaign=campaign, queries={"..": "Some name"}, runs=runs)
    assert error.value.field == "queries..."
    assert Topic.objects.count() == before
