"""Judgment states: draft, submitted, reopened, withdrawn, and the only
transitions between them (annotate.services.judgments.TRANSITIONS; docs/api.md, "Judgment
states"). A refused transition is a 400 naming `status` that writes nothing;
reports read the submitted version, never the draft on top of it."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone

from annotate import selectors
from annotate.imports.backup import dump_campaign, load_campaign
from annotate.models import SUBMITTED_PAYLOAD, Campaign, Judgment, JudgmentRevision, Topic
from annotate.services.judgments import (
    TRANSITIONS,
    Conflict,
    NotAssigned,
    reopen_judgment,
    save_judgment,
    withdraw_judgment,
)
from concord.errors import InvalidInput
from scoring import selectors as scoring_selectors
from scoring.models import StaleTopic
from scoring.progress import assessor_progress

pytestmark = pytest.mark.django_db

FIRST = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}
SECOND = {"matches": {"c1": False, "c2": False, "c3": True, "c4": True}}
PARTIAL = {"matches": {"c1": True}}


def alice_topic(campaign, people) -> Topic:
    return Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).order_by("position").first()


def put(topic, user, payload, status, version):
    return save_judgment(topic=topic, assessor=user, payload=payload, status=status, version=version)


def reach(state: str, topic, user) -> int:
    """Bring the user's judgment of ``topic`` into ``state``; the version it is at."""
    if state == "new":
        return 0
    if state == "draft":
        return put(topic, user, PARTIAL, "draft", 0).judgment.version
    put(topic, user, FIRST, "submitted", 0)
    if state == "submitted":
        return 1
    if state == "reopened":
        return reopen_judgment(topic=topic, assessor=user, version=1).judgment.version
    assert state == "withdrawn"
    return withdraw_judgment(topic=topic, assessor=user, version=1, reason="duplicate").judgment.version


def act(action: str, topic, user, version: int):
    if action == "save":
        return put(topic, user, PARTIAL, "draft", version)
    if action == "submit":
        return put(topic, user, SECOND, "submitted", version)
    if action == "reopen":
        return reopen_judgment(topic=topic, assessor=user, version=version)
    return withdraw_judgment(topic=topic, assessor=user, version=version, reason="wrong topic")


def snapshot(topic, user):
    judgment = Judgment.objects.filter(topic=topic, assessor=user).first()
    row = None
    if judgment:
        row = (
            judgment.status,
            judgment.version,
            judgment.payload,
            judgment.submitted_payload,
            judgment.submitted_version,
            judgment.submitted_at,
        )
    return row, JudgmentRevision.objects.count(), list(StaleTopic.objects.values_list("topic_id", "revision"))


ALLOWED = {
    ("new", "save"): "draft",
    ("new", "submit"): "submitted",
    ("draft", "save"): "draft",
    ("draft", "submit"): "submitted",
    ("submitted", "reopen"): "reopened",
    ("reopened", "save"): "reopened",
    ("reopened", "submit"): "submitted",
    ("submitted", "withdraw"): "withdrawn",
    ("reopened", "withdraw"): "withdrawn",
    ("withdrawn", "save"): "draft",
}
STATES = ["new", "draft", "submitted", "reopened", "withdrawn"]
ACTIONS = ["save", "submit", "reopen", "withdraw"]
REFUSED = [(s, a) for s in STATES for a in ACTIONS if (s, a) not in ALLOWED]


def test_the_service_table_is_the_documented_one():
    assert {(str(s), a): str(t) for (s, a), t in TRANSITIONS.items()} == ALLOWED
    assert len(REFUSED) == 10


