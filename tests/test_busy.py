"""A request that cannot get the database's lock in time answers 503 with
Retry-After (JSON for the API, a short page otherwise) and writes nothing;
never 500 (concord/busy.py)."""

from __future__ import annotations

import json
import sqlite3
from contextlib import contextmanager

import pytest
from django.db import InterfaceError, OperationalError, connection, connections
from django.test import RequestFactory

from annotate.models import Assignment, Judgment, Topic
from annotate.services.members import add_member
from concord import busy, error_pages


class FakeDriverError(Exception):
    def __init__(self, sqlstate: str) -> None:
        super().__init__(f"driver error {sqlstate}")
        self.sqlstate = sqlstate


def wrapped(driver: Exception) -> OperationalError:
    """As Django raises a driver's error: its own class, the driver's as the cause."""
    try:
        try:
            raise driver
        except Exception as error:
            raise OperationalError(*error.args) from error
    except OperationalError as outer:
        return outer


@pytest.mark.parametrize(
    ("error", "transient"),
    [
        (OperationalError("database is locked"), True),
        (wrapped(sqlite3.OperationalError("database is locked")), True),
        (wrapped(FakeDriverError("55P03")), True),  # PostgreSQL lock_timeout
        (wrapped(FakeDriverError("40P01")), True),  # deadlock
        (wrapped(FakeDriverError("08006")), True),  # connection failure
        (InterfaceError("connection already closed"), True),
        (busy.Busy("an import is being written"), True),
        (OperationalError("no such table: annotate_judgment"), False),
        (OperationalError("database or disk is full"), False),
        (wrapped(FakeDriverError("23505")), False),  # unique violation: not a retry's business
        (ValueError("database is locked"), False),
    ],
)
def test_transient_errors_are_told_from_faults(error, transient):
    assert busy.is_transient(error) is transient


def test_an_error_raised_outside_a_view_gets_the_same_503():
    """A middleware's write (a session saved) meets the lock: the 500 handler answers 503."""
    request = RequestFactory().get("/campaigns/1/")
    try:
        raise OperationalError("database is locked")
    except OperationalError:
        page = error_pages.server_error(request)
    assert page.status_code == 503 and page["Retry-After"] == str(busy.RETRY_AFTER_SECONDS)
    assert "Busy: please try again" in page.content.decode()
    api = RequestFactory().put("/api/campaigns/1/topics/q1/judgment/")
    try:
        raise OperationalError("database is locked")
    except OperationalError:
        answer = error_pages.server_error(api)
    assert answer.status_code == 503 and json.loads(answer.content) == {"detail": busy.message()}


def test_any_other_error_is_still_a_500():
    request = RequestFactory().get("/campaigns/1/")
    try:
        raise OperationalError("database disk image is malformed")
    except OperationalError:
        page = error_pages.server_error(request)
    assert page.status_code == 500


@contextmanager
def write_lock_held_elsewhere():
    """Another connection holds the write lock (SQLite) or the judgment tables
    (PostgreSQL) while ours may wait only 0.3 s for it."""
    settings = connection.settings_dict
    saved = {key: value for key, value in settings["OPTIONS"].items()}
    if connection.vendor == "sqlite":
        settings["OPTIONS"]["timeout"] = 0.3
    else:
        settings["OPTIONS"]["options"] = "-c lock_timeout=300"
    connection.close()
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            if other.vendor == "sqlite":
                cursor.execute("BEGIN IMMEDIATE")
            else:
                cursor.execute("BEGIN")
                cursor.execute("LOCK TABLE annotate_judgment, annotate_assignment IN EXCLUSIVE MODE")
            yield
            cursor.execute("ROLLBACK")
    finally:
        other.close()
        settings["OPTIONS"].clear()
        settings["OPTIONS"].update(saved)
        connection.close()


@pytest.mark.django_db(transaction=True)
def test_a_save_that_cannot_get_the_lock_answers_503_and_saves_nothing(people, campaign, api):
    topic = Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).first()
    client = api(people["alice"])
    url = f"/api/campaigns/{campaign.pk}/topics/{topic.external_id}/judgment/"
    body = {"payload": {"matches": {"c1": True}}, "status": "draft", "version": 0}
    with write_lock_held_elsewhere():
        answer = client.put(url, body, format="json")
    assert answer.status_code == 503, answer.content
    assert answer["Retry-After"] == str(busy.RETRY_AFTER_SECONDS)
    assert answer.json() == {"detail": busy.message()}
    assert not Judgment.objects.filter(topic=topic).exists()
    # Sent again once the lock is free, it is saved.
    assert client.put(url, body, format="json").status_code == 200
    assert Judgment.objects.get(topic=topic, assessor=people["alice"]).payload == {"matches": {"c1": True}}


@pytest.mark.django_db(transaction=True)
def test_a_page_that_cannot_get_the_lock_answers_a_short_503_page(people, campaign, client):
    # A third assessor, unassigned: "top up" has assignments to write.
    campaign.overlap = 3
    campaign.save(update_fields=["overlap"])
    add_member(campaign=campaign, username="carol", role="assessor")
    Assignment.objects.filter(assessor=people["carol"]).delete()
    before = Assignment.objects.filter(topic__campaign=campaign).count()
    client.force_login(people["organiser"])
    with write_lock_held_elsewhere():
        page = client.post(f"/campaigns/{campaign.pk}/assignments/", {"action": "topup"})
    assert page.status_code == 503 and page["Retry-After"] == str(busy.RETRY_AFTER_SECONDS)
    text = page.content.decode()
    assert "Busy: please try again" in text and "nothing was saved" in text
    assert Assignment.objects.filter(topic__campaign=campaign).count() == before
