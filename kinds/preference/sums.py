"""The preference campaign report's running sums (scoring/sums.py): every point figure from counts.

A topic's contribution holds, as integers: its people's votes per ordered pair of systems (left,
right) and outcome (what the leaderboard's fit, its sandwich errors, the settled pairs, the
position bias and the win rates are functions of: kinds.preference.stats.vote_counts); per
assessor their votes and their repeats (units repeated, repeats, repeats alike with the first
verdict: the self-consistency and its Wilson interval); per number of assessors of a unit (a
prompt's pair) the sums Krippendorff's alpha and Fleiss' kappa over the units and their mirrors
depend on (kinds.preference.stats.size_sums); the model judges' votes per pair and outcome and
their repeats likewise. Votes the active allocation drew weigh the inverse of their pair's
probability (kinds/preference/partials.py ``vote_weights``); their weights are floats, summed per
ordered pair and outcome beside the counts (``drawn``), so that the fit on the weighted counts
(kinds.preference.stats.weighted_counts) is a function of the sums too. :func:`refresh` computes the campaign report's point figures from the
campaign's sums and takes from ``fits`` (the last full merge, kinds/preference/partials.py
``merge``) only what needs every vote at once: the bootstraps' bounds (over votes, assessors,
prompts), the rank intervals, the agreement's intervals and those of the judges' Kendall's tau.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from annotate.models import Campaign, Topic
from kinds.preference import stats as pref
from kinds.preference.partials import (
    Fitted,
    PreferencePartial,
    Spread,
    beside,
    board_of,
    consistency_rows,
)
from kinds.preference.report import UNIT, PreferenceBoard, PreferenceCampaignReport, PreferenceFleiss
from scoring.partials import MergeInput
from scoring.sums import around
from stats.intervals import FigureCI, IntervalSettings, interval_settings, no_ci


@dataclass(frozen=True)
class PreferenceSums:
    """Counts of a topic, or summed over the campaign's topics (every field adds)."""

    topics: int = 0
    #: the people's votes, and the topics (prompts) with any
    votes: int = 0
    prompts: int = 0
    #: json [left, right] -> the people's votes [left won, right won, tie, both bad]
    cells: dict[str, list[int]] = field(default_factory=dict)
    #: assessor -> [votes, units repeated, repeats, repeats alike with the first verdict]
    raters: dict[str, list[int]] = field(default_factory=dict)
    #: str(r) -> kinds.preference.stats.size_sums' entry for the units of r assessors, r >= 2
    sizes: dict[str, list[int]] = field(default_factory=dict)
    #: json [judge, left, right] -> the model judge's votes [left won, right won, tie, both bad]
    judge_cells: dict[str, list[int]] = field(default_factory=dict)
    #: judge -> [votes, prompts with any, units repeated, repeats, repeats alike]
    judges: dict[str, list[int]] = field(default_factory=dict)
    #: json [left, right] -> the people's votes whose weight is not 1 (drawn by the active
    #: allocation): [their number, per outcome their weights less 1 summed, per outcome their
    #: squared weights less 1 summed]. The weighted counts are the counts plus these, every other
    #: vote weighing 1; a vote of weight 1 adds nothing, so a uniform campaign stores none.
    drawn: dict[str, list[int | float]] = field(default_factory=dict)
    #: json [judge, left, right] -> the model judge's votes of weight not 1, likewise
    judge_drawn: dict[str, list[int | float]] = field(default_factory=dict)


