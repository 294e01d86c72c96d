"""The import wizard: a file is detected, previewed with nothing
written, its columns mapped when not recognised, then confirmed and written."""

from __future__ import annotations

import codecs
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.imports import write
from annotate.models import Judgment, Run, Topic
from annotate.services.campaigns import create_campaign
from concord.errors import InvalidInput
from tests.annotate.test_detect import xlsx
from tests.kinds.test_interchange import FIXTURES, doccano_zip

pytestmark = pytest.mark.django_db
User = get_user_model()


def url(campaign) -> str:
    return f"/campaigns/{campaign.pk}/uploads/import/"


def stored(campaign) -> tuple[int, int, int, int]:
    return (
        Topic.objects.filter(campaign=campaign).count(),
        Judgment.objects.filter(topic__campaign=campaign).count(),
        User.objects.count(),
        Run.objects.filter(campaign=campaign).count(),
    )


@pytest.fixture
def organiser(client, people):
    client.force_login(people["organiser"])
    return client


@pytest.fixture
def empty(people):
    return create_campaign(creator=people["organiser"], kind="pairs", name="Crowd", overlap=1)


def preview(client, campaign, name: str, raw: bytes, **fields):
    return client.post(url(campaign), {"step": "preview", "file": SimpleUploadedFile(name, raw), **fields})


def test_an_excel_csv_with_a_bom_and_semicolons_is_previewed_then_written(organiser, campaign):
    text = "worker;topic;candidate;label\r\n" + "".join(
        f"w{w};q1;c{c};{'yes' if c == w else 'no'}\r\n" for w in (1, 2) for c in (1, 2, 3, 4)
    )
    before = stored(campaign)
    page = preview(organiser, campaign, "export.csv", codecs.BOM_UTF8 + text.encode())
    body = page.content.decode()
    assert page.status_code == 200, body
    assert "UTF-8 with a byte-order mark" in body
    assert "semicolon-separated: detected, reading with &#x27;;&#x27;" in body
    assert page.context["preview"].counts == (
        ("topics", 1),
        ("new topics", 0),
        ("labels", 8),
        ("items", 4),
        ("assessors", 2),
        ("new imported assessors", 2),
        ("judgments", 2),
    )
    assert page.context["preview"].rows[0] == ("2", "w1", "q1", "c1", "match")
    assert stored(campaign) == before  # the preview wrote nothing

    done = organiser.post(url(campaign), {"step": "confirm"})
    assert done.status_code == 302
    judgment = Judgment.objects.get(topic__campaign=campaign, assessor__username="w2")
    assert judgment.payload == {"matches": {"c1": False, "c2": True, "c3": False, "c4": False}}
    # The staged file is gone with its confirmation: a second confirm writes nothing.
    again = organiser.post(url(campaign), {"step": "confirm"})
    assert again.status_code == 400
    assert "no file waiting for confirmation" in again.content.decode()


def test_a_missing_label_column_is_named_then_mapped(organiser, empty):
    raw = b"worker,item,answer,seconds\nw1,i1,yes,3\nw2,i1,no,4\nw1,i2,no,5\n"
    page = preview(organiser, empty, "crowd.csv", raw)
    assert page.status_code == 400
    assert page.context["error"].message.startswith("missing column `label` (found: worker, item, answer, seconds)")
    assert [row.wanted for row in page.context["mapping"]] == ["worker", "item", "label"]
    assert stored(empty) == (0, 0, User.objects.count(), 0)

    mapped = {"map.worker": "worker", "map.item": "item", "map.label": "answer"}
    again = organiser.post(url(empty), {"step": "again", **mapped})
    assert again.status_code == 200, again.content.decode()
    assert ("new topics", 2) in again.context["preview"].counts
    assert Topic.objects.filter(campaign=empty).count() == 0

    done = organiser.post(url(empty), {"step": "confirm", **mapped})
    assert done.status_code == 302
    assert sorted(Topic.objects.filter(campaign=empty).values_list("external_id", flat=True)) == ["i1", "i2"]
    assert Judgment.objects.get(topic__external_id="i1", assessor__username="w2").payload == {
        "matches": {"item": False}
    }


def test_a_mapping_naming_no_column_of_the_file_is_refused(organiser, empty):
    preview(organiser, empty, "crowd.csv", b"who,what,answer\nw1,i1,yes\n")
    page = organiser.post(url(empty), {"step": "again", "map.worker": "who", "map.item": "nope", "map.label": "answer"})
    assert page.status_code == 400
    assert page.context["error"].field == "map.item"
    assert "no column 'nope' in the file" in page.context["error"].message


