"""The preference kind's running sums (kinds/preference/sums.py): every point figure from the
summed counts equals the merge's (kinds/preference/partials.py) on random campaigns (systems
missing from some prompts, assessors repeating pairs, model judges beside the people, votes the
active allocation drew weighted by 1 / P), and a topic taken out and put in again gives the sums
from scratch."""

from __future__ import annotations

import numpy as np
import pytest

from concord import typed
from kinds.preference import partials as pp
from kinds.preference.sums import PreferenceSums, contribution, refresh
from scoring import sums
from scoring.partials import MergeInput, differences

SYSTEMS = ["alpha", "beta", "gamma", "delta", "omega"]


class _Campaign:
    def __init__(self, **params):
        self.params = {"resamples": 50, **params}


def _votes(rng, n_outputs: int, raters: int, strength: np.ndarray, repeats: float) -> list[int]:
    votes = []
    for r in range(raters):
        for i in range(n_outputs):
            for j in range(i + 1, n_outputs):
                if rng.random() < 0.3:  # not every rater judges every pair
                    continue
                for _ in range(1 + int(rng.random() < repeats)):
                    left, right = (i, j) if rng.random() < 0.5 else (j, i)
                    p = 1 / (1 + np.exp(-(strength[left] - strength[right])))
                    u = rng.random()
                    outcome = 2 if u < 0.1 else 3 if u < 0.15 else (0 if rng.random() < p else 1)
                    votes += [r, left, right, outcome]
    return votes


def _weights(rng, votes: list[int], drawn: float) -> list[float]:
    """1 / P per vote, a share ``drawn`` of the votes drawn with some P < 1 (the others weigh 1,
    as a topic assigned up front or an imported battle's); empty when every weight is 1, as
    kinds/preference/partials.py's vote_weights gives them."""
    n = len(votes) // 4
    weights = np.where(rng.random(n) < drawn, 1 / rng.uniform(0.02, 1.0, n), 1.0).tolist()
    return weights if any(w != 1 for w in weights) else []


def random_campaign(seed: int, topics: int = 14, drawn: float = 0.0, **params):
    """``drawn``: the share of the votes, people's and judges', with a weight other than 1 (in
    half the topics: the others were assigned up front)."""
    rng = np.random.default_rng(seed)
    strength = {name: -0.4 * k for k, name in enumerate(SYSTEMS)}
    found = []
    for _ in range(topics):
        systems = sorted(rng.choice(SYSTEMS, size=int(rng.integers(2, 6)), replace=False).tolist(), key=SYSTEMS.index)
        rng.shuffle(systems)
        own = sorted(rng.choice([f"r{k}" for k in range(6)], size=int(rng.integers(1, 5)), replace=False).tolist())
        s = np.array([strength[name] for name in systems])
        judges = ["judge-a", "judge-b"][: int(rng.integers(0, 3))]
        votes = _votes(rng, len(systems), len(own), s, 0.2)
        judge_votes = _votes(rng, len(systems), len(judges), -s, 0.5)
        share = drawn if rng.random() < 0.5 else 0.0
        found.append(
            pp.PreferencePartial(
                systems,
                own,
                votes,
                judges,
                judge_votes,
                _weights(rng, votes, share),
                _weights(rng, judge_votes, share),
            )
        )
    return MergeInput(_Campaign(**params), [], []), found


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("params", [{}, {"tie_model": "davidson", "anchor": "beta", "anchor_rating": 1500.0}])
@pytest.mark.parametrize("drawn", [0.0, 0.7])
def test_the_figures_from_the_sums_are_the_merges(seed, params, drawn):
    given, partials = random_campaign(seed, drawn=drawn, **params)
    merged = pp.merge(given, partials)
    summed = sums.total(PreferenceSums(), (contribution(None, None, p) for p in partials))
    assert differences(typed.dump(refresh(given, merged, summed)), typed.dump(merged)) == []
    assert merged.units_paired > 0 and merged.consistency and merged.model_judges  # the figures are there
    weighted = [merged.people, *(j.board for j in merged.model_judges)]
    assert [pp.WEIGHTED in board.model for board in weighted] == [bool(drawn)] * len(weighted)


