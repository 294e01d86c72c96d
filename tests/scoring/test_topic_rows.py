"""A report's per-topic list kept apart (``Reports.topic_rows``, ``scoring.selectors.topic_rows``):
the stored report and running sums do not grow with the topics; the rows are made from the
topics' stored partials, a page at a time, in topic order; every row is read in one statement
with the time of the stored report it belongs to, so a page, the API and the CSV never show
rows of one rebuild with the figures of another without saying so.
"""

from __future__ import annotations

import copy
import csv
import io
from datetime import timedelta

import pytest

from annotate.imports.write import import_topics
from annotate.models import Judgment
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import reopen_judgment, save_judgment
from annotate.services.members import add_member
from concord import typed
from kinds.registry import KINDS
from scoring import jobs, sums
from scoring.models import Report, TopicPartial
from scoring.selectors import campaign_report, report_input, topic_rows

pytestmark = pytest.mark.django_db

LISTING_KINDS = sorted(kind for kind, spec in KINDS.items() if spec.reports.topic_rows is not None)
ASSESSORS = ("alice", "bob", "carol")


def test_the_costliest_kinds_keep_their_lists_apart():
    assert {"ordering", "nuggets"} <= set(LISTING_KINDS)


def judged(people, kind: str, topics: int, name: str = ""):
    """A campaign of ``topics`` copies of the kind's example topic, each judged by three
    assessors (the example payloads in turn), built in full."""
    examples = KINDS[kind].examples
    campaign = create_campaign(
        creator=people["organiser"],
        kind=kind,
        name=name or f"{kind} x {topics}",
        overlap=3,
        params=dict(examples.params) or None,
    )
    for assessor in ASSESSORS:
        add_member(campaign=campaign, username=assessor, role="assessor")
    import_topics(
        campaign=campaign,
        topics=[{"external_id": f"t{i:03d}", "data": copy.deepcopy(dict(examples.topic))} for i in range(topics)],
    )
    for n, topic in enumerate(campaign.topics.order_by("position")):
        for a, assessor in enumerate(ASSESSORS):
            payload = copy.deepcopy(dict(examples.payloads[(n + a) % len(examples.payloads)]))
            save_judgment(topic=topic, assessor=people[assessor], payload=payload, status="submitted", version=0)
    jobs.recompute_reports(campaign.pk, everything=True)
    return campaign


def resubmit(people, campaign, external_id: str = "t001") -> None:
    """alice reopens her judgment of one topic and submits the other example payload."""
    topic = campaign.topics.get(external_id=external_id)
    judgment = Judgment.objects.get(topic=topic, assessor=people["alice"])
    payloads = KINDS[campaign.kind].examples.payloads
    other = payloads[1] if judgment.payload == payloads[0] else payloads[0]
    reopen_judgment(topic=topic, assessor=people["alice"], version=judgment.version)
    save_judgment(
        topic=topic,
        assessor=people["alice"],
        payload=copy.deepcopy(dict(other)),
        status="submitted",
        version=judgment.version + 1,
    )


def packed_bytes(campaign, name: str) -> int:
    """The stored report ``name``'s MessagePack, uncompressed (what a rebuild encodes and writes)."""
    return len(typed.pack(Report.objects.get(campaign=campaign, name=name).data))


@pytest.mark.parametrize("kind", LISTING_KINDS)
def test_a_rebuild_writes_a_report_and_sums_that_do_not_grow_with_the_topics(people, kind):
    """After one resubmission, the rebuild from the running sums encodes and writes the report
    and the sums; with four times the topics they are as large (a list of a row per topic
    would add its bytes for every topic)."""
    sizes = {}
    for topics in (3, 12):
        campaign = judged(people, kind, topics)
        resubmit(people, campaign)
        jobs.recompute_reports(campaign.pk)
        assert Report.objects.get(campaign=campaign, name="agreement").fits_at < campaign_report(campaign).computed_at
        sizes[topics] = (packed_bytes(campaign, "agreement"), packed_bytes(campaign, sums.SUMS))
    (report_small, sums_small), (report_large, sums_large) = sizes[3], sizes[12]
    # a count may take a byte more to write
    assert report_large <= report_small + 8, sizes
    assert sums_large <= sums_small + 8, sizes


