"""Browser tests: Playwright drives Debian's chromium against the live server."""

from __future__ import annotations

import os
import shutil

import pytest


@pytest.fixture(scope="module", autouse=True)
def allow_orm_beside_playwright(django_db_setup):
    """Playwright's sync API keeps an event loop running in the test thread;
    the ORM calls the tests (and their database teardown) make there are
    ordinary synchronous ones. Module-scoped, so it outlives that teardown;
    it sets the test database up first, before any browser starts."""
    before = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    yield
    if before is None:
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = before


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.fail("Debian's chromium is not installed: bash .ci/run installs it (apt-get install chromium)")
    return {
        **browser_type_launch_args,
        "executable_path": chromium,
        "args": ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    }


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
