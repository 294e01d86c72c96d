"""Writes for scoring: marking topics stale, recomputing stored reports, jobs.

Live scoring: a submission marks its topic stale and sets its campaign's
recompute flag (``ScoringState.pending``) in the same transaction; the one
that finds the flag clear queues a recompute once committed. A campaign has at
most one recompute queued at a time; submissions that arrive while it waits
ride along with it, so a burst of N submissions costs one or two recomputes,
not N (scoring/schedule.py: and never two closer than CONCORD_REBUILD_INTERVAL).
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import F, Max
from django.utils import timezone

from annotate.models import Campaign, JudgmentRevision, Topic
from concord import rawrows
from concord.digits import whole_number
from concord.errors import InvalidInput, LimitReached
from kinds.registry import get_kind
from scoring import jobs, progress, progress_sums, schedule, tasks
from scoring.jobs import (  # re-exported: the public face of scoring's writes
    COMMON_ANALYSES,
    COMMON_ANALYSIS_PARAMS,
    JOB_BUDGET,
    MAX_ATTEMPTS,
    OUT_OF_MEMORY,
    UNEXPECTED,
    UNFINISHED_JOB,
    Chunked,
    JobCancelled,
    analyses_for,
    analysis_schemas,
    campaign_analysis_schemas,
    combine_chunks,
    fail_job,
    failure_message,
    recompute_reports,
    run_chunk,
)
from scoring.models import Job, JobChunk, ScoringState, StaleTopic
from scoring.selectors import (
    CampaignFacts,
    campaign_facts,
    flat_params,
    param_changes,
    proposed_params,
    revert_refusal,
)

log = logging.getLogger(__name__)

__all__ = [
    "COMMON_ANALYSES",
    "COMMON_ANALYSIS_PARAMS",
    "JOB_BUDGET",
    "MAX_ATTEMPTS",
    "OUT_OF_MEMORY",
    "UNEXPECTED",
    "UNFINISHED_JOB",
    "Chunked",
    "JobCancelled",
    "Recovery",
    "WorkerLost",
    "analyses_for",
    "analysis_schemas",
    "campaign_analysis_schemas",
    "cancel_job",
    "combine_chunks",
    "draft_changed",
    "fail_job",
    "failure_message",
    "mark_all_stale",
    "mark_stale",
    "recompute_reports",
    "recover_jobs",
    "progress_changed",
    "request_recompute",
    "run_chunk",
    "run_job",
    "start_analysis",
    "worker_alive",
    "worker_id",
]


def run_job(job_id: int) -> None:
    """Run a job now (its chunks, if any, are queued for the workers as their turns come)."""
    jobs.run_job(job_id, dispatch=tasks.dispatch_analyses)


def mark_stale(topic: Topic, revision_id: int) -> None:
    """Call inside the transaction that changed a judgment of ``topic``."""
    rawrows.upsert(
        StaleTopic,
        {"campaign": topic.campaign_id, "topic": topic.pk, "revision": revision_id, "marked_at": timezone.now()},
        unique="topic",
        update=("revision", "marked_at"),
    )
    schedule.claim(topic.campaign_id, tasks.enqueue_recompute)


def mark_all_stale(campaign: Campaign) -> None:
    """After a bulk import (judgments, runs): every topic of ``campaign`` needs a new report.

    One statement in the database (an import calls it in its last transaction,
    which holds SQLite's write lock: no row of 10,000 topics goes through Python).
    The mark's revision is the newest of all (any revision at least as new as the
    campaign's newest serves: it only tells one mark from the next)."""
    newest = JudgmentRevision.objects.aggregate(v=Max("id"))["v"] or 0
    quote = connection.ops.quote_name
    stale, topic = quote(StaleTopic._meta.db_table), quote(Topic._meta.db_table)
    now = StaleTopic._meta.get_field("marked_at").get_db_prep_save(timezone.now(), connection)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {stale} (campaign_id, topic_id, revision, marked_at) "
            f"SELECT campaign_id, id, %s, %s FROM {topic} WHERE campaign_id = %s "
            "ON CONFLICT (topic_id) DO UPDATE SET revision = EXCLUDED.revision, marked_at = EXCLUDED.marked_at",
            [newest, now, campaign.pk],
        )
    schedule.claim(campaign.pk, tasks.enqueue_recompute)


