"""Curations: an organiser's or adjudicator's versioned work on a topic.

The gold (the ``consensus`` curation, :data:`GOLD`) and a kind's own curations
(factoids' ``relations``), each checked by the kind, saved with the version the
writer read (a stale one is ``Conflict``, nothing written) and kept as a
revision; every save marks its topic for the reports (annotate.changes).
:func:`accept` is the adjudication page's: one assessor's submitted judgment, or
the kind's consensus of the people's, saved as the gold (a model judge's is
neither: annotate/judges.py).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotate import changes, judges
from annotate.models import (
    SUBMITTED_PAYLOAD,
    Campaign,
    Curation,
    CurationRevision,
    Judgment,
    Topic,
)
from annotate.services.judgments import Conflict
from concord.digits import whole_number
from concord.errors import InvalidInput
from kinds.registry import get_kind


@transaction.atomic
def save_curation(*, topic: Topic, name: str, data: Any, version: Any, user: AbstractBaseUser) -> Curation:
    """Save an organiser's curation ``name`` of ``topic`` if ``version`` is current:
    ``consensus`` (a judgment of the kind, checked as a draft) for every kind,
    or one of the kind's own (``KindSpec.curations``, e.g. factoid relations)."""
    kind = get_kind(topic.campaign.kind)
    if name == "consensus":
        # The campaign's params, as a judgment is checked (e.g. a relevance campaign's own scale).
        cleaned = kind.data.clean_judgment(data, topic.data, complete=False, params=topic.campaign.params)
    elif name in kind.curations:
        cleaned = kind.curations[name](data, topic)
    else:
        raise InvalidInput("name", f"expected one of: {', '.join(['consensus', *kind.curations])}")
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise InvalidInput("version", "expected the version you read: a whole number, 0 for a new one")
    curation = Curation.objects.select_for_update().filter(topic=topic, name=name).first()
    current = curation.version if curation else 0
    if version != current:
        if curation and version == current - 1 and curation.data == cleaned:
            return curation
        raise Conflict(current)
    curation = curation or Curation(topic=topic, name=name)
    curation.data, curation.version, curation.updated_by = cleaned, current + 1, user
    curation.save()
    revision = CurationRevision.objects.create(curation=curation, version=curation.version, author=user, data=cleaned)
    # A curation is part of its topic's report and partial only (scoring/partials.py).
    changes.topic_changed(topic, revision.pk)
    return curation


#: The gold lives in this curation of the topic (the factoid consensus editor writes it too).
GOLD = "consensus"


def submitted(topic: Topic, *, model_judges: bool = False) -> list[tuple[str, dict[str, Any]]]:
    """The topic's counting judgments of the people: (assessor, submitted payload), by name;
    the model judges' are left out unless the campaign counts them (annotate/judges.py).
    ``model_judges``: the model judges' own instead."""
    rows = Judgment.objects.filter(topic=topic, status__in=Judgment.COUNTING)
    if model_judges:
        rows = rows.filter(assessor_id__in=judges.model_judge_ids(topic.campaign_id))
    else:
        rows = rows.exclude(assessor_id__in=judges.left_out(topic.campaign))
    rows = (
        rows.order_by("assessor__username")
        .annotate(counted=SUBMITTED_PAYLOAD)
        .values_list("assessor__username", "counted")
    )
    return [(name, payload) for name, payload in rows]


def accept(*, campaign: Campaign, topic: Topic, action: Any, assessor: Any, version: Any, user) -> Curation:
    """Save the topic's gold: ``action`` ``assessor`` (that assessor's submitted
    judgment) or ``consensus`` (the kind's consensus of the people's counting judgments),
    if ``version`` is the gold's current one (else ``Conflict``; nothing written)."""
    raw = version.strip() if isinstance(version, str) else version
    number = whole_number(raw) if isinstance(raw, str) else raw
    if number is None or isinstance(number, bool) or not isinstance(number, int):
        raise InvalidInput("version", "expected the version you read: a whole number, 0 for a new one")
    judged = dict(submitted(topic))
    if action == "assessor":
        if assessor not in judged:
            raise InvalidInput("assessor", f"{assessor!r} has no submitted judgment of this topic")
        payload = judged[assessor]
    elif action == "consensus":
        spec = get_kind(campaign.kind)
        if spec.adjudication is None or spec.adjudication.consensus is None:
            raise InvalidInput("action", f"{spec.label} topics have no automatic consensus: accept a judgment or edit")
        if not judged:
            raise InvalidInput("action", "no submitted judgment to build a consensus from")
        payload = spec.adjudication.consensus(spec.data.assessor_view(topic.data), list(judged.values()))
    else:
        raise InvalidInput("action", "expected assessor or consensus")
    return save_curation(topic=topic, name=GOLD, data=payload, version=number, user=user)
