"""Running sums (scoring/sums.py): a rebuild after a change reads the changed topics' partials
and the sums, not every partial; the sums equal those of fresh partials exactly; the costly
figures (intervals' bounds, model fits) come from the stored fits until a refresh, after
which the report equals a recompute from scratch; anything the sums cannot follow (a topic
deleted, the params changed) rebuilds in full.

Every kind that declares running sums is driven through the random changes of
tests/scoring/test_incremental.py.
"""

from __future__ import annotations

import random
from datetime import timedelta
from unittest import mock

import pytest
from django.test import override_settings
from django.utils import timezone

from annotate.models import Assignment, Judgment, Topic
from annotate.services.judgments import save_judgment, withdraw_judgment
from concord import typed
from kinds.registry import KINDS
from scoring import jobs, sums
from scoring.models import Report, ScoringState, TopicPartial
from scoring.partials import differences, merge_input
from scoring.selectors import report_input
from tests.scoring.test_incremental import build, step

pytestmark = pytest.mark.django_db

SUMS_KINDS = sorted(kind for kind, spec in KINDS.items() if spec.reports.sums is not None)
#: the kinds whose reports take their costly figures from the fits (RunningSums.fits)
FITS_KINDS = [kind for kind in SUMS_KINDS if KINDS[kind].reports.sums.fits]


def scratch(campaign) -> dict:
    return typed.dump(KINDS[campaign.kind].reports.campaign(report_input(campaign)))


def stored(campaign, name: str = "agreement") -> Report:
    return Report.objects.get(campaign=campaign, name=name)


def test_at_least_one_kind_keeps_running_sums():
    assert "pairs" in SUMS_KINDS


@pytest.mark.parametrize("kind", SUMS_KINDS)
@pytest.mark.parametrize("seed", range(3))
def test_refresh_of_a_merge_with_its_own_sums_is_that_merge(people, make_user, kind, seed):
    """``refresh(merge(p), sums(p)) == merge(p)``: the figures from counts are the merge's own."""
    reports = KINDS[kind].reports
    campaign = build(people, make_user, kind)
    rng, state = random.Random(f"identity-{kind}-{seed}"), {}
    for n in range(12):
        step(rng, campaign, people, state)
        if n % 3 != 2:
            continue
        given = report_input(campaign)
        partials = [reports.partial(given, t, reports.topic(given, t)) for t in given.topics]
        merged = reports.merge(merge_input(given), partials)
        summed = sums.total(
            reports.sums.empty(),
            (reports.sums.contribution(campaign, t, p) for t, p in zip(given.topics, partials)),
        )
        again = reports.sums.report(merge_input(given), merged, summed, list(zip(given.topics, partials)))
        assert differences(typed.dump(again), typed.dump(merged)) == []


@pytest.mark.parametrize("kind", SUMS_KINDS)
def test_a_rebuild_after_one_change_decodes_only_that_topics_partials(people, make_user, kind):
    reports = KINDS[kind].reports
    campaign = build(people, make_user, kind)
    jobs.recompute_reports(campaign.pk)
    rng, state = random.Random(f"reads-{kind}"), {}
    for _ in range(4):  # judgments in, so that the next change has an old partial to take out
        step(rng, campaign, people, state)
        jobs.recompute_reports(campaign.pk)
    fits_before = stored(campaign, sums.FITS).computed_at
    topic = campaign.topics.get(external_id="t2")
    assessor = people["alice"]
    from annotate.models import Assignment, Judgment
    from annotate.services.judgments import save_judgment

    Assignment.objects.get_or_create(topic=topic, assessor=assessor)
    judgment = Judgment.objects.filter(topic=topic, assessor=assessor).first()
    payload = dict(KINDS[kind].examples.payloads[0])
    if judgment is not None and judgment.status == Judgment.Status.SUBMITTED:
        from annotate.services.judgments import reopen_judgment

        reopen_judgment(topic=topic, assessor=assessor, version=judgment.version)
        judgment.refresh_from_db()
    save_judgment(
        topic=topic,
        assessor=assessor,
        payload=payload,
        status="submitted",
        version=judgment.version if judgment else 0,
    )
    with mock.patch.object(jobs, "_partial_bytes", wraps=jobs._partial_bytes) as decoded:
        jobs.recompute_reports(campaign.pk)
    # the one marked topic's stored partial (its old counts out); its new one is built here; and
    # the stored partials of the first topics whose rows the report copies, for a kind that lists them
    listed = set()
    if reports.sums.listed is not None:
        rows, limit = 0, reports.sums.listed_limit()
        for topic_id, n in (
            TopicPartial.objects.filter(campaign=campaign, listed__gt=0)
            .order_by("topic__position", "topic_id")
            .values_list("topic_id", "listed")
        ):
            if rows >= limit:
                break
            listed.add(topic_id)
            rows += n
        listed -= {topic.pk}
    assert decoded.call_count == 1 + len(listed)
    agreement = stored(campaign)
    assert stored(campaign, sums.FITS).computed_at == fits_before
    if reports.sums.fits:
        assert agreement.computed_at > agreement.fits_at == fits_before
    else:  # nothing of the report is the fits': it is current throughout
        assert agreement.computed_at == agreement.fits_at > fits_before
    assert jobs.check_reports(campaign) == []


