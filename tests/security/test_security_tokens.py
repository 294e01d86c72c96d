"""API tokens and accounts: tokens are hashed at rest,
expire, are one per device and revocable (one, the calling one, all), and a
password change revokes them all; authenticated responses are never stored
by caches; a campaign keeps an organiser; the members POST answers the same
whether or not the account existed; the token endpoint's 400 is the API's
``{"detail", "field"}``."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import models
from django.test import Client
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from rest_framework.test import APIClient

from annotate.models import Membership
from annotate.services.campaigns import create_campaign
from annotate.services.members import add_member

pytestmark = pytest.mark.django_db

TOKEN = "/api/auth/token/"
TOKENS = "/api/auth/tokens/"
User = get_user_model()


def login(username: str, password: str | None = None) -> dict:
    response = Client().post(
        TOKEN, {"username": username, "password": password or f"pw-{username}"}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    return response.json()


def with_token(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def works(token: str) -> bool:
    status = with_token(token).get("/api/campaigns/").status_code
    assert status in (200, 401), status
    return status == 200


# -- the token endpoint -----------------------------------------------------------


def test_the_token_endpoint_gives_a_token_and_its_expiry(people):
    before = timezone.now()
    answer = login("alice")
    assert set(answer) == {"token", "expiry"}
    expiry = parse_datetime(answer["expiry"])
    assert before + timedelta(hours=10) <= expiry <= timezone.now() + timedelta(hours=10)
    assert works(answer["token"])


def test_the_token_endpoint_answers_no_store(people):
    response = Client().post(TOKEN, {"username": "alice", "password": "pw-alice"})
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"username": "alice", "password": "wrong"}, "password"),
        ({"username": "nobody", "password": "pw-alice"}, "password"),
        ({"username": "alice"}, "password"),
        ({"password": "pw-alice"}, "username"),
        ({"username": "", "password": "pw-alice"}, "username"),
        ({"username": ["alice"], "password": "pw-alice"}, "username"),
        ({"username": "alice", "password": 7}, "password"),
    ],
)
def test_the_token_endpoints_400_names_the_field(people, data, field):
    response = Client().post(TOKEN, data, content_type="application/json")
    assert response.status_code == 400
    assert set(response.json()) == {"detail", "field"} and response.json()["field"] == field


def test_tokens_are_hashed_at_rest(people):
    """No column of any table holds the token (only a short lookup prefix and a hash)."""
    token = login("alice")["token"]
    assert len(token) >= 64
    for model in apps.get_models():
        text_fields = [
            f.name for f in model._meta.concrete_fields if isinstance(f, (models.CharField, models.TextField))
        ]
        for row in model.objects.values_list(*text_fields) if text_fields else []:
            assert not any(isinstance(value, str) and token in value for value in row), model


def test_an_expired_token_is_refused(people):
    AuthToken = apps.get_model("knox", "AuthToken")
    token = login("alice")["token"]
    assert works(token)
    AuthToken.objects.update(expiry=timezone.now() - timedelta(seconds=1))
    response = with_token(token).get("/api/campaigns/")
    assert response.status_code == 401


def test_the_lifetime_is_a_setting(people, settings):
    from knox.settings import knox_settings

    settings.REST_KNOX = {**settings.REST_KNOX, "TOKEN_TTL": timedelta(hours=2)}
    try:
        expiry = parse_datetime(login("alice")["expiry"])
        assert expiry <= timezone.now() + timedelta(hours=2)
    finally:
        knox_settings.reload()


def test_the_lifetime_comes_from_the_environment():
    """CONCORD_TOKEN_TTL_HOURS sets knox's TOKEN_TTL; a bad value fails loudly."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    show = "from django.conf import settings; print(settings.REST_KNOX['TOKEN_TTL'].total_seconds())"
    env = {k: v for k, v in os.environ.items() if k not in {"DJANGO_SETTINGS_MODULE", "CONCORD_TOKEN_TTL_HOURS"}}

    def run(value: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", show],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
            env={**env, "DJANGO_SETTINGS_MODULE": "concord.settings", "CONCORD_TOKEN_TTL_HOURS": value},
        )

    assert run("2").stdout.strip().splitlines()[-1] == "7200.0"
    bad = run("0")
    assert bad.returncode != 0 and "CONCORD_TOKEN_TTL_HOURS=0: must be at least 1" in bad.stderr


# -- one token per device, listed and revoked ---------------------------------------


