"""Reads: who may see what, queues, progress. Pages and API both use these."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db import connection
from django.db.models import Exists, OuterRef, QuerySet
from django.http import Http404

from annotate import controls
from annotate.adaptive import allocates
from annotate.imports import fence
from annotate.models import Assignment, Campaign, Control, Curation, ImportFence, Judgment, Membership, Topic
from annotate.services import accounts
from concord import rawrows
from concord.busy import Busy
from kinds.registry import get_kind

#: What a page or endpoint needs (``campaign_for``): ``view``: a campaign's assessors,
#: organisers and admins (judging, topics, one's own judgment); ``member``: every member,
#: adjudicators too (the campaign page, the campaign API); ``adjudicate``: organisers,
#: admins and adjudicators (the adjudication pages, the ``consensus`` curation);
#: ``organise``: organisers and admins; ``admin``: admins.
Need = Literal["view", "member", "adjudicate", "organise", "admin"]
AnyUser = AbstractBaseUser | AnonymousUser


def is_admin(user: AnyUser) -> bool:
    return bool(user.is_authenticated and user.is_staff)


def role_in(user: AnyUser, campaign: Campaign) -> str | None:
    """'admin', 'organiser', 'assessor', 'adjudicator' or None."""
    if not user.is_authenticated:
        return None
    if user.is_staff:
        return "admin"
    return Membership.objects.filter(campaign=campaign, user=user).values_list("role", flat=True).first()


def role_phrase(role: str) -> str:
    """'an assessor', 'an organiser', 'an admin'."""
    return f"{'an' if role[:1] in 'aeiou' else 'a'} {role}"


def can_create_campaigns(user: AnyUser) -> bool:
    return bool(user.is_authenticated and (user.is_staff or user.has_perm("annotate.add_campaign")))


def visible_campaigns(user: AnyUser) -> QuerySet[Campaign]:
    if not user.is_authenticated:
        return Campaign.objects.none()
    if user.is_staff:
        return Campaign.objects.all()
    return Campaign.objects.filter(memberships__user=user).distinct()


#: The roles each need admits (:func:`campaign_for`).
_ALLOWED: dict[str, set[str]] = {
    # Adjudicators are left out of "view" on purpose: every page and endpoint of
    # assessors and organisers stays closed to them unless it asks for them.
    "view": {"admin", "organiser", "assessor"},
    "member": {"admin", "organiser", "assessor", "adjudicator"},
    "adjudicate": {"admin", "organiser", "adjudicator"},
    "organise": {"admin", "organiser"},
    "admin": {"admin"},
}


def campaign_for(user: AnyUser, campaign_id: int, *, need: Need = "view") -> tuple[Campaign, str]:
    """The campaign and the user's role in it.

    Not a member: 404, so campaign ids leak nothing. A member without the
    needed role: 403. A large import being written into it (annotate/imports/fence.py):
    concord.busy.Busy, 503 with Retry-After.
    """
    campaign = Campaign.objects.filter(pk=campaign_id).annotate(importing=Exists(_fence("pk"))).first()
    role = role_in(user, campaign) if campaign else None
    if campaign is None or role is None:
        raise Http404(f"No campaign {campaign_id}, or you are not a member of it.")
    allowed = _ALLOWED[need]
    if role not in allowed:
        who = {
            "view": "its assessors, organisers and admins",
            "adjudicate": "its adjudicators, organisers and admins",
            "organise": "its organisers and admins",
            "admin": "admins",
        }[need]
        raise PermissionDenied(
            f'You are {role_phrase(role)} in the campaign "{campaign.name}": only {who} may do this.'
        )
    _not_importing(campaign, campaign.importing)
    return campaign, role


def _fence(campaign: str) -> QuerySet[ImportFence]:
    """The fence of the campaign ``campaign`` (a field of the outer query) names."""
    return ImportFence.objects.filter(campaign_id=OuterRef(campaign)).order_by()


def _not_importing(campaign: Campaign, importing: bool) -> None:
    if importing:
        raise Busy(fence.fenced_message(campaign.name))


def judging_target(
    user: AnyUser, campaign_id: int, external_id: str, *, need: Need = "view"
) -> tuple[Campaign, str, Topic]:
    """:func:`campaign_for` and then :func:`topic_for`, in one query when the user
    may open the topic (the judgment endpoints' path: the topic, its campaign,
    the user's role and, for an assessor, the assignment, joined). Anything
    else takes the two functions' own path, so refusals are theirs word for word."""
    # An id no database column holds takes campaign_for's path (its 404): the joined
    # lookup below would hand it to the database driver, which overflows.
    if user.is_authenticated and -(2**63) <= campaign_id < 2**63:
        # Plain SQL written once per process (_target_sql, concord/rawrows.py): the ORM built
        # and compiled this query anew on every save, which cost more CPU than running it
        # (benchmarks.submit_cost).
        params = [campaign_id, external_id] if user.is_staff else [user.pk, user.pk, campaign_id, external_id]
        with connection.cursor() as cursor:
            cursor.execute(_target_sql(connection.vendor, user.is_staff), params)
            row = cursor.fetchone()
        if row is not None:
            topics, campaigns = len(Topic._meta.concrete_fields), len(Campaign._meta.concrete_fields)
            topic = rawrows.instance(Topic, row[:topics], connection)
            topic.campaign = rawrows.instance(Campaign, row[topics : topics + campaigns], connection)
            importing, *access = row[topics + campaigns :]
            role = "admin" if user.is_staff else access[0]
            if role in _ALLOWED[need] and (role != "assessor" or access[1]):
                _not_importing(topic.campaign, importing)
                return topic.campaign, role, topic
    campaign, role = campaign_for(user, campaign_id, need=need)
    return campaign, role, topic_for(user, campaign, role, external_id)


@functools.cache
def _target_sql(vendor: str, staff: bool) -> str:
    """:func:`judging_target`'s query: the topic's columns, its campaign's, whether an import
    fences the campaign and, unless ``staff``, the user's role and whether they are assigned
    the topic (each subquery taking the user's id); then the campaign's id and the topic's
    external id. ``vendor``: the key of the cache (the SQL of one database's vendor)."""
    name = connection.ops.quote_name
    topics, campaigns = name(Topic._meta.db_table), name(Campaign._meta.db_table)
    columns = [rawrows.select_list(Topic, connection), rawrows.select_list(Campaign, connection)]
    columns += [_access_sql("importing")] + ([] if staff else [f"({_access_sql('role')})", _access_sql("assigned")])
    return (
        f"SELECT {', '.join(columns)} FROM {topics} INNER JOIN {campaigns} "
        f"ON {rawrows.quoted(Campaign, 'id', connection)} = {rawrows.quoted(Topic, 'campaign', connection)} "
        f"WHERE {rawrows.quoted(Topic, 'campaign', connection)} = %s "
        f"AND {rawrows.quoted(Topic, 'external_id', connection)} = %s LIMIT 1"
    )


@functools.cache
def _access_sql(column: str) -> str:
    """The SQL of one of :func:`judging_target`'s columns of a topic row: whether an
    import fences its campaign (``importing``); with the user's id as the one
    parameter, their role in the campaign (``role``) or whether they are assigned
    the topic (``assigned``). As ``_fence``, ``role_in`` and ``topic_for`` ask."""
    name = connection.ops.quote_name

    def column_of(model, field: str) -> str:
        return f"{name(model._meta.db_table)}.{name(model._meta.get_field(field).column)}"

    topic_campaign, topic_id = column_of(Topic, "campaign"), column_of(Topic, "id")
    if column == "importing":
        fences = name(ImportFence._meta.db_table)
        return f"EXISTS(SELECT 1 FROM {fences} WHERE {column_of(ImportFence, 'campaign')} = {topic_campaign})"
    if column == "role":
        memberships = name(Membership._meta.db_table)
        return (
            f"SELECT {column_of(Membership, 'role')} FROM {memberships} WHERE "
            f"{column_of(Membership, 'campaign')} = {topic_campaign} AND {column_of(Membership, 'user')} = %s LIMIT 1"
        )
    assignments = name(Assignment._meta.db_table)
    return (
        f"EXISTS(SELECT 1 FROM {assignments} WHERE {column_of(Assignment, 'topic')} = {topic_id} "
        f"AND {column_of(Assignment, 'assessor')} = %s)"
    )


def topic_for(user: AnyUser, campaign: Campaign, role: str, external_id: str) -> Topic:
    """A topic the user may open: assessors only their assigned ones."""
    topics = campaign.topics.all()
    if role == "assessor":
        topics = topics.filter(assignments__assessor=user)
    topic = topics.filter(external_id=external_id).first()
    if topic is None:
        unassigned = ", or it is not assigned to you" if role == "assessor" else ""
        raise Http404(f'No topic {external_id} in the campaign "{campaign.name}"{unassigned}.')
    return topic


def topics_visible(user: AnyUser, campaign: Campaign, role: str) -> QuerySet[Topic]:
    topics = campaign.topics.all()
    if role == "assessor":
        topics = topics.filter(assignments__assessor=user)
    return topics.order_by("position", "id")


def topic_data_for(
    user: AnyUser, campaign: Campaign, role: str, topics: Iterable[Topic]
) -> dict[int, Mapping[str, Any]]:
    """Topic pk -> the part of its data the user may see (blind assessment).

    Assessors get the kind's ``assessor_view()`` of their part of each topic
    (the items of their assignment); organisers and admins the full data.
    Every endpoint that shows a topic's data takes it from here (the
    judging page renders the kind's assessor view itself, for every role).
    """
    topics = list(topics)
    if role in ("admin", "organiser"):
        return {topic.pk: topic.data for topic in topics}
    kind = get_kind(campaign.kind).data
    items = dict(
        Assignment.objects.filter(assessor=user, topic__in=[t.pk for t in topics]).values_list("topic_id", "items")
    )
    return {topic.pk: kind.assessor_view(topic.data, items.get(topic.pk)) for topic in topics}


def judgments_visible(user: AnyUser, campaign: Campaign, role: str) -> QuerySet[Judgment]:
    judgments = Judgment.objects.filter(topic__campaign=campaign).select_related("topic", "assessor")
    if role == "assessor":
        judgments = judgments.filter(assessor=user)
    return judgments.order_by("topic__position", "topic_id", "assessor__username")


def own_judgment(topic: Topic, user: AnyUser) -> Judgment | None:
    judgment = Judgment.objects.filter(topic=topic, assessor=user).first()
    if judgment is not None:
        judgment.topic, judgment.assessor = topic, user  # known: no query to show them
    return judgment


@dataclass(frozen=True)
class QueueEntry:
    topic: Topic
    status: str  # "new", or a Judgment.Status: "draft", "submitted", "reopened", "withdrawn"
    version: int
    #: The assessor skipped it (annotate.flags): it is left out of "next topic".
    skipped: bool = False
    skip_reason: str = ""

    @property
    def counts(self) -> bool:
        """Submitted, or reopened (its submitted version still counts)."""
        return self.status in Judgment.COUNTING


@dataclass(frozen=True)
class CampaignQueue:
    campaign: Campaign
    role: str
    entries: list[QueueEntry]
    #: Why the user is paused in the campaign (annotate/quality.py; None: not paused): no more work.
    paused_reason: str | None = None

    @property
    def submitted(self) -> int:
        """Topics whose judgment counts: submitted or reopened (withdrawn ones do not)."""
        return sum(1 for e in self.entries if e.counts)

    @property
    def percent(self) -> int:
        return round(100 * self.submitted / len(self.entries)) if self.entries else 0

    @property
    def skipped(self) -> int:
        return sum(1 for e in self.entries if e.skipped)

    @property
    def waiting(self) -> int:
        """Topics still to judge: no counting judgment, not skipped."""
        return sum(1 for e in self.entries if not e.counts and not e.skipped)

    @property
    def next_topic(self) -> Topic | None:
        """The first draft, else the first topic not judged yet; skipped topics are left out."""
        pending = [e for e in self.entries if not e.counts and not e.skipped]
        drafts = [e for e in pending if e.status == "draft"]
        return (drafts or pending)[0].topic if pending else None

    @property
    def allocates(self) -> bool:
        """Work is handed out on request (the adaptive design, a kind's own draw): "Next topic"
        asks ``campaigns/<id>/next/`` when nothing is pending."""
        return self.role == "assessor" and allocates(self.campaign)

    def neighbours(self, topic: Topic) -> tuple[Topic | None, Topic | None]:
        """The topics before and after ``topic`` in the queue's order (every topic, skipped ones too)."""
        ids = [e.topic.pk for e in self.entries]
        if topic.pk not in ids:
            return None, None
        at = ids.index(topic.pk)
        before = self.entries[at - 1].topic if at > 0 else None
        after = self.entries[at + 1].topic if at + 1 < len(self.entries) else None
        return before, after


def assessor_queues(user: AnyUser) -> list[CampaignQueue]:
    """Every campaign the user belongs to, with the user's own assignments."""
    memberships = Membership.objects.filter(user=user).select_related("campaign").order_by("campaign__name")
    assignments = (
        Assignment.objects.filter(assessor=user).select_related("topic").order_by("topic__position", "topic_id")
    )
    judgments = {j.topic_id: j for j in Judgment.objects.filter(assessor=user).only("topic_id", "status", "version")}
    by_campaign: dict[int, list[tuple[QueueEntry, int]]] = {}
    for assignment in assignments:
        judgment = judgments.get(assignment.topic_id)
        entry = QueueEntry(
            topic=assignment.topic,
            status=judgment.status if judgment else "new",
            version=judgment.version if judgment else 0,
            skipped=assignment.skipped_at is not None,
            skip_reason=assignment.skip_reason,
        )
        by_campaign.setdefault(assignment.topic.campaign_id, []).append((entry, assignment.pk))
    # Control topics take their turn as "Next topic" serves them (annotate.adaptive._pending_topic).
    controlled = set(
        Control.objects.filter(topic__assignments__assessor=user).values_list("topic_id", flat=True).distinct()
    )
    queues = []
    for m in memberships:
        held = controls.queue_order(
            by_campaign.get(m.campaign_id, []),
            lambda pair: pair[0].topic.pk in controlled,
            lambda pair: pair[1],
            controls.rules(m.campaign.params),
            phase=controls.phases(controls.seed_of(m.campaign_id, user.pk)),
        )
        queues.append(
            CampaignQueue(
                m.campaign,
                m.role,
                [entry for entry, _ in held],
                paused_reason=None if m.paused_at is None else m.pause_reason,
            )
        )
    return queues


def topic_assignments(campaign: Campaign) -> list[tuple[Topic, list[tuple[str, str]]]]:
    """Every topic with its assessors and the state of each one's judgment."""
    topics = list(campaign.topics.order_by("position", "id"))
    status = {
        (j["topic_id"], j["assessor__username"]): j["status"]
        for j in Judgment.objects.filter(topic__campaign=campaign).values("topic_id", "assessor__username", "status")
    }
    people: dict[int, list[tuple[str, str]]] = {}
    for topic_id, username in (
        Assignment.objects.filter(topic__campaign=campaign)
        .order_by("assessor__username")
        .values_list("topic_id", "assessor__username")
    ):
        people.setdefault(topic_id, []).append((username, status.get((topic_id, username), "new")))
    return [(t, people.get(t.id, [])) for t in topics]


# -- how many judge each topic -----------------------------------------------------------


def curation(topic: Topic, name: str) -> Curation | None:
    """``topic``'s curation ``name`` (the gold is ``consensus``), or None."""
    return Curation.objects.filter(topic=topic, name=name).first()


def curations_of(topics: list[Topic], name: str) -> dict[int, Curation]:
    """Topic id -> the topic's curation ``name`` (with who saved it last), in one
    query: e.g. the adjudicated gold (``consensus``) of every topic of an export."""
    found = Curation.objects.filter(topic__in=[t.pk for t in topics], name=name).select_related("updated_by")
    return {c.topic_id: c for c in found}


@dataclass(frozen=True)
class Account:
    """A member as the members page shows them (``state``: annotate.services.accounts)."""

    username: str
    role: str
    state: str
    #: a model judge (Membership.model_judge): its judgments are the model's
    model_judge: bool = False

    @property
    def said(self) -> str:
        return accounts.SAID[self.state]

    @property
    def link_allowed(self) -> bool:
        return self.state == accounts.NEW


def member_accounts(campaign: Campaign, organiser: AbstractBaseUser) -> list[Account]:
    """The campaign's members, each account's state as ``organiser`` sees it."""
    members = list(campaign.memberships.select_related("user").order_by("role", "user__username"))
    states = accounts.states([m.user for m in members], organiser)
    return [
        Account(m.user.username, m.role, accounts.member_state(m, states[m.user_id]), m.model_judge) for m in members
    ]