@pytest.mark.parametrize("kind", ["pairs", "ordering"])
def test_a_worker_decodes_the_stored_sums_and_fits_once_until_another_stores_them(people, make_user, kind):
    campaign = build(people, make_user, kind)
    jobs.recompute_reports(campaign.pk)
    rng, state = random.Random(f"decoded-{kind}"), {"second_run": True}  # no run imported: no full rebuild
    step(rng, campaign, people, state)
    jobs.recompute_reports(campaign.pk)

    def rebuild_counting_decodes() -> list[str]:
        with mock.patch.object(jobs.typed, "load", wraps=typed.load) as load:
            jobs.recompute_reports(campaign.pk)
        return sorted(call.args[0].__name__ for call in load.call_args_list)

    campaign_type = KINDS[kind].reports.campaign_type.__name__
    sums_type = KINDS[kind].reports.sums.type.__name__
    for _ in range(3):  # the sums this worker stored, and the fits it read: none decoded again
        step(rng, campaign, people, state)
        assert sums_type not in rebuild_counting_decodes()
    # rows stored by another worker (here: forgotten, as another process never had them)
    jobs._decoded.clear()
    step(rng, campaign, people, state)
    assert rebuild_counting_decodes().count(sums_type) == 1
    # new fits are decoded once (a rebuild with nothing marked: the report from them), then kept
    assert jobs.refresh_fits(campaign.pk)
    loads = rebuild_counting_decodes()
    assert loads.count(campaign_type) == 1 and sums_type not in loads
    assert differences(stored(campaign).data, scratch(campaign)) == []
    step(rng, campaign, people, state)
    loads = rebuild_counting_decodes()
    assert campaign_type not in loads and sums_type not in loads
    assert jobs.check_reports(campaign) == []


@pytest.mark.parametrize("kind", FITS_KINDS)
def test_the_fits_refresh_makes_the_report_equal_a_recompute_from_scratch(people, make_user, kind):
    campaign = build(people, make_user, kind)
    jobs.recompute_reports(campaign.pk)
    rng, state = random.Random(f"fits-{kind}"), {}
    for _ in range(10):
        step(rng, campaign, people, state)
        jobs.recompute_reports(campaign.pk)
    state["second_run"] = True  # a last change the sums follow (a run imported rebuilds in full)
    step(rng, campaign, people, state)
    jobs.recompute_reports(campaign.pk)
    agreement = stored(campaign)
    assert agreement.fits_at < agreement.computed_at
    # the full merge's cost is recorded: the next refresh waits FITS_WAIT times as long
    state = ScoringState.objects.get(campaign=campaign)
    assert state.fits_seconds is not None and state.fits_seconds >= 0
    fits_at = stored(campaign, sums.FITS).computed_at

    def queue(interval: float, *, can_wait: bool = True):
        with override_settings(CONCORD_FITS_INTERVAL=interval):
            before = timezone.now()
            when = jobs.fits_refresh_at(campaign.pk, can_wait=can_wait)
            after = timezone.now()
        ScoringState.objects.filter(campaign=campaign).update(fits_queued_at=None)  # not queued for the next
        return when, before, after

    # a merge of 3,600 s of CPU: the next refresh FITS_WAIT times that after the fits' own time
    ScoringState.objects.filter(campaign=campaign).update(fits_seconds=3600.0)
    when, _, _ = queue(0)
    assert when == fits_at + timedelta(seconds=jobs.FITS_WAIT * 3600.0)
    assert queue(0, can_wait=False)[0] is None  # a backend that cannot wait: not queued before it is due
    ScoringState.objects.filter(campaign=campaign).update(fits_seconds=0.0)
    # the interval from now: the changes after a quiet spell are merged together, not the first alone
    when, before, after = queue(3600)
    assert before + timedelta(seconds=3600) <= when <= after + timedelta(seconds=3600)
    assert queue(3600, can_wait=False)[0] is None
    # due now; queued once
    with override_settings(CONCORD_FITS_INTERVAL=0):
        when = jobs.fits_refresh_at(campaign.pk, can_wait=False)
        assert when is not None and when <= timezone.now()
        assert ScoringState.objects.get(campaign=campaign).fits_queued_at == when
        assert jobs.fits_refresh_at(campaign.pk) is None  # queued already
    assert jobs.refresh_fits(campaign.pk)
    assert ScoringState.objects.get(campaign=campaign).fits_queued_at is None
    fits = stored(campaign, sums.FITS)
    assert fits.computed_at == agreement.computed_at and fits.judgments_seen == agreement.judgments_seen
    jobs.recompute_reports(campaign.pk)
    refreshed = stored(campaign)
    assert (refreshed.fits_at, refreshed.fits_judgments) == (fits.computed_at, fits.judgments_seen)
    assert differences(refreshed.data, scratch(campaign)) == []
    # nothing changed since the fits: none due, however long ago they were
    with override_settings(CONCORD_FITS_INTERVAL=0):
        assert jobs.fits_refresh_at(campaign.pk) is None


