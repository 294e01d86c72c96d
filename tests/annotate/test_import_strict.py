"""Imports: what an import does not understand it refuses,
naming the line or field, and writes nothing.

Header-only CSV files, unknown or repeated CSV columns, rows longer than the
header, unknown fields beside ``topics`` / ``runs`` / ``judgments`` / the
multipart file, pairs runs naming unknown queries, reference runs with
malformed ``labels``, and runs for kinds that score none.
"""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from annotate.imports import read
from annotate.imports.write import import_crowd_file, import_runs, import_topics
from annotate.models import Assignment, Campaign, Judgment, JudgmentRevision, Membership, Run, Topic
from annotate.services.campaigns import create_campaign
from concord.errors import InvalidInput
from kinds.pairs.pools import build_pools

pytestmark = pytest.mark.django_db

MODELS = [get_user_model(), Campaign, Membership, Topic, Assignment, Judgment, JudgmentRevision, Run]
CANDIDATES = [{"id": f"c{c}", "text": f"Candidate {c}"} for c in range(1, 5)]


def counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in MODELS}


@pytest.fixture
def unchanged():
    before = counts()
    yield
    assert counts() == before


def post_file(api, user, url: str, text: str, name: str, **fields):
    handle = io.BytesIO(text.encode())
    handle.name = name
    return api(user).post(url, {"file": handle, **fields}, format="multipart")


def refused(*args) -> str:
    with pytest.raises(CommandError) as error:
        call_command(*map(str, args), stdout=io.StringIO(), stderr=io.StringIO())
    return str(error.value)


def write(tmp_path, name: str, text: str) -> str:
    (tmp_path / name).write_text(text)
    return str(tmp_path / name)


@pytest.fixture
def ordering(people):
    campaign = create_campaign(creator=people["organiser"], kind="ordering", name="O", overlap=1)
    import_topics(
        campaign=campaign, topics=[{"external_id": "t1", "data": {"items": [{"id": i, "text": i} for i in "abc"]}}]
    )
    return campaign


@pytest.fixture
def clustering(people):
    campaign = create_campaign(creator=people["organiser"], kind="clustering", name="C", overlap=1)
    import_topics(
        campaign=campaign,
        topics=[
            {
                "external_id": "t1",
                "data": {
                    "documents": [{"id": "d1"}, {"id": "d2"}],
                    "sentences": [
                        {"id": "s1", "document": "d1", "position": 1, "text": "A"},
                        {"id": "s2", "document": "d2", "position": 1, "text": "B"},
                    ],
                },
            }
        ],
    )
    return campaign


# -- header-only files ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "header",
    ["worker,topic,candidate,label", "worker,item,label", "!amt_worker_ids,orig_id,response,gold,text,hypothesis"],
)
def test_a_header_only_crowd_csv_is_refused(api, people, campaign, unchanged, header):
    response = post_file(
        api, people["organiser"], f"/api/campaigns/{campaign.pk}/judgments/import/", header + "\n", "crowd.csv"
    )
    assert response.status_code == 400
    assert response.json() == {"field": "file", "detail": "no rows: the file has a header and nothing else"}


def test_a_header_only_crowd_csv_is_refused_by_the_command(campaign, tmp_path, unchanged):
    message = refused("import_judgments", campaign.pk, write(tmp_path, "crowd.csv", "worker,item,label\n"))
    assert "file: no rows" in message


@pytest.mark.parametrize("header", ["topic,run,order", "topic,run,sentence,cluster"])
def test_a_header_only_runs_csv_is_refused(ordering, clustering, tmp_path, unchanged, header):
    campaign = clustering if "sentence" in header else ordering
    assert "file: no rows" in refused("import_runs", campaign.pk, write(tmp_path, "runs.csv", header + "\n"))


def test_an_empty_squality_file_is_refused(ordering, tmp_path, unchanged):
    assert "file: no rows" in refused("import_judgments", ordering.pk, write(tmp_path, "all.jsonl", "\n\n"))


# -- CSV columns ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("worker,topic,candidate,label,confidence\nw1,q1,c1,1,0.9\n", "confidence"),
        ("worker,item,label,notes\nw1,i1,1,x\n", "notes"),
        ("!amt_worker_ids,orig_id,response,gold,text,hypothesis,secret\nw1,1,1,1,T,H,x\n", "secret"),
        ("worker,topic,candidate,label,\nw1,q1,c1,1,\n", "''"),
    ],
    ids=["generic", "items", "crowdtruth", "empty-name"],
)
def test_unknown_crowd_csv_columns_are_refused_by_name(api, people, campaign, unchanged, text, named):
    response = post_file(api, people["organiser"], f"/api/campaigns/{campaign.pk}/judgments/import/", text, "crowd.csv")
    assert response.status_code == 400
    assert response.json()["field"] == "file"
    assert response.json()["detail"].startswith("unknown column") and named in response.json()["detail"]


