"""Adjudication: a senior person sets the gold of the topics the assessors disagree on
(docs/pages.md, "Adjudication"): the write.

:func:`accept` stores the chosen payload (one assessor's submitted judgment, or
the kind's consensus of them all) as the topic's ``consensus`` curation through
``annotate.services.save_curation`` (versioned: every save kept, a stale version
refused with ``Conflict``). The queue and the page that read the topics'
disagreement are dashboard/queue.py's. Generic: the kind is reached through its
spec only.
"""

from __future__ import annotations

from typing import Any

from annotate import services
from annotate.models import Campaign, Curation, Judgment, Topic
from concord.digits import whole_number
from concord.errors import InvalidInput
from kinds.registry import get_kind

#: The gold lives in this curation of the topic (the factoid consensus editor writes it too).
GOLD = "consensus"


def submitted(topic: Topic) -> list[tuple[str, dict[str, Any]]]:
    """The topic's counting judgments: (assessor, submitted payload), by name."""
    rows = (
        Judgment.objects.filter(topic=topic, status__in=Judgment.COUNTING)
        .order_by("assessor__username")
        .values_list("assessor__username", "submitted_payload")
    )
    return [(name, payload) for name, payload in rows]


def accept(*, campaign: Campaign, topic: Topic, action: Any, assessor: Any, version: Any, user) -> Curation:
    """Save the topic's gold: ``action`` ``assessor`` (that assessor's submitted
    judgment) or ``consensus`` (the kind's consensus of every counting judgment),
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
    return services.save_curation(topic=topic, name=GOLD, data=payload, version=number, user=user)
