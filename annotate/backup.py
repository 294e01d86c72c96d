"""Back up a whole campaign to one JSON document, and restore it elsewhere.

The document holds the campaign, its members, topics, assignments, runs,
every judgment with its full revision history, and the organisers'
curations (relations, consensus) with theirs. Restoring into another
instance recreates all of it (accounts that do not exist there are created
without a usable password) and recomputes the reports, which come out as
they were.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.dateparse import parse_datetime

from annotate.kinds import InvalidInput, get_kind
from annotate.kinds.base import require_id, require_list, require_object
from annotate.models import (
    Assignment,
    Campaign,
    Curation,
    CurationRevision,
    Judgment,
    JudgmentRevision,
    Membership,
    Run,
    Topic,
)

FORMAT = "concord-campaign"
VERSION = 1
User = get_user_model()


def _when(value) -> str | None:
    return value.isoformat() if value else None


def dump_campaign(campaign: Campaign) -> dict[str, Any]:
    topics = list(campaign.topics.order_by("position", "id"))
    external = {t.pk: t.external_id for t in topics}
    judgments = []
    for judgment in Judgment.objects.filter(topic__campaign=campaign).select_related("assessor").order_by("topic__position", "topic_id", "assessor__username"):
        judgments.append({
            "topic": external[judgment.topic_id], "assessor": judgment.assessor.username, "status": judgment.status,
            "version": judgment.version, "payload": judgment.payload, "submitted_at": _when(judgment.submitted_at),
            "revisions": [
                {"version": r.version, "author": r.author.username if r.author else None, "payload": r.payload,
                 "status": r.status, "source": r.source, "created_at": _when(r.created_at)}
                for r in judgment.revisions.select_related("author").order_by("version")
            ],
        })
    curations = [
        {"topic": external[c.topic_id], "name": c.name, "version": c.version, "data": c.data,
         "revisions": [{"version": r.version, "author": r.author.username if r.author else None, "data": r.data,
                        "created_at": _when(r.created_at)} for r in c.revisions.select_related("author").order_by("version")]}
        for c in Curation.objects.filter(topic__campaign=campaign).order_by("topic__position", "name")
    ]
    return {
        "format": FORMAT,
        "version": VERSION,
        "campaign": {"kind": campaign.kind, "name": campaign.name, "guidelines": campaign.guidelines,
                     "overlap": campaign.overlap, "params": campaign.params},
        "members": [{"username": m.user.username, "role": m.role}
                    for m in campaign.memberships.select_related("user").order_by("user__username")],
        "topics": [{"external_id": t.external_id, "title": t.title, "data": t.data, "position": t.position} for t in topics],
        "assignments": [
            {"topic": external[a.topic_id], "assessor": a.assessor.username, "items": a.items}
            for a in Assignment.objects.filter(topic__campaign=campaign).select_related("assessor").order_by("topic__position", "assessor__username")
        ],
        "runs": [{"name": r.name, "data": r.data} for r in campaign.runs.order_by("name")],
        "judgments": judgments,
        "curations": curations,
    }


@transaction.atomic
def load_campaign(document: Any, *, creator=None) -> Campaign:
    """Restore a campaign from :func:`dump_campaign`'s document, all or nothing."""
    require_object(document, "file", allowed={"format", "version", "campaign", "members", "topics", "assignments",
                                               "runs", "judgments", "curations"}, required={"format", "version", "campaign"})
    if document["format"] != FORMAT or document["version"] != VERSION:
        raise InvalidInput("file.format", f"expected a {FORMAT} backup, version {VERSION}")
    spec = document["campaign"]
    kind = get_kind(spec.get("kind"))
    campaign = Campaign.objects.create(
        kind=kind.name, name=spec["name"], guidelines=spec.get("guidelines", ""), overlap=spec.get("overlap", 2),
        params=spec.get("params", {}), created_by=creator,
    )
    users: dict[str, Any] = {}

    def user(name: str | None):
        if name is None:
            return None
        if name not in users:
            found = User.objects.filter(username=name).first()
            if found is None:
                found = User(username=name)
                found.set_unusable_password()
                found.save()
            users[name] = found
        return users[name]

    for member in require_list(document.get("members", []), "file.members"):
        Membership.objects.create(campaign=campaign, user=user(member["username"]), role=member["role"])
    topics = {}
    for index, entry in enumerate(require_list(document.get("topics", []), "file.topics")):
        require_id(entry["external_id"], f"file.topics[{index}].external_id")
        data = kind.clean_topic_data(entry["data"], field=f"file.topics[{index}].data")
        topics[entry["external_id"]] = Topic.objects.create(
            campaign=campaign, external_id=entry["external_id"], title=entry.get("title", ""), data=data,
            position=entry.get("position", index),
        )
    Assignment.objects.bulk_create(
        Assignment(topic=topics[a["topic"]], assessor=user(a["assessor"]), items=a.get("items"))
        for a in document.get("assignments", [])
    )
    for run in document.get("runs", []):
        Run.objects.create(campaign=campaign, name=run["name"], data=run["data"])
    for index, entry in enumerate(document.get("judgments", [])):
        topic = topics[entry["topic"]]
        kind.clean_payload(entry["payload"], topic.data, complete=entry["status"] == "submitted", params=campaign.params)
        judgment = Judgment.objects.create(
            topic=topic, assessor=user(entry["assessor"]), payload=entry["payload"], status=entry["status"],
            version=entry["version"], submitted_at=parse_datetime(entry["submitted_at"]) if entry.get("submitted_at") else None,
        )
        revisions = [
            JudgmentRevision(judgment=judgment, version=r["version"], author=user(r["author"]), payload=r["payload"],
                             status=r["status"], source=r.get("source", "import"))
            for r in entry.get("revisions", [])
        ]
        JudgmentRevision.objects.bulk_create(revisions)
        _keep_times(JudgmentRevision, judgment.revisions.all(), entry.get("revisions", []))
    for entry in document.get("curations", []):
        curation = Curation.objects.create(topic=topics[entry["topic"]], name=entry["name"], data=entry["data"], version=entry["version"])
        CurationRevision.objects.bulk_create(
            CurationRevision(curation=curation, version=r["version"], author=user(r["author"]), data=r["data"])
            for r in entry.get("revisions", [])
        )
        _keep_times(CurationRevision, curation.revisions.all(), entry.get("revisions", []))
    from scoring import services as scoring_services

    scoring_services.mark_all_stale(campaign)
    return campaign


def _keep_times(model, rows, originals: list[dict]) -> None:
    """Revisions keep their original times (auto_now_add set them to now)."""
    when = {r["version"]: parse_datetime(r["created_at"]) for r in originals if r.get("created_at")}
    for row in rows:
        if row.version in when:
            model.objects.filter(pk=row.pk).update(created_at=when[row.version])
