"""A big campaign's progress counts kept as running sums (scoring/progress_sums.py): after every
rebuild the stored progress equals a count now (every field, the medians too), whatever the
changes before it; a rebuild after one change reads that topic's rows only; a change that moves
many topics' counts, or the assessors', has them counted again in full."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from django.db import connection
from django.test import TestCase, override_settings
from django.test.utils import CaptureQueriesContext
from django_tasks import default_task_backend

from annotate import adaptive
from annotate.imports.write import import_judgments, import_topics
from annotate.models import Assignment, Campaign, Judgment, Topic
from annotate.services.assignments import reassign_topic, top_up
from annotate.services.campaigns import create_campaign
from annotate.services.curations import save_curation
from annotate.services.flags import skip_topic, unskip_topic
from annotate.services.judgments import Conflict, NotAssigned, reopen_judgment, save_judgment, withdraw_judgment
from annotate.services.members import add_member, remove_member, set_model_judge
from concord import typed
from concord.errors import InvalidInput
from kinds.base import MODEL_JUDGES_COUNT
from scoring import jobs, progress, progress_sums, tasks
from scoring.models import ActiveTimes, ProgressMark, Report, ScoringState, StaleTopic, TopicProgress
from scoring.services import mark_all_stale
from tests.campaigns import pairs_topics

pytestmark = pytest.mark.django_db

FULL = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}
OTHER = {"matches": {"c1": False, "c2": False, "c3": True, "c4": True}}
DRAFT = {"matches": {"c1": True}}
TOPICS = 8


@pytest.fixture
def big(settings):
    """Every campaign counts as big: its progress is stored (and kept as running sums)."""
    settings.CONCORD_LIVE_PROGRESS_LIMIT = 1


@pytest.fixture
def crowded(campaign, people):
    """The fixture campaign with TOPICS topics (alice and bob on each) and an imported
    worker, w1, with a submitted judgment of q1 and q2 (so the counts say its raters)."""
    import_topics(campaign=campaign, topics=pairs_topics(TOPICS)[3:])
    import_judgments(
        campaign=campaign,
        entries=[{"assessor": "w1", "topic": t, "payload": FULL} for t in ("q1", "q2")],
    )
    return campaign


def topic(campaign, external_id: str) -> Topic:
    return Topic.objects.get(campaign=campaign, external_id=external_id)


def rebuilt(campaign) -> progress.CampaignProgress:
    """Rebuild; the stored progress must equal a count now, and the stored sums a full count."""
    jobs.recompute_reports(campaign.pk)
    campaign = Campaign.objects.get(pk=campaign.pk)  # its params as stored
    stored = progress.stored_progress([campaign.pk])[campaign.pk]
    assert stored == progress.count(campaign)
    assert progress_sums.check(campaign) == []
    return stored


def judgment_of(campaign, user, external_id: str) -> Judgment | None:
    return Judgment.objects.filter(topic__campaign=campaign, topic__external_id=external_id, assessor=user).first()


class Changes:
    """The changes a campaign goes through, each picked at random among those possible now."""

    def __init__(self, campaign, people, rng: random.Random):
        self.campaign, self.people, self.rng = campaign, people, rng

    def assigned(self, *statuses):
        """A random (topic, assessor) of the people who log in, whose judgment is in one of
        ``statuses`` (None: no judgment); None if there is none."""
        found = []
        for assignment in Assignment.objects.filter(
            topic__campaign=self.campaign, assessor__username__in=["alice", "bob", "carol"]
        ).select_related("topic", "assessor"):
            judgment = judgment_of(self.campaign, assignment.assessor, assignment.topic.external_id)
            if (judgment.status if judgment else None) in statuses:
                found.append((assignment.topic, assignment.assessor, judgment.version if judgment else 0))
        if not found:
            raise NotAssigned()
        return self.rng.choice(sorted(found, key=lambda one: (one[0].pk, one[1].pk)))

    def submit(self):
        chosen, user, version = self.assigned(None, "draft", "reopened")
        save_judgment(
            topic=chosen,
            assessor=user,
            payload=self.rng.choice([FULL, OTHER]),
            status="submitted",
            version=version,
            active_ms=self.rng.choice([0, 1000, 2500, 4000]),
        )

    def draft(self):
        chosen, user, version = self.assigned(None, "draft", "reopened", "withdrawn")
        save_judgment(
            topic=chosen,
            assessor=user,
            payload=DRAFT,
            status="draft",
            version=version,
            active_ms=self.rng.choice([0, 700, 3000]),
        )

    def reopen(self):
        chosen, user, version = self.assigned("submitted")
        reopen_judgment(topic=chosen, assessor=user, version=version)

    def withdraw(self):
        chosen, user, version = self.assigned("submitted", "reopened")
        withdraw_judgment(topic=chosen, assessor=user, version=version)

    def skip(self):
        chosen, user, _ = self.assigned(None, "draft", "submitted", "reopened", "withdrawn")
        skip_topic(topic=chosen, assessor=user, reason="unsure")

    def unskip(self):
        chosen, user, _ = self.assigned(None, "draft", "submitted", "reopened", "withdrawn")
        unskip_topic(topic=chosen, assessor=user)

    def adjudicate(self):
        chosen = self.rng.choice(list(self.campaign.topics.order_by("pk")))
        version = chosen.curations.filter(name="consensus").values_list("version", flat=True).first() or 0
        save_curation(topic=chosen, name="consensus", data=FULL, version=version, user=self.people["organiser"])

    def member(self):
        if self.campaign.memberships.filter(user__username="carol").exists():
            remove_member(campaign=self.campaign, username="carol")
        else:
            add_member(campaign=self.campaign, username="carol", role="assessor")

    def model_judge(self):
        name = self.rng.choice(["alice", "bob", "carol", "w1"])
        membership = self.campaign.memberships.filter(user__username=name).first()
        if membership is not None:
            set_model_judge(campaign=self.campaign, username=name, model_judge=not membership.model_judge)

    def model_judges_count(self):
        """The campaign's param, changed behind the services' back: the sums see the model judges
        they leave out change and count again in full."""
        params = dict(self.campaign.params or {})
        params[MODEL_JUDGES_COUNT] = not params.get(MODEL_JUDGES_COUNT, False)
        Campaign.objects.filter(pk=self.campaign.pk).update(params=params)
        self.campaign.params = params

    def top_up(self):
        Campaign.objects.filter(pk=self.campaign.pk).update(overlap=self.rng.choice([2, 3]))
        self.campaign.refresh_from_db()
        top_up(self.campaign)

    def reassign(self):
        names = self.campaign.memberships.filter(role="assessor", imported=False).values_list(
            "user__username", flat=True
        )
        moves = []
        for assignment in Assignment.objects.filter(topic__campaign=self.campaign, assessor__username__in=names):
            if judgment_of(self.campaign, assignment.assessor, assignment.topic.external_id) is None:
                taken = set(assignment.topic.assignments.values_list("assessor__username", flat=True))
                moves += [
                    (assignment.topic.external_id, assignment.assessor.username, to) for to in names if to not in taken
                ]
        if not moves:
            raise NotAssigned()
        external_id, source, to = self.rng.choice(sorted(moves))
        reassign_topic(campaign=self.campaign, topic=external_id, from_assessor=source, to_assessor=to)

    def run(self):
        change = self.rng.choice(
            [self.submit] * 4
            + [self.draft] * 2
            + [self.reopen] * 2
            + [self.withdraw, self.skip, self.unskip, self.adjudicate, self.member, self.model_judge]
            + [self.model_judges_count, self.top_up, self.reassign]
        )
        try:
            change()
        except (InvalidInput, Conflict, NotAssigned):
            return None  # not possible now: nothing written
        return change.__name__


@pytest.mark.parametrize("seed", range(4))
def test_random_changes_keep_the_stored_progress_equal_to_a_count(big, crowded, people, seed, monkeypatch):
    campaign = crowded
    rng = random.Random(seed)
    updated = []
    real = progress_sums._update
    monkeypatch.setattr(progress_sums, "_update", lambda *args: updated.append(real(*args)) or updated[-1])
    add_member(campaign=campaign, username="carol", role="assessor")
    import_topics(campaign=campaign, topics=pairs_topics(TOPICS + 4)[TOPICS:])  # carol on them, least loaded
    rebuilt(campaign)
    changes = Changes(campaign, people, rng)
    done, seen = [], Counter()
    for _ in range(60):
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            done.append(changes.run())
        stored = rebuilt(campaign)
        seen.update(
            judged=stored.counts.judged > 0,
            to_adjudicate=stored.counts.to_adjudicate > 0,
            raters=stored.raters is not None and stored.raters.most > 0,
            medians=any(a.active_median_ms for a in stored.assessors),
        )
    assert {"submit", "draft", "reopen", "withdraw", "skip", "member", "model_judge", "reassign"} <= set(done)
    # the counts the sums keep moved (not all zero throughout)
    assert min(seen.values()) > 0 and len(seen) == 4
    # most rebuilds updated the sums; the others counted in full after a campaign-wide change
    assert sum(found is not None for found in updated) > 30


def test_a_rebuild_after_one_submission_reads_that_topic_s_rows_only(big, crowded, people):
    """Every query of the progress counts on the assignments, judgments and curations is filtered by
    the changed topic's id, the median of the assessor whose active time changed too (their
    stored times, updated: scoring.models.ActiveTimes); the campaign's are never counted."""
    campaign = crowded
    save_judgment(topic=topic(campaign, "q1"), assessor=people["bob"], payload=FULL, status="submitted", version=0)
    rebuilt(campaign)
    q3 = topic(campaign, "q3")
    save_judgment(topic=q3, assessor=people["alice"], payload=FULL, status="submitted", version=0, active_ms=1500)
    stale = list(StaleTopic.objects.filter(campaign=campaign).values_list("topic_id", flat=True))
    assert stale == [q3.pk]
    with CaptureQueriesContext(connection) as queries:
        jobs.recompute_reports(campaign.pk)
    tables = ('"annotate_assignment"', '"annotate_judgment"', '"annotate_curation"')
    read = [q["sql"] for q in queries if q["sql"].startswith("SELECT") and any(t in q["sql"] for t in tables)]
    assert read
    unfiltered = [sql for sql in read if f'"topic_id" IN ({q3.pk})' not in sql and f'"topic_id" = {q3.pk}' not in sql]
    assert unfiltered == []
    times = [q["sql"] for q in queries if q["sql"].startswith("SELECT") and '"scoring_activetimes"' in q["sql"]]
    assert len(times) == 1 and f'"assessor_id" IN ({people["alice"].pk})' in times[0]  # alice's median
    assert not [sql for sql in read if "COUNT(" in sql and '"annotate_assignment"' in sql]
    assert rebuilt(campaign) == progress.count(campaign)