def _cells(systems: list[str], rows: np.ndarray, prefix: list[str]) -> dict[str, list[int]]:
    k = len(systems)
    table = np.bincount((rows[:, 1] * k + rows[:, 2]) * 4 + rows[:, 3], minlength=k * k * 4).reshape(k * k, 4)
    return {
        json.dumps([*prefix, systems[c // k], systems[c % k]]): table[c].tolist()
        for c in np.flatnonzero(table.sum(axis=1))
    }


def _drawn(systems: list[str], rows: np.ndarray, weights: list[float], prefix: list[str]) -> dict[str, list]:
    """:attr:`PreferenceSums.drawn`'s entries of ``rows`` (votes as in PreferencePartial) weighted
    by ``weights`` (empty: every one 1)."""
    if not weights:
        return {}
    w = np.asarray(weights, dtype=np.float64)
    keep = w != 1
    rows, w = rows[keep], w[keep]
    k = len(systems)
    cell = rows[:, 1] * k + rows[:, 2]
    found = {}
    for c in np.unique(cell).tolist():
        mine = cell == c
        outcome = rows[mine, 3]
        excess = np.bincount(outcome, w[mine] - 1, minlength=4)
        squares = np.bincount(outcome, w[mine] ** 2 - 1, minlength=4)
        key = json.dumps([*prefix, systems[c // k], systems[c % k]])
        found[key] = [int(mine.sum()), *excess.tolist(), *squares.tolist()]
    return found


def _agreement(systems: list[str], rows: np.ndarray) -> pref.RaterAgreement:
    """The topic's votes as judgments (its one prompt): the outcome counts per unit, the repeats."""
    return pref.rater_agreement(
        rows[:, 1], rows[:, 2], rows[:, 3], rows[:, 0], np.zeros(len(rows), np.int64), n_systems=len(systems)
    )


def contribution(campaign: Campaign | None, topic: Topic | None, partial: PreferencePartial) -> PreferenceSums:
    """The counts of one topic's partial.

    x prefers a twice (shown left, then right), y calls it a tie:

    >>> p = PreferencePartial(["a", "b"], ["x", "y"], [0, 0, 1, 0, 1, 1, 0, 2, 0, 1, 0, 1])
    >>> s = contribution(None, None, p)
    >>> s.votes, s.cells, s.raters, s.sizes
    (3, {'["a", "b"]': [1, 0, 0, 0], '["b", "a"]': [0, 1, 1, 0]}, {'x': [2, 1, 1, 1], 'y': [1, 0, 0, 0]}, {'2': [1, 1, 1, 2]})
    """
    sums: dict = {"topics": 1}
    people = np.array(partial.votes, dtype=np.int64).reshape(-1, 4)
    if len(people):
        found = _agreement(partial.systems, people)
        c = found.consistency
        votes = np.bincount(people[:, 0], minlength=len(partial.raters))
        sums |= {
            "votes": len(people),
            "prompts": 1,
            "cells": _cells(partial.systems, people, []),
            "raters": {
                partial.raters[r]: [int(votes[r]), int(c.units[k]), int(c.repeats[k]), int(c.agree[k])]
                for k, r in enumerate(c.rater.tolist())
            },
            "sizes": {str(r): counts for r, counts in pref.size_sums(found.outcomes).items()},
            "drawn": _drawn(partial.systems, people, partial.weights, []),
        }
    theirs = np.array(partial.judge_votes, dtype=np.int64).reshape(-1, 4)
    if len(theirs):
        judge_cells, judges, judge_drawn = {}, {}, {}
        for j, name in enumerate(partial.judges):
            mine = theirs[:, 0] == j
            own = theirs[mine]
            if not len(own):
                continue
            c = _agreement(partial.systems, own).consistency
            judge_cells |= _cells(partial.systems, own, [name])
            judges[name] = [len(own), 1, int(c.units[0]), int(c.repeats[0]), int(c.agree[0])]
            weights = np.asarray(partial.judge_weights)[mine].tolist() if partial.judge_weights else []
            judge_drawn |= _drawn(partial.systems, own, weights, [name])
        sums |= {"judge_cells": judge_cells, "judges": judges, "judge_drawn": judge_drawn}
    return PreferenceSums(**sums)


def _table(cells: dict[str, list[int]]) -> tuple[np.ndarray, list[str]]:
    """The (k, k, 4) vote counts of ``cells`` (keys: json [left, right]) over their systems, sorted."""
    pairs = [(json.loads(key), counts) for key, counts in cells.items()]
    names = sorted({name for (left, right), _ in pairs for name in (left, right)})
    index = {name: k for k, name in enumerate(names)}
    counts = np.zeros((len(names), len(names), 4), np.int64)
    for (left, right), found in pairs:
        counts[index[left], index[right]] = found
    return counts, names


def _weighted(counts: np.ndarray, names: list[str], drawn: dict[str, list], votes: int) -> pref.WeightedCounts | None:
    """The weighted counts of ``counts`` (over ``names``) and ``drawn`` (keys: json [..., left,
    right]; :attr:`PreferenceSums.drawn`), as kinds.preference.stats.weighted_counts gives them
    from the votes; None when no vote's weight is other than 1."""
    if not drawn:
        return None
    index = {name: k for k, name in enumerate(names)}
    table, squares = counts.astype(np.float64), counts.astype(np.float64)
    for key, entry in drawn.items():
        left, right = (index[name] for name in json.loads(key)[-2:])
        table[left, right] += entry[1:5]
        squares[left, right] += entry[5:9]
    return pref.WeightedCounts(table, squares, votes)


def _board(
    counts: np.ndarray,
    names: list[str],
    given: MergeInput,
    settings: IntervalSettings,
    before: PreferenceBoard | None,
    *,
    who: str,
    votes: int,
    raters: int,
    prompts: int,
    drawn: dict[str, list],
) -> Fitted:
    """The leaderboard of ``counts`` (fitted on them weighted by ``drawn``: :func:`_weighted`), its
    intervals the last full merge's (``before``) around the scores as they are now."""
    rows = {row.system: row for row in before.rows} if before is not None else {}
    same = before is not None and not before.problem and before.systems == names

    def spread(fit: pref.PreferenceFit) -> Spread:
        def bounds(attribute: str, units: int, unit: str) -> list[FigureCI]:
            return [
                around(getattr(rows[name], attribute), score, units) if name in rows else no_ci(score, units, unit)
                for name, score in zip(names, fit.ratings.tolist())
            ]

        return Spread(
            bounds("by_votes", votes, "votes"),
            bounds("by_raters", raters, "assessors"),
            bounds("by_prompts", prompts, "prompts"),
            [rows[name].rank_low for name in names] if same else None,
            [rows[name].rank_high for name in names] if same else None,
        )

    board, fit = board_of(
        counts,
        names,
        given.campaign.params,
        settings,
        who=who,
        votes=votes,
        raters=raters,
        prompts=prompts,
        spread=spread,
        weighted=_weighted(counts, names, drawn, votes),
    )
    return Fitted(board, np.zeros(0, np.int64), fit)


def refresh(given: MergeInput, fits: PreferenceCampaignReport, sums: PreferenceSums) -> PreferenceCampaignReport:
    """The campaign report of ``sums``: every point figure from the counts (the fits of the
    leaderboards, their sandwich errors, settled pairs, position bias, win rates, the agreement,
    the self-consistency, the judges' Kendall's tau and the pairs they order differently), the
    bootstraps' bounds and the rank intervals from ``fits``."""
    params = given.campaign.params
    settings = interval_settings(params)
    nan = float("nan")
    counts, names = _table(sums.cells)
    raters = sorted(sums.raters)
    theirs = _board(
        counts,
        names,
        given,
        settings,
        fits.people,
        who="people",
        votes=sums.votes,
        raters=len(raters),
        prompts=sums.prompts,
        drawn=sums.drawn,
    )
    alpha, kappa, fleiss_units, fleiss_raters = pref.coefficients_of_sizes({int(r): c for r, c in sums.sizes.items()})
    paired = sum(c[0] for c in sums.sizes.values())
    if paired:
        alpha_ci = around(fits.alpha, alpha, paired)
        fleiss = PreferenceFleiss(kappa, fleiss_units, fleiss_raters, around(fits.fleiss.ci, kappa, fleiss_units))
    else:
        alpha_ci, fleiss = no_ci(nan, 0, UNIT), PreferenceFleiss(nan, 0, 0, no_ci(nan, 0, UNIT))
    repeats = np.array([sums.raters[name][1:] for name in raters], dtype=np.int64).reshape(-1, 3)
    consistency = consistency_rows(
        raters, pref.self_consistency(np.arange(len(raters)), repeats[:, 1], repeats[:, 0], repeats[:, 2])
    )
    before = {j.judge: j for j in fits.model_judges}
    judges = []
    for name in sorted(sums.judges):
        votes, prompts, units, again, alike = sums.judges[name]
        own = {key: c for key, c in sums.judge_cells.items() if json.loads(key)[0] == name}
        judge_counts, judge_names = _table({json.dumps(json.loads(key)[1:]): c for key, c in own.items()})
        old = before.get(name)
        mine = _board(
            judge_counts,
            judge_names,
            given,
            settings,
            None if old is None else old.board,
            who=name,
            votes=votes,
            raters=1,
            prompts=prompts,
            drawn={key: entry for key, entry in sums.judge_drawn.items() if json.loads(key)[0] == name},
        )
        rows = consistency_rows([name], pref.self_consistency([0], [again], [units], [alike]))

        def interval(tau: float, systems: int, old=old) -> FigureCI:
            return no_ci(tau, systems, "systems") if old is None else around(old.tau, tau, systems)

        judges.append(beside(name, mine, theirs, next(iter(rows), None), interval))
    return PreferenceCampaignReport(
        topics=sums.topics,
        votes=sums.votes,
        tie_model=params.get("tie_model") or "half",
        people=theirs.board,
        alpha=alpha_ci,
        fleiss=fleiss,
        units_paired=paired,
        consistency=consistency,
        model_judges=judges,
    )
