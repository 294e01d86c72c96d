"""The adaptive design: second opinions where they matter (docs/adaptive.md, "Adaptive design").

Arehart, Wolf & Miller (2008), section 3.2.1: one adjudicator per pair and a
second opinion where it matters nearly matches full adjudication. With
campaign ``params["design"] == "adaptive"`` nothing is assigned up front
(:func:`annotate.services.assignments.assign_topics` makes no assignment); an assessor's
"Next topic" (the page ``campaigns/<id>/next/`` and the API's
``POST .../next-topic/``) calls :func:`next_work`, which hands out work one
topic at a time:

1. their own pending work first (a topic assigned to them whose judgment
   does not count yet and that they did not skip);
2. else the most valuable items (``annotate.allocation.rank``): items without
   any opinion first (every item goes to one assessor before any item gets a
   second), then the least certain by the Dawid-Skene posterior or the vote
   margin (``adaptive_by``), among items that are below ``confidence`` or
   ``margin``, below ``budget_per_item`` opinions, not awaiting an opinion
   already given out, on a topic the assessor holds no assignment of (so
   never to an assessor who already judged the item), while fewer than
   ``budget_total`` opinions are given or given out. The topic of the first
   such item is assigned to the assessor with those of its items that are
   wanted (an :class:`~annotate.models.Assignment` with ``items``).

A model judge's opinions (annotate/judges.py) count in nothing here, neither
the certainty of an item nor its budgets, unless the campaign counts model
judges with the people (``model_judges_count``); a model judge that is a
login account asks for work as anyone does, and what it holds counts
against no budget.

An opinion counts against the budgets once given out (the assessor holds the
item; a judgment that counts, or one still to come); a skipped assignment
without a counting judgment gives its items back. Unskipping it takes them
again, so it is an allocation like any other (:func:`check_unskip`): refused
when an item would go over ``budget_per_item``, the campaign over
``budget_total``, or the assessor over ``max_open_topics`` topics held open
(assigned, not skipped, no counting judgment) at once. Allocations of one
campaign run one at a time: the campaign's row is locked (``select_for_update``;
SQLite's IMMEDIATE transactions take the write lock first), so two assessors
never receive the same slot beyond the budget. Each request reads the
campaign's assignments and judgments once and fits the model once.

The kind declares that it supports the design (``design_param(...,
adaptive=True)``) and says how to read a judgment item by item
(``Kind.items``, ``Kind.item_labels``, ``Kind.label_classes``); this module
never names a kind.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotate import allocation, changes, controls, judges
from annotate.models import SUBMITTED_PAYLOAD, Assignment, Campaign, Judgment, Topic
from concord.errors import InvalidInput
from kinds.registry import get_kind

DESIGN = "adaptive"
#: The params of the design, with the defaults used when a campaign leaves them out.
DEFAULTS: dict[str, Any] = {
    "adaptive_by": "posterior",
    "budget_per_item": 5,
    "budget_total": None,
    "confidence": 0.95,
    "margin": 2,
    "max_open_topics": 1,
}


def is_adaptive(campaign: Campaign) -> bool:
    return campaign.params.get("design") == DESIGN


def allocates(campaign: Campaign) -> bool:
    """Whether work is handed out on request ("Next topic") rather than up front: the adaptive
    design, or a kind that draws its own (``Kind.allocates_on_request``: the preference kind's
    active allocation)."""
    return is_adaptive(campaign) or get_kind(campaign.kind).data.allocates_on_request(campaign.params)


def check_params(params: Mapping[str, Any], field: str = "params") -> None:
    """The design's params go with ``design=adaptive`` only (the kind's schema checked each):
    another design refuses a value other than the default. The default itself is let through
    (and ignored): the campaign form sends every control it shows, prefilled with its default."""
    if params.get("design") == DESIGN:
        return
    for name, default in DEFAULTS.items():
        if name in params and params[name] != default:
            raise InvalidInput(f"{field}.{name}", "only with design=adaptive (docs/adaptive.md, Adaptive design)")


@dataclass(frozen=True)
class Settings:
    by: allocation.By
    budget_per_item: int
    budget_total: int | None
    confidence: float
    margin: int
    max_open_topics: int


def settings(params: Mapping[str, Any]) -> Settings:
    merged = {**DEFAULTS, **{k: v for k, v in params.items() if k in DEFAULTS}}
    return Settings(
        by=merged["adaptive_by"],
        budget_per_item=merged["budget_per_item"],
        budget_total=merged["budget_total"],
        confidence=merged["confidence"],
        margin=merged["margin"],
        max_open_topics=merged["max_open_topics"],
    )


@dataclass(frozen=True)
class Work:
    """What :func:`next_work` handed out: the topic (None: nothing for now), the
    items of it the assessor judges (None: all) and whether it was allocated now."""

    topic: Topic | None
    items: list[str] | None = None
    allocated: bool = False


@dataclass(frozen=True)
class ItemState:
    """Every item of an adaptive campaign and its opinions (see :func:`item_state`)."""

    keys: list[tuple[int, str]]  # (topic pk, item id), in topic and item order
    certainty: allocation.Certainty
    held: np.ndarray  # opinions given or given out, per item
    pending: np.ndarray  # bool: an opinion given out and not in yet
    holders: list[set[int]]  # assessor pks holding each item
    truth: list[Any]  # the current label of each item (None: no opinion)


def item_state(campaign: Campaign, spec: Settings | None = None) -> ItemState:
    """The campaign's items with their opinions, as the selection reads them (one read of each table)."""
    spec = spec or settings(campaign.params)
    kind = get_kind(campaign.kind).data
    # Control topics are handed out as controls (annotate/controls.py), never as second opinions.
    topics = list(
        campaign.topics.exclude(pk__in=controls.control_topic_ids(campaign))
        .order_by("position", "id")
        .only("id", "data")
    )
    keys: list[tuple[int, str]] = []
    index: dict[tuple[int, str], int] = {}
    items_of: dict[int, list[str]] = {}
    for topic in topics:
        items_of[topic.pk] = kind.items(topic.data)
        for item in items_of[topic.pk]:
            index[(topic.pk, item)] = len(keys)
            keys.append((topic.pk, item))
    n = len(keys)
    classes = list(kind.label_classes(campaign.params))
    class_code = {label: code for code, label in enumerate(classes)}
    # The model judges' opinions and holds count in nothing, unless the campaign counts them (annotate/judges.py).
    left_out = judges.left_out(campaign)
    judgments = {
        (topic_id, assessor_id): (status, payload)
        for topic_id, assessor_id, status, payload in Judgment.objects.filter(topic__campaign=campaign)
        .exclude(assessor_id__in=left_out)
        .annotate(counted=SUBMITTED_PAYLOAD)
        .values_list("topic_id", "assessor_id", "status", "counted")
    }
    held = np.zeros(n, dtype=np.int64)
    pending = np.zeros(n, dtype=bool)
    holders: list[set[int]] = [set() for _ in range(n)]
    codes: tuple[list[int], list[int], list[int]] = ([], [], [])
    workers: dict[int, int] = {}
    seen: set[tuple[int, int]] = set()

    def given(topic_id: int, assessor_id: int, payload: Mapping[str, Any], scope: list[str] | None) -> None:
        for item, label in kind.item_labels(payload).items():
            at = index.get((topic_id, item))
            if at is None or label not in class_code or (scope is not None and item not in scope):
                continue
            codes[0].append(at)
            codes[1].append(workers.setdefault(assessor_id, len(workers)))
            codes[2].append(class_code[label])

    for topic_id, assessor_id, items, skipped_at in (
        Assignment.objects.filter(topic__campaign=campaign)
        .exclude(assessor_id__in=left_out)
        .values_list("topic_id", "assessor_id", "items", "skipped_at")
    ):
        seen.add((topic_id, assessor_id))
        status, payload = judgments.get((topic_id, assessor_id), (None, None))
        counts = status in Judgment.COUNTING
        scope = items if items is not None else items_of.get(topic_id, [])
        for item in scope:
            at = index.get((topic_id, item))
            if at is None:
                continue
            holders[at].add(assessor_id)
            if counts or skipped_at is None:
                held[at] += 1
            if not counts and skipped_at is None:
                pending[at] = True
        if counts:
            given(topic_id, assessor_id, payload, items)
    # A counting judgment without an assignment (none is made that way; kept safe).
    for (topic_id, assessor_id), (status, payload) in judgments.items():
        if (topic_id, assessor_id) not in seen and status in Judgment.COUNTING:
            for item in kind.item_labels(payload):
                at = index.get((topic_id, item))
                if at is not None:
                    holders[at].add(assessor_id)
                    held[at] += 1
            given(topic_id, assessor_id, payload, None)
    measured = allocation.certainty(*codes, n_items=n, n_classes=max(len(classes), 2), by=spec.by)
    truth = [classes[c] if c >= 0 else None for c in measured.truth.tolist()]
    return ItemState(keys, measured, held, pending, holders, truth)