def test_one_topic_s_change_updates_the_sums_and_a_campaign_wide_one_counts_again_in_full(
    big, crowded, people, django_capture_on_commit_callbacks
):
    campaign = crowded
    rebuilt(campaign)
    assert TopicProgress.objects.filter(campaign=campaign).count() == TOPICS
    q2 = topic(campaign, "q2")

    def next_update():
        stale = StaleTopic.objects.filter(campaign=campaign).values_list("topic_id", flat=True)
        return progress_sums.update(Campaign.objects.get(pk=campaign.pk), list(stale))

    # A skip marks its topic (no stale mark: its partial is unchanged) and asks for a rebuild.
    with django_capture_on_commit_callbacks() as queued:
        skip_topic(topic=q2, assessor=people["alice"], reason="unsure")
    assert queued and list(ProgressMark.objects.values_list("topic_id", flat=True)) == [q2.pk]
    assert not StaleTopic.objects.filter(campaign=campaign).exists()
    update = next_update()
    assert not update.full and list(update.rows) == [q2.pk]
    assert {a.username: a.skipped for a in rebuilt(campaign).assessors}["alice"] == 1
    assert not ProgressMark.objects.exists()
    # A member added: counted again in full at the next rebuild, once.
    add_member(campaign=campaign, username="carol", role="assessor")
    assert ScoringState.objects.get(campaign=campaign).progress_recount_at is not None
    update = next_update()
    assert update.full and update.rows == {}  # every topic counted, none moved (the overlap is full)
    assert "carol" in [a.username for a in rebuilt(campaign).assessors]
    assert ScoringState.objects.get(campaign=campaign).progress_recount_at is None
    assert not next_update().full
    # So does a model judge's flag, and a top-up.
    set_model_judge(campaign=campaign, username="w1", model_judge=True)
    assert next_update().full
    rebuilt(campaign)
    Campaign.objects.filter(pk=campaign.pk).update(overlap=3)
    campaign.refresh_from_db()
    assert top_up(campaign) > 0
    assert next_update().full
    # three on each topic, w1 (a model judge now) left out of the people's
    assert rebuilt(campaign).counts.assigned == 3 * TOPICS - 2


