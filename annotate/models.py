"""Campaigns, topics, assignments and judgments: everything an assessor touches.

Behaviour lives in ``annotate.services`` and ``annotate.imports`` (writes) and ``annotate.selectors``
(reads); these classes only describe the data.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models.functions import Coalesce


class Campaign(models.Model):
    # Validated against the kind registry (kinds.registry.KINDS) in the
    # services rather than with `choices`, so a new kind needs no migration.
    kind = models.CharField(max_length=32)
    name = models.CharField(max_length=200)
    guidelines = models.TextField(blank=True)
    overlap = models.PositiveSmallIntegerField(default=2, help_text="Assessors per topic.")
    params = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"


class MembershipQuerySet(models.QuerySet):
    def locked(self, campaign: Campaign, username: str) -> Membership | None:
        """The member of ``campaign`` named ``username`` with their user, its row locked until the
        transaction ends (a change of their flags reads and writes it once); None: no such member."""
        return (
            self.select_for_update().filter(campaign=campaign, user__username=username).select_related("user").first()
        )


class Membership(models.Model):
    objects = MembershipQuerySet.as_manager()

    class Role(models.TextChoices):
        ASSESSOR = "assessor", "Assessor"
        ORGANISER = "organiser", "Organiser"
        #: Sets the gold of disputed topics on the adjudication pages (docs/pages.md, "Adjudication"):
        #: sees the judgments there, no agreement pages, reports or exports.
        ADJUDICATOR = "adjudicator", "Adjudicator"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices)
    #: An imported crowd worker: an account an import of this campaign created
    #: (no usable password, inactive: it never logs in). Later imports of this
    #: campaign may write under it again; no import ever writes under any
    #: other account unless asked to map the campaign's assessors.
    imported = models.BooleanField(
        default=False,
        help_text="An imported crowd worker: an account an import of this campaign created; it never logs in.",
    )
    #: Adding this member was an invitation: it created the account (the name was
    #: nobody's), or found it an unclaimed invitation of other campaigns. Until it
    #: can log in, the organisers of its campaigns may make it a set-password link;
    #: the first used withdraws the invitations its maker did not make
    #: (annotate.services.accounts). An account that could log in never gets one from an
    #: organiser: its owner signs in with their own password.
    created_account = models.BooleanField(
        default=False,
        help_text="Adding this member was an invitation (a new account, or one nobody had claimed): its organisers "
        "may make it a set-password link until it can log in.",
    )
    #: A model judge (an LLM used as a rater, typically an imported column or worker): its
    #: judgments are kept apart from the people's. The people's figures, gold standards, stop
    #: signal, adaptive allocation and progress counts leave them out unless the campaign's
    #: ``model_judges_count`` param counts them; the labels report tests it against the people
    #: (kinds/labels/judges.py). Set through annotate.services.members.set_model_judge, which
    #: has every report rebuilt.
    model_judge = models.BooleanField(
        default=False,
        help_text="A model judge (an LLM used as a rater): its judgments are kept out of the people's agreement, "
        "gold standards, stop signal, adaptive allocation and progress counts unless the campaign counts them, "
        "and tested against the people in the report.",
    )
    #: When the assessor was paused (null: not paused): by the campaign's quality rules on their
    #: controls (annotate/quality.py) or by an organiser. A paused assessor gets no more work and
    #: their judgments leave the figures and gold standards (annotate.judges.left_out), kept and
    #: shown; every pause and reinstatement is a ``PauseRecord``.
    paused_at = models.DateTimeField(
        null=True, blank=True, help_text="When the assessor was paused (blank: not paused); see Pause records."
    )
    #: Why, in plain words the assessor is shown; blank when not paused.
    pause_reason = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "user"], name="one_membership_per_user")]
        ordering = ["campaign", "role", "user__username"]

    def __str__(self) -> str:
        return f"{self.user} is {self.role} of {self.campaign}"


class StudyLink(models.Model):
    """A crowdsourcing platform's way into a campaign: ``/study/<token>/``, posted on
    Prolific or MTurk, signs a worker in as an assessor of the campaign, one account per
    platform id (annotate/study.py, annotate/services/study.py). ``token`` is random
    (``secrets.token_urlsafe``): the campaign comes from it, never from the URL's other
    parameters. A campaign has at most one open link; a withdrawn one is kept (its workers'
    rows refer to it) and refused."""

    class Platform(models.TextChoices):
        PROLIFIC = "prolific", "Prolific"
        MTURK = "mturk", "Amazon Mechanical Turk"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="study_links")
    token = models.CharField(max_length=64, unique=True)
    platform = models.CharField(max_length=16, choices=Platform.choices)
    #: What a worker who has done their share is shown (Prolific: also in the completion URL).
    completion_code = models.CharField(max_length=64)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    #: When an organiser withdrew or replaced it (null: open).
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign"], condition=models.Q(withdrawn_at__isnull=True), name="one_open_study_link"
            )
        ]
        ordering = ["campaign", "-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.platform} link of {self.campaign}{' (withdrawn)' if self.withdrawn_at else ''}"


class StudyWorker(models.Model):
    """A crowd worker who came in through a study link: their account's membership of the
    campaign (``campaign``, ``user``) with the platform's ids, as the platform sent them on
    the latest visit, and when they came, came back and finished. One per platform id and
    campaign. Kept when the member is removed, so that the same id is not let in again."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="study_workers")
    #: The link they first came through (the rate limit counts the accounts each link made).
    link = models.ForeignKey(StudyLink, on_delete=models.CASCADE, related_name="workers")
    platform = models.CharField(max_length=16, choices=StudyLink.Platform.choices)
    #: Prolific's ``PROLIFIC_PID`` or MTurk's ``workerId``, checked (annotate/study.py).
    worker_id = models.CharField(max_length=64)
    #: Prolific's ``STUDY_ID`` and ``SESSION_ID``; blank on MTurk.
    study_id = models.CharField(max_length=64, blank=True, default="")
    session_id = models.CharField(max_length=64, blank=True, default="")
    #: MTurk's ``assignmentId``, ``hitId`` and ``turkSubmitTo`` (one of MTurk's two hosts); blank on Prolific.
    assignment_id = models.CharField(max_length=255, blank=True, default="")
    hit_id = models.CharField(max_length=255, blank=True, default="")
    submit_to = models.CharField(max_length=64, blank=True, default="")
    first_visit = models.DateTimeField()
    last_visit = models.DateTimeField()
    #: When the worker's next-topic page first had no topic for them (null: not yet).
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "platform", "worker_id"], name="one_account_per_platform_id"),
            models.UniqueConstraint(fields=["campaign", "user"], name="one_study_worker_per_member"),
        ]
        # The rate limit: the accounts one link made in the last minute.
        indexes = [models.Index(fields=["link", "first_visit"], name="study_worker_link_first")]
        ordering = ["campaign", "first_visit", "id"]

    def __str__(self) -> str:
        return f"{self.platform} {self.worker_id} in {self.campaign_id}"


