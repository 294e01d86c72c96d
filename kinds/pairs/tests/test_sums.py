"""The pairs kind's running sums (kinds/pairs/sums.py): every figure made from counts, from
the summed counts, equals the merge's (kinds/pairs/partials.py) on random campaigns: votes
missing at random, items with one to five votes, assessors who never share an item, systems
and references, more pairs than the report lists."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from annotate.models import Campaign, Run, Topic
from concord import typed
from kinds.pairs import partials as pp
from kinds.pairs.sums import PairsSums, contribution, refresh
from scoring import sums
from scoring.partials import MergeInput, differences

NAN = float("nan")


def random_campaign(seed: int, topics: int = 12, assessors: int = 7, listed: int | None = None):
    rng = np.random.default_rng(seed)
    names = [f"a{k:02d}" for k in range(assessors)]
    systems = ["s1", "s2"]
    made = []
    for _ in range(topics):
        items = int(rng.integers(1, 9))
        own = sorted(rng.choice(names, size=int(rng.integers(1, min(5, assessors) + 1)), replace=False).tolist())
        votes = rng.integers(0, 2, size=(items, len(own))).astype(float)
        votes[rng.random(votes.shape) < 0.3] = NAN
        made.append(
            pp.PairsPartial(
                items=items,
                candidates=[f"c{i}" for i in range(items)],
                assessors=own,
                votes=votes.ravel().tolist(),
                systems=systems,
                returned=(rng.random((len(systems), items)) < 0.5).ravel().tolist(),
                references=["gold"],
                reference_labels=np.where(rng.random(items) < 0.5, 1.0, 0.0).tolist(),
                adjudicated=[NAN] * items,
            )
        )
    campaign = Campaign(kind="pairs", params={"resamples": 50})
    runs = [Run(name=s, data={"results": {}}) for s in systems] + [Run(name="gold", data={"reference": True})]
    given = MergeInput(campaign, [Topic(external_id=f"t{t:03d}", position=t) for t in range(topics)], runs)
    return given, made


@pytest.mark.parametrize("seed", range(6))
def test_the_figures_from_the_sums_are_the_merges(seed):
    given, partials = random_campaign(seed)
    merged = pp.merge(given, partials)
    summed = sums.total(PairsSums(), (contribution(None, None, p) for p in partials))
    assert differences(typed.dump(refresh(given, merged, summed)), typed.dump(merged)) == []


def test_more_pairs_than_listed_keep_the_merges_choice(monkeypatch):
    monkeypatch.setattr(pp, "LIVE_PAIRS", 5)
    monkeypatch.setattr("kinds.pairs.sums.LIVE_PAIRS", 5)
    given, partials = random_campaign(11, topics=30, assessors=9)
    merged = pp.merge(given, partials)
    assert merged.pair_count > 5 and len(merged.pairs) == 5
    summed = sums.total(PairsSums(), (contribution(None, None, p) for p in partials))
    assert differences(typed.dump(refresh(given, merged, summed)), typed.dump(merged)) == []


def test_more_assessors_than_the_matrix_covers_keep_the_merges_choice(monkeypatch):
    """Over MATRIX_ASSESSORS, the matrix covers those who share items with the most others:
    the same assessors, in the same order, from the sums as from the merge."""
    monkeypatch.setattr(pp, "MATRIX_ASSESSORS", 4)
    monkeypatch.setattr("kinds.pairs.sums.MATRIX_ASSESSORS", 4)
    given, partials = random_campaign(12, topics=30, assessors=9)
    merged = pp.merge(given, partials)
    assert len(merged.matrix_names) == 4 and len(merged.assessors) == 9
    assert len(merged.kappa_matrix) == 4 and all(len(row) == 4 for row in merged.kappa_matrix)
    summed = sums.total(PairsSums(), (contribution(None, None, p) for p in partials))
    # the four chosen share items with the most others (ties: the earlier name)
    first, second, _ = summed.pairs.arrays()
    partners = np.bincount(first, minlength=9) + np.bincount(second, minlength=9)
    ranked = sorted(range(9), key=lambda k: (-partners[k], k))[:4]
    assert merged.matrix_names == [summed.pairs.names[k] for k in sorted(ranked)]
    assert differences(typed.dump(refresh(given, merged, summed)), typed.dump(merged)) == []


def test_a_change_taken_out_and_put_in_equals_the_sums_from_scratch():
    given, partials = random_campaign(3)
    summed = sums.total(PairsSums(), (contribution(None, None, p) for p in partials))
    _, others = random_campaign(4)
    changed = [others[2], *partials[1:]]
    updated = sums.add(sums.add(summed, contribution(None, None, partials[0]), -1), contribution(None, None, others[2]))
    assert updated == sums.total(PairsSums(), (contribution(None, None, p) for p in changed))


def test_the_figures_move_with_the_counts_and_the_intervals_stay_the_fits():
    """Against the fits of an earlier state: every point figure is the new merge's, every
    interval's bounds the fits' (as of their refresh)."""
    given, partials = random_campaign(5)
    before = pp.merge(dataclasses.replace(given, topics=given.topics[:-3]), partials[:-3])
    after = pp.merge(given, partials)
    summed = sums.total(PairsSums(), (contribution(None, None, p) for p in partials))
    fresh = refresh(given, before, summed)
    assert fresh.fleiss.kappa == pytest.approx(after.fleiss.kappa, abs=1e-12)
    assert fresh.alpha.alpha == pytest.approx(after.alpha.alpha, abs=1e-12)
    assert fresh.ac1.value == pytest.approx(after.ac1.value, abs=1e-12)
    assert fresh.items == after.items and fresh.topics == after.topics
    assert [dataclasses.astuple(s) for s in fresh.systems] == [dataclasses.astuple(s) for s in after.systems]
    assert (fresh.fleiss.bootstrap.low, fresh.fleiss.bootstrap.high) == (
        before.fleiss.bootstrap.low,
        before.fleiss.bootstrap.high,
    )
    assert fresh.fleiss.bootstrap.value == fresh.fleiss.kappa
    assert fresh.reliability == before.reliability and fresh.ranking == before.ranking
