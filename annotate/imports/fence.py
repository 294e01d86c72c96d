"""How an import's checked rows reach the database without holding the write
lock for long, and with nothing half-visible.

SQLite has one writer at a time: an import written in one transaction makes
every other save of every campaign wait for it (120,000 judgments would hold
the lock about 20 s, past the busy timeout: benchmarks.import_lock). So:

- a small import (at most ``BATCH`` rows in all) is written in one short
  transaction;
- a large one behind a *fence* (``ImportFence``, one per campaign), a few
  thousand rows per transaction. While the fence stands the campaign's pages
  and API answer 503 with Retry-After (``annotate.selectors.campaign_for``)
  and its reports wait (scoring/tasks.py), so no one sees the import half
  written; every other campaign goes on as usual between the import's
  transactions. The import's last transaction takes the fence down: that is
  when it becomes visible, all at once.
- If the import fails (a row refused by a constraint, a lost connection) what
  it wrote is deleted, a batch per transaction, before the fence falls. If its
  process dies (the request's timeout, a kill), the fence's heartbeat
  (``alive_at``, set by each of its transactions) stops: after ``LEASE``
  :func:`recover_imports` (run by ``recover_jobs`` and every minute by the
  task worker) takes the fence over, deletes what was written and takes it down.

What undoing deletes is told by the fence's marks: the highest id of each table
when the import began (rows are numbered upwards: any row the import adds has
a higher id), scoped to the campaign, and the accounts and runs it adds.
Judgments are deleted only if their first revision is the import's (``source``
``import``): a save that slipped past the fence is never touched.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone

from annotate import changes
from annotate.models import Assignment, Campaign, ImportFence, Judgment, JudgmentRevision, Membership, Run, Topic
from concord.busy import Busy, Patience, is_transient
from concord.errors import InvalidInput

log = logging.getLogger(__name__)

#: Rows per transaction of a large import, and the most a small one writes in one.
BATCH = 2500
#: The least pause between two transactions of a large import on SQLite
#: (seconds); it pauses as long as its last transaction took if that was longer.
#: A writer waiting for SQLite's lock polls for it (at most 100 ms apart; there is
#: no queue): without such a pause the import takes the lock again at once,
#: transaction after transaction, and the others wait as long as the whole import.
PAUSE = 0.12
#: How long an import keeps trying to begin a transaction the database is too busy
#: for (seconds); then it fails like any request that cannot get the lock (503).
GIVE_UP_AFTER = 60.0
#: An import whose last transaction is older than this is abandoned (its process died).
LEASE = timedelta(minutes=2)

_TABLES = {"topic": Topic, "judgment": Judgment, "assignment": Assignment, "membership": Membership, "run": Run}

IN_PROGRESS = "an import is being written into this campaign; send this one once it has finished"


def fenced_message(campaign_name: str) -> str:
    return (
        f'An import is being written into the campaign "{campaign_name}": its pages are back as soon as it is '
        "complete. Nothing was saved; please try again in a few seconds."
    )


@dataclass
class Plan:
    """What an import will write, for the fence's marks: the accounts it writes
    under (ids of existing ones, names of new ones) and the runs it adds."""

    rows: int
    accounts: list[int] = field(default_factory=list)
    new_accounts: list[str] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)


def write(campaign: Campaign, steps: Iterator[None], plan: Plan) -> None:
    """Run ``steps`` (a generator whose every stretch between two yields writes at
    most about ``BATCH`` rows): in one transaction if the import is small, else
    each stretch in a transaction of its own behind the campaign's fence.

    A transaction that cannot begin (the lock not got within the busy timeout:
    the other campaigns' saves come first) is tried again with a growing wait;
    nothing of the step had run yet."""
    patience = Patience(f"import into campaign {campaign.pk}")
    began: list[bool] = []  # whether the current transaction's step began: then no retry

    def before_step(error: Exception) -> bool:
        return is_transient(error) and not began

    def run(first, *, every: bool = False, fence: ImportFence | None = None) -> bool:
        began.clear()
        return patience.call(
            lambda: _transaction(steps, first, began, every=every, fence=fence),
            retry_if=before_step,
            give_up_after=GIVE_UP_AFTER,
        )

    if plan.rows <= BATCH:
        run(lambda: _no_fence(campaign), every=True)
        return
    fence = patience.call(lambda: _raise_fence(campaign, plan), give_up_after=GIVE_UP_AFTER)
    try:
        while True:
            started = time.monotonic()
            if run(lambda: _beat(fence), fence=fence):
                return
            # (Within a caller's transaction the lock stays held anyway: no pause.)
            if connection.vendor == "sqlite" and not connection.in_atomic_block:
                time.sleep(max(PAUSE, time.monotonic() - started))
    except TakenOver:
        raise  # recovery undoes it
    except BaseException:
        log.warning("import into campaign %s failed after it began writing: undoing it", campaign.pk)
        try:
            undo(fence)
        except Exception:  # the fence stays up (503) until recover_imports undoes it
            log.exception("undoing the import into campaign %s failed", campaign.pk)
        raise


def _transaction(steps: Iterator[None], first, began: list, *, every: bool, fence: ImportFence | None) -> bool:
    """One transaction: ``first()``, then the next step (``every``: all of them); True
    once the steps are exhausted (then the fence, if any, falls in it too).
    ``began`` records that a step began (it cannot be run again)."""
    with transaction.atomic():
        first()
        began.append(True)
        if every:
            for _ in steps:
                pass
            return True
        finished = next(steps, StopIteration) is StopIteration
        if finished and fence is not None:
            # The fence falls with the last rows: the import appears all at once.
            ImportFence.objects.filter(pk=fence.pk).delete()
        return finished


def _no_fence(campaign: Campaign) -> None:
    """Inside the transaction: the campaign's row locked (PostgreSQL: imports of
    one campaign take turns) and no large import writing into it."""
    Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
    if ImportFence.objects.filter(campaign=campaign).exists():
        raise InvalidInput("file", IN_PROGRESS)


def _raise_fence(campaign: Campaign, plan: Plan) -> ImportFence:
    user = get_user_model()
    with transaction.atomic():
        _no_fence(campaign)
        highest = {name: model.objects.aggregate(m=Max("pk"))["m"] or 0 for name, model in _TABLES.items()}
        highest["user"] = user.objects.aggregate(m=Max("pk"))["m"] or 0
        now = timezone.now()
        return ImportFence.objects.create(
            campaign=campaign,
            owner=uuid.uuid4().hex,
            started_at=now,
            alive_at=now,
            marks={
                "highest": highest,
                "accounts": plan.accounts,
                "new_accounts": plan.new_accounts,
                "runs": plan.runs,
            },
        )


class TakenOver(Busy):
    """The import's fence was taken over by recovery (it seemed abandoned)."""