@pytest.mark.parametrize("kind", LISTING_KINDS)
def test_the_rows_are_those_of_the_partials_in_topic_order_a_page_at_a_time(people, kind):
    campaign = judged(people, kind, 5)
    resubmit(people, campaign, "t002")
    jobs.recompute_reports(campaign.pk)
    reports = KINDS[kind].reports
    shown = campaign_report(campaign)
    given = report_input(campaign)
    fresh = [
        reports.topic_rows.row(
            t, reports.partial(given, t, None if reports.partial_disagreement else reports.topic(given, t)), shown.data
        )
        for t in given.topics
    ]
    every = topic_rows(campaign, shown, limit=None)
    assert every.belongs_to(shown) and every.report_at == shown.computed_at and every.newer == 0
    assert typed.dump(every.rows) == typed.dump(fresh) and every.total == 5
    assert [row.topic for row in every.rows] == [f"t{i:03d}" for i in range(5)]
    page = topic_rows(campaign, shown, offset=1, limit=2)
    assert (page.total, page.offset, [row.topic for row in page.rows]) == (5, 1, ["t001", "t002"])
    assert typed.dump(page.rows) == typed.dump(fresh[1:3]) and page.belongs_to(shown)
    beyond = topic_rows(campaign, shown, offset=9)
    assert (beyond.rows, beyond.total, beyond.report_at) == ([], 5, shown.computed_at)
    assert jobs.check_reports(campaign) == []


def test_an_ordering_topic_without_an_ordering_has_no_row(people):
    campaign = judged(people, "ordering", 3)
    Judgment.objects.filter(topic__external_id="t001", topic__campaign=campaign).delete()
    jobs.recompute_reports(campaign.pk, everything=True)
    page = topic_rows(campaign, campaign_report(campaign))
    assert [row.topic for row in page.rows] == ["t000", "t002"] and page.total == 2
    assert campaign_report(campaign).data.topics_ordered == 2


@pytest.mark.parametrize("kind", LISTING_KINDS)
def test_rows_of_a_later_rebuild_are_not_taken_for_the_reports(people, kind):
    """A report read before a rebuild, and rows read after it: the rows say which report they
    belong to (read in the same statement), so the reader knows they are not the older one's."""
    campaign = judged(people, kind, 3)
    before = campaign_report(campaign)
    resubmit(people, campaign)
    jobs.recompute_reports(campaign.pk)
    after = campaign_report(campaign)
    assert after.computed_at > before.computed_at
    page = topic_rows(campaign, before)
    assert page.report_at == after.computed_at
    assert not page.belongs_to(before) and page.belongs_to(after)


@pytest.mark.parametrize("kind", LISTING_KINDS)
def test_a_row_stored_after_the_report_is_counted_as_newer(people, client, kind):
    """A split first build's chunk stores its partials before the report that merges them: a
    row newer than the stored report is not taken for that report's, and the page says so."""
    campaign = judged(people, kind, 3)
    shown = campaign_report(campaign)
    topic = campaign.topics.get(external_id="t001")
    TopicPartial.objects.filter(topic=topic).update(computed_at=shown.computed_at + timedelta(seconds=1))
    page = topic_rows(campaign, shown)
    assert page.report_at == shown.computed_at and page.newer == 1 and not page.belongs_to(shown)
    client.force_login(people["organiser"])
    fragment = client.get(f"/campaigns/{campaign.pk}/report/").content.decode()
    assert "not-current" in fragment and "the report is being rebuilt" in fragment
    TopicPartial.objects.filter(topic=topic).update(computed_at=shown.computed_at)
    fragment = client.get(f"/campaigns/{campaign.pk}/report/").content.decode()
    assert "not-current" not in fragment


def test_the_ordering_fragment_lists_the_rows_and_shows_all_when_asked(people, client):
    campaign = judged(people, "ordering", 3)
    client.force_login(people["organiser"])
    fragment = client.get(f"/campaigns/{campaign.pk}/report/").content.decode()
    rows = topic_rows(campaign, campaign_report(campaign), limit=None).rows
    for row in rows:
        assert f'data-topic="{row.topic}">{" › ".join(row.consensus)}</td>' in fragment
    assert "not-current" not in fragment


def test_the_topic_rows_csv_holds_every_topic(people, client):
    campaign = judged(people, "ordering", 4)
    client.force_login(people["organiser"])
    response = client.get(f"/campaigns/{campaign.pk}/report/table.csv?rows=topics")
    assert response.status_code == 200
    listed = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [row["topic"] for row in listed] == ["t000", "t001", "t002", "t003"]
    assert response["X-Report-Computed-At"] == campaign_report(campaign).computed_at.isoformat()
    expected = topic_rows(campaign, campaign_report(campaign), limit=None).rows
    assert [int(row["orderings"]) for row in listed] == [row.orderings for row in expected]
    assert [row["consensus.0"] for row in listed] == [row.consensus[0] for row in expected]


