"""Model judges are kept out of the people's figures, generically (annotate/judges.py).

For every kind, a campaign where a member marked model judge judged beside two people gives
exactly the figures, gold standards, stop signal, adjudication consensus and progress counts of
the same campaign without that member; with ``model_judges_count`` on, exactly those of the
campaign where the member is a person. The adaptive design's opinions and budgets likewise. A
stored partial counts the judgments it holds, and changing the flag has every topic rebuilt.
"""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest

from annotate import adaptive
from annotate.imports.write import import_judgments, import_runs, import_topics
from annotate.models import Assignment
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member, set_model_judge
from concord import typed
from dashboard import queue
from dashboard.topics import scored_topics
from kinds.registry import KINDS
from scoring import jobs, progress
from scoring.downloads import export_file
from scoring.models import StaleTopic, TopicPartial
from scoring.selectors import campaign_report
from stats.stopping import stop_signal

pytestmark = pytest.mark.django_db

TOPICS = 3
#: The campaign report's fields that are the model judges' own (kinds/labels/judges.py).
JUDGE_FIELDS = ("model_judges", "judge_comparison")
#: How the model judge takes part: not at all, marked model judge, marked and counted, a person.
VARIANTS = ("absent", "judge", "counted", "person")


def campaign_of(people, make_user, kind: str, variant: str):
    """TOPICS copies of the kind's example topic judged by alice and bob (the kind's two example
    payloads) and, unless ``variant`` is absent, by ``llm`` (alice's payload), a login account."""
    examples = KINDS[kind].examples
    params = dict(copy.deepcopy(examples.params))
    if variant == "counted":
        params["model_judges_count"] = True
    campaign = create_campaign(
        creator=people["organiser"], kind=kind, name=f"{kind} {variant}", overlap=3, params=params or None
    )
    names = ["alice", "bob"] if variant == "absent" else ["alice", "bob", "llm"]
    if "llm" not in people:
        people["llm"] = make_user("llm")
    for name in names:
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
    payloads = {"alice": examples.payloads[0], "bob": examples.payloads[1], "llm": examples.payloads[0]}
    for assignment in Assignment.objects.filter(topic__campaign=campaign).select_related("topic", "assessor"):
        save_judgment(
            topic=assignment.topic,
            assessor=assignment.assessor,
            payload=copy.deepcopy(dict(payloads[assignment.assessor.username])),
            status="submitted",
            version=0,
        )
    if variant in ("judge", "counted"):
        set_model_judge(campaign=campaign, username="llm", model_judge=True)
    jobs.recompute_reports(campaign.pk, everything=True)
    return campaign


def people_figures(campaign) -> dict:
    """The campaign report as stored, without the model judges' own section."""
    dumped = typed.dump(campaign_report(campaign).data)
    return {key: value for key, value in dumped.items() if key not in JUDGE_FIELDS}


def gold_standards(campaign) -> dict[tuple[str, str], bytes]:
    """Every gold-standard download the kind offers for its consensus-like truth sets."""
    exports = KINDS[campaign.kind].exports
    found = {}
    for truth in exports.truths(["alice", "bob"]):
        if truth.startswith("single:") or truth.startswith("adjudicated"):
            continue
        for format in exports.formats:
            described = exports.describe(format, truth)
            if described is not None and described.group == "gold":
                found[(truth, format)] = export_file(campaign, format=format, truth=truth).content
    return found


def headline_signal(campaign):
    headline = KINDS[campaign.kind].reports.headline
    found = headline(campaign_report(campaign).data) if headline else None
    return None if found is None else (typed.dump(found.figure), stop_signal(found.figure, 0.05))


def consensus_of(campaign):
    topic = campaign.topics.get(external_id="t1")
    page = queue.page(campaign, topic)
    return page.assessors, page.consensus, [label for label, _ in page.model_judges]


def counts(campaign) -> dict:
    counted = progress.count(campaign, raters=True)
    return {
        "counts": counted.counts,
        "states": counted.states,
        "raters": counted.raters,
        "submissions": sorted(scored_topics(campaign).values_list("external_id", "submissions")),
    }


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_model_judge_counts_in_nothing_of_the_people_s_unless_the_campaign_counts_it(people, make_user, kind):
    made = {variant: campaign_of(people, make_user, kind, variant) for variant in VARIANTS}
    for reads in (people_figures, gold_standards, headline_signal, counts):
        assert reads(made["judge"]) == reads(made["absent"]), reads.__name__
        assert reads(made["counted"]) == reads(made["person"]), reads.__name__
    # the figures do move with the judge's judgments (the comparison above can fail)
    assert people_figures(made["person"]) != people_figures(made["absent"])
    assert counts(made["person"]) != counts(made["absent"])
    if KINDS[kind].adjudication is not None:
        judged, consensus, beside = consensus_of(made["judge"])
        assert (judged, consensus) == consensus_of(made["absent"])[:2] and judged == ["alice", "bob"]
        assert beside == ["model judge: llm"]  # shown beside, counted in nothing
        assert consensus_of(made["counted"])[:2] == consensus_of(made["person"])[:2]
        assert consensus_of(made["counted"])[2] == []


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_stored_partial_counts_what_it_holds(people, make_user, kind):
    """TopicPartial.judgments: the people's judgments, and the model judge's where the kind's
    reports read it (Reports.model_judges: the labels kind's partials hold its codes)."""
    campaign = campaign_of(people, make_user, kind, "judge")
    holds = 3 if KINDS[kind].reports.model_judges else 2
    assert set(TopicPartial.objects.filter(campaign=campaign).values_list("judgments", flat=True)) == {holds}
    assert campaign_report(campaign).judgments_seen == TOPICS * holds


