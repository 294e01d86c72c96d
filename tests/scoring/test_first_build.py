"""A first build split into chunks that any number of workers share (scoring/schedule.py,
"Chunked builds"): the reports equal a recompute from scratch, whatever the order the
chunks run in; a change that lands during the build is never forgotten; a chunk of a
build whose hold was lost stores nothing; the report page says how far the build is."""

from __future__ import annotations

import copy

import pytest
from django.db import transaction
from django.test import TestCase, override_settings
from django_tasks import default_task_backend

from annotate.imports.write import import_runs, import_topics
from annotate.models import Assignment
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import reopen_judgment, save_judgment
from annotate.services.members import add_member
from kinds.registry import KINDS
from scoring import jobs, schedule, selectors, tasks
from scoring import services as scoring_services
from scoring.models import Report, ScoringState, StaleTopic, TopicPartial

pytestmark = pytest.mark.django_db

#: Tasks stored, not run: each test plays the workers, taking them in the order it chooses.
DEFERRING = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend", "QUEUES": ["default", "analyses"]}}
TOPICS = 5


def judged(people, kind: str):
    """A campaign of TOPICS copies of the kind's example topic, each judged by alice and bob."""
    examples = KINDS[kind].examples
    campaign = create_campaign(
        creator=people["organiser"], kind=kind, name=f"Build {kind}", overlap=2, params=dict(examples.params) or None
    )
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    ids = [f"t{i}" for i in range(1, TOPICS + 1)]
    import_topics(
        campaign=campaign, topics=[{"external_id": t, "data": copy.deepcopy(dict(examples.topic))} for t in ids]
    )
    if examples.run is not None:
        run = {
            key: {t: value["t1"] for t in ids} if isinstance(value, dict) and "t1" in value else value
            for key, value in examples.run.items()
        }
        import_runs(campaign=campaign, runs=[{"name": "run-a", "data": copy.deepcopy(run)}])
    for n, assignment in enumerate(
        Assignment.objects.filter(topic__campaign=campaign).select_related("topic", "assessor")
    ):
        payload = dict(examples.payloads[n % len(examples.payloads)])
        save_judgment(
            topic=assignment.topic, assessor=assignment.assessor, payload=payload, status="submitted", version=0
        )
    ScoringState.objects.filter(campaign=campaign).update(pending=False)
    return campaign


def queued(name: str) -> list:
    return [result for result in default_task_backend.results if result.task.name == name]


