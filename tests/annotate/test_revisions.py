"""Draft revisions coalesce; everything else is kept (docs/api.md, "Judgment states").

Every draft kept a full revision: 5 factoid drafts of 8.6 MiB grew the database
by 60 MiB in 2 s. Drafts saved in a row from one client (a browser session or
an API token) by the same assessor now share one revision while its first save
is less than CONCORD_DRAFT_REVISION_SECONDS old; every submission, reopening and
withdrawal has its own, and a draft saved from elsewhere (the version a 409
merge prompt showed) is not replaced, up to DRAFT_REVISIONS_PER_WINDOW draft
revisions begun per judgment and window: the client is the sender's word.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from annotate.imports.write import import_topics
from annotate.models import REVISION_PAYLOAD, Judgment, JudgmentRevision
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import Conflict, reopen_judgment, save_judgment, withdraw_judgment
from annotate.services.members import add_member
from kinds.registry import KINDS

pytestmark = pytest.mark.django_db

ALL = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}


def draft(n: int) -> dict:
    return {"matches": {f"c{k}": k <= n for k in range(1, 5)}}


def history(topic, user) -> list[tuple]:
    return list(
        JudgmentRevision.objects.filter(judgment__topic=topic, judgment__assessor=user)
        .order_by("version")
        .annotate(payload_of=REVISION_PAYLOAD)
        .values_list("version", "status", "saves", "payload_of")
    )


def save(topic, user, payload, version, *, status="draft", client="session:one"):
    return save_judgment(
        topic=topic, assessor=user, payload=payload, status=status, version=version, client=client
    ).judgment


def test_drafts_in_a_row_from_one_client_share_one_revision(campaign, people):
    topic, alice = campaign.topics.first(), people["alice"]
    for version in range(5):
        judgment = save(topic, alice, draft(version % 4 + 1), version)
    assert judgment.version == 5
    assert history(topic, alice) == [(5, "draft", 5, draft(1))]
    revision = JudgmentRevision.objects.get(judgment=judgment, version=5)
    assert revision.created_at <= revision.updated_at and revision.client == "session:one"


def test_a_minute_later_a_draft_starts_a_new_revision(campaign, people, settings):
    topic, alice = campaign.topics.first(), people["alice"]
    save(topic, alice, draft(1), 0)
    save(topic, alice, draft(2), 1)
    JudgmentRevision.objects.filter(version=2).update(created_at=timezone.now() - timedelta(seconds=61))
    save(topic, alice, draft(3), 2)
    assert [row[:3] for row in history(topic, alice)] == [(2, "draft", 2), (3, "draft", 1)]
    settings.CONCORD_DRAFT_REVISION_SECONDS = 0  # every save its own revision
    save(topic, alice, draft(4), 3)
    assert len(history(topic, alice)) == 3


def test_submissions_reopenings_and_withdrawals_are_never_replaced(campaign, people):
    topic, alice = campaign.topics.first(), people["alice"]
    save(topic, alice, draft(1), 0)
    save(topic, alice, ALL, 1, status="submitted")
    reopen_judgment(topic=topic, assessor=alice, version=2)
    save(topic, alice, draft(2), 3)
    save(topic, alice, draft(3), 4)
    save(topic, alice, draft(4), 5)
    withdraw_judgment(topic=topic, assessor=alice, version=6, reason="wrong query")
    save(topic, alice, draft(1), 7)
    save(topic, alice, draft(2), 8)
    assert [row[:3] for row in history(topic, alice)] == [
        (2, "submitted", 2),  # the draft before it, from the same page, and the submission
        (3, "reopened", 1),  # the reopening itself
        (6, "reopened", 3),  # the three drafts on top
        (7, "withdrawn", 1),
        (9, "draft", 2),  # a new draft revision, not the withdrawal's
    ]
    judgment = Judgment.objects.get(topic=topic, assessor=alice)
    assert (judgment.version, judgment.payload) == (9, draft(2))


def test_a_submission_takes_over_the_run_of_drafts_it_ends(campaign, people):
    """The judging page saves drafts as the assessor works, then submits: one revision,
    the submitted one, dated by the submission (never by the run's first draft)."""
    topic, alice = campaign.topics.first(), people["alice"]
    for version in range(3):
        save(topic, alice, draft(version + 1), version)
    JudgmentRevision.objects.update(created_at=timezone.now() - timedelta(seconds=30))
    before = timezone.now()
    save(topic, alice, ALL, 3, status="submitted")
    assert history(topic, alice) == [(4, "submitted", 4, ALL)]
    revision = JudgmentRevision.objects.get()
    assert revision.created_at >= before and revision.client == ""
    reopen_judgment(topic=topic, assessor=alice, version=4)
    save(topic, alice, draft(1), 5)
    save(topic, alice, ALL, 6, status="submitted")
    assert reopen_judgment(topic=topic, assessor=alice, version=7).judgment.version == 8
    assert [row[:3] for row in history(topic, alice)] == [
        (4, "submitted", 4),
        (5, "reopened", 1),
        (7, "submitted", 2),
        (8, "reopened", 1),
    ]


def test_a_submission_from_elsewhere_or_later_keeps_the_draft_revision(campaign, people):
    topic, alice = campaign.topics.first(), people["alice"]
    save(topic, alice, draft(1), 0, client="session:laptop")
    save(topic, alice, ALL, 1, status="submitted", client="session:phone")
    assert [row[:3] for row in history(topic, alice)] == [(1, "draft", 1), (2, "submitted", 1)]
    bob = people["bob"]
    save(topic, bob, draft(1), 0)
    JudgmentRevision.objects.filter(judgment__assessor=bob).update(created_at=timezone.now() - timedelta(seconds=61))
    save(topic, bob, ALL, 1, status="submitted")
    assert [row[:3] for row in history(topic, bob)] == [(1, "draft", 1), (2, "submitted", 1)]


def test_a_draft_from_elsewhere_keeps_the_version_a_merge_prompt_showed(campaign, people):
    """Two devices: the laptop's draft v2 is what the phone's 409 merge prompt showed;
    "Keep mine" on the phone saves v3 on top of it. v2 stays in the history."""
    topic, alice = campaign.topics.first(), people["alice"]
    save(topic, alice, draft(1), 0, client="session:phone")
    save(topic, alice, draft(2), 1, client="session:laptop")
    with pytest.raises(Conflict):
        save(topic, alice, draft(3), 1, client="session:phone")
    save(topic, alice, draft(3), 2, client="session:phone")
    assert [row[:2] + (row[3],) for row in history(topic, alice)] == [
        (1, "draft", draft(1)),
        (2, "draft", draft(2)),
        (3, "draft", draft(3)),
    ]


def test_a_client_that_retries_gets_its_save_back_and_writes_nothing(campaign, people):
    topic, alice = campaign.topics.first(), people["alice"]
    save(topic, alice, draft(1), 0)
    save(topic, alice, draft(2), 1)
    replay = save_judgment(
        topic=topic, assessor=alice, payload=draft(2), status="draft", version=1, client="session:one"
    )
    assert replay.replayed and replay.judgment.version == 2
    assert [row[:3] for row in history(topic, alice)] == [(2, "draft", 2)]


def test_without_a_client_every_save_is_kept(campaign, people):
    topic, alice = campaign.topics.first(), people["alice"]
    for version in range(3):
        save(topic, alice, draft(version + 1), version, client="")
    assert [row[:3] for row in history(topic, alice)] == [(1, "draft", 1), (2, "draft", 1), (3, "draft", 1)]


def test_large_factoid_drafts_through_the_api_store_one_revision_not_five(people):
    """Five 8.6 MiB factoid drafts would be 60 MiB in 2 s: the payload is at
    most the kind's 4 MiB, and six drafts from one token store one revision."""
    kind = KINDS["factoids"]
    cap = kind.data.limits.lists
    data, payload = kind.examples.sized({**dict.fromkeys(cap, 1), "payload.factoids": cap["payload.factoids"]})
    payload["factoids"] = [{**f, "text": "t" * 900} for f in payload["factoids"]]
    size = len(json.dumps(payload, separators=(",", ":")))
    assert 1.5 * 2**20 < size <= kind.data.limits.payload_bytes
    campaign = create_campaign(creator=people["organiser"], kind="factoids", name="Big", overlap=1)
    add_member(campaign=campaign, username="alice", role="assessor")
    (topic,) = import_topics(campaign=campaign, topics=[{"external_id": "t1", "data": data}])
    token = Client().post("/api/auth/token/", {"username": "alice", "password": "pw-alice"}).json()["token"]
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    url = f"/api/campaigns/{campaign.pk}/topics/t1/judgment/"
    for version in range(6):
        payload["factoids"][0]["text"] = f"draft {version}"
        answer = api.put(url, {"payload": payload, "status": "draft", "version": version}, format="json")
        assert answer.status_code == 200, answer.content[:300]
    rows = list(
        JudgmentRevision.objects.filter(judgment__topic=topic)
        .annotate(payload_of=REVISION_PAYLOAD)
        .values_list("version", "saves", "payload_of")
    )
    assert [(v, n) for v, n, _ in rows] == [(6, 6)]
    assert rows[-1][2]["factoids"][0]["text"] == "draft 5"  # the last draft; the judgment holds it too


def test_a_draft_continued_after_phase_two_started_counts_as_a_phase_two_save(people):
    """Going back to Phase 1 is refused once anything was saved in Phase 2: a draft
    revision first saved before the start and continued after it is such a save."""
    from kinds.factoids import services as factoid_services
    from kinds.factoids.examples import EXAMPLES

    campaign = create_campaign(creator=people["organiser"], kind="factoids", name="Phases", overlap=1)
    add_member(campaign=campaign, username="alice", role="assessor")
    (topic,) = import_topics(campaign=campaign, topics=[{"external_id": "t1", "data": EXAMPLES.topic}])
    alice, payload = people["alice"], dict(EXAMPLES.payloads[0])
    save(topic, alice, payload, 0)
    campaign = factoid_services.start_phase_two(campaign=campaign)
    assert factoid_services.phase_two_saves(campaign) == []
    save(topic, alice, {**payload, "factoids": payload["factoids"][:1], "marks": {}}, 1)
    assert [row[:3] for row in history(topic, alice)] == [(2, "draft", 2)]
    assert factoid_services.phase_two_saves(campaign) == ["alice on t1"]
    assert factoid_services.phase_one_refusal(campaign) is not None


def test_a_backup_keeps_what_each_revision_holds(campaign, people):
    from annotate.imports.backup import dump_campaign, load_campaign

    topic, alice = campaign.topics.first(), people["alice"]
    for version in range(3):
        save(topic, alice, draft(version + 1), version)
    JudgmentRevision.objects.update(created_at=timezone.now() - timedelta(minutes=5))
    document = dump_campaign(campaign)
    (kept,) = [r for j in document["judgments"] for r in j["revisions"]]
    assert (kept["version"], kept["saves"]) == (3, 3) and kept["created_at"] < kept["updated_at"]
    campaign.delete()
    restored = load_campaign(document)
    (revision,) = JudgmentRevision.objects.filter(judgment__topic__campaign=restored)
    assert (revision.version, revision.saves, revision.client) == (3, 3, "")
    assert (revision.created_at.isoformat(), revision.updated_at.isoformat()) == (
        kept["created_at"],
        kept["updated_at"],
    )


def test_alternating_the_page_header_begins_at_most_three_revisions_a_minute(campaign, people):
    """The judging page's way (a session, X-Concord-Page), 600 drafts alternating
    the header: one revision per save without a cap (600 revisions, all their
    payloads stored); the judgment's 3 draft revisions of the minute hold them all."""
    topic, alice = campaign.topics.first(), people["alice"]
    browser = Client()
    browser.force_login(alice)
    url = f"/api/campaigns/{campaign.pk}/topics/{topic.external_id}/judgment/"
    for version in range(600):
        response = browser.put(
            url,
            {"payload": draft(version % 4 + 1), "status": "draft", "version": version},
            content_type="application/json",
            HTTP_X_CONCORD_PAGE=f"page-{version % 2}",
        )
        assert response.status_code == 200, response.content[:300]
    rows = history(topic, alice)
    assert [(v, s) for v, _, s, _ in rows] == [(1, 1), (2, 1), (600, 598)]
    assert rows[-1][3] == draft(599 % 4 + 1) == Judgment.objects.get(topic=topic, assessor=alice).payload


def test_past_three_revisions_a_draft_from_any_client_replaces_the_latest(campaign, people):
    topic, alice = campaign.topics.first(), people["alice"]
    for version, client in enumerate(["session:a", "session:b", "token:c", "session:a", "session:b"]):
        save(topic, alice, draft(version % 4 + 1), version, client=client)
    assert [row[:3] for row in history(topic, alice)] == [(1, "draft", 1), (2, "draft", 1), (5, "draft", 3)]
    assert JudgmentRevision.objects.get(version=5).client == "session:b"
    # A submission from elsewhere still has a revision of its own.
    save(topic, alice, ALL, 5, status="submitted", client="session:c")
    assert [row[:3] for row in history(topic, alice)][-1] == (6, "submitted", 1)


def test_a_minute_after_they_began_the_cap_lets_new_revisions_begin(campaign, people):
    topic, alice = campaign.topics.first(), people["alice"]
    for version in range(5):
        save(topic, alice, draft(version % 4 + 1), version, client=f"session:{version % 2}")
    assert len(history(topic, alice)) == 3
    JudgmentRevision.objects.update(created_at=timezone.now() - timedelta(seconds=61))
    for version in range(5, 10):
        save(topic, alice, draft(version % 4 + 1), version, client=f"session:{version % 2}")
    assert [row[:3] for row in history(topic, alice)] == [
        (1, "draft", 1),
        (2, "draft", 1),
        (5, "draft", 3),
        (6, "draft", 1),
        (7, "draft", 1),
        (10, "draft", 3),
    ]


def test_each_revision_keeps_its_payload_and_the_newest_shares_the_judgments(campaign, people):
    """The judgment's payload is stored once: its newest revision holds no copy, and the one
    before gets its copy when a new revision is made (JudgmentRevision.kept_payload)."""
    topic, alice = campaign.topics.first(), people["alice"]
    save(topic, alice, draft(1), 0)
    save(topic, alice, ALL, 1, status="submitted")
    reopen_judgment(topic=topic, assessor=alice, version=2)
    save(topic, alice, draft(2), 3)
    save(topic, alice, draft(4), 4)
    withdraw_judgment(topic=topic, assessor=alice, version=5, reason="wrong query")
    save(topic, alice, draft(3), 6)
    expected = [(2, ALL), (3, ALL), (5, draft(4)), (6, draft(4)), (7, draft(3))]
    assert [(version, payload) for version, _, _, payload in history(topic, alice)] == expected
    revisions = JudgmentRevision.objects.filter(judgment__topic=topic).order_by("version")
    assert [(r.version, r.payload) for r in revisions] == expected
    assert [r.version for r in revisions if r.kept_payload is None] == [7]
    save(topic, alice, draft(1), 7, client="")  # a new revision: the one before it gets its copy
    assert JudgmentRevision.objects.get(judgment__topic=topic, version=7).kept_payload == draft(3)
    assert JudgmentRevision.objects.get(judgment__topic=topic, version=8).payload == draft(1)


@pytest.mark.django_db(transaction=True)
def test_the_migration_drops_only_the_newest_revisions_copy(people):
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = [("annotate", "0015_judgment_held_payload")], [("annotate", "0016_judgmentrevision_kept_payload")]
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    try:
        executor.migrate(before)
        old = executor.loader.project_state(before).apps
        campaign = old.get_model("annotate", "Campaign").objects.create(kind="pairs", name="Old")
        topic = old.get_model("annotate", "Topic").objects.create(campaign=campaign, external_id="q1", data={})
        judgment = old.get_model("annotate", "Judgment").objects.create(
            topic=topic, assessor_id=people["alice"].pk, payload=draft(2), status="draft", version=2
        )
        revisions = old.get_model("annotate", "JudgmentRevision").objects
        revisions.create(judgment=judgment, version=1, payload=draft(1), status="draft")
        revisions.create(judgment=judgment, version=2, payload=draft(2), status="draft")
        executor = MigrationExecutor(connection)
        executor.migrate(after)
        new = executor.loader.project_state(after).apps.get_model("annotate", "JudgmentRevision")
        assert list(new.objects.order_by("version").values_list("version", "kept_payload")) == [
            (1, draft(1)),
            (2, None),
        ]
        executor = MigrationExecutor(connection)
        executor.migrate(before)
        back = executor.loader.project_state(before).apps.get_model("annotate", "JudgmentRevision")
        assert list(back.objects.order_by("version").values_list("version", "payload")) == [
            (1, draft(1)),
            (2, draft(2)),
        ]
    finally:
        MigrationExecutor(connection).migrate(latest)
