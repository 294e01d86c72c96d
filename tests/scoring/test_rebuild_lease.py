"""One rebuild of a campaign at a time, whatever the number of workers (scoring/schedule.py
``hold``): a rebuild that finds another one running queues itself for after it and
computes nothing, so an older read can never store its topic partials last."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone
from django_tasks import default_task_backend

from scoring import jobs, schedule, tasks
from scoring.models import ScoringState

pytestmark = pytest.mark.django_db

DEFERRING = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend", "QUEUES": ["default", "analyses"]}}


@override_settings(TASKS=DEFERRING, CONCORD_REBUILD_INTERVAL=0)
def test_a_rebuild_beside_a_running_one_waits_for_it(campaign, monkeypatch):
    ran = []
    monkeypatch.setattr(jobs, "recompute_reports", lambda campaign_id: ran.append(campaign_id))
    running_until = timezone.now() + timedelta(minutes=5)
    ScoringState.objects.update_or_create(campaign=campaign, defaults={"pending": True, "running_until": running_until})
    tasks.recompute_campaign_reports.call(campaign.pk)
    assert ran == []
    [result] = default_task_backend.results
    assert result.args == [campaign.pk]
    # Tried again no later than the interval's floor of one second, not at the end of the lease.
    assert timezone.now() < result.task.run_after <= timezone.now() + timedelta(seconds=1)
    assert ScoringState.objects.get(campaign=campaign).running_until == running_until


@override_settings(TASKS=DEFERRING, CONCORD_REBUILD_INTERVAL=0)
def test_a_rebuild_takes_the_campaign_and_gives_it_back(campaign, monkeypatch):
    held = []
    monkeypatch.setattr(
        jobs,
        "recompute_reports",
        lambda campaign_id: held.append(ScoringState.objects.get(campaign=campaign).running_until),
    )
    tasks.recompute_campaign_reports.call(campaign.pk)
    assert held[0] is not None and held[0] > timezone.now() + timedelta(minutes=9)
    state = ScoringState.objects.get(campaign=campaign)
    assert state.running_until is None and state.finished_at is not None
    assert default_task_backend.results == []


def test_a_lease_left_by_a_dead_worker_expires(campaign):
    ScoringState.objects.update_or_create(
        campaign=campaign, defaults={"running_until": timezone.now() - timedelta(seconds=1)}
    )
    assert schedule.hold(campaign.pk) is None
    assert schedule.hold(campaign.pk) is not None  # now it is held


def test_recovery_ends_the_hold_of_a_lost_rebuild(campaign):
    """recover_jobs marks a rebuild whose worker died lost; its campaign is free at once."""
    from io import StringIO

    from django.core.management import call_command
    from django.test import TestCase
    from django_tasks_db.models import DBTaskResult

    database = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": []}}
    with override_settings(TASKS=database):
        result = tasks.recompute_campaign_reports.enqueue(campaign.pk)
        DBTaskResult.objects.get(pk=result.id).claim("w1")
        ScoringState.objects.update_or_create(
            campaign=campaign, defaults={"running_until": timezone.now() + timedelta(minutes=9)}
        )
        with TestCase.captureOnCommitCallbacks(execute=False):
            call_command("recover_jobs", "--dead-worker", "w1", stdout=StringIO())
    assert ScoringState.objects.get(campaign=campaign).running_until is None
