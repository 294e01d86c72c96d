"""The import wizard's staged files (annotate/imports/wizard.py, Staging): one per user
and campaign whichever sign-in previewed it, capped per user and in all,
written only for a file of a sort the wizard reads, kept through a refusal to
correct a choice, gone when a file of no such sort is previewed, on Cancel and
on the confirmation, and swept minutes after it was left."""

from __future__ import annotations

import os
import tempfile
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from annotate.imports import wizard
from annotate.services.campaigns import create_campaign

pytestmark = pytest.mark.django_db

NEEDS_MAPPING = b"who,what,answer\nw1,i1,yes\nw2,i1,no\n"
CROWD = b"worker,item,label\nw1,i1,1\nw2,i1,0\n"


@pytest.fixture
def staged_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # what tempfile.gettempdir() answers
    return tmp_path / "concord-imports"


@pytest.fixture
def empty(people):
    return create_campaign(creator=people["organiser"], kind="pairs", name="Crowd", overlap=1)


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def preview(client, campaign, raw: bytes, name: str = "crowd.csv", **fields):
    return client.post(
        f"/campaigns/{campaign.pk}/uploads/import/",
        {"step": "preview", "file": SimpleUploadedFile(name, raw), **fields},
    )


def files(directory) -> list[str]:
    return sorted(path.name for path in directory.iterdir()) if directory.exists() else []


def test_a_new_sign_in_replaces_the_same_users_staged_file(people, empty, staged_dir):
    organiser = people["organiser"]
    sessions = [signed_in(organiser) for _ in range(10)]
    for client in sessions:
        assert preview(client, empty, NEEDS_MAPPING).status_code == 400  # needs a mapping: kept for it
    kept = files(staged_dir)
    assert len(kept) == 1 and kept[0].startswith(f"u{organiser.pk}-c{empty.pk}-")
    # The first sign-in's file is gone: its confirmation says so and writes nothing.
    page = sessions[0].post(f"/campaigns/{empty.pk}/uploads/import/", {"step": "confirm"})
    assert page.status_code == 400 and "a later preview of yours replaces it" in page.context["error"].message
    assert files(staged_dir) == kept


def test_a_users_staged_bytes_are_capped_their_oldest_going_first(people, staged_dir, settings):
    settings.CONCORD_STAGED_BYTES_PER_USER = 2 * len(NEEDS_MAPPING)
    organiser = people["organiser"]
    campaigns = [create_campaign(creator=organiser, kind="pairs", name=f"Crowd {n}", overlap=1) for n in range(3)]
    client = signed_in(organiser)
    for campaign in campaigns:
        preview(client, campaign, NEEDS_MAPPING)
    assert [name.split("-")[1] for name in files(staged_dir)] == sorted(f"c{c.pk}" for c in campaigns[1:])
    settings.CONCORD_STAGED_BYTES_PER_USER = len(NEEDS_MAPPING) - 1
    page = preview(client, campaigns[0], NEEDS_MAPPING)
    assert page.status_code == 400 and "CONCORD_STAGED_BYTES_PER_USER" in page.context["error"].message


def test_everyones_staged_files_are_capped_503(people, empty, staged_dir, settings):
    settings.CONCORD_STAGED_FILES = 1
    preview(signed_in(people["organiser"]), empty, NEEDS_MAPPING)
    other = create_campaign(creator=people["other_organiser"], kind="pairs", name="Theirs", overlap=1)
    page = preview(signed_in(people["other_organiser"]), other, NEEDS_MAPPING)
    assert page.status_code == 503 and page["Retry-After"] == "60"
    assert "CONCORD_STAGED_FILES" in page.context["error"].message
    assert len(files(staged_dir)) == 1
    settings.CONCORD_STAGED_FILES, settings.CONCORD_STAGED_BYTES = 10, len(NEEDS_MAPPING) + 1
    assert preview(signed_in(people["other_organiser"]), other, NEEDS_MAPPING).status_code == 503


