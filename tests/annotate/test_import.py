"""Importing topics and crowd judgments, including Snow et al.'s RTE file."""

from __future__ import annotations

import csv
import json
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

from annotate.imports import read
from annotate.imports.write import import_crowd_file, import_topics
from annotate.models import Judgment, JudgmentRevision, Membership, Run, Topic
from annotate.services.campaigns import create_campaign
from concord.errors import InvalidInput
from scoring.selectors import campaign_report

pytestmark = pytest.mark.django_db

RTE = Path(__file__).resolve().parents[2] / "data" / "snow2008" / "rte.csv"
TEMP = RTE.with_name("temp.csv")


@pytest.fixture
def empty(people):
    return create_campaign(creator=people["organiser"], kind="pairs", name="RTE", overlap=10)


def test_rte_imports_and_its_fleiss_kappa_equals_statsmodels(empty, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_judgments", empty.pk, str(RTE), stdout=open("/dev/null", "w"))
    assert Topic.objects.filter(campaign=empty).count() == 800
    assert Judgment.objects.filter(topic__campaign=empty, status="submitted").count() == 8000
    assert JudgmentRevision.objects.filter(judgment__topic__campaign=empty, source="import").count() == 8000
    assert Membership.objects.filter(campaign=empty, role="assessor").count() == 164

    # Independently: statsmodels on the raw file.
    labels = defaultdict(list)
    with RTE.open() as handle:
        for row in csv.DictReader(handle):
            labels[row["orig_id"]].append(int(row["response"]))
    table, _ = aggregate_raters(np.array([labels[k] for k in sorted(labels)]))
    expected = statsmodels_fleiss(table, method="fleiss")

    report = campaign_report(empty).data
    assert report.fleiss.items == 800 and report.fleiss.raters == 10
    assert report.fleiss.kappa == pytest.approx(expected, abs=1e-12)
    assert report.alpha.items == 800

    gold = Run.objects.get(campaign=empty, name="gold").data
    with RTE.open() as handle:
        first_gold = {row["orig_id"]: row["gold"] == "1" for row in csv.DictReader(handle)}
    assert {k: v["item"] for k, v in gold["labels"].items()} == first_gold


def test_temporal_file_needs_the_positive_label(empty):
    with pytest.raises(CommandError, match="line 2: label.*'before'"):
        call_command("import_judgments", empty.pk, str(TEMP))
    assert not Topic.objects.filter(campaign=empty).exists()
    call_command("import_judgments", empty.pk, str(TEMP), "--positive", "before", stdout=open("/dev/null", "w"))
    assert Topic.objects.filter(campaign=empty).count() == 462
    counts = Counter(
        payload["matches"]["item"]
        for payload in Judgment.objects.filter(topic__campaign=empty).values_list("payload", flat=True)
    )
    with TEMP.open() as handle:
        assert counts[True] == sum(row["response"] == "before" for row in csv.DictReader(handle))


def test_generic_crowd_file_groups_items_into_topics(campaign, people):
    text = "worker,topic,candidate,label\n" + "".join(
        f"w{w},q1,c{c},{int((w + c) % 3 == 0)}\n" for w in (1, 2) for c in (1, 2, 3, 4)
    )
    crowd = read.read_crowd_csv(text)
    summary = import_crowd_file(campaign=campaign, topics=crowd.topics, labels=crowd.labels, reference=crowd.reference)
    assert (summary.judgments, summary.topics, summary.assessors_created) == (2, 1, 2)
    judgment = Judgment.objects.get(assessor__username="w1", topic__external_id="q1")
    assert judgment.payload == {"matches": {"c1": False, "c2": True, "c3": False, "c4": False}}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("worker,topic,candidate,label\nw1,q1,c1,1\nw1,q1,c2,maybe\n", "line 3: label"),
        ("worker,topic,candidate,label\nw1,q1,c1,1\nw1,q1,c1,0\n", "line 3"),
        ("worker,topic,candidate,label\nw1,nope,c1,1\n", "line 2: topic"),
        ("worker,topic,candidate,label\nw1,q1,c1,1\n", "not judged"),
        ("worker,topic,candidate,label\nw1,q1,c9,1\n", "c9"),
        ("who,what\nx,y\n", "missing columns `worker`, `item`, `label` \\(found: who, what\\)"),
    ],
)
def test_malformed_crowd_files_import_nothing(campaign, text, message):
    before = (Judgment.objects.count(), Membership.objects.count(), Topic.objects.count())
    with pytest.raises(InvalidInput, match=message):
        crowd = read.read_crowd_csv(text)
        import_crowd_file(campaign=campaign, topics=crowd.topics, labels=crowd.labels, reference=crowd.reference)
    assert (Judgment.objects.count(), Membership.objects.count(), Topic.objects.count()) == before


def test_topics_import_from_json_all_or_nothing(campaign, tmp_path):
    good = {"external_id": "z1", "data": {"query": "Q", "candidates": [{"id": "a", "text": "A"}]}}
    bad = {"external_id": "z2", "data": {"query": "Q", "candidates": [{"id": "a"}]}}
    path = tmp_path / "topics.json"
    path.write_text(json.dumps({"topics": [good, bad]}))
    with pytest.raises(CommandError, match=r"topics\[1\]\.data\.candidates\[0\]\.text: this field is required"):
        call_command("import_topics", campaign.pk, str(path))
    assert not Topic.objects.filter(external_id="z1").exists()
    path.write_text(json.dumps([good]))
    call_command("import_topics", campaign.pk, str(path), stdout=open("/dev/null", "w"))
    assert Topic.objects.get(external_id="z1").title == "z1"


def test_duplicate_topic_ids_are_refused(campaign):
    with pytest.raises(InvalidInput, match="already exists"):
        import_topics(
            campaign=campaign,
            topics=[{"external_id": "q1", "data": {"query": "Q", "candidates": [{"id": "a", "text": "A"}]}}],
        )


def test_topics_upload_through_the_api(api, people, campaign):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile(
        "t.json",
        json.dumps([{"external_id": "up1", "data": {"query": "Q", "candidates": [{"id": "a", "text": "A"}]}}]).encode(),
    )
    response = api(people["organiser"]).post(
        f"/api/campaigns/{campaign.pk}/topics/", {"file": upload}, format="multipart"
    )
    assert response.status_code == 201 and response.json()[0]["external_id"] == "up1"
    broken = SimpleUploadedFile("t.json", b"[{")
    response = api(people["organiser"]).post(
        f"/api/campaigns/{campaign.pk}/topics/", {"file": broken}, format="multipart"
    )
    assert response.status_code == 400 and response.json()["field"] == "file" and "line 1" in response.json()["detail"]
