"""Which analysis work goes to the task queue next: campaigns take turns.

An analysis is one task (its job's start) or, for a chunked one, a start and
then one task per chunk. Queued all at once, one organiser's 200 jobs, or one
evaluation's many chunks, would sit in front of everyone else's in the
queue's first-in first-out order (another organiser's job once waited 156 s
behind one evaluation). So a campaign's work is handed to the queue a little
at a time: a job or chunk is stored waiting its turn (``waits_turn``), and
:func:`dispatch` queues the campaign's next ones, oldest job first and a
job's chunks in order, while fewer than ``CONCORD_ANALYSIS_SLOTS`` of its
tasks are queued or running. It runs when a job is stored, when a job is
split into chunks, when a job is cancelled, and after every analysis task
(scoring/tasks.py), so each finished task of a campaign lets its next one
join the back of the queue: behind the work every other campaign queued
meanwhile. With one analyses worker and one slot, campaigns with work
alternate task by task (round-robin); give as many slots as there are
analyses workers to let one campaign use them all when it is alone.

The queue itself stays first-in first-out (the database or RQ backend), and
the tasks keep their arguments, so recovery (scoring/services.py) reads them
as before; work still waiting its turn has no task and is not recovery's to
queue. This module queues nothing itself: the caller passes the enqueue
functions (scoring/tasks.py ``dispatch_analyses``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from annotate.models import Campaign
from scoring.models import Job, JobChunk


@dataclass(frozen=True)
class Turn:
    """What one call of :func:`dispatch` handed to the queue: job starts and (job, chunk index) pairs."""

    jobs: tuple[int, ...] = ()
    chunks: tuple[tuple[int, int], ...] = ()


def dispatch(campaign_id: int, *, start: Callable[[int], object], chunk: Callable[[int, int], object]) -> Turn:
    """Queue the campaign's next waiting work, up to ``CONCORD_ANALYSIS_SLOTS`` tasks
    of it queued or running; ``start(job_id)`` and ``chunk(job_id, index)`` are
    called once the choice is committed. Campaigns' dispatches never overlap
    (the campaign's row is locked), so no slot is given twice."""
    with transaction.atomic():
        if Campaign.objects.select_for_update().filter(pk=campaign_id).first() is None:
            return Turn()
        busy, waiting = _work(campaign_id)
        free = max(settings.CONCORD_ANALYSIS_SLOTS - busy, 0)
        chosen = waiting[:free]
        jobs = tuple(unit[1] for unit in chosen if unit[0] == "job")
        chunks = tuple((unit[1], unit[2]) for unit in chosen if unit[0] == "chunk")
        Job.objects.filter(pk__in=jobs).update(waits_turn=False, message="queued")
        for job_id, index in chunks:
            JobChunk.objects.filter(job_id=job_id, index=index).update(waits_turn=False)
        for job_id in jobs:
            transaction.on_commit(lambda job_id=job_id: start(job_id))
        for job_id, index in chunks:
            transaction.on_commit(lambda job_id=job_id, index=index: chunk(job_id, index))
    return Turn(jobs, chunks)


def _work(campaign_id: int) -> tuple[int, list[tuple]]:
    """(tasks of the campaign queued or running, its waiting work in the order it runs:
    ``("job", id)`` starts and ``("chunk", job id, index)``)."""
    unfinished = list(
        Job.objects.filter(campaign_id=campaign_id, status__in=(Job.Status.QUEUED, Job.Status.RUNNING))
        .order_by("created_at", "id")
        .values_list("pk", "status", "chunks_total", "waits_turn")
    )
    split = [pk for pk, status, total, _ in unfinished if status == Job.Status.RUNNING and total]
    chunks: dict[int, list[tuple[int, bool]]] = {pk: [] for pk in split}
    for job_id, index, waits in (
        JobChunk.objects.filter(job_id__in=split, finished_at=None)
        .order_by("index")
        .values_list("job_id", "index", "waits_turn")
    ):
        chunks[job_id].append((index, waits))
    busy, waiting = 0, []
    for pk, status, total, waits in unfinished:
        if status == Job.Status.QUEUED:
            if waits:
                waiting.append(("job", pk))
            else:
                busy += 1
        elif not total:
            busy += 1  # its start runs (or splits it into chunks) now
        else:
            for index, chunk_waits in chunks[pk]:
                if chunk_waits:
                    waiting.append(("chunk", pk, index))
                else:
                    busy += 1
    return busy, waiting