def test_a_draft_or_a_reopening_marks_its_topic_without_asking_for_a_rebuild(
    big, crowded, people, django_capture_on_commit_callbacks
):
    """What counts did not change: no rebuild is asked for (a draft is saved every few seconds),
    and the next rebuild (after a submission) counts the drafts, the reopening and its time."""
    campaign = crowded
    alice = people["alice"]
    q1, q2, q4 = topic(campaign, "q1"), topic(campaign, "q2"), topic(campaign, "q4")
    save_judgment(topic=q1, assessor=alice, payload=FULL, status="submitted", version=0, active_ms=1000)
    rebuilt(campaign)
    with django_capture_on_commit_callbacks() as queued:
        save_judgment(topic=q2, assessor=alice, payload=DRAFT, status="draft", version=0)
        reopen_judgment(topic=q1, assessor=alice, version=1)
        save_judgment(topic=q1, assessor=alice, payload=DRAFT, status="draft", version=2, active_ms=4000)
    assert queued == []
    assert set(ProgressMark.objects.values_list("topic_id", flat=True)) == {q1.pk, q2.pk}
    assert not StaleTopic.objects.filter(campaign=campaign).exists()
    # A draft saved again on a draft moves no count: its mark stays as it was.
    marked = ProgressMark.objects.get(topic=q2).marked_at
    save_judgment(topic=q2, assessor=alice, payload=DRAFT, status="draft", version=1, active_ms=500)
    assert ProgressMark.objects.get(topic=q2).marked_at == marked
    save_judgment(topic=q2, assessor=alice, payload=DRAFT, status="draft", version=2)
    save_judgment(topic=q1, assessor=alice, payload=DRAFT, status="draft", version=3, active_ms=2000)
    save_judgment(topic=q4, assessor=people["bob"], payload=FULL, status="submitted", version=0, active_ms=9000)
    kept = {a.username: a for a in rebuilt(campaign).assessors}
    assert (kept["alice"].drafts, kept["alice"].reopened, kept["alice"].active_total_ms) == (1, 1, 7000)
    assert kept["alice"].active_median_ms == 7000 and kept["bob"].active_median_ms == 9000


