"""A worker decodes a campaign's runs once (scoring.selectors.campaign_runs): the runs of the
campaigns it built last are kept by id and import time, so a rebuild after a submission reads
no run's data again, a run imported or deleted since is seen at once, and no kind changes the
kept data in place (it is shared between rebuilds)."""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotate.imports.write import import_runs
from annotate.models import Assignment, Run
from annotate.services.judgments import save_judgment
from kinds.registry import KINDS
from scoring import jobs, selectors
from scoring.selectors import campaign_runs, report_input, topic_report
from tests.scoring.test_incremental import build, run_data, step

pytestmark = pytest.mark.django_db

RUN_KINDS = sorted(kind for kind, spec in KINDS.items() if spec.examples.run is not None)


@pytest.fixture(autouse=True)
def nothing_kept():
    selectors._run_data.clear()
    yield
    selectors._run_data.clear()


def run_data_reads(queries) -> int:
    return sum(1 for q in queries if q["sql"].startswith("SELECT") and '"annotate_run"."data"' in q["sql"])


def submit_one(campaign) -> None:
    examples = KINDS[campaign.kind].examples
    assignment = next(
        a
        for a in Assignment.objects.filter(topic__campaign=campaign).select_related("topic", "assessor")
        if not a.topic.judgments.filter(assessor=a.assessor).exists()
    )
    save_judgment(
        topic=assignment.topic,
        assessor=assignment.assessor,
        payload=dict(examples.payloads[0]),
        status="submitted",
        version=0,
    )


def test_a_rebuild_after_a_submission_reads_no_run_data_again(people, make_user):
    campaign = build(people, make_user, "relevance")
    jobs.recompute_reports(campaign.pk)
    submit_one(campaign)
    with CaptureQueriesContext(connection) as queries:
        jobs.recompute_reports(campaign.pk)
    assert run_data_reads(queries) == 0
    assert [run.name for run in report_input(campaign).runs] == ["run-a"]


def test_a_run_imported_or_deleted_since_is_read_at_once(people, make_user):
    campaign = build(people, make_user, "relevance")
    first = campaign_runs(campaign)
    assert [run.name for run in first] == ["run-a"]
    other = run_data(dict(KINDS["relevance"].examples.run))
    import_runs(campaign=campaign, runs=[{"name": "run-0", "data": other}])
    with CaptureQueriesContext(connection) as queries:
        found = campaign_runs(campaign)
    assert [run.name for run in found] == ["run-0", "run-a"]  # in name order, as the campaign lists them
    assert run_data_reads(queries) == 1 and str(found[0].pk) in queries[-1]["sql"]  # the new one's alone
    assert found[0].data == other and found[1].data is first[0].data
    Run.objects.filter(campaign=campaign, name="run-a").delete()
    assert [run.name for run in campaign_runs(campaign)] == ["run-0"]


def test_the_runs_of_a_few_campaigns_are_kept(people, make_user):
    campaign = build(people, make_user, "relevance")
    campaign_runs(campaign)
    others = [-n for n in range(1, selectors.RUNS_CAMPAIGNS + 1)]
    for other in others:  # other campaigns' runs, read after it
        selectors._run_data[other] = {}
    campaign_runs(campaign)  # read again: the newest, and the oldest other one is dropped
    assert list(selectors._run_data) == [*others[1:], campaign.pk]


@pytest.mark.parametrize("kind", RUN_KINDS)
def test_no_kind_changes_the_run_data_it_is_given(people, make_user, kind):
    """Rebuilds from the sums and in full, the fits' refresh and a topic's report, after random
    changes: the kept data still equals the stored runs."""
    campaign = build(people, make_user, kind)
    rng, state = random.Random(f"runs-{kind}"), {"second_run": True}
    jobs.recompute_reports(campaign.pk)
    for _ in range(6):
        step(rng, campaign, people, state)
        jobs.recompute_reports(campaign.pk)
    jobs.refresh_fits(campaign.pk)
    jobs.recompute_reports(campaign.pk, everything=True)
    topic_report(campaign.topics.order_by("position").first())
    kept = selectors._run_data[campaign.pk]
    assert kept
    for (pk, _), data in kept.items():
        assert data == Run.objects.get(pk=pk).data
