"""A large import is written a batch per transaction behind its campaign's
fence (annotate/imports/fence.py): never half visible, undone if it fails half way
or its process dies, and other campaigns go on meanwhile."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError
from django.utils import timezone

from annotate import selectors
from annotate.imports import fence as imports
from annotate.imports import rows, write
from annotate.imports.write import import_topics
from annotate.models import Assignment, Campaign, ImportFence, Judgment, JudgmentRevision, Membership, Topic
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from concord.busy import Busy
from concord.errors import InvalidInput
from scoring import tasks
from scoring.models import ScoringState, StaleTopic

pytestmark = pytest.mark.django_db

ITEMS, WORKERS = 12, 5


def crowdtruth(items: int = ITEMS, workers: int = WORKERS) -> bytes:
    lines = ["!amt_worker_ids,orig_id,response,gold"]
    lines += [f"crowd{w},{i},{(i + w) % 2},{i % 2}" for i in range(items) for w in range(workers)]
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture
def small_batches(monkeypatch):
    """Batches of 10 rows, so 60 judgments and 12 topics take many transactions."""
    monkeypatch.setattr(imports, "BATCH", 10)
    monkeypatch.setattr(imports, "PAUSE", 0)


def counts(campaign: Campaign) -> dict[str, int]:
    return {
        "topics": Topic.objects.filter(campaign=campaign).count(),
        "judgments": Judgment.objects.filter(topic__campaign=campaign).count(),
        "revisions": JudgmentRevision.objects.filter(judgment__topic__campaign=campaign).count(),
        "assignments": Assignment.objects.filter(topic__campaign=campaign).count(),
        "members": Membership.objects.filter(campaign=campaign).count(),
        "users": get_user_model().objects.count(),
        "runs": campaign.runs.count(),
    }


def watch_inserts(monkeypatch, during):
    """Call ``during(n)`` before the n-th insert of prepared rows (the import's steps)."""
    insert = rows.Table.insert
    seen = []

    def watched(self, *args, **kwargs):
        seen.append(self.model)
        during(len(seen))
        return insert(self, *args, **kwargs)

    monkeypatch.setattr(rows.Table, "insert", watched)
    return seen


def test_a_large_import_is_out_of_sight_until_its_last_transaction(people, campaign, small_batches, monkeypatch):
    target = create_campaign(creator=people["organiser"], kind="pairs", name="Crowd", overlap=5)
    observed = []

    def during(n: int) -> None:
        fence = ImportFence.objects.filter(campaign=target).first()
        refused = None
        try:
            selectors.campaign_for(people["organiser"], target.pk, need="organise")
        except Busy as error:
            refused = error.message
        # Another campaign is open as usual.
        other, _ = selectors.campaign_for(people["alice"], campaign.pk)
        observed.append((fence is not None, refused, other.pk))

    steps = watch_inserts(monkeypatch, during)
    summary = write.import_judgment_file(target, crowdtruth(), filename="crowd.csv")
    assert summary.judgments == ITEMS * WORKERS and summary.assessors_created == WORKERS
    # Topics, their assignments (none: no assessor of its own), the gold run, judgments: many steps.
    assert len(steps) >= ITEMS * WORKERS // 10
    assert all(fenced for fenced, _, _ in observed)
    assert {refused for _, refused, _ in observed} == {imports.fenced_message("Crowd")}
    assert {other for _, _, other in observed} == {campaign.pk}
    # Down with the last rows: everything there, the campaign open, its reports stale.
    assert not ImportFence.objects.exists()
    assert selectors.campaign_for(people["organiser"], target.pk, need="organise")[0] == target
    assert counts(target) | {"users": 0} == {
        "topics": ITEMS,
        "judgments": ITEMS * WORKERS,
        "revisions": ITEMS * WORKERS,
        "assignments": ITEMS * WORKERS,
        "members": 1 + WORKERS,
        "users": 0,
        "runs": 1,
    }
    assert set(JudgmentRevision.objects.filter(judgment__topic__campaign=target).values_list("source", "version")) == {
        ("import", 1)
    }


def test_a_small_import_is_one_transaction_without_a_fence(people, campaign, monkeypatch):
    fences = []
    watch_inserts(monkeypatch, lambda n: fences.append(ImportFence.objects.exists()))
    write.import_judgment_file(campaign, crowdtruth(3, 2), filename="crowd.csv")
    assert fences and not any(fences)


def test_a_large_import_that_fails_half_way_leaves_nothing(people, campaign, small_batches, monkeypatch):
    target = create_campaign(creator=people["organiser"], kind="pairs", name="Crowd", overlap=5)
    add_member(campaign=target, username="alice", role="assessor")
    import_topics(
        campaign=target,
        topics=[{"external_id": "kept", "data": {"query": "Q", "candidates": [{"id": "c", "text": "C"}]}}],
    )
    before = counts(target)

    def during(n: int) -> None:
        if n == 8:  # judgments are being written
            raise IntegrityError("UNIQUE constraint failed (planted)")

    watch_inserts(monkeypatch, during)
    with pytest.raises(InvalidInput, match="changed while the file was being checked"):
        write.import_judgment_file(target, crowdtruth(), filename="crowd.csv")
    assert counts(target) == before
    assert not ImportFence.objects.exists()
    assert not get_user_model().objects.filter(username__startswith="crowd").exists()


def test_an_abandoned_import_is_undone_by_recovery(people, campaign, small_batches, monkeypatch):
    """Its process died half way (a kill, the request's timeout): no undo ran, the
    fence stays (503) until recover_imports finds its heartbeat old."""
    target = create_campaign(creator=people["organiser"], kind="pairs", name="Crowd", overlap=5)
    saved = save_judgment(
        topic=Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).first(),
        assessor=people["alice"],
        payload={"matches": {"c1": True}},
        status="draft",
        version=0,
    )
    before = counts(target)

    class Died(BaseException):
        pass

    def during(n: int) -> None:
        if n == 12:  # topics (2 inserts), the gold run (1), assignments (6), judgments (6)
            raise Died

    monkeypatch.setattr(imports, "undo", lambda fence: None)  # a dead process undoes nothing
    watch_inserts(monkeypatch, during)
    with pytest.raises(Died):
        write.import_judgment_file(target, crowdtruth(), filename="crowd.csv")
    monkeypatch.undo()
    assert Judgment.objects.filter(topic__campaign=target).exists()  # half written
    with pytest.raises(Busy):
        selectors.campaign_for(people["organiser"], target.pk, need="organise")
    assert imports.recover_imports() == []  # its heartbeat is recent: it may still be writing
    ImportFence.objects.update(alive_at=timezone.now() - imports.LEASE - timedelta(seconds=1))
    assert imports.recover_imports() == [target.pk]
    assert counts(target) == before
    assert not ImportFence.objects.exists()
    assert selectors.campaign_for(people["organiser"], target.pk, need="organise")[0] == target
    assert Judgment.objects.get(pk=saved.judgment.pk).payload == {"matches": {"c1": True}}


def test_reports_wait_for_the_import_and_are_rebuilt_once_it_is_in(people, campaign):
    ImportFence.objects.create(
        campaign=campaign, owner="x", started_at=timezone.now(), alive_at=timezone.now(), marks={}
    )
    ScoringState.objects.update_or_create(campaign=campaign, defaults={"pending": True})
    StaleTopic.objects.all().delete()
    topic = campaign.topics.first()
    StaleTopic.objects.create(campaign=campaign, topic=topic, revision=1, marked_at=timezone.now())
    tasks.recompute_campaign_reports.call(campaign.pk)
    # Not rebuilt from half-written rows; the flag cleared, so the import's last
    # transaction (which marks every topic stale) queues the rebuild.
    assert StaleTopic.objects.filter(topic=topic).exists()
    assert ScoringState.objects.get(campaign=campaign).pending is False
