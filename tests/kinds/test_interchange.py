"""Label Studio JSON and doccano JSONL: the fixture files (written from each tool's
documentation, tests/fixtures/interchange/README.md) import with these counts,
and every export imports back into a fresh campaign as the same judgments."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from annotate.imports import read, write
from annotate.imports.write import import_judgments, import_topics
from annotate.models import SUBMITTED_PAYLOAD, Judgment, Topic
from annotate.services.campaigns import create_campaign
from concord.errors import InvalidInput
from scoring.downloads import export_file

User = get_user_model()

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "interchange"


def doccano_zip(folder: str) -> bytes:
    """The folder's <username>.jsonl files zipped, as doccano exports a project whose annotators do not share."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted((FIXTURES / folder).glob("*.jsonl")):
            archive.writestr(path.name, path.read_bytes())
    return buffer.getvalue()


def judgments(campaign) -> dict[tuple[str, str], dict]:
    return {
        (user, topic): payload
        for user, topic, payload in Judgment.objects.filter(topic__campaign=campaign)
        .annotate(counted=SUBMITTED_PAYLOAD)
        .values_list("assessor__username", "topic__external_id", "counted")
    }


def topics(campaign) -> dict[str, tuple[str, dict]]:
    return {t.external_id: (t.title, t.data) for t in Topic.objects.filter(campaign=campaign)}


def forget(campaign) -> None:
    """As if the export went to another instance: the campaign and its imported workers are gone
    (a worker account belongs to the campaign whose import created it; annotate.imports.check.clean_workers)."""
    workers = list(User.objects.filter(memberships__campaign=campaign, memberships__imported=True))
    campaign.delete()
    for user in workers:
        user.delete()


def new(people, kind: str, name: str = "Imported", **params):
    return create_campaign(creator=people["organiser"], kind=kind, name=name, overlap=2, params=params or None)


@pytest.mark.django_db
def test_label_studio_pairs_fixture(people):
    campaign = new(people, "pairs")
    raw = (FIXTURES / "pairs.labelstudio.json").read_bytes()
    summary = write.import_judgment_file(campaign, raw, filename="pairs.labelstudio.json")
    assert (summary.judgments, summary.topics, summary.assessors_created) == (5, 2, 3)
    got = judgments(campaign)
    assert got[("labelstudio-3", "q1")] == {"matches": {"c1": False, "c2": False}}
    assert got[("labelstudio-1", "q2")] == {"matches": {"c1": True}}
    assert ("labelstudio-3", "q2") not in got  # cancelled annotation: no judgment
    assert topics(campaign)["q2"] == (
        "Maria Garcia",
        {"query": "Maria Garcia", "candidates": [{"id": "c1", "text": "María García"}]},
    )


@pytest.mark.django_db
def test_label_studio_relevance_fixture_reads_grades_on_the_campaigns_scale(people):
    campaign = new(people, "relevance")
    raw = (FIXTURES / "relevance.labelstudio.json").read_bytes()
    summary = write.import_judgment_file(campaign, raw, filename="export.json", format=".labelstudio.json")
    assert (summary.judgments, summary.topics, summary.assessors_created) == (2, 1, 2)
    assert judgments(campaign) == {
        ("ann@example.org", "401"): {"grades": {"FBIS3-10082": 3, "FBIS3-10169": 0}},
        ("bo@example.org", "401"): {"grades": {"FBIS3-10082": 2, "FBIS3-10169": 1}},
    }
    assert topics(campaign)["401"][1]["description"].startswith("What language")


@pytest.mark.django_db
def test_label_studio_ordering_fixture_reads_rankers_with_and_without_a_bucket(people):
    campaign = new(people, "ordering")
    raw = (FIXTURES / "ordering.labelstudio.json").read_bytes()
    summary = write.import_judgment_file(campaign, raw, filename="ordering.labelstudio.json")
    assert (summary.judgments, summary.topics) == (2, 1)
    assert judgments(campaign) == {
        ("labelstudio-1", "passage-7-q1"): {"order": ["human", "bart", "pegasus"]},
        ("labelstudio-2", "passage-7-q1"): {"order": ["bart", "human", "pegasus"]},
    }


@pytest.mark.django_db
def test_doccano_fixtures(people):
    pairs = new(people, "pairs")
    summary = write.import_judgment_file(pairs, doccano_zip("doccano-pairs"), filename="doccano.zip")
    assert (summary.judgments, summary.topics, summary.assessors_created) == (3, 2, 2)
    assert judgments(pairs)[("ben", "q1")] == {"matches": {"c1": True, "c2": True}}
    assert ("ben", "q2") not in judgments(pairs)  # ben's line of q2 has no label
    relevance = new(people, "relevance", "Grades")
    summary = write.import_judgment_file(relevance, doccano_zip("doccano-relevance"), filename="a1b2.zip")
    assert (summary.judgments, summary.topics) == (2, 1)
    assert judgments(relevance)[("ann", "401")] == {"grades": {"FBIS3-10082": 3, "FBIS3-10169": 0}}