def test_a_judgment_changed_while_the_rebuild_reads_is_counted_once_in_the_median_as_in_the_sums(
    big, crowded, people, monkeypatch
):
    """A submission that lands after the rebuild read its topics, before it counts a median, and
    is withdrawn before the next rebuild: the stored median never held it (the sums did not),
    so the next rebuild, which finds the topic as the sums hold it, needs no new median."""
    campaign = crowded
    alice = people["alice"]
    q1, q5 = topic(campaign, "q1"), topic(campaign, "q5")
    for t, ms in ((q1, 1000), (topic(campaign, "q3"), 3000)):
        save_judgment(topic=t, assessor=alice, payload=FULL, status="submitted", version=0, active_ms=ms)
    rebuilt(campaign)
    reopen_judgment(topic=q1, assessor=alice, version=1)
    save_judgment(topic=q1, assessor=alice, payload=FULL, status="submitted", version=2, active_ms=1000)
    real = progress_sums._medians

    def submission_lands_meanwhile(*args):
        save_judgment(topic=q5, assessor=alice, payload=FULL, status="submitted", version=0, active_ms=90000)
        return real(*args)

    monkeypatch.setattr(progress_sums, "_medians", submission_lands_meanwhile)
    jobs.recompute_reports(campaign.pk)
    monkeypatch.setattr(progress_sums, "_medians", real)
    kept = {a.username: a for a in progress.stored_progress([campaign.pk])[campaign.pk].assessors}
    assert (kept["alice"].submitted, kept["alice"].active_median_ms) == (2, 2500)  # q1 and q3, not q5
    withdraw_judgment(topic=q5, assessor=alice, version=1)
    kept = {a.username: a for a in rebuilt(campaign).assessors}
    assert (kept["alice"].submitted, kept["alice"].active_median_ms) == (2, 2500)


