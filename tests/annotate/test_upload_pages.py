"""The uploads page: topics, runs, judgments, pools and the
kinds' own formats, through the API's readers and services, all or nothing,
the importers' line-numbered errors at the form (400)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.imports.write import import_topics
from annotate.models import Judgment, Membership, Run, Topic
from annotate.services.campaigns import create_campaign
from tests.campaigns import pairs_topics

pytestmark = pytest.mark.django_db
User = get_user_model()
DATA = Path(__file__).resolve().parents[2] / "data"
JSON_ACCEPT = {"HTTP_ACCEPT": "application/json"}


def upload(name: str, content: str | bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content.encode() if isinstance(content, str) else content)


def url(campaign) -> str:
    return f"/campaigns/{campaign.pk}/uploads/"


@pytest.fixture
def organiser(client, people):
    client.force_login(people["organiser"])
    return client


def new_campaign(people, kind: str, **params):
    return create_campaign(creator=people["organiser"], kind=kind, name=f"A {kind}", overlap=1, params=params)


def test_the_page_lists_the_formats_of_the_campaigns_kind(organiser, campaign, people):
    page = organiser.get(url(campaign)).content.decode()
    for form in ("topics", "runs", "judgments", "pools"):
        assert f'id="upload-{form}"' in page
    assert "Crowd CSV" in page and 'name="positive"' in page and 'name="map_members"' in page
    assert 'name="depth"' in page  # pools
    assert "CSV (a .csv file)" not in page  # pairs runs come as JSON only
    ordering = organiser.get(url(new_campaign(people, "ordering"))).content.decode()
    assert "CSV (a .csv file): CSV topic,run,order (the item ids separated by spaces)" in ordering
    assert ".jsonl: SQuALITY human evaluation" in ordering and 'name="rank"' in ordering
    assert 'id="upload-pools"' not in ordering
    factoids = organiser.get(url(new_campaign(people, "factoids"))).content.decode()
    assert 'id="upload-runs"' not in factoids and "Crowd CSV" not in factoids
    relevance = organiser.get(url(new_campaign(people, "relevance"))).content.decode()
    assert 'id="upload-trec-runs"' in relevance and 'name="options.depth"' in relevance
    assert "data-upload" in relevance and "annotate/upload.js" in relevance and "<progress" in relevance


def test_topics_upload_imports_and_a_bad_file_names_the_field_and_imports_nothing(organiser, campaign):
    topics = pairs_topics(5)[3:]
    response = organiser.post(url(campaign), {"what": "topics", "file": upload("t.json", json.dumps(topics))})
    assert response.status_code == 302 and response.url == url(campaign)
    assert list(campaign.topics.values_list("external_id", flat=True)) == ["q1", "q2", "q3", "q4", "q5"]
    assert "Imported 2 topics." in organiser.get(url(campaign)).content.decode()

    bad = [{**pairs_topics(7)[5], "external_id": "q6"}, {**pairs_topics(7)[6], "data": {"query": "x"}}]
    refused = organiser.post(url(campaign), {"what": "topics", "file": upload("t.json", json.dumps(bad))})
    assert refused.status_code == 400
    page = refused.content.decode()
    assert "Nothing imported: topics[1].data" in page
    assert campaign.topics.count() == 5  # q6, valid, was not imported either

    broken = organiser.post(url(campaign), {"what": "topics", "file": upload("t.json", '[\n{"external_id": "q9",\n')})
    assert broken.status_code == 400 and "line 3" in broken.content.decode()


def test_a_script_gets_json_with_the_field_or_where_to_go(organiser, campaign):
    ok = organiser.post(
        url(campaign), {"what": "topics", "file": upload("t.json", json.dumps(pairs_topics(4)[3:]))}, **JSON_ACCEPT
    )
    assert ok.status_code == 200 and ok.json() == {"message": "Imported 1 topic.", "redirect": url(campaign)}
    refused = organiser.post(url(campaign), {"what": "topics", "file": upload("t.json", "[]")}, **JSON_ACCEPT)
    assert refused.status_code == 400
    assert refused.json() == {"detail": "expected at least 1 entries, got 0", "field": "topics"}
    missing = organiser.post(url(campaign), {"what": "topics"}, **JSON_ACCEPT)
    assert missing.status_code == 400 and missing.json() == {"detail": "choose a file", "field": "file"}
    unknown = organiser.post(
        url(campaign), {"what": "topics", "file": upload("t.json", "[]"), "positve": "x"}, **JSON_ACCEPT
    )
    assert unknown.status_code == 400 and unknown.json()["field"] == "positve"
    nothing = organiser.post(url(campaign), {"what": "nonsense"}, **JSON_ACCEPT)
    assert nothing.status_code == 400 and nothing.json()["field"] == "what"


def test_runs_upload_reads_the_kinds_csv_and_names_the_bad_line(organiser, people):
    ordering = new_campaign(people, "ordering")
    import_topics(
        campaign=ordering,
        topics=[{"external_id": "p1", "data": {"items": [{"id": f"s{i}", "text": f"S{i}"} for i in range(1, 4)]}}],
    )
    text = "topic,run,order\np1,sysA,s1 s2 s3\np1,sysB,s3 s1\n"
    refused = organiser.post(url(ordering), {"what": "runs", "file": upload("runs.csv", text)})
    assert refused.status_code == 400 and not Run.objects.filter(campaign=ordering).exists()
    assert "runs[1].data.orderings.p1" in refused.content.decode()
    good = "topic,run,order\np1,sysA,s1 s2 s3\np1,sysB,s3 s1 s2\n"
    assert organiser.post(url(ordering), {"what": "runs", "file": upload("runs.csv", good)}).status_code == 302
    assert sorted(Run.objects.filter(campaign=ordering).values_list("name", flat=True)) == ["sysA", "sysB"]


def test_crowd_judgments_with_options_and_a_bad_line_imports_nothing(organiser, campaign):
    import_topics(
        campaign=campaign,
        topics=[{"external_id": "i1", "data": {"query": "A", "candidates": [{"id": "item", "text": "B"}]}}],
    )
    users = User.objects.count()
    bad = "worker,item,label\nw1,i1,before\nw2,i1,maybe\n"
    refused = organiser.post(url(campaign), {"what": "judgments", "file": upload("crowd.csv", bad)}, **JSON_ACCEPT)
    assert refused.status_code == 400
    assert refused.json() == {
        "detail": "'before' is not a match label; say which value means a match",
        "field": "line 2: label",
    }
    assert User.objects.count() == users and not Judgment.objects.filter(topic__external_id="i1").exists()

    good = "worker,item,label\nw1,i1,before\nw2,i1,after\n"
    done = organiser.post(url(campaign), {"what": "judgments", "file": upload("crowd.csv", good), "positive": "before"})
    assert done.status_code == 302
    labels = dict(Judgment.objects.filter(topic__external_id="i1").values_list("assessor__username", "payload"))
    assert labels == {"w1": {"matches": {"item": True}}, "w2": {"matches": {"item": False}}}
    assert set(Membership.objects.filter(campaign=campaign, imported=True).values_list("user__username", flat=True)) == {
        "w1", "w2"
    }  # fmt: skip

    flag = organiser.post(
        url(campaign), {"what": "judgments", "file": upload("c.csv", good), "map_members": "perhaps"}, **JSON_ACCEPT
    )
    assert flag.status_code == 400 and flag.json() == {"detail": "expected true or false", "field": "map_members"}


def test_judgments_json_maps_members_only_when_asked(organiser, campaign):
    entries = [{"assessor": "alice", "topic": "q1", "payload": {"matches": {f"c{i}": True for i in range(1, 5)}}}]
    file = json.dumps(entries)
    refused = organiser.post(url(campaign), {"what": "judgments", "file": upload("j.json", file)}, **JSON_ACCEPT)
    assert refused.status_code == 400 and refused.json()["field"] == "judgments[0].assessor"
    done = organiser.post(url(campaign), {"what": "judgments", "file": upload("j.json", file), "map_members": "true"})
    assert done.status_code == 302
    assert Judgment.objects.get(
        topic__campaign=campaign, topic__external_id="q1", assessor__username="alice"
    ).status == ("submitted")


def test_pools_from_runs_with_a_depth(organiser, people):
    pairs = new_campaign(people, "pairs")
    queries = {"q1": "Ann Lee"}
    runs = [
        {
            "name": "sysA",
            "data": {"results": {"q1": [{"id": "r1", "text": "Anne Lee"}, {"id": "r2", "text": "A. Lee"}]}},
        },
        {
            "name": "sysB",
            "data": {"results": {"q1": [{"id": "r3", "text": "Ann Lee"}, {"id": "r1", "text": "Anne Lee"}]}},
        },
    ]
    form = {
        "what": "pools",
        "queries": upload("q.json", json.dumps(queries)),
        "runs": upload("r.json", json.dumps(runs)),
        "depth": "zero",
    }
    refused = organiser.post(url(pairs), form, **JSON_ACCEPT)
    assert refused.status_code == 400 and refused.json()["field"] == "depth"
    assert not Topic.objects.filter(campaign=pairs).exists()
    form = {
        **form,
        "depth": "1",
        "queries": upload("q.json", json.dumps(queries)),
        "runs": upload("r.json", json.dumps(runs)),
    }
    assert organiser.post(url(pairs), form).status_code == 302
    topic = Topic.objects.get(campaign=pairs)
    # depth 1: sysA's first (r1); sysB's first is the query itself (left out)
    assert topic.data["candidates"] == [{"id": "r1", "text": "Anne Lee", "runs": ["sysA"]}]
    assert sorted(Run.objects.filter(campaign=pairs).values_list("name", flat=True)) == ["sysA", "sysB"]
    factoids = new_campaign(people, "factoids")
    none = organiser.post(url(factoids), {"what": "pools"}, **JSON_ACCEPT)
    assert none.status_code == 400 and none.json()["field"] == "what"


TREC_TOPICS = {"topics": {"401": {"title": "foreign minorities"}}, "documents": {"d1": "one", "d2": "two", "d3": "3"}}


def test_a_kinds_own_upload_trec_runs(organiser, people):
    relevance = new_campaign(people, "relevance")
    bad = "401 Q0 d1 1 2.0 sysA\n401 Q0 d2 2 one sysA\n"
    refused = organiser.post(
        url(relevance),
        {"what": "trec-runs", "runs": upload("run.txt", bad), "topics_file": upload("t.json", json.dumps(TREC_TOPICS))},
        **JSON_ACCEPT,
    )
    assert refused.status_code == 400 and refused.json()["field"] == "runs" and "line 2" in refused.json()["detail"]
    assert not Topic.objects.filter(campaign=relevance).exists() and not Run.objects.filter(campaign=relevance).exists()
    good = "401 Q0 d1 1 3.0 sysA\n401 Q0 d2 2 2.0 sysA\n401 Q0 d3 1 1.0 sysB\n"
    done = organiser.post(
        url(relevance),
        {
            "what": "trec-runs",
            "runs": upload("run.txt", good),
            "topics_file": upload("t.json", json.dumps(TREC_TOPICS)),
            "options.depth": "1",
        },
        **JSON_ACCEPT,
    )
    assert done.status_code == 200
    assert done.json()["message"] == "Imported 2 runs and 1 topics with 2 pooled documents to grade."
    assert [d["id"] for d in Topic.objects.get(campaign=relevance).data["documents"]] == ["d1", "d3"]
    depth = organiser.post(url(relevance), {"what": "trec-runs", "options.depth": "0"}, **JSON_ACCEPT)
    assert depth.status_code == 400 and depth.json()["field"] == "options.depth"


def test_nugget_files_and_aiphes_trees(organiser, people):
    nuggets = new_campaign(people, "nuggets")
    questions, key = "1\tAARP\n", "# key\n1\t1.1\tvital\tLobby\n1\t1.2\n"
    refused = organiser.post(
        url(nuggets),
        {"what": "trec-nuggets", "questions": upload("q.txt", questions), "key": upload("k.txt", key)},
        **JSON_ACCEPT,
    )
    assert refused.status_code == 400 and refused.json()["field"] == "key: line 3"
    lonely = organiser.post(
        url(nuggets), {"what": "trec-nuggets", "questions": upload("q.txt", questions)}, **JSON_ACCEPT
    )
    assert lonely.status_code == 400 and lonely.json()["field"] == "key"
    key = "1\t1.1\tvital\tLobby\n1\t1.2\tokay\tMagazine\n"
    done = organiser.post(
        url(nuggets), {"what": "trec-nuggets", "questions": upload("q.txt", questions), "key": upload("k.txt", key)}
    )
    assert done.status_code == 302
    assert [n["id"] for n in Topic.objects.get(campaign=nuggets).data["nuggets"]] == ["1.1", "1.2"]

    clustering = new_campaign(people, "clustering")
    trees = DATA / "aiphes-hiersum" / "Trees"
    nugget_file = next((trees / "Input").glob("Topic_1002_*.txt"))
    tree_files = sorted((trees / "FinishedTrees").glob("Annotator*/Topic_1002_*.xml"))
    form = {
        "what": "aiphes",
        "nuggets": upload(nugget_file.name, nugget_file.read_bytes()),
        "trees": [upload(p.name, p.read_bytes()) for p in tree_files],
        "options.topic": "1002",
        "options.depth": "1",
    }
    done = organiser.post(url(clustering), form, **JSON_ACCEPT)
    assert done.status_code == 200, done.content
    assert set(Judgment.objects.filter(topic__campaign=clustering).values_list("assessor__username", flat=True)) == {
        f"annotator{i}" for i in range(1, len(tree_files) + 1)
    }
    again = organiser.post(
        url(clustering),
        {"what": "aiphes", "nuggets": upload("n.txt", "x\tnot a nugget id\n"), "trees": [upload("t.xml", "<a/>")]},
        **JSON_ACCEPT,
    )
    assert again.status_code == 400 and again.json()["field"] == "options.topic"


def test_only_organisers_upload(client, campaign, people):
    client.force_login(people["alice"])
    assert client.get(url(campaign)).status_code == 403
    assert client.post(url(campaign), {"what": "topics"}).status_code == 403
    client.force_login(people["other_organiser"])
    assert client.get(url(campaign)).status_code == 404
