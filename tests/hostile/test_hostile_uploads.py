"""Oversized requests get 413 with the limit in the message, for the API and
the pages alike, before any of the body is read; nothing is written."""

from __future__ import annotations

import io
import json

import pytest
from django.test import Client, override_settings

from annotate.models import Topic

pytestmark = pytest.mark.django_db

LIMIT = 4096


def topics_file(size: int) -> io.BytesIO:
    topics = [
        {"external_id": f"big{i}", "data": {"query": "q", "candidates": [{"id": "c", "text": "x" * 200}]}}
        for i in range(size // 250 + 1)
    ]
    upload = io.BytesIO(json.dumps(topics).encode())
    upload.name = "topics.json"
    return upload


@override_settings(CONCORD_MAX_UPLOAD_BYTES=LIMIT)
def test_an_oversized_file_upload_is_refused_by_the_api(api, people, every_kind):
    before = Topic.objects.count()
    response = api(people["organiser"]).post(
        f"/api/campaigns/{every_kind['pairs'].pk}/topics/", {"file": topics_file(2 * LIMIT)}, format="multipart"
    )
    assert response.status_code == 413
    assert response.json() == {"detail": "The request is too large: uploads are limited to 4 KiB.", "field": "body"}
    assert Topic.objects.count() == before


@override_settings(CONCORD_MAX_UPLOAD_BYTES=LIMIT)
def test_an_oversized_json_body_is_refused_by_the_api(api, people, every_kind):
    """DRF's JSON parser reads the stream itself, past Django's memory limit: the middleware is the limit."""
    topics = json.loads(topics_file(2 * LIMIT).getvalue())
    response = api(people["organiser"]).post(f"/api/campaigns/{every_kind['pairs'].pk}/topics/", topics, format="json")
    assert response.status_code == 413 and response["Content-Type"] == "application/json"
    assert not Topic.objects.filter(external_id__startswith="big").exists()


@override_settings(CONCORD_MAX_UPLOAD_BYTES=LIMIT)
def test_uploads_under_the_limit_still_work(api, people, every_kind):
    response = api(people["organiser"]).post(
        f"/api/campaigns/{every_kind['pairs'].pk}/topics/", {"file": topics_file(LIMIT // 2)}, format="multipart"
    )
    assert response.status_code == 201


@override_settings(CONCORD_MAX_UPLOAD_BYTES=LIMIT)
def test_an_oversized_form_post_gets_a_page_saying_so(people, every_kind):
    browser = Client()
    browser.force_login(people["organiser"])
    response = browser.post(f"/campaigns/{every_kind['pairs'].pk}/analyses/", {"analysis": "x" * 2 * LIMIT})
    assert response.status_code == 413
    assert response["Content-Type"].startswith("text/html")
    assert "uploads are limited to 4 KiB" in response.content.decode()
    assert "Content-Security-Policy" in response


@override_settings(CONCORD_MAX_UPLOAD_BYTES=LIMIT)
def test_the_limit_applies_before_login_and_csrf(every_kind):
    response = Client(enforce_csrf_checks=True).post("/accounts/login/", {"username": "x" * 2 * LIMIT, "password": "p"})
    assert response.status_code == 413


@override_settings(CONCORD_MAX_UPLOAD_BYTES=10 * LIMIT, DATA_UPLOAD_MAX_MEMORY_SIZE=LIMIT)
def test_djangos_own_memory_limit_is_a_413_too(api, people, every_kind):
    """Should DATA_UPLOAD_MAX_MEMORY_SIZE be set below the hard limit, its
    RequestDataTooBig (a 400 by default) is still answered 413."""
    response = api(people["organiser"]).post(
        f"/api/campaigns/{every_kind['pairs'].pk}/topics/",
        {"file": topics_file(100), "note": "x" * 2 * LIMIT},
        format="multipart",
    )
    assert response.status_code == 413 and response.json()["field"] == "body"


def test_the_default_limit_comes_from_the_environment():
    from django.conf import settings

    assert (
        settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        == settings.FILE_UPLOAD_MAX_MEMORY_SIZE
        == settings.CONCORD_MAX_UPLOAD_BYTES
    )
