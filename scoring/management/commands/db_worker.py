"""``manage.py db_worker``: django-tasks-db's worker, made to outlast a busy or
restarting database. (scoring is listed before django_tasks_db in
INSTALLED_APPS, so this is the command ``db_worker`` runs.)

django-tasks-db's own worker ends its process on the first "database is
locked" it meets while taking a task (a long import held the write lock past
the busy timeout), or while recording a task's outcome; a task that met one
was marked failed, leaving its campaign's reports stale. Here:

- taking a task and recording its outcome wait and try again after a
  transient database error (concord.busy: a lock not got in time, a lost
  connection), with a growing wait, logging the outage once when it starts
  and once when it ends;
- a task that fails on a transient error is queued again (``run_after``: 1, 2,
  4 ... s later, at most 60 s), up to ``MAX_TRIES`` runs in all, instead of
  being marked failed;
- every minute it undoes the large imports whose process died
  (annotate.imports.recover_imports), so their campaigns open again, and
  removes the import wizard's previewed files left past their time
  (annotate.imports.wizard.sweep_staged);
- the worker id is ``host:pid:boot`` unless given (scoring.services.worker_id),
  so ``recover_jobs`` can tell whether the worker still runs.

Any other error still ends the process: ./run (and systemd, docs/operations.md, "Running on
several machines") starts it again.
"""

from __future__ import annotations

import os
import random
import time
from datetime import timedelta

from django.core.management.base import CommandError
from django.db import close_old_connections
from django.utils import timezone
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV, run_with_reloader
from django_tasks_db.compat import TaskContext, task_finished, task_started
from django_tasks_db.management.commands import db_worker as upstream
from django_tasks_db.models import DBTaskResult
from django_tasks_db.utils import exclusive_transaction

from annotate.imports.fence import recover_imports
from annotate.imports.wizard import sweep_staged
from concord.busy import Patience, is_transient
from scoring.services import worker_id

#: Runs of one task that failed on a transient database error, before it is marked failed.
MAX_TRIES = 10
#: The longest wait before a task that met a transient error runs again (seconds).
MOST_DELAY = 60.0
#: How often the worker looks for abandoned imports to undo (annotate/imports/fence.py), seconds.
RECOVER_EVERY = 60.0

logger = upstream.logger


