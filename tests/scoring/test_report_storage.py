"""Reports are stored compactly (zlib-compressed MessagePack, scoring.fields.PackedJSONField)
and read back exactly as JSON gave them (issue 27, storage)."""

from __future__ import annotations

import json

import pytest
from django.db import connection

from annotate import services
from annotate.models import Topic
from concord import typed
from kinds.registry import get_kind
from scoring import fields, live
from scoring import services as scoring_services
from scoring.models import Report
from scoring.selectors import campaign_report, report_input, topic_report

pytestmark = pytest.mark.django_db

FULL = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}
OTHER = {"matches": {"c1": True, "c2": True, "c3": False, "c4": False}}


def stored_bytes(report: Report) -> bytes:
    with connection.cursor() as cursor:
        cursor.execute("SELECT data FROM scoring_report WHERE id = %s", [report.pk])
        return bytes(cursor.fetchone()[0])


def submitted(campaign, people) -> Topic:
    topic = Topic.objects.filter(campaign=campaign).order_by("position").first()
    for name, payload in (("alice", FULL), ("bob", OTHER)):
        services.save_judgment(topic=topic, assessor=people[name], payload=payload, status="submitted", version=0)
    scoring_services.recompute_reports(campaign.pk)
    return topic


def test_a_topic_report_is_stored_packed_and_read_back_as_computed(campaign, people):
    topic = submitted(campaign, people)
    row = Report.objects.get(topic=topic)
    fresh = typed.dump(get_kind("pairs").reports.topic(report_input(campaign), topic))
    as_json = json.dumps(fresh, separators=(",", ":")).encode()
    raw = stored_bytes(row)
    assert len(raw) * 3 < len(as_json)  # was the JSON text itself
    assert fields.unpack(raw) == fresh == row.data
    assert list(row.data) == list(fresh)  # keys in their order
    assert typed.dump(topic_report(topic).data) == fresh


def test_the_live_reader_decodes_the_campaign_report_as_the_selector_does(campaign, people):
    submitted(campaign, people)
    by_selector = campaign_report(campaign)
    by_live = live.campaign_report(campaign, None)
    assert by_live.data == by_selector.data and by_live.computed_at == by_selector.computed_at
    assert typed.dump(by_live.data) == Report.objects.get(campaign=campaign, topic=None).data


def test_a_report_with_an_older_shape_is_no_report_on_either_reader(campaign, people):
    submitted(campaign, people)
    Report.objects.filter(campaign=campaign, topic=None).update(data={"items": 1})
    assert campaign_report(campaign) is None and live.campaign_report(campaign, None) is None


@pytest.mark.django_db(transaction=True)
def test_the_migration_packs_every_report_and_its_reverse_gives_the_json_back(campaign, people):
    from django.db.migrations.executor import MigrationExecutor

    topic = submitted(campaign, people)
    expected = {r.pk: r.data for r in Report.objects.all()}
    before, after = [("scoring", "0017_analyses_take_turns")], [("scoring", "0018_reports_packed")]
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    try:
        executor.migrate(before)
        with connection.cursor() as cursor:
            cursor.execute("SELECT id, data FROM scoring_report")
            assert {pk: json.loads(text) for pk, text in cursor.fetchall()} == expected
        MigrationExecutor(connection).migrate(after)
        assert {r.pk: fields.unpack(stored_bytes(r)) for r in Report.objects.all()} == expected
    finally:
        MigrationExecutor(connection).migrate(latest)
    assert topic_report(topic) is not None