@pytest.mark.parametrize(("state", "action"), sorted(ALLOWED))
def test_every_allowed_transition(campaign, people, state, action):
    topic, alice = alice_topic(campaign, people), people["alice"]
    version = reach(state, topic, alice)
    result = act(action, topic, alice, version)
    judgment = Judgment.objects.get(pk=result.judgment.pk)
    assert judgment.status == ALLOWED[(state, action)]
    assert judgment.version == version + 1
    revision = judgment.revisions.get(version=judgment.version)
    assert (revision.status, revision.payload, revision.author) == (judgment.status, judgment.payload, alice)
    assert revision.reason == ("wrong topic" if action == "withdraw" else "")
    if judgment.status in ("submitted", "reopened"):
        assert judgment.submitted_payload is not None and judgment.submitted_at is not None
        assert judgment.revisions.get(version=judgment.submitted_version).payload == judgment.submitted_payload
    else:
        assert (judgment.submitted_payload, judgment.submitted_version, judgment.submitted_at) == (None, None, None)
    # the counting payload is stored apart only while a draft sits on top of it
    assert judgment.held_payload == (judgment.submitted_payload if judgment.status == "reopened" else None)
    counted = Judgment.objects.annotate(counted=SUBMITTED_PAYLOAD).values_list("counted", flat=True).get(pk=judgment.pk)
    assert counted == judgment.submitted_payload


def test_a_reopened_judgment_counts_what_was_submitted_while_its_draft_changes(campaign, people):
    topic, alice = alice_topic(campaign, people), people["alice"]
    put(topic, alice, FIRST, "submitted", 0)
    reopen_judgment(topic=topic, assessor=alice, version=1)
    put(topic, alice, SECOND, "draft", 2)
    judgment = Judgment.objects.get(topic=topic, assessor=alice)
    assert (judgment.payload, judgment.held_payload, judgment.submitted_payload) == (SECOND, FIRST, FIRST)
    assert [r.payload for r in scoring_selectors.submitted_judgments(campaign)] == [FIRST]
    put(topic, alice, SECOND, "submitted", 3)
    judgment.refresh_from_db()
    assert (judgment.held_payload, judgment.submitted_payload, judgment.submitted_version) == (None, SECOND, 4)
    assert [r.payload for r in scoring_selectors.submitted_judgments(campaign)] == [SECOND]


@pytest.mark.parametrize(("state", "action"), REFUSED)
def test_every_other_transition_is_refused_and_writes_nothing(campaign, people, state, action):
    topic, alice = alice_topic(campaign, people), people["alice"]
    version = reach(state, topic, alice)
    before = snapshot(topic, alice)
    with pytest.raises(InvalidInput) as error:
        act(action, topic, alice, version)
    assert error.value.field == "status"
    assert snapshot(topic, alice) == before


@pytest.mark.parametrize(
    ("state", "action", "message"),
    [
        ("submitted", "save", "this judgment is submitted and counts in the reports: reopen it first to edit it"),
        ("submitted", "submit", "this judgment is already submitted: reopen it first to change it"),
        ("withdrawn", "submit", "this judgment is withdrawn: save it as a draft first, then submit it"),
        ("reopened", "reopen", "this judgment is already reopened: save your draft or submit it"),
        ("draft", "reopen", "only a submitted judgment can be reopened; this one is draft"),
        ("new", "reopen", "only a submitted judgment can be reopened; this one is new"),
        (
            "draft",
            "withdraw",
            "only a submitted or reopened judgment can be withdrawn; this one is draft and does not count",
        ),
        (
            "withdrawn",
            "withdraw",
            "only a submitted or reopened judgment can be withdrawn; this one is withdrawn and does not count",
        ),
    ],
)
def test_a_refusal_says_what_to_do(campaign, people, state, action, message):
    topic, alice = alice_topic(campaign, people), people["alice"]
    version = reach(state, topic, alice)
    with pytest.raises(InvalidInput) as error:
        act(action, topic, alice, version)
    assert error.value.message == message


def test_a_stale_version_is_a_conflict_for_reopen_and_withdraw(campaign, people):
    topic, alice = alice_topic(campaign, people), people["alice"]
    put(topic, alice, PARTIAL, "draft", 0)
    put(topic, alice, FIRST, "submitted", 1)
    before = snapshot(topic, alice)
    with pytest.raises(Conflict) as error:
        reopen_judgment(topic=topic, assessor=alice, version=0)
    assert error.value.current_version == 2
    with pytest.raises(Conflict):
        withdraw_judgment(topic=topic, assessor=alice, version=3)
    assert snapshot(topic, alice) == before


