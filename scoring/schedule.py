"""When a campaign's reports are rebuilt: at most one rebuild of a campaign in
flight, and a minimum interval between two.

- One in flight: a submission sets the campaign's flag (``ScoringState.pending``)
  in its own transaction (:func:`claim`), and only the one that finds it clear
  queues a rebuild, after its commit. The rebuild clears the flag as it starts,
  so a submission arriving during a rebuild queues the next one: one running
  and one queued is the most a campaign ever has.
- The interval: a rebuild is queued to run no sooner than
  ``CONCORD_REBUILD_INTERVAL`` seconds after the campaign's previous one ended
  (``ScoringState.finished_at``; django-tasks' ``run_after``, which the database
  queue honours), and a rebuild that a worker picks up sooner than that (it was
  queued while the previous one ran) queues itself again for the right time
  instead of running. Under steady submissions a big campaign is thus rebuilt
  about once per interval plus its rebuild's length, and the worker has time
  for the other campaigns' reports in between.

- Chunked builds: a rebuild that finds more stale topics than
  ``CONCORD_BUILD_CHUNK`` (a first build: an import, or anything that marks
  every topic stale) splits them into chunks, one task each, that any number
  of workers on the default queue take at once (:func:`split`). The campaign
  stays held while they run: each chunk renews the lease as it stores its
  topics, in one short transaction of its own (:func:`chunk_done`), and only
  if the hold it was split under is still the campaign's (``build``, counted up
  by every :func:`hold`), so a chunk of a build whose lease expired stores
  nothing. The flag stays set meanwhile, so submissions queue nothing; the last
  chunk ends the hold (:func:`handed_over`) and queues the rebuild that the
  flag stands for, which computes what was marked meanwhile and merges the
  campaign report from every topic's partial.
- Chunks queue behind the live rebuilds (:func:`behind`): a first build of
  12,000 topics is 48 chunks, and the other campaigns' rebuilds after their
  assessors' submissions are taken before them, so one organiser's import never
  leaves everyone else's reports stale until it is built (measured in
  tests/faults/test_long_import.py: the other campaigns caught up 81 s after the
  import before, 0.7 s after it now). The database queue honours it (django-tasks'
  priority); RQ has no priorities, so there chunks and rebuilds take turns in
  order of arrival.

A backend that cannot defer a task (the in-process one of the tests) runs it at once.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from annotate.models import ImportFence
from scoring.models import ScoringState


def interval() -> timedelta:
    return timedelta(seconds=settings.CONCORD_REBUILD_INTERVAL)


def not_before(finished_at: datetime | None, now: datetime | None = None) -> datetime | None:
    """When a rebuild may start after one that ended at ``finished_at``; None: now."""
    if finished_at is None:
        return None
    due = finished_at + interval()
    return due if due > (now or timezone.now()) else None


def claim(campaign_id: int, enqueue: Callable[[int, datetime | None], object]) -> bool:
    """Inside the transaction that marked topics of the campaign stale: set its
    recompute flag; if this call set it (it was clear), ``enqueue(campaign_id,
    not_before)``: in the transaction when the queue is a table of this database, else once
    the transaction commits; never if it rolls back. True if it was set here.

    One statement (an upsert that returns the row only when it changed the
    flag). It locks the campaign's row even when the flag is set already, so a
    rebuild that starts meanwhile clears the flag only after this transaction
    commits and then reads its marks (SQLite: the write lock the transaction
    holds; PostgreSQL: ON CONFLICT DO UPDATE locks the row it finds whether or
    not its WHERE holds).
    """
    table = connection.ops.quote_name(ScoringState._meta.db_table)
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (campaign_id, pending, requested_at) VALUES (%s, %s, %s) "
            "ON CONFLICT (campaign_id) DO UPDATE SET pending = EXCLUDED.pending, requested_at = EXCLUDED.requested_at "
            f"WHERE {table}.pending = %s RETURNING finished_at",
            [campaign_id, True, now, False],
        )
        row = cursor.fetchone()
    if row is None:
        return False
    after = not_before(_datetime(row[0]))
    if _queued_in_this_database():
        # The task's row is written in this transaction: it commits with the change that wants
        # it (a worker sees neither before the other) or goes with it, in one commit, not two.
        enqueue(campaign_id, after)
    else:
        transaction.on_commit(lambda: enqueue(campaign_id, after))
    return True


def _queued_in_this_database() -> bool:
    """Whether the rebuilds' tasks are rows of this database (django-tasks-db: ./run and the
    default settings), not a queue elsewhere (Redis) or a backend that runs them at once (tests)."""
    return settings.TASKS["default"]["BACKEND"] == "django_tasks_db.DatabaseBackend"


def _datetime(value: object) -> datetime | None:
    """A datetime column read through a raw cursor (SQLite gives it naive, in UTC)."""
    if value is None:
        return None
    parsed = value if isinstance(value, datetime) else parse_datetime(str(value))
    if parsed is not None and timezone.is_naive(parsed):
        parsed = timezone.make_aware(parsed, UTC)
    return parsed


def too_soon(campaign_id: int) -> datetime | None:
    """When a rebuild picked up now should run instead (the interval since the
    previous one has not passed), or None: run it now."""
    finished = ScoringState.objects.filter(campaign_id=campaign_id).values_list("finished_at", flat=True).first()
    return not_before(finished)


#: How long a rebuild may hold its campaign (:func:`hold`): a worker that dies in
#: the middle of one blocks the campaign's next rebuild at most this long.
LEASE = timedelta(minutes=10)


def hold(campaign_id: int) -> datetime | None:
    """Take the campaign for a rebuild. None: taken, go on (and call :func:`finished`
    at the end). Else another worker is rebuilding it: the time to try again.

    With several workers on the default queue, a rebuild queued during a running
    one could otherwise run beside it, and the one that read the judgments first
    could store its older topic partials last.
    """
    now = timezone.now()
    ScoringState.objects.get_or_create(campaign_id=campaign_id)
    taken = (
        ScoringState.objects.filter(campaign_id=campaign_id)
        .filter(Q(running_until__isnull=True) | Q(running_until__lt=now))
        .update(running_until=now + LEASE, build=F("build") + 1, build_chunks=0)
    )
    if taken:
        return None
    until = ScoringState.objects.filter(campaign_id=campaign_id).values_list("running_until", flat=True).first()
    return min(until, now + max(interval(), timedelta(seconds=1))) if until else now


def finished(campaign_id: int) -> None:
    """A rebuild of the campaign has just ended (done or failed): its hold ends."""
    ScoringState.objects.filter(campaign_id=campaign_id).update(finished_at=timezone.now(), running_until=None)


def current_build(campaign_id: int) -> int:
    """The number of the campaign's hold (taken last by :func:`hold`)."""
    return ScoringState.objects.values_list("build", flat=True).get(campaign_id=campaign_id)


