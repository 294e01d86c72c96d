"""The organiser's changes to control items (annotate/controls.py): known answers marked and
removed, and the campaign's rules for them, each checked whole before anything is written, then
written in one transaction with the control topics handed out again where the campaign assigns
up front (annotate.services.assignments.assign_topics), and every report rebuilt.

Rows of known answers come from the controls page's form or an uploaded CSV, one a line:
``topic,item,answer`` and optionally ``attention`` (``yes``: an attention check), a header line
of those names allowed. Every row is checked before any is written; a bad one is InvalidInput
naming its line and column (``line 3, answer``), and nothing changes.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from annotate import changes, controls
from annotate.models import Campaign, Control, Topic
from annotate.services.assignments import assign_topics
from annotate.services.campaigns import clean_campaign_params
from concord import reading
from concord.errors import InvalidInput
from concord.params import ParamsSchema
from kinds.base import CONTROL_PARAMS
from kinds.registry import get_kind

#: The columns of a row of known answers, in order (``attention`` optional).
COLUMNS = ("topic", "item", "answer", "attention")
#: The most rows one form or upload sets (each an update of one Control row, in one transaction).
MAX_ROWS = 5_000
_YES = {"yes", "true", "1", "attention"}
_NO = {"", "no", "false", "0", "control"}


@dataclass(frozen=True)
class Marked:
    """What :func:`mark` set: how many known answers, on how many topics."""

    answers: int
    topics: int


def require_takes_controls(campaign: Campaign, field: str = "campaign") -> None:
    kind = get_kind(campaign.kind).data
    if not kind.takes_controls:
        raise InvalidInput(field, f"{kind.label} judgments cannot be checked against known answers")


def read_rows(text: str, *, field: str) -> list[tuple[int, list[str]]]:
    """The rows of ``text`` (CSV, a row a line), with their line numbers; a header of
    :data:`COLUMNS` skipped; blank lines left out."""
    reading.require_size(text, field)
    found: list[tuple[int, list[str]]] = []
    reader = csv.reader(text.splitlines())
    try:
        for row in reader:
            cells = [cell.strip() for cell in row]
            if not any(cells):
                continue
            if not found and [c.lower() for c in cells[: len(COLUMNS)]] == list(COLUMNS[: len(cells)]):
                continue  # the header
            found.append((reader.line_num, cells))
            if len(found) > MAX_ROWS:
                raise InvalidInput(field, f"more than {MAX_ROWS:,} rows: split them")
    except csv.Error as error:
        raise InvalidInput(f"{field}: line {reader.line_num + 1}", f"not CSV: {error}") from None
    if not found:
        raise InvalidInput(field, "no rows: write topic,item,answer (and attention: yes for an attention check)")
    return found


def check_rows(campaign: Campaign, rows: Sequence[tuple[int, list[str]]], *, field: str) -> dict[int, list]:
    """Topic id -> its checked answers ``(item, answer, attention)`` (``controls.clean_answers``
    by the kind), every row checked; InvalidInput naming the line and column otherwise."""
    require_takes_controls(campaign, field)
    kind = get_kind(campaign.kind).data
    wanted = {cells[0] for _, cells in rows if cells}
    topics = {
        t.external_id: t for t in campaign.topics.filter(external_id__in=wanted).only("id", "external_id", "data")
    }
    checked: dict[int, list] = {}
    seen: set[tuple[int, str]] = set()
    for line, cells in rows:
        where = f"{field}: line {line}"
        if not 3 <= len(cells) <= 4:
            raise InvalidInput(
                where, f"expected {', '.join(COLUMNS[:3])} and optionally attention, got {len(cells)} cells"
            )
        topic = topics.get(cells[0])
        if topic is None:
            raise InvalidInput(f"{where}, topic", f"no topic {cells[0]!r} in this campaign")
        attention = (cells[3] if len(cells) == 4 else "").lower()
        if attention not in _YES | _NO:
            raise InvalidInput(f"{where}, attention", f"expected yes (an attention check) or no, got {cells[3]!r}")
        item = cells[1]
        if (topic.pk, item) in seen:
            raise InvalidInput(f"{where}, item", f"item {item!r} of topic {cells[0]!r} is on an earlier line too")
        seen.add((topic.pk, item))
        found = controls.clean_answers(
            kind, topic.data, campaign.params, {item: cells[2]}, attention=attention in _YES, field=f"{where}, answer"
        )
        checked.setdefault(topic.pk, []).extend(found)
    return checked


@transaction.atomic
def mark(campaign: Campaign, text: str, *, field: str = "answers") -> Marked:
    """Set the known answers of the rows of ``text`` (:func:`read_rows`), all or none: each
    item's answer replaced or added; the control topics handed out again; the reports rebuilt."""
    checked = check_rows(campaign, read_rows(text, field=field), field=field)
    topics = {t.pk: t for t in campaign.topics.filter(pk__in=list(checked))}
    for topic_id, answers in checked.items():
        topics[topic_id].campaign = campaign
        controls.set_controls(topics[topic_id], answers)
    assign_topics(campaign)
    changes.progress_changed(campaign.pk)
    return Marked(sum(len(a) for a in checked.values()), len(checked))