def test_changing_the_flag_rebuilds_every_topic(people, make_user):
    campaign = campaign_of(people, make_user, "pairs", "person")
    absent = campaign_of(people, make_user, "pairs", "absent")
    before = people_figures(campaign)
    assert not StaleTopic.objects.filter(campaign=campaign).exists()
    set_model_judge(campaign=campaign, username="llm", model_judge=True)
    assert StaleTopic.objects.filter(campaign=campaign).count() == TOPICS
    jobs.recompute_reports(campaign.pk)  # the stale topics only, as the worker does
    assert people_figures(campaign) == people_figures(absent) != before
    set_model_judge(campaign=campaign, username="llm", model_judge=False)
    jobs.recompute_reports(campaign.pk)
    assert people_figures(campaign) == before
    assert jobs.check_reports(campaign) == []


LABELS = ["yes", "no"]


def adaptive_campaign(people, variant: str):
    """An adaptive labels campaign of 2 topics x 4 items: two imported workers labelled topic t1
    and, unless ``variant`` is absent, a third (the model judge) every item, disagreeing with them
    on t1 (each campaign's workers have names of their own: imports never share an account)."""
    params = {"categories": LABELS, "design": "adaptive", "budget_per_item": 3, "budget_total": 40}
    if variant == "counted":
        params["model_judges_count"] = True
    campaign = create_campaign(creator=people["organiser"], kind="labels", name=f"adaptive {variant}", params=params)
    items = [{"id": f"i{k}", "text": f"item {k}"} for k in range(4)]
    import_topics(campaign=campaign, topics=[{"external_id": t, "data": {"items": items}} for t in ("t1", "t2")])
    entries = [
        {"assessor": f"{name}-{variant}", "topic": "t1", "payload": {"labels": {f"i{k}": "yes" for k in range(4)}}}
        for name in ("ann", "ben")
    ]
    if variant != "absent":
        entries += [
            {"assessor": f"llm-{variant}", "topic": t, "payload": {"labels": {f"i{k}": "no" for k in range(4)}}}
            for t in ("t1", "t2")
        ]
    import_judgments(campaign=campaign, entries=entries)
    if variant in ("judge", "counted"):
        set_model_judge(campaign=campaign, username=f"llm-{variant}", model_judge=True)
    return campaign


def opinions(campaign) -> dict:
    state = adaptive.item_state(campaign)
    return {
        "held": state.held.tolist(),
        "pending": state.pending.tolist(),
        "opinions": state.certainty.opinions.tolist(),
        "score": np.round(state.certainty.score, 12).tolist(),
        "truth": state.truth,
    }


def test_the_adaptive_design_reads_the_people_s_opinions_only(people):
    made = {variant: adaptive_campaign(people, variant) for variant in VARIANTS}
    assert opinions(made["judge"]) == opinions(made["absent"])
    assert opinions(made["counted"]) == opinions(made["person"])
    assert opinions(made["person"]) != opinions(made["absent"])
    # what the next assessor is handed: t2's items, which only the model judge labelled
    add_member(campaign=made["judge"], username="carol", role="assessor")
    work = adaptive.next_work(made["judge"], people["carol"])
    assert (work.topic.external_id, work.items) == ("t2", [f"i{k}" for k in range(4)])


def test_a_report_input_keeps_the_judges_rows_apart(people, make_user):
    from scoring.selectors import report_input

    campaign = campaign_of(people, make_user, "labels", "judge")
    given = report_input(campaign)
    assert {row.assessor for row in given.judgments} == {"alice", "bob"}
    assert {row.assessor for row in given.judge_judgments} == {"llm"}
    counted = campaign_of(people, make_user, "labels", "counted")
    given = report_input(counted)
    assert {row.assessor for row in given.judgments} == {"alice", "bob", "llm"}
    assert {row.assessor for row in given.judge_judgments} == {"llm"}
    assert given.held(model_judges=True) == len(given.judgments) == 3 * TOPICS
    assert [f.name for f in dataclasses.fields(given)][-3:] == ["judge_judgments", "draws", "controls"]
