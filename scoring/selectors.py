"""Reads for scoring: submitted judgments in a form the reports consume, and
the stored reports that pages show."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotate.models import Campaign, Curation, Judgment, JudgmentRevision, Topic
from scoring.models import Job, Report


@dataclass(frozen=True)
class JudgmentRow:
    topic_id: int
    assessor: str
    payload: dict[str, Any]


def submitted_judgments(campaign: Campaign, *, topic_ids: list[int] | None = None) -> list[JudgmentRow]:
    judgments = Judgment.objects.filter(topic__campaign=campaign, status=Judgment.Status.SUBMITTED)
    if topic_ids is not None:
        judgments = judgments.filter(topic_id__in=topic_ids)
    return [
        JudgmentRow(topic_id, username, payload)
        for topic_id, username, payload in judgments.order_by("topic_id", "assessor__username").values_list(
            "topic_id", "assessor__username", "payload"
        )
    ]


def campaign_report(campaign: Campaign, name: str = "agreement") -> Report | None:
    return Report.objects.filter(campaign=campaign, topic=None, name=name).first()


def topic_report(topic: Topic, name: str = "agreement") -> Report | None:
    return Report.objects.filter(topic=topic, name=name).first()


def campaign_jobs(campaign: Campaign) -> list[Job]:
    return list(Job.objects.filter(campaign=campaign)[:20])


def phase_payloads(campaign: Campaign, phase: int) -> dict[tuple[int, str], dict[str, Any]]:
    """(topic id, assessor) -> the submitted payload of ``phase``.

    Phase 2 (or a campaign that never left Phase 1): the current submitted
    judgments. Phase 1 once Phase 2 has started: each judgment's last
    submitted revision from before the start of Phase 2.
    """
    from datetime import datetime

    started = campaign.params.get("phase2_started_at")
    if phase == 2 or not started:
        return {(row.topic_id, row.assessor): row.payload for row in submitted_judgments(campaign)}
    revisions = (
        JudgmentRevision.objects.filter(
            judgment__topic__campaign=campaign,
            status=Judgment.Status.SUBMITTED,
            created_at__lt=datetime.fromisoformat(started),
        )
        .order_by("judgment_id", "version")
        .values_list("judgment__topic_id", "judgment__assessor__username", "payload")
    )
    return {(topic, assessor): payload for topic, assessor, payload in revisions}  # the last version wins


def curation(topic: Topic, name: str):

    return Curation.objects.filter(topic=topic, name=name).first()