def test_the_fits_wait_for_a_share_of_their_judgments_to_change_or_for_their_age(people, make_user):
    """A refresh is queued the interval from now once the topics changed since the fits are
    FITS_SHARE of the judgments they hold; before that, not until the fits are
    CONCORD_FITS_MAX_AGE old. Each rebuild from the sums counts its topics; a refresh takes
    off those it read, a full rebuild all."""
    kind = FITS_KINDS[0]
    campaign = build(people, make_user, kind)
    jobs.recompute_reports(campaign.pk)

    def changes() -> int:
        return ScoringState.objects.get(campaign=campaign).changes_since_fits

    assert changes() == 0
    examples = KINDS[kind].examples
    fresh = Assignment.objects.filter(topic__campaign=campaign).select_related("topic", "assessor")
    for assignment in list(fresh.order_by("topic__position", "assessor__username"))[:6:2]:
        save_judgment(
            topic=assignment.topic,
            assessor=assignment.assessor,
            payload=dict(examples.payloads[0]),
            status="submitted",
            version=0,
        )
        jobs.recompute_reports(campaign.pk)
    counted = changes()
    assert counted == 3  # one topic a rebuild
    fits = stored(campaign, sums.FITS)
    # as if the fits held 100 times the changes since: 1% not reached, so due at their age
    Report.objects.filter(pk=fits.pk).update(judgments_seen=100 * counted + 1)
    with override_settings(CONCORD_FITS_INTERVAL=5, CONCORD_FITS_MAX_AGE=3600):
        when = jobs.fits_refresh_at(campaign.pk)
        assert when == fits.computed_at + timedelta(seconds=3600)
        assert ScoringState.objects.get(campaign=campaign).fits_queued_at == when
        assert jobs.fits_refresh_at(campaign.pk) is None  # queued for then already
        # 1% reached: queued again, sooner (the interval from now), replacing the later one
        Report.objects.filter(pk=fits.pk).update(judgments_seen=100 * counted)
        before = timezone.now()
        sooner = jobs.fits_refresh_at(campaign.pk)
        assert before + timedelta(seconds=5) <= sooner < when
        assert ScoringState.objects.get(campaign=campaign).fits_queued_at == sooner
    # the task queued for the later time finds it replaced, and does nothing
    assert not jobs.take_fits_refresh(campaign.pk)
    ScoringState.objects.filter(campaign=campaign).update(fits_queued_at=timezone.now())
    assert jobs.take_fits_refresh(campaign.pk)
    assert ScoringState.objects.get(campaign=campaign).fits_queued_at is None
    # a refresh takes off the changes it holds; one more change counts again from there
    assert jobs.refresh_fits(campaign.pk)
    assert changes() == 0
    assert not jobs.refresh_fits(campaign.pk)  # nothing changed since: no merge
    withdraw_judgment(topic=assignment.topic, assessor=assignment.assessor, version=1, reason="test")
    jobs.recompute_reports(campaign.pk)
    assert changes() == 1
    jobs.recompute_reports(campaign.pk, everything=True)  # a full rebuild: the fits are its own
    assert changes() == 0


