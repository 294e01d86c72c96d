"""Reads for scoring: submitted judgments in a form the reports consume, and
the stored reports that pages show."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotate.models import Campaign, Judgment, Topic
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
