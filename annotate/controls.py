"""Control items: topics with known answers, mixed into each assessor's work (docs/methods.md,
"Crowd quality control").

A control is one item of a topic whose answer is known (:class:`annotate.models.Control`),
stored apart from the topic's data, so an assessor's view of a control topic is the kind's
``assessor_view`` of its data like any other topic's; a topic with at least one is a control
topic. This module holds:

- the campaign's rules, read with their defaults in one place (:func:`rules`: the params of
  ``kinds.base.control_params``);
- the allocation, as pure functions over counts: control topics are not assigned by the
  overlap, each assessor gets them as their own work instead: their first ``quiz_controls``
  topics are controls, then one in each block of ``1 / control_rate`` topics, at a place drawn
  for the assessor (:func:`control_due`, :func:`phases`, :func:`controls_wanted`,
  :func:`interleave`), each assessor's control topics drawn at random without repeats from
  those they have not had (:func:`draw`); the writes that use them
  are annotate.services.assignments (up front) and annotate.adaptive.next_work (on request);
- the storage: a topic's known answers cleaned by its kind (:func:`clean_answers`), set and
  removed (:func:`set_controls`, :func:`remove_controls`), read (:func:`control_topic_ids`,
  :func:`controls_of`). Every change has the campaign's reports rebuilt, since known answers
  move the figures that read them (truth inference, the assessors' accuracy).
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet

from annotate import changes
from annotate.models import Campaign, Control, Topic
from concord.errors import InvalidInput
from kinds.base import Kind, require_id

T = TypeVar("T")

#: The most known answers one topic holds (one per item; a topic's items are capped by its kind).
MAX_PER_TOPIC = 10_000


@dataclass(frozen=True)
class Rules:
    """A campaign's control params with their defaults (``kinds.base.control_params``)."""

    control_rate: float = 0.0
    quiz_controls: int = 0
    quiz_minimum: float = 0.7
    pause_threshold: float = 0.7
    pause_minimum: int = 10
    pause_level: float = 0.99
    attention_failures: int | None = None
    min_seconds_per_item: float | None = None

    @property
    def mixes_controls(self) -> bool:
        """Whether assessors get any control topic (a quiz or a rate)."""
        return self.quiz_controls > 0 or self.control_rate > 0

    @property
    def on_accuracy(self) -> bool:
        """Whether the accuracy rule may pause anyone (a threshold of 0 pauses nobody on accuracy)."""
        return self.pause_threshold > 0


def rules(params: Mapping[str, Any] | None) -> Rules:
    """The rules of a campaign's params: each param absent (or None) takes its default.

    >>> rules({"control_rate": 0.1}).control_rate, rules({}).quiz_minimum
    (0.1, 0.7)
    """
    params = params or {}
    given = {name: params[name] for name in Rules.__dataclass_fields__ if params.get(name) is not None}
    return Rules(**given)


# -- allocation: pure functions over counts ----------------------------------------------


#: Where in its block of ``1 / control_rate`` topics an assessor's ``k``-th control after the quiz
#: falls, as a fraction in [0, 1) (:func:`phases`); None: at the block's end.
Phase = Callable[[int], float]


def control_due(controls: int, regular: int, rules: Rules, *, phase: Phase | None = None) -> bool:
    """Whether an assessor's next topic is a control, after ``controls`` control topics and
    ``regular`` regular ones: the quiz's first (``quiz_controls``); then one control in each block
    of ``1 / control_rate`` topics after the quiz (with 0.1: one in topics 1-10, one in 11-20, ...),
    due once the assessor reaches its place in the block. ``phase(k)`` places the k-th (from 0)
    at that fraction of its block (:func:`phases`: drawn per assessor, so the places follow no
    pattern an assessor could learn); without it, at the block's end (the 10th, 20th, ...).

    >>> r = Rules(control_rate=0.25, quiz_controls=2)
    >>> [control_due(0, 0, r), control_due(1, 0, r), control_due(2, 0, r), control_due(2, 3, r)]
    [True, True, False, True]
    >>> [control_due(2, t, r, phase=lambda k: 0.5) for t in range(4)]
    [False, False, True, True]
    """
    if controls < rules.quiz_controls:
        return True
    if rules.control_rate <= 0:
        return False
    after = controls - rules.quiz_controls
    width = 1 / rules.control_rate
    # The position (from 0, among the topics after the quiz) of the next control; a tolerance for
    # 10 x (1 / 0.1) in floats.
    place = (after + (phase(after) if phase is not None else 1.0)) * width - (1.0 if phase is None else 0.0)
    return after + regular >= math.floor(place + 1e-9)


