"""The clustering kind's running sums (kinds/clustering/sums.py): the report from the summed
means and counts, with Table 3's rows from the listed topics' partials, equals the merge's
(kinds/clustering/partials.py) on random campaigns: topics with no, one or several judges,
topics without a baseline, NaN and infinite means and baselines, figures over too few
topics for an interval and over enough, rows cut in the middle of a topic; and a rebuild
reads the partials of the listed topics only, not every topic's."""

from __future__ import annotations

import copy
import dataclasses
import math
import random
from unittest import mock

import numpy as np
import pytest

from annotate.models import Assignment, Campaign, Judgment, Topic
from annotate.services.judgments import reopen_judgment, save_judgment
from concord import typed
from kinds.clustering import partials as cp
from kinds.clustering.report import AGREEMENT, METHODS, TABLE3
from kinds.clustering.sums import FIGURES, ClusteringSums, contribution, listed, refresh
from kinds.registry import KINDS
from scoring import jobs, sums
from scoring.models import Report
from scoring.partials import MergeInput, differences
from stats.intervals import TOO_FEW
from tests.scoring.test_incremental import build

JUDGES = ("ann", "bob", "cat", "dan", "eve")


def random_partial(rng: np.random.Generator, t: int, odd: float) -> cp.ClusteringPartial:
    n = int(rng.choice([0, 1, 2, 2, 3, 5]))
    judges = sorted(str(j) for j in rng.choice(JUDGES, size=n, replace=False))
    pairs = n * (n - 1) // 2

    def value() -> float:
        if rng.random() < odd:
            return float(rng.choice([math.nan, math.inf]))
        return float(rng.uniform(0, 1))

    table3 = [math.nan if rng.random() < 0.1 else float(rng.uniform(0, 1)) for _ in range(pairs * 2 * len(TABLE3))]
    return cp.ClusteringPartial(
        title=f"Title {t}",
        judges=judges,
        table3=np.array(table3, dtype="<f8").tobytes(),
        means=[value() for _ in range(len(METHODS) * len(AGREEMENT))] if n >= 2 else [],
        baseline=[value() for _ in range(len(METHODS) * len(TABLE3))] if n >= 2 and rng.random() < 0.9 else [],
    )


