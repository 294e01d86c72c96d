"""Queue again the analyses and recomputes that a lost task worker left unfinished.

./run calls it before starting its worker; operators call it after a worker
died (kill -9, out of memory, a machine lost):

    manage.py recover_jobs                      workers of this machine that are gone
    manage.py recover_jobs --dead-worker ID     a worker of another machine
    manage.py recover_jobs --no-worker-running  every running task is lost (all workers stopped)
    manage.py recover_jobs --job 12             queue job 12 again whatever the queue says

It also undoes the large imports whose process died (annotate/imports/fence.py), so
their campaigns open again.

A job whose worker died while running it is queued again until it has been
started ``scoring.services.MAX_ATTEMPTS`` (2) times, then marked failed; a
cancelled job is never queued again.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from annotate.imports.fence import recover_imports
from scoring import services


class Command(BaseCommand):
    help = (
        "Mark the tasks of lost workers failed and queue their unfinished work again: plain jobs from the start, "
        "chunked jobs only their unfinished chunks, recomputes for campaigns with stale reports."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--dead-worker",
            action="append",
            default=[],
            metavar="ID",
            help="A worker id known to be gone (repeatable). Workers of this machine whose id is host:pid:boot "
            "(as ./run starts them) are checked without it.",
        )
        parser.add_argument(
            "--no-worker-running",
            action="store_true",
            help="No worker runs anywhere now: every task marked running was lost.",
        )
        parser.add_argument(
            "--job",
            action="append",
            type=int,
            default=[],
            metavar="ID",
            help="Queue this unfinished job again whatever its tasks say (repeatable; for a tasks backend "
            "whose queue is not in the database, such as RQ).",
        )
        parser.add_argument(
            "--grace",
            type=float,
            default=60.0,
            metavar="SECONDS",
            help="A job with no task at all is queued again only once this old (default: %(default)s).",
        )
        parser.add_argument("--dry-run", action="store_true", help="Say what would be done; change nothing.")

    def handle(self, *, dead_worker, no_worker_running, job, grace, dry_run, verbosity, **options) -> None:
        # Large imports whose process died (annotate/imports/fence.py): undone, their campaigns open again.
        undone = [] if dry_run else recover_imports()
        recovery = services.recover_jobs(
            dead_workers=dead_worker, no_worker_running=no_worker_running, jobs=job, grace=grace, dry_run=dry_run
        )
        if verbosity == 0:
            return
        for campaign in undone:
            self.stdout.write(f"an abandoned import into campaign {campaign} undone")
        would = "would be " if dry_run else ""
        if not recovery:
            if not undone:
                self.stdout.write("Nothing to recover.")
            return
        for task in recovery.dead_tasks:
            self.stdout.write(f"lost task {would}marked failed: {task}")
        for job_id in recovery.rerun:
            self.stdout.write(f"job {job_id} {would}queued again from the start")
        for job_id, indices in recovery.chunks.items():
            self.stdout.write(f"job {job_id}: chunks {', '.join(map(str, indices))} {would}queued again")
        for job_id in recovery.combined:
            self.stdout.write(f"job {job_id}: combining its finished chunks {would}queued")
        for job_id, attempts in recovery.failed.items():
            self.stdout.write(f"job {job_id} {would}marked failed: {services.died_message(attempts)}")
        for campaign_id in recovery.recomputed:
            self.stdout.write(f"campaign {campaign_id}: recompute of its stale reports {would}queued")
