"""A rebuild stores its topics' partials and disagreements and clears their marks in a
few statements for any number of topics (scoring.jobs._store_topics, _clear_marks): a
first build wrote each topic's report with an update_or_create and cleared each mark
with a DELETE of its own, some six statements a topic."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotate.imports.write import import_topics
from annotate.models import Assignment, Topic
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import reopen_judgment, save_judgment
from annotate.services.members import add_member
from kinds.registry import KINDS
from scoring import jobs, selectors
from scoring.models import StaleTopic, TopicPartial
from tests.campaigns import pairs_topics

pytestmark = pytest.mark.django_db


def judged(people, topics: int):
    """A pairs campaign of ``topics`` topics, alice and bob disagreeing on some candidates."""
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name=f"Writes {topics}", overlap=2)
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(campaign=campaign, topics=pairs_topics(topics))
    for assignment in Assignment.objects.filter(topic__campaign=campaign).select_related("topic", "assessor"):
        first = assignment.assessor.username == "alice"
        matches = {f"c{c}": (c + assignment.topic.position) % (2 if first else 3) == 0 for c in range(1, 5)}
        save_judgment(
            topic=assignment.topic,
            assessor=assignment.assessor,
            payload={"matches": matches},
            status="submitted",
            version=0,
        )
    return campaign


def writes(queries, table: str) -> int:
    return sum(
        1 for q in queries if f'"{table}"' in q["sql"] and q["sql"].split(None, 1)[0] in ("INSERT", "UPDATE", "DELETE")
    )


def rebuild_writes(campaign) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as queries:
        jobs.recompute_reports(campaign.pk)
    return (
        writes(queries, "scoring_report"),
        writes(queries, "scoring_topicpartial"),
        writes(queries, "scoring_staletopic"),
    )


def test_the_statements_of_a_rebuild_do_not_grow_with_its_topics(people):
    small, big = judged(people, 4), judged(people, 40)
    assert StaleTopic.objects.filter(campaign=big).count() == 40
    assert rebuild_writes(small) == rebuild_writes(big)
    assert not StaleTopic.objects.filter(campaign__in=[small, big]).exists()
    assert jobs.check_reports(big) == []


def test_each_topic_keeps_one_partial_with_its_disagreement_and_a_topic_marked_again_keeps_its_mark(people):
    campaign = judged(people, 6)
    jobs.recompute_reports(campaign.pk)
    q2 = Topic.objects.get(campaign=campaign, external_id="q2")
    judgment = q2.judgments.get(assessor__username="bob")
    reopen_judgment(topic=q2, assessor=judgment.assessor, version=judgment.version)
    save_judgment(
        topic=q2,
        assessor=judgment.assessor,
        payload={"matches": {f"c{c}": True for c in range(1, 5)}},
        status="submitted",
        version=judgment.version + 1,
    )
    marks = dict(StaleTopic.objects.filter(campaign=campaign).values_list("topic_id", "revision"))
    assert list(marks) == [q2.pk]
    # Marked again after the rebuild read the marks: that mark stays for the next rebuild.
    real = jobs._topic_reports

    def read_before_the_mark(given, reports, topics, progress):
        StaleTopic.objects.filter(topic=q2).update(revision=marks[q2.pk] + 1)
        return real(given, reports, topics, progress)

    jobs._topic_reports = read_before_the_mark
    try:
        jobs.recompute_reports(campaign.pk)
    finally:
        jobs._topic_reports = real
    assert StaleTopic.objects.filter(topic=q2).exists()
    jobs.recompute_reports(campaign.pk)
    assert not StaleTopic.objects.filter(campaign=campaign).exists()
    reports = KINDS["pairs"].reports
    given = selectors.report_input(campaign)
    disputed = 0
    for topic in given.topics:
        [row] = TopicPartial.objects.filter(campaign=campaign, topic=topic)
        found = reports.disagreement(reports.topic(given, topic))
        expected = (None, "") if found is None else (found.value, found.reason)
        assert (row.disagreement, row.disagreement_reason) == expected
        disputed += found is not None
    assert disputed >= 2
    assert jobs.check_reports(campaign) == []


def test_a_kind_whose_partial_holds_the_votes_is_rebuilt_without_building_topic_reports(people, replace_spec):
    """pairs gives ``partial_disagreement``: a rebuild reads each topic's disagreement from its
    partial and never builds the topic's report (most of a first build's cost); what it stores
    is what a rebuild through the reports stores."""
    import dataclasses

    campaign = judged(people, 6)
    reports = KINDS["pairs"].reports
    built = []

    def counted(given, topic):
        built.append(topic.pk)
        return reports.topic(given, topic)

    replace_spec("pairs", reports=dataclasses.replace(reports, topic=counted))
    jobs.recompute_reports(campaign.pk)
    assert built == []
    fast = list(
        TopicPartial.objects.filter(campaign=campaign)
        .order_by("topic_id")
        .values_list("topic_id", "data", "disagreement", "disagreement_reason")
    )
    replace_spec("pairs", reports=dataclasses.replace(reports, topic=counted, partial_disagreement=None))
    jobs.recompute_reports(campaign.pk, everything=True)
    assert sorted(built) == sorted(campaign.topics.values_list("pk", flat=True))
    through_reports = list(
        TopicPartial.objects.filter(campaign=campaign)
        .order_by("topic_id")
        .values_list("topic_id", "data", "disagreement", "disagreement_reason")
    )
    assert [(t, bytes(d), v, r) for t, d, v, r in fast] == [(t, bytes(d), v, r) for t, d, v, r in through_reports]
    assert sum(v is not None and v > 0 for _, _, v, _ in fast) >= 2
