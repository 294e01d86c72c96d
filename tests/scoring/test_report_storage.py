"""Reports are stored compactly (MessagePack compressed with a preset dictionary,
scoring.fields.PackedJSONField; partials likewise) and read back exactly as JSON gave
them, whatever they were stored with before."""

from __future__ import annotations

import json
import zlib
from unittest import mock

import msgspec
import pytest
from django.db import connection
from django.utils import timezone

from annotate.models import Topic
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import reopen_judgment, save_judgment
from concord import typed
from kinds.registry import get_kind
from scoring import fields, history, jobs, live
from scoring import services as scoring_services
from scoring.models import Report, StaleTopic, TopicPartial
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
        save_judgment(topic=topic, assessor=people[name], payload=payload, status="submitted", version=0)
    scoring_services.recompute_reports(campaign.pk)
    return topic


def test_a_campaign_report_is_stored_packed_and_read_back_as_computed(campaign, people):
    submitted(campaign, people)
    row = Report.objects.get(campaign=campaign, name="agreement")
    fresh = typed.dump(get_kind("pairs").reports.campaign(report_input(campaign)))
    as_json = json.dumps(fresh, separators=(",", ":")).encode()
    raw = stored_bytes(row)
    assert len(raw) * 3 < len(as_json)  # was the JSON text itself
    assert fields.unpack_stored(raw) == fresh == row.data
    assert list(row.data) == list(fresh)  # keys in their order
    assert typed.dump(campaign_report(campaign).data) == fresh


def test_a_topic_report_is_not_stored_but_computed_when_read(campaign, people):
    """Written after every submission and read when an organiser opens the topic: computed then,
    from the judgments that count now (no rebuild needed); what lists need, its disagreement, is stored."""
    topic = submitted(campaign, people)
    # the campaign's (its report, headline and its series, running sums and their fits), no topic's
    assert set(Report.objects.filter(campaign=campaign).values_list("name", flat=True)) == {
        "agreement",
        "headline",
        "sums",
        "fits",
        history.NAME,
    }
    reports = get_kind("pairs").reports
    read = topic_report(topic)
    assert typed.dump(read.data) == typed.dump(reports.topic(report_input(campaign), topic))
    assert (
        read.judgments_seen == 2 and read.data.pairs[0].a + read.data.pairs[0].d == 2
    )  # FULL and OTHER agree on 2 of 4
    reopen_judgment(topic=topic, assessor=people["bob"], version=1)
    save_judgment(topic=topic, assessor=people["bob"], payload=FULL, status="submitted", version=2)
    again = topic_report(topic)  # before any rebuild
    assert again.judgments_seen == 2 and again.data.pairs[0].a + again.data.pairs[0].d == 4
    stored = TopicPartial.objects.get(topic=topic)
    found = reports.disagreement(read.data)
    assert (stored.disagreement, stored.disagreement_reason) == (found.value, found.reason) and found.value > 0
    untouched = Topic.objects.filter(campaign=campaign).order_by("position")[1]
    assert topic_report(untouched) is None  # no judgment counts


def test_the_live_reader_decodes_the_campaign_report_as_the_selector_does(campaign, people):
    submitted(campaign, people)
    by_selector = campaign_report(campaign)
    by_live = live.campaign_report(campaign, None)
    assert by_live.data == by_selector.data and by_live.computed_at == by_selector.computed_at
    assert typed.dump(by_live.data) == Report.objects.get(campaign=campaign, name="agreement").data


def test_the_live_reader_keeps_the_latest_two_versions_of_a_campaign_and_four_in_all(campaign, people):
    """A crowd's decoded report is over 100 MB (2,000 workers' kappa matrix): the web workers
    kept the four latest versions of the one campaign the distributed run polled (1.3-1.6 GB)."""
    submitted(campaign, people)
    live._cache.clear()
    loads = []
    real = live._load

    def counted(found):
        loads.append(found.pk)
        return real(found)

    others = [
        create_campaign(creator=people["organiser"], kind="pairs", name=f"Other {n}", overlap=1) for n in range(3)
    ]
    with mock.patch.object(live, "_load", counted):
        for tag in ("v1", "v2", "v3"):
            live.campaign_report(campaign, tag)
        assert [key for key in live._cache] == [(campaign.pk, "v2"), (campaign.pk, "v3")]
        live.campaign_report(campaign, "v2")  # still kept: no load
        assert loads == [campaign.pk] * 3
        for other in others:
            live.campaign_report(other, "v1")
        assert list(live._cache) == [(campaign.pk, "v2"), *((o.pk, "v1") for o in others)]
        live.campaign_report(campaign, "v1")  # dropped: loaded again
        assert loads == [campaign.pk] * 3 + [o.pk for o in others] + [campaign.pk]
    live._cache.clear()


def test_a_report_with_an_older_shape_is_no_report_on_either_reader(campaign, people):
    submitted(campaign, people)
    Report.objects.filter(campaign=campaign, name="agreement").update(data={"items": 1})
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
        # the stored bytes, through the model of that state (later fields are not there yet)
        at_0018 = MigrationExecutor(connection).loader.project_state(after).apps.get_model("scoring", "Report")
        assert {r.pk: fields.unpack_stored(stored_bytes(r)) for r in at_0018.objects.all()} == expected
    finally:
        MigrationExecutor(connection).migrate(latest)
    assert topic_report(topic) is not None