class Topic(models.Model):
    #: (No index of its own: the unique constraint's and ``topic_order`` lead with it.)
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="topics", db_index=False)
    external_id = models.CharField(max_length=200)
    title = models.CharField(max_length=500, blank=True)
    data = models.JSONField()
    position = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "external_id"], name="unique_topic_external_id")]
        # The campaign's topics in order, read a window at a time: a rebuild finds the first
        # topics whose rows a report copies (scoring.jobs._listed) without sorting the campaign.
        indexes = [models.Index(fields=["campaign", "position", "id"], name="topic_order")]
        ordering = ["campaign", "position", "id"]

    def __str__(self) -> str:
        return self.title or self.external_id


class Assignment(models.Model):
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="assignments")
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments")
    #: The items of the topic this assessor judges; null: all of them.
    items = models.JSONField(null=True, blank=True)
    #: The probability each of ``items`` was drawn with, ``{item: probability}``, when the kind
    #: draws them at random as the assessor asks for work (``KindSpec.allocate``: the preference
    #: kind's active allocation); the reports weigh each such judgment of an item by its inverse.
    #: Null: the items were not drawn so (assigned up front, imported). Never shown to the assessor.
    draws = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    #: When the assessor skipped the topic (null: not skipped). A skipped topic
    #: leaves their "next topic" order; its judgment, if any, stays and counts.
    skipped_at = models.DateTimeField(null=True, blank=True)
    #: Why (the assessor's words, optional); blank when not skipped.
    skip_reason = models.TextField(blank=True, default="")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["topic", "assessor"], name="one_assignment_per_topic")]
        ordering = ["topic__position", "topic_id", "assessor_id"]

    def __str__(self) -> str:
        return f"{self.topic} -> {self.assessor}"