def test_the_limit_crossed_either_way_counts_in_full_or_drops_what_is_stored(settings, crowded, people):
    campaign = crowded
    assignments = campaign.topics.values_list("assignments", flat=True).count()
    settings.CONCORD_LIVE_PROGRESS_LIMIT = assignments + 1
    jobs.recompute_reports(campaign.pk)
    assert not Report.objects.filter(campaign=campaign, name__in=[progress.NAME, progress_sums.NAME]).exists()
    add_member(campaign=campaign, username="carol", role="assessor")
    Campaign.objects.filter(pk=campaign.pk).update(overlap=3)
    campaign.refresh_from_db()
    top_up(campaign)  # carol on every topic but q1 and q2 (w1's): over the limit
    rebuilt(campaign)
    assert TopicProgress.objects.filter(campaign=campaign).count() == TOPICS
    remove_member(campaign=campaign, username="carol")  # under it again
    jobs.recompute_reports(campaign.pk)
    assert not Report.objects.filter(campaign=campaign, name__in=[progress.NAME, progress_sums.NAME]).exists()
    assert not TopicProgress.objects.filter(campaign=campaign).exists()


def test_topics_imported_or_deleted_unseen_are_counted(big, crowded, people):
    campaign = crowded
    rebuilt(campaign)
    import_topics(campaign=campaign, topics=pairs_topics(TOPICS + 2)[TOPICS:])
    assert rebuilt(campaign).counts.assigned == 2 * (TOPICS + 2) + 2
    topic(campaign, "q4").delete()  # behind the services' back: no mark, no request
    assert rebuilt(campaign).counts.assigned == 2 * (TOPICS + 1) + 2


def test_the_check_finds_stored_progress_that_differs_from_a_count(big, crowded, people):
    campaign = crowded
    rebuilt(campaign)
    assert jobs.check_reports(campaign) == []
    # A change behind the worker's back (no mark): the stored counts do not see it.
    Judgment.objects.filter(topic__campaign=campaign, assessor__username="w1", topic__external_id="q1").update(
        status="draft"
    )
    found = jobs.check_reports(campaign)
    assert "progress.counts.judged: 2 != 1" in found
    assert any(line.startswith("progress sums.sums.") for line in found)


def test_the_stored_times_are_the_medians_multisets_and_the_check_compares_them(big, crowded, people):
    campaign = crowded
    alice = people["alice"]
    for name, ms in (("q1", 1000), ("q3", 4000), ("q5", 2000)):
        save_judgment(
            topic=topic(campaign, name), assessor=alice, payload=FULL, status="submitted", version=0, active_ms=ms
        )
    rebuilt(campaign)
    row = ActiveTimes.objects.get(campaign=campaign, assessor=alice)
    assert typed.unpack(bytes(row.data), progress_sums.Times) == progress_sums.Times([1000, 2000, 4000], [1, 1, 1])
    # one more at 1,000 ms: updated from the change, the median of four the mean of the middle two
    save_judgment(
        topic=topic(campaign, "q7"), assessor=alice, payload=FULL, status="submitted", version=0, active_ms=1000
    )
    kept = {a.username: a for a in rebuilt(campaign).assessors}
    assert kept["alice"].active_median_ms == 1500
    row.refresh_from_db()
    assert typed.unpack(bytes(row.data), progress_sums.Times) == progress_sums.Times([1000, 2000, 4000], [2, 1, 1])
    assert jobs.check_reports(campaign) == []
    # times changed behind the worker's back: the check says so
    ActiveTimes.objects.filter(pk=row.pk).update(data=typed.pack(progress_sums.Times([1000], [4])))
    assert any(line.startswith("active times.") for line in jobs.check_reports(campaign))
    # and a row missing under an assessor with a median: the next change counts in full, right again
    ActiveTimes.objects.filter(pk=row.pk).delete()
    withdraw_judgment(topic=topic(campaign, "q7"), assessor=alice, version=1)
    kept = {a.username: a for a in rebuilt(campaign).assessors}
    assert kept["alice"].active_median_ms == 2000
    assert jobs.check_reports(campaign) == []