def progress_changed(campaign_id: int, topic: Topic | None = None) -> None:
    """Call inside the transaction that changed the campaign's assignments, skips or
    assessors without changing a judgment: a big campaign's stored progress counts
    (scoring.progress) follow at the next rebuild, which this asks for; a small
    campaign's are counted on every view and need none. ``topic``: the one topic whose
    counts moved, counted again alone (scoring/progress_sums.py); None: the whole
    campaign's are counted again."""
    if topic is not None:
        progress_sums.mark(topic)
    else:
        progress_sums.recount_wanted(campaign_id)
    if progress.is_stored(campaign_id):
        request_recompute(campaign_id)


def draft_changed(topic: Topic) -> None:
    """Call inside the transaction that changed a judgment of ``topic`` without changing what
    counts (a draft begun, a reopening, active time on a counting judgment): its progress
    counts follow at the campaign's next rebuild, which this does not ask for (a draft is
    saved every few seconds while an assessor types)."""
    progress_sums.mark(topic)


def request_recompute(campaign_id: int) -> bool:
    """Queue a recompute unless one is already queued (once the surrounding
    transaction, if any, commits). True if one was queued."""
    with transaction.atomic():
        return schedule.claim(campaign_id, tasks.enqueue_recompute)


class ChangeListener:
    """What annotate's writes tell scoring (annotate/changes.py): each change marks the
    topics whose partial it changes, or asks for the rebuild that follows a campaign's
    progress counts."""

    def topic_changed(self, topic: Topic, revision_id: int) -> None:
        mark_stale(topic, revision_id)

    def campaign_changed(self, campaign: Campaign) -> None:
        mark_all_stale(campaign)

    def progress_changed(self, campaign_id: int, topic: Topic | None = None) -> None:
        progress_changed(campaign_id, topic)

    def draft_changed(self, topic: Topic) -> None:
        draft_changed(topic)

    def rebuild_wanted(self, campaign_id: int) -> None:
        request_recompute(campaign_id)

    def rebuild_now(self, campaign_id: int) -> None:
        recompute_reports(campaign_id, everything=True)


@transaction.atomic
def start_analysis(*, campaign: Campaign, analysis: str, params: dict | None, user) -> Job:
    """Store a job, to be queued when its campaign's turn comes (scoring/dispatch.py);
    its params are checked (and defaults filled) first. Refused (LimitReached) while
    the campaign has ``CONCORD_JOBS_PER_CAMPAIGN`` unfinished jobs, or the user
    ``CONCORD_JOBS_PER_USER`` in all campaigns."""
    if analysis not in analyses_for(campaign):
        raise InvalidInput("analysis", f"unknown analysis {analysis!r} (known: {', '.join(analyses_for(campaign))})")
    params = campaign_analysis_schemas(campaign)[analysis].clean(params, "params")
    reason = not_ready(campaign, analysis)
    if reason:
        raise InvalidInput("analysis", f"{analysis} cannot run on this campaign yet: {reason}")
    _within_job_limits(campaign, user)
    job = Job.objects.create(
        campaign=campaign,
        analysis=analysis,
        params=params,
        created_by=user,
        waits_turn=True,
        message="waiting for its turn: the campaign's earlier analyses first",
    )
    tasks.dispatch_analyses(campaign.pk)
    return job


def _within_job_limits(campaign: Campaign, user) -> None:
    # The campaign's row, locked, orders two requests for it; the user's row orders theirs across campaigns.
    Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
    if user is not None:
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    unfinished = Job.objects.filter(status__in=UNFINISHED_JOB)
    most = settings.CONCORD_JOBS_PER_CAMPAIGN
    if unfinished.filter(campaign=campaign).count() >= most:
        raise LimitReached(
            "analysis",
            f"this campaign has {most} analyses queued or running, the most at once: wait for one to finish, "
            "or cancel one",
        )
    most = settings.CONCORD_JOBS_PER_USER
    if user is not None and unfinished.filter(created_by=user).count() >= most:
        raise LimitReached(
            "analysis",
            f"you have {most} analyses queued or running, the most at once (in all your campaigns): wait for one "
            "to finish, or cancel one",
        )


