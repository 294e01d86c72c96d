"""The factoids kind's running sums (kinds/factoids/sums.py): the report from the summed counts,
its rows from the listed topics' partials, equals the merge's (kinds/factoids/partials.py)
on random campaigns: topics with no pair, with pairs in one or two phases, with a consensus
or without, rows cut in the middle of a topic; and a rebuild reads the partials of the
listed topics only, not every topic's."""

from __future__ import annotations

import copy
import math
import random
from unittest import mock

import numpy as np
import pytest

from annotate.models import Assignment, Campaign, Judgment, Topic
from annotate.services.judgments import reopen_judgment, save_judgment
from concord import typed
from kinds.factoids import partials as fp
from kinds.factoids.report import FactoidsCampaignPair, FactoidsKappa
from kinds.factoids.sums import FactoidsSums, contribution, listed, refresh
from kinds.registry import KINDS
from scoring import jobs, sums
from scoring.models import Report
from scoring.partials import MergeInput, differences
from stats.intervals import FigureCI
from tests.scoring.test_incremental import build

ANNOTATORS = ("ann", "bob", "cat", "dan")


def kappa(rng: np.random.Generator) -> FactoidsKappa:
    value = math.nan if rng.random() < 0.2 else float(rng.uniform(-1, 1))
    n = int(rng.integers(0, 50))
    return FactoidsKappa(
        kappa=value,
        observed=float(rng.uniform(0, 1)),
        expected=float(rng.uniform(0, 1)),
        n_items=n,
        ci=FigureCI(value, value - 0.1, value + 0.1, units=n, unit="items", method="bootstrap"),
    )


def random_partial(rng: np.random.Generator, topic: Topic) -> fp.FactoidsPartial:
    rows = []
    for phase in (1, 2)[: int(rng.integers(1, 3))]:
        n = int(rng.choice([0, 1, 2, 3, 4]))
        for a, b in [(a, b) for i, a in enumerate(ANNOTATORS[:n]) for b in ANNOTATORS[i + 1 : n]]:
            rows.append(
                FactoidsCampaignPair(
                    topic=topic.external_id,
                    title=f"Title of {topic.external_id}",
                    phase=phase,
                    annotators=(a, b),
                    relations=str(rng.choice(["confirmed", "suggested"])),
                    identities=int(rng.integers(0, 9)),
                    subsumptions=int(rng.integers(0, 9)),
                    definition=kappa(rng),
                    annotation=kappa(rng) if rng.random() < 0.7 else None,
                )
            )
    return fp.FactoidsPartial(pair_count=len(rows), pairs=typed.pack(rows), scored=bool(rng.random() < 0.4))