def split(campaign_id: int, build: int, chunks: int) -> bool:
    """The rebuild holding the campaign under ``build`` goes on as ``chunks`` chunk
    tasks; the flag is set, so that what submissions mark meanwhile waits for the
    rebuild the last chunk queues. False: the hold was lost (nothing changed)."""
    now = timezone.now()
    return bool(
        ScoringState.objects.filter(campaign_id=campaign_id, build=build).update(
            build_chunks=chunks, pending=True, requested_at=now, running_until=now + LEASE
        )
    )


def chunk_done(campaign_id: int, build: int) -> int | None:
    """Count one chunk of ``build`` finished, in the transaction that stores it, once the
    chunk's stale marks are cleared (scoring.jobs.LOCK_ORDER; it locks the campaign's row),
    and renew the lease. The chunks left, or None: the campaign is
    no longer held under ``build``, and the chunk must store nothing."""
    counted = ScoringState.objects.filter(campaign_id=campaign_id, build=build, build_chunks__gt=0).update(
        build_chunks=F("build_chunks") - 1, running_until=timezone.now() + LEASE
    )
    if not counted:
        return None
    return ScoringState.objects.values_list("build_chunks", flat=True).get(campaign_id=campaign_id)


def handed_over(campaign_id: int) -> None:
    """The last chunk of a build ends its hold without counting as a finished
    rebuild: the rebuild it queues runs at once, not an interval later."""
    ScoringState.objects.filter(campaign_id=campaign_id).update(running_until=None)


def importing(campaign_id: int) -> bool:
    """Whether a large import is being written into the campaign (annotate/imports/fence.py);
    if so its flag is cleared, so that the import's last transaction, which marks
    every topic stale, queues the rebuild. The flag's row is locked first: that
    transaction's claim comes wholly before this check or wholly after the clearing."""
    with transaction.atomic():
        ScoringState.objects.select_for_update().filter(campaign_id=campaign_id).first()
        if not ImportFence.objects.filter(campaign_id=campaign_id).exists():
            return False
        ScoringState.objects.filter(campaign_id=campaign_id).update(pending=False)
        return True


#: The priority of a chunk of a split build (django-tasks: -100 to 100, default 0).
BUILD_PRIORITY = -10


def behind(task):
    """``task`` queued behind the live rebuilds where its backend orders by priority (else as it is)."""
    if task.get_backend().supports_priority:
        return task.using(priority=BUILD_PRIORITY)
    return task


def deferred(task, run_after: datetime | None):
    """``task`` to run no sooner than ``run_after`` where its backend can wait (else now)."""
    if run_after is not None and task.get_backend().supports_defer:
        return task.using(run_after=run_after)
    return task