def test_a_retried_reopen_or_withdraw_is_a_replay(campaign, people):
    topic, alice = alice_topic(campaign, people), people["alice"]
    put(topic, alice, FIRST, "submitted", 0)
    reopen_judgment(topic=topic, assessor=alice, version=1)
    again = reopen_judgment(topic=topic, assessor=alice, version=1)
    assert again.replayed and again.judgment.version == 2
    withdraw_judgment(topic=topic, assessor=alice, version=2, reason="oops")
    again = withdraw_judgment(topic=topic, assessor=alice, version=2, reason="oops")
    assert again.replayed and again.judgment.version == 3
    assert JudgmentRevision.objects.filter(judgment=again.judgment).count() == 3
    # Another reason is not a repeat: the version is stale.
    with pytest.raises(Conflict):
        withdraw_judgment(topic=topic, assessor=alice, version=2, reason="other")


def test_only_the_assigned_assessor_reopens_or_withdraws(campaign, people):
    topic = alice_topic(campaign, people)
    put(topic, people["alice"], FIRST, "submitted", 0)
    with pytest.raises(NotAssigned):
        reopen_judgment(topic=topic, assessor=people["carol"], version=1)
    with pytest.raises(NotAssigned):
        withdraw_judgment(topic=topic, assessor=people["carol"], version=1)


def rows(campaign):
    return [(r.topic_id, r.assessor, r.payload) for r in scoring_selectors.submitted_judgments(campaign)]


def test_reports_count_the_submitted_version_until_resubmitted_and_never_a_withdrawn_one(campaign, people):
    topic, alice = alice_topic(campaign, people), people["alice"]
    put(topic, alice, FIRST, "submitted", 0)
    assert rows(campaign) == [(topic.pk, "alice", FIRST)]
    reopen_judgment(topic=topic, assessor=alice, version=1)
    put(topic, alice, SECOND, "draft", 2)
    judgment = Judgment.objects.get(topic=topic, assessor=alice)
    assert (judgment.status, judgment.payload, judgment.submitted_version) == ("reopened", SECOND, 1)
    assert rows(campaign) == [(topic.pk, "alice", FIRST)]
    given = scoring_selectors.report_input(campaign)
    assert [r.payload for r in given.judgments_of(topic)] == [FIRST]
    assert given.phase_payloads(2) == {(topic.pk, "alice"): FIRST}
    put(topic, alice, SECOND, "submitted", 3)
    assert rows(campaign) == [(topic.pk, "alice", SECOND)]
    assert Judgment.objects.get(pk=judgment.pk).submitted_version == 4
    withdraw_judgment(topic=topic, assessor=alice, version=4, reason="I misread the query")
    assert rows(campaign) == []
    assert scoring_selectors.report_input(campaign).judgments == []
    revision = JudgmentRevision.objects.get(judgment=judgment, version=5)
    assert (revision.status, revision.reason, revision.payload) == ("withdrawn", "I misread the query", SECOND)
    # Saved again it is a draft, and still does not count.
    put(topic, alice, SECOND, "draft", 5)
    assert Judgment.objects.get(pk=judgment.pk).status == "draft" and rows(campaign) == []


def test_withdrawing_a_reopened_judgment_removes_it_from_the_reports(campaign, people):
    topic, alice = alice_topic(campaign, people), people["alice"]
    put(topic, alice, FIRST, "submitted", 0)
    put(topic, people["bob"], SECOND, "submitted", 0)
    reopen_judgment(topic=topic, assessor=alice, version=1)
    withdraw_judgment(topic=topic, assessor=alice, version=2)
    assert rows(campaign) == [(topic.pk, "bob", SECOND)]
    assert JudgmentRevision.objects.get(judgment__assessor=people["alice"], version=3).reason == ""