def _beat(fence: ImportFence) -> None:
    """Inside each of the import's transactions: still the fence's owner (recovery
    may have taken an import over that it found abandoned), and alive."""
    if not ImportFence.objects.filter(pk=fence.pk, owner=fence.owner).update(alive_at=timezone.now()):
        raise TakenOver("this import went too long without writing and was undone; send it again")


def undo(fence: ImportFence) -> None:
    """Delete what the fenced import wrote, a batch per transaction, then take the
    fence down. If this fails too, the fence stays (503) until recovery undoes it."""
    marks, campaign = fence.marks, fence.campaign_id
    highest = marks["highest"]
    accounts = set(marks["accounts"])
    user = get_user_model()
    accounts |= set(
        user.objects.filter(username__in=marks["new_accounts"], pk__gt=highest["user"]).values_list("pk", flat=True)
    )
    # Judgments first (their revisions go with them), then what only they needed.
    imported = JudgmentRevision.objects.filter(source="import", version=1).values("judgment_id")
    _delete_in_batches(
        fence,
        Judgment.objects.filter(topic__campaign_id=campaign, pk__gt=highest["judgment"], pk__in=imported),
    )
    new_topics = Topic.objects.filter(campaign_id=campaign, pk__gt=highest["topic"])
    _delete_in_batches(
        fence,
        Assignment.objects.filter(topic__campaign_id=campaign, pk__gt=highest["assignment"]).filter(
            assessor_id__in=accounts
        )
        | Assignment.objects.filter(topic__in=new_topics),
    )
    _delete_in_batches(fence, new_topics)
    _delete_in_batches(fence, Run.objects.filter(campaign_id=campaign, pk__gt=highest["run"], name__in=marks["runs"]))
    _delete_in_batches(
        fence,
        Membership.objects.filter(campaign_id=campaign, pk__gt=highest["membership"], user_id__in=accounts),
    )
    _delete_in_batches(
        fence,
        user.objects.filter(
            username__in=marks["new_accounts"], pk__gt=highest["user"], memberships__isnull=True, judgments__isnull=True
        ),
    )
    Patience(f"undoing the import into campaign {campaign}").call(lambda: _lower(fence), give_up_after=GIVE_UP_AFTER)
    log.warning("import into campaign %s undone", campaign)


def _lower(fence: ImportFence) -> None:
    with transaction.atomic():
        _beat(fence)
        ImportFence.objects.filter(pk=fence.pk).delete()
        # Rebuilds skipped while the fence stood (scoring.schedule.importing) are due now.
        changes.rebuild_wanted(fence.campaign_id)


def _delete_in_batches(fence: ImportFence, rows) -> None:
    patience = Patience(f"undoing the import into campaign {fence.campaign_id}")
    while patience.call(lambda: _delete_batch(fence, rows), give_up_after=GIVE_UP_AFTER):
        pass


def _delete_batch(fence: ImportFence, rows) -> bool:
    """One transaction: the next ``BATCH`` of ``rows`` deleted; False once none is left."""
    with transaction.atomic():
        _beat(fence)
        batch = list(rows.order_by("pk").values_list("pk", flat=True)[:BATCH])
        if batch:
            rows.model.objects.filter(pk__in=batch).delete()
        return bool(batch)


def recover_imports(*, now=None) -> list[int]:
    """Undo the imports whose process died (no transaction of theirs for
    ``LEASE``); the campaigns they were writing into."""
    now = now or timezone.now()
    undone = []
    for fence in ImportFence.objects.filter(alive_at__lt=now - LEASE):
        owner = uuid.uuid4().hex
        # Conditional: two recoveries (or a late heartbeat) cannot both take it.
        if not ImportFence.objects.filter(pk=fence.pk, owner=fence.owner, alive_at=fence.alive_at).update(
            owner=owner, alive_at=timezone.now()
        ):
            continue
        fence.owner = owner
        log.warning("import into campaign %s abandoned since %s: undoing it", fence.campaign_id, fence.alive_at)
        undo(fence)
        undone.append(fence.campaign_id)
    return undone
