"""Jobs can be cancelled, are never queued again once cancelled, are failed
(not queued again for ever) after their worker died twice, and tell users
what to change rather than an exception's text."""

from __future__ import annotations

import logging
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import TestCase, override_settings
from django_tasks_db.models import DBTaskResult

from scoring import services as scoring_services
from scoring import tasks
from scoring.models import Job, JobChunk

pytestmark = pytest.mark.django_db
DATABASE_QUEUE = override_settings(TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": []}})


@pytest.fixture
def queue():
    with DATABASE_QUEUE:
        yield


def recover(*args: str) -> str:
    out = StringIO()
    with TestCase.captureOnCommitCallbacks(execute=True):
        call_command("recover_jobs", *args, stdout=out)
    return out.getvalue()


def job_tasks(job: Job) -> list[str]:
    return sorted(
        row.status
        for row in DBTaskResult.objects.filter(task_path="scoring.tasks.run_analysis", args_kwargs__args=[job.pk])
    )


class WorkerDied(BaseException):
    """What a kill -9 or the OOM killer looks like from inside: nothing after it runs."""


@pytest.fixture
def analysis(add_analysis):
    """A pairs analysis ``probe`` whose body the test gives."""

    def install(body):
        add_analysis("pairs", "probe", body)

    return install


# -- cancelling -----------------------------------------------------------------------------------


def test_a_queued_job_is_cancelled_and_never_starts(api, people, campaign):
    job = Job.objects.create(campaign=campaign, analysis="agreement")
    response = api(people["organiser"]).post(f"/api/jobs/{job.pk}/cancel/")
    assert response.status_code == 200, response.content
    assert (response.json()["status"], response.json()["message"]) == ("cancelled", "cancelled by organiser")
    scoring_services.run_job(job.pk)  # its task comes round: nothing happens
    job.refresh_from_db()
    assert (job.status, job.result, job.started_at, job.attempts) == ("cancelled", None, None, 0)


def test_only_queued_or_running_jobs_are_cancelled_and_only_by_organisers(api, people, campaign):
    job = Job.objects.create(campaign=campaign, analysis="agreement", status="done", result={"x": 1})
    response = api(people["organiser"]).post(f"/api/jobs/{job.pk}/cancel/")
    assert response.status_code == 400 and response.json()["field"] == "job"
    assert "only a queued or running job" in response.json()["detail"]
    job.refresh_from_db()
    assert (job.status, job.result) == ("done", {"x": 1})
    queued = Job.objects.create(campaign=campaign, analysis="agreement")
    assert api(people["alice"]).post(f"/api/jobs/{queued.pk}/cancel/").status_code == 403
    assert api(people["carol"]).post(f"/api/jobs/{queued.pk}/cancel/").status_code == 404
    assert Job.objects.get(pk=queued.pk).status == "queued"
    assert api(people["admin"]).post(f"/api/jobs/{queued.pk}/cancel/").status_code == 200


def test_a_running_job_stops_at_its_next_progress_report(campaign, analysis):
    reached = []

    def probe(campaign, params, progress):
        progress(0.2, "first half")
        job = Job.objects.get(analysis="probe")
        scoring_services.cancel_job(job=job, user=None)  # the organiser clicks Cancel meanwhile
        progress(0.5, "second half")  # raises: the job is no longer running
        reached.append("after")
        return {"never": "stored"}

    analysis(probe)
    job = Job.objects.create(campaign=campaign, analysis="probe")
    scoring_services.run_job(job.pk)  # the task ends quietly
    job.refresh_from_db()
    assert reached == []
    assert (job.status, job.result, job.progress, job.attempts) == ("cancelled", None, 0.2, 1)
    assert job.message == "cancelled by an administrator"


def test_a_job_cancelled_after_its_last_progress_report_stores_no_result(campaign, analysis):
    def probe(campaign, params, progress):
        scoring_services.cancel_job(job=Job.objects.get(analysis="probe"), user=None)
        return {"late": True}

    analysis(probe)
    job = Job.objects.create(campaign=campaign, analysis="probe")
    scoring_services.run_job(job.pk)
    job.refresh_from_db()
    assert (job.status, job.result) == ("cancelled", None)


def test_the_chunks_of_a_cancelled_job_do_not_run(campaign, add_analysis):
    ran = []
    add_analysis(
        "pairs",
        "sum",
        chunks=(lambda snapshot, p: ran.append(p) or {"sum": 1}, lambda snapshot, results: {"total": len(results)}),
    )
    job = Job.objects.create(campaign=campaign, analysis="sum", status="running", snapshot={}, chunks_total=2)
    for index in range(2):
        JobChunk.objects.create(job=job, index=index, params={"i": index})
    scoring_services.cancel_job(job=job, user=None)
    scoring_services.run_chunk(job.pk, 0)
    scoring_services.run_chunk(job.pk, 1)
    job.refresh_from_db()
    assert (ran, job.status, job.chunks_done, job.result) == ([], "cancelled", 0, None)


def test_a_cancelled_job_is_never_queued_again(queue, campaign):
    job = Job.objects.create(campaign=campaign, analysis="agreement", status="running", attempts=1)
    DBTaskResult.objects.get(pk=tasks.run_analysis.enqueue(job.pk).id).claim("w1")
    scoring_services.cancel_job(job=job, user=None)
    output = recover("--dead-worker", "w1", "--job", str(job.pk))
    assert "lost task marked failed" in output and "queued again" not in output
    assert job_tasks(job) == ["FAILED"]
    assert Job.objects.get(pk=job.pk).status == "cancelled"


# -- a worker that dies ---------------------------------------------------------------------------


def test_a_job_whose_worker_died_twice_is_failed_not_queued_again(queue, campaign, analysis):
    def probe(campaign, params, progress):
        progress(0.5, "half way")
        raise WorkerDied  # killed: nothing records anything

    analysis(probe)
    job = Job.objects.create(campaign=campaign, analysis="probe")
    DBTaskResult.objects.get(pk=tasks.run_analysis.enqueue(job.pk).id).claim("w1")
    with pytest.raises(WorkerDied):
        scoring_services.run_job(job.pk)
    assert Job.objects.get(pk=job.pk).attempts == 1
    assert f"job {job.pk} queued again from the start" in recover("--dead-worker", "w1")

    (again,) = DBTaskResult.objects.filter(task_path="scoring.tasks.run_analysis", status="READY")
    again.claim("w2")
    with pytest.raises(WorkerDied):
        scoring_services.run_job(job.pk)
    output = recover("--dead-worker", "w2")
    message = "the worker died 2 times while running this job; try smaller parameters"
    assert f"job {job.pk} marked failed: {message}" in output
    job.refresh_from_db()
    assert (job.status, job.message, job.attempts) == ("failed", message, 2)
    assert job_tasks(job) == ["FAILED", "FAILED"]  # nothing queued a third time
    assert recover("--dead-worker", "w2") == "Nothing to recover.\n"


def test_a_dry_run_only_says_it_would_fail_the_job(queue, campaign):
    job = Job.objects.create(campaign=campaign, analysis="agreement", status="running", attempts=2)
    DBTaskResult.objects.get(pk=tasks.run_analysis.enqueue(job.pk).id).claim("w1")
    assert f"job {job.pk} would be marked failed: the worker died 2 times" in recover(
        "--dead-worker", "w1", "--dry-run"
    )
    assert Job.objects.get(pk=job.pk).status == "running"


def test_a_chunked_job_whose_workers_died_twice_is_failed(queue, campaign, add_analysis):
    add_analysis(
        "pairs", "sum", chunks=(lambda snapshot, p: {"sum": 1}, lambda snapshot, results: {"total": len(results)})
    )
    job = Job.objects.create(
        campaign=campaign, analysis="sum", status="running", snapshot={}, chunks_total=1, attempts=1
    )  # run_job started it (and split it)
    JobChunk.objects.create(job=job, index=0, params={})
    DBTaskResult.objects.get(pk=tasks.run_analysis_chunk.enqueue(job.pk, 0).id).claim("w1")
    assert f"job {job.pk}: chunks 0 queued again" in recover("--dead-worker", "w1")
    assert Job.objects.get(pk=job.pk).attempts == 2
    (again,) = DBTaskResult.objects.filter(task_path="scoring.tasks.run_analysis_chunk", status="READY")
    again.claim("w2")
    assert f"job {job.pk} marked failed: the worker died 2 times" in recover("--dead-worker", "w2")
    assert not DBTaskResult.objects.filter(task_path="scoring.tasks.run_analysis_chunk", status="READY").exists()


def test_one_death_found_by_two_passes_is_one_attempt(queue, campaign, add_analysis):
    # The worker died in chunk 0 just after giving chunk 1 its turn and before queueing
    # chunk 1's task (scoring/dispatch.py). A pass that cannot tell the worker is dead
    # queues chunk 1 (it never started: not an attempt); the pass told of the death
    # queues chunk 0 (an attempt). The job runs on: it died once, not twice.
    add_analysis(
        "pairs", "sum", chunks=(lambda snapshot, p: {"sum": 1}, lambda snapshot, results: {"total": len(results)})
    )
    job = Job.objects.create(
        campaign=campaign, analysis="sum", status="running", snapshot={}, chunks_total=2, attempts=1
    )
    JobChunk.objects.create(job=job, index=0, params={})
    JobChunk.objects.create(job=job, index=1, params={})
    DBTaskResult.objects.get(pk=tasks.run_analysis_chunk.enqueue(job.pk, 0).id).claim("w1")
    assert recover() == f"job {job.pk}: chunks 1 queued again\n"
    assert Job.objects.get(pk=job.pk).attempts == 1
    output = recover("--dead-worker", "w1")
    assert f"job {job.pk}: chunks 0 queued again" in output and f"job {job.pk} marked failed" not in output
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("running", 2)


# -- what users read when a job fails -------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (scoring_services.InvalidInput("params.topic", "unknown topic 'x'"), "params.topic: unknown topic 'x'"),
        (MemoryError(), scoring_services.OUT_OF_MEMORY),
        (KeyError("candidates"), scoring_services.UNEXPECTED),
        (ValueError("draws must be an integer >= 1, got 'lots'"), scoring_services.UNEXPECTED),
    ],
)
def test_failures_say_what_to_change_and_the_traceback_goes_to_the_log(campaign, analysis, caplog, error, message):
    def probe(campaign, params, progress):
        raise error

    analysis(probe)
    job = Job.objects.create(campaign=campaign, analysis="probe")
    with caplog.at_level(logging.WARNING, logger="scoring.services"):
        try:
            scoring_services.run_job(job.pk)
        except Exception as raised:  # unexpected errors reach the task backend too
            assert raised is error and message == scoring_services.UNEXPECTED
    job.refresh_from_db()
    assert (job.status, job.message) == ("failed", message)
    assert f"job {job.pk} failed" in caplog.text
    if message == scoring_services.UNEXPECTED:
        assert "Traceback" in caplog.text and type(error).__name__ not in job.message