def not_ready(campaign: Campaign, analysis: str, facts: CampaignFacts | None = None) -> str | None:
    """Why ``analysis`` cannot run on ``campaign`` now (its ``Analysis.ready``), or None."""
    spec = get_kind(campaign.kind).analysis(analysis)
    if spec is None or spec.ready is None:
        return None
    return spec.ready(facts or campaign_facts(campaign))


def cancel_job(*, job: Job, user) -> Job:
    """Cancel a queued or running job. A queued one never starts; a running
    one stops at its next progress report (or its chunks stop before they
    start) and its result is never stored; recover_jobs never queues it again."""
    who = user.get_username() if user is not None else "an administrator"
    cancelled = Job.objects.filter(pk=job.pk, status__in=UNFINISHED_JOB).update(
        status=Job.Status.CANCELLED, finished_at=timezone.now(), message=f"cancelled by {who}"[:500]
    )
    job.refresh_from_db()
    if not cancelled:
        raise InvalidInput("job", f"job {job.pk} is {job.status}: only a queued or running job can be cancelled")
    log.info("job %s cancelled by %s", job.pk, who)
    tasks.dispatch_analyses(job.campaign_id)  # its turn goes to the campaign's next analysis
    return job


@transaction.atomic
def apply_job(*, job: Job, user) -> Job:
    """Apply a finished analysis's result to its campaign (``Analysis.apply``): the
    campaign's params change (checked as every change of them is), the params before
    and after are kept on the job for :func:`revert_job`, and every report is recomputed."""
    job = Job.objects.select_for_update().select_related("campaign").get(pk=job.pk)
    campaign = Campaign.objects.select_for_update().get(pk=job.campaign_id)
    job.campaign = campaign
    if job.applied_at is not None and job.reverted_at is None:
        raise InvalidInput("job", f"job {job.pk} is applied already")
    proposed = proposed_params(job)
    if proposed is None:
        raise InvalidInput("job", f"job {job.pk} ({job.analysis}, {job.status}) has no result to apply")
    after = _checked_params(campaign, proposed)
    job.params_before, job.params_after = campaign.params, after
    job.applied_at, job.applied_by, job.reverted_at, job.reverted_by = timezone.now(), user, None, None
    campaign.params = after
    campaign.save(update_fields=["params"])
    job.save(update_fields=["params_before", "params_after", "applied_at", "applied_by", "reverted_at", "reverted_by"])
    mark_all_stale(campaign)
    log.info("job %s applied to campaign %s by %s", job.pk, campaign.pk, user)
    return job


@transaction.atomic
def revert_job(*, job: Job, user) -> Job:
    """Undo :func:`apply_job`: the fields it changed get their values from before.
    Refused (naming the field) when one of them has changed since."""
    job = Job.objects.select_for_update().select_related("campaign").get(pk=job.pk)
    campaign = Campaign.objects.select_for_update().get(pk=job.campaign_id)
    if job.applied_at is None or job.reverted_at is not None:
        raise InvalidInput("job", f"job {job.pk} is not applied to its campaign: nothing to revert")
    refusal = revert_refusal(job, campaign.params)
    if refusal is not None:
        raise refusal
    flat = flat_params(campaign.params)
    before = flat_params(job.params_before)
    for change in param_changes(job.params_before, job.params_after):
        if change.field in before:
            flat[change.field] = before[change.field]
        else:
            flat.pop(change.field, None)
    campaign.params = _checked_params(campaign, nested_params(flat))
    campaign.save(update_fields=["params"])
    job.reverted_at, job.reverted_by = timezone.now(), user
    job.save(update_fields=["reverted_at", "reverted_by"])
    mark_all_stale(campaign)
    log.info("job %s reverted on campaign %s by %s", job.pk, campaign.pk, user)
    return job


