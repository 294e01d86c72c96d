"""Stored results of scoring: reports, long analyses (jobs) and the
bookkeeping that lets bursts of submissions share one recompute."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import IntegrityError, models, transaction

from annotate.models import Campaign, Topic
from scoring.fields import OrderedJSONField, PackedJSONField

#: The longest disagreement reason stored (a short phrase; longer ones are cut).
REASON_LENGTH = 200


class ReportQuerySet(models.QuerySet):
    def put(self, campaign: Campaign, name: str, **fields: Any) -> None:
        """Store the campaign's report ``name`` with ``fields``: an UPDATE of its row, an INSERT
        when it has none. Not ``update_or_create``, which first reads the row it replaces,
        stored data and all (a crowd's report and running sums are megabytes, decoded for
        nothing). A row inserted meanwhile by another writer is updated instead."""
        if self.filter(campaign=campaign, name=name).update(**fields):
            return
        try:
            with transaction.atomic():
                self.create(campaign=campaign, name=name, **fields)
        except IntegrityError:
            self.filter(campaign=campaign, name=name).update(**fields)


class Report(models.Model):
    """A computed campaign-wide report (``agreement``, its ``headline``, the stored
    progress); pages read these and never recompute them inline. A topic's report
    is not stored: it is computed when its page is read (scoring.selectors.topic_report),
    from the topic's judgments, and only its disagreement is kept (:class:`TopicPartial`)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="reports", db_index=False)
    name = models.CharField(max_length=64, default="agreement")
    #: The report as ``concord.typed.dump`` gives it, compressed (scoring.fields.PackedJSONField):
    #: read it back through ``scoring.selectors`` (the kind's type), never by hand.
    data = PackedJSONField()
    #: What the figures hold, read with them: every change to the campaign's judgments
    #: committed before ``computed_at`` is in them (later ones may be too), and they hold
    #: exactly ``judgments_seen`` counting judgments (the sum of its partials' ``judgments``).
    computed_at = models.DateTimeField()
    judgments_seen = models.PositiveIntegerField()
    #: The time and judgment count of what the report's costly figures (bootstrap intervals'
    #: bounds, model fits, ranking stability) were computed from: the campaign's ``fits``
    #: report, which a kind with running sums refreshes on its own cadence (scoring/sums.py);
    #: ``computed_at`` and ``judgments_seen`` when they are the report's own. Null: not recorded.
    fits_at = models.DateTimeField(null=True, blank=True)
    fits_judgments = models.PositiveIntegerField(null=True, blank=True)

    objects = ReportQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "name"], name="one_campaign_report")]

    def __str__(self) -> str:
        return f"{self.name} of {self.campaign}"


class TopicPartial(models.Model):
    """What a rebuild keeps of one topic (scoring/partials.py): its partial result for the
    campaign's report, the kind's ``partial_type`` as MessagePack compressed with the
    reports' dictionary (scoring.fields.compress; raw MessagePack when stored before it),
    merged with every other topic's into the campaign report; and its disagreement.

    The topic's report itself is not stored: written after every submission of the
    topic and read only when an organiser opens the topic's page, it is computed then
    (scoring.selectors.topic_report); a stored copy was a fifth of what the database
    grew by per judgment (benchmarks.storage, docs/benchmarks.md)."""

    #: Indexed with ``judgments`` and ``listed`` (Meta): a rebuild from the running sums counts the
    #: campaign's partials, and finds one of unknown count, from the index alone, not from the
    #: rows that hold the data.
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+", db_index=False)
    topic = models.OneToOneField(Topic, on_delete=models.CASCADE, related_name="+")
    data = models.BinaryField()
    computed_at = models.DateTimeField()
    #: The topic's disagreement (KindSpec ``Reports.disagreement`` of its report when it was
    #: computed; null: fewer than two judgments), so that lists filter and sort topics by
    #: it, and its reason in a few words (the adjudication queue shows it).
    disagreement = models.FloatField(null=True, blank=True)
    disagreement_reason = models.CharField(max_length=REASON_LENGTH, blank=True, default="")
    #: How many counting judgments the partial was computed from: what a campaign report
    #: merged from it claims to hold (``Report.judgments_seen`` is their sum), read with the
    #: same judgments as the partial, never counted afterwards. Null: unknown, so computed again.
    judgments = models.PositiveIntegerField(null=True, blank=True)
    #: How many of the campaign report's first rows in topic order the partial gives (the kind's
    #: ``RunningSums.listed``: clustering's and factoids' pairs of judges), so that a rebuild finds
    #: the first topics whose rows fill the report by reading a window of these counts, not every
    #: partial (scoring.jobs ``_listed``). Null: the kind lists none, or unknown (computed again).
    listed = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["campaign", "judgments", "listed"], name="partial_counts")]

    def __str__(self) -> str:
        return f"partial of topic {self.topic_id}"