def test_a_preview_of_a_file_the_wizard_cannot_read_leaves_no_file(people, empty, staged_dir):
    client = signed_in(people["organiser"])
    assert preview(client, empty, NEEDS_MAPPING).status_code == 400
    assert len(files(staged_dir)) == 1
    # Replaced by a file that is refused: neither stays.
    page = preview(client, empty, b"\x89PNG\r\n\x1a\n" + bytes(64), name="shot.png")
    assert page.status_code == 400 and "a PNG image, not a table" in page.context["error"].message
    assert files(staged_dir) == []
    # A whole file refused (no rows) is not kept either.
    page = preview(client, empty, b"worker,item,label\n")
    assert page.status_code == 400 and page.context["error"].field == "file"
    assert files(staged_dir) == []


def test_a_refusal_keeps_the_file_to_correct_a_choice_and_cancel_removes_it(people, empty, staged_dir):
    """alice is an account: a crowd file naming her is refused unless mapped onto the campaign's
    assessors, which the page's box does without choosing the file again."""
    client = signed_in(people["organiser"])
    page = preview(client, empty, b"worker,item,label\nalice,i1,1\n")
    assert page.status_code == 400 and "is an existing account" in page.context["error"].message
    assert len(files(staged_dir)) == 1 and b'name="map_members"' in page.content
    page = client.post(f"/campaigns/{empty.pk}/uploads/import/", {"step": "again"})
    assert page.status_code == 400 and len(files(staged_dir)) == 1  # refused again: still there
    page = client.post(f"/campaigns/{empty.pk}/uploads/import/", {"step": "cancel"})
    assert page.status_code == 302 and files(staged_dir) == []


def test_an_exception_mid_preview_leaves_no_file(people, empty, staged_dir, monkeypatch):
    client = signed_in(people["organiser"])
    preview(client, empty, NEEDS_MAPPING)
    assert len(files(staged_dir)) == 1

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(wizard, "prepare", broken)
    with pytest.raises(RuntimeError):
        client.post(f"/campaigns/{empty.pk}/uploads/import/", {"step": "again", "map.label": "answer"})
    assert files(staged_dir) == []
    with pytest.raises(RuntimeError):
        preview(client, empty, CROWD)
    assert files(staged_dir) == []


def test_a_preview_that_reads_is_kept_until_confirmed(people, empty, staged_dir):
    client = signed_in(people["organiser"])
    assert preview(client, empty, CROWD).status_code == 200
    assert len(files(staged_dir)) == 1
    page = client.post(f"/campaigns/{empty.pk}/uploads/import/", {"step": "confirm"})
    assert page.status_code == 302
    assert files(staged_dir) == []


def test_left_files_are_swept_minutes_after(people, empty, staged_dir, settings):
    assert settings.CONCORD_STAGED_SECONDS == 600
    client = signed_in(people["organiser"])
    preview(client, empty, NEEDS_MAPPING)
    (left,) = staged_dir.iterdir()
    assert wizard.sweep_staged() == 0
    old = time.time() - 601
    os.utime(left, (old, old))
    assert wizard.sweep_staged() == 1 and files(staged_dir) == []


def test_the_staging_folder_is_the_one_configured(people, empty, staged_dir, settings, tmp_path):
    # several web machines share one folder (docs/operations.md): the file waits there, not in
    # this machine's temporary directory, and is found and removed there by the confirmation
    shared = tmp_path / "shared-staging"
    settings.CONCORD_STAGING_DIR = str(shared)
    client = signed_in(people["organiser"])
    assert preview(client, empty, CROWD).status_code == 200
    assert len(files(shared)) == 1 and files(staged_dir) == []
    assert client.post(f"/campaigns/{empty.pk}/uploads/import/", {"step": "confirm"}).status_code == 302
    assert files(shared) == []
    assert empty.topics.count() == 1