def test_each_login_is_its_own_token_listed_without_its_secret(people):
    laptop, phone = login("alice")["token"], login("alice")["token"]
    login("bob")
    response = with_token(laptop).get(TOKENS)
    assert response.status_code == 200
    rows = response.json()
    assert len(rows) == 2
    assert all(set(row) == {"id", "created", "expiry", "current"} for row in rows)
    assert sorted(row["current"] for row in rows) == [False, True]
    assert laptop not in response.content.decode() and phone not in response.content.decode()
    assert {row["id"] for row in rows} == {laptop[:15], phone[:15]}
    assert "no-store" in response["Cache-Control"]


def test_revoking_one_token_leaves_the_others(people):
    laptop, phone = login("alice")["token"], login("alice")["token"]
    assert with_token(laptop).delete(f"{TOKENS}{phone[:15]}/").status_code == 204
    assert not works(phone) and works(laptop)
    assert [row["id"] for row in with_token(laptop).get(TOKENS).json()] == [laptop[:15]]


def test_nobody_revokes_anothers_token(people):
    alices, bobs = login("alice")["token"], login("bob")["token"]
    assert with_token(alices).delete(f"{TOKENS}{bobs[:15]}/").status_code == 404
    admin = APIClient()
    admin.force_login(people["admin"])
    assert admin.delete(f"{TOKENS}{bobs[:15]}/").status_code == 404
    assert works(bobs)


def test_logout_revokes_the_calling_token(people):
    laptop, phone = login("alice")["token"], login("alice")["token"]
    assert with_token(laptop).post("/api/auth/logout/").status_code == 204
    assert not works(laptop) and works(phone)


def test_logoutall_revokes_every_token_of_the_user(people):
    laptop, phone, bobs = login("alice")["token"], login("alice")["token"], login("bob")["token"]
    assert with_token(laptop).post("/api/auth/logoutall/").status_code == 204
    assert not works(laptop) and not works(phone) and works(bobs)


def test_a_session_can_list_and_revoke_tokens_too(people):
    token = login("alice")["token"]
    browser = APIClient()
    browser.force_login(people["alice"])
    rows = browser.get(TOKENS).json()
    assert [(row["id"], row["current"]) for row in rows] == [(token[:15], False)]
    assert browser.post("/api/auth/logoutall/").status_code == 204
    assert not works(token)


# -- a password change revokes every token --------------------------------------------


def test_set_password_revokes_every_token(people):
    tokens = [login("alice")["token"], login("alice")["token"]]
    bobs = login("bob")["token"]
    alice = User.objects.get(username="alice")
    alice.set_password("a-new-password-7")
    alice.save()
    assert not any(works(t) for t in tokens) and works(bobs)
    assert works(login("alice", "a-new-password-7")["token"])


def test_the_admins_password_form_revokes_every_token(people):
    token = login("alice")["token"]
    admin = Client()
    admin.force_login(people["admin"])
    response = admin.post(
        f"/admin/auth/user/{people['alice'].pk}/password/",
        {"password1": "a-new-password-7", "password2": "a-new-password-7", "usable_password": "true"},
    )
    assert response.status_code == 302, response.content[:500]
    assert not works(token)


def test_the_admin_disabling_the_password_revokes_every_token(people):
    token = login("alice")["token"]
    alice = User.objects.get(username="alice")
    alice.set_unusable_password()
    alice.save()
    assert not works(token)


def test_the_changepassword_command_revokes_every_token(people, monkeypatch):
    token = login("alice")["token"]
    monkeypatch.setattr("getpass.getpass", lambda prompt="": "a-new-password-7")
    call_command("changepassword", "alice", stdout=open("/dev/null", "w"))
    assert not works(token)


def test_logging_in_elsewhere_does_not_revoke(people):
    """Saving the user for other reasons (last_login on a page login) keeps the tokens."""
    token = login("alice")["token"]
    assert Client().post("/accounts/login/", {"username": "alice", "password": "pw-alice"}).status_code == 302
    alice = User.objects.get(username="alice")
    alice.first_name = "Alice"
    alice.save()
    assert works(token)


# -- Cache-Control: no-store on authenticated responses --------------------------------


def test_authenticated_pages_and_api_answers_are_not_stored(people):
    browser = Client()
    browser.force_login(people["alice"])
    assert "no-store" in browser.get("/")["Cache-Control"]
    api = APIClient()
    api.force_login(people["alice"])
    assert "no-store" in api.get("/api/campaigns/")["Cache-Control"]
    response = with_token(login("alice")["token"]).get("/api/campaigns/")
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]