class TopicProgress(models.Model):
    """One topic's contribution to its campaign's stored progress counts (scoring/progress_sums.py):
    ``progress_sums.ProgressSums`` as MessagePack, the counts of its assignments and judgments.
    A big campaign's counts are the sum of its topics' rows, which a rebuild updates by the
    changed topics' old rows out and their new ones in; a small campaign's, counted on every
    view, have none."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    topic = models.OneToOneField(Topic, on_delete=models.CASCADE, related_name="+")
    data = models.BinaryField()

    def __str__(self) -> str:
        return f"progress of topic {self.topic_id}"


class ActiveTimes(models.Model):
    """One assessor's active times in a campaign whose progress is kept as running sums
    (scoring/progress_sums.py): how many of their counting judgments took each time (ms), as
    MessagePack (``progress_sums.Times``), exactly the times the stored sums hold. A rebuild
    updates the rows of the assessors whose counting judgments changed by the changed topics'
    old rows out and new ones in, and takes their median from it, rather than reading every
    counting judgment of theirs again (at 10,000 topics, two thirds of a rebuild's CPU)."""

    #: (No index of its own: the unique constraint's leads with it.)
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+", db_index=False)
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    data = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "assessor"], name="one_active_times")]

    def __str__(self) -> str:
        return f"active times of user {self.assessor_id}"


class ProgressMark(models.Model):
    """A topic whose progress counts moved while its partial did not (a draft saved, a judgment
    reopened, active time added to a counting judgment, a skip, an assignment): the next rebuild
    counts the topic's :class:`TopicProgress` again. As a :class:`StaleTopic`, every mark rewrites
    ``marked_at`` and a rebuild deletes the mark only if it is unchanged."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    topic = models.OneToOneField(Topic, on_delete=models.CASCADE, related_name="+")
    marked_at = models.DateTimeField()


class StaleTopic(models.Model):
    """A topic whose judgments (or runs) changed since its report was computed.

    ``revision`` is the newest judgment revision that marked it and
    ``marked_at`` when; every mark rewrites both. The recompute task deletes
    a mark only if it is unchanged, so a change that lands while a report is
    being computed is never forgotten.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    topic = models.OneToOneField(Topic, on_delete=models.CASCADE, related_name="+")
    revision = models.BigIntegerField()
    marked_at = models.DateTimeField()


