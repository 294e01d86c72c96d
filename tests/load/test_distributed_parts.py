"""The parts of ``benchmarks.distributed`` that run inside Django, on a small
generated crowd file: the importer reads it as CrowdTruth (every label, its
workers, the gold run), the freshness assessor gets exactly the sample topics,
and the check counts what is there. (The benchmark itself starts PostgreSQL,
Redis and gunicorn: it is not in the suite.)"""

from __future__ import annotations

import pytest

from annotate.imports import write
from annotate.models import Assignment, Campaign, Judgment, Run
from benchmarks import distributed

pytestmark = pytest.mark.django_db


def test_the_generated_crowd_file_imports_as_rte_does_and_the_check_counts_it(tmp_path):
    path = tmp_path / "crowd.csv"
    rows = distributed.write_crowd_csv(path, 30)
    assert rows == 300
    plan = distributed.setup()
    campaign = plan["campaign"]
    summary = write.import_judgment_file(Campaign.objects.get(pk=campaign), path.read_bytes(), filename=path.name)
    # 30 items x 10 distinct workers of 20 (items // 50 is fewer: at least twice the labels per item).
    assert (summary.judgments, summary.topics, summary.assessors_created) == (300, 30, 20)
    assert {len(workers) for workers in _workers_by_topic(campaign).values()} == {10}
    assert Run.objects.filter(campaign_id=campaign, name="gold").exists()
    fresh = distributed.assessor(campaign, 3)
    assert fresh["topics"] == ["1", "2", "3"]
    assert Assignment.objects.filter(assessor__username=fresh["username"]).count() == 3
    found = distributed.check(campaign, 300)
    assert (found["judgments"], found["submitted"], found["duplicates"]) == (300, 300, 0)
    assert found["database_bytes"] > 0


def _workers_by_topic(campaign):
    found: dict[str, set[int]] = {}
    for topic, assessor in Judgment.objects.filter(topic__campaign_id=campaign).values_list(
        "topic__external_id", "assessor_id"
    ):
        found.setdefault(topic, set()).add(assessor)
    return found