def test_topics_are_marked_stale_only_when_what_counts_changes(campaign, people):
    topic, alice = alice_topic(campaign, people), people["alice"]

    def marks():
        marked = list(StaleTopic.objects.values_list("topic_id", flat=True))
        StaleTopic.objects.all().delete()
        return marked

    put(topic, alice, PARTIAL, "draft", 0)
    assert marks() == []
    put(topic, alice, FIRST, "submitted", 1)
    assert marks() == [topic.pk]
    reopen_judgment(topic=topic, assessor=alice, version=2)
    assert marks() == []
    put(topic, alice, SECOND, "draft", 3)
    assert marks() == []
    put(topic, alice, SECOND, "submitted", 4)
    assert marks() == [topic.pk]
    withdraw_judgment(topic=topic, assessor=alice, version=5)
    assert marks() == [topic.pk]
    put(topic, alice, SECOND, "draft", 6)
    assert marks() == []


def test_reason_is_optional_text_of_at_most_2000_characters(campaign, people):
    topic, alice = alice_topic(campaign, people), people["alice"]
    put(topic, alice, FIRST, "submitted", 0)
    before = snapshot(topic, alice)
    for reason, message in (("x" * 2001, "longer than 2000 characters"), (["no"], "expected a string, got a list")):
        with pytest.raises(InvalidInput) as error:
            withdraw_judgment(topic=topic, assessor=alice, version=1, reason=reason)
        assert (error.value.field, error.value.message) == ("reason", message)
    assert snapshot(topic, alice) == before
    withdraw_judgment(topic=topic, assessor=alice, version=1, reason="  " + "y" * 2000 + " ")
    assert JudgmentRevision.objects.get(version=2).reason == "y" * 2000


def test_queue_and_progress_count_reopened_as_submitted_and_withdrawn_as_not(campaign, people):
    alice = people["alice"]
    first, second, third = Topic.objects.filter(campaign=campaign, assignments__assessor=alice).order_by("position")
    put(first, alice, FIRST, "submitted", 0)
    reopen_judgment(topic=first, assessor=alice, version=1)
    put(second, alice, FIRST, "submitted", 0)
    withdraw_judgment(topic=second, assessor=alice, version=1)
    put(third, alice, FIRST, "submitted", 0)
    queue = next(q for q in selectors.assessor_queues(alice) if q.campaign.pk == campaign.pk)
    assert [e.status for e in queue.entries] == ["reopened", "withdrawn", "submitted"]
    assert (queue.submitted, queue.percent, queue.next_topic) == (2, 67, second)
    progress = {p.username: p for p in assessor_progress(campaign)}
    alice_row = progress["alice"]
    assert (alice_row.assigned, alice_row.drafts, alice_row.submitted) == (3, 1, 2)
    assert (alice_row.reopened, alice_row.withdrawn) == (1, 1)
    assessed = dict(selectors.topic_assignments(campaign)[0][1])
    assert assessed["alice"] == "reopened"


# -- over HTTP ------------------------------------------------------------------------------


@pytest.fixture
def alice_api(api, people, campaign):
    topic = alice_topic(campaign, people)
    return api(people["alice"]), f"/api/campaigns/{campaign.pk}/topics/{topic.external_id}/judgment/", topic


def test_put_draft_on_a_submitted_judgment_is_a_400_naming_status(alice_api, people):
    client, url, topic = alice_api
    assert client.put(url, {"payload": FIRST, "status": "submitted", "version": 0}, format="json").status_code == 200
    before = snapshot(topic, people["alice"])
    response = client.put(url, {"payload": SECOND, "status": "draft", "version": 1}, format="json")
    assert response.status_code == 400
    assert response.json() == {
        "detail": "this judgment is submitted and counts in the reports: reopen it first to edit it",
        "field": "status",
    }
    assert snapshot(topic, people["alice"]) == before
    response = client.put(url, {"payload": SECOND, "status": "reopened", "version": 1}, format="json")
    assert (response.status_code, response.json()["field"]) == (400, "status")