def random_campaign(seed: int, topics: int = 40, odd: float = 0.0):
    """Topics in the database's order (position, then id): ids not in position order, some
    positions shared."""
    rng = np.random.default_rng(seed)
    rows = [Topic(pk=1000 - t, external_id=f"q{t:03d}", position=t // 2) for t in range(topics)]
    rows.sort(key=lambda topic: (topic.position, topic.pk))
    made = [random_partial(rng, t, odd) for t in range(topics)]
    return MergeInput(Campaign(kind="clustering", params={"resamples": 50}), rows, []), made


def summed(given: MergeInput, partials) -> ClusteringSums:
    """The sums, the topics' contributions added in another order than the topics' (as changes come)."""
    pairs = list(zip(given.topics, partials))
    random.Random(len(pairs)).shuffle(pairs)
    return sums.total(ClusteringSums(), (contribution(None, t, p) for t, p in pairs))


def in_order(given: MergeInput, partials) -> list:
    """What a rebuild gives ``refresh``: topics and their partials in topic order (here every topic's)."""
    return list(zip(given.topics, partials))


@pytest.mark.parametrize("live", [500, 7])
@pytest.mark.parametrize("odd", [0.0, 0.1])
@pytest.mark.parametrize("seed", range(4))
def test_the_report_from_the_sums_is_the_merges(monkeypatch, seed, odd, live):
    monkeypatch.setattr(cp, "LIVE_PAIRS", live)
    given, partials = random_campaign(seed, topics=60, odd=odd)
    merged = cp.merge(given, partials)
    assert (
        differences(
            typed.dump(refresh(given, merged, summed(given, partials), in_order(given, partials))), typed.dump(merged)
        )
        == []
    )
    if live == 7:
        assert len(merged.pairs) == 7


@pytest.mark.parametrize("topics", [0, 1, 2, 3, 5])
def test_a_few_topics_with_intervals_on_few_units(intervals_on_few_units, topics):
    """Below two topics nothing is drawn, and a figure whose topics' means are all undefined
    has none: as the merge."""
    for seed in range(3):
        given, partials = random_campaign(seed, topics=topics, odd=0.3)
        merged = cp.merge(given, partials)
        refreshed = refresh(given, merged, summed(given, partials), in_order(given, partials))
        assert differences(typed.dump(refreshed), typed.dump(merged)) == []


def test_the_figures_follow_the_sums_and_the_bounds_the_fits():
    """After a change the values, counts, units and rows are the new merge's; the intervals'
    bounds stay those of the last full merge until it is refreshed."""
    given, before = random_campaign(3, topics=60)
    _, others = random_campaign(4, topics=60)
    after = list(before)
    first = next(k for k, p in enumerate(before) if len(p.judges) >= 2)
    after[first] = next(p for p in others if len(p.judges) >= 3)
    fits, fresh = cp.merge(given, before), cp.merge(given, after)
    refreshed = refresh(given, fits, summed(given, after), in_order(given, after))
    expected = dataclasses.replace(fresh, agreement=refreshed.agreement)
    assert differences(typed.dump(refreshed), typed.dump(expected)) == []
    assert typed.dump(refreshed.pairs[0]) == typed.dump(fresh.pairs[0]) != typed.dump(fits.pairs[0])
    for method, name in FIGURES:
        now, old, new = (getattr(r.agreement, method)[name] for r in (refreshed, fits, fresh))
        assert old.method == "bootstrap"
        assert (now.value, now.units) == (pytest.approx(new.value, abs=1e-12), new.units)
        assert (now.low, now.high, now.method) == (old.low, old.high, old.method)


def test_a_figure_the_fits_had_too_few_topics_for_has_no_interval_until_they_are_refreshed():
    given, partials = random_campaign(5, topics=80)
    pooled = [k for k, p in enumerate(partials) if p.means]
    assert len(pooled) > 31
    # the fits over 29 pooled topics (too few for an interval), the sums over them all
    fewer = [
        p if k not in pooled[29:] else dataclasses.replace(p, judges=[], means=[], baseline=[])
        for k, p in enumerate(partials)
    ]
    fits = cp.merge(given, fewer)
    assert all(getattr(fits.agreement, m)[n].method == TOO_FEW for m, n in FIGURES)
    refreshed = refresh(given, fits, summed(given, partials), in_order(given, partials))
    fresh = cp.merge(given, partials)
    for method, name in FIGURES:
        now, new = getattr(refreshed.agreement, method)[name], getattr(fresh.agreement, method)[name]
        assert (now.value, now.units, now.method) == (pytest.approx(new.value, abs=1e-12), new.units, "none")
        assert math.isnan(now.low) and math.isnan(now.high)


def test_a_topic_out_and_in_again_leaves_the_sums_as_from_scratch():
    given, partials = random_campaign(7, odd=0.1)
    pairs = list(zip(given.topics, partials))
    whole = summed(given, partials)
    _, others = random_campaign(8, odd=0.1)
    for k in range(len(pairs)):  # every topic changed in turn, to and from fewer judges
        changed = pairs[:k] + [(pairs[k][0], others[k])] + pairs[k + 1 :]
        updated = sums.add(sums.add(whole, contribution(None, *pairs[k]), -1), contribution(None, *changed[k]))
        fresh = sums.total(ClusteringSums(), (contribution(None, t, p) for t, p in changed))
        assert differences(typed.dump(updated), typed.dump(fresh), tolerance=1e-12) == []
        # and back: the sums of the campaign as it was
        back = sums.add(sums.add(updated, contribution(None, *changed[k]), -1), contribution(None, *pairs[k]))
        assert differences(typed.dump(back), typed.dump(whole), tolerance=1e-12) == []


def test_a_topic_lists_its_pairs_of_judges():
    judges = [["a", "b", "c", "d"], ["a"], [], ["a", "b"]]
    assert [listed(cp.ClusteringPartial("", j, b"", [], [])) for j in judges] == [6, 0, 0, 1]


@pytest.mark.django_db
def test_a_rebuild_reads_the_changed_topic_and_the_listed_topics_partials_only(monkeypatch, people, make_user):
    """The first topic's pairs fill the report's rows: a change to another topic decodes that
    topic's stored partial and the first topic's, not the others'; and the report is a
    recompute's."""
    monkeypatch.setattr(cp, "LIVE_PAIRS", 1)
    campaign = build(people, make_user, "clustering")
    payloads = KINDS["clustering"].examples.payloads
    for k, assignment in enumerate(
        Assignment.objects.filter(topic__campaign=campaign).select_related("topic", "assessor")
    ):
        save_judgment(
            topic=assignment.topic,
            assessor=assignment.assessor,
            payload=copy.deepcopy(dict(payloads[k % len(payloads)])),
            status="submitted",
            version=0,
        )
    jobs.recompute_reports(campaign.pk)
    first = campaign.topics.get(external_id="t1")
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
    assert report.fits_at < report.computed_at  # from the sums
    assert decoded.call_count == 2  # t4's old partial, and t1's: its rows
    assert [row["topic"] for row in report.data["pairs"]] == [first.external_id]
    assert jobs.check_reports(campaign) == []
