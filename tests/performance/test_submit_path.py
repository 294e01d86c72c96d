"""The submit path: exactly how many queries a submit and a
draft PUT of every kind cost, token-authenticated as a script calls them; the
fast answer equals the serializer's; the judgments of a campaign are read
through their topics' index, not by scanning every judgment of the database."""

from __future__ import annotations

import sqlite3

import pytest
from django.db import connection, transaction
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from annotate.api.serializers import JudgmentSerializer, judgment_body
from annotate.imports.write import import_topics
from annotate.models import SUBMITTED_PAYLOAD, Campaign, Judgment, Topic
from annotate.selectors import judging_target
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import _locked_judgment, reopen_judgment, save_judgment, withdraw_judgment
from annotate.services.members import add_member
from concord import tokens
from kinds.registry import KINDS
from scoring.models import ScoringState
from scoring.selectors import submitted_judgments

pytestmark = pytest.mark.django_db

#: The enqueue of a recompute stays in memory: what is counted is the request's own queries.
IN_MEMORY_TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend", "QUEUES": []}}

# Inside the test's transaction, so each atomic block is a SAVEPOINT and a RELEASE:
# token + user (1), campaign + role + topic + assignment (1), SAVEPOINT, the judgment
# (none yet), the assignment's items, its INSERT (ON CONFLICT DO NOTHING: a racing first
# save inserts nothing and is a conflict), the topic's progress mark (a draft begun moves
# the progress counts: scoring/progress_sums.py; one upsert, no rebuild asked for), the
# revision, RELEASE.
DRAFT_QUERIES = 9
# The same up to the judgment, read with its assignment's items in one query; then its
# UPDATE, the revision (an UPDATE: the submission takes over the draft's revision from the
# same token, and returns its id for the stale mark), the stale mark, the campaign's
# recompute flag (one upsert, in the same transaction), RELEASE.
SUBMIT_QUERIES = 9
# A first save that is a submit: the judgment (none), the assignment's items, its INSERT,
# the revision's INSERT, the stale mark, the recompute flag.
FIRST_SUBMIT_QUERIES = 10


def token_client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {tokens.issue(user)[1]}")
    return client


def kind_campaign(kind: str, people, make_user):
    examples = KINDS[kind].examples
    campaign = create_campaign(
        creator=people["organiser"], kind=kind, name=f"Q {kind}", overlap=1, params=dict(examples.params)
    )
    assessor = make_user(f"q-{kind}")
    add_member(campaign=campaign, username=assessor.username, role="assessor")
    import_topics(campaign=campaign, topics=[{"external_id": f"t{i}", "data": dict(examples.topic)} for i in (1, 2)])
    return campaign, assessor, dict(examples.payloads[0])


def put(client, url: str, body: dict) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.put(url, body, format="json")
    assert response.status_code == 200, response.content
    return len(queries)


@override_settings(TASKS=IN_MEMORY_TASKS)
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_draft_and_a_submit_cost_exactly_so_many_queries(kind, people, make_user):
    campaign, assessor, payload = kind_campaign(kind, people, make_user)
    client = token_client(assessor)
    url = f"/api/campaigns/{campaign.pk}/topics/t1/judgment/"
    ScoringState.objects.filter(campaign=campaign).update(pending=False)
    assert put(client, url, {"payload": payload, "status": "draft", "version": 0}) == DRAFT_QUERIES
    assert put(client, url, {"payload": payload, "status": "submitted", "version": 1}) == SUBMIT_QUERIES
    assert ScoringState.objects.get(campaign=campaign).pending is True
    # A first save that is a submit finds the flag set (a recompute is queued), which costs
    # the same one statement.
    url = f"/api/campaigns/{campaign.pk}/topics/t2/judgment/"
    assert put(client, url, {"payload": payload, "status": "submitted", "version": 0}) == FIRST_SUBMIT_QUERIES