def test_reopen_and_withdraw_over_http(alice_api, people):
    client, url, topic = alice_api
    client.put(url, {"payload": FIRST, "status": "submitted", "version": 0}, format="json")
    body = client.get(url).json()
    assert (body["status"], body["submitted_version"], body["submitted_payload"], body["draft_differs"]) == (
        "submitted",
        1,
        FIRST,
        False,
    )
    response = client.post(url + "reopen/", {"version": 1}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["version"], body["submitted_version"], body["draft_differs"], body["replayed"]) == (
        "reopened",
        2,
        1,
        False,
        False,
    )
    body = client.put(url, {"payload": SECOND, "status": "draft", "version": 2}, format="json").json()
    assert (body["status"], body["version"], body["payload"], body["submitted_payload"], body["draft_differs"]) == (
        "reopened",
        3,
        SECOND,
        FIRST,
        True,
    )
    stale = client.post(url + "withdraw/", {"version": 2, "reason": "x"}, format="json")
    assert (stale.status_code, stale.json()["current_version"]) == (409, 3)
    long = client.post(url + "withdraw/", {"version": 3, "reason": "x" * 2001}, format="json")
    assert (long.status_code, long.json()["field"]) == (400, "reason")
    extra = client.post(url + "withdraw/", {"version": 3, "status": "withdrawn"}, format="json")
    assert (extra.status_code, extra.json()["field"]) == (400, "body.status")
    response = client.post(url + "withdraw/", {"version": 3, "reason": "Assessed the wrong query."}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["version"], body["submitted_version"], body["submitted_payload"]) == (
        "withdrawn",
        4,
        None,
        None,
    )
    assert JudgmentRevision.objects.get(version=4).reason == "Assessed the wrong query."
    listed = client.get(url.replace(f"topics/{topic.external_id}/judgment/", "judgments/")).json()
    assert [(j["topic"], j["status"]) for j in listed] == [(topic.external_id, "withdrawn")]


def test_reopen_needs_a_submitted_judgment_and_an_assignment(alice_api, api, people):
    client, url, _ = alice_api
    response = client.post(url + "reopen/", {"version": 0}, format="json")
    assert response.status_code == 400
    assert response.json() == {
        "detail": "only a submitted judgment can be reopened; this one is new",
        "field": "status",
    }
    organiser = api(people["organiser"])
    assert organiser.post(url + "reopen/", {"version": 0}, format="json").status_code == 403
    assert not Judgment.objects.exists()


def test_the_schema_documents_reopen_and_withdraw(api, people):
    answer = api(people["alice"]).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    schema = json.loads(answer.content)
    paths = schema["paths"]
    base = "/api/campaigns/{campaign_id}/topics/{topic_id}/judgment/"
    assert set(paths[base + "reopen/"]) >= {"post"} and set(paths[base + "withdraw/"]) >= {"post"}
    judgment = schema["components"]["schemas"]["Judgment"]["properties"]
    assert {"submitted_version", "submitted_payload", "draft_differs"} <= set(judgment)


# -- where judgments are copied: backups, factoids' phase 1 ---------------------------------


def test_a_backup_keeps_the_counting_version_and_the_reason(campaign, people):
    topic, alice = alice_topic(campaign, people), people["alice"]
    put(topic, alice, FIRST, "submitted", 0)
    reopen_judgment(topic=topic, assessor=alice, version=1)
    put(topic, alice, SECOND, "draft", 2)
    put(topic, people["bob"], FIRST, "submitted", 0)
    withdraw_judgment(topic=topic, assessor=people["bob"], version=1, reason="tired")
    document = dump_campaign(campaign)
    restored = load_campaign(document)
    copies = {
        j.assessor.username: (j.status, j.payload, j.submitted_payload, j.submitted_version)
        for j in Judgment.objects.filter(topic__campaign=restored)
    }
    assert copies == {"alice": ("reopened", SECOND, FIRST, 1), "bob": ("withdrawn", FIRST, None, None)}
    assert JudgmentRevision.objects.get(judgment__topic__campaign=restored, version=2, status="withdrawn").reason == (
        "tired"
    )
    # A backup from before judgment states: a submitted judgment counts as it is.
    for entry in document["judgments"]:
        entry.pop("submitted_payload"), entry.pop("submitted_version")
        entry["status"] = "submitted" if entry["assessor"] == "alice" else "draft"
    document["campaign"]["name"] = "Older"
    older = load_campaign(document)
    assert [(r.assessor, r.payload) for r in scoring_selectors.submitted_judgments(older)] == [("alice", SECOND)]
    # A submitted judgment counts its payload: a file saying otherwise is refused, naming where.
    document["campaign"]["name"] = "Contradictory"
    entry = next(e for e in document["judgments"] if e["assessor"] == "alice")
    entry["submitted_payload"], entry["submitted_version"] = FIRST, entry["version"]
    with pytest.raises(InvalidInput) as refused:
        load_campaign(document)
    assert refused.value.field.endswith(".submitted_payload")
    assert not Campaign.objects.filter(name="Contradictory").exists()