def _pending_topic(campaign: Campaign, user: AbstractBaseUser) -> Assignment | None:
    """The assessor's first pending assignment (drafts first), as their queue orders it: control
    topics interleaved with the others (``controls.queue_order``)."""
    mine = list(
        Assignment.objects.filter(topic__campaign=campaign, assessor=user, skipped_at__isnull=True)
        .select_related("topic")
        .order_by("topic__position", "topic_id")
    )
    controlled = set(controls.control_topic_ids(campaign).values_list("topic_id", flat=True))
    mine = controls.queue_order(
        mine,
        lambda a: a.topic_id in controlled,
        lambda a: a.pk,
        controls.rules(campaign.params),
        phase=controls.phases(controls.seed_of(campaign.pk, user.pk)),
    )
    status = dict(Judgment.objects.filter(topic__campaign=campaign, assessor=user).values_list("topic_id", "status"))
    open_ = [a for a in mine if status.get(a.topic_id) not in Judgment.COUNTING]
    drafts = [a for a in open_ if status.get(a.topic_id) == Judgment.Status.DRAFT]
    return (drafts or open_ or [None])[0]


def next_work(campaign: Campaign, user: AbstractBaseUser, *, rng: random.Random | None = None) -> Work:
    """The assessor's next topic: pending work, else newly allocated work: the adaptive design's,
    or what the kind draws (``KindSpec.allocate``, with ``rng``: by default the system's source of
    randomness, so no one can tell the next draw from the last).

    In other designs nothing is allocated here: the topics were assigned up front."""
    with transaction.atomic():
        lock(campaign)  # the read and the write below, one allocation of the campaign at a time
        pending = _pending_topic(campaign, user)
        if pending is not None:
            return Work(pending.topic, pending.items)
        if allocates(campaign):
            control = _due_control(campaign, user, rng or random.SystemRandom())
            if control is not None:
                return control
        if is_adaptive(campaign):
            return _allocate(campaign, user)
        spec = get_kind(campaign.kind)
        if spec.allocate is None or not spec.data.allocates_on_request(campaign.params):
            return Work(None)
        drawn = spec.allocate(campaign, user, rng or random.SystemRandom())
        if drawn is None:
            return Work(None)
        Assignment.objects.create(topic=drawn.topic, assessor=user, items=drawn.items, draws=drawn.draws)
        changes.progress_changed(campaign.pk, drawn.topic)
        return Work(drawn.topic, drawn.items, allocated=True)