@pytest.mark.django_db(transaction=True)
def test_the_migration_moves_each_topics_disagreement_to_its_partial_and_drops_topic_reports(campaign, people):
    """0020: a topic's stored report goes; its disagreement stays, with its partial; a topic
    whose report had no partial beside it is marked stale (the worker computes both)."""
    from django.db.migrations.executor import MigrationExecutor

    topic = submitted(campaign, people)
    lonely = Topic.objects.filter(campaign=campaign).order_by("position")[1]
    kept = TopicPartial.objects.values_list("disagreement", "disagreement_reason").get(topic=topic)
    assert kept[0] > 0 and kept[1]
    before = [("scoring", "0019_first_build_chunks")]
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    try:
        executor.migrate(before)
        old = executor.loader.project_state(before).apps
        old.get_model("scoring", "StaleTopic").objects.all().delete()  # marked by the way back
        old.get_model("scoring", "TopicPartial").objects.filter(topic_id=lonely.pk).delete()
        stored = old.get_model("scoring", "Report").objects
        for one, (value, reason) in ((topic, kept), (lonely, (0.25, "c2: 1 match / 1 no match"))):
            stored.create(
                campaign_id=campaign.pk,
                topic_id=one.pk,
                name="agreement",
                data={"items": 4},
                computed_at=timezone.now(),
                judgments_seen=2,
                disagreement=value,
                disagreement_reason=reason,
            )
        assert stored.filter(topic__isnull=False).count() == 2
        MigrationExecutor(connection).migrate(latest)
    finally:
        MigrationExecutor(connection).migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
    row = TopicPartial.objects.get(topic=topic)
    assert (row.disagreement, row.disagreement_reason) == kept
    assert not TopicPartial.objects.filter(topic=lonely).exists()
    assert list(StaleTopic.objects.values_list("topic_id", flat=True)) == [lonely.pk]
    assert set(Report.objects.filter(campaign=campaign).values_list("name", flat=True)) == {
        "agreement",
        "headline",
        "sums",
        "fits",
        history.NAME,
    }
    scoring_services.recompute_reports(campaign.pk)
    assert jobs.check_reports(campaign) == []


def test_the_check_names_a_stored_disagreement_or_partial_that_differs_from_a_recompute(campaign, people):
    topic = submitted(campaign, people)
    assert jobs.check_reports(campaign) == []
    TopicPartial.objects.filter(topic=topic).update(disagreement_reason="unanimous")
    [found] = jobs.check_reports(campaign)
    assert found.startswith(f"topic {topic.external_id}.reason: 'unanimous' != ")
    partial = TopicPartial.objects.get(topic=topic)
    other = Topic.objects.filter(campaign=campaign).order_by("position")[1]
    TopicPartial.objects.filter(topic=other).update(data=partial.data)  # q1's votes stored as q2's
    assert any(line.startswith(f"topic {other.external_id} partial.") for line in jobs.check_reports(campaign))


#: Every preset dictionary ever shipped and its Adler-32 (what a packed value names it by).
#: A file changed or removed makes every value packed with it unreadable: add new ones instead.
SHIPPED = {"reports-1": 1173467605}


def test_the_shipped_dictionaries_never_change():
    on_disk = {path.stem: zlib.adler32(path.read_bytes()) for path in fields.ZDICTS.glob("*.zdict")}
    assert on_disk == SHIPPED
    assert set(fields.DICTIONARIES) == set(SHIPPED.values()) and fields.CURRENT in SHIPPED


def test_a_topic_report_names_the_current_dictionary_and_is_smaller_for_it(campaign, people):
    submitted(campaign, people)
    raw = stored_bytes(Report.objects.get(campaign=campaign, name="agreement"))
    assert raw[0] == 0x78 and raw[1] & 0x20  # a zlib header with a preset dictionary
    assert int.from_bytes(raw[2:6], "big") == SHIPPED[fields.CURRENT]
    without = zlib.compress(msgspec.msgpack.encode(fields.unpack_stored(raw)), fields.LEVEL)
    assert len(raw) * 1.3 < len(without)


def test_a_report_stored_before_the_dictionaries_reads_as_it_was(campaign, people):
    submitted(campaign, people)
    row = Report.objects.get(campaign=campaign, name="agreement")
    old = zlib.compress(msgspec.msgpack.encode(row.data), fields.LEVEL)  # as reports were packed before
    with connection.cursor() as cursor:
        cursor.execute("UPDATE scoring_report SET data = %s WHERE id = %s", [old, row.pk])
    assert not stored_bytes(row)[1] & 0x20
    assert Report.objects.get(pk=row.pk).data == row.data
    assert typed.dump(campaign_report(campaign).data) == row.data


def test_a_value_packed_with_an_unknown_dictionary_is_refused_by_name():
    compressor = zlib.compressobj(6, zlib.DEFLATED, zlib.MAX_WBITS, 9, zlib.Z_DEFAULT_STRATEGY, b"not shipped")
    raw = compressor.compress(msgspec.msgpack.encode({"kappa": 0.5})) + compressor.flush()
    with pytest.raises(ValueError, match=f"unknown dictionary \\(Adler-32 {zlib.adler32(b'not shipped')}\\)"):
        fields.unpack_stored(raw)


def test_partials_are_stored_compressed_and_old_raw_ones_still_merge(campaign, people):
    topic = submitted(campaign, people)
    partial = TopicPartial.objects.get(topic=topic)
    packed = bytes(partial.data)
    assert fields.is_compressed(packed) and packed[1] & 0x20
    raw = fields.decompress(packed)
    assert not fields.is_compressed(raw) and len(packed) * 2 < len(raw)
    TopicPartial.objects.filter(pk=partial.pk).update(data=raw)  # a partial stored before compression
    second = Topic.objects.filter(campaign=campaign).order_by("position")[1]
    save_judgment(topic=second, assessor=people["alice"], payload=FULL, status="submitted", version=0)
    scoring_services.recompute_reports(campaign.pk)  # merges the raw partial with the new one
    assert bytes(TopicPartial.objects.get(pk=partial.pk).data) == raw  # not recomputed: read as stored
    assert jobs.check_reports(campaign) == []
