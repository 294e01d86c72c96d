"""What the judging page relies on when a session ends or changes
(static/annotate/judge.js): ``GET /api/auth/session/`` says who is signed in
now and gives the session's CSRF token; a sign-in rotates the token, so a
page holding the old one is refused until it asks again; the sign-in opened
from the page ends on a page that links back to the topic, never elsewhere."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from knox.models import AuthToken

from annotate.models import Judgment, Topic

pytestmark = pytest.mark.django_db

SESSION = "/api/auth/session/"
SIGNED_IN = "/accounts/signed-in/"


def sign_in(client: Client, username: str) -> None:
    """The login form, as a browser posts it (with the CSRF token of its cookie)."""
    client.get("/accounts/login/")
    token = client.cookies["csrftoken"].value
    response = client.post(
        "/accounts/login/", {"username": username, "password": f"pw-{username}", "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302, response.content


def csrf_token(client: Client) -> str:
    response = client.get(SESSION)
    assert response.status_code == 200
    return response.json()["csrf_token"]


def save(client: Client, topic: Topic, token: str, payload: dict, version: int):
    return client.put(
        f"/api/campaigns/{topic.campaign_id}/topics/{topic.external_id}/judgment/",
        json.dumps({"payload": payload, "status": "draft", "version": version}),
        content_type="application/json",
        HTTP_X_CSRFTOKEN=token,
    )


def test_nobody_signed_in_gets_no_user_and_a_token_never_cached(people):
    response = Client().get(SESSION)
    assert response.status_code == 200
    body = response.json()
    assert body["user"] is None and len(body["csrf_token"]) == 64
    assert "no-store" in response["Cache-Control"]


def test_the_session_says_who_is_signed_in(people):
    client = Client()
    sign_in(client, "alice")
    assert client.get(SESSION).json()["user"] == {"id": people["alice"].pk, "username": "alice"}
    sign_in(client, "bob")  # someone else, in the same browser
    assert client.get(SESSION).json()["user"] == {"id": people["bob"].pk, "username": "bob"}


def test_a_token_caller_is_named_too(people):
    _, token = AuthToken.objects.create(people["carol"])
    answer = Client().get(SESSION, HTTP_AUTHORIZATION=f"Token {token}").json()
    assert answer["user"] == {"id": people["carol"].pk, "username": "carol"}


def test_after_a_sign_in_in_another_tab_the_old_token_is_refused_and_a_fresh_one_works(people, campaign):
    topic = Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).first()
    browser = Client(enforce_csrf_checks=True)
    sign_in(browser, "alice")
    page_token = csrf_token(browser)
    assert save(browser, topic, page_token, {"matches": {"c1": True}}, 0).status_code == 200

    sign_in(browser, "alice")  # again, in another tab: the CSRF token rotates
    refused = save(browser, topic, page_token, {"matches": {"c1": False}}, 1)
    assert refused.status_code == 403 and refused.json()["detail"].startswith("CSRF Failed")
    assert Judgment.objects.get(topic=topic, assessor=people["alice"]).version == 1  # nothing written

    saved = save(browser, topic, csrf_token(browser), {"matches": {"c1": False}}, 1)
    assert saved.status_code == 200 and saved.json()["version"] == 2


def test_an_ended_session_is_refused_with_401_and_the_session_says_nobody(people, campaign):
    topic = Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).first()
    browser = Client(enforce_csrf_checks=True)
    sign_in(browser, "alice")
    token = csrf_token(browser)
    browser.cookies.pop("sessionid")  # the session expires
    assert save(browser, topic, token, {"matches": {"c1": True}}, 0).status_code == 401
    assert browser.get(SESSION).json()["user"] is None
    assert not Judgment.objects.filter(topic=topic).exists()


@pytest.mark.parametrize(
    ("topic", "linked"),
    [
        ("/campaigns/1/topics/q1/judge/", True),
        ("/campaigns/1/topics/q1/consensus/", True),
        ("//evil.example/campaigns/1/", False),
        ("https://evil.example/campaigns/1/", False),
        ("javascript:alert(1)", False),
        ("/" + "a" * 600, False),
        ("", False),
    ],
)
def test_the_signed_in_page_links_back_to_a_path_on_this_site_only(people, topic, linked):
    client = Client()
    client.force_login(people["alice"])
    response = client.get(SIGNED_IN, {"topic": topic})
    assert response.status_code == 200
    page = response.content.decode()
    assert "You are signed in as <strong>alice</strong>" in page
    assert ("Open the topic again" in page) is linked
    if linked:
        assert f'href="{topic}"' in page


def test_the_signed_in_page_asks_to_sign_in_first():
    response = Client().get(SIGNED_IN, {"topic": "/campaigns/1/topics/q1/judge/"})
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