def phases(seed: str) -> Phase:
    """An assessor's places of their controls within the blocks (:func:`control_due`): for each
    ``k`` a fraction in [0, 1) from a keyed hash of ``seed`` (the campaign and the assessor) and
    ``k``, keyed with the site's secret so that no assessor can work them out, and the same on
    every request (Next and the home page's queue agree).

    >>> f = phases("3:7"); 0 <= f(0) < 1 and f(0) == phases("3:7")(0)
    True
    """
    key = hashlib.sha256(f"concord-controls|{settings.SECRET_KEY}".encode()).digest()

    def phase(k: int) -> float:
        digest = hashlib.blake2b(f"{seed}|{k}".encode(), digest_size=8, key=key).digest()
        return int.from_bytes(digest, "big") / 2**64

    return phase


def seed_of(campaign_id: int, assessor_id: int) -> str:
    """The seed of an assessor's :func:`phases` in a campaign."""
    return f"{campaign_id}:{assessor_id}"


def interleave(regular: Sequence[T], controls: Sequence[T], rules: Rules, *, phase: Phase | None = None) -> list[T]:
    """``regular`` and ``controls`` (each in its own order) merged as :func:`control_due` has an
    assessor take them; what is left of either once the other runs out follows in its order.

    >>> interleave(["r1", "r2", "r3", "r4"], ["c1", "c2", "c3"], Rules(control_rate=0.25, quiz_controls=1))
    ['c1', 'r1', 'r2', 'r3', 'c2', 'r4', 'c3']
    """
    merged: list[T] = []
    r = c = 0
    while r < len(regular) and c < len(controls):
        if control_due(c, r, rules, phase=phase):
            merged.append(controls[c])
            c += 1
        else:
            merged.append(regular[r])
            r += 1
    return merged + list(regular[r:]) + list(controls[c:])


def queue_order(
    assignments: Sequence[T],
    is_control: Callable[[T], bool],
    drawn: Callable[[T], Any],
    rules: Rules,
    *,
    phase: Phase | None = None,
) -> list[T]:
    """An assessor's assignments (regular ones in the queue's order) in the order they take them:
    their controls, in the order drawn (``drawn``: e.g. the assignment's id), interleaved with the
    regular ones as :func:`interleave` has it. "Next topic" (annotate.adaptive) and the home
    page's queue (annotate.selectors) both read it, so the queue shows what Next serves."""
    regular = [a for a in assignments if not is_control(a)]
    if len(regular) == len(assignments):
        return list(assignments)
    controls = sorted((a for a in assignments if is_control(a)), key=drawn)
    return interleave(regular, controls, rules, phase=phase)


def controls_wanted(regular: int, rules: Rules, *, phase: Phase | None = None) -> int:
    """How many control topics an assessor with ``regular`` regular topics gets up front: those
    :func:`control_due` puts before their last regular topic (none without regular topics).

    >>> controls_wanted(10, Rules(control_rate=0.1, quiz_controls=3)), controls_wanted(0, Rules(quiz_controls=3))
    (4, 0)
    """
    c = r = 0
    while r < regular:
        if control_due(c, r, rules, phase=phase):
            c += 1
        else:
            r += 1
    return c


def draw(candidates: Sequence[T], count: int, rng: random.Random) -> list[T]:
    """``count`` of ``candidates`` (those an assessor has not had) at random, without repeats,
    in the order drawn; all of them, shuffled, when there are fewer."""
    return rng.sample(list(candidates), min(count, len(candidates)))


def share_of(
    kind: Kind, data: Mapping[str, Any], items: Sequence[str] | None, known: Sequence[str]
) -> list[str] | None:
    """The items of a control topic's assignment where the kind shares a topic's items out
    (``Kind.shares_topics``): as many as a regular assignment's share ``items`` holds, its known
    items first, then the share's, so a control assignment is as large as any other (None: the
    whole topic), in the topic's order."""
    if items is None:
        return None
    every = kind.items(data)
    chosen: list[str] = []
    for item in [*known, *items, *every]:
        if len(chosen) >= len(items):
            break
        if item not in chosen:
            chosen.append(item)
    wanted = set(chosen)
    return [item for item in every if item in wanted]


# -- storage ---------------------------------------------------------------------------


