"""The rows a report copies from its first topics in order (clustering's and factoids' first
pairs of judges: ``RunningSums.listed``), rebuilt from the running sums: the topics are found
from the pair counts stored with the partials (``TopicPartial.listed``), a window of them in
(position, id) order, so the rows follow the topics as they stand now, whatever changed
between rebuilds (a topic reordered or deleted behind the services' back, a topic left with no
pair), and a rebuild reads the same few rows whatever the campaign's size."""

from __future__ import annotations

import copy
import importlib

import msgpack
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotate.imports.write import import_topics
from annotate.models import Assignment, Judgment, Topic
from annotate.services.judgments import reopen_judgment, save_judgment, withdraw_judgment
from kinds.registry import KINDS
from scoring import jobs, sums
from scoring.models import Report, TopicPartial
from tests.scoring.test_incremental import build

pytestmark = pytest.mark.django_db

LISTING_KINDS = sorted(name for name, kind in KINDS.items() if kind.reports.sums and kind.reports.sums.listed)


def test_clustering_and_factoids_list_their_first_pairs():
    assert LISTING_KINDS == ["clustering", "factoids"]


def few_rows(monkeypatch, kind: str, rows: int) -> None:
    """The report lists ``rows`` pairs (its kind's ``LIVE_PAIRS``), so that the first topic's fill them."""
    monkeypatch.setattr(importlib.import_module(f"kinds.{kind}.partials"), "LIVE_PAIRS", rows)


def submit_every_assignment(campaign) -> None:
    payloads = KINDS[campaign.kind].examples.payloads
    assignments = Assignment.objects.filter(topic__campaign=campaign).select_related("topic", "assessor")
    for k, assignment in enumerate(assignments.order_by("topic__position", "topic_id", "assessor_id")):
        save_judgment(
            topic=assignment.topic,
            assessor=assignment.assessor,
            payload=copy.deepcopy(dict(payloads[k % len(payloads)])),
            status="submitted",
            version=0,
        )


def resubmit(campaign, external_id: str) -> None:
    """One assessor of the topic reopens their judgment and submits the kind's other example payload."""
    payloads = KINDS[campaign.kind].examples.payloads
    topic = campaign.topics.get(external_id=external_id)
    judgment = Judgment.objects.filter(topic=topic).order_by("assessor_id").first()
    reopen_judgment(topic=topic, assessor=judgment.assessor, version=judgment.version)
    judgment.refresh_from_db()
    payload = payloads[1] if judgment.submitted_payload == payloads[0] else payloads[0]
    save_judgment(
        topic=topic, assessor=judgment.assessor, payload=dict(payload), status="submitted", version=judgment.version
    )


def judged(people, make_user, kind: str):
    campaign = build(people, make_user, kind)
    submit_every_assignment(campaign)
    jobs.recompute_reports(campaign.pk)
    return campaign


def listed_topics(campaign) -> list[str]:
    return list(
        dict.fromkeys(row["topic"] for row in Report.objects.get(campaign=campaign, name="agreement").data["pairs"])
    )


def from_sums(campaign) -> bool:
    """Whether the campaign's last rebuild was from the running sums (it stored them, not the fits)."""
    stored = dict(Report.objects.filter(campaign=campaign).values_list("name", "computed_at"))
    return stored[sums.SUMS] > stored[sums.FITS]


@pytest.mark.parametrize("kind", LISTING_KINDS)
def test_a_topic_moved_behind_the_services_back_is_listed_where_it_stands(monkeypatch, people, make_user, kind):
    few_rows(monkeypatch, kind, 1)
    campaign = judged(people, make_user, kind)
    assert listed_topics(campaign) == ["t1"]
    # the admin edits a position and marks nothing: the next rebuild lists the topics as they stand
    Topic.objects.filter(campaign=campaign, external_id="t1").update(position=100)
    resubmit(campaign, "t3")
    jobs.recompute_reports(campaign.pk)
    assert from_sums(campaign)
    assert listed_topics(campaign) == ["t2"]
    assert jobs.check_reports(campaign) == []


@pytest.mark.parametrize("kind", LISTING_KINDS)
def test_a_first_topic_left_with_no_pair_is_listed_no_more(monkeypatch, people, make_user, kind):
    few_rows(monkeypatch, kind, 1)
    campaign = judged(people, make_user, kind)
    topic = campaign.topics.get(external_id="t1")
    assert TopicPartial.objects.get(topic=topic).listed > 0
    for judgment in Judgment.objects.filter(topic=topic).order_by("assessor_id")[1:]:
        withdraw_judgment(topic=topic, assessor=judgment.assessor, version=judgment.version, reason="test")
    jobs.recompute_reports(campaign.pk)
    assert from_sums(campaign)
    assert TopicPartial.objects.get(topic=topic).listed == 0
    assert listed_topics(campaign) == ["t2"]
    assert jobs.check_reports(campaign) == []


