"""Back up a whole campaign to one JSON document, and restore it elsewhere.

The document holds the campaign, its members, topics, assignments, runs,
every judgment with its full revision history, the organisers'
curations (relations, consensus) with theirs, the control topics' known answers, and which
assessors are paused with every pause and reinstatement on record. Restoring into another
instance recreates all of it (accounts that do not exist there are created
without a usable password; imported crowd workers also inactive, and never
restored onto an account that can log in) and recomputes the reports, which
come out as they were.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.dateparse import parse_datetime

from annotate import changes
from annotate.models import (
    Assignment,
    Campaign,
    Control,
    Curation,
    CurationRevision,
    Flag,
    Judgment,
    JudgmentRevision,
    Membership,
    PauseRecord,
    Run,
    Topic,
)
from annotate.services.members import require_username
from concord.errors import InvalidInput
from kinds.base import require_id, require_list, require_object
from kinds.registry import get_kind

FORMAT = "concord-campaign"
VERSION = 1
User = get_user_model()


def _when(value) -> str | None:
    return value.isoformat() if value else None


def dump_campaign(campaign: Campaign) -> dict[str, Any]:
    topics = list(campaign.topics.order_by("position", "id"))
    external = {t.pk: t.external_id for t in topics}
    judgments = []
    for judgment in (
        Judgment.objects.filter(topic__campaign=campaign)
        .select_related("assessor")
        .order_by("topic__position", "topic_id", "assessor__username")
    ):
        judgments.append(
            {
                "topic": external[judgment.topic_id],
                "assessor": judgment.assessor.username,
                "status": judgment.status,
                "version": judgment.version,
                "payload": judgment.payload,
                "submitted_payload": judgment.submitted_payload,
                "submitted_version": judgment.submitted_version,
                "submitted_at": _when(judgment.submitted_at),
                "active_ms": judgment.active_ms,
                "revisions": [
                    {
                        "version": r.version,
                        "author": r.author.username if r.author else None,
                        "payload": r.payload,
                        "status": r.status,
                        "source": r.source,
                        "reason": r.reason,
                        "created_at": _when(r.created_at),
                        "updated_at": _when(r.updated_at),
                        "saves": r.saves,
                    }
                    for r in judgment.revisions.select_related("author").order_by("version")
                ],
            }
        )
    curations = [
        {
            "topic": external[c.topic_id],
            "name": c.name,
            "version": c.version,
            "data": c.data,
            "revisions": [
                {
                    "version": r.version,
                    "author": r.author.username if r.author else None,
                    "data": r.data,
                    "created_at": _when(r.created_at),
                }
                for r in c.revisions.select_related("author").order_by("version")
            ],
        }
        for c in Curation.objects.filter(topic__campaign=campaign).order_by("topic__position", "name")
    ]
    return {
        "format": FORMAT,
        "version": VERSION,
        "campaign": {
            "kind": campaign.kind,
            "name": campaign.name,
            "guidelines": campaign.guidelines,
            "overlap": campaign.overlap,
            "params": campaign.params,
        },
        "members": [
            {
                "username": m.user.username,
                "role": m.role,
                "imported": m.imported,
                "model_judge": m.model_judge,
                **({"paused_at": _when(m.paused_at), "pause_reason": m.pause_reason} if m.paused_at else {}),
            }
            for m in campaign.memberships.select_related("user").order_by("user__username")
        ],
        "pauses": [
            {
                "member": r.membership.user.username,
                "action": r.action,
                "by": r.by.username if r.by else None,
                "at": _when(r.at),
                "reason": r.reason,
                "evidence": r.evidence,
            }
            for r in PauseRecord.objects.filter(membership__campaign=campaign)
            .select_related("membership__user", "by")
            .order_by("at", "id")
        ],
        "topics": [
            {"external_id": t.external_id, "title": t.title, "data": t.data, "position": t.position} for t in topics
        ],
        "assignments": [
            {
                "topic": external[a.topic_id],
                "assessor": a.assessor.username,
                "items": a.items,
                **({"draws": a.draws} if a.draws is not None else {}),
                "skipped_at": _when(a.skipped_at),
                "skip_reason": a.skip_reason,
            }
            for a in Assignment.objects.filter(topic__campaign=campaign)
            .select_related("assessor")
            .order_by("topic__position", "assessor__username")
        ],
        "runs": [{"name": r.name, "data": r.data} for r in campaign.runs.order_by("name")],
        "judgments": judgments,
        "curations": curations,
        "controls": [
            {"topic": external[c.topic_id], "item": c.item, "answer": c.answer, "attention": c.attention}
            for c in Control.objects.filter(topic__campaign=campaign).order_by("topic__position", "item")
        ],
        "flags": [
            {
                "topic": external[f.topic_id],
                "author": f.author.username,
                "item": f.item,
                "comment": f.comment,
                "created_at": _when(f.created_at),
                "resolved_at": _when(f.resolved_at),
                "resolved_by": f.resolved_by.username if f.resolved_by else None,
                "answer": f.answer,
            }
            for f in Flag.objects.filter(topic__campaign=campaign)
            .select_related("author", "resolved_by")
            .order_by("created_at", "id")
        ],
    }


@transaction.atomic
def load_campaign(document: Any, *, creator=None) -> Campaign:
    """Restore a campaign from :func:`dump_campaign`'s document, all or nothing."""
    require_object(
        document,
        "file",
        allowed={
            "format",
            "version",
            "campaign",
            "members",
            "topics",
            "assignments",
            "runs",
            "judgments",
            "curations",
            "controls",
            "pauses",
            "flags",
        },
        required={"format", "version", "campaign"},
    )
    if document["format"] != FORMAT or document["version"] != VERSION:
        raise InvalidInput("file.format", f"expected a {FORMAT} backup, version {VERSION}")
    spec = document["campaign"]
    kind = get_kind(spec.get("kind"))
    members = _clean_members(document.get("members", []))
    imported = {m["username"] for m in members if m.get("imported")}
    # A backup restores what Concord set itself (factoids' phase) too.
    params = kind.params.clean(spec.get("params", {}), "file.campaign.params", internal=True)
    campaign = Campaign.objects.create(
        kind=kind.name,
        name=spec["name"],
        guidelines=spec.get("guidelines", ""),
        overlap=spec.get("overlap", 2),
        params=params,
        created_by=creator,
    )
    users: dict[str, Any] = {}
    created: set[str] = set()  # accounts this restore made: set-password links may be made for them

    def user(name: str | None, where: str):
        if name is None:
            return None
        if name not in users:
            require_username(name, where)
            found = User.objects.filter(username=name).first()
            if found is None:
                # Imported crowd workers come back as accounts that cannot log in.
                found = User(username=name, is_active=name not in imported)
                found.set_unusable_password()
                found.save()
                created.add(name)
            users[name] = found
        return users[name]

    for index, member in enumerate(members):
        Membership.objects.create(
            campaign=campaign,
            user=user(member["username"], f"file.members[{index}].username"),
            role=member["role"],
            imported=member.get("imported", False),
            model_judge=member.get("model_judge", False),
            created_account=member["username"] in created and not member.get("imported", False),
            paused_at=_moment(member["paused_at"], "paused_at") if member.get("paused_at") else None,
            pause_reason=member.get("pause_reason", "") if member.get("paused_at") else "",
        )
    topics = {}
    for index, entry in enumerate(require_list(document.get("topics", []), "file.topics")):
        require_id(entry["external_id"], f"file.topics[{index}].external_id")
        data = kind.data.clean_topic_data(entry["data"], field=f"file.topics[{index}].data")
        topics[entry["external_id"]] = Topic.objects.create(
            campaign=campaign,
            external_id=entry["external_id"],
            title=entry.get("title", ""),
            data=data,
            position=entry.get("position", index),
        )
    Assignment.objects.bulk_create(
        Assignment(
            topic=topics[a["topic"]],
            assessor=user(a["assessor"], f"file.assignments[{i}].assessor"),
            items=a.get("items"),
            draws=_draws(a, f"file.assignments[{i}].draws"),
            skipped_at=parse_datetime(a["skipped_at"]) if a.get("skipped_at") else None,
            skip_reason=a.get("skip_reason", "") if a.get("skipped_at") else "",
        )
        for i, a in enumerate(document.get("assignments", []))
    )
    topic_data = {external_id: topic.data for external_id, topic in topics.items()}
    for index, run in enumerate(document.get("runs", [])):
        data = kind.data.clean_run_data(run["data"], topic_data, field=f"file.runs[{index}].data")
        Run.objects.create(campaign=campaign, name=run["name"], data=data)
    for index, entry in enumerate(document.get("judgments", [])):
        topic = topics[entry["topic"]]
        status = entry["status"]
        if status not in Judgment.Status.values:
            raise InvalidInput(
                f"file.judgments[{index}].status", f"expected one of {', '.join(Judgment.Status.values)}"
            )
        kind.data.clean_payload(entry["payload"], topic.data, complete=status == "submitted", params=campaign.params)
        counted, counted_version = None, None
        if status in Judgment.COUNTING:
            # Backups written before judgment states: a submitted judgment counts as it is.
            counted = entry.get("submitted_payload", entry["payload"] if status == "submitted" else None)
            counted_version = entry.get("submitted_version", entry["version"] if status == "submitted" else None)
            if counted is None or not isinstance(counted_version, int):
                raise InvalidInput(
                    f"file.judgments[{index}].submitted_payload", f"a {status} judgment needs the version that counts"
                )
            kind.data.clean_payload(counted, topic.data, complete=True, params=campaign.params)
            if status == "submitted" and counted != entry["payload"]:
                raise InvalidInput(
                    f"file.judgments[{index}].submitted_payload",
                    "a submitted judgment counts its payload: the two differ",
                )
        judgment = Judgment.objects.create(
            topic=topic,
            assessor=user(entry["assessor"], f"file.judgments[{index}].assessor"),
            payload=entry["payload"],
            status=status,
            version=entry["version"],
            held_payload=counted if status == "reopened" else None,
            submitted_version=counted_version,
            submitted_at=parse_datetime(entry["submitted_at"]) if entry.get("submitted_at") else None,
            active_ms=_active_ms(entry.get("active_ms", 0), f"file.judgments[{index}].active_ms"),
        )
        revisions = [
            JudgmentRevision(
                judgment=judgment,
                version=r["version"],
                # the newest revision's payload is its judgment's, kept once (JudgmentRevision.kept_payload)
                kept_payload=None
                if r["version"] == entry["version"] and r["payload"] == entry["payload"]
                else r["payload"],
                author=user(r["author"], f"file.judgments[{index}].revisions[{i}].author"),
                status=r["status"],
                source=r.get("source", "import"),
                reason=r.get("reason", ""),
                saves=_saves(r.get("saves", 1), f"file.judgments[{index}].revisions[{i}].saves"),
            )
            for i, r in enumerate(entry.get("revisions", []))
        ]
        JudgmentRevision.objects.bulk_create(revisions)
        _keep_times(JudgmentRevision, judgment.revisions.all(), entry.get("revisions", []), updated=True)
    for index, entry in enumerate(document.get("curations", [])):
        curation = Curation.objects.create(
            topic=topics[entry["topic"]], name=entry["name"], data=entry["data"], version=entry["version"]
        )
        CurationRevision.objects.bulk_create(
            CurationRevision(
                curation=curation,
                version=r["version"],
                data=r["data"],
                author=user(r["author"], f"file.curations[{index}].revisions[{i}].author"),
            )
            for i, r in enumerate(entry.get("revisions", []))
        )
        _keep_times(CurationRevision, curation.revisions.all(), entry.get("revisions", []))

    Control.objects.bulk_create(
        _control(entry, topics, f"file.controls[{index}]")
        for index, entry in enumerate(require_list(document.get("controls", []), "file.controls"))
    )
    for index, entry in enumerate(document.get("flags", [])):
        where = f"file.flags[{index}]"
        flag = Flag.objects.create(
            topic=topics[entry["topic"]],
            author=user(entry["author"], f"{where}.author"),
            item=entry.get("item", ""),
            comment=entry["comment"],
            resolved_at=parse_datetime(entry["resolved_at"]) if entry.get("resolved_at") else None,
            resolved_by=user(entry.get("resolved_by"), f"{where}.resolved_by"),
            answer=entry.get("answer", ""),
        )
        if entry.get("created_at"):
            Flag.objects.filter(pk=flag.pk).update(created_at=parse_datetime(entry["created_at"]))

    memberships = {m.user.username: m for m in campaign.memberships.select_related("user")}
    for index, entry in enumerate(require_list(document.get("pauses", []), "file.pauses")):
        where = f"file.pauses[{index}]"
        record = _pause(entry, memberships, where)
        record.by = user(entry.get("by"), f"{where}.by")
        record.save()
        PauseRecord.objects.filter(pk=record.pk).update(at=_moment(entry["at"], f"{where}.at"))
    changes.campaign_changed(campaign)
    return campaign