ROUND_TRIPS = [
    ("pairs", "pairs.labelstudio.json", "labelstudio", {}),
    ("pairs", "pairs.labelstudio.json", "doccano", {}),
    ("relevance", "relevance.labelstudio.json", "labelstudio", {}),
    ("relevance", "relevance.labelstudio.json", "doccano", {}),
    ("ordering", "ordering.labelstudio.json", "labelstudio", {}),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("kind", "fixture", "format", "params"), ROUND_TRIPS)
def test_export_then_import_into_a_fresh_campaign_gives_the_same_judgments(people, kind, fixture, format, params):
    first = new(people, kind, "First", **params)
    write.import_judgment_file(first, (FIXTURES / fixture).read_bytes(), filename=fixture)
    expected = (judgments(first), topics(first))
    response = export_file(first, format=format, truth="consensus")
    name = response["Content-Disposition"].split('filename="')[1].rstrip('"')
    forget(first)
    second = new(people, kind, "Second", **params)
    write.import_judgment_file(second, response.content, filename=name)
    assert (judgments(second), topics(second)) == expected
    assert len(judgments(second)) == {"pairs": 5, "relevance": 2, "ordering": 2}[kind]


@pytest.mark.django_db
def test_round_trip_keeps_a_campaigns_own_scale_and_assessor_names(people):
    """Judgments in Concord on a five-grade scale come back under the same names and grades."""
    scale = ["0", "1", "2", "3", "4"]
    first = new(people, "relevance", "Five grades", scale=scale, threshold=2)
    import_topics(
        campaign=first,
        topics=[{"external_id": "t1", "title": "T", "data": {"title": "q", "documents": [{"id": "d1", "text": "x"}]}}],
    )
    import_judgments(
        campaign=first,
        entries=[
            {"assessor": "w-one", "topic": "t1", "payload": {"grades": {"d1": 4}}},
            {"assessor": "w-two", "topic": "t1", "payload": {"grades": {"d1": 1}}},
        ],
    )
    files = {format: export_file(first, format=format, truth="consensus") for format in ("labelstudio", "doccano")}
    forget(first)
    for format, response in files.items():
        second = new(people, "relevance", f"Copy {format}", scale=scale, threshold=2)
        name = response["Content-Disposition"].split('filename="')[1].rstrip('"')
        write.import_judgment_file(second, response.content, filename=name)
        assert judgments(second) == {("w-one", "t1"): {"grades": {"d1": 4}}, ("w-two", "t1"): {"grades": {"d1": 1}}}
        forget(second)


def _pairs_task(choice: str = "match", completed_by=1) -> dict:
    return {
        "data": {"topic": "q1", "query": "Q", "candidate": "c1", "text": "C"},
        "annotations": [
            {
                "completed_by": completed_by,
                "result": [
                    {"type": "choices", "from_name": "match", "to_name": "text", "value": {"choices": [choice]}}
                ],
            }
        ],
    }


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("tasks", "field", "message"),
    [
        ([_pairs_task("maybe")], "file[0].annotations[0].result[0].value.choices", "expected 'match' or 'no match'"),
        ([_pairs_task(completed_by=True)], "file[0].annotations[0].completed_by", "expected a user id"),
        ([{"data": {"topic": "q1", "query": "Q", "candidate": "c1"}}], "file[0].data.text", "expected a string"),
        ({"tasks": []}, "file", "expected a Label Studio JSON export"),
        ([_pairs_task(), _pairs_task()], "file[1].annotations[0]", "labelled candidate 'c1' of topic 'q1' twice"),
    ],
)
def test_bad_label_studio_files_name_the_field_and_import_nothing(people, tasks, field, message):
    campaign = new(people, "pairs")
    with pytest.raises(InvalidInput) as error:
        write.import_judgment_file(campaign, json.dumps(tasks).encode(), filename="x.labelstudio.json")
    assert error.value.field == field
    assert message in error.value.message
    assert (Topic.objects.filter(campaign=campaign).count(), Judgment.objects.count()) == (0, 0)


@pytest.mark.django_db
def test_an_incomplete_judgment_names_the_annotation_and_nothing_is_written(people):
    campaign = new(people, "pairs")
    tasks = json.loads((FIXTURES / "pairs.labelstudio.json").read_text())
    tasks[1]["annotations"] = tasks[1]["annotations"][:2]  # annotator 3 judged c1 of q1, not c2
    with pytest.raises(InvalidInput) as error:
        write.import_judgment_file(campaign, json.dumps(tasks).encode(), filename="x.labelstudio.json")
    assert error.value.field == "file[0].annotations[2] ('labelstudio-3', topic 'q1'): payload.matches"
    assert "1 candidate(s) not judged: c2" in error.value.message
    assert (Topic.objects.filter(campaign=campaign).count(), Judgment.objects.count()) == (0, 0)


