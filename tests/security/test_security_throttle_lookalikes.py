"""Login throttling keys on the username exactly as authentication sees it
: after five failures for `bob`, his fullwidth, upper-case
or space-padded look-alikes are refused too, on the login page, the admin's
login page and the API token endpoint, and failures under different
look-alikes add up to one count."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
ADMIN_LOGIN = "/admin/login/"
TOKEN = "/api/auth/token/"
PATHS = {"page": LOGIN, "admin": ADMIN_LOGIN, "token": TOKEN}

#: name -> look-alikes authentication maps onto it (NFKC, then case and
#: surrounding white space, which the throttle also folds).
LOOKALIKES = {
    "bob": ["ｂｏｂ", "ＢＯＢ", "Bob", "BOB", "  bob  ", "\tｂｏｂ "],
    "admin": ["ａｄｍｉｎ", "ＡＤＭＩＮ", "Admin", " admin "],
}


def post(client: Client, path: str, username: str, password: str):
    if path == TOKEN:
        return client.post(path, {"username": username, "password": password}, content_type="application/json")
    return client.post(path, {"username": username, "password": password})


def fail(client: Client, path: str, username: str) -> None:
    response = post(client, path, username, "wrong")
    assert response.status_code in (200, 400), (path, username, response.status_code)


def who_is_allowed(path: str) -> str:
    """The account whose right password passes on ``path`` (the admin's login wants staff)."""
    return "admin" if path == ADMIN_LOGIN else "bob"


@pytest.mark.parametrize("where", sorted(PATHS))
@pytest.mark.parametrize("index", range(4))
def test_failures_for_the_name_stop_its_lookalikes(people, where, index):
    path = PATHS[where]
    name = who_is_allowed(path)
    lookalike = LOOKALIKES[name][index]
    client = Client()
    for _ in range(5):
        fail(client, path, name)
    response = post(client, path, lookalike, f"pw-{name}")
    assert response.status_code == 429, (where, lookalike, response.status_code)
    assert "_auth_user_id" not in client.session


@pytest.mark.parametrize("where", sorted(PATHS))
def test_failures_under_lookalikes_add_up_for_the_name(people, where):
    path = PATHS[where]
    name = who_is_allowed(path)
    client = Client()
    for lookalike in (LOOKALIKES[name] * 2)[:5]:
        fail(client, path, lookalike)
    response = post(client, path, name, f"pw-{name}")
    assert response.status_code == 429, (where, response.status_code)
    assert "_auth_user_id" not in client.session


def test_lookalike_failures_on_one_path_count_on_the_others(people):
    client = Client()
    fail(client, TOKEN, "ａｄｍｉｎ")
    fail(client, TOKEN, "ADMIN")
    fail(client, LOGIN, " Admin")
    fail(client, ADMIN_LOGIN, "ａｄｍｉｎ")
    fail(client, ADMIN_LOGIN, "admin ")
    assert post(client, ADMIN_LOGIN, "admin", "pw-admin").status_code == 429
    assert post(client, LOGIN, "ａｄｍｉｎ", "pw-admin").status_code == 429
    assert post(client, TOKEN, "admin", "pw-admin").status_code == 429


def test_the_token_endpoint_reads_the_username_as_the_login_page_does(people):
    """Fullwidth letters and surrounding spaces name the same account on every path."""
    assert post(Client(), LOGIN, " ｂｏｂ ", "pw-bob").status_code == 302
    response = post(Client(), TOKEN, " ｂｏｂ ", "pw-bob")
    assert response.status_code == 200 and response.json()["token"]


def test_other_names_and_addresses_are_not_caught(people):
    client = Client()
    for _ in range(5):
        fail(client, LOGIN, "ｂｏｂ")
    assert post(client, LOGIN, "alice", "pw-alice").status_code == 302
    assert post(Client(REMOTE_ADDR="192.0.2.9"), LOGIN, "bob", "pw-bob").status_code == 302