def test_a_repeated_column_is_refused(campaign, unchanged):
    with pytest.raises(InvalidInput) as error:
        read.read_crowd_csv("worker,topic,candidate,label,label\nw1,q1,c1,1,0\n")
    assert error.value.field == "file" and "label" in error.value.message and "twice" in error.value.message


def test_a_row_longer_than_the_header_is_refused_with_its_line(campaign, unchanged):
    with pytest.raises(InvalidInput) as error:
        read.read_crowd_csv("worker,topic,candidate,label\nw1,q1,c1,1\nw1,q1,c2,0,oops\n")
    assert error.value.field == "line 3" and "5 fields" in error.value.message


def test_the_snow_files_columns_are_known():
    for header in (
        "!amt_annotation_ids,!amt_worker_ids,orig_id,response,gold,start,end,hypothesis,task,text",
        "!amt_annotation_ids,!amt_worker_ids,orig_id,response,gold,start,end,event1,event2,text",
    ):
        crowd = read.read_crowd_csv(
            header + "\n" + ",".join(["1", "w1", "7", "1", "1", "a", "b", "c", "d", "e"]) + "\n"
        )
        assert len(crowd.labels) == 1


@pytest.mark.parametrize(
    ("text", "field", "named"),
    [
        ("topic,run,order,score\nt1,s,a b c,1\n", "file", "score"),
        ("topic,run,sentence,cluster,weight\nt1,s,s1,A,1\n", "file", "weight"),
        ("topic,run,sentence\nt1,s,s1\n", "file", "cluster"),
        ("topic,run,order\nt1,s,a b c,extra\n", "line 2", "4 fields"),
    ],
    ids=["ordering-unknown", "clustering-unknown", "clustering-missing", "long-row"],
)
def test_runs_csv_columns(api, people, ordering, clustering, unchanged, text, field, named):
    # Runs are read as the campaign's kind reads them (KindSpec.runs_csv).
    campaign = clustering if "sentence" in text.split("\n", 1)[0] else ordering
    response = post_file(api, people["organiser"], f"/api/campaigns/{campaign.pk}/runs/", text, "runs.csv")
    assert response.status_code == 400
    assert response.json()["field"] == field and named in response.json()["detail"]


# -- unknown JSON fields -------------------------------------------------------------------------------


def pairs_topic(external_id: str = "z1") -> dict:
    return {"external_id": external_id, "data": {"query": "Q", "candidates": [{"id": "a", "text": "A"}]}}


def test_topics_body_with_an_unknown_field_is_refused(api, people, campaign, unchanged):
    response = api(people["organiser"]).post(
        f"/api/campaigns/{campaign.pk}/topics/", {"topics": [pairs_topic()], "x": 1}, format="json"
    )
    assert response.status_code == 400 and response.json()["field"] == "body.x"


def test_topics_body_object_without_topics_is_refused(api, people, campaign, unchanged):
    response = api(people["organiser"]).post(f"/api/campaigns/{campaign.pk}/topics/", {"x": 1}, format="json")
    assert response.status_code == 400 and response.json()["field"] in {"body.x", "body.topics"}


def test_topics_file_with_an_unknown_field_is_refused(api, people, campaign, unchanged):
    text = json.dumps({"topics": [pairs_topic()], "x": 1})
    response = post_file(api, people["organiser"], f"/api/campaigns/{campaign.pk}/topics/", text, "topics.json")
    assert response.status_code == 400 and response.json()["field"] == "file.x"


def test_runs_file_with_an_unknown_field_is_refused(api, people, ordering, unchanged):
    text = json.dumps({"runs": [{"name": "s", "data": {"orderings": {"t1": ["a", "b", "c"]}}}], "x": 1})
    response = post_file(api, people["organiser"], f"/api/campaigns/{ordering.pk}/runs/", text, "runs.json")
    assert response.status_code == 400 and response.json()["field"] == "file.x"


def test_judgments_file_with_an_unknown_field_is_refused(ordering, tmp_path, unchanged):
    text = json.dumps({"judgments": [{"assessor": "w1", "topic": "t1", "payload": {"order": ["a", "b", "c"]}}], "x": 1})
    assert "file.x: unknown field" in refused("import_judgments", ordering.pk, write(tmp_path, "j.json", text))


