"""Who judges which topic: assigning topics up to the overlap, moving one, topping up.

:func:`assign_topics` gives each topic its overlap of assessors, least-loaded
first (or each item of a one-per-item design its share); :func:`reassign_topic`
moves one topic from one assessor to another, only while the first has no
judgment of it (a judgment, in any state, is never lost or moved);
:func:`top_up` brings every topic up to the overlap. Everything is validated
before writing, in one transaction.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict

from django.db import transaction

from annotate import adaptive, changes, controls
from annotate.imports import rows
from annotate.models import (
    Assignment,
    Campaign,
    Control,
    Judgment,
    Membership,
)
from concord.errors import InvalidInput
from kinds.registry import get_kind


def assign_topics(campaign: Campaign, *, rng: random.Random | None = None) -> int:
    """Bring every topic up to ``campaign.overlap`` assessors, and each assessor up to their
    control topics (:func:`_assignment_rows`); how many assignments were made."""
    table, new = _assignment_rows(campaign, rng=rng)
    return table.insert(new)


def _assignment_rows(campaign: Campaign, *, rng: random.Random | None = None) -> tuple[rows.Table, list[tuple]]:
    """The assignments that bring every topic up to ``campaign.overlap`` assessors, as
    rows of the table returned (an import inserts them a batch per transaction).

    Least-loaded first (fewest assignments in this campaign, then the oldest
    account), never the same assessor twice on a topic; a kind that shares a topic's items
    out among its assessors (``Kind.shares_topics``: the preference kind's pairs per
    assignment) gives each new assignment its items (``Kind.assignment_items``). With campaign
    ``params["design"] == "one-per-item"`` (the cheap design of Arehart et
    al., section 3.2.1) each item goes to one assessor drawn at random
    instead; with ``"adaptive"``, or a kind that draws its own work as assessors ask for it
    (``Kind.allocates_on_request``: the preference kind's active allocation), nothing is
    assigned up front (work is handed out by :func:`annotate.adaptive.next_work` when an
    assessor asks for it).
    Imported crowd workers never log in, so they get no new topics; workers of a study link get
    their share when they arrive (annotate.services.study), never more from a top-up; paused
    assessors (annotate/quality.py) get no more work: their topics stay theirs (the Assignments
    page moves one without a judgment to someone else).

    Control topics (annotate/controls.py) are not assigned by the overlap: each assessor gets
    as many as their regular topics call for (``controls.controls_wanted``: the quiz, then the
    rate), drawn with ``rng`` (by default the system's source of randomness) from those they
    have not had (:func:`_control_rows`).
    """
    kind = get_kind(campaign.kind).data
    shares = kind.shares_topics(campaign.params)
    table = rows.table(Assignment, ("topic_id", "assessor_id", *(("items",) if shares else ())))
    if adaptive.allocates(campaign):
        return table, []
    assessors = list(
        Membership.objects.filter(campaign=campaign, role=Membership.Role.ASSESSOR, imported=False, paused_at=None)
        .exclude(user__study_workers__campaign=campaign)
        .order_by("user_id")
        .values_list("user_id", flat=True)
    )
    if not assessors:
        return table, []
    known = _known_items(campaign)
    if campaign.params.get("design") == "one-per-item":
        table, new = _one_per_item(campaign, assessors, set(known))
        regular = Counter(
            Assignment.objects.filter(topic__campaign=campaign)
            .exclude(topic_id__in=list(known))
            .values_list("assessor_id", flat=True)
        )
        regular.update(row[1] for row in new)
        return table, new + _control_rows(campaign, assessors, regular, known, table, shares, rng)
    existing: dict[int, set[int]] = defaultdict(set)
    load: Counter[int] = Counter({a: 0 for a in assessors})
    for topic_id, assessor_id in (
        Assignment.objects.filter(topic__campaign=campaign)
        .exclude(topic_id__in=list(known))
        .values_list("topic_id", "assessor_id")
    ):
        existing[topic_id].add(assessor_id)
        load[assessor_id] += 1
    new: list[tuple] = []
    topics = campaign.topics.exclude(pk__in=list(known)).order_by("position", "id")
    # A kind that shares a topic's items out (kinds.base.Kind.assignment_items) reads the topics' data.
    listed = topics.values_list("id", "data") if shares else ((t, None) for t in topics.values_list("id", flat=True))
    for topic_id, data in listed:
        have = existing[topic_id]
        wanted = campaign.overlap - len(have)
        if wanted <= 0:
            continue
        free = sorted((a for a in assessors if a not in have), key=lambda a: (load[a], a))
        for slot, assessor_id in enumerate(free[:wanted], start=len(have)):
            if shares:
                items = kind.assignment_items(data, campaign.params, slot=slot, seed=f"{campaign.pk}:{topic_id}")
                new.append((topic_id, assessor_id, table.prepare("items", items)))
            else:
                new.append((topic_id, assessor_id))
            load[assessor_id] += 1
    return table, new + _control_rows(campaign, assessors, load, known, table, shares, rng)


def _known_items(campaign: Campaign) -> dict[int, list[str]]:
    """Control topic id -> its items with known answers (annotate/controls.py)."""
    known: dict[int, list[str]] = {}
    for topic_id, item in Control.objects.filter(topic__campaign=campaign).values_list("topic_id", "item"):
        known.setdefault(topic_id, []).append(item)
    return known


def _control_rows(
    campaign: Campaign,
    assessors: list[int],
    regular: Counter[int],
    known: dict[int, list[str]],
    table: rows.Table,
    shares: bool,
    rng: random.Random | None,
) -> list[tuple]:
    """Each assessor's control assignments still due: ``controls.controls_wanted`` of their
    regular topics (``regular``: how many each holds, the new ones counted) less the control
    topics they hold, drawn at random from those they have not had. A kind that shares a topic's
    items out gives a control assignment as many items as a regular one (``controls.share_of``)."""
    rules = controls.rules(campaign.params)
    if not known or not rules.mixes_controls:
        return []
    held: dict[int, set[int]] = defaultdict(set)
    taken: Counter[int] = Counter()
    for topic_id, assessor_id in Assignment.objects.filter(topic_id__in=list(known)).values_list(
        "topic_id", "assessor_id"
    ):
        held[assessor_id].add(topic_id)
        taken[topic_id] += 1
    rng = rng or random.SystemRandom()
    kind = get_kind(campaign.kind).data
    data = dict(campaign.topics.filter(pk__in=list(known)).values_list("id", "data")) if shares else {}
    new: list[tuple] = []
    for assessor_id in assessors:
        phase = controls.phases(controls.seed_of(campaign.pk, assessor_id))
        wanted = controls.controls_wanted(regular[assessor_id], rules, phase=phase) - len(held[assessor_id])
        if wanted <= 0:
            continue
        for topic_id in controls.draw([t for t in known if t not in held[assessor_id]], wanted, rng):
            if shares:
                slot, seed = taken[topic_id], f"{campaign.pk}:{topic_id}"
                share = kind.assignment_items(data[topic_id], campaign.params, slot=slot, seed=seed)
                items = controls.share_of(kind, data[topic_id], share, known[topic_id])
                new.append((topic_id, assessor_id, table.prepare("items", items)))
            else:
                new.append((topic_id, assessor_id))
            taken[topic_id] += 1
    return new


def _one_per_item(campaign: Campaign, assessors: list[int], controlled: set[int]) -> tuple[rows.Table, list[tuple]]:
    """Each item of each regular topic to one assessor drawn at random (seeded by the
    campaign and topic, so it is reproducible); topics already assigned stay."""
    kind = get_kind(campaign.kind).data
    table = rows.table(Assignment, ("topic_id", "assessor_id", "items"))
    assigned = set(Assignment.objects.filter(topic__campaign=campaign).values_list("topic_id", flat=True))
    new = []
    for topic in campaign.topics.exclude(pk__in=assigned | controlled).order_by("position", "id"):
        rng = random.Random(f"{campaign.pk}:{topic.external_id}")
        items: dict[int, list[str]] = {}
        for item in kind.items(topic.data):
            items.setdefault(rng.choice(assessors), []).append(item)
        new.extend((topic.pk, a, table.prepare("items", chosen)) for a, chosen in sorted(items.items()))
    return table, new


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
        raise InvalidInput("to_assessor", f"{to_assessor!r} is an imported assessor, who never logs in")
    if membership.paused_at is not None:
        raise InvalidInput("to_assessor", f"{to_assessor!r} is paused and gets no more work")
    if Assignment.objects.filter(topic=target, assessor=membership.user).exists():
        raise InvalidInput("to_assessor", f"{to_assessor!r} is already assigned topic {topic!r}")
    assignment.assessor = membership.user
    assignment.save(update_fields=["assessor"])
    changes.progress_changed(campaign.pk, target)
    return assignment


@transaction.atomic
def top_up(campaign: Campaign) -> int:
    """Bring every topic up to the overlap (least-loaded assessors first); how many assignments were made."""
    made = assign_topics(campaign)
    if made:
        changes.progress_changed(campaign.pk)
    return made