class Judgment(models.Model):
    """One assessor's judgment of one topic.

    ``payload`` is what the assessor is editing; ``submitted_payload`` (at
    ``submitted_version``) is what counts in the reports while the status is
    submitted or reopened, None otherwise. It is stored only while it differs
    from ``payload`` (``held_payload``, reopened: a draft on top): a submitted
    judgment's payload is the one that counts, and a second copy would be
    a third of the row (docs/benchmarks.md, ``benchmarks.storage``). Queries
    read it as ``SUBMITTED_PAYLOAD``. The states and the allowed
    transitions between them are in ``annotate.services.judgments`` (docs/api.md,
    "Judgment states").
    """

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        SUBMITTED = "submitted", "Submitted"
        #: Submitted, then reopened: ``payload`` is a draft on top; ``submitted_payload`` still counts.
        REOPENED = "reopened", "Reopened"
        #: Withdrawn by its assessor: it no longer counts (the reason is in its revision).
        WITHDRAWN = "withdrawn", "Withdrawn"

    #: The statuses whose ``submitted_payload`` counts in the reports.
    COUNTING = (Status.SUBMITTED, Status.REOPENED)

    #: No index of its own: the unique (topic, assessor) and the (topic, status) index lead with it.
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="judgments", db_index=False)
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="judgments")
    payload = models.JSONField(default=dict)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    version = models.PositiveIntegerField(default=0)
    #: The submitted payload while a draft sits on top (reopened); null otherwise (``submitted_payload``).
    held_payload = models.JSONField(null=True, blank=True)
    #: The version that counts in reports (null: nothing counts).
    submitted_version = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    #: When the counting version was submitted (null: nothing counts).
    submitted_at = models.DateTimeField(null=True, blank=True)
    #: Active time spent on the topic, in milliseconds: the sum of the
    #: ``active_ms`` increments sent with the saves (the page counts only while
    #: it is visible and the assessor did something in the last 60 s).
    active_ms = models.PositiveBigIntegerField(
        default=0, help_text="Active time spent judging, in milliseconds (not wall clock)."
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["topic", "assessor"], name="one_judgment_per_assessor")]
        # Topic first: "the judgments of a campaign that count" (scoring.selectors.submitted_judgments)
        # goes from the campaign's topics to their judgments; led by status, SQLite
        # scanned every counting judgment in the database instead.
        indexes = [models.Index(fields=["topic", "status"])]

    def __str__(self) -> str:
        return f"{self.assessor} on {self.topic} (v{self.version}, {self.status})"

    @property
    def submitted_payload(self) -> Any:
        """The payload that counts in the reports: None unless submitted or reopened."""
        if self.status == self.Status.REOPENED:
            return self.held_payload
        return self.payload if self.status == self.Status.SUBMITTED else None


#: ``Judgment.submitted_payload`` in a query (``.annotate(counted=SUBMITTED_PAYLOAD)``).
SUBMITTED_PAYLOAD = models.Case(
    models.When(status=Judgment.Status.SUBMITTED, then=models.F("payload")),
    models.When(status=Judgment.Status.REOPENED, then=models.F("held_payload")),
    default=None,
    output_field=models.JSONField(),
)


class JudgmentRevision(models.Model):
    """The history of a judgment: every submitted version, every reopening and
    withdrawal, and its drafts. Drafts saved in a row from one browser session or
    API token within ``CONCORD_DRAFT_REVISION_SECONDS`` share one revision, which
    holds the last of them (``saves``: how many), and a submission from there ends
    the run by taking that revision over (annotate.services.judgments.save_judgment).
    Nothing else is ever changed or deleted."""

    #: No index of its own: the unique (judgment, version) leads with it.
    judgment = models.ForeignKey(Judgment, on_delete=models.CASCADE, related_name="revisions", db_index=False)
    version = models.PositiveIntegerField()
    #: No index: no page or report looks revisions up by author; only deleting an account does
    #: (its revisions keep a null author), a rare act that may scan the table, while an index
    #: costs every revision about 12 bytes on PostgreSQL (``benchmarks.storage``).
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+", db_index=False
    )
    #: This version's payload; null on the judgment's newest revision, whose payload is the
    #: judgment's own (``payload``): stored once, and copied here when a newer revision is made
    #: (annotate.services.judgments). Queries read it as ``REVISION_PAYLOAD``.
    kept_payload = models.JSONField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Judgment.Status.choices)
    source = models.CharField(max_length=32, default="web", help_text="web, api or import")
    #: Why the judgment was withdrawn (the assessor's words); blank otherwise.
    reason = models.TextField(blank=True, default="")
    #: When its first save was made; ``updated_at``: its last.
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    #: The saves it holds: more than one when later draft saves replaced it.
    saves = models.PositiveIntegerField(default=1)
    #: Where a draft save came from (a digest of the browser session, or the API token's
    #: id): later drafts from the same place may replace it. Blank on every other revision.
    client = models.CharField(max_length=40, blank=True, default="")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["judgment", "version"], name="one_revision_per_version")]
        ordering = ["judgment", "version"]

    def __str__(self) -> str:
        return f"{self.judgment_id} v{self.version}"

    @property
    def payload(self) -> Any:
        """This version's payload (the judgment's own on its newest revision)."""
        return self.judgment.payload if self.kept_payload is None else self.kept_payload

    @payload.setter
    def payload(self, value: Any) -> None:
        self.kept_payload = value


