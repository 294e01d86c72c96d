"""Submissions recompute the stored reports, once per burst, through the tasks API."""

from __future__ import annotations

import dataclasses

import pytest
from django_tasks import default_task_backend

from annotate.models import Topic
from annotate.services.judgments import reopen_judgment, save_judgment
from kinds.registry import KINDS
from scoring import services as scoring_services
from scoring.models import Report, ScoringState, StaleTopic
from scoring.selectors import campaign_report, topic_report

pytestmark = pytest.mark.django_db

FULL = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}


def submit(campaign, user, payload=FULL, status="submitted"):
    for topic in Topic.objects.filter(campaign=campaign, assignments__assessor=user):
        save_judgment(topic=topic, assessor=user, payload=payload, status=status, version=0)


def test_a_submission_updates_topic_and_campaign_reports_after_commit(
    campaign, people, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        submit(campaign, people["alice"])
        assert not Report.objects.exists()  # nothing happens before commit
    assert callbacks
    report = campaign_report(campaign)
    assert report.judgments_seen == 3 and report.data.items_judged == 12
    topic = Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).first()
    assert topic_report(topic).judgments_seen == 1
    assert not StaleTopic.objects.exists()


def test_drafts_do_not_touch_the_reports(campaign, people, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        submit(campaign, people["alice"], payload={"matches": {"c1": True}}, status="draft")
    assert not callbacks and not Report.objects.exists()


class Counting:
    """Queue tasks without running them, as when the worker is busy."""

    def __init__(self, settings):
        settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend", "QUEUES": []}}

    @property
    def calls(self):
        return [tuple(result.args) for result in default_task_backend.results]


def test_a_burst_of_submissions_queues_one_recompute(campaign, people, settings, django_capture_on_commit_callbacks):
    counting = Counting(settings)
    with django_capture_on_commit_callbacks(execute=True):
        submit(campaign, people["alice"])
    with django_capture_on_commit_callbacks(execute=True):
        submit(campaign, people["bob"])
    assert counting.calls == [(campaign.pk,)]  # six submissions, one queued recompute
    assert StaleTopic.objects.filter(campaign=campaign).count() == 3
    # The worker runs it: every stale topic is covered and the gate reopens.
    scoring_services.recompute_reports(campaign.pk)
    assert campaign_report(campaign).judgments_seen == 6
    assert not StaleTopic.objects.exists()
    assert not ScoringState.objects.get(campaign=campaign).pending
    with django_capture_on_commit_callbacks(execute=True):
        topic = Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).first()
        # A submitted judgment is changed by reopening it and submitting again.
        reopen_judgment(topic=topic, assessor=people["alice"], version=1)
        save_judgment(
            topic=topic,
            assessor=people["alice"],
            payload={"matches": {**FULL["matches"], "c1": False}},
            status="submitted",
            version=2,
        )
    assert counting.calls == [(campaign.pk,), (campaign.pk,)]


def test_a_submission_during_a_recompute_is_not_lost(
    campaign, people, replace_spec, settings, django_capture_on_commit_callbacks
):
    Counting(settings)
    with django_capture_on_commit_callbacks(execute=True):
        submit(campaign, people["alice"])
    reports = KINDS["pairs"].reports
    # The step after the stale topics were read: the merge of partials (or, for a
    # kind without partials, the campaign report from every judgment).
    step = "merge" if reports.incremental else "campaign"
    original = getattr(reports, step)
    late = Topic.objects.filter(campaign=campaign, assignments__assessor=people["bob"]).first()

    def submit_meanwhile(*args, **kwargs):
        # A judgment lands while the report is being computed.
        save_judgment(topic=late, assessor=people["bob"], payload=FULL, status="submitted", version=0)
        return original(*args, **kwargs)

    replace_spec("pairs", reports=dataclasses.replace(reports, **{step: submit_meanwhile}))
    scoring_services.recompute_reports(campaign.pk)
    # Its mark survives the run that did not see it, and it asked for another run.
    assert list(StaleTopic.objects.values_list("topic_id", flat=True)) == [late.pk]
