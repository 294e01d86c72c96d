"""Factoids: the campaign report merged from per-topic partials.

The reference is the campaign report as it was computed before partials
(``_reference_campaign_report`` below, verbatim: every topic's report recomputed
on every recompute to list its annotator pairs); the merge of the topics'
partials must equal it on the demo campaign in both phases (with its consensus
and a topic nobody judged), on the worked example and on random submissions.
A topic's partial depends on that topic only.
"""

from __future__ import annotations

import copy
import random

import pytest

from annotate.imports.write import import_topics
from annotate.models import Judgment
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import reopen_judgment, save_judgment
from annotate.services.members import add_member
from concord import typed
from kinds.factoids import demo
from kinds.factoids import partials as pt
from kinds.factoids import report as r
from kinds.factoids import services as factoid_services
from kinds.factoids.tests.test_report import annotated  # noqa: F401 (fixture)
from kinds.factoids.tests.test_report_random import random_payload, topic_data
from scoring.partials import MergeInput, differences
from scoring.selectors import JudgmentRow, ReportInput, report_input

pytestmark = pytest.mark.django_db


# -- the campaign report before partials (reference implementation, verbatim) ----------------


def _reference_campaign_report(input: ReportInput) -> r.FactoidsCampaignReport:
    campaign, topics, judgments = input.campaign, input.topics, input.judgments
    by_topic: dict[int, list[JudgmentRow]] = {}
    for row in judgments:
        by_topic.setdefault(row.topic_id, []).append(row)
    rows = []
    for topic in topics:
        report = r.topic_report(input, topic)
        for phase, result in report.agreement.items():
            for pair in result.pairs:
                rows.append(
                    r.FactoidsCampaignPair(topic=topic.external_id, title=topic.title, phase=int(phase), **vars(pair))
                )
    # the live report carries the first LIVE_PAIRS rows and counts them all
    return r.FactoidsCampaignReport(
        phase=campaign.params.get("phase", 1),
        topics=len(topics),
        pairs=rows[: pt.LIVE_PAIRS],
        pair_count=len(rows),
        scored_topics=sum(1 for t in topics if input.curation(t, "consensus") is not None),
        annotation_unit=r.annotation_unit(campaign),
    )


def assert_merge_equals_reference(given: ReportInput) -> r.FactoidsCampaignReport:
    merged = pt.campaign_report(given)
    assert differences(typed.dump(merged), typed.dump(_reference_campaign_report(given)), tolerance=1e-12) == []
    # the topic objects a merge sees carry no data (scoring.jobs reads id, external_id, position)
    bare = [copy.copy(t) for t in given.topics]
    for t in bare:
        t.data, t.title = None, None
    partials = [
        typed.unpack(typed.pack(pt.topic_partial(given, t, r.topic_report(given, t))), pt.FactoidsPartial)
        for t in given.topics
    ]
    again = pt.merge(MergeInput(given.campaign, bare, given.runs), partials)
    assert typed.dump(again) == typed.dump(merged)
    return merged


def random_campaign(people, seed: int, skip: float = 0.25):
    rng = random.Random(seed)
    campaign = create_campaign(creator=people["organiser"], kind="factoids", name=f"F{seed}", overlap=3)
    for name in ("alice", "bob", "carol"):
        add_member(campaign=campaign, username=name, role="assessor")
    topics = import_topics(
        campaign=campaign, topics=[{"external_id": f"t{i}", "data": topic_data(i)} for i in range(4)]
    )
    for topic in topics:
        for name in ("alice", "bob", "carol"):
            if rng.random() < skip:
                continue
            payload = random_payload(topic.data, rng)
            save_judgment(topic=topic, assessor=people[name], payload=payload, status="submitted", version=0)
    return campaign


# -- tests --------------------------------------------------------------------------------------


