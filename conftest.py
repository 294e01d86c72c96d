"""Fixtures shared by every test of the project (tests/ and each kind's kinds/<kind>/tests/):
users in every role, a small pairs campaign, the browser tests' chromium and log-in."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from contextlib import closing
from pathlib import Path

import pytest
from playwright.sync_api import expect

# Playwright's sync API (the browser tests) keeps an event loop alive for the
# rest of the session, which makes Django refuse ordinary ORM calls in later
# tests of the same run. Tests only; tests/test_settings.py runs its
# production checks without it.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

from django.contrib.auth.models import Permission
from rest_framework.test import APIClient

from annotate.imports.write import import_topics
from annotate.services.campaigns import create_campaign
from annotate.services.members import add_member
from tests.campaigns import pairs_topics

# A browser test waits for the state it needs (a text, a saved status), never
# for a time. Playwright's own 5 s default is too short for a machine running
# several test workers side by side (.ci/run): the wait still ends as soon as
# the state holds, so only a test about to fail waits longer.
expect.set_options(timeout=20_000)

# Fixtures through which a test reaches the database (pytest-django's own).
DATABASE_FIXTURES = frozenset(
    {"db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback", "live_server"}
)


def uses_database(item) -> bool:
    """Whether a collected test touches the database: a django_db mark, a
    database fixture anywhere in its fixture closure, a Django test case, or a
    test marked for PostgreSQL (the load test's server run)."""
    if item.get_closest_marker("django_db") is not None or item.get_closest_marker("postgres") is not None:
        return True
    if DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    cls = getattr(item, "cls", None)
    return cls is not None and any(base.__module__.startswith("django.test") for base in cls.__mro__)


def pytest_collection_modifyitems(config, items):
    """On PostgreSQL (.ci/run's second pass) only the tests that touch the
    database run again: the rest (metrics, parsers, pure functions) behave the
    same whatever the engine and already ran on SQLite."""
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        return
    keep = [item for item in items if uses_database(item)]
    dropped = [item for item in items if not uses_database(item)]  # faults/backup tests run their own SQLite file
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory):
    """Puts an empty, migrated Concord database (concord.settings) at a path, for the
    tests that run Concord's own processes on a SQLite file: ``manage.py migrate``
    runs once per test process (8 s here, about 20 s on a busy machine) and each
    test gets a copy of its result."""
    template = tmp_path_factory.mktemp("migrated") / "empty.sqlite3"
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE"}}
    env.update(DJANGO_SETTINGS_MODULE="concord.settings", CONCORD_SQLITE_PATH=str(template))
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"],
        cwd=Path(__file__).resolve().parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr

    def copy(path) -> Path:
        with closing(sqlite3.connect(template)) as source, closing(sqlite3.connect(path)) as target:
            source.backup(target)
        return Path(path)

    return copy


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Every browser test drives Debian's chromium (Playwright never downloads one)."""
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.fail("Debian's chromium is not installed: bash .ci/run installs it (apt-get install chromium)")
    return {
        **browser_type_launch_args,
        "executable_path": chromium,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    }


@pytest.fixture(autouse=True)
def own_temporary_folder(tmp_path, monkeypatch):
    """Each test's temporary files in its own folder (what ``tempfile.gettempdir()`` answers):
    the import wizard stages a file under the organiser's and campaign's ids, which another
    test process's database gives out too, so a shared folder let one test's preview replace
    another's staged file."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


@pytest.fixture
def make_user(django_user_model):
    def make(username: str, *, staff: bool = False, organiser: bool = False):
        user = django_user_model.objects.create_user(username=username, password="pw-" + username)
        if staff:
            user.is_staff = user.is_superuser = True
            user.save()
        if organiser:
            user.user_permissions.add(Permission.objects.get(codename="add_campaign"))
        return user

    return make


@pytest.fixture
def people(make_user):
    """admin (staff), organiser, assessors alice, bob and carol, and outsiders."""
    return {
        "admin": make_user("admin", staff=True),
        "organiser": make_user("organiser", organiser=True),
        "alice": make_user("alice"),
        "bob": make_user("bob"),
        "carol": make_user("carol"),
        "other_organiser": make_user("other_organiser", organiser=True),
        "outsider": make_user("outsider"),
    }


@pytest.fixture
def campaign(people):
    """A pairs campaign, overlap 2, organised by `organiser`, assessed by alice and bob."""
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="Names", overlap=2)
    add_member(campaign=campaign, username="alice", role="assessor")
    add_member(campaign=campaign, username="bob", role="assessor")
    import_topics(campaign=campaign, topics=pairs_topics())
    other = create_campaign(creator=people["other_organiser"], kind="pairs", name="Elsewhere", overlap=1)
    add_member(campaign=other, username="carol", role="assessor")
    import_topics(campaign=other, topics=pairs_topics(1))
    return campaign


@pytest.fixture
def api():
    def client_for(user=None) -> APIClient:
        client = APIClient()
        if user is not None:
            client.force_authenticate(user)
        return client

    return client_for


@pytest.fixture
def replace_spec(monkeypatch):
    """Change slots of a kind's spec for one test (restored afterwards):
    ``replace_spec("pairs", reports=...)``."""
    import dataclasses

    from django.apps import apps

    from kinds.apps import KindApp

    def replace(kind: str, **changes):
        config = next(c for c in apps.get_app_configs() if isinstance(c, KindApp) and c.spec.name == kind)
        monkeypatch.setattr(config, "spec", dataclasses.replace(config.spec, **changes))
        return config.spec

    return replace


@pytest.fixture
def add_analysis(replace_spec):
    """Give a kind an extra analysis for one test."""
    from concord.params import ParamsSchema
    from kinds.registry import KINDS
    from kinds.spec import Analysis

    def add(kind: str, name: str, run=None, *, chunks=None) -> Analysis:
        analysis = Analysis(
            name=name,
            run=run or (lambda given, params, progress: {}),
            params=ParamsSchema(),
            template="scoring/results/default.html",
            chunks=chunks,
        )
        replace_spec(kind, analyses=(*KINDS[kind].analyses, analysis))
        return analysis

    return add


@pytest.fixture
def intervals_on_few_units(monkeypatch):
    """Bootstrap intervals down to 2 units (the reports' minimum is stats.stopping.MIN_UNITS):
    for tests that compare the reports' intervals with the library's on a few units."""
    monkeypatch.setattr("stats.intervals.MIN_UNITS", 2)


# Browser tests: Playwright drives Debian's chromium against the live server.


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
