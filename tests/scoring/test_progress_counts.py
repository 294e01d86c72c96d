"""A big campaign's progress counts, kept by the worker beside its reports (scoring/progress.py):
stored by every rebuild, equal to a count made now, read by the summary, the Progress section
and the home page instead of counting, and following every change that marks no topic stale."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotate.models import Assignment, Judgment, Topic
from annotate.services.flags import skip_topic, unskip_topic
from annotate.services.judgments import reopen_judgment, save_judgment, withdraw_judgment
from annotate.services.members import add_member, remove_member
from concord import typed
from dashboard import selectors as dashboard
from scoring import jobs, progress
from scoring.models import Report
from tests.campaigns import imported_crowd

pytestmark = pytest.mark.django_db

FULL = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}


def submit(campaign, user, external_id, status="submitted"):
    topic = Topic.objects.get(campaign=campaign, external_id=external_id)
    save_judgment(topic=topic, assessor=user, payload=FULL, status=status, version=0)
    return topic


@pytest.fixture
def big(settings):
    """The fixture campaign (3 topics x 2 assessors) counts as big: 6 assignments."""
    settings.CONCORD_LIVE_PROGRESS_LIMIT = 6


def stored(campaign) -> progress.CampaignProgress:
    return progress.stored_progress([campaign.pk])[campaign.pk]


def rebuilt(campaign) -> progress.CampaignProgress:
    jobs.recompute_reports(campaign.pk)
    return stored(campaign)


def test_a_rebuild_stores_what_a_count_now_gives(big, campaign, people):
    alice, bob = people["alice"], people["bob"]
    submit(campaign, alice, "q1")
    submit(campaign, bob, "q1")
    submit(campaign, bob, "q2", status="draft")
    skip_topic(topic=Topic.objects.get(campaign=campaign, external_id="q3"), assessor=alice, reason="?")
    kept = rebuilt(campaign)
    assert kept == progress.count(campaign)
    assert kept.counts == progress.AssignmentCounts(assigned=6, judged=2, drafts=1, to_adjudicate=1)
    assert kept.states == {"submitted": 2, "draft": 1, "new": 3}
    assert kept.raters is None  # its own assessors: the header says its overlap, counting nothing
    by_name = {p.username: p for p in kept.assessors}
    assert (by_name["alice"].submitted, by_name["alice"].skipped, by_name["alice"].drafts) == (1, 1, 0)
    assert (by_name["bob"].submitted, by_name["bob"].drafts, by_name["bob"].percent) == (1, 1, 33)
    # Stored with the campaign report, at its time, as JSON-ready data of its type.
    agreement = Report.objects.get(campaign=campaign, name="agreement")
    row = Report.objects.get(campaign=campaign, name=progress.NAME)
    assert (row.computed_at, row.judgments_seen) == (agreement.computed_at, 2)
    assert typed.load(progress.CampaignProgress, typed.dump(kept)) == kept


def test_every_status_is_counted_the_same_from_the_assignment_counts(campaign, people):
    """The stored states' "new" is the assigned less the judged and the drafted (one query
    fewer per rebuild of a big campaign) and equals the assignments without a judgment."""
    alice, bob = people["alice"], people["bob"]
    submit(campaign, alice, "q1")
    q2 = submit(campaign, alice, "q2")
    reopen_judgment(topic=q2, assessor=alice, version=1)
    q3 = submit(campaign, bob, "q3")
    withdraw_judgment(topic=q3, assessor=bob, version=1, reason="wrong topic")
    submit(campaign, bob, "q1", status="draft")
    skip_topic(topic=Topic.objects.get(campaign=campaign, external_id="q2"), assessor=bob, reason="?")
    counts = progress.assignment_counts([campaign.pk])[campaign.pk]
    assert counts == progress.AssignmentCounts(assigned=6, judged=2, drafts=2, to_adjudicate=0)
    both = progress.state_totals(campaign), progress.state_totals(campaign, counts)
    assert both[0] == both[1] == {"submitted": 1, "reopened": 1, "withdrawn": 1, "draft": 1, "new": 2}
    by_name = {p.username: p for p in progress.assessor_progress(campaign)}
    assert list(by_name) == ["alice", "bob"]
    assert by_name["alice"] == progress.AssessorProgress(
        "alice", 3, drafts=0, submitted=2, reopened=1, active_total_ms=0, active_median_ms=0
    )
    assert (by_name["bob"].drafts, by_name["bob"].withdrawn, by_name["bob"].skipped) == (2, 1, 1)


def test_the_pages_read_a_big_campaign_s_stored_counts_and_count_a_small_one_now(
    big, settings, client, campaign, people
):
    submit(campaign, people["alice"], "q1")
    rebuilt(campaign)
    # A change behind the worker's back (no stale mark): the stored counts do not see it.
    Judgment.objects.filter(topic__campaign=campaign).update(status="draft")
    client.force_login(people["organiser"])
    with CaptureQueriesContext(connection) as queries:
        page = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert 'id="summary-judged">1<' in page and 'id="summary-open">5<' in page
    assert not [q for q in queries if '"annotate_judgment"' in q["sql"] and "COUNT(" in q["sql"]]
    section = client.get(f"/campaigns/{campaign.pk}/", {"section": "progress"}).content.decode()
    states = section.split('id="assignment-states"', 1)[1].split("</p>", 1)[0]
    assert "1 submitted<" in states and "5 not started<" in states and "draft" not in states
    table = client.get(f"/campaigns/{campaign.pk}/progress/").content.decode()
    alice = table.split("<td>alice</td>", 1)[1].split("</tr>", 1)[0]
    assert "<td>1</td>" in alice.split("<progress", 1)[0]  # submitted, as stored
    home = client.get("/").content.decode().split(f'data-campaign="{campaign.pk}"', 1)[1].split("</tr>", 1)[0]
    assert "1 of 6" in home
    # The CSV is counted now, whatever the size.
    csv = client.get(f"/campaigns/{campaign.pk}/progress/", {"format": "csv"}).content.decode()
    assert csv.splitlines()[1].startswith("alice,3,1,0,0,0")
    # Under the limit, every view counts now.
    settings.CONCORD_LIVE_PROGRESS_LIMIT = 7
    page = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert 'id="summary-judged">0<' in page and 'id="summary-open">6<' in page
    assert dashboard.attention([campaign.pk])[campaign.pk].drafts == 1


def test_changes_that_mark_no_topic_stale_ask_for_a_rebuild_of_a_big_campaign(
    big, django_capture_on_commit_callbacks, campaign, people
):
    rebuilt(campaign)
    q3 = Topic.objects.get(campaign=campaign, external_id="q3")

    def rebuilds_after(change) -> progress.CampaignProgress:
        with django_capture_on_commit_callbacks(execute=True) as queued:
            change()
        assert queued, "no rebuild asked for"
        return stored(campaign)

    skipped = rebuilds_after(lambda: skip_topic(topic=q3, assessor=people["alice"], reason="unsure"))
    assert {p.username: p.skipped for p in skipped.assessors} == {"alice": 1, "bob": 0}
    back = rebuilds_after(lambda: unskip_topic(topic=q3, assessor=people["alice"]))
    assert {p.username: p.skipped for p in back.assessors} == {"alice": 0, "bob": 0}
    added = rebuilds_after(lambda: add_member(campaign=campaign, username="carol", role="assessor"))
    assert [p.username for p in added.assessors] == ["alice", "bob", "carol"]
    removed = rebuilds_after(lambda: remove_member(campaign=campaign, username="carol"))
    assert [p.username for p in removed.assessors] == ["alice", "bob"] and removed == progress.count(campaign)


def test_a_small_campaign_stores_nothing_and_one_that_shrank_drops_what_it_stored(
    big, settings, django_capture_on_commit_callbacks, campaign, people
):
    rebuilt(campaign)
    settings.CONCORD_LIVE_PROGRESS_LIMIT = 7
    jobs.recompute_reports(campaign.pk)
    assert progress.stored_progress([campaign.pk]) == {} and not progress.is_stored(campaign.pk)
    # Nothing stored: a skip asks for no rebuild (every view counts now).
    with django_capture_on_commit_callbacks() as queued:
        skip_topic(topic=Topic.objects.get(campaign=campaign, external_id="q1"), assessor=people["bob"])
    assert queued == []


def test_an_imported_crowd_s_raters_per_topic_are_read_from_the_stored_counts(settings, client, people):
    """The header's "9–10 assessors per topic (imported)" was one grouped count over every
    assignment on every view of a big campaign: 87 of the page's 150 ms at 10,000 crowd
    items (100,000 assignments) through gunicorn on PostgreSQL."""
    settings.CONCORD_LIVE_PROGRESS_LIMIT = 19
    crowd = imported_crowd(people["organiser"])
    assert rebuilt(crowd).raters == progress.TopicRaters(least=9, most=10)
    # Behind the worker's back (no rebuild asked for): a big campaign's header says what was stored.
    Assignment.objects.filter(topic__campaign=crowd, assessor__username="w9").delete()
    client.force_login(people["organiser"])
    with CaptureQueriesContext(connection) as queries:
        header = client.get(f"/campaigns/{crowd.pk}/").content.decode()
    assert "9–10 assessors per topic (imported)" in header
    assert not [q for q in queries if "COUNT(DISTINCT" in q["sql"]]
    # Under the limit, counted now: every topic has 9 now.
    settings.CONCORD_LIVE_PROGRESS_LIMIT = 20
    assert "9 assessors per topic (imported)" in client.get(f"/campaigns/{crowd.pk}/").content.decode()
    # Counts stored by a version without raters: counted now, whatever the size.
    settings.CONCORD_LIVE_PROGRESS_LIMIT = 19
    row = Report.objects.get(campaign=crowd, name=progress.NAME)
    row.data = {k: v for k, v in row.data.items() if k != "raters"}
    row.save()
    assert progress.campaign_raters(crowd) == progress.TopicRaters(least=9, most=9)


def test_counts_stored_by_an_older_version_are_counted_now(big, client, campaign, people):
    submit(campaign, people["alice"], "q1")
    rebuilt(campaign)
    Report.objects.filter(campaign=campaign, name=progress.NAME).update(data={"assessors": "old shape"})
    assert progress.stored_progress([campaign.pk]) == {}
    assert progress.campaign_progress(campaign, states=True) == progress.count(campaign, raters=False)