def _checked_params(campaign: Campaign, params: dict) -> dict:
    """As annotate.services.campaigns.clean_campaign_params (which imports this module)."""
    return get_kind(campaign.kind).params.clean(params, "params", current=campaign.params)


def nested_params(flat: dict) -> dict:
    """The inverse of ``flat_params``: dotted paths back to nested objects."""
    nested: dict = {}
    for path, value in flat.items():
        *parents, leaf = path.split(".")
        node = nested
        for key in parents:
            node = node.setdefault(key, {})
        node[leaf] = value
    return nested


# -- recovery: work that a lost worker left unfinished ----------------------------
#
# A worker killed in the middle of a task (kill -9, power cut, OOM) leaves its
# django-tasks-db row RUNNING for ever and its Job queued or running. Nothing
# half-done is visible meanwhile: a job's result is written in one update at
# its end, reports in one transaction, and a chunk counts only once its result
# is stored. So recovery only has to queue the unfinished work again: a plain
# job from the start, a chunked job only its unfinished chunks (or its combine
# step when all are finished), and a recompute for the campaigns whose
# reports are stale with none queued.

JOB_TASKS = {
    "scoring.tasks.run_analysis": "job",
    "scoring.tasks.run_analysis_chunk": "chunk",
    "scoring.tasks.combine_analysis_chunks": "combine",
}
RECOMPUTE_TASK = "scoring.tasks.recompute_campaign_reports"
#: A chunk of a split first build works on its campaign's reports as a rebuild does.
BUILD_CHUNK_TASK = "scoring.tasks.build_reports_chunk"


def worker_id(pid: int | None = None) -> str:
    """``host:pid:boot``, the worker id the run script gives its ``db_worker``
    (it builds the same string in shell), so recovery can tell whether the
    worker still runs. ``boot`` tells a process from one of the same pid
    before a reboot."""
    return f"{_host()}:{pid or os.getpid()}:{_boot()}"


def worker_alive(worker: str) -> bool | None:
    """Whether the worker named by a ``host:pid:boot`` id runs; None when this
    machine cannot tell (another host, or another form of id)."""
    host, _, rest = worker.partition(":")
    pid, _, boot = rest.partition(":")
    pid = whole_number(pid)
    if not (host and pid is not None and boot):
        return None
    if host != _host():
        return None
    if boot != _boot():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process: it exists
    try:
        # A zombie or a reused pid is no worker.
        return b"db_worker" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return not Path("/proc/self").exists()  # no /proc here: the pid is all we know
    except OSError:
        return True


def _host() -> str:
    return socket.gethostname()[:40]


def _boot() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text()[:8]
    except OSError:
        return "-"


class WorkerLost(Exception):
    """Recorded on a task whose worker stopped while running it."""


@dataclass
class Recovery:
    dead_tasks: list[str] = field(default_factory=list)  # "task path (worker id)"
    rerun: list[int] = field(default_factory=list)  # jobs queued again from the start
    chunks: dict[int, list[int]] = field(default_factory=dict)  # job -> chunk indices queued again
    combined: list[int] = field(default_factory=list)  # jobs whose combine step was queued
    recomputed: list[int] = field(default_factory=list)  # campaigns whose recompute was queued
    failed: dict[int, int] = field(default_factory=dict)  # job -> attempts: its worker died each time, not queued again

    def __bool__(self) -> bool:
        return bool(self.dead_tasks or self.rerun or self.chunks or self.combined or self.recomputed or self.failed)


