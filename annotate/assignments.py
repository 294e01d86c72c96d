"""Who has which topic: the writes of the organiser's Assignments page.

:func:`reassign_topic` moves one topic from one assessor to another, only
while the first has no judgment of it (a judgment, in any state, is never lost
or moved); :func:`top_up` brings every topic up to the campaign's overlap
(``annotate.services.assign_topics``). Both validate everything before
writing, in one transaction. The page's topic table is dashboard/topics.py's.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction

from annotate.models import Assignment, Campaign, Judgment, Membership
from annotate.services import assign_topics
from concord.errors import InvalidInput

User = get_user_model()


@transaction.atomic
def reassign_topic(*, campaign: Campaign, topic: str, from_assessor: str, to_assessor: str) -> Assignment:
    """Give ``from_assessor``'s assignment of ``topic`` (an external id) to ``to_assessor``.

    Refused (InvalidInput naming the field, nothing written) unless the topic
    is the campaign's, ``from_assessor`` is assigned it and has no judgment of
    it (no draft, submitted, reopened or withdrawn one: judgments are never
    lost), and ``to_assessor`` is another assessor of the campaign who can log
    in (not an imported crowd worker) and is not assigned it yet. The
    assignment keeps its items (a one-per-item design's share moves whole).
    """
    for value, field in ((topic, "topic"), (from_assessor, "from_assessor"), (to_assessor, "to_assessor")):
        if not isinstance(value, str) or not value.strip():
            raise InvalidInput(field, "required")
    target = campaign.topics.filter(external_id=topic).first()
    if target is None:
        raise InvalidInput("topic", f"no topic {topic!r} in this campaign")
    assignment = (
        Assignment.objects.select_for_update()
        .filter(topic=target, assessor__username=from_assessor)
        .select_related("assessor")
        .first()
    )
    if assignment is None:
        raise InvalidInput("from_assessor", f"{from_assessor!r} is not assigned topic {topic!r}")
    judgment = Judgment.objects.filter(topic=target, assessor=assignment.assessor).values_list("status", flat=True)
    status = judgment.first()
    if status is not None:
        raise InvalidInput(
            "from_assessor",
            f"{from_assessor!r} has a {status} judgment of topic {topic!r}: a topic with a judgment stays with "
            "its assessor (judgments are never lost); top up to the overlap instead",
        )
    if to_assessor == from_assessor:
        raise InvalidInput("to_assessor", "choose another assessor than the one the topic is taken from")
    membership = Membership.objects.filter(campaign=campaign, user__username=to_assessor).select_related("user").first()
    if membership is None or membership.role != Membership.Role.ASSESSOR:
        raise InvalidInput("to_assessor", f"{to_assessor!r} is not an assessor of this campaign")
    if membership.imported:
        raise InvalidInput("to_assessor", f"{to_assessor!r} is an imported crowd worker, who never logs in")
    if Assignment.objects.filter(topic=target, assessor=membership.user).exists():
        raise InvalidInput("to_assessor", f"{to_assessor!r} is already assigned topic {topic!r}")
    assignment.assessor = membership.user
    assignment.save(update_fields=["assessor"])
    return assignment


@transaction.atomic
def top_up(campaign: Campaign) -> int:
    """Bring every topic up to the overlap (least-loaded assessors first); how many assignments were made."""
    return assign_topics(campaign)
