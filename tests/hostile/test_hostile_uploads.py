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


# -- before the user is known: 64 KiB ------------------------------------------------------
#
# An anonymous 49 MiB url-encoded body was read whole (the NUL check, CSRF) before
# anyone looked at who sent it: 8 at once held 717 MB. Until a session or an API
# token says who is asking, a body is at most CONCORD_ANONYMOUS_MAX_BODY_BYTES,
# refused by its Content-Length before any of it is read.

SMALL = 64 * 1024


def unread(response) -> bool:
    """Whether nothing of the request's body was read (Django's test payload notes a read)."""
    return not response.wsgi_request.environ["wsgi.input"].read_started


@pytest.mark.parametrize("url", ["/", "/campaigns/1/uploads/", "/api/campaigns/1/topics/", "/no/such/page/"])
def test_an_anonymous_body_over_64_kib_is_refused_unread_on_every_url(url):
    browser = Client(enforce_csrf_checks=True, raise_request_exception=False)
    body = "a=" + "x" * (SMALL - 1)  # one byte over
    response = browser.post(url, body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 413 and unread(response)
    sentence = "The request is too large for someone not signed in: sign in first"
    if url.startswith("/api/"):
        assert response.json()["field"] == "body" and response.json()["detail"].startswith(sentence)
    else:
        assert sentence in response.content.decode()
    assert browser.post(url, body[:-1], content_type="application/x-www-form-urlencoded").status_code != 413


@override_settings(CONCORD_MAX_UPLOAD_BYTES=4 * SMALL)
def test_a_signed_in_upload_takes_the_whole_upload_limit(people, every_kind):
    """A session (the uploads page, the API from a page) and an API token both count as known."""
    url = f"/api/campaigns/{every_kind['pairs'].pk}/topics/"

    def near_the_limit(prefix: str) -> io.BytesIO:
        file = io.BytesIO(topics_file(int(4 * SMALL * 0.8)).getvalue().replace(b'"big', b'"' + prefix.encode()))
        file.name = "topics.json"
        assert 3 * SMALL < len(file.getvalue()) < 4 * SMALL - 1000  # the form's other bytes fit too
        return file

    session = Client()
    session.force_login(people["organiser"])
    assert session.post(url, {"file": near_the_limit("web")}).status_code == 201
    token = Client().post("/api/auth/token/", {"username": "organiser", "password": "pw-organiser"}).json()["token"]
    by_token = Client().post(url, {"file": near_the_limit("api")}, HTTP_AUTHORIZATION=f"Token {token}")
    assert by_token.status_code == 201
    forged = Client(raise_request_exception=False).post(
        url, {"file": near_the_limit("forged")}, HTTP_AUTHORIZATION="Token not-a-token"
    )
    assert forged.status_code == 413 and unread(forged)
    over = session.post(url, {"file": topics_file(5 * SMALL)})
    assert over.status_code == 413 and unread(over)


def test_the_login_pages_stay_small_when_signed_in(people):
    browser = Client()
    browser.force_login(people["alice"])
    response = browser.post("/accounts/login/", {"username": "alice", "password": "x" * SMALL})
    assert response.status_code == 413 and "this page reads at most 64 KiB" in response.content.decode()