def test_the_sums_fit_the_weighted_votes_as_the_merge_does():
    """With drawn votes the scores are the weighted fit's, not the counts' (so a refresh that fitted
    the plain counts would differ), the bootstraps none, the sandwich's intervals defined; a topic of
    weighted votes out and in again keeps the sums (floats: to rounding), and out for good leaves
    those of the other topics."""
    given, partials = random_campaign(3, drawn=0.7)
    merged = pp.merge(given, partials)
    plain = pp.merge(
        given, [pp.PreferencePartial(p.systems, p.raters, p.votes, p.judges, p.judge_votes) for p in partials]
    )
    scores = {r.system: r.score for r in merged.people.rows}
    assert max(abs(scores[r.system] - r.score) for r in plain.people.rows) > 1.0
    assert all(r.by_votes.method == "none" and r.sandwich.low < r.score < r.sandwich.high for r in merged.people.rows)
    summed = sums.total(PreferenceSums(), (contribution(None, None, p) for p in partials))
    assert summed.drawn and summed.judge_drawn
    k = next(k for k, p in enumerate(partials) if p.weights)
    out = sums.moved(summed, [contribution(None, None, partials[k])], [])
    back = sums.moved(out, [], [contribution(None, None, partials[k])])
    assert differences(typed.dump(back), typed.dump(summed)) == []
    others = sums.total(PreferenceSums(), (contribution(None, None, p) for j, p in enumerate(partials) if j != k))
    assert differences(typed.dump(out), typed.dump(others)) == []
    assert differences(typed.dump(refresh(given, merged, back)), typed.dump(merged)) == []


def test_a_topic_out_and_in_again_is_the_sums_from_scratch():
    given, partials = random_campaign(7)
    scratch = sums.total(PreferenceSums(), (contribution(None, None, p) for p in partials))
    changed = pp.PreferencePartial(partials[3].systems, partials[3].raters, partials[3].votes[: 4 * 2])
    moved = sums.moved(scratch, [contribution(None, None, partials[3])], [contribution(None, None, changed)])
    assert moved != scratch
    back = sums.moved(moved, [contribution(None, None, changed)], [contribution(None, None, partials[3])])
    assert back == scratch
    others = sums.total(PreferenceSums(), (contribution(None, None, p) for k, p in enumerate(partials) if k != 3))
    assert sums.moved(scratch, [contribution(None, None, partials[3])], []) == others


def test_a_refresh_after_a_change_moves_the_point_figures_and_keeps_the_intervals():
    """One topic's votes reversed: the scores and alpha are those of a merge of the new votes; the
    bootstraps' bounds stay the last merge's until the fits are refreshed."""
    given, partials = random_campaign(8)
    before = pp.merge(given, partials)
    flipped = [pp.PreferencePartial(p.systems, p.raters, list(p.votes)) for p in partials]
    votes = np.array(flipped[0].votes).reshape(-1, 4)
    votes[:, 3] = np.where(votes[:, 3] < 2, 1 - votes[:, 3], votes[:, 3])
    flipped[0] = pp.PreferencePartial(partials[0].systems, partials[0].raters, votes.ravel().tolist())
    flipped[1:] = partials[1:]
    after = pp.merge(given, flipped)
    summed = sums.total(PreferenceSums(), (contribution(None, None, p) for p in flipped))
    fresh = refresh(given, before, summed)
    assert {r.system: r.score for r in fresh.people.rows} == pytest.approx(
        {r.system: r.score for r in after.people.rows}
    )
    assert fresh.alpha.value == pytest.approx(after.alpha.value) and fresh.alpha.low == before.alpha.low
    row = {r.system: r for r in fresh.people.rows}["alpha"]
    old = {r.system: r for r in before.people.rows}["alpha"]
    assert (row.by_votes.low, row.by_votes.high) == (old.by_votes.low, old.by_votes.high)