@pytest.mark.parametrize("kind", sorted(set(SUMS_KINDS) - set(FITS_KINDS)))
def test_a_report_that_takes_nothing_from_the_fits_is_current_and_queues_no_refresh(people, make_user, kind):
    campaign = build(people, make_user, kind)
    jobs.recompute_reports(campaign.pk)
    rng, state = random.Random(f"nofits-{kind}"), {"second_run": True}  # no run: a full rebuild
    for _ in range(10):
        step(rng, campaign, people, state)
        jobs.recompute_reports(campaign.pk)
    agreement = stored(campaign)
    assert stored(campaign, sums.SUMS).computed_at > stored(campaign, sums.FITS).computed_at  # from the sums
    assert agreement.fits_at == agreement.computed_at
    assert differences(agreement.data, scratch(campaign)) == []
    with override_settings(CONCORD_FITS_INTERVAL=0):
        assert jobs.fits_refresh_at(campaign.pk) is None
    assert ScoringState.objects.get(campaign=campaign).fits_queued_at is None


@pytest.mark.parametrize("kind", SUMS_KINDS)
def test_what_the_sums_cannot_follow_rebuilds_in_full(people, make_user, kind):
    campaign = build(people, make_user, kind)
    rng, state = random.Random(f"full-{kind}"), {}
    for _ in range(6):
        step(rng, campaign, people, state)
    jobs.recompute_reports(campaign.pk)
    # a topic deleted: its counts would stay in the sums
    Topic.objects.filter(campaign=campaign, external_id="t4").delete()
    step(rng, campaign, people, state)
    jobs.recompute_reports(campaign.pk)
    agreement = stored(campaign)
    assert agreement.fits_at == agreement.computed_at  # a full rebuild: the fits are its own
    assert differences(agreement.data, scratch(campaign)) == []
    assert jobs.check_reports(campaign) == []
    # the campaign's params changed (they may change what the figures are)
    campaign.params = {**(campaign.params or {}), "resamples": 200}
    campaign.save(update_fields=["params"])
    step(rng, campaign, people, state)
    jobs.recompute_reports(campaign.pk)
    agreement = stored(campaign)
    assert agreement.fits_at == agreement.computed_at
    assert differences(agreement.data, scratch(campaign)) == []


def test_the_report_page_says_how_current_its_costly_figures_are(client, people, make_user):
    campaign = build(people, make_user, "pairs")
    jobs.recompute_reports(campaign.pk)
    rng, state = random.Random("page"), {}
    for _ in range(8):
        step(rng, campaign, people, state)
        jobs.recompute_reports(campaign.pk)
    agreement = stored(campaign)
    assert agreement.fits_at < agreement.computed_at
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/?section=report").content.decode()
    assert 'id="fits-as-of"' in page
    assert f"from {agreement.fits_judgments} judgment" in page
    since = agreement.judgments_seen - agreement.fits_judgments
    assert (f"({since} more since)" in page) == (since != 0)
    jobs.refresh_fits(campaign.pk)
    jobs.recompute_reports(campaign.pk)
    page = client.get(f"/campaigns/{campaign.pk}/?section=report").content.decode()
    assert "more since" not in page


def test_stored_sums_that_do_not_hold_a_partial_rebuild_in_full(people, make_user):
    """A crowd's pair tables refuse a count below zero: stored sums that do not hold a stored
    partial (written by hand, or damaged) make the rebuild count everything afresh, not fail."""
    campaign = build(people, make_user, "pairs")
    topic = campaign.topics.order_by("position").first()
    payload = dict(KINDS["pairs"].examples.payloads[0])
    for assignment in Assignment.objects.filter(topic=topic)[:2]:  # a pair of assessors on one topic
        save_judgment(topic=topic, assessor=assignment.assessor, payload=payload, status="submitted", version=0)
    jobs.recompute_reports(campaign.pk)
    row = stored(campaign, sums.SUMS)
    emptied = {**row.data, "sums": typed.dump(KINDS["pairs"].reports.sums.empty())}
    Report.objects.filter(pk=row.pk).update(data=emptied)
    # the pair is in the topic's stored partial, not in the emptied sums: one of them withdraws
    judgment = Judgment.objects.filter(topic=topic).first()
    withdraw_judgment(topic=judgment.topic, assessor=judgment.assessor, version=judgment.version, reason="test")
    with mock.patch.object(jobs.log, "warning") as warned:
        jobs.recompute_reports(campaign.pk)
    assert warned.called  # the sums could not follow: counted afresh
    assert jobs.check_reports(campaign) == []
    assert differences(stored(campaign).data, scratch(campaign)) == []
