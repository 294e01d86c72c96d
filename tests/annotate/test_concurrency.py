"""Concurrent saves of one judgment: one wins, the others get a conflict,
none is lost or silently overwritten (SQLite IMMEDIATE transactions; row
locks on PostgreSQL)."""

from __future__ import annotations

import os
import threading

import pytest
from django.db import connection, connections

from annotate.models import Judgment, JudgmentRevision, Topic
from annotate.services.judgments import Conflict, save_judgment

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_database_is_the_one_asked_for():
    wanted = "postgresql" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "sqlite"
    assert connection.vendor == wanted


def test_racing_first_saves_keep_exactly_one(people, campaign):
    topic = Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).first()
    # Six different drafts (an identical one would be a harmless retry).
    payloads = [{"matches": {"c1": bool(i & 1), "c2": bool(i & 2), "c3": bool(i & 4)}} for i in range(6)]
    outcomes: list[int | str] = []
    start = threading.Barrier(6)

    def save(index: int) -> None:
        start.wait()
        try:
            save_judgment(topic=topic, assessor=people["alice"], payload=payloads[index], status="draft", version=0)
            outcomes.append(index)
        except Conflict:
            outcomes.append("conflict")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=save, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [o for o in outcomes if o != "conflict"]
    assert len(winners) == 1 and outcomes.count("conflict") == 5
    judgment = Judgment.objects.get(topic=topic, assessor=people["alice"])
    assert (judgment.version, judgment.payload) == (1, payloads[winners[0]])
    assert JudgmentRevision.objects.filter(judgment=judgment).count() == 1