def _moment(value: Any, where: str):
    """A time as the backup writes it (ISO 8601), or a 400 naming ``where``."""
    moment = parse_datetime(value) if isinstance(value, str) else None
    if moment is None:
        raise InvalidInput(where, "expected a time in ISO 8601, e.g. 2026-12-07T18:10:00+00:00")
    return moment


def _pause(entry: Any, memberships: dict[str, Membership], where: str) -> PauseRecord:
    """A pause or reinstatement of the backup, of one of its members, with its reason and evidence."""
    require_object(
        entry,
        where,
        allowed={"member", "action", "by", "at", "reason", "evidence"},
        required={"member", "action", "at"},
    )
    if entry["member"] not in memberships:
        raise InvalidInput(f"{where}.member", f"no member {entry['member']!r} in the backup")
    if entry["action"] not in PauseRecord.Action.values:
        raise InvalidInput(f"{where}.action", f"expected one of {', '.join(PauseRecord.Action.values)}")
    reason, evidence = entry.get("reason", ""), entry.get("evidence", {})
    if not isinstance(reason, str):
        raise InvalidInput(f"{where}.reason", "expected text")
    if not isinstance(evidence, dict):
        raise InvalidInput(f"{where}.evidence", "expected an object")
    _moment(entry["at"], f"{where}.at")
    return PauseRecord(
        membership=memberships[entry["member"]], action=entry["action"], reason=reason, evidence=evidence
    )