def test_out_of_memory_says_try_smaller_parameters():
    assert "smaller parameters" in scoring_services.OUT_OF_MEMORY
    assert "(logged" in scoring_services.UNEXPECTED


# -- the Cancel button ----------------------------------------------------------------------------


def test_a_cancel_button_beside_each_queued_or_running_job(client, people, campaign):
    queued = Job.objects.create(campaign=campaign, analysis="agreement")
    done = Job.objects.create(campaign=campaign, analysis="agreement", status="done")
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/?section=analyses").content.decode()
    assert f'action="/jobs/{queued.pk}/cancel/"' in page and f'action="/jobs/{done.pk}/cancel/"' not in page
    assert 'name="csrfmiddlewaretoken"' in page
    job_page = client.get(f"/jobs/{queued.pk}/").content.decode()
    assert f'action="/jobs/{queued.pk}/cancel/"' in job_page and 'name="next" value="job"' in job_page
    assert "/cancel/" not in client.get(f"/jobs/{done.pk}/").content.decode()

    response = client.post(f"/jobs/{queued.pk}/cancel/", {"next": "job"})
    assert (response.status_code, response.url) == (302, f"/jobs/{queued.pk}/")
    assert Job.objects.get(pk=queued.pk).status == "cancelled"
    assert "/cancel/" not in client.get(f"/jobs/{queued.pk}/").content.decode()
    response = client.post(f"/jobs/{done.pk}/cancel/")
    assert response.status_code == 400 and Job.objects.get(pk=done.pk).status == "done"


def test_the_cancel_button_needs_the_csrf_token(people, campaign):
    from django.test import Client

    job = Job.objects.create(campaign=campaign, analysis="agreement")
    client = Client(enforce_csrf_checks=True)
    client.force_login(people["organiser"])
    assert client.post(f"/jobs/{job.pk}/cancel/").status_code == 403
    assert Job.objects.get(pk=job.pk).status == "queued"