def test_sums_stored_without_their_times_are_counted_again_in_full(big, crowded, people):
    campaign = crowded
    rebuilt(campaign)
    stored = Report.objects.get(campaign=campaign, name=progress_sums.NAME)
    older = {key: value for key, value in stored.data.items() if key != "times_kept"}
    Report.objects.filter(pk=stored.pk).update(data=older)
    ActiveTimes.objects.filter(campaign=campaign).delete()
    save_judgment(topic=topic(campaign, "q3"), assessor=people["alice"], payload=FULL, status="submitted", version=0)
    stale = list(StaleTopic.objects.filter(campaign=campaign).values_list("topic_id", flat=True))
    assert progress_sums.update(Campaign.objects.get(pk=campaign.pk), stale).full
    rebuilt(campaign)
    assert ActiveTimes.objects.filter(campaign=campaign).exists()
    assert jobs.check_reports(campaign) == []


#: Tasks stored, not run: the test plays the workers (as tests/scoring/test_first_build.py).
DEFERRING = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend", "QUEUES": ["default", "analyses"]}}


def run_queued(name: str) -> None:
    found = [result for result in default_task_backend.results if result.task.name == name]
    default_task_backend.clear()
    for result in found:
        with TestCase.captureOnCommitCallbacks(execute=True):
            result.task.call(*result.args)


@override_settings(TASKS=DEFERRING, CONCORD_BUILD_CHUNK=3, CONCORD_REBUILD_INTERVAL=0)
def test_a_build_in_chunks_is_counted_in_full_after_its_chunks(big, crowded, people):
    """The chunks clear the stale marks without counting progress: a submission their marks
    held is in the counts of the rebuild after them all the same."""
    campaign = crowded
    rebuilt(campaign)
    save_judgment(topic=topic(campaign, "q3"), assessor=people["alice"], payload=FULL, status="submitted", version=0)
    mark_all_stale(campaign)  # as an import: every topic stale, more than one chunk's worth
    default_task_backend.clear()
    with TestCase.captureOnCommitCallbacks(execute=True):
        tasks.recompute_campaign_reports.call(campaign.pk)
    assert [r.task.name for r in default_task_backend.results].count("build_reports_chunk") == 3
    run_queued("build_reports_chunk")
    assert not StaleTopic.objects.filter(campaign=campaign).exists()
    run_queued("recompute_campaign_reports")
    assert {a.username: a.submitted for a in progress.stored_progress([campaign.pk])[campaign.pk].assessors}[
        "alice"
    ] == 1
    assert rebuilt(campaign) == progress.count(campaign)


def test_an_adaptive_allocation_marks_the_topic_it_assigns(big, people, django_capture_on_commit_callbacks):
    campaign = create_campaign(
        creator=people["organiser"], kind="pairs", name="Adaptive", params={"design": "adaptive"}
    )
    import_topics(campaign=campaign, topics=pairs_topics(4))
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_judgments(campaign=campaign, entries=[{"assessor": "w1", "topic": "q1", "payload": FULL}])
    rebuilt(campaign)
    with django_capture_on_commit_callbacks() as queued:
        work = adaptive.next_work(campaign, people["alice"])
    assert work.allocated and queued
    assert list(ProgressMark.objects.values_list("topic_id", flat=True)) == [work.topic.pk]
    assert not StaleTopic.objects.filter(campaign=campaign).exists()
    stale = StaleTopic.objects.filter(campaign=campaign).values_list("topic_id", flat=True)
    update = progress_sums.update(campaign, list(stale))
    assert not update.full and list(update.rows) == [work.topic.pk]
    assert {a.username: a.assigned for a in rebuilt(campaign).assessors}["alice"] == 1