@transaction.atomic
def unmark(campaign: Campaign, topic: Any, item: Any = None) -> int:
    """Remove the known answer of ``item`` of ``topic`` (external ids), or, with no item, all the
    topic's: a regular topic again (the assignments made of it stay, with their judgments).
    Refused (InvalidInput naming the field) when there is none. How many were removed."""
    if not isinstance(topic, str) or not topic:
        raise InvalidInput("topic", "required")
    target = campaign.topics.filter(external_id=topic).first()
    if target is None:
        raise InvalidInput("topic", f"no topic {topic!r} in this campaign")
    if item is not None and (not isinstance(item, str) or not item):
        raise InvalidInput("item", "expected an item id")
    target.campaign = campaign
    removed = controls.remove_controls(target, None if item is None else [item])
    if not removed:
        what = f"item {item!r} of topic {topic!r}" if item is not None else f"topic {topic!r}"
        raise InvalidInput("item" if item is not None else "topic", f"{what} has no known answer")
    assign_topics(campaign)  # a topic no longer a control is assigned by the overlap again
    changes.progress_changed(campaign.pk)
    return removed


def rules_schema(campaign: Campaign) -> ParamsSchema:
    """The kind's control params alone (``kinds.base.control_params``), for the page's form."""
    params = get_kind(campaign.kind).params.params
    return ParamsSchema(*(params[name] for name in CONTROL_PARAMS if name in params))


@transaction.atomic
def set_rules(campaign: Campaign, values: Mapping[str, Any]) -> dict[str, Any]:
    """The campaign's control params become ``values`` (a param left out takes its default),
    checked by the kind's schema with the others kept; control topics handed out again under the
    new rules (none taken back: an assignment may already hold a judgment); every report rebuilt.
    Refused (InvalidInput naming ``params.<name>``) without writing."""
    require_takes_controls(campaign, "params")
    unknown = sorted(set(values) - set(CONTROL_PARAMS))
    if unknown:
        raise InvalidInput(f"params.{unknown[0]}", "not a rule of control items")
    kept = {name: value for name, value in campaign.params.items() if name not in CONTROL_PARAMS}
    cleaned = clean_campaign_params(campaign.kind, {**kept, **values}, current=campaign.params)
    Campaign.objects.filter(pk=campaign.pk).update(params=cleaned)
    campaign.params = cleaned
    changes.campaign_changed(campaign)
    assign_topics(campaign)
    changes.progress_changed(campaign.pk)
    return cleaned


#: Control topics the page lists (the first, in the campaign's order; it says how many more), and
#: the most known answers it shows of them.
LISTED = 200
LISTED_ANSWERS = 2000


def listed(campaign: Campaign, most: int = LISTED) -> tuple[list[tuple[Topic, list[Control]]], int]:
    """The first ``most`` control topics with their known answers (at most ``LISTED_ANSWERS`` in
    all: a topic's may be thousands), in the campaign's order, and how many control topics there
    are (the organiser's page; never an assessor's)."""
    ids = controls.control_topic_ids(campaign)
    total = ids.count()
    topics = list(
        campaign.topics.filter(pk__in=ids).order_by("position", "id").only("id", "external_id", "title")[:most]
    )
    order = {topic.pk: at for at, topic in enumerate(topics)}
    shown = Control.objects.filter(topic__in=list(order)).order_by("topic__position", "topic_id", "item")
    found: dict[int, list[Control]] = {}
    for control in shown[:LISTED_ANSWERS]:
        found.setdefault(control.topic_id, []).append(control)
    return [(topic, found[topic.pk]) for topic in topics if topic.pk in found], total