def test_phase_one_leaves_out_a_judgment_withdrawn_before_phase_two(campaign, people):
    topic, alice, bob = alice_topic(campaign, people), people["alice"], people["bob"]
    put(topic, alice, FIRST, "submitted", 0)
    put(topic, bob, SECOND, "submitted", 0)
    withdraw_judgment(topic=topic, assessor=bob, version=1)
    campaign.params = {**campaign.params, "phase2_started_at": timezone.now().isoformat()}
    assert scoring_selectors.phase_payloads(campaign, 1) == {(topic.pk, "alice"): FIRST}


# -- the data migration ---------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_migration_makes_every_submitted_judgment_count_as_it_is(people):
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = [("annotate", "0004_membership_imported")], [("annotate", "0005_judgment_states")]
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    try:
        _judgments_across_the_migration(people, executor, before, after)
    finally:
        # Every later test (the transactional ones run last) needs the latest schema.
        MigrationExecutor(connection).migrate(latest)


def _judgments_across_the_migration(people, executor, before, after) -> None:
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    campaign = old.get_model("annotate", "Campaign").objects.create(kind="pairs", name="Old")
    topic = old.get_model("annotate", "Topic").objects.create(campaign=campaign, external_id="q1", data={})
    OldJudgment = old.get_model("annotate", "Judgment")
    OldJudgment.objects.create(
        topic=topic, assessor_id=people["alice"].pk, payload=FIRST, status="submitted", version=3
    )
    OldJudgment.objects.create(topic=topic, assessor_id=people["bob"].pk, payload=PARTIAL, status="draft", version=2)
    executor = MigrationExecutor(connection)
    executor.migrate(after)
    new = executor.loader.project_state(after).apps.get_model("annotate", "Judgment")
    assert sorted(
        new.objects.values_list("assessor__username", "status", "submitted_payload", "submitted_version")
    ) == [
        ("alice", "submitted", FIRST, 3),
        ("bob", "draft", None, None),
    ]


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_a_second_copy_only_of_a_reopened_judgment(people):
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = [("annotate", "0014_membership_model_judge")], [("annotate", "0015_judgment_held_payload")]
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    try:
        executor.migrate(before)
        old = executor.loader.project_state(before).apps
        campaign = old.get_model("annotate", "Campaign").objects.create(kind="pairs", name="Old")
        topic = old.get_model("annotate", "Topic").objects.create(campaign=campaign, external_id="q1", data={})
        made = old.get_model("annotate", "Judgment").objects
        made.create(
            topic=topic, assessor_id=people["alice"].pk, payload=FIRST, status="submitted", version=1,
            submitted_payload=FIRST, submitted_version=1,
        )  # fmt: skip
        made.create(
            topic=topic, assessor_id=people["bob"].pk, payload=SECOND, status="reopened", version=3,
            submitted_payload=FIRST, submitted_version=1,
        )  # fmt: skip
        executor = MigrationExecutor(connection)
        executor.migrate(after)
        new = executor.loader.project_state(after).apps.get_model("annotate", "Judgment")
        rows = new.objects.order_by("assessor__username").values_list("status", "payload", "held_payload")
        assert list(rows) == [("submitted", FIRST, None), ("reopened", SECOND, FIRST)]
        executor = MigrationExecutor(connection)
        executor.migrate(before)  # and back: each counting judgment's payload in the old column again
        old = executor.loader.project_state(before).apps.get_model("annotate", "Judgment")
        rows = old.objects.order_by("assessor__username").values_list("status", "submitted_payload")
        assert list(rows) == [("submitted", FIRST), ("reopened", FIRST)]
    finally:
        MigrationExecutor(connection).migrate(latest)