def recover_jobs(
    *,
    dead_workers: Sequence[str] = (),
    no_worker_running: bool = False,
    jobs: Sequence[int] = (),
    grace: float = 60.0,
    dry_run: bool = False,
) -> Recovery:
    """Queue again the work of tasks whose worker was lost.

    A RUNNING task is lost when ``no_worker_running`` (nothing runs tasks
    anywhere: the run script before it starts its worker), when its worker id
    is in ``dead_workers``, or when its ``host:pid:boot`` worker id names a
    process of this machine that is gone. Lost tasks are marked failed
    (``WorkerLost``). Then every unfinished job with no task that will still
    run it is queued again; a job with no task at all only once it is
    ``grace`` seconds old, since the request that created it queues its task
    just after committing. ``jobs`` are queued again whatever their tasks say
    (for a tasks backend whose queue this cannot read, such as RQ).
    """
    recovery = Recovery()
    now = timezone.now()
    readable = _database_queue()
    pending: set[tuple] = set()  # what tasks that will still run work on
    lost: set[tuple] = set()  # what the tasks found lost in this pass worked on
    ever: set[int] = set()  # jobs that had a task at some time
    if readable:
        tasks = _task_rows()
        for row in tasks:
            if row.status != "RUNNING":
                continue
            last = row.worker_ids[-1] if row.worker_ids else ""
            if no_worker_running or last in dead_workers or worker_alive(last) is False:
                recovery.dead_tasks.append(f"{row.task_path} ({last})")
                lost.add(_task_key(row))
                if not dry_run:
                    _mark_lost(row, now)
                row.status = "FAILED"
        live = [row for row in tasks if row.status in ("READY", "RUNNING")]
        pending = {_task_key(row) for row in live} - {None}
        ever = {key[1] for key in map(_task_key, tasks) if key and key[0] != "recompute"}
    elif not jobs:
        log.warning("the tasks backend's queue is not in the database: give the jobs to queue again")
    # Work waiting its turn has no task yet: scoring/dispatch.py queues it, below.
    candidates = Job.objects.filter(status__in=UNFINISHED_JOB, waits_turn=False).order_by("pk")
    if not readable:
        candidates = candidates.filter(pk__in=jobs)
    for job in candidates:
        forced = job.pk in jobs
        if not forced:
            if ("job", job.pk) in pending:
                continue  # its run (and its split into chunks) is still to come
            young = (now - job.created_at).total_seconds() < grace
            if not job.chunks_total and job.pk not in ever and young:
                continue
        _recover_job(job, set() if forced else pending, recovery, dry_run, died=forced or _died_in(job.pk, lost))
    if readable:
        _recover_recomputes(pending, now, grace, recovery, dry_run)
    if not dry_run:
        _next_turns()
    return recovery


def _next_turns() -> None:
    """Every campaign's next waiting analysis work to the queue: a worker may have been
    lost between finishing a task and queueing its campaign's next turn (scoring/dispatch.py)."""
    for campaign_id in Job.objects.filter(status__in=UNFINISHED_JOB).values_list("campaign_id", flat=True).distinct():
        tasks.dispatch_analyses(campaign_id)


def died_message(attempts: int) -> str:
    return f"the worker died {attempts} times while running this job; try smaller parameters"


def _died_in(job_id: int, lost: set[tuple]) -> bool:
    """Whether a task found lost in this pass was running a part of the job."""
    return any(key and key[0] != "recompute" and key[1] == job_id for key in lost)


def _recover_job(job: Job, pending: set, recovery: Recovery, dry_run: bool, *, died: bool) -> None:
    # Started (running) and unfinished with nothing left to run it: the worker
    # died in it. After MAX_ATTEMPTS starts it is failed, so a job that kills
    # its worker (out of memory) does not come back for ever. Work of a chunked
    # job is a new attempt only when a worker ``died`` in it (a task of it was
    # found lost, or the operator named the job): a chunk given its turn whose
    # enqueue was lost with its worker never started, and one death found by
    # two passes (one queueing the never-queued chunk, one the chunk the worker
    # was in) counts once.
    if job.status == Job.Status.RUNNING and job.attempts >= MAX_ATTEMPTS:
        recovery.failed[job.pk] = job.attempts
        if not dry_run:
            fail_job(job.pk, died_message(job.attempts))
        return
    if not job.chunks_total:
        recovery.rerun.append(job.pk)
        if not dry_run:
            with transaction.atomic():
                Job.objects.filter(pk=job.pk, chunks_total=0).update(
                    status=Job.Status.QUEUED,
                    progress=0.0,
                    started_at=None,
                    message="queued again: the worker running it stopped",
                )
                transaction.on_commit(lambda: tasks.run_analysis.enqueue(job.pk))
        return
    unfinished = list(JobChunk.objects.filter(job=job, finished_at=None).values_list("index", "waits_turn"))
    if unfinished:
        missing = [i for i, waits in unfinished if not waits and ("chunk", job.pk, i) not in pending]
        if missing:
            recovery.chunks[job.pk] = missing
            if not dry_run:
                if died:
                    Job.objects.filter(pk=job.pk).update(attempts=F("attempts") + 1)  # a new attempt at its lost work
                for index in missing:
                    transaction.on_commit(lambda index=index: tasks.run_analysis_chunk.enqueue(job.pk, index))
        return
    if ("combine", job.pk) not in pending and not any(k[:2] == ("chunk", job.pk) for k in pending):
        recovery.combined.append(job.pk)
        if not dry_run:
            if died:
                Job.objects.filter(pk=job.pk).update(attempts=F("attempts") + 1)
            transaction.on_commit(lambda: tasks.combine_analysis_chunks.enqueue(job.pk))