class Worker(upstream.Worker):
    def run(self) -> None:
        logger.info("Starting worker worker_id=%s queues=%s", self.worker_id, ",".join(self.queue_names))
        if self.startup_delay and self.interval:
            time.sleep(random.random())  # noqa: S311 - spreads the workers' first polls
        patience = Patience(f"worker {self.worker_id}", logger=logger)
        recovered = 0.0
        while self.running:
            try:
                if time.monotonic() - recovered >= RECOVER_EVERY:
                    recovered = time.monotonic()
                    self.recover()
                task_result = self.take()
            except Exception as error:
                if not is_transient(error):
                    raise
                time.sleep(patience.failed(error))
                continue
            patience.succeeded()
            if task_result is not None:
                self.run_task(task_result)
            elif self.batch:
                logger.info("No more tasks to run for worker_id=%s - exiting gracefully.", self.worker_id)
                return
            if self.max_tasks is not None and self._run_tasks >= self.max_tasks:
                logger.info(
                    "Run maximum tasks (%d) on worker=%s - exiting gracefully.", self._run_tasks, self.worker_id
                )
                return
            close_old_connections()
            if self.running and task_result is None:
                time.sleep(self.interval)

    @staticmethod
    def recover() -> None:
        """Undo abandoned imports and remove the import wizard's files left past their
        time (on this machine); a fault there is logged, not the worker's end."""
        try:
            recover_imports()
        except Exception as error:
            if is_transient(error):
                raise
            logger.exception("undoing abandoned imports failed")
        try:
            sweep_staged()
        except OSError:
            logger.exception("removing the import wizard's left files failed")

    def take(self) -> DBTaskResult | None:
        """Claim the next ready task of this worker's queues, or None."""
        close_old_connections()
        tasks = DBTaskResult.objects.ready().filter(backend_name=self.backend_name)
        if not self.process_all_queues:
            tasks = tasks.filter(queue_name__in=self.queue_names)
        if self.excluded_queue_names:
            tasks = tasks.exclude(queue_name__in=self.excluded_queue_names)
        with exclusive_transaction(tasks.db):
            task_result = tasks.get_locked()
            if task_result is not None:
                task_result.claim(self.worker_id)
        return task_result

    def run_task(self, db_task_result: DBTaskResult) -> None:
        self.running_task = True
        try:
            try:
                task = db_task_result.task
                result = db_task_result.task_result
                task_started.send(sender=type(task.get_backend()), task_result=result)
                args = (TaskContext(task_result=result), *result.args) if task.takes_context else result.args
                value = task.call(*args, **result.kwargs)
            except BaseException as error:
                self.settle(db_task_result, error)
            else:
                self.record(db_task_result, lambda: db_task_result.set_successful(value))
                task_finished.send(sender=type(task.get_backend()), task_result=db_task_result.task_result)
        finally:
            self.running_task = False
            self._run_tasks += 1

    def settle(self, db_task_result: DBTaskResult, error: BaseException) -> None:
        """A task that raised: queued again if the error was transient (and it has
        runs left), else marked failed, as django-tasks-db does."""
        tries = len(db_task_result.worker_ids)
        if isinstance(error, Exception) and is_transient(error) and tries < MAX_TRIES:
            delay = min(MOST_DELAY, 2.0 ** (tries - 1))
            self.record(db_task_result, lambda: self.queue_again(db_task_result, delay))
            logger.warning(
                "Task id=%s (%s) met a busy database (%s): queued again in %.0f s (run %d of %d)",
                db_task_result.id,
                db_task_result.task_path,
                error,
                delay,
                tries,
                MAX_TRIES,
            )
            return
        self.record(db_task_result, lambda: db_task_result.set_failed(error))
        try:
            task_finished.send(sender=type(db_task_result.task.get_backend()), task_result=db_task_result.task_result)
        except Exception:  # noqa: BLE001 - an unimportable task: its failure is recorded, the worker goes on
            logger.exception("Task id=%s failed unexpectedly", db_task_result.id)

    @staticmethod
    def queue_again(db_task_result: DBTaskResult, delay: float) -> None:
        DBTaskResult.objects.filter(pk=db_task_result.pk, status="RUNNING").update(
            status="READY", started_at=None, run_after=timezone.now() + timedelta(seconds=delay)
        )

    def record(self, db_task_result: DBTaskResult, write) -> None:
        """A task's outcome, written however long the database stays busy."""
        close_old_connections()
        Patience(f"worker {self.worker_id}: task id={db_task_result.id}", logger=logger).call(write)


class Command(upstream.Command):
    help = "Run a database background worker that outlasts a busy or restarting database (see its module)."

    def add_arguments(self, parser) -> None:
        super().add_arguments(parser)
        # Computed here, not at import: the id names this process.
        parser.set_defaults(worker_id=worker_id())

    def handle(self, *, verbosity: int, queue_name: str, exclude_queues: str, reload: bool, batch: bool, **options):
        # As django-tasks-db's handle, with this module's Worker.
        self.configure_logging(verbosity)
        if reload and batch:
            logger.warning("Warning: --reload and --batch cannot be specified together. Disabling autoreload.")
            reload = False
        queue_names = queue_name.split(",")
        excluded = exclude_queues.split(",") if exclude_queues else []
        if excluded and "*" not in queue_names:
            raise CommandError("--exclude-queues can only be used with --queue-name=*")
        worker = Worker(
            queue_names=queue_names,
            interval=options["interval"],
            batch=batch,
            backend_name=options["backend_name"],
            startup_delay=options["startup_delay"],
            max_tasks=options["max_tasks"],
            worker_id=options["worker_id"],
            excluded_queue_names=excluded,
        )
        if reload:
            if os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
                worker.configure_signals()  # only the reloader's child
            run_with_reloader(worker.run)
        else:
            worker.configure_signals()
            worker.run()
