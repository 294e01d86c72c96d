"""One organiser cannot hold up everyone's analyses: unfinished
jobs are limited per campaign and per user (429), and campaigns take turns in the
analyses queue (scoring/dispatch.py), on django-tasks-db's table, worked through
in its own order by a worker simulated in-process."""

from __future__ import annotations

import pytest
from django.test import TestCase, override_settings
from django.urls import reverse
from django.utils.module_loading import import_string
from django_tasks_db.models import DBTaskResult

from annotate.services.campaigns import create_campaign
from annotate.services.members import add_member
from scoring import services as scoring_services
from scoring.models import Job, JobChunk

pytestmark = pytest.mark.django_db
DATABASE_QUEUE = override_settings(TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": []}})


def start(api, user, campaign, analysis: str = "agreement"):
    return api(user).post(reverse("api-analyses", args=[campaign.pk]), {"analysis": analysis}, format="json")


def test_unfinished_jobs_are_limited_per_campaign(api, client, campaign, people, settings):
    settings.CONCORD_JOBS_PER_CAMPAIGN = 3
    answers = [start(api, people["organiser"], campaign) for _ in range(4)]
    assert [a.status_code for a in answers] == [202, 202, 202, 429]
    assert answers[3].json()["field"] == "analysis" and "3 analyses queued or running" in answers[3].json()["detail"]
    assert Job.objects.filter(campaign=campaign).count() == 3
    client.force_login(people["organiser"])
    page = client.post(reverse("campaign-analyses", args=[campaign.pk]), {"analysis": "agreement"})
    assert page.status_code == 429 and "the most at once" in page.content.decode()
    # Cancelling one makes room.
    scoring_services.cancel_job(job=Job.objects.filter(campaign=campaign).first(), user=people["organiser"])
    assert start(api, people["organiser"], campaign).status_code == 202


def test_unfinished_jobs_are_limited_per_user_across_campaigns(api, campaign, people, settings):
    settings.CONCORD_JOBS_PER_USER = 2
    second = create_campaign(creator=people["organiser"], kind="pairs", name="Second")
    add_member(campaign=second, username="organiser", role="organiser")
    assert start(api, people["organiser"], campaign).status_code == 202
    assert start(api, people["organiser"], second).status_code == 202
    refused = start(api, people["organiser"], second)
    assert refused.status_code == 429 and "in all your campaigns" in refused.json()["detail"]
    # Another organiser of the campaign has their own allowance.
    add_member(campaign=campaign, username="other_organiser", role="organiser")
    assert start(api, people["other_organiser"], campaign).status_code == 202


@pytest.fixture
def chunked(add_analysis):
    """A chunked analysis on the pairs kind: six chunks that each return their index."""
    add_analysis(
        "pairs",
        "sum",
        run=lambda given, params, progress: scoring_services.Chunked({}, [{"i": i} for i in range(6)]),
        chunks=(lambda snapshot, p: {"i": p["i"]}, lambda snapshot, results: {"n": len(results)}),
    )


def work_one() -> tuple[int, str] | None:
    """What one worker does: take the first ready task in the queue's order and run it.
    Returns (the job's campaign, "start" or "chunk i"), or None when the queue is empty."""
    row = DBTaskResult.objects.ready().filter(queue_name="analyses").first()
    if row is None:
        return None
    row.claim("w1")
    args = row.args_kwargs["args"]
    with TestCase.captureOnCommitCallbacks(execute=True):
        import_string(row.task_path).call(*args)
    row.set_successful(None)
    what = f"chunk {args[1]}" if len(args) == 2 else "start"
    return Job.objects.get(pk=args[0]).campaign.name, what


def test_campaigns_take_turns_in_the_analyses_queue(people, campaign, chunked):
    """Two organisers' evaluations: the second's waits one chunk, not all of the first's."""
    other = create_campaign(creator=people["other_organiser"], kind="pairs", name="Theirs")
    with DATABASE_QUEUE:
        with TestCase.captureOnCommitCallbacks(execute=True):
            scoring_services.start_analysis(campaign=campaign, analysis="sum", params=None, user=people["organiser"])
        done = [work_one()]  # the first job starts: split into six chunks, one of them queued
        assert JobChunk.objects.filter(waits_turn=True).count() == 5
        with TestCase.captureOnCommitCallbacks(execute=True):
            scoring_services.start_analysis(campaign=other, analysis="sum", params=None, user=people["other_organiser"])
        while (step := work_one()) is not None:
            done.append(step)
    assert done[:7] == [
        ("Names", "start"),
        ("Names", "chunk 0"),
        ("Theirs", "start"),
        ("Names", "chunk 1"),
        ("Theirs", "chunk 0"),
        ("Names", "chunk 2"),
        ("Theirs", "chunk 1"),
    ]
    assert len(done) == 14
    assert [(job.status, job.result) for job in Job.objects.all()] == [("done", {"n": 6})] * 2


def test_a_campaigns_jobs_run_one_after_another_behind_other_campaigns(people, campaign, chunked, settings):
    """One organiser's three jobs, then another's one: the other's runs second, not fourth."""
    other = create_campaign(creator=people["other_organiser"], kind="pairs", name="Theirs")
    with DATABASE_QUEUE:
        with TestCase.captureOnCommitCallbacks(execute=True):
            for _ in range(3):
                scoring_services.start_analysis(
                    campaign=campaign, analysis="agreement", params=None, user=people["organiser"]
                )
            scoring_services.start_analysis(
                campaign=other, analysis="agreement", params=None, user=people["other_organiser"]
            )
        assert Job.objects.filter(waits_turn=True).count() == 2  # one slot per campaign: the rest wait
        done = []
        while (step := work_one()) is not None:
            done.append(step)
    assert [name for name, _ in done] == ["Names", "Theirs", "Names", "Names"]
    assert set(Job.objects.values_list("status", flat=True)) == {"done"}
