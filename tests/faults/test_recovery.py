"""recover_jobs decides from the queue what a lost worker left unfinished
(in-process, on django-tasks-db's table; tests/faults/test_worker_killed.py
kills real workers)."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import TestCase, override_settings
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from scoring import services as scoring_services
from scoring import tasks
from scoring.models import Job, JobChunk, ScoringState, StaleTopic

pytestmark = pytest.mark.django_db
DATABASE_QUEUE = override_settings(TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": []}})


@pytest.fixture
def queue():
    with DATABASE_QUEUE:
        yield


def recover(*args: str) -> str:
    """The command, with its on-commit enqueues run as outside the test's transaction."""
    out = StringIO()
    with TestCase.captureOnCommitCallbacks(execute=True):
        call_command("recover_jobs", *args, stdout=out)
    return out.getvalue()


def queued(path: str) -> list[tuple]:
    return sorted(
        (row.status, *row.args_kwargs["args"]) for row in DBTaskResult.objects.filter(task_path=f"scoring.tasks.{path}")
    )


def running(task_result, worker: str) -> DBTaskResult:
    row = DBTaskResult.objects.get(pk=task_result.id)
    row.claim(worker)
    return row


@pytest.fixture
def summed(add_analysis):
    """A chunked analysis that sums numbers, on the pairs kind."""
    add_analysis(
        "pairs",
        "sum",
        chunks=(
            lambda snapshot, p: {"sum": sum(p["xs"])},
            lambda snapshot, results: {"total": sum(r["sum"] for r in results)},
        ),
    )

    def make(campaign, finished: int) -> Job:
        job = Job.objects.create(
            campaign=campaign, analysis="sum", status="running", snapshot={}, chunks_total=3, chunks_done=finished
        )
        for index in range(3):
            JobChunk.objects.create(
                job=job,
                index=index,
                params={"xs": [index, 10]},
                result={"sum": index + 10} if index < finished else None,
                finished_at=timezone.now() if index < finished else None,
            )
        return job

    return make


def test_a_dead_worker_of_this_machine_is_told_from_a_live_one():
    assert scoring_services.worker_alive("some-random-id") is None  # not host:pid:boot: cannot tell
    assert scoring_services.worker_alive("elsewhere.example:12:abcdef01") is None  # another machine
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert scoring_services.worker_alive(scoring_services.worker_id(gone.pid)) is False
    # A live process that is not a worker (a reused pid), and one from before a reboot.
    assert scoring_services.worker_alive(scoring_services.worker_id(os.getpid())) is False
    host, pid, _ = scoring_services.worker_id(os.getpid()).split(":")
    assert scoring_services.worker_alive(f"{host}:{pid}:00000000") is False


def test_a_lost_plain_job_is_marked_and_queued_again_from_the_start(queue, campaign):
    job = Job.objects.create(campaign=campaign, analysis="agreement", status="running", progress=0.4, message="3 of 5")
    lost = running(tasks.run_analysis.enqueue(job.pk), "w1")
    assert recover() == "Nothing to recover.\n"  # w1 could be alive anywhere
    dry = recover("--dead-worker", "w1", "--dry-run")
    assert f"job {job.pk} would be queued again from the start" in dry
    assert queued("run_analysis") == [("RUNNING", job.pk)]  # the dry run changed nothing

    output = recover("--dead-worker", "w1")
    assert "lost task marked failed: scoring.tasks.run_analysis (w1)" in output
    assert f"job {job.pk} queued again from the start" in output
    lost.refresh_from_db()
    assert (lost.status, lost.exception_class_path) == ("FAILED", "scoring.services.WorkerLost")
    assert "w1 stopped" in lost.traceback
    job.refresh_from_db()
    assert (job.status, job.progress, job.result) == ("queued", 0.0, None)
    assert queued("run_analysis") == [("FAILED", job.pk), ("READY", job.pk)]
    assert recover("--dead-worker", "w1") == "Nothing to recover.\n"


def test_no_worker_running_means_every_running_task_is_lost(queue, campaign):
    job = Job.objects.create(campaign=campaign, analysis="agreement", status="running")
    running(tasks.run_analysis.enqueue(job.pk), "anything")
    assert f"job {job.pk} queued again" in recover("--no-worker-running")