def test_the_answer_is_the_serializers(people, campaign):
    topic = campaign.topics.get(external_id="q1")
    alice = people["alice"]
    full = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}
    save_judgment(topic=topic, assessor=alice, payload={"matches": {"c1": True}}, status="draft", version=0)
    save_judgment(topic=topic, assessor=alice, payload=full, status="submitted", version=1)
    reopen_judgment(topic=topic, assessor=alice, version=2)
    save_judgment(topic=topic, assessor=alice, payload={"matches": {"c1": False}}, status="draft", version=3)
    judgment = Judgment.objects.get(topic=topic, assessor=alice)
    judgment.active_ms = 1234
    judgment.submitted_at = timezone.now().replace(microsecond=0)
    body = judgment_body(judgment)
    assert body == dict(JudgmentSerializer(judgment).data)
    assert body["status"] == "reopened" and body["draft_differs"] is True and body["submitted_version"] == 2
    withdraw_judgment(topic=topic, assessor=alice, version=4)
    judgment = Judgment.objects.get(topic=topic, assessor=alice)
    assert judgment_body(judgment) == dict(JudgmentSerializer(judgment).data)
    assert judgment_body(judgment)["submitted_at"] is None


def test_the_api_answers_the_same_through_the_fast_path(people, campaign):
    client = token_client(people["alice"])
    url = f"/api/campaigns/{campaign.pk}/topics/q1/judgment/"
    full = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}
    saved = client.put(url, {"payload": full, "status": "submitted", "version": 0}, format="json").json()
    judgment = Judgment.objects.get(topic__campaign=campaign, topic__external_id="q1", assessor=people["alice"])
    assert saved == {**JudgmentSerializer(judgment).data, "replayed": False}
    assert client.get(url).json() == dict(JudgmentSerializer(judgment).data)


def test_a_campaigns_counting_judgments_are_read_through_its_topics(campaign):
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's query plan")
    query = Judgment.objects.filter(topic__campaign=campaign, status__in=Judgment.COUNTING).order_by(
        "topic_id", "assessor__username"
    )
    counted = query.annotate(counted=SUBMITTED_PAYLOAD)
    sql, params = counted.values_list("topic_id", "assessor__username", "counted").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN QUERY PLAN " + sql, params)
        plan = [row[-1] for row in cursor.fetchall()]
    judgments = next(step for step in plan if "annotate_judgment" in step)
    assert "(topic_id=? AND status=?)" in judgments, plan
    assert submitted_judgments(campaign) == []
    assert sqlite3.sqlite_version_info >= (3, 35)  # RETURNING, which scoring.schedule.claim uses


def test_the_save_paths_reads_equal_the_orms(people, campaign):
    """The rows the save path reads with its own SQL (concord/rawrows.py) come out as the ORM
    reads them: every column of the judgment (JSON, datetimes, a held payload), the topic and
    its campaign."""
    topic = campaign.topics.get(external_id="q1")
    alice = people["alice"]
    full = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}
    save_judgment(topic=topic, assessor=alice, payload=full, status="submitted", version=0, active_ms=1500)
    reopen_judgment(topic=topic, assessor=alice, version=1)
    save_judgment(topic=topic, assessor=alice, payload={"matches": {"c1": False}}, status="draft", version=2)
    with transaction.atomic():
        read = _locked_judgment(topic, alice)
    stored = Judgment.objects.get(topic=topic, assessor=alice)
    fields = [f.attname for f in Judgment._meta.concrete_fields]
    assert [getattr(read, f) for f in fields] == [getattr(stored, f) for f in fields]
    assert read.held_payload == full and read.submitted_at is not None and read.active_ms == 1500
    found, role, target = judging_target(alice, campaign.pk, "q1")
    assert role == "assessor" and target.campaign is found
    for model, ours, theirs in ((Topic, target, topic), (Campaign, found, Campaign.objects.get(pk=campaign.pk))):
        names = [f.attname for f in model._meta.concrete_fields]
        assert [getattr(ours, n) for n in names] == [getattr(theirs, n) for n in names]
