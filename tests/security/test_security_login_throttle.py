"""Login throttling: after CONCORD_LOGIN_ATTEMPTS failed attempts for one
username from one address within CONCORD_LOGIN_WINDOW_SECONDS, the login
page, the admin's login page and the API token endpoint refuse (429) until
the window ends, even the right password."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.db.models import F
from django.test import Client, override_settings

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
ADMIN_LOGIN = "/admin/login/"
TOKEN = "/api/auth/token/"


def fail(client: Client, url: str, username: str, times: int, **extra) -> None:
    for _ in range(times):
        response = client.post(url, {"username": username, "password": "wrong"}, **extra)
        assert response.status_code in (200, 400), response.status_code


def test_the_login_page_refuses_after_five_failures_with_a_clear_message(people):
    browser = Client()
    fail(browser, LOGIN, "alice", 5)
    response = browser.post(LOGIN, {"username": "alice", "password": "pw-alice"})
    assert response.status_code == 429
    page = response.content.decode()
    assert "Too many failed login attempts for this username from your address" in page
    assert 'role="alert"' in page
    assert 1 <= int(response["Retry-After"]) <= 60
    assert "_auth_user_id" not in browser.session


def test_fewer_failures_do_not_stop_the_right_password(people):
    browser = Client()
    fail(browser, LOGIN, "alice", 4)
    response = browser.post(LOGIN, {"username": "alice", "password": "pw-alice"})
    assert response.status_code == 302 and browser.session["_auth_user_id"] == str(people["alice"].pk)


def test_the_count_is_per_username_and_address(people):
    fail(Client(), LOGIN, "Alice", 5)  # usernames count case-insensitively
    assert Client().post(LOGIN, {"username": "alice", "password": "pw-alice"}).status_code == 429
    assert Client().post(LOGIN, {"username": "bob", "password": "pw-bob"}).status_code == 302
    elsewhere = Client(REMOTE_ADDR="192.0.2.7")
    assert elsewhere.post(LOGIN, {"username": "alice", "password": "pw-alice"}).status_code == 302


def test_the_window_ends(people):
    fail(Client(), LOGIN, "alice", 5)
    assert Client().post(LOGIN, {"username": "alice", "password": "pw-alice"}).status_code == 429
    # 61 seconds pass: django-axes keeps the failures in the database, so
    # they are moved into the past (its clock is Django's timezone.now()).
    AccessAttempt.objects.update(attempt_time=F("attempt_time") - timedelta(seconds=61))
    assert Client().post(LOGIN, {"username": "alice", "password": "pw-alice"}).status_code == 302


def test_the_api_token_endpoint_answers_429(people):
    client = Client()
    for _ in range(5):
        wrong = client.post(TOKEN, {"username": "alice", "password": "wrong"}, content_type="application/json")
        assert wrong.status_code == 400
    response = client.post(TOKEN, {"username": "alice", "password": "pw-alice"}, content_type="application/json")
    assert response.status_code == 429
    assert "Too many failed login attempts" in response.json()["detail"]
    assert int(response["Retry-After"]) >= 1
    # form-encoded, as curl -d sends it, counts the same
    assert client.post(TOKEN, {"username": "alice", "password": "pw-alice"}).status_code == 429


def test_failures_on_one_login_view_count_on_the_others(people):
    client = Client()
    fail(client, TOKEN, "admin", 3)
    fail(client, ADMIN_LOGIN, "admin", 2)
    assert client.post(LOGIN, {"username": "admin", "password": "pw-admin"}).status_code == 429
    assert client.post(ADMIN_LOGIN, {"username": "admin", "password": "pw-admin"}).status_code == 429


@override_settings(CONCORD_LOGIN_ATTEMPTS=2, CONCORD_LOGIN_WINDOW_SECONDS=600)
def test_the_limits_are_settings(people):
    client = Client()
    fail(client, LOGIN, "bob", 2)
    response = client.post(LOGIN, {"username": "bob", "password": "pw-bob"})
    assert response.status_code == 429 and 590 <= int(response["Retry-After"]) <= 600


def test_the_throttle_is_documented_in_the_schema(client):
    schema = json.loads(client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").content)
    responses = schema["paths"]["/api/auth/token/"]["post"]["responses"]
    assert {"200", "400", "429"} <= set(responses)
