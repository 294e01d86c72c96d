"""Incremental reports equal a recompute from scratch (docs/benchmarks.md "Live at any size").

Random sequences of submissions, draft edits, resubmissions, reopenings,
withdrawals, adjudications (the ``consensus`` curation) and run imports on
every kind; after each step the worker's recompute runs (only the stale
topics' reports and partials, then the merge of every stored partial) and
every stored report must equal one built from every judgment, to 1e-12
(``scoring.jobs.check_reports``, what ``recompute_reports --full --check``
runs). A change that alters a topic's partial without marking the topic
stale, a partial that reads another topic, or a merge that depends on the
order partials were stored in, fails here.
"""

from __future__ import annotations

import copy
import random

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotate.imports.write import import_runs, import_topics
from annotate.models import Assignment, Judgment
from annotate.services.campaigns import create_campaign
from annotate.services.curations import save_curation
from annotate.services.judgments import reopen_judgment, save_judgment, withdraw_judgment
from annotate.services.members import add_member
from kinds.registry import KINDS
from scoring import jobs
from scoring.models import Report, StaleTopic, TopicPartial

pytestmark = pytest.mark.django_db

TOPICS = ("t1", "t2", "t3", "t4")
ASSESSORS = ("alice", "bob", "carol", "dave")


def run_data(run: dict, topics=TOPICS) -> dict:
    """The kind's example run (it scores ``t1``) made to score every topic (its other fields,
    such as a reference run's ``"reference": true``, as they are)."""
    return {
        key: {t: copy.deepcopy(value["t1"]) for t in topics} if isinstance(value, dict) and "t1" in value else value
        for key, value in run.items()
    }


def build(people, make_user, kind: str):
    examples = KINDS[kind].examples
    people["dave"] = make_user("dave")
    campaign = create_campaign(
        creator=people["organiser"],
        kind=kind,
        name=f"Incremental {kind}",
        overlap=3,
        params=dict(examples.params) or None,
    )
    for name in ASSESSORS:
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(
        campaign=campaign, topics=[{"external_id": t, "data": copy.deepcopy(dict(examples.topic))} for t in TOPICS]
    )
    if examples.run is not None:
        import_runs(campaign=campaign, runs=[{"name": "run-a", "data": run_data(dict(examples.run))}])
    return campaign


def step(rng: random.Random, campaign, people, state: dict) -> str:
    """One random change of ``campaign``'s judgments (or curations, or runs); says which."""
    examples = KINDS[campaign.kind].examples
    assignment = rng.choice(
        list(Assignment.objects.filter(topic__campaign=campaign).select_related("topic", "assessor"))
    )
    topic, assessor = assignment.topic, assignment.assessor
    judgment = Judgment.objects.filter(topic=topic, assessor=assessor).first()
    version = judgment.version if judgment else 0
    status = judgment.status if judgment else None
    payload = copy.deepcopy(dict(rng.choice(examples.payloads)))
    moves = {
        None: ["submit", "submit", "draft"],
        Judgment.Status.DRAFT: ["submit", "draft"],
        Judgment.Status.SUBMITTED: ["reopen", "withdraw"],
        Judgment.Status.REOPENED: ["draft", "submit", "withdraw"],
        Judgment.Status.WITHDRAWN: ["draft"],
    }[status]
    moves = [*moves, "adjudicate"]
    if examples.run is not None and not state.get("second_run"):
        moves += ["run"]
    move = rng.choice(moves)
    if move in ("submit", "draft"):
        status_wanted = "submitted" if move == "submit" else "draft"
        save_judgment(topic=topic, assessor=assessor, payload=payload, status=status_wanted, version=version)
    elif move == "reopen":
        reopen_judgment(topic=topic, assessor=assessor, version=version)
    elif move == "withdraw":
        withdraw_judgment(topic=topic, assessor=assessor, version=version, reason="test")
    elif move == "adjudicate":
        current = topic.curations.filter(name="consensus").first()
        save_curation(
            topic=topic,
            name="consensus",
            data=payload,
            version=current.version if current else 0,
            user=people["organiser"],
        )
    else:
        state["second_run"] = True
        import_runs(campaign=campaign, runs=[{"name": "run-b", "data": run_data(dict(examples.run), TOPICS[:2])}])
    return f"{move} {topic.external_id} by {assessor.username}"


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_incremental_reports_equal_a_recompute_from_scratch(people, make_user, kind, seed):
    rng = random.Random(f"{kind}-{seed}")
    campaign = build(people, make_user, kind)
    jobs.recompute_reports(campaign.pk)
    assert jobs.check_reports(campaign) == []
    history, state = [], {}
    for _ in range(14):
        history.append(step(rng, campaign, people, state))
        jobs.recompute_reports(campaign.pk)
        assert not StaleTopic.objects.filter(campaign=campaign).exists()
        found = jobs.check_reports(campaign)
        assert found == [], f"after {history}: {found[:5]}"
    if KINDS[kind].reports.incremental:
        assert TopicPartial.objects.filter(campaign=campaign).count() == len(TOPICS)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_recompute_reads_only_the_stale_topics(people, make_user, kind):
    """Once every topic has its partial, a submission's recompute computes one topic report."""
    campaign = build(people, make_user, kind)
    jobs.recompute_reports(campaign.pk)
    topic = campaign.topics.get(external_id="t3")
    assessor = Assignment.objects.filter(topic=topic).first().assessor
    save_judgment(
        topic=topic, assessor=assessor, payload=dict(KINDS[kind].examples.payloads[0]), status="submitted", version=0
    )
    written = jobs.recompute_reports(campaign.pk)
    assert written == 1
    assert jobs.check_reports(campaign) == []


def test_the_check_command_finds_a_stored_report_that_differs(people, make_user, capsys):
    campaign = build(people, make_user, "pairs")
    for assignment in Assignment.objects.filter(topic__campaign=campaign).select_related("topic", "assessor"):
        payload = dict(KINDS["pairs"].examples.payloads[hash(assignment.assessor.username) % 2])
        save_judgment(
            topic=assignment.topic, assessor=assignment.assessor, payload=payload, status="submitted", version=0
        )
    call_command("recompute_reports", "--campaign", str(campaign.pk))
    call_command("recompute_reports", "--full", "--check", "--campaign", str(campaign.pk))
    assert "equal to a recompute from scratch" in capsys.readouterr().out
    stored = Report.objects.get(campaign=campaign, name="agreement")
    first_number = next(
        key for key, value in stored.data.items() if isinstance(value, int) and not isinstance(value, bool)
    )
    stored.data[first_number] += 1
    stored.save()
    with pytest.raises(CommandError, match="1 campaign"):
        call_command("recompute_reports", "--full", "--check", "--campaign", str(campaign.pk))
    out = capsys.readouterr().out
    assert f"campaign.{first_number}" in out and "1 difference(s)" in out


def test_the_command_refuses_an_unknown_campaign():
    with pytest.raises(CommandError, match="--campaign: no campaign 999"):
        call_command("recompute_reports", "--campaign", "999")