@pytest.mark.parametrize("url", ["judgments/import/", "topics/", "runs/"])
def test_unknown_multipart_fields_are_refused(api, people, campaign, unchanged, url):
    text = "worker,item,label\nw1,i1,1\n" if url.startswith("judgments") else "[]"
    response = post_file(api, people["organiser"], f"/api/campaigns/{campaign.pk}/{url}", text, "f.csv", postive="yes")
    assert response.status_code == 400 and response.json()["field"] == "postive"


# -- runs: pairs results and references, kinds without runs --------------------------------------------


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"results": {"nope": [{"id": "c1", "text": "Candidate 1"}]}}, "runs[0].data.results.nope"),
        ({"reference": True, "labels": {"nope": {"c1": True}}}, "runs[0].data.labels.nope"),
        ({"reference": True, "labels": {"q1": {"c9": True}}}, "runs[0].data.labels.q1.c9"),
        ({"reference": True, "labels": {"q1": {"c1": "yes"}}}, "runs[0].data.labels.q1.c1"),
        ({"reference": True, "labels": {"q1": [True]}}, "runs[0].data.labels.q1"),
        ({"reference": True, "labels": {}}, "runs[0].data.labels"),
    ],
    ids=[
        "unknown-query",
        "labels-unknown-topic",
        "labels-unknown-candidate",
        "labels-not-bool",
        "labels-not-object",
        "labels-empty",
    ],
)
def test_pairs_runs_are_checked_against_the_topics(api, people, campaign, unchanged, data, field):
    response = api(people["organiser"]).post(
        f"/api/campaigns/{campaign.pk}/runs/", [{"name": "s", "data": data}], format="json"
    )
    assert response.status_code == 400 and response.json()["field"] == field, response.json()


def test_pairs_results_outside_the_pool_are_kept(campaign):
    """A system's exact matches and deeper results are not in the pool: stored, not scored."""
    data = {"results": {"q1": [{"id": "c1", "text": "Candidate 1.1"}, {"id": "rec99", "text": "Name 1"}], "q2": []}}
    (run,) = import_runs(campaign=campaign, runs=[{"name": "s", "data": data}])
    assert run.data == data


def test_pools_keep_building_when_a_query_pools_nothing(campaign):
    runs = [
        {
            "name": "s1",
            "data": {
                "results": {
                    "p1": [{"id": "x", "text": "Ann Lee"}],
                    "p2": [{"id": "y", "text": "Bo Chen"}, {"id": "z", "text": "Bob Chen"}],
                }
            },
        }
    ]
    topics = build_pools(campaign=campaign, queries={"p1": "Ann Lee", "p2": "Bo Chen"}, runs=runs)
    assert [t.external_id for t in topics] == ["p2"]
    assert Run.objects.get(campaign=campaign, name="s1").data["results"]["p2"][1]["id"] == "z"


def test_factoid_campaigns_take_no_runs(api, people):
    campaign = create_campaign(creator=people["organiser"], kind="factoids", name="F", overlap=1)
    before = counts()
    response = api(people["organiser"]).post(
        f"/api/campaigns/{campaign.pk}/runs/", [{"name": "s", "data": {"anything": 1}}], format="json"
    )
    assert response.status_code == 400 and response.json()["field"] == "runs[0].data"
    assert counts() == before


def test_crowdtruth_gold_is_a_valid_reference(campaign):
    crowd = read.read_crowd_csv("!amt_worker_ids,orig_id,response,gold,text,hypothesis\nw1,i1,1,0,T,H\n")
    import_crowd_file(campaign=campaign, topics=crowd.topics, labels=crowd.labels, reference=crowd.reference)
    assert Run.objects.get(campaign=campaign, name="gold").data == {
        "reference": True,
        "labels": {"i1": {"item": False}},
    }


def test_a_runs_csv_field_over_the_csv_limit_names_its_line(people, ordering, unchanged):
    def signed_in(user) -> APIClient:  # a body over 64 KiB only from someone signed in (concord.security)
        client = APIClient()
        client.force_login(user)
        return client

    text = 'topic,run,order\nt1,s,a b c\nt1,t,"' + "x" * 200_000 + '"\n'
    response = post_file(signed_in, people["organiser"], f"/api/campaigns/{ordering.pk}/runs/", text, "runs.csv")
    assert response.status_code == 400 and response.json()["field"] == "line 3"