def control_topic_ids(campaign: Campaign | int) -> QuerySet:
    """The ids of the campaign's control topics (a subquery, for ``topic_id__in=``)."""
    campaign_id = campaign if isinstance(campaign, int) else campaign.pk
    return Control.objects.filter(topic__campaign_id=campaign_id).values("topic_id").distinct()


def controls_of(campaign: Campaign) -> dict[int, list[Control]]:
    """Topic id -> its known answers, item by item (organisers only: never shown to an assessor)."""
    found: dict[int, list[Control]] = {}
    for control in Control.objects.filter(topic__campaign=campaign).order_by("topic_id", "item"):
        found.setdefault(control.topic_id, []).append(control)
    return found


def clean_answers(
    kind: Kind,
    topic_data: Mapping[str, Any],
    params: Mapping[str, Any],
    answers: Any,
    *,
    attention: bool,
    field: str,
) -> list[tuple[str, Any, bool]]:
    """``{item: answer}`` checked by the kind (``Kind.clean_control_answer``: the item is the
    topic's, the answer one it accepts), as ``(item, answer, attention)``; InvalidInput naming
    ``field.<item>`` otherwise."""
    if not isinstance(answers, dict):
        raise InvalidInput(field, "expected an object of item id -> known answer")
    if len(answers) > MAX_PER_TOPIC:
        raise InvalidInput(field, f"{len(answers):,} known answers; at most {MAX_PER_TOPIC:,} per topic")
    cleaned = []
    for item, answer in answers.items():
        require_id(item, f"{field}.{item}")
        known = kind.clean_control_answer(answer, topic_data, item, params, field=f"{field}.{item}")
        cleaned.append((item, known, attention))
    return cleaned


def clean_topic_controls(
    kind: Kind, topic_data: Mapping[str, Any], params: Mapping[str, Any], controls: Any, checks: Any, *, field: str
) -> list[tuple[str, Any, bool]]:
    """A topic's ``controls`` and ``attention_checks`` (each ``{item: answer}`` or None), checked
    (:func:`clean_answers`); an item in both is refused, naming it."""
    found = clean_answers(kind, topic_data, params, controls or {}, attention=False, field=f"{field}.controls")
    found += clean_answers(kind, topic_data, params, checks or {}, attention=True, field=f"{field}.attention_checks")
    seen: set[str] = set()
    for item, _, _ in found:
        if item in seen:
            raise InvalidInput(
                f"{field}.attention_checks.{item}", "also given under controls: one known answer per item"
            )
        seen.add(item)
    if (controls or checks) and not kind.takes_controls:
        raise InvalidInput(f"{field}.controls", f"{kind.label} judgments cannot be checked against known answers")
    return found


def insert(topic_ids: Mapping[str, int], answers: Mapping[str, list[tuple[str, Any, bool]]]) -> int:
    """Write checked answers of new topics (external id -> their answers) as Control rows (an
    import's step, inside its transaction); how many."""
    rows = [
        Control(topic_id=topic_ids[external_id], item=item, answer=answer, attention=attention)
        for external_id, found in answers.items()
        for item, answer, attention in found
    ]
    Control.objects.bulk_create(rows, batch_size=1000)
    return len(rows)


#: Items per query replacing known answers (SQLite's bound on a statement's parameters aside).
_ITEMS_PER_QUERY = 500


@transaction.atomic
def set_controls(topic: Topic, answers: list[tuple[str, Any, bool]]) -> int:
    """Set known answers of ``topic`` (checked: :func:`clean_topic_controls`): each item's answer
    replaced or added, the others kept; the campaign's reports rebuilt. How many were set."""
    items = [item for item, _, _ in answers]
    for first in range(0, len(items), _ITEMS_PER_QUERY):
        Control.objects.filter(topic=topic, item__in=items[first : first + _ITEMS_PER_QUERY]).delete()
    Control.objects.bulk_create(
        (Control(topic=topic, item=item, answer=answer, attention=attention) for item, answer, attention in answers),
        batch_size=1000,
    )
    if answers:
        changes.campaign_changed(topic.campaign)
    return len(answers)


@transaction.atomic
def remove_controls(topic: Topic, items: Sequence[str] | None = None) -> int:
    """Remove ``topic``'s known answers (``items``: only those; None: all, so it is a regular
    topic again); the campaign's reports rebuilt. How many were removed."""
    found = Control.objects.filter(topic=topic)
    if items is not None:
        found = found.filter(item__in=list(items))
    removed, _ = found.delete()
    if removed:
        changes.campaign_changed(topic.campaign)
    return removed