def test_an_xlsx_workbook_on_an_empty_campaign_creates_its_topics(organiser, empty):
    raw = xlsx([["worker", "item", "label"], ["w1", "i1", 1], ["w2", "i1", 0], ["w1", "i2", 1]])
    page = preview(organiser, empty, "Book1.xlsx", raw)
    assert page.status_code == 200, page.content.decode()
    assert page.context["preview"].detected.format == "xlsx"
    assert page.context["preview"].rows[1] == ("3", "w2", "i1", "item", "no match")
    organiser.post(url(empty), {"step": "confirm"})
    assert Judgment.objects.filter(topic__campaign=empty).count() == 3


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        ("shot.png", b"\x89PNG\r\n\x1a\n" + bytes(64), "a PNG image, not a table"),
        ("topics.txt", b"<top>\n<num> Number: 401\n</top>\n", "this looks like TREC topics"),
        ("x.json", b'{"something": 1}', "JSON, but not topics"),
        ("latin1.csv", "worker,item,label\nw1,i1,oui\nw2,café,non\n".encode("cp1252"), "line 3: not UTF-8 text"),
        ("utf16.csv", "worker,item,label\nw1,i1,1\n".encode("utf-16-le"), "UTF-16 LE without a byte-order mark"),
    ],
)
def test_files_it_cannot_read_are_named_and_nothing_is_written(organiser, empty, name, raw, message):
    before = stored(empty)
    page = preview(organiser, empty, name, raw)
    assert page.status_code == 400
    assert message in f"{page.context['error'].field}: {page.context['error'].message}"
    assert stored(empty) == before


def test_topics_json_is_previewed(organiser, empty):
    topics = [{"external_id": "z1", "data": {"query": "Q", "candidates": [{"id": "a", "text": "A"}]}}]
    page = preview(organiser, empty, "topics.json", json.dumps(topics).encode())
    assert page.status_code == 200
    assert page.context["preview"].counts == (("new topics", 1),)
    # The data as cleaned, not as the database takes it (on PostgreSQL an adapter that is no JSON).
    assert page.context["preview"].rows == (("z1", "z1", '{"query": "Q", "candidates": [{"id": "a", "text": "A"}]}'),)
    organiser.post(url(empty), {"step": "confirm"})
    assert list(Topic.objects.filter(campaign=empty).values_list("external_id", flat=True)) == ["z1"]


def test_trec_topics_on_the_generic_topics_form_point_to_the_trec_form(organiser, people):
    relevance = create_campaign(creator=people["organiser"], kind="relevance", name="R", overlap=1)
    raw = json.dumps({"topics": {"401": {"title": "foreign minorities"}}, "documents": {"d1": "text"}}).encode()
    page = organiser.post(
        f"/campaigns/{relevance.pk}/uploads/", {"what": "topics", "file": SimpleUploadedFile("topics.json", raw)}
    )
    assert page.status_code == 400
    assert "use the form 'TREC run files' further down this page" in page.context["error"].message


def test_a_flat_worker_item_label_file_creates_its_topics_on_a_new_campaign(empty):
    summary = write.import_judgment_file(empty, b"worker,item,label\nw1,i1,yes\nw2,i1,no\n", filename="c.csv")
    assert (summary.topics, summary.judgments) == (1, 2)
    assert Topic.objects.get(campaign=empty).data == {
        "query": "Item i1",
        "candidates": [{"id": "item", "text": "Item i1"}],
    }


def test_a_kind_that_makes_no_topic_of_an_item_still_says_which_topic_is_unknown(people):
    ordering = create_campaign(creator=people["organiser"], kind="ordering", name="O", overlap=1)
    with pytest.raises(InvalidInput, match="line 2: topic: unknown topic 'i1'"):
        write.import_judgment_file(ordering, b"worker,item,label\nw1,i1,1\n", filename="c.csv")


def test_only_organisers_of_the_campaign_preview(client, people, campaign):
    client.force_login(people["other_organiser"])
    page = client.post(url(campaign), {"step": "preview", "file": SimpleUploadedFile("c.csv", b"worker,item,label\n")})
    assert page.status_code in (403, 404)


@pytest.mark.parametrize(
    ("path", "format"),
    [("pairs.labelstudio.json", "Label Studio JSON (tasks with annotations)"), ("doccano-pairs", "a zip of 3 files")],
)
def test_label_studio_and_doccano_files_are_read_by_their_readers_whatever_their_name(organiser, empty, path, format):
    raw = doccano_zip(path) if path.startswith("doccano") else (FIXTURES / path).read_bytes()
    page = preview(organiser, empty, "project-1-at-2026.download", raw)
    assert page.status_code == 200, page.content.decode()
    assert page.context["preview"].detected.what == format
    organiser.post(url(empty), {"step": "confirm"})
    assert Judgment.objects.filter(topic__campaign=empty).count() == page.context["preview"].counts[-1][1] > 0