@pytest.mark.parametrize("kind", LISTING_KINDS)
def test_a_listed_topic_deleted_behind_the_services_back_is_listed_no_more(monkeypatch, people, make_user, kind):
    few_rows(monkeypatch, kind, 1)
    campaign = judged(people, make_user, kind)
    Topic.objects.filter(campaign=campaign, external_id="t1").delete()
    resubmit(campaign, "t3")
    jobs.recompute_reports(campaign.pk)
    assert listed_topics(campaign) == ["t2"]
    assert jobs.check_reports(campaign) == []


@pytest.mark.parametrize("kind", LISTING_KINDS)
def test_partials_stored_without_their_count_are_computed_again(people, make_user, kind):
    campaign = judged(people, make_user, kind)
    TopicPartial.objects.filter(campaign=campaign).update(listed=None)
    resubmit(campaign, "t3")
    jobs.recompute_reports(campaign.pk)
    assert not from_sums(campaign)
    assert not TopicPartial.objects.filter(campaign=campaign, listed__isnull=True).exists()
    assert jobs.check_reports(campaign) == []


def rebuild_after_one_change(campaign, external_id: str) -> tuple[list[str], int]:
    """The statements of a rebuild from the sums after a change to ``external_id``, and how
    many stored partials it decoded."""
    resubmit(campaign, external_id)
    with (
        CaptureQueriesContext(connection) as queries,
        pytest.MonkeyPatch.context() as patch,
    ):
        decoded = []
        patch.setattr(jobs, "_partial_bytes", lambda data, read=jobs._partial_bytes: decoded.append(1) or read(data))
        jobs.recompute_reports(campaign.pk)
    assert from_sums(campaign)
    return [q["sql"] for q in queries.captured_queries], len(decoded)


def stored_sums_bytes(campaign) -> int:
    return len(msgpack.packb(Report.objects.get(campaign=campaign, name=sums.SUMS).data["sums"]))


@pytest.mark.parametrize("kind", LISTING_KINDS)
def test_a_rebuild_reads_a_window_of_the_counts_whatever_the_campaigns_size(monkeypatch, people, make_user, kind):
    few_rows(monkeypatch, kind, 2)
    campaign = judged(people, make_user, kind)
    small, small_decoded = rebuild_after_one_change(campaign, "t4")
    small_sums = stored_sums_bytes(campaign)
    # as many topics again, judged, after the first ones: a full rebuild takes them in
    examples = KINDS[kind].examples
    import_topics(
        campaign=campaign,
        topics=[{"external_id": f"u{k}", "data": copy.deepcopy(dict(examples.topic))} for k in range(1, 5)],
    )
    payloads = examples.payloads
    for k, assignment in enumerate(
        Assignment.objects.filter(topic__campaign=campaign, topic__external_id__startswith="u").select_related(
            "topic", "assessor"
        )
    ):
        save_judgment(
            topic=assignment.topic,
            assessor=assignment.assessor,
            payload=copy.deepcopy(dict(payloads[k % len(payloads)])),
            status="submitted",
            version=0,
        )
    jobs.recompute_reports(campaign.pk, everything=True)
    assert TopicPartial.objects.filter(campaign=campaign, listed__gt=0).count() == 8
    large, large_decoded = rebuild_after_one_change(campaign, "u4")
    # the changed topic's old partial, and the stored partials of the topics whose pairs make the rows
    assert small_decoded == large_decoded == 2
    # the sums hold nothing per topic: as many bytes at 8 topics as at 4 (counts below 128)
    assert stored_sums_bytes(campaign) == small_sums
    assert len(small) == len(large)
    # the stored counts are read in a window of LIVE_PAIRS rows (each listed topic gives a row
    # at least), in the order of an index: the database stops at the window's last row
    window = [sql for sql in large if sql.startswith('SELECT "annotate_topic"') and '"listed"' in sql]
    assert len(window) == 1 and window[0].endswith("LIMIT 2")
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute(f"EXPLAIN QUERY PLAN {window[0]}")
            plan = " ".join(str(step[-1]) for step in cursor.fetchall())
        assert "USING INDEX topic_order" in plan and "TEMP B-TREE" not in plan
    assert listed_topics(campaign) == ["t1"]
    assert jobs.check_reports(campaign) == []
