"""Importing orderings: SQuALITY reviews, JSON judgments, runs as CSV."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from scipy.stats import kendalltau

from annotate.imports import write
from annotate.imports.write import import_topics
from annotate.models import Judgment, Run, Topic
from annotate.services.campaigns import create_campaign
from concord.errors import InvalidInput
from kinds.ordering import importers as ordering_importers
from scoring.selectors import campaign_report, topic_report

pytestmark = pytest.mark.django_db

SQUALITY = Path(__file__).resolve().parents[3] / "data" / "squality-human-eval" / "all-responses.jsonl"


@pytest.fixture
def empty(people):
    return create_campaign(creator=people["organiser"], kind="ordering", name="SQuALITY", overlap=3)


def test_squality_reviews_become_orderings(empty, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_judgments", empty.pk, str(SQUALITY), stdout=open("/dev/null", "w"))
    assert Topic.objects.filter(campaign=empty).count() == 100
    assert Judgment.objects.filter(topic__campaign=empty, status="submitted").count() == 300

    # Independently from the raw file: the first question's reviewers.
    first = json.loads(SQUALITY.read_text().splitlines()[0])
    answers = first["questions"]["0"]
    ranks: dict[str, dict[str, int]] = {}
    for system, answer in answers.items():
        for review in answer["reviews"]:
            ranks.setdefault(f"reviewer-{review['worker_id']}", {})[system] = review["overall-rank"]
    topic = Topic.objects.get(campaign=empty, external_id=f"{first['passage-id']}-q0")
    stored = {j.assessor.username: j.payload["order"] for j in Judgment.objects.filter(topic=topic)}
    assert stored == {w: sorted(r, key=r.get) for w, r in ranks.items()}
    report = topic_report(topic).data
    systems = sorted(answers)
    workers = report.assessors
    expected = kendalltau([ranks[workers[0]][s] for s in systems], [ranks[workers[1]][s] for s in systems]).statistic
    assert report.tau[0][1] == pytest.approx(expected, abs=1e-12)
    assert campaign_report(empty).data.topics_with_two_or_more == 100


def test_squality_by_correctness_rank(empty):
    summary = write.import_judgment_file(empty, SQUALITY.read_bytes(), filename="x.jsonl", rank="correctness")
    assert summary.judgments == 300
    with pytest.raises(InvalidInput, match="expected one of overall"):
        ordering_importers.read_squality(SQUALITY.read_bytes(), rank="speed")


def test_json_judgments_import_all_or_nothing(people, tmp_path):
    campaign = create_campaign(creator=people["organiser"], kind="ordering", name="J", overlap=2)
    import_topics(
        campaign=campaign,
        topics=[{"external_id": "t1", "data": {"items": [{"id": "a", "text": "A"}, {"id": "b", "text": "B"}]}}],
    )
    path = tmp_path / "judgments.json"
    path.write_text(
        json.dumps(
            [
                {"assessor": "x", "topic": "t1", "payload": {"order": ["b", "a"]}},
                {"assessor": "y", "topic": "t1", "payload": {"order": ["b", "b"]}},
            ]
        )
    )
    with pytest.raises(CommandError, match=r"judgments\[1\]\.payload\.order: duplicated item id\(s\): b"):
        call_command("import_judgments", campaign.pk, str(path))
    assert not Judgment.objects.exists()
    path.write_text(json.dumps([{"assessor": "x", "topic": "t1", "payload": {"order": ["b", "a"]}}]))
    call_command("import_judgments", campaign.pk, str(path), stdout=open("/dev/null", "w"))
    assert Judgment.objects.get().payload == {"order": ["b", "a"]}


def test_runs_from_csv(people, tmp_path):
    campaign = create_campaign(creator=people["organiser"], kind="ordering", name="R", overlap=1)
    import_topics(
        campaign=campaign,
        topics=[{"external_id": f"t{n}", "data": {"items": [{"id": i, "text": i} for i in "abc"]}} for n in (1, 2)],
    )
    path = tmp_path / "runs.csv"
    path.write_text("topic,run,order\nt1,sysA,a b c\nt2,sysA,c b a\nt1,sysB,b a c\n")
    call_command("import_runs", campaign.pk, str(path), stdout=open("/dev/null", "w"))
    assert dict(Run.objects.values_list("name", "data")) == {
        "sysA": {"orderings": {"t1": ["a", "b", "c"], "t2": ["c", "b", "a"]}},
        "sysB": {"orderings": {"t1": ["b", "a", "c"]}},
    }
    path.write_text("topic,run,order\nt1,sysC,a b\n")
    with pytest.raises(CommandError, match=r"runs\[0\]\.data\.orderings\.t1: missing item id\(s\): c"):
        call_command("import_runs", campaign.pk, str(path))
    assert not Run.objects.filter(name="sysC").exists()


def test_runs_upload_through_the_api(api, people):
    from django.core.files.uploadedfile import SimpleUploadedFile

    campaign = create_campaign(creator=people["organiser"], kind="ordering", name="R", overlap=1)
    import_topics(
        campaign=campaign, topics=[{"external_id": "t1", "data": {"items": [{"id": i, "text": i} for i in "ab"]}}]
    )
    upload = SimpleUploadedFile("runs.csv", b"topic,run,order\nt1,s,b a\n")
    response = api(people["organiser"]).post(
        f"/api/campaigns/{campaign.pk}/runs/", {"file": upload}, format="multipart"
    )
    assert response.status_code == 201 and response.json()[0]["data"] == {"orderings": {"t1": ["b", "a"]}}