def test_only_the_unfinished_chunks_without_a_task_are_queued_again(queue, campaign, summed):
    job = summed(campaign, finished=1)
    tasks.run_analysis_chunk.enqueue(job.pk, 0)  # finished, its task long gone: not queued again
    running(tasks.run_analysis_chunk.enqueue(job.pk, 1), "w1")  # lost mid-chunk
    tasks.run_analysis_chunk.enqueue(job.pk, 2)  # still waiting for a worker
    DBTaskResult.objects.filter(args_kwargs__args=[job.pk, 0]).update(status="SUCCESSFUL")
    output = recover("--dead-worker", "w1")
    assert f"job {job.pk}: chunks 1 queued again" in output
    assert queued("run_analysis_chunk") == [
        ("FAILED", job.pk, 1),
        ("READY", job.pk, 1),
        ("READY", job.pk, 2),
        ("SUCCESSFUL", job.pk, 0),
    ]
    job.refresh_from_db()
    assert (job.status, job.result) == ("running", None)

    # The new worker runs the two chunks; the last one combines.
    scoring_services.run_chunk(job.pk, 1)
    scoring_services.run_chunk(job.pk, 2)
    job.refresh_from_db()
    assert (job.status, job.result, job.chunks_done) == ("done", {"total": 33}, 3)


def test_a_job_lost_while_combining_is_combined(queue, campaign, summed):
    job = summed(campaign, finished=3)
    running(tasks.run_analysis_chunk.enqueue(job.pk, 2), "w1")  # it finished the last chunk, then died combining
    output = recover("--dead-worker", "w1")
    assert f"job {job.pk}: combining its finished chunks queued" in output
    assert queued("combine_analysis_chunks") == [("READY", job.pk)]
    tasks.combine_analysis_chunks.call(job.pk)
    job.refresh_from_db()
    assert (job.status, job.result) == ("done", {"total": 33})
    tasks.combine_analysis_chunks.call(job.pk)  # a repeat changes nothing
    assert Job.objects.get(pk=job.pk).finished_at == job.finished_at


def test_a_job_without_any_task_is_queued_again_only_after_the_grace(queue, campaign):
    job = Job.objects.create(campaign=campaign, analysis="agreement")  # its request may be enqueuing right now
    assert recover() == "Nothing to recover.\n"
    Job.objects.filter(pk=job.pk).update(created_at=timezone.now() - timedelta(minutes=5))
    assert f"job {job.pk} queued again" in recover()
    assert queued("run_analysis") == [("READY", job.pk)]


def test_a_repeated_run_of_a_chunked_job_does_not_split_it_again(queue, campaign, summed):
    job = summed(campaign, finished=1)
    scoring_services.run_job(job.pk)  # e.g. queued again by an operator's --job
    assert JobChunk.objects.filter(job=job).count() == 3
    assert Job.objects.get(pk=job.pk).chunks_done == 1


def test_stale_reports_with_no_recompute_that_will_run_get_one(queue, campaign):
    topic = campaign.topics.first()
    StaleTopic.objects.create(campaign=campaign, topic=topic, revision=1, marked_at=timezone.now())
    # The recompute was queued (pending), then its worker died in it.
    # (the campaign's state row may exist already: its members' changes asked for a progress count)
    ScoringState.objects.update_or_create(campaign=campaign, defaults={"pending": False})
    running(tasks.recompute_campaign_reports.enqueue(campaign.pk), "w1")
    assert recover() == "Nothing to recover.\n"
    assert f"campaign {campaign.pk}: recompute of its stale reports queued" in recover("--dead-worker", "w1")
    assert queued("recompute_campaign_reports") == [("FAILED", campaign.pk), ("READY", campaign.pk)]
    assert ScoringState.objects.get(campaign=campaign).pending is True


def test_a_pending_flag_with_no_task_behind_it_is_cleared(queue, campaign):
    old = timezone.now() - timedelta(minutes=5)
    ScoringState.objects.update_or_create(campaign=campaign, defaults={"pending": True, "requested_at": old})
    assert f"campaign {campaign.pk}: recompute" in recover()
    assert queued("recompute_campaign_reports") == [("READY", campaign.pk)]


def test_a_queue_outside_the_database_needs_the_jobs_named(campaign):
    """The test settings' immediate backend stands for RQ: recovery cannot read it."""
    job = Job.objects.create(
        campaign=campaign, analysis="agreement", status="running", created_at=timezone.now() - timedelta(hours=1)
    )
    assert recover() == "Nothing to recover.\n"
    assert f"job {job.pk} queued again" in recover("--job", str(job.pk))
    job.refresh_from_db()
    assert job.status == "done"  # the immediate backend ran it