class ScoringState(models.Model):
    """At most one queued recompute per campaign: submissions that arrive while
    one is queued ride along with it instead of queueing their own."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, primary_key=True, related_name="+")
    pending = models.BooleanField(default=False)
    requested_at = models.DateTimeField(null=True)
    #: When the campaign's last rebuild by the task worker ended: the next one waits
    #: until CONCORD_REBUILD_INTERVAL seconds after it (scoring/schedule.py).
    finished_at = models.DateTimeField(null=True)
    #: Until when a worker rebuilding the campaign's reports holds it: with several
    #: workers, a second rebuild of the campaign waits for the first to end, so an
    #: older read can never overwrite a newer topic partial (scoring/schedule.py).
    running_until = models.DateTimeField(null=True)
    #: (Defaults in the database: schedule.claim inserts the row in raw SQL.)
    #: Which hold the campaign is in: every rebuild that takes it counts one up, so
    #: a chunk of a first build split by an earlier hold (its lease expired) stores
    #: nothing (scoring/schedule.py, "Chunked builds").
    build = models.PositiveBigIntegerField(db_default=0)
    #: Chunks of the running chunked build not finished yet; the one that ends at 0
    #: hands the campaign to the rebuild that merges the campaign report.
    build_chunks = models.PositiveIntegerField(db_default=0)
    #: When the queued refresh of the campaign's costly figures (scoring.jobs.refresh_fits) is
    #: to run; null: none is queued (one due long ago is taken as lost: jobs.FITS_QUEUED_LOST).
    fits_queued_at = models.DateTimeField(null=True)
    #: CPU seconds the campaign's last full merge took (a rebuild in full or a refresh of its
    #: costly figures): the next refresh waits at least ``scoring.jobs.FITS_WAIT`` times as long.
    fits_seconds = models.FloatField(null=True)
    #: Topics rebuilt from the running sums since the costly figures were merged (each rebuild
    #: adds its own): their refresh waits until these are ``scoring.jobs.FITS_SHARE`` of the
    #: judgments the figures hold, or the figures are ``CONCORD_FITS_MAX_AGE`` seconds old.
    changes_since_fits = models.PositiveIntegerField(db_default=0)
    #: When a change the progress sums cannot follow topic by topic (a member added or removed,
    #: a model judge's flag, a top-up) asked for the campaign's progress to be counted again in
    #: full (scoring/progress_sums.py); null: none did since the last full count. A rebuild clears
    #: it only if unchanged since it read it.
    progress_recount_at = models.DateTimeField(null=True)


class Job(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="jobs")
    analysis = models.CharField(max_length=64)
    params = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    progress = models.FloatField(default=0.0)
    message = models.CharField(max_length=500, blank=True)
    result = OrderedJSONField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    #: For analyses split into chunks run by any number of workers: the data
    #: every chunk works on, frozen when the job starts.
    snapshot = OrderedJSONField(null=True, blank=True)
    chunks_total = models.PositiveIntegerField(default=0)
    chunks_done = models.PositiveIntegerField(default=0)
    #: How many times a worker started this job's work (run_job, and
    #: recover_jobs when it queues a chunked job's lost work again): a job
    #: found unfinished after ``MAX_ATTEMPTS`` of them is failed, not queued
    #: again (scoring.services.recover_jobs).
    attempts = models.PositiveIntegerField(default=0)
    #: Not in the task queue yet: it waits for its campaign's turn (scoring/dispatch.py
    #: hands each campaign's work to the queue a little at a time, so campaigns take turns).
    waits_turn = models.BooleanField(default=False)
    #: An analysis with ``apply`` (e.g. the ordering kind's frespa-tune) changes the
    #: campaign only when an organiser applies its result (scoring.services.apply_job):
    #: the campaign's params before and after are kept, so the change can be shown
    #: and reverted (scoring.services.revert_job) while those params are unchanged.
    applied_at = models.DateTimeField(null=True, blank=True)
    applied_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    params_before = models.JSONField(null=True, blank=True)
    params_after = models.JSONField(null=True, blank=True)
    reverted_at = models.DateTimeField(null=True, blank=True)
    reverted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.analysis} #{self.pk} ({self.status})"


class JobChunk(models.Model):
    """One piece of a chunked job; its result is combined when all are done."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    params = models.JSONField(default=dict)
    result = OrderedJSONField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    #: Not in the task queue yet (as ``Job.waits_turn``).
    waits_turn = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["job", "index"], name="one_chunk_per_index")]
        ordering = ["job", "index"]
