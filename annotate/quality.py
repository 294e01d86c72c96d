"""What control items measure and do: each assessor's accuracy, the pausing rules, pause and reinstate.

A control topic is a topic with known answers (``annotate.models.Control``), mixed into the
work so that it looks like any other. From an assessor's submitted judgments of control topics
this module reads (:func:`campaign_quality`, :func:`assessor_quality`):

- their accuracy: the sum of the credits of the control items they answered
  (``Kind.control_credit``: 1 right, 0 wrong, part credit for a near miss on an ordered scale)
  over the items answered, with Wilson's interval where every credit is whole and Hoeffding's
  bound otherwise (stats.quality: ``control_accuracy``, ``weighted_score``), at the campaign's
  ``pause_level``. An item left unanswered ("can't tell") is neither right nor wrong: it is
  counted apart, as the share of "can't tell". Attention checks are counted apart too: their
  answer is written in the item, so they measure reading, not skill;
- failed attention checks, and control submissions faster than ``min_seconds_per_item``
  (``Judgment.active_ms`` over the items judged; an imported worker's judgments carry no time);
- the mean time per item.

The rules (:func:`apply_rules`, called by annotate.services.judgments inside the transaction
of a submission of a control topic) pause an assessor:

- the quiz: once their first ``quiz_controls`` control topics are submitted, when the share of
  their items answered right is below ``quiz_minimum``;
- accuracy: stats.quality.should_pause, after ``pause_minimum`` control items, when the upper
  bound of the interval is below ``pause_threshold``;
- attention: after ``attention_failures`` failed attention checks, each too-fast control
  submission counting as one.

A reinstated assessor starts afresh: the rules read only the controls they submit after their
latest reinstatement, and the quiz is not taken again. Every pause and reinstatement is a
``PauseRecord`` with its evidence, and has every report rebuilt (the paused assessor's
judgments leave the figures: annotate.judges.left_out).

Reads are bounded by the campaign's control topics: the control judgments (with their
assignments' items), the controls, and one grouped count of each assessor's submissions.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Count, JSONField, OuterRef, Subquery
from django.utils import timezone

from annotate import changes
from annotate.controls import Rules, rules
from annotate.models import SUBMITTED_PAYLOAD, Assignment, Campaign, Control, Judgment, Membership, PauseRecord, Topic
from concord.errors import InvalidInput
from kinds.registry import get_kind
from stats import quality as stats_quality

#: The longest reason an organiser may give for a pause or a reinstatement.
REASON_MAX_LENGTH = 2000


class Paused(Exception):
    """The assessor is paused in the campaign: no more work until an organiser reinstates them."""

    def __init__(self, reason: str) -> None:
        super().__init__(paused_message(reason))
        self.reason = reason


def paused_message(reason: str) -> str:
    """What a paused assessor is told, wherever they are refused."""
    why = f" ({reason})" if reason else ""
    return (
        f"You are paused in this campaign{why}. You get no more work until an organiser reinstates you; "
        "your submitted judgments are kept, and so are your drafts."
    )


# --------------------------------------------------------------------------- one judgment's figures


@dataclass(frozen=True)
class ControlJudgment:
    """One submitted judgment of a control topic, as the figures read it."""

    topic_id: int
    assessor_id: int
    created_at: datetime
    submitted_at: datetime | None
    #: Control items (not attention checks) answered, and the sum of their credits.
    answered: int
    credit: float
    #: Whether every credit is 0 or 1 (a binomial interval applies).
    whole: bool
    #: Control items (not attention checks) the assessor was given but left without an answer.
    cant_tell: int
    attention_checks: int
    attention_failed: int
    #: Items the judgment judged, and its active time (0: none recorded, as for imports).
    items: int
    active_ms: int
    too_fast: bool


def _judged(
    kind: Any,
    params: Mapping[str, Any],
    controls: Sequence[tuple[str, Any, bool]],
    payload: Mapping[str, Any],
    scope: Sequence[str] | None,
    topic_data: Mapping[str, Any],
    active_ms: int,
    min_seconds: float | None,
    *,
    topic_id: int,
    assessor_id: int,
    created_at: datetime,
    submitted_at: datetime | None,
) -> ControlJudgment:
    given = kind.control_labels(payload)
    within = None if scope is None else set(scope)
    answered = cant_tell = checks = failed = 0
    credit = 0.0
    whole = True
    for item, known, attention in controls:
        if within is not None and item not in within:
            continue  # not this assessor's share of the topic
        if attention:
            checks += 1
            # An attention check says what to answer: anything else, "can't tell" too, fails it.
            if item not in given or kind.control_credit(known, given[item], params) < 1.0:
                failed += 1
            continue
        if item not in given:
            cant_tell += 1
            continue
        score = float(kind.control_credit(known, given[item], params))
        answered += 1
        credit += score
        whole = whole and score in (0.0, 1.0)
    items = kind.progress(payload, topic_data)[0]
    too_fast = bool(min_seconds and active_ms > 0 and items > 0 and active_ms < min_seconds * 1000 * items)
    return ControlJudgment(
        topic_id=topic_id,
        assessor_id=assessor_id,
        created_at=created_at,
        submitted_at=submitted_at,
        answered=answered,
        credit=credit,
        whole=whole,
        cant_tell=cant_tell,
        attention_checks=checks,
        attention_failed=failed,
        items=items,
        active_ms=active_ms,
        too_fast=too_fast,
    )


def control_judgments(campaign: Campaign, assessor_ids: Iterable[int] | None = None) -> list[ControlJudgment]:
    """The submitted (counting) judgments of the campaign's control topics, by ``assessor_ids``
    (None: everyone's), oldest first: three queries, each bounded by the control topics."""
    kind = get_kind(campaign.kind).data
    params = campaign.params
    r = rules(params)
    by_topic: dict[int, list[tuple[str, Any, bool]]] = defaultdict(list)
    for topic_id, item, answer, attention in Control.objects.filter(topic__campaign=campaign).values_list(
        "topic_id", "item", "answer", "attention"
    ):
        by_topic[topic_id].append((item, answer, attention))
    if not by_topic:
        return []
    scope = Assignment.objects.filter(topic_id=OuterRef("topic_id"), assessor_id=OuterRef("assessor_id")).values(
        "items"
    )[:1]
    judgments = Judgment.objects.filter(topic_id__in=list(by_topic), status__in=Judgment.COUNTING)
    if assessor_ids is not None:
        judgments = judgments.filter(assessor_id__in=list(assessor_ids))
    rows = list(
        judgments.annotate(counted=SUBMITTED_PAYLOAD, scope=Subquery(scope, output_field=JSONField()))
        .order_by("created_at", "id")
        .values_list("topic_id", "assessor_id", "created_at", "submitted_at", "counted", "scope", "active_ms")
    )
    data = dict(Topic.objects.filter(pk__in={row[0] for row in rows}).values_list("pk", "data"))
    return [
        _judged(
            kind,
            params,
            by_topic[topic_id],
            payload,
            scope,
            data[topic_id],
            active_ms,
            r.min_seconds_per_item,
            topic_id=topic_id,
            assessor_id=assessor_id,
            created_at=created_at,
            submitted_at=submitted_at,
        )
        for topic_id, assessor_id, created_at, submitted_at, payload, scope, active_ms in rows
    ]


# --------------------------------------------------------------------------- accuracy per assessor


@dataclass(frozen=True)
class Figures:
    """An assessor's figures over some control judgments."""

    control_topics: int
    answered: int
    credit: float
    accuracy: float | None
    low: float
    high: float
    #: "wilson" (every credit whole) or "hoeffding" (part credits).
    method: str
    level: float
    attention_checks: int
    attention_failed: int
    too_fast: int
    cant_tell: int
    #: Share of the control items given that were left "can't tell"; None: none given.
    cant_tell_share: float | None
    #: Mean active seconds per item judged, over the judgments with a time; None: none.
    seconds_per_item: float | None

    @property
    def failed_checks(self) -> int:
        """Failed attention checks, each too-fast submission counting as one."""
        return self.attention_failed + self.too_fast


def figures(judgments: Sequence[ControlJudgment], level: float) -> Figures:
    """The figures of one assessor's control judgments, the interval at ``level``."""
    answered = sum(j.answered for j in judgments)
    credit = sum(j.credit for j in judgments)
    whole = all(j.whole for j in judgments)
    method = "wilson" if whole else "hoeffding"
    result = _interval(credit, answered, level, method)
    timed = [j for j in judgments if j.active_ms > 0 and j.items > 0]
    items = sum(j.items for j in timed)
    given = answered + sum(j.cant_tell for j in judgments)
    cant_tell = sum(j.cant_tell for j in judgments)
    return Figures(
        control_topics=len(judgments),
        answered=answered,
        credit=credit,
        accuracy=None if answered == 0 else credit / answered,
        low=result[0],
        high=result[1],
        method=method,
        level=level,
        attention_checks=sum(j.attention_checks for j in judgments),
        attention_failed=sum(j.attention_failed for j in judgments),
        too_fast=sum(1 for j in judgments if j.too_fast),
        cant_tell=cant_tell,
        cant_tell_share=None if given == 0 else cant_tell / given,
        seconds_per_item=None if items == 0 else sum(j.active_ms for j in timed) / 1000 / items,
    )


def _interval(credit: float, answered: int, level: float, method: str) -> tuple[float, float]:
    """The interval on ``credit / answered``: Wilson's for whole credits
    (stats.quality.control_accuracy), Hoeffding's for part credits (stats.quality.weighted_score's
    bound, here on the credits themselves: on the scale (0, 1) a credit against a known 1 is itself)."""
    if method == "wilson":
        result = stats_quality.control_accuracy(round(credit), answered, level=level, method="wilson")
    else:
        # weighted_score needs the answers; the bound depends only on their sum and number, so
        # the sum spread evenly over the answers gives the same interval.
        mean = credit / answered
        result = stats_quality.weighted_score(
            np.full(answered, mean), np.ones(answered), scale=(0.0, 1.0), level=level, method="hoeffding"
        )
    return float(np.ravel(result.low)[0]), float(np.ravel(result.high)[0])


@dataclass(frozen=True)
class AssessorQuality:
    """One assessor's line of the quality table."""

    user_id: int
    username: str
    #: Judgments submitted (counting) in the campaign, control topics or not.
    submitted: int
    figures: Figures
    paused_at: datetime | None
    pause_reason: str
    model_judge: bool
    imported: bool


def campaign_quality(campaign: Campaign) -> list[AssessorQuality]:
    """Every assessor of the campaign (and anyone with control judgments), by name, with their
    figures on the controls (:class:`Figures`, at the campaign's ``pause_level``)."""
    level = rules(campaign.params).pause_level
    judged: dict[int, list[ControlJudgment]] = defaultdict(list)
    for judgment in control_judgments(campaign):
        judged[judgment.assessor_id].append(judgment)
    members = Membership.objects.filter(campaign=campaign).select_related("user").order_by("user__username")
    submitted = dict(
        Judgment.objects.filter(topic__campaign=campaign, status__in=Judgment.COUNTING)
        .values_list("assessor_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    return [
        AssessorQuality(
            user_id=m.user_id,
            username=m.user.get_username(),
            submitted=submitted.get(m.user_id, 0),
            figures=figures(judged.get(m.user_id, []), level),
            paused_at=m.paused_at,
            pause_reason=m.pause_reason,
            model_judge=m.model_judge,
            imported=m.imported,
        )
        for m in members
        if m.role == Membership.Role.ASSESSOR or m.user_id in judged
    ]


def assessor_quality(campaign: Campaign, user_id: int) -> Figures:
    """One assessor's figures on the controls."""
    return figures(control_judgments(campaign, [user_id]), rules(campaign.params).pause_level)


# --------------------------------------------------------------------------- the rules


@dataclass(frozen=True)
class Verdict:
    """What the rules say of one assessor: paused or not, why in plain words, and the evidence."""

    paused: bool
    #: The rules that pause: "quiz", "accuracy", "attention".
    because: tuple[str, ...]
    reason: str
    evidence: dict[str, Any]


def _evidence(shown: Figures, r: Rules) -> dict[str, Any]:
    def number(value: float | None) -> float | None:
        return None if value is None or not math.isfinite(value) else round(value, 6)

    return {
        "control_topics": shown.control_topics,
        "answered": shown.answered,
        "credit": number(shown.credit),
        "accuracy": number(shown.accuracy),
        "interval": [number(shown.low), number(shown.high)],
        "method": shown.method,
        "level": shown.level,
        "threshold": r.pause_threshold,
        "minimum": r.pause_minimum,
        "attention_checks": shown.attention_checks,
        "attention_failed": shown.attention_failed,
        "too_fast": shown.too_fast,
        "attention_failures": r.attention_failures,
        "min_seconds_per_item": r.min_seconds_per_item,
        "cant_tell": shown.cant_tell,
    }


def decide(r: Rules, judgments: Sequence[ControlJudgment], *, reinstated_at: datetime | None = None) -> Verdict:
    """The rules applied to one assessor's control judgments (oldest first); ``reinstated_at``:
    their latest reinstatement, after which the rules start afresh (no quiz, and only the
    controls submitted since count)."""
    if r.quiz_controls and reinstated_at is None and len(judgments) >= r.quiz_controls:
        quiz = figures(judgments[: r.quiz_controls], r.pause_level)
        share = quiz.accuracy if quiz.accuracy is not None else 0.0
        if share < r.quiz_minimum:
            right = f"{quiz.credit:g} of {quiz.answered} item{'s' if quiz.answered != 1 else ''} right"
            reason = (
                f"the qualifying quiz: {right} in your first {r.quiz_controls} control "
                f"topic{'s' if r.quiz_controls != 1 else ''} ({share:.0%}), below the {r.quiz_minimum:.0%} needed"
            )
            evidence = {**_evidence(quiz, r), "quiz_controls": r.quiz_controls, "quiz_minimum": r.quiz_minimum}
            return Verdict(True, ("quiz",), reason, evidence)
    window = [j for j in judgments if reinstated_at is None or (j.submitted_at and j.submitted_at > reinstated_at)]
    shown = figures(window, r.pause_level)
    evidence = _evidence(shown, r)
    if reinstated_at is not None:
        evidence["since"] = reinstated_at.isoformat()
    checks = {"failed_checks": [shown.failed_checks], "failed_limit": r.attention_failures}
    if r.attention_failures is None:
        checks = {}
    if r.on_accuracy:
        decision = stats_quality.should_pause(
            [shown.credit if shown.method == "hoeffding" else round(shown.credit)],
            [shown.answered],
            threshold=r.pause_threshold,
            minimum=r.pause_minimum,
            level=r.pause_level,
            method=shown.method,
            **checks,
        )[0]
        return Verdict(decision.paused, decision.because, decision.reason, evidence)
    if r.attention_failures is not None and shown.failed_checks >= r.attention_failures:
        failed = shown.failed_checks
        reason = f"{failed} attention check{'s' if failed != 1 else ''} failed; pausing at {r.attention_failures}"
        return Verdict(True, ("attention",), reason, evidence)
    return Verdict(False, (), "", evidence)


def apply_rules(topic: Topic, assessor: AbstractBaseUser) -> Verdict | None:
    """The campaign's rules applied to ``assessor`` after they submitted a judgment of the
    control topic ``topic``, inside that submission's transaction: paused (:func:`_pause`) when
    a rule says so. None: not a member, or already paused."""
    campaign = topic.campaign
    membership = Membership.objects.select_for_update().filter(campaign_id=campaign.pk, user_id=assessor.pk).first()
    if membership is None or membership.paused_at is not None:
        return None
    reinstated_at = (
        PauseRecord.objects.filter(membership=membership, action=PauseRecord.Action.REINSTATE)
        .order_by("-at", "-id")
        .values_list("at", flat=True)
        .first()
    )
    verdict = decide(rules(campaign.params), control_judgments(campaign, [assessor.pk]), reinstated_at=reinstated_at)
    if verdict.paused:
        evidence = {**verdict.evidence, "rules": list(verdict.because)}
        _pause(membership, by=None, reason=verdict.reason, evidence=evidence)
    return verdict


# --------------------------------------------------------------------------- pause and reinstate


def _pause(membership: Membership, *, by: AbstractBaseUser | None, reason: str, evidence: dict[str, Any]) -> None:
    membership.paused_at = timezone.now()
    membership.pause_reason = reason
    membership.save(update_fields=["paused_at", "pause_reason"])
    PauseRecord.objects.create(
        membership=membership, action=PauseRecord.Action.PAUSE, by=by, reason=reason, evidence=evidence
    )
    _rebuild(membership.campaign_id)


def _rebuild(campaign_id: int) -> None:
    # Every stored partial and report rests on whose judgments count (annotate.judges.left_out).
    changes.campaign_changed(Campaign.objects.get(pk=campaign_id))
    changes.progress_changed(campaign_id)


def clean_reason(reason: Any) -> str:
    """An organiser's reason: 1 to :data:`REASON_MAX_LENGTH` characters, else InvalidInput("reason")."""
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidInput("reason", "say why, in a few words (the assessor is shown a pause's reason)")
    reason = reason.strip()
    if len(reason) > REASON_MAX_LENGTH:
        raise InvalidInput("reason", f"at most {REASON_MAX_LENGTH} characters, got {len(reason)}")
    return reason


def _member(campaign: Campaign, username: Any) -> Membership:
    if not isinstance(username, str) or not username:
        raise InvalidInput("username", "expected the name of one of the campaign's assessors")
    membership = Membership.objects.locked(campaign, username)
    if membership is None:
        raise InvalidInput("username", f"{username[:40]!r} is not a member of this campaign")
    return membership


@transaction.atomic
def pause(*, campaign: Campaign, username: Any, by: AbstractBaseUser, reason: Any) -> Membership:
    """An organiser pauses an assessor: no more work, their judgments left out of every figure
    (kept), every report rebuilt; the record keeps who, when, why and the assessor's figures
    then. Refused (InvalidInput naming the field, nothing written): no reason, not an
    assessor of the campaign, already paused."""
    reason = clean_reason(reason)
    membership = _member(campaign, username)
    if membership.role != Membership.Role.ASSESSOR:
        raise InvalidInput("username", f"{username!r} is not an assessor of this campaign")
    if membership.paused_at is not None:
        raise InvalidInput("username", f"{username!r} is already paused")
    r = rules(campaign.params)
    evidence = _evidence(assessor_quality(campaign, membership.user_id), r)
    _pause(membership, by=by, reason=reason, evidence=evidence)
    return membership


@transaction.atomic
def reinstate(*, campaign: Campaign, username: Any, by: AbstractBaseUser, reason: Any) -> Membership:
    """An organiser reinstates a paused assessor: they get work again, their judgments count
    again, every report is rebuilt, and the rules start afresh from now (:func:`decide`).
    Refused (InvalidInput naming the field, nothing written): no reason, not paused."""
    reason = clean_reason(reason)
    membership = _member(campaign, username)
    if membership.paused_at is None:
        raise InvalidInput("username", f"{username!r} is not paused")
    r = rules(campaign.params)
    evidence = {
        **_evidence(assessor_quality(campaign, membership.user_id), r),
        "paused_at": membership.paused_at.isoformat(),
        "pause_reason": membership.pause_reason,
    }
    membership.paused_at = None
    membership.pause_reason = ""
    membership.save(update_fields=["paused_at", "pause_reason"])
    PauseRecord.objects.create(
        membership=membership, action=PauseRecord.Action.REINSTATE, by=by, reason=reason, evidence=evidence
    )
    _rebuild(campaign.pk)
    return membership


def records(campaign: Campaign, *, limit: int = 200) -> list[PauseRecord]:
    """The campaign's newest pause records (who, when, why, evidence), newest first."""
    return list(
        PauseRecord.objects.filter(membership__campaign=campaign)
        .select_related("membership__user", "by")
        .order_by("-at", "-id")[:limit]
    )


def paused_reason(campaign_id: int, user_id: int) -> str | None:
    """Why the user is paused in the campaign (one indexed read), or None: not paused."""
    row = (
        Membership.objects.filter(campaign_id=campaign_id, user_id=user_id, paused_at__isnull=False)
        .values_list("pause_reason", flat=True)
        .first()
    )
    return row


def require_not_paused(campaign_id: int, user_id: int) -> None:
    """Raise :class:`Paused` when the user is paused in the campaign."""
    reason = paused_reason(campaign_id, user_id)
    if reason is not None:
        raise Paused(reason)


def evidence_rows(evidence: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """A record's evidence as (name, value) pairs for a page, in a stable order."""
    return [(key, evidence[key]) for key in sorted(evidence)]


__all__ = [
    "AssessorQuality",
    "ControlJudgment",
    "Figures",
    "Paused",
    "Verdict",
    "apply_rules",
    "assessor_quality",
    "campaign_quality",
    "control_judgments",
    "decide",
    "figures",
    "pause",
    "reinstate",
    "records",
    "require_not_paused",
]
