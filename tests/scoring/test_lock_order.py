"""A rebuild's transaction takes its row locks in the order every submission takes them
(scoring.jobs.LOCK_ORDER): the topics' stale marks, then the campaign's state row. In the other
order a rebuild that updated the state row and then cleared a mark a submission held would wait
for that submission while it waited for the state row: a deadlock, which PostgreSQL ends by
refusing the submission (a 503 in tests/load). Checked on the statements each path sends: between
the start of the transaction that clears the marks and that clearing, nothing writes the state row."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from annotate.models import Assignment
from annotate.services.judgments import reopen_judgment, save_judgment
from scoring import jobs, progress_sums
from scoring.models import StaleTopic
from tests.scoring.test_first_build import DEFERRING, judged

pytestmark = pytest.mark.django_db


def writes_state_before_clearing(statements: list[str]) -> list[str]:
    """The statements writing the state row between the clearing transaction's start (its
    SAVEPOINT, inside the test's transaction) and the clearing of the stale marks."""
    cleared = max(k for k, sql in enumerate(statements) if sql.startswith('DELETE FROM "scoring_staletopic"'))
    began = max(k for k, sql in enumerate(statements[:cleared]) if sql.startswith("SAVEPOINT"))
    return [
        sql
        for sql in statements[began:cleared]
        if "scoring_scoringstate" in sql and sql.split()[0] in {"UPDATE", "INSERT"}
    ]


def resubmit(campaign) -> None:
    assignment = Assignment.objects.filter(topic__campaign=campaign).select_related("topic", "assessor").first()
    judgment = assignment.topic.judgments.get(assessor=assignment.assessor)
    reopen_judgment(topic=assignment.topic, assessor=assignment.assessor, version=judgment.version)
    save_judgment(
        topic=assignment.topic,
        assessor=assignment.assessor,
        payload=dict(judgment.submitted_payload),
        status="submitted",
        version=judgment.version + 1,
    )


def captured(fn) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        fn()
    return [q["sql"] for q in queries.captured_queries]


@override_settings(TASKS=DEFERRING, CONCORD_LIVE_PROGRESS_LIMIT=1)
@pytest.mark.parametrize("path", ["full", "sums"])
def test_a_rebuild_clears_the_marks_before_it_writes_the_state_row(people, path):
    campaign = judged(people, "pairs")
    jobs.recompute_reports(campaign.pk)
    resubmit(campaign)
    # a full count of the progress asked for: the rebuild clears that flag on the state row
    progress_sums.recount_wanted(campaign.pk)
    statements = captured(lambda: jobs.recompute_reports(campaign.pk, everything=path == "full"))
    assert any("progress_recount_at" in sql for sql in statements if "scoring_scoringstate" in sql)
    assert writes_state_before_clearing(statements) == []
    assert not StaleTopic.objects.filter(campaign=campaign).exists()


@override_settings(TASKS=DEFERRING)
def test_a_chunk_of_a_first_build_clears_its_marks_before_it_counts_itself(people):
    from scoring import schedule

    campaign = judged(people, "pairs")
    jobs.recompute_reports(campaign.pk)
    resubmit(campaign)
    build = schedule.current_build(campaign.pk)
    topic_ids = list(StaleTopic.objects.filter(campaign=campaign).values_list("topic_id", flat=True))
    schedule.split(campaign.pk, build, 1)
    statements = captured(
        lambda: jobs.build_chunk(campaign.pk, topic_ids, count=lambda: schedule.chunk_done(campaign.pk, build))
    )
    assert writes_state_before_clearing(statements) == []
    assert not StaleTopic.objects.filter(campaign=campaign).exists()


@override_settings(TASKS=DEFERRING)
def test_a_chunk_whose_hold_was_lost_leaves_the_marks(people):
    campaign = judged(people, "pairs")
    jobs.recompute_reports(campaign.pk)
    resubmit(campaign)
    topic_ids = list(StaleTopic.objects.filter(campaign=campaign).values_list("topic_id", flat=True))
    assert jobs.build_chunk(campaign.pk, topic_ids, count=lambda: None) is None
    assert set(StaleTopic.objects.filter(campaign=campaign).values_list("topic_id", flat=True)) == set(topic_ids)