def _due_control(campaign: Campaign, user: AbstractBaseUser, rng: random.Random) -> Work | None:
    """A control topic, where one is due (``controls.control_due`` over the assessor's control and
    regular assignments, skipped ones too), drawn from those they have not had, assigned now; a
    kind that shares a topic's items out gives it as many items as a regular assignment."""
    rules = controls.rules(campaign.params)
    if not rules.mixes_controls:
        return None
    controlled = set(controls.control_topic_ids(campaign).values_list("topic_id", flat=True))
    if not controlled:
        return None
    mine = set(Assignment.objects.filter(topic__campaign=campaign, assessor=user).values_list("topic_id", flat=True))
    had = mine & controlled
    phase = controls.phases(controls.seed_of(campaign.pk, user.pk))
    if not controls.control_due(len(had), len(mine - had), rules, phase=phase):
        return None
    drawn = controls.draw(sorted(controlled - had), 1, rng)
    if not drawn:
        return None
    topic = Topic.objects.get(pk=drawn[0])
    kind = get_kind(campaign.kind).data
    items = None
    if kind.shares_topics(campaign.params):
        holders = Assignment.objects.filter(topic=topic).count()
        share = kind.assignment_items(topic.data, campaign.params, slot=holders, seed=f"{campaign.pk}:{topic.pk}")
        known = list(topic.controls.values_list("item", flat=True))
        items = controls.share_of(kind, topic.data, share, known)
    Assignment.objects.create(topic=topic, assessor=user, items=items)
    changes.progress_changed(campaign.pk, topic)
    return Work(topic, items, allocated=True)