def _control(entry: Any, topics: dict[str, Topic], where: str) -> Control:
    """A known answer of the backup: of one of its topics, an item id, the answer as Concord stored
    it (a JSON scalar: the kind cleaned it when it was set), and whether it is an attention check."""
    require_object(entry, where, allowed={"topic", "item", "answer", "attention"}, required={"topic", "item", "answer"})
    if entry["topic"] not in topics:
        raise InvalidInput(f"{where}.topic", f"no topic {entry['topic']!r} in the backup")
    answer, attention = entry["answer"], entry.get("attention", False)
    if not isinstance(answer, (str, int, float, bool)):
        raise InvalidInput(
            f"{where}.answer", "expected a known answer as Concord stores it (a string, number or boolean)"
        )
    if not isinstance(attention, bool):
        raise InvalidInput(f"{where}.attention", "expected true or false")
    item = require_id(entry["item"], f"{where}.item")
    return Control(topic=topics[entry["topic"]], item=item, answer=answer, attention=attention)


def _active_ms(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInput(where, "expected the active time in milliseconds: a whole number, 0 or more")
    return value


def _clean_members(members: Any) -> list[dict[str, Any]]:
    """Members as :func:`dump_campaign` writes them; imported crowd workers are
    restored only as accounts that cannot log in (never onto one that can)."""
    require_list(members, "file.members")
    for index, member in enumerate(members):
        path = f"file.members[{index}]"
        require_object(
            member,
            path,
            allowed={"username", "role", "imported", "model_judge", "paused_at", "pause_reason"},
            required={"username", "role"},
        )
        if "paused_at" in member:
            _moment(member["paused_at"], f"{path}.paused_at")
            if not isinstance(member.get("pause_reason", ""), str):
                raise InvalidInput(f"{path}.pause_reason", "expected text")
        require_username(member["username"], f"{path}.username")
        if member["role"] not in Membership.Role.values:
            raise InvalidInput(f"{path}.role", f"expected one of {', '.join(Membership.Role.values)}")
        for flag in ("imported", "model_judge"):
            if not isinstance(member.get(flag, False), bool):
                raise InvalidInput(f"{path}.{flag}", "expected true or false")
    imported = {m["username"]: f"file.members[{i}].username" for i, m in enumerate(members) if m.get("imported")}
    for account in User.objects.filter(username__in=list(imported)):
        if account.has_usable_password() or account.is_staff:
            raise InvalidInput(
                imported[account.username],
                f"{account.username!r} is an account that can log in here; an imported assessor is not restored onto it",
            )
    return members


def _keep_times(model, rows, originals: list[dict], *, updated: bool = False) -> None:
    """Revisions keep their original times (auto_now_add set them to now); ``updated``:
    a judgment revision's last save too (a backup from before drafts coalesced: its first)."""
    when = {r["version"]: r for r in originals if r.get("created_at")}
    for row in rows:
        if row.version in when:
            original = when[row.version]
            times = {"created_at": parse_datetime(original["created_at"])}
            if updated:
                times["updated_at"] = parse_datetime(original.get("updated_at") or original["created_at"])
            model.objects.filter(pk=row.pk).update(**times)


def _saves(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInput(field, "expected the number of saves the revision holds, a whole number >= 1")
    return value


def _draws(assignment: dict[str, Any], field: str) -> dict[str, float] | None:
    """An assignment's ``draws`` (the probability each of its items was drawn with, which the
    reports invert): absent, or each of its items to a number above 0 and at most 1."""
    draws = assignment.get("draws")
    if draws is None:
        return None
    items = assignment.get("items")
    listed = isinstance(items, list) and all(isinstance(item, str) for item in items)
    if not isinstance(draws, dict) or not listed or set(draws) != set(items):
        raise InvalidInput(field, "expected each of the assignment's items with the probability it was drawn with")
    for item, probability in draws.items():
        if isinstance(probability, bool) or not isinstance(probability, int | float) or not 0 < probability <= 1:
            raise InvalidInput(f"{field}.{item}", f"expected a probability above 0 and at most 1, got {probability!r}")
    return draws
