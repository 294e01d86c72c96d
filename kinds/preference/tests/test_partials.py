"""The preference campaign report from partials: the leaderboard is kinds.preference.stats' fit of
the votes as recorded (sides included), agreement does not depend on which system of a pair is
called first, and each model judge's leaderboard stands beside the people's."""

from __future__ import annotations

import numpy as np
import pytest

from kinds.preference import stats as pref
from kinds.preference.partials import PreferencePartial, agreement, gather, merge
from scoring.partials import MergeInput
from stats.intervals import interval_settings


class _Campaign:
    def __init__(self, **params):
        self.params = {"resamples": 200, **params}


def given(**params) -> MergeInput:
    return MergeInput(_Campaign(**params), [], [])


def random_partials(seed: int, systems: list[str], *, topics: int = 30, raters: int = 4) -> list[PreferencePartial]:
    """Topics of all ``systems``, each pair judged by every rater with the sides at random; the
    earlier a system in ``strength`` order the likelier it wins."""
    rng = np.random.default_rng(seed)
    strength = {name: -k for k, name in enumerate(["alpha", "beta", "gamma", "delta"])}
    names = [f"r{k}" for k in range(raters)]
    found = []
    for _ in range(topics):
        votes = []
        for r in range(raters):
            for i in range(len(systems)):
                for j in range(i + 1, len(systems)):
                    left, right = (i, j) if rng.random() < 0.5 else (j, i)
                    gap = strength[systems[left]] - strength[systems[right]]
                    u = rng.random()
                    outcome = 2 if u < 0.15 else (0 if rng.random() < 1 / (1 + np.exp(-gap)) else 1)
                    votes += [r, left, right, outcome]
        found.append(PreferencePartial(list(systems), names, votes))
    return found


def test_the_leaderboard_is_the_fit_of_the_votes_as_recorded():
    partials = random_partials(1, ["alpha", "beta", "gamma"])
    report = merge(given(anchor="beta", anchor_rating=1500.0), partials)
    votes = gather(partials, judges=False)
    counts = pref.vote_counts(votes.left, votes.right, votes.outcome, n_systems=3)
    fit = pref.bradley_terry(counts, anchor=1, base=1500.0)
    scores = {row.system: row.score for row in report.people.rows}
    assert scores == pytest.approx(dict(zip(["alpha", "beta", "gamma"], fit.ratings.tolist())), abs=1e-9)
    assert scores["beta"] == 1500.0 and [r.system for r in report.people.rows] == ["alpha", "beta", "gamma"]
    assert report.votes == votes.n == 30 * 4 * 3
    side = pref.bradley_terry(counts, side=True, anchor=1, base=1500.0)
    assert report.people.bias.side == pytest.approx(side.side)


def test_the_davidson_model_is_named_and_fitted_when_chosen():
    partials = random_partials(2, ["alpha", "beta", "gamma"])
    report = merge(given(tie_model="davidson"), partials)
    assert report.people.model.startswith("Davidson (1970)")
    votes = gather(partials, judges=False)
    fit = pref.davidson(pref.vote_counts(votes.left, votes.right, votes.outcome, n_systems=3))
    assert [r.score for r in sorted(report.people.rows, key=lambda r: r.system)] == pytest.approx(fit.ratings.tolist())


def test_agreement_is_the_same_whichever_system_of_a_pair_is_called_first():
    """The systems named so that the stronger sorts first, then last: the same votes, the same alpha
    and kappa (each unit counted with its mirror)."""
    strong_first = random_partials(3, ["alpha", "beta", "gamma", "delta"])
    renamed = {"alpha": "zeta", "beta": "yotta", "gamma": "xi", "delta": "omega"}
    strong_last = [PreferencePartial([renamed[s] for s in p.systems], p.raters, p.votes) for p in strong_first]
    settings = interval_settings({"resamples": 200})
    one, two = (
        agreement(gather(strong_first, judges=False), settings),
        agreement(gather(strong_last, judges=False), settings),
    )
    assert one[0].value == pytest.approx(two[0].value) and one[1].kappa == pytest.approx(two[1].kappa)
    assert one[0].value > 0.05  # raters who mostly prefer the stronger system agree beyond chance
    assert (one[0].low, one[0].high) == pytest.approx((two[0].low, two[0].high))


def test_a_system_that_never_lost_leaves_no_finite_scores_and_says_why():
    partials = [PreferencePartial(["alpha", "beta"], ["r0"], [0, 0, 1, 0, 0, 1, 0, 1])]
    report = merge(given(), partials)
    assert "never lost" in report.people.problem and report.people.rows[0].rank == 0


def test_a_model_judges_leaderboard_stands_beside_the_peoples_with_kendalls_tau():
    people = random_partials(4, ["alpha", "beta", "gamma"])
    # the judge prefers the weakest: the reverse order of the people's
    judge_votes = []
    for i, j in ((0, 1), (0, 2), (1, 2)):
        judge_votes += [0, i, j, 1] * 3 + [0, j, i, 0] * 3 + [0, i, j, 0]
    partials = [
        PreferencePartial(p.systems, p.raters, p.votes, ["llm"], judge_votes if k == 0 else [])
        for k, p in enumerate(people)
    ]
    report = merge(given(), partials)
    (judge,) = report.model_judges
    assert judge.judge == "llm" and [r.system for r in judge.board.rows] == ["gamma", "beta", "alpha"]
    assert judge.tau.value == pytest.approx(-1.0) and sorted(map(tuple, judge.differing)) == [
        ("alpha", "beta"),
        ("alpha", "gamma"),
        ("beta", "gamma"),
    ]
    assert judge.consistency is not None and judge.consistency.units == 3
    assert report.votes == gather(people, judges=False).n  # the judge's votes are not the people's