def call(task, *args) -> None:
    """Run ``task`` as a worker does: its transactions' on-commit work (the tasks it queues) too."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        task.call(*args)


def run_queued(name: str, order=None) -> None:
    """Run the stored tasks called ``name`` (in ``order`` of their indices), as workers would."""
    found = queued(name)
    default_task_backend.clear()
    for index in order or range(len(found)):
        call(found[index].task, *found[index].args)


@override_settings(TASKS=DEFERRING, CONCORD_BUILD_CHUNK=2, CONCORD_REBUILD_INTERVAL=0)
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_build_in_chunks_run_in_any_order_equals_a_recompute_from_scratch(people, kind):
    campaign = judged(people, kind)
    call(tasks.recompute_campaign_reports, campaign.pk)
    chunks = queued("build_reports_chunk")
    # 5 stale topics in chunks of 2: three tasks, nothing built yet, the campaign still held.
    assert [len(c.args[2]) for c in chunks] == [2, 2, 1]
    state = ScoringState.objects.get(campaign=campaign)
    assert state.build_chunks == 3 and state.pending and state.running_until is not None
    assert not Report.objects.filter(campaign=campaign).exists()
    run_queued("build_reports_chunk", order=[2, 0, 1])
    # The last chunk handed the campaign to the rebuild that merges the campaign report.
    [merge] = queued("recompute_campaign_reports")
    assert ScoringState.objects.get(campaign=campaign).running_until is None
    assert TopicPartial.objects.filter(campaign=campaign).count() == TOPICS
    assert not Report.objects.filter(campaign=campaign).exists()
    run_queued("recompute_campaign_reports")
    assert not StaleTopic.objects.filter(campaign=campaign).exists()
    assert Report.objects.filter(campaign=campaign).exists()
    assert jobs.check_reports(campaign) == []
    state = ScoringState.objects.get(campaign=campaign)
    assert (state.build_chunks, state.running_until, state.pending) == (0, None, False)


@override_settings(TASKS=DEFERRING, CONCORD_BUILD_CHUNK=2, CONCORD_REBUILD_INTERVAL=0)
def test_a_judgment_saved_during_the_build_is_in_the_merged_report(people, monkeypatch):
    """A submission between a chunk's read and its store re-marks the topic: the chunk's
    older read is stored but its mark stays, the submission queues nothing (the flag
    stays set) and the rebuild after the last chunk computes the topic again."""
    campaign = judged(people, "pairs")
    call(tasks.recompute_campaign_reports, campaign.pk)
    first = queued("build_reports_chunk")[0]
    topic = campaign.topics.get(pk=first.args[2][0])
    judgment = topic.judgments.get(assessor=people["alice"])
    other = next(p for p in KINDS["pairs"].examples.payloads if p != judgment.submitted_payload)
    real = jobs._topic_reports

    def submission_lands_meanwhile(*args, **kwargs):
        built = real(*args, **kwargs)
        reopen_judgment(topic=topic, assessor=people["alice"], version=judgment.version)
        save_judgment(
            topic=topic, assessor=people["alice"], payload=dict(other), status="submitted", version=judgment.version + 1
        )
        return built

    monkeypatch.setattr(jobs, "_topic_reports", submission_lands_meanwhile)
    call(first.task, *first.args)
    monkeypatch.setattr(jobs, "_topic_reports", real)
    assert StaleTopic.objects.filter(topic=topic).exists()
    assert queued("recompute_campaign_reports") == []  # the flag was set: it rides with the build
    default_task_backend.results.remove(first)
    run_queued("build_reports_chunk")
    run_queued("recompute_campaign_reports")
    assert not StaleTopic.objects.filter(campaign=campaign).exists()
    assert jobs.check_reports(campaign) == []
    assert selectors.topic_report(topic).judgments_seen == 2
    assert topic.judgments.get(assessor=people["alice"]).submitted_payload == other


@override_settings(TASKS=DEFERRING, CONCORD_BUILD_CHUNK=2, CONCORD_REBUILD_INTERVAL=0)
def test_a_chunk_of_a_build_whose_hold_was_lost_stores_nothing(people):
    """Its lease expired and another rebuild took the campaign: the late chunk's older read
    must not overwrite what the newer hold stores, nor count as one of its chunks."""
    campaign = judged(people, "pairs")
    call(tasks.recompute_campaign_reports, campaign.pk)
    late = queued("build_reports_chunk")[0]
    ScoringState.objects.filter(campaign=campaign).update(running_until=None)  # as an expired lease
    default_task_backend.clear()
    call(tasks.recompute_campaign_reports, campaign.pk)  # the new hold splits again
    assert ScoringState.objects.get(campaign=campaign).build_chunks == 3
    call(late.task, *late.args)
    assert not TopicPartial.objects.filter(campaign=campaign).exists()
    assert StaleTopic.objects.filter(campaign=campaign).count() == TOPICS
    assert ScoringState.objects.get(campaign=campaign).build_chunks == 3
    run_queued("build_reports_chunk")
    run_queued("recompute_campaign_reports")
    assert jobs.check_reports(campaign) == [] and not StaleTopic.objects.filter(campaign=campaign).exists()


@override_settings(TASKS=DEFERRING, CONCORD_BUILD_CHUNK=2, CONCORD_REBUILD_INTERVAL=0)
def test_a_rebuild_during_a_split_build_waits_for_it(people):
    """The split build keeps the campaign held until its last chunk: a rebuild picked up
    meanwhile (a deferred one) computes nothing and queues itself for later."""
    campaign = judged(people, "pairs")
    call(tasks.recompute_campaign_reports, campaign.pk)
    default_task_backend.clear()
    assert schedule.hold(campaign.pk) is not None
    call(tasks.recompute_campaign_reports, campaign.pk)
    assert not TopicPartial.objects.filter(campaign=campaign).exists()
    assert [r.task.name for r in default_task_backend.results] == ["recompute_campaign_reports"]


@override_settings(CONCORD_BUILD_CHUNK=3)
def test_a_small_rebuild_is_not_split(people, django_capture_on_commit_callbacks):
    campaign = judged(people, "pairs")
    StaleTopic.objects.filter(campaign=campaign, topic__external_id__in=["t1", "t2"]).delete()
    assert jobs.build_chunks(campaign.pk) == []
    with django_capture_on_commit_callbacks(execute=True):
        call(tasks.recompute_campaign_reports, campaign.pk)
    assert ScoringState.objects.get(campaign=campaign).build == 1  # one hold, no chunks
    assert jobs.check_reports(campaign) == []


@override_settings(CONCORD_BUILD_CHUNK=2)
def test_a_build_on_the_in_process_backend_runs_to_the_end(people, django_capture_on_commit_callbacks):
    """One worker (the tests' immediate backend): the split, every chunk and the merge in turn."""
    campaign = judged(people, "relevance")
    with django_capture_on_commit_callbacks(execute=True):
        tasks.enqueue_recompute(campaign.pk)
    assert not StaleTopic.objects.filter(campaign=campaign).exists()
    assert jobs.check_reports(campaign) == []
    # The split's hold, then the merging rebuild's.
    state = ScoringState.objects.get(campaign=campaign)
    assert state.build == 2
    # the merging rebuild counted the progress in full: the next rebuild need not
    assert state.progress_recount_at is None


@pytest.mark.django_db(transaction=True)
@override_settings(CONCORD_BUILD_CHUNK=2)
def test_a_build_whose_chunks_run_as_they_are_queued_leaves_no_recount(people, monkeypatch):
    """A queue that runs each task on its enqueue (the immediate backend, real commits): the
    chunks and the merging rebuild run inside the split's commit; that rebuild counts the
    progress in full, and nothing asks the next rebuild to count it again."""
    campaign = judged(people, "pairs")
    chunks = []
    build_chunk = jobs.build_chunk
    monkeypatch.setattr(jobs, "build_chunk", lambda *args, **kw: chunks.append(args) or build_chunk(*args, **kw))
    with transaction.atomic():  # as an import's last commit: every topic stale, the rebuild queued on commit
        scoring_services.mark_all_stale(campaign)
    assert len(chunks) == 3 and not StaleTopic.objects.filter(campaign=campaign).exists()
    assert ScoringState.objects.get(campaign=campaign).progress_recount_at is None


@override_settings(TASKS=DEFERRING, CONCORD_BUILD_CHUNK=2, CONCORD_REBUILD_INTERVAL=0)
def test_build_progress_counts_the_topics_with_a_fresh_report(people):
    campaign = judged(people, "pairs")
    assert selectors.build_progress(campaign) == selectors.BuildProgress(0, TOPICS)
    call(tasks.recompute_campaign_reports, campaign.pk)
    run_queued("build_reports_chunk", order=[1])
    progress = selectors.build_progress(campaign)
    assert progress == selectors.BuildProgress(2, TOPICS)
    assert progress.text == "Building: 2 of 5 topics"
    assert selectors.BuildProgress(4210, 10000).text == "Building: 4,210 of 10,000 topics"
    default_task_backend.clear()
    StaleTopic.objects.filter(campaign=campaign).delete()
    assert selectors.build_progress(campaign) is None


@override_settings(CONCORD_BUILD_CHUNK=2)
def test_a_few_stale_topics_are_no_build(people):
    campaign = judged(people, "pairs")
    StaleTopic.objects.filter(campaign=campaign, topic__external_id__in=["t1", "t2", "t3"]).delete()
    assert selectors.build_progress(campaign) is None


@override_settings(TASKS=DEFERRING, CONCORD_BUILD_CHUNK=2, CONCORD_REBUILD_INTERVAL=0)
def test_the_report_fragment_says_how_far_the_build_is_and_its_etag_follows(client, people):
    campaign = judged(people, "pairs")
    call(tasks.recompute_campaign_reports, campaign.pk)
    client.force_login(people["organiser"])
    url = f"/campaigns/{campaign.pk}/report/"
    first = client.get(url)
    assert first.status_code == 200
    assert "Building: 0 of 5 topics" in first.content.decode()
    run_queued("build_reports_chunk", order=[0])
    again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200 and again["ETag"] != first["ETag"]
    assert "Building: 2 of 5 topics" in again.content.decode()
    summary = client.get(f"/campaigns/{campaign.pk}/?section=summary")
    assert 'id="building"' in summary.content.decode() and "Building: 2 of 5 topics" in summary.content.decode()


def test_recovery_counts_a_queued_chunk_as_the_campaigns_rebuild(people):
    """While a chunk of the build waits in the queue, recovery queues no other rebuild of
    its campaign; once the chunk's worker is lost, it does (its topics are still stale)."""
    from django_tasks_db.models import DBTaskResult

    from scoring.services import recover_jobs

    campaign = judged(people, "pairs")
    database = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": []}}
    with override_settings(TASKS=database):
        result = tasks.build_reports_chunk.enqueue(campaign.pk, 1, [campaign.topics.first().pk])
        assert recover_jobs(grace=0, dry_run=True).recomputed == []
        DBTaskResult.objects.get(pk=result.id).claim("w1")
        assert recover_jobs(dead_workers=["w1"], grace=0, dry_run=True).recomputed == [campaign.pk]


@override_settings(CONCORD_BUILD_CHUNK=2, CONCORD_REBUILD_INTERVAL=0)
def test_the_other_campaigns_rebuilds_are_taken_before_a_first_builds_chunks(people):
    """One organiser's import must not leave every other campaign's report stale until
    it is built: on the database queue a worker takes a rebuild queued after the
    chunks before any of them (scoring/schedule.py, ``behind``)."""
    from django_tasks_db.models import DBTaskResult

    big, other = judged(people, "pairs"), judged(people, "relevance")
    database = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": []}}
    with override_settings(TASKS=database):
        call(tasks.recompute_campaign_reports, big.pk)
        chunks = list(DBTaskResult.objects.filter(task_path=tasks.build_reports_chunk.module_path))
        assert len(chunks) == 3 and {c.priority for c in chunks} == {schedule.BUILD_PRIORITY}
        tasks.enqueue_recompute(other.pk)
        # What db_worker claims next: the first of the ready tasks in the model's order.
        claimed = DBTaskResult.objects.ready().get_locked()
        assert claimed.task_path == tasks.recompute_campaign_reports.module_path
        assert claimed.args_kwargs["args"] == [other.pk]
        claimed.delete()
        assert DBTaskResult.objects.ready().get_locked().task_path == tasks.build_reports_chunk.module_path


@override_settings(TASKS=DEFERRING)
def test_a_backend_without_priorities_queues_the_chunks_as_they_are(monkeypatch):
    """RQ has no priorities (django-tasks refuses one there): the chunk task is left as it is."""
    backend = tasks.build_reports_chunk.get_backend()
    assert schedule.behind(tasks.build_reports_chunk).priority == schedule.BUILD_PRIORITY
    monkeypatch.setattr(type(backend), "supports_priority", False)
    assert schedule.behind(tasks.build_reports_chunk) is tasks.build_reports_chunk