@pytest.mark.django_db
def test_bad_doccano_files_name_the_file_and_line(people):
    campaign = new(people, "pairs")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(
            "alice.jsonl", (FIXTURES / "doccano-pairs" / "ana.jsonl").read_text().replace('["no match"]', '["nah"]')
        )
    with pytest.raises(InvalidInput) as error:
        write.import_judgment_file(campaign, buffer.getvalue(), filename="d.zip")
    assert (error.value.field, error.value.message) == (
        "alice.jsonl: line 2: label",
        "expected 'match' or 'no match', got 'nah'",
    )
    with pytest.raises(InvalidInput) as error:
        write.import_judgment_file(
            campaign, (FIXTURES / "doccano-pairs" / "ben.jsonl").read_bytes(), filename="d.jsonl", format=".zip"
        )
    assert error.value.field == "file" and "zip of <username>.jsonl" in error.value.message
    assert Judgment.objects.count() == 0


@pytest.mark.django_db
def test_the_format_is_chosen_by_name_or_given_and_an_unknown_one_is_refused(people):
    campaign = new(people, "pairs")
    kind = campaign.kind
    from kinds.registry import get_kind

    spec = get_kind(kind)
    assert read.pick_format(spec, "project-7-at-2026.json", None) == ".json"
    assert read.pick_format(spec, "campaign-1-consensus.labelstudio.json", None) == ".labelstudio.json"
    assert read.pick_format(spec, "4f2c.zip", None) == ".zip"
    assert read.pick_format(spec, "rte.csv", None) == ".csv"
    assert read.pick_format(get_kind("ordering"), "all-responses.jsonl", None) == ".jsonl"
    with pytest.raises(InvalidInput) as error:
        read.pick_format(spec, "x.json", ".jsonl")
    assert (error.value.field, error.value.message) == (
        "format",
        "unknown format '.jsonl' (known: .labelstudio.json, .zip, .json, .csv)",
    )


@pytest.mark.django_db
def test_the_api_and_the_command_take_the_format(people, api, tmp_path):
    campaign = new(people, "pairs")
    upload = SimpleUploadedFile("project-7.json", (FIXTURES / "pairs.labelstudio.json").read_bytes())
    response = api(people["organiser"]).post(
        f"/api/campaigns/{campaign.pk}/judgments/import/", {"file": upload, "format": ".labelstudio.json"}
    )
    assert response.status_code == 201, response.content
    assert response.json()["judgments"] == 5
    bad = SimpleUploadedFile("x.json", b"[]")
    response = api(people["organiser"]).post(
        f"/api/campaigns/{campaign.pk}/judgments/import/", {"file": bad, "format": ".labelstudio.json"}
    )
    assert response.status_code == 400
    assert response.json()["field"] == "file"
    other = new(people, "relevance", "Grades")
    path = tmp_path / "export.json"
    path.write_bytes((FIXTURES / "relevance.labelstudio.json").read_bytes())
    out = io.StringIO()
    call_command("import_judgments", str(other.pk), str(path), "--format", ".labelstudio.json", stdout=out)
    assert out.getvalue().startswith("Imported 2 judgments of 1 topics")
    with pytest.raises(CommandError, match="format: unknown format '.jsonl'"):
        call_command("import_judgments", str(other.pk), str(path), "--format", ".jsonl", stdout=io.StringIO())


@pytest.mark.django_db
def test_kinds_without_a_mapping_offer_no_such_export(people):
    campaign = new(people, "ordering")
    with pytest.raises(InvalidInput) as error:
        export_file(campaign, format="doccano", truth="consensus")
    assert error.value.field == "format"


@pytest.mark.django_db
def test_the_uploads_page_offers_and_takes_the_format(people, client):
    campaign = new(people, "pairs")
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/uploads/").content.decode()
    assert '<option value=".labelstudio.json">.labelstudio.json</option>' in page
    assert 'name="rank"' not in page  # pairs readers take no rank (SQuALITY's does)
    upload = SimpleUploadedFile("project-7-at-2026.json", (FIXTURES / "pairs.labelstudio.json").read_bytes())
    response = client.post(
        f"/campaigns/{campaign.pk}/uploads/",
        {"what": "judgments", "file": upload, "format": ".labelstudio.json"},
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["message"].startswith("Imported 5 judgments of 2 topics; 3 new imported assessors")