def test_the_api_serves_a_page_of_rows_with_the_time_of_their_report(people, api):
    campaign = judged(people, "nuggets", 4)
    client = api(people["organiser"])
    report = client.get(f"/api/campaigns/{campaign.pk}/agreement/").json()
    body = client.get(f"/api/campaigns/{campaign.pk}/agreement/topics/?offset=1&limit=2").json()
    assert body["computed_at"] == report["computed_at"] and body["current"] is True
    assert (body["kind"], body["total"], body["offset"]) == ("nuggets", 4, 1)
    assert [row["topic"] for row in body["rows"]] == ["t001", "t002"]
    expected = topic_rows(campaign, campaign_report(campaign), offset=1, limit=2).rows
    assert body["rows"] == typed.dump(expected)
    assert "pyramids" not in report["data"]


@pytest.mark.parametrize(
    "query, field",
    [("offset=-1", "offset"), ("offset=x", "offset"), ("limit=2001", "limit"), ("limit=1.5", "limit")],
)
def test_the_api_refuses_a_bad_page_naming_the_field(people, api, query, field):
    campaign = judged(people, "ordering", 1)
    response = api(people["organiser"]).get(f"/api/campaigns/{campaign.pk}/agreement/topics/?{query}")
    assert response.status_code == 400
    assert field in response.content.decode()


def test_the_api_refuses_a_kind_without_such_a_list_and_readers_who_may_not(people, api, campaign):
    response = api(people["organiser"]).get(f"/api/campaigns/{campaign.pk}/agreement/topics/")
    assert response.status_code == 400 and "campaign" in response.content.decode()
    ordering = judged(people, "ordering", 1)
    assert api(people["alice"]).get(f"/api/campaigns/{ordering.pk}/agreement/topics/").status_code == 403
    assert api(people["outsider"]).get(f"/api/campaigns/{ordering.pk}/agreement/topics/").status_code in (403, 404)


def test_the_nuggets_fragment_shows_twenty_pyramids_and_says_where_every_one_is(people, client):
    campaign = judged(people, "nuggets", 21)
    client.force_login(people["organiser"])
    fragment = client.get(f"/campaigns/{campaign.pk}/report/").content.decode()
    assert fragment.count('class="grid numbers pyramid"') == 20
    assert "Showing the 20 of 21 questions' pyramids" in fragment
    assert "all=topics" in fragment and "table.csv?rows=topics" in fragment
    assert f"/api/campaigns/{campaign.pk}/agreement/topics/" in fragment
    every = client.get(f"/campaigns/{campaign.pk}/report/?all=topics").content.decode()
    assert every.count('class="grid numbers pyramid"') == 21 and 'data-topic="t020"' in every


def test_the_migration_has_each_listing_campaign_rebuilt_from_its_stored_partials(people, campaign):
    """Stored reports, sums and fits of the shape that held the lists: the migration marks one
    topic of each ordering or nuggets campaign stale, and the rebuild it brings merges every
    stored partial again and stores the three in the current shape."""
    import importlib

    from django.apps import apps

    from scoring.models import StaleTopic

    migration = importlib.import_module("scoring.migrations.0025_topic_rows_apart")
    ordering = judged(people, "ordering", 3)
    jobs.recompute_reports(campaign.pk, everything=True)  # a pairs campaign: left alone
    for name in ("agreement", sums.FITS):
        row = Report.objects.get(campaign=ordering, name=name)
        old = {k: v for k, v in row.data.items() if k != "topics_ordered"}
        Report.objects.filter(pk=row.pk).update(data={**old, "consensus": {"t000": ["a"]}, "per_topic": {}})
    assert campaign_report(ordering) is None  # of an older shape: no report until rebuilt
    migration.mark_one_topic_stale(apps, None)
    assert list(StaleTopic.objects.values_list("campaign_id", "topic__external_id")) == [(ordering.pk, "t000")]
    jobs.recompute_reports(ordering.pk)
    assert campaign_report(ordering).data.topics_ordered == 3
    assert Report.objects.get(campaign=ordering, name=sums.FITS).computed_at == campaign_report(ordering).computed_at
    assert jobs.check_reports(ordering) == []