def _recover_recomputes(pending: set, now, grace: float, recovery: Recovery, dry_run: bool) -> None:
    """Campaigns with stale reports and no recompute that will run: queue one.
    A ``pending`` flag with no task behind it (its worker or its enqueue was
    lost) would otherwise keep every later recompute from being queued."""
    queued = {key[1] for key in pending if key[0] == "recompute"}
    stale = set(StaleTopic.objects.values_list("campaign_id", flat=True).distinct())
    stuck = set(
        ScoringState.objects.filter(pending=True, requested_at__lt=now - timedelta(seconds=grace)).values_list(
            "campaign_id", flat=True
        )
    )
    for campaign_id in sorted((stale | stuck) - queued):
        recovery.recomputed.append(campaign_id)
        if not dry_run:
            ScoringState.objects.filter(campaign_id=campaign_id).update(pending=False)
            request_recompute(campaign_id)


def _database_queue() -> bool:
    """Whether the queue is django-tasks-db's table, which recovery can read."""
    from django_tasks import DEFAULT_TASK_BACKEND_ALIAS, task_backends
    from django_tasks_db import DatabaseBackend

    return isinstance(task_backends[DEFAULT_TASK_BACKEND_ALIAS], DatabaseBackend)


def _task_rows() -> list:
    from django_tasks_db.models import DBTaskResult

    return list(
        DBTaskResult.objects.filter(task_path__in=[*JOB_TASKS, RECOMPUTE_TASK, BUILD_CHUNK_TASK]).only(
            "id", "status", "task_path", "worker_ids", "args_kwargs"
        )
    )


def _task_key(row) -> tuple | None:
    """What a task works on: ("job", id), ("chunk", id, index), ("combine", id) or ("recompute", campaign)."""
    args = list(row.args_kwargs.get("args", [])) + list(row.args_kwargs.get("kwargs", {}).values())
    what = "recompute" if row.task_path in (RECOMPUTE_TASK, BUILD_CHUNK_TASK) else JOB_TASKS.get(row.task_path)
    if what is None or not args:
        return None
    return (what, *args[:2]) if what == "chunk" else (what, args[0])


def _mark_lost(row, now) -> None:
    from django_tasks_db.models import DBTaskResult

    worker = row.worker_ids[-1] if row.worker_ids else "?"
    # Conditional: a worker that was only slow and has just finished keeps its outcome.
    DBTaskResult.objects.filter(pk=row.pk, status="RUNNING").update(
        status="FAILED",
        finished_at=now,
        exception_class_path=f"{WorkerLost.__module__}.{WorkerLost.__qualname__}",
        traceback=f"WorkerLost: worker {worker} stopped while running this task; recover_jobs queued its work again.\n",
        return_value=None,
    )
    key = _task_key(row)
    if key and key[0] == "recompute":  # the lost rebuild's hold on its campaign ends with it
        ScoringState.objects.filter(campaign_id=key[1]).update(running_until=None)