#: ``JudgmentRevision.payload`` in a query (``.annotate(payload_of=REVISION_PAYLOAD)``).
REVISION_PAYLOAD = Coalesce(models.F("kept_payload"), models.F("judgment__payload"), output_field=models.JSONField())


class Control(models.Model):
    """A known answer to one item of a topic: a control item, mixed into the assessors' work to
    measure their accuracy (annotate/quality.py). Stored apart from ``Topic.data``, which is
    what an assessor may see of a topic (``Kind.assessor_view``): no page, endpoint or export an
    assessor reaches reads this table, so a control looks exactly like any other topic to them."""

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="controls")
    #: The item (an id of ``Kind.items()``; the topic's one item where the kind judges a topic
    #: as one, e.g. a preference battle).
    item = models.CharField(max_length=200)
    #: The known answer, as ``Kind.control_labels`` reads the assessor's answer to the item.
    answer = models.JSONField()
    #: An attention check: the item itself tells the assessor what to answer, so a wrong answer
    #: means they did not read it (counted apart: ``annotate.quality.Figures.failed_checks``).
    attention = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["topic", "item"], name="one_control_per_item")]
        ordering = ["topic", "item"]

    def __str__(self) -> str:
        return f"control {self.item} of {self.topic}"


class PauseRecord(models.Model):
    """One pause or reinstatement of an assessor, with its evidence: append-only."""

    class Action(models.TextChoices):
        PAUSE = "pause", "Paused"
        REINSTATE = "reinstate", "Reinstated"

    membership = models.ForeignKey(Membership, on_delete=models.CASCADE, related_name="pause_records")
    action = models.CharField(max_length=16, choices=Action.choices)
    #: Who: null when the campaign's rules paused the assessor.
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    #: In plain words (the assessor is shown a pause's).
    reason = models.TextField()
    #: The figures behind it: controls answered and right, the interval, the rule's settings,
    #: failed attention checks.
    evidence = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["membership", "at", "id"]

    def __str__(self) -> str:
        return f"{self.action} {self.membership.user} at {self.at:%Y-%m-%d %H:%M}"


class Run(models.Model):
    """A system output (or a reference labelling) imported to be scored."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="runs")
    name = models.CharField(max_length=200)
    data = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "name"], name="unique_run_name")]
        ordering = ["campaign", "name"]

    def __str__(self) -> str:
        return self.name


class Curation(models.Model):
    """An organiser's work on a topic beside the judgments: for factoids, the
    relations between annotators' inventories and the consensus. Versioned
    like judgments: a stale version is refused, every save is kept."""

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="curations")
    name = models.CharField(max_length=64)
    data = models.JSONField()
    version = models.PositiveIntegerField(default=0)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["topic", "name"], name="one_curation_per_name")]

    def __str__(self) -> str:
        return f"{self.name} of {self.topic} (v{self.version})"


class CurationRevision(models.Model):
    """Append-only history of curations."""

    curation = models.ForeignKey(Curation, on_delete=models.CASCADE, related_name="revisions")
    version = models.PositiveIntegerField()
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    data = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["curation", "version"], name="one_curation_revision_per_version")
        ]
        ordering = ["curation", "version"]


class Flag(models.Model):
    """An assessor's comment for the organisers on a topic or one item of it
    (``item``: an id of the kind's ``Kind.items()``; blank: the whole topic).
    Open until an organiser resolves it, with an optional answer the
    assessor sees on the topic's page."""

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="flags")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="flags")
    item = models.CharField(max_length=200, blank=True, default="", help_text="Blank: the whole topic.")
    comment = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    answer = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["topic", "resolved_at"]),
            # The flag limits (annotate.flags): one author's flags, recent or open.
            models.Index(fields=["author", "created_at"], name="flag_author_created"),
        ]

    @property
    def is_open(self) -> bool:
        return self.resolved_at is None

    def __str__(self) -> str:
        what = f"{self.topic} ({self.item})" if self.item else str(self.topic)
        return f"{self.author} on {what}: {'open' if self.is_open else 'resolved'}"


class ImportFence(models.Model):
    """A large import being written into a campaign, a few thousand rows per
    transaction (annotate/imports/fence.py). While it stands, the campaign's pages and
    API answer 503 (its rows are half written) and its reports wait; it falls in
    the import's last transaction, or, should the import fail or its process
    die, once what it wrote is deleted."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="+")
    #: Who writes: changes when recovery takes over an abandoned import.
    owner = models.CharField(max_length=64)
    started_at = models.DateTimeField()
    #: Set by every transaction of the import: one older than the lease is abandoned.
    alive_at = models.DateTimeField()
    #: What undoing the import deletes: the highest id of each table when it began,
    #: the accounts it writes under, the runs it adds.
    marks = models.JSONField(default=dict)

    def __str__(self) -> str:
        return f"import into {self.campaign_id} by {self.owner} since {self.started_at}"