def test_the_demo_campaign_merges_to_the_reference_in_both_phases(people, make_user):
    campaign = demo.build(people["organiser"], [make_user(f"sim-{n}") for n in ("ann", "ben")], [people["alice"]])
    first = assert_merge_equals_reference(report_input(campaign))
    assert (first.phase, first.topics, first.scored_topics, len(first.pairs)) == (1, 2, 1, 1)
    factoid_services.start_phase_two(campaign=campaign)
    campaign.refresh_from_db()
    second = assert_merge_equals_reference(report_input(campaign))
    # literals of the report before partials
    assert [(p.topic, p.phase, p.annotators) for p in second.pairs] == LITERALS["pairs"]
    assert [p.definition.kappa for p in second.pairs] == pytest.approx(LITERALS["definition"], abs=1e-12)
    assert [p.definition.ci.low for p in second.pairs] == pytest.approx(LITERALS["low"], abs=1e-12)


def test_the_worked_example_merges_to_the_reference(annotated):  # noqa: F811
    campaign, _ = annotated
    given = report_input(campaign)
    merged = assert_merge_equals_reference(given)
    assert [(p.identities, p.subsumptions, p.relations) for p in merged.pairs] == [(0, 1, "suggested")]
    assert merged.pairs[0].definition.n_items == 10
    assert_merge_equals_reference(ReportInput(campaign, given.topics, [], []))
    assert_merge_equals_reference(ReportInput(campaign, [], [], []))


@pytest.mark.parametrize("seed", range(4))
def test_random_submissions_merge_to_the_reference(people, seed):
    assert_merge_equals_reference(report_input(random_campaign(people, seed)))


def test_the_live_report_carries_the_first_pairs_and_counts_them_all(people, client, monkeypatch):
    campaign = random_campaign(people, 3, skip=0.0)
    given = report_input(campaign)
    every = _reference_campaign_report(given)
    assert every.pair_count == len(every.pairs) == 12  # three annotators: three pairs on each of four topics
    monkeypatch.setattr(pt, "LIVE_PAIRS", 5)
    capped = assert_merge_equals_reference(given)
    assert capped.pair_count == 12
    assert typed.dump(capped)["pairs"] == typed.dump(every)["pairs"][:5]
    assert [(p.topic, p.annotators) for p in capped.pairs] == [
        ("t0", ("alice", "bob")),
        ("t0", ("alice", "carol")),
        ("t0", ("bob", "carol")),
        ("t1", ("alice", "bob")),
        ("t1", ("alice", "carol")),
    ]
    from scoring import jobs

    jobs.recompute_reports(campaign.pk, everything=True)
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/report/").content.decode()
    assert page.count("<tr data-phase=") == 5  # a row per pair shown (a pair's kappa on too few items: a dash)
    note = page.split('id="pairs-shown">', 1)[1].split("</p>", 1)[0]
    assert note.startswith("Showing the 5 of 12 pairs of annotators (those of the first topics); the live report")
    assert "lists the first 5" in note


def test_a_topics_partial_depends_on_that_topic_only(people):
    campaign = random_campaign(people, 9)
    topics = list(campaign.topics.order_by("position"))
    before = report_input(campaign)
    packed = {t.pk: typed.pack(pt.topic_partial(before, t)) for t in topics}
    changed = Judgment.objects.filter(topic=topics[0]).select_related("assessor").first()
    reopen_judgment(topic=topics[0], assessor=changed.assessor, version=changed.version)
    payload = random_payload(topics[0].data, random.Random(99))
    save_judgment(
        topic=topics[0], assessor=changed.assessor, payload=payload, status="submitted", version=changed.version + 1
    )
    after = report_input(campaign)
    assert typed.pack(pt.topic_partial(after, topics[0])) != packed[topics[0].pk]
    for t in topics[1:]:
        assert typed.pack(pt.topic_partial(after, t)) == packed[t.pk]
    alone = report_input(campaign, topic_ids=[topics[2].pk])
    assert typed.pack(pt.topic_partial(alone, topics[2])) == packed[topics[2].pk]


#: the figures the report gave before partials (computed with the reference above on the demo, phase 2)
LITERALS = {
    "pairs": [("tram", 1, ("sim-ann", "sim-ben")), ("tram", 2, ("sim-ann", "sim-ben"))],
    "definition": [0.7335237535178729, 0.7335237535178729],
    "low": [0.6677673992289039, 0.6677673992289039],
}
