"""Where an organiser takes a file of prompts or battles: the import wizard and the generic
judgments and topics forms recognise either by its columns and point to the kind's own form
(nothing staged, nothing written), which imports it."""

from __future__ import annotations

import io

import openpyxl
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.imports.wizard import staging_directory
from annotate.models import Judgment, Membership, Topic
from annotate.services.campaigns import create_campaign
from kinds.preference.tests.test_importers import BATTLES, PROMPTS

pytestmark = pytest.mark.django_db

ARENA_JSONL = (
    b'{"question_id": "q1", "model_a": "gpt", "model_b": "llama", "winner": "model_a", "judge": "ann", "turn": 1}\n'
    b'{"question_id": "q1", "model_a": "llama", "model_b": "gpt", "winner": "model_b", "judge": "gpt-4", "turn": 1}\n'
)


@pytest.fixture
def campaign(people):
    return create_campaign(creator=people["organiser"], kind="preference", name="Arena", overlap=1)


@pytest.fixture
def organiser(client, people):
    client.force_login(people["organiser"])
    return client


def workbook(rows):
    book = openpyxl.Workbook()
    for row in rows:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def wizard(client, campaign, filename, raw):
    return client.post(
        f"/campaigns/{campaign.pk}/uploads/import/", {"step": "preview", "file": SimpleUploadedFile(filename, raw)}
    )


def uploads(client, campaign, what, field, filename, raw, **fields):
    return client.post(
        f"/campaigns/{campaign.pk}/uploads/", {"what": what, field: SimpleUploadedFile(filename, raw), **fields}
    )


@pytest.fixture(autouse=True)
def staging(tmp_path, settings):
    """A staging directory of this test's own (the machine's is shared)."""
    settings.CONCORD_STAGING_DIR = str(tmp_path / "staged")


def staged() -> list:
    directory = staging_directory()
    return list(directory.iterdir()) if directory.exists() else []


def test_prompts_then_battles_taken_to_the_wizard_are_pointed_to_their_forms_which_import_them(organiser, campaign):
    prompts = workbook([line.split(",") for line in PROMPTS.decode().splitlines()])
    page = wizard(organiser, campaign, "prompts.xlsx", prompts)
    assert page.status_code == 400
    error = page.context["error"]
    assert error.field == "file" and error.message == (
        "this looks like prompts with outputs (columns prompt_id, system, prompt, output): "
        "use the form 'Prompts with outputs' further down the Uploads page"
    )
    assert "Nothing imported" in page.content.decode() and not staged()
    assert not Topic.objects.filter(campaign=campaign).exists()
    # The form it names, on the page the wizard lives on, imports the same file.
    done = uploads(organiser, campaign, "prompts", "prompts", "prompts.xlsx", prompts)
    assert done.status_code == 302
    assert Topic.objects.filter(campaign=campaign).count() == 2

    for filename, raw in (("battles.csv", BATTLES), ("arena.jsonl", ARENA_JSONL)):
        page = wizard(organiser, campaign, filename, raw)
        assert page.status_code == 400 and "use the form 'Existing battles'" in page.context["error"].message
    assert not Judgment.objects.filter(topic__campaign=campaign).exists() and not staged()
    done = uploads(
        organiser, campaign, "battles", "battles", "arena.jsonl", ARENA_JSONL, **{"options.model_judges": "gpt-4"}
    )
    assert done.status_code == 302
    assert sorted(Judgment.objects.filter(topic__campaign=campaign).values_list("assessor__username", flat=True)) == [
        "ann",
        "gpt-4",
    ]
    assert Membership.objects.get(campaign=campaign, user__username="gpt-4").model_judge


def test_battles_on_the_existing_judgments_form_are_pointed_to_the_battles_form(organiser, campaign):
    uploads(organiser, campaign, "prompts", "prompts", "prompts.csv", PROMPTS)
    page = uploads(organiser, campaign, "judgments", "file", "battles.csv", BATTLES)
    assert page.status_code == 400
    assert "this looks like existing battles" in page.context["error"].message
    assert "use the form 'Existing battles'" in page.context["error"].message
    assert not Judgment.objects.filter(topic__campaign=campaign).exists()


def test_prompts_on_the_topics_form_are_pointed_to_the_prompts_form(organiser, campaign):
    page = uploads(organiser, campaign, "topics", "file", "prompts.csv", PROMPTS)
    assert page.status_code == 400 and "use the form 'Prompts with outputs'" in page.context["error"].message
    assert not Topic.objects.filter(campaign=campaign).exists()


def test_a_table_of_other_columns_is_not_taken_for_either(organiser, campaign):
    page = wizard(organiser, campaign, "crowd.csv", b"worker,item,label\nw1,i1,yes\n")
    assert page.status_code == 400 and "looks like" not in page.context["error"].message
