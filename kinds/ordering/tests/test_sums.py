"""The ordering kind's running sums (kinds/ordering/sums.py): the report from the summed
means equals the merge's (kinds/ordering/partials.py) on random campaigns, NaN and infinite
EDs and run scores among them (a mean over one is not finite, as numpy's), topics with no,
one or several orderings, runs that ordered some topics only."""

from __future__ import annotations

import math

import numpy as np
import pytest

from annotate.models import Campaign, Run, Topic
from concord import typed
from kinds.ordering import partials as op
from kinds.ordering.report import METHODS
from kinds.ordering.sums import OrderingSums, contribution, refresh
from scoring import sums
from scoring.partials import MergeInput, differences


def random_campaign(seed: int, topics: int = 20, odd: float = 0.0):
    rng = np.random.default_rng(seed)
    runs = [Run(name=name, data={}) for name in ("r1", "r2", "r3")]
    made, topic_rows = [], []
    for t in range(topics):
        n = int(rng.choice([0, 1, 2, 3, 4]))
        k = len(METHODS)

        def value():
            if rng.random() < odd:
                return float(rng.choice([math.nan, math.inf]))
            return float(rng.uniform(-1, 1))

        ordered = [r.name for r in runs if rng.random() < 0.7] if n else []
        made.append(
            op.OrderingPartial(
                orderings=n,
                consensus=[f"i{j}" for j in rng.permutation(4)] if n else [],
                mean_tau=float(rng.uniform(-1, 1)) if n >= 2 else math.nan,
                ed=[value() for _ in range(k)] if n >= 2 else [],
                run_names=ordered,
                run_scores=[[value() for _ in range(k)] for _ in ordered],
            )
        )
        topic_rows.append(Topic(pk=1000 - t, external_id=f"q{t:03d}", position=t))
    given = MergeInput(Campaign(kind="ordering", params={"resamples": 50}), topic_rows, runs)
    return given, made


@pytest.mark.parametrize("odd", [0.0, 0.1])
@pytest.mark.parametrize("seed", range(4))
def test_the_report_from_the_sums_is_the_merges(seed, odd):
    given, partials = random_campaign(seed, odd=odd)
    merged = op.merge(given, partials)
    summed = sums.total(OrderingSums(), (contribution(None, t, p) for t, p in zip(given.topics, partials)))
    assert differences(typed.dump(refresh(given, merged, summed)), typed.dump(merged)) == []


def test_a_topic_out_and_in_again_leaves_the_sums_as_from_scratch():
    given, partials = random_campaign(7, odd=0.1)
    pairs = list(zip(given.topics, partials))
    summed = sums.total(OrderingSums(), (contribution(None, t, p) for t, p in pairs))
    _, others = random_campaign(8, odd=0.1)
    changed = [(pairs[3][0], others[3]), *pairs[:3], *pairs[4:]]
    updated = sums.add(sums.add(summed, contribution(None, *pairs[3]), -1), contribution(None, *changed[0]))
    fresh = sums.total(OrderingSums(), (contribution(None, t, p) for t, p in changed))
    assert differences(typed.dump(updated), typed.dump(fresh), tolerance=1e-12) == []
    assert (updated.judged, updated.usable) == (fresh.judged, fresh.usable)
