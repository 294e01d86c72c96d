"""Browser tests: Playwright drives Debian's chromium against the live server."""

from __future__ import annotations

import pytest


@pytest.fixture
def login(live_server):
    def log_in(page, username: str) -> None:
        page.goto(f"{live_server.url}/accounts/login/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill("pw-" + username)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{live_server.url}/")

    return log_in


@pytest.fixture
def new_page(browser):
    """Pages in fresh browser contexts (separate logins), closed after the test
    so no page keeps polling the live server once its database is gone."""
    contexts = []

    def make():
        context = browser.new_context()
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def findings():
    """axe and the layout checks (tests/e2e/axe.py), page after page, each person
    logged in once; their tabs closed after the test."""
    from tests.e2e.axe import Findings

    with Findings() as found:
        yield found
