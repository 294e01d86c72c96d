"""The labels kind's running sums (kinds/labels/sums.py): every figure made from counts, from
the summed counts, equals the merge's (kinds/labels/partials.py) on random campaigns at every
level of scale (nominal, ordinal, interval, ratio) and with custom weights: labels missing at random, items with one
to five labels, can't tells, more pairs than the report lists."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from annotate.models import Campaign, Run, Topic
from concord import typed
from kinds.labels import partials as lp
from kinds.labels.sums import LabelsSums, contribution, refresh
from scoring import sums
from scoring.partials import MergeInput, differences

NAN = float("nan")

SCALES = {
    "nominal": {"categories": ["cat", "dog", "bird", "fish"]},
    "ordinal": {"level": "ordinal", "categories": ["low", "mid", "high"], "cant_tell": True},
    "interval": {"level": "interval", "minimum": 1, "maximum": 5},
    "ratio": {"level": "ratio", "minimum": 1, "maximum": 7, "step": 2},
    # the organiser's own agreement weights, in every weighted figure
    "custom": {
        "level": "ordinal",
        "categories": ["low", "mid", "high"],
        "weights": [[1, 0.7, 0], [0.7, 1, 0.4], [0, 0.4, 1]],
    },
}


def random_campaign(seed: int, params: dict, topics: int = 12, assessors: int = 7):
    rng = np.random.default_rng(seed)
    campaign = Campaign(kind="labels", params={**params, "resamples": 50})
    from kinds.labels.data import Scale

    q = len(Scale.of(campaign.params).values)
    names = [f"a{k:02d}" for k in range(assessors)]
    made = []
    for _ in range(topics):
        items = int(rng.integers(1, 9))
        own = sorted(rng.choice(names, size=int(rng.integers(1, min(5, assessors) + 1)), replace=False).tolist())
        # a topic's items lean to one label, so that agreement is not all chance
        leaning = rng.integers(0, q, size=(items, 1))
        codes = np.where(rng.random((items, len(own))) < 0.6, leaning, rng.integers(0, q, size=(items, len(own))))
        codes = codes.astype(float)
        codes[rng.random(codes.shape) < 0.25] = NAN
        made.append(
            lp.LabelsPartial(
                items=items,
                item_ids=[f"i{i}" for i in range(items)],
                assessors=own,
                codes=codes.ravel().tolist(),
                cant_tell=rng.integers(0, 2, size=len(own)).tolist(),
                references=[],
                reference_codes=[],
                adjudicated=[NAN] * items,
            )
        )
    given = MergeInput(campaign, [Topic(external_id=f"t{t:03d}", position=t) for t in range(topics)], list[Run]())
    return given, made


@pytest.mark.parametrize("level", sorted(SCALES))
@pytest.mark.parametrize("seed", range(3))
def test_the_figures_from_the_sums_are_the_merges(level, seed):
    given, partials = random_campaign(seed, SCALES[level])
    merged = lp.merge(given, partials)
    summed = sums.total(LabelsSums(), (contribution(given.campaign, None, p) for p in partials))
    assert differences(typed.dump(refresh(given, merged, summed)), typed.dump(merged)) == []


def test_more_pairs_than_listed_keep_the_merges_choice(monkeypatch):
    monkeypatch.setattr(lp, "LIVE_PAIRS", 5)
    monkeypatch.setattr("kinds.labels.sums.LIVE_PAIRS", 5)
    given, partials = random_campaign(11, SCALES["ordinal"], topics=30, assessors=9)
    merged = lp.merge(given, partials)
    assert merged.pair_count > 5 and len(merged.pairs) == 5
    summed = sums.total(LabelsSums(), (contribution(given.campaign, None, p) for p in partials))
    assert differences(typed.dump(refresh(given, merged, summed)), typed.dump(merged)) == []


def test_more_assessors_than_the_matrix_covers_keep_the_merges_choice(monkeypatch):
    monkeypatch.setattr(lp, "MATRIX_ASSESSORS", 4)
    monkeypatch.setattr("kinds.labels.sums.MATRIX_ASSESSORS", 4)
    given, partials = random_campaign(12, SCALES["nominal"], topics=30, assessors=9)
    merged = lp.merge(given, partials)
    assert len(merged.matrix_names) == 4 and len(merged.assessors) == 9 and len(merged.kappa_matrix) == 4
    summed = sums.total(LabelsSums(), (contribution(given.campaign, None, p) for p in partials))
    first, second, _ = summed.pairs.arrays()
    partners = np.bincount(first, minlength=9) + np.bincount(second, minlength=9)
    assert merged.matrix_names == [
        summed.pairs.names[k] for k in sorted(sorted(range(9), key=lambda k: (-partners[k], k))[:4])
    ]
    assert differences(typed.dump(refresh(given, merged, summed)), typed.dump(merged)) == []


def test_the_figures_move_with_the_counts_and_the_intervals_stay_the_fits():
    given, partials = random_campaign(5, SCALES["ordinal"])
    before = lp.merge(dataclasses.replace(given, topics=given.topics[:-3]), partials[:-3])
    after = lp.merge(given, partials)
    summed = sums.total(LabelsSums(), (contribution(given.campaign, None, p) for p in partials))
    fresh = refresh(given, before, summed)
    for name in ("alpha", "ac1", "ac2", "percent", "brennan_prediger", "conger"):
        assert getattr(fresh, name).value == pytest.approx(getattr(after, name).value, abs=1e-12), name
        assert (getattr(fresh, name).low, getattr(fresh, name).high) == (
            getattr(before, name).low,
            getattr(before, name).high,
        )
    assert fresh.fleiss.kappa == pytest.approx(after.fleiss.kappa, abs=1e-12)
    assert [c.count for c in fresh.categories] == [c.count for c in after.categories]
    assert fresh.intraclass == before.intraclass and fresh.reliability == before.reliability