def test_anonymous_static_files_stay_cacheable(client):
    response = client.get("/static/concord.css")
    assert response.status_code == 200 and "no-store" not in response.get("Cache-Control", "")


# -- a campaign keeps an organiser --------------------------------------------------


@pytest.fixture
def campaign(people):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="Names", overlap=1)
    add_member(campaign=campaign, username="alice", role="assessor")
    return campaign


def members(campaign) -> list[tuple[str, str]]:
    return sorted(Membership.objects.filter(campaign=campaign).values_list("user__username", "role"))


@pytest.mark.parametrize("who", ["organiser", "admin"])
def test_the_last_organiser_cannot_be_demoted(people, campaign, who):
    client = APIClient()
    client.force_login(people[who])
    before = members(campaign)
    response = client.post(
        f"/api/campaigns/{campaign.pk}/members/", {"username": "organiser", "role": "assessor"}, format="json"
    )
    assert response.status_code == 400 and response.json()["field"] == "role"
    assert "last organiser" in response.json()["detail"]
    assert members(campaign) == before


def test_an_organiser_may_step_down_when_another_remains(people, campaign):
    client = APIClient()
    client.force_login(people["organiser"])
    url = f"/api/campaigns/{campaign.pk}/members/"
    assert client.post(url, {"username": "bob", "role": "organiser"}, format="json").status_code == 201
    assert client.post(url, {"username": "organiser", "role": "assessor"}, format="json").status_code == 201
    assert ("organiser", "assessor") in members(campaign) and ("bob", "organiser") in members(campaign)
    bob = APIClient()
    bob.force_login(people["bob"])
    response = bob.post(url, {"username": "bob", "role": "assessor"}, format="json")
    assert response.status_code == 400 and response.json()["field"] == "role"


def test_the_service_keeps_an_organiser_too(people, campaign):
    from concord.errors import InvalidInput

    with pytest.raises(InvalidInput) as error:
        add_member(campaign=campaign, username="organiser", role="assessor")
    assert error.value.field == "role"
    assert ("organiser", "organiser") in members(campaign)


# -- the members POST tells whether an account existed, and nothing else (docs/pages.md, Roles) -------


def test_existing_and_new_accounts_differ_only_in_the_account_word(people, campaign):
    client = APIClient()
    client.force_login(people["organiser"])
    url = f"/api/campaigns/{campaign.pk}/members/"
    known = client.post(url, {"username": "carol", "role": "assessor"}, format="json")
    unknown = client.post(url, {"username": "newcomer", "role": "assessor"}, format="json")
    assert known.status_code == unknown.status_code == 201
    assert set(known.json()) == set(unknown.json())
    assert (known.json()["account"], unknown.json()["account"]) == ("existing", "new")
    assert {k: v for k, v in known.json().items() if k not in ("username", "account")} == {
        k: v for k, v in unknown.json().items() if k not in ("username", "account")
    }
    assert (known.json()["username"], unknown.json()["username"]) == ("carol", "newcomer")
    newcomer = User.objects.get(username="newcomer")
    assert not newcomer.has_usable_password()
    assert Client().post("/accounts/login/", {"username": "newcomer", "password": ""}).status_code == 200


def test_a_new_account_is_named_as_authentication_reads_it(people, campaign):
    client = APIClient()
    client.force_login(people["organiser"])
    response = client.post(
        f"/api/campaigns/{campaign.pk}/members/", {"username": "ｃａｒｏｌ", "role": "assessor"}, format="json"
    )
    assert response.status_code == 201 and response.json()["username"] == "carol"
    assert User.objects.filter(username__in=["carol", "ｃａｒｏｌ"]).count() == 1


@pytest.mark.parametrize("username", ["two words", "<b>x</b>", "=HYPERLINK(1)", "x" * 151, "", "tab\there"])
def test_a_name_that_cannot_be_a_username_is_refused(people, campaign, username):
    client = APIClient()
    client.force_login(people["organiser"])
    users, before = User.objects.count(), members(campaign)
    response = client.post(
        f"/api/campaigns/{campaign.pk}/members/", {"username": username, "role": "assessor"}, format="json"
    )
    assert response.status_code == 400 and response.json()["field"] == "username"
    assert User.objects.count() == users and members(campaign) == before