def random_campaign(seed: int, topics: int = 30):
    """Topics in the database's order (position, then id): ids not in position order, some
    positions shared."""
    rng = np.random.default_rng(seed)
    rows = [Topic(pk=1000 - t, external_id=f"q{t:03d}", position=t // 2) for t in range(topics)]
    rows.sort(key=lambda topic: (topic.position, topic.pk))
    params = {"phase": int(rng.integers(1, 3)), "annotation_unit": str(rng.choice(["summary", "sentence"]))}
    return MergeInput(Campaign(kind="factoids", params=params), rows, []), [random_partial(rng, t) for t in rows]


def summed(given: MergeInput, partials) -> FactoidsSums:
    """The sums, the topics' contributions added in another order than the topics' (as changes come)."""
    pairs = list(zip(given.topics, partials))
    random.Random(len(pairs)).shuffle(pairs)
    return sums.total(FactoidsSums(), (contribution(None, t, p) for t, p in pairs))


def in_order(given: MergeInput, partials) -> list:
    """What a rebuild gives ``refresh``: topics and their partials in topic order (here every topic's)."""
    return list(zip(given.topics, partials))


@pytest.mark.parametrize("live", [500, 7])
@pytest.mark.parametrize("topics", [0, 1, 30])
@pytest.mark.parametrize("seed", range(4))
def test_the_report_from_the_sums_is_the_merges(monkeypatch, seed, topics, live):
    monkeypatch.setattr(fp, "LIVE_PAIRS", live)
    given, partials = random_campaign(seed, topics)
    merged = fp.merge(given, partials)
    refreshed = refresh(given, merged, summed(given, partials), in_order(given, partials))
    assert differences(typed.dump(refreshed), typed.dump(merged)) == []
    if live == 7 and topics == 30:
        assert len(merged.pairs) == 7


def test_the_report_follows_the_sums_not_the_fits():
    """Nothing of the report is the fits': after a change every figure and row is the new merge's."""
    given, before = random_campaign(3)
    _, others = random_campaign(4)
    first = next(k for k, p in enumerate(before) if p.pair_count)
    after = [*before[:first], next(p for p in others if p.pair_count > before[first].pair_count), *before[first + 1 :]]
    refreshed = refresh(given, fp.merge(given, before), summed(given, after), in_order(given, after))
    assert differences(typed.dump(refreshed), typed.dump(fp.merge(given, after))) == []


def test_a_topic_out_and_in_again_leaves_the_sums_as_from_scratch():
    given, partials = random_campaign(7)
    pairs = list(zip(given.topics, partials))
    whole = summed(given, partials)
    _, others = random_campaign(8)
    for k in range(len(pairs)):  # every topic changed in turn, to and from no pair
        changed = [*pairs[:k], (pairs[k][0], others[k]), *pairs[k + 1 :]]
        updated = sums.add(sums.add(whole, contribution(None, *pairs[k]), -1), contribution(None, *changed[k]))
        fresh = sums.total(FactoidsSums(), (contribution(None, t, p) for t, p in changed))
        assert typed.dump(updated) == typed.dump(fresh)
        back = sums.add(sums.add(updated, contribution(None, *changed[k]), -1), contribution(None, *pairs[k]))
        assert typed.dump(back) == typed.dump(whole)


def test_a_topic_lists_its_pairs_of_every_phase():
    assert [listed(fp.FactoidsPartial(n, b"", False)) for n in (3, 0, 2)] == [3, 0, 2]


@pytest.mark.django_db
def test_a_rebuild_reads_the_changed_topic_and_the_listed_topics_partials_only(monkeypatch, people, make_user):
    """The first topic's pairs fill the report's rows: a change to another topic decodes that
    topic's stored partial and the first topic's, not the others'; and the report is a
    recompute's."""
    monkeypatch.setattr(fp, "LIVE_PAIRS", 1)
    campaign = build(people, make_user, "factoids")
    payloads = KINDS["factoids"].examples.payloads
    assignments = Assignment.objects.filter(topic__campaign=campaign).select_related("topic", "assessor")
    for k, assignment in enumerate(assignments):
        save_judgment(
            topic=assignment.topic,
            assessor=assignment.assessor,
            payload=copy.deepcopy(dict(payloads[k % len(payloads)])),
            status="submitted",
            version=0,
        )
    jobs.recompute_reports(campaign.pk)
    topic = campaign.topics.get(external_id="t4")
    judgment = Judgment.objects.filter(topic=topic).first()
    reopen_judgment(topic=topic, assessor=judgment.assessor, version=judgment.version)
    judgment.refresh_from_db()
    payload = payloads[1] if judgment.submitted_payload == payloads[0] else payloads[0]
    save_judgment(
        topic=topic, assessor=judgment.assessor, payload=dict(payload), status="submitted", version=judgment.version
    )
    with mock.patch.object(jobs, "_partial_bytes", wraps=jobs._partial_bytes) as decoded:
        jobs.recompute_reports(campaign.pk)
    report = Report.objects.get(campaign=campaign, name="agreement")
    changed, fits = (Report.objects.get(campaign=campaign, name=name).computed_at for name in (sums.SUMS, sums.FITS))
    assert changed > fits  # from the sums, which take nothing from the fits: current throughout
    assert report.fits_at == report.computed_at == changed
    assert decoded.call_count == 2  # t4's old partial, and t1's: its rows
    assert [row["topic"] for row in report.data["pairs"]] == ["t1"]
    assert jobs.check_reports(campaign) == []