def _allocate(campaign: Campaign, user: AbstractBaseUser) -> Work:
    spec = settings(campaign.params)
    state = item_state(campaign, spec)
    if not state.keys:
        return Work(None)
    left = None if spec.budget_total is None else spec.budget_total - int(state.held.sum())
    if left is not None and left <= 0:
        return Work(None)
    mine = set(Assignment.objects.filter(topic__campaign=campaign, assessor=user).values_list("topic_id", flat=True))
    open_ = ~state.pending & np.array([topic_id not in mine for topic_id, _ in state.keys], dtype=bool)
    order = allocation.rank(
        state.certainty,
        by=spec.by,
        confidence=spec.confidence,
        margin=spec.margin,
        budget_per_item=spec.budget_per_item,
        open_=open_,
        held=state.held,
    )
    if not len(order):
        return Work(None)
    topic_id = state.keys[order[0]][0]
    chosen = [int(at) for at in order if state.keys[at][0] == topic_id]
    if left is not None:
        chosen = chosen[:left]
    chosen_set = {state.keys[at][1] for at in chosen}
    topic = Topic.objects.get(pk=topic_id)
    items = [item for item in get_kind(campaign.kind).data.items(topic.data) if item in chosen_set]
    Assignment.objects.create(topic=topic, assessor=user, items=items)
    changes.progress_changed(campaign.pk, topic)
    return Work(topic, items, allocated=True)


def lock(campaign: Campaign) -> None:
    """Serialise the allocations of ``campaign`` (inside a transaction): the
    campaign's row is locked, as :func:`next_work` does."""
    Campaign.objects.select_for_update().filter(pk=campaign.pk).first()


def check_unskip(campaign: Campaign, assignment: Assignment) -> None:
    """Refuse to put a skipped assignment back (InvalidInput naming ``topic``)
    when taking its items again would go over a budget or over the assessor's
    open topics. Call with the campaign locked (:func:`lock`)."""
    counts = Judgment.objects.filter(
        topic_id=assignment.topic_id, assessor_id=assignment.assessor_id, status__in=Judgment.COUNTING
    ).exists()
    if assignment.skipped_at is None or counts:
        return  # its items never left the budgets: nothing is taken again
    spec = settings(campaign.params)
    held_open = _open_topics(campaign, assignment.assessor_id)
    if held_open >= spec.max_open_topics:
        raise InvalidInput(
            "topic",
            f"you hold {held_open} open topic{'s' if held_open != 1 else ''}, the most this campaign allows at once "
            "(max_open_topics): submit or skip one first",
        )
    state = item_state(campaign, spec)
    at = {key: index for index, key in enumerate(state.keys)}
    scope = (
        assignment.items if assignment.items is not None else get_kind(campaign.kind).data.items(assignment.topic.data)
    )
    wanted = [at[(assignment.topic_id, item)] for item in scope if (assignment.topic_id, item) in at]
    if any(state.held[index] + 1 > spec.budget_per_item for index in wanted):
        raise InvalidInput(
            "topic", "its items went to other assessors meanwhile (budget_per_item): ask for the next topic instead"
        )
    if spec.budget_total is not None and int(state.held.sum()) + len(wanted) > spec.budget_total:
        raise InvalidInput("topic", "the campaign's budget is spent (budget_total): ask for the next topic instead")


def _open_topics(campaign: Campaign, assessor_id: int) -> int:
    counting = Judgment.objects.filter(
        topic__campaign=campaign, assessor_id=assessor_id, status__in=Judgment.COUNTING
    ).values("topic_id")
    return (
        Assignment.objects.filter(topic__campaign=campaign, assessor_id=assessor_id, skipped_at__isnull=True)
        .exclude(topic_id__in=counting)
        .count()
    )
