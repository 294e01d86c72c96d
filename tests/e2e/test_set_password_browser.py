"""A set-password link opened in Chromium (annotate/services/accounts.py,
static/annotate/set_password.js): the code travels in the fragment, the page
posts it, the person types a password by keyboard and logs in with it; the
server never sees the code in a URL or Referer."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import authenticate
from django.core.signals import request_started
from playwright.sync_api import expect

from annotate.services import accounts
from annotate.services.members import add_member

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_link_opened_in_the_browser_sets_the_password(new_page, live_server, campaign, people):
    add_member(campaign=campaign, username="newbie", role="assessor")
    path = accounts.set_password_link(campaign=campaign, username="newbie", organiser=people["organiser"])
    token = path.rsplit(".", 1)[1]
    seen: list[str] = []

    def record(sender, environ, **kwargs):
        seen.append(" ".join(environ.get(key, "") for key in ("PATH_INFO", "QUERY_STRING", "HTTP_REFERER")))

    request_started.connect(record)
    try:
        page = new_page()
        page.goto(live_server.url + path)
        expect(page.get_by_text("For newbie")).to_be_visible()
        assert page.url == f"{live_server.url}/accounts/set-password/"  # the code left the address bar
        page.get_by_label("New password:", exact=True).press_sequentially("a long sentence 42")
        page.keyboard.press("Tab")
        page.keyboard.type("a long sentence 42")
        page.keyboard.press("Enter")
        expect(page.get_by_role("heading", name="Password set")).to_be_visible()
        page.get_by_role("link", name="log in").click()
        page.get_by_label("Username").fill("newbie")
        page.get_by_label("Password").fill("a long sentence 42")
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{live_server.url}/")
        # The same link again: void.
        page.goto(live_server.url + path)
        expect(page.locator("#link-void")).to_contain_text("does not work any more")
    finally:
        request_started.disconnect(record)
    assert authenticate(username="newbie", password="a long sentence 42") is not None
    assert any(re.match(r"/accounts/set-password/", line) for line in seen)
    assert not [line for line in seen if token in line]
