"""The preference campaign report: per-topic partials (a topic's votes) and their merge.

A topic's partial is its votes, each (rater, left output, right output, outcome) as the
verdicts record them, with the topic's systems by position and the raters' names: what the
counts per ordered pair of systems and outcome (kinds.preference.stats.vote_counts) and the
cluster bootstraps (by rater, by prompt: the topic) need. The merge lays the topics' votes end to
end, names each system and rater campaign-wide, and fits the leaderboard (kinds.preference.stats).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, NamedTuple

import numpy as np

from annotate.models import Campaign, Topic
from kinds.preference import stats as pref
from kinds.preference.data import CHOICES
from kinds.preference.report import (
    TIE_MODELS,
    UNIT,
    PreferenceAdjacent,
    PreferenceBias,
    PreferenceBoard,
    PreferenceCampaignReport,
    PreferenceConsistency,
    PreferenceFleiss,
    PreferenceJudge,
    PreferenceRow,
    PreferenceTopicPair,
    PreferenceTopicReport,
    disagreement_of,
)
from kinds.spec import Disagreement
from scoring.partials import MergeInput, from_scratch
from scoring.selectors import JudgmentRow, ReportInput
from stats.intervals import FigureCI, IntervalSettings, interval_settings, no_ci, too_few_ci
from stats.uncertainty import Interval, UnitStatistics, resample_weights

#: The outcome code of each choice (kinds.preference.stats: LEFT, RIGHT, TIE, BOTH_BAD).
OUTCOME = {choice: code for code, choice in enumerate(CHOICES)}
#: The z of a two-sided 95% interval (the sandwich estimator's).
Z95 = 1.959963984540054


@dataclass(frozen=True)
class PreferencePartial:
    """A topic's votes: ``systems`` by position (0-based here), the raters who judged it (sorted),
    and per vote four ints, row by row: rater (index in ``raters``), left, right (positions),
    outcome (0 left, 1 right, 2 tie, 3 both bad). The model judges' apart, likewise."""

    systems: list[str]
    raters: list[str]
    votes: list[int]
    judges: list[str] = field(default_factory=list)
    judge_votes: list[int] = field(default_factory=list)
    #: Each vote's weight (of ``votes``, ``judge_votes``), :func:`vote_weights`; empty: every one 1.
    weights: list[float] = field(default_factory=list)
    judge_weights: list[float] = field(default_factory=list)


def _votes_of(rows: Sequence[JudgmentRow]) -> tuple[list[str], list[int]]:
    names = sorted({row.assessor for row in rows})
    index = {name: k for k, name in enumerate(names)}
    votes: list[int] = []
    for row in rows:
        for verdict in row.payload.get("verdicts", []):
            votes += [index[row.assessor], verdict["left"] - 1, verdict["right"] - 1, OUTCOME[verdict["choice"]]]
    return names, votes


def topic_partial(input: ReportInput, topic: Topic, report: PreferenceTopicReport | None = None) -> PreferencePartial:
    """``topic``'s :class:`PreferencePartial`: reads its judgments only."""
    raters, votes = _votes_of(input.judgments_of(topic))
    judges, judge_votes = _votes_of(input.judge_judgments_of(topic))
    return PreferencePartial(
        systems=[output["system"] for output in topic.data["outputs"]],
        raters=raters,
        votes=votes,
        judges=judges,
        judge_votes=judge_votes,
        weights=vote_weights(input, topic, input.judgments_of(topic)),
        judge_weights=vote_weights(input, topic, input.judge_judgments_of(topic)),
    )


def vote_weights(input: ReportInput, topic: Topic, rows: Sequence[JudgmentRow]) -> list[float]:
    """Each vote's weight, in :func:`_votes_of`'s order: the inverse of the probability its pair
    was drawn with where the active allocation drew it (``ReportInput.draws_of``: Chiang et al.
    2024, "Chatbot Arena", section 5, eq. 7), else 1 (a uniform allocation's, an imported battle).
    Empty when every weight is 1: so always under ``allocation=design``, whose fit is the
    unweighted likelihood's (kinds/preference/allocation.py says why it needs no weights)."""
    if input.campaign.params.get("allocation") == "design":
        return []
    weights = [
        1 / drawn[verdict["pair"]] if verdict["pair"] in drawn else 1.0
        for row in rows
        for drawn in (input.draws_of(topic, row.assessor),)
        for verdict in row.payload.get("verdicts", [])
    ]
    return weights if any(w != 1.0 for w in weights) else []


def topic_pairs(partial: PreferencePartial) -> list[PreferenceTopicPair]:
    """Each pair of the topic's systems with the people's votes, in the pairs' order."""
    n = len(partial.systems)
    votes = np.array(partial.votes, dtype=np.int64).reshape(-1, 4)
    first, second, outcome = pref.canonical_outcomes(votes[:, 1], votes[:, 2], votes[:, 3], n_systems=n)
    column = np.where(votes[:, 3] == pref.BOTH_BAD, 3, outcome)  # first, second, tie, both bad
    counts = np.zeros((n, n, 4), np.int64)
    np.add.at(counts, (first, second, column), 1)
    return [
        PreferenceTopicPair(f"{i + 1}-{j + 1}", partial.systems[i], partial.systems[j], *map(int, counts[i, j]))
        for i in range(n)
        for j in range(i + 1, n)
    ]


def topic_report(input: ReportInput, topic: Topic) -> PreferenceTopicReport:
    partial = topic_partial(input, topic)
    return PreferenceTopicReport(
        systems=partial.systems,
        assessors=partial.raters,
        pairs=topic_pairs(partial),
        judgments=len(partial.raters),
    )


def partial_disagreement(partial: PreferencePartial, campaign: Campaign | None = None) -> Disagreement | None:
    """:func:`~kinds.preference.report.topic_disagreement` from the topic's partial."""
    return disagreement_of(topic_pairs(partial))


# -- the merge ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Votes:
    """Votes laid end to end over the topics: systems and raters named campaign-wide (sorted), each
    vote's left and right system, outcome, rater and prompt (topic)."""

    systems: list[str]
    raters: list[str]
    left: np.ndarray
    right: np.ndarray
    outcome: np.ndarray
    rater: np.ndarray
    prompt: np.ndarray
    #: each vote's weight (PreferencePartial.weights); None: every one 1
    weight: np.ndarray | None = None

    def only(self, keep: np.ndarray) -> Votes:
        return Votes(
            self.systems,
            self.raters,
            self.left[keep],
            self.right[keep],
            self.outcome[keep],
            self.rater[keep],
            self.prompt[keep],
            None if self.weight is None else self.weight[keep],
        )

    @property
    def weighted(self) -> bool:
        return self.weight is not None and bool((self.weight != 1).any())

    @property
    def n(self) -> int:
        return len(self.left)


def gather(partials: Sequence[PreferencePartial], *, judges: bool) -> Votes:
    """Every topic's votes (the people's, or with ``judges`` the model judges') as one :class:`Votes`."""
    systems = sorted(set(chain.from_iterable(p.systems for p in partials)))
    names = sorted(set(chain.from_iterable(p.judges if judges else p.raters for p in partials)))
    system_index = {name: k for k, name in enumerate(systems)}
    rater_index = {name: k for k, name in enumerate(names)}
    columns: list[np.ndarray] = []
    for t, p in enumerate(partials):
        rows = np.array(p.judge_votes if judges else p.votes, dtype=np.int64).reshape(-1, 4)
        if not len(rows):
            continue
        local_systems = np.array([system_index[s] for s in p.systems], dtype=np.int64)
        local_raters = np.array([rater_index[r] for r in (p.judges if judges else p.raters)], dtype=np.int64)
        columns.append(
            np.column_stack(
                [
                    local_systems[rows[:, 1]],
                    local_systems[rows[:, 2]],
                    rows[:, 3],
                    local_raters[rows[:, 0]],
                    np.full(len(rows), t),
                ]
            )
        )
    table = np.concatenate(columns) if columns else np.zeros((0, 5), np.int64)
    weights = [
        np.asarray(
            (p.judge_weights if judges else p.weights) or np.ones(len(p.judge_votes if judges else p.votes) // 4)
        )
        for p in partials
    ]
    weight = np.concatenate(weights).astype(np.float64) if weights else np.zeros(0)
    return Votes(systems, names, *(table[:, k].copy() for k in range(5)), weight if (weight != 1).any() else None)


def merge(given: MergeInput, partials: Sequence[PreferencePartial]) -> PreferenceCampaignReport:
    """The campaign report of every topic's partial, in topic order."""
    params = given.campaign.params
    settings = interval_settings(params)
    people = gather(partials, judges=False)
    theirs = fitted(people, params, settings, who="people")
    board = theirs.board
    alpha, fleiss, paired, consistency = agreement(people, settings)
    judged = gather(partials, judges=True)
    judges = [judge_board(judged, k, theirs, params, settings) for k in range(len(judged.raters))]
    return PreferenceCampaignReport(
        topics=len(partials),
        votes=people.n,
        tie_model=params.get("tie_model") or "half",
        people=board,
        alpha=alpha,
        fleiss=fleiss,
        units_paired=paired,
        consistency=consistency,
        model_judges=judges,
    )


def campaign_report(input: ReportInput) -> PreferenceCampaignReport:
    return from_scratch(input, topic=topic_report, partial=topic_partial, merge=merge)


# -- the leaderboard ----------------------------------------------------------------------


@dataclass(frozen=True)
class Fitted:
    """A leaderboard with what a judge's comparison reads: the systems it rates (indices into the
    campaign's) and its fit, as the bootstrap over votes when there is one (None: no fit)."""

    board: PreferenceBoard
    used: np.ndarray
    result: pref.BootstrapIntervals | pref.PreferenceFit | None


def leaderboard(votes: Votes, params: Mapping[str, Any], settings: IntervalSettings, *, who: str) -> PreferenceBoard:
    return fitted(votes, params, settings, who=who).board


class Spread(NamedTuple):
    """A leaderboard's intervals, per system in the board's order: its score's 95% intervals by
    votes, raters and prompts, and its joint rank interval (None: no band, each system's own rank)."""

    by_votes: list[FigureCI]
    by_raters: list[FigureCI]
    by_prompts: list[FigureCI]
    rank_low: list[int] | None
    rank_high: list[int] | None


def fitted(
    votes: Votes, params: Mapping[str, Any], settings: IntervalSettings, *, who: str, seed: int | None = None
) -> Fitted:
    """The leaderboard of ``votes`` over the systems they rate (docs/methods.md, "Preference
    leaderboards"); its bootstraps seeded with ``seed`` (None: the campaign's)."""
    used = np.unique(np.concatenate([votes.left, votes.right]))
    names = [votes.systems[k] for k in used.tolist()]
    k = len(used)
    local = np.full(len(votes.systems), -1, np.int64)
    local[used] = np.arange(k)
    left, right = local[votes.left], local[votes.right]
    # vote_counts counts two systems or more; fewer have no pair to count
    counts = pref.vote_counts(left, right, votes.outcome, n_systems=k) if k >= 2 else np.zeros((k, k, 4), np.int64)
    raters, prompts = len(np.unique(votes.rater)), len(np.unique(votes.prompt))
    found: list[Any] = [None]

    def spread(fit: pref.PreferenceFit) -> Spread:
        options = dict(
            model=fit.model,
            anchor=fit.anchor,
            base=fit.base,
            resamples=settings.resamples,
            seed=settings.seed if seed is None else seed,
        )
        by_votes = _bootstrap(counts, votes.n, settings, options)
        by_raters = _bootstrap(
            pref.cluster_counts(left, right, votes.outcome, votes.rater, n_systems=k), raters, settings, options
        )
        by_prompts = _bootstrap(
            pref.cluster_counts(left, right, votes.outcome, votes.prompt, n_systems=k), prompts, settings, options
        )
        found[0] = by_votes
        scores = fit.ratings.tolist()
        return Spread(
            [_interval(by_votes, s, score, votes.n, "votes") for s, score in enumerate(scores)],
            [_interval(by_raters, s, score, raters, "assessors") for s, score in enumerate(scores)],
            [_interval(by_prompts, s, score, prompts, "prompts") for s, score in enumerate(scores)],
            None if by_votes is None else by_votes.rank_lower.tolist(),
            None if by_votes is None else by_votes.rank_upper.tolist(),
        )

    weighted = pref.weighted_counts(left, right, votes.outcome, votes.weight, n_systems=k) if votes.weighted else None
    board, fit = board_of(
        counts,
        names,
        params,
        settings,
        who=who,
        votes=votes.n,
        raters=raters,
        prompts=prompts,
        spread=spread,
        weighted=weighted,
    )
    return Fitted(board, used, fit if found[0] is None else found[0])


def board_of(
    counts: np.ndarray,
    names: list[str],
    params: Mapping[str, Any],
    settings: IntervalSettings,
    *,
    who: str,
    votes: int,
    raters: int,
    prompts: int,
    spread: Callable[[pref.PreferenceFit], Spread],
    weighted: pref.WeightedCounts | None = None,
) -> tuple[PreferenceBoard, pref.PreferenceFit | None]:
    """The leaderboard of ``counts`` (kinds.preference.stats.vote_counts over ``names``) with every
    point figure computed from them (the fit, the sandwich, the settled pairs, the position bias)
    and the intervals that need the votes themselves from ``spread(fit)``; and the fit (None: none).

    ``weighted``: the same votes weighted by the inverse of their sampling probability
    (kinds.preference.stats.weighted_counts), given when some vote's weight is not 1: the fit and
    its sandwich errors are then of those (Chiang et al. 2024, eq. 7), the model says so
    (:data:`WEIGHTED`), and the bootstraps are none (they draw votes as independent, equal ones),
    so ``spread`` is not called; the win rates, the tallies and the position bias stay the votes'
    as cast."""
    tie_model = params.get("tie_model") or "half"
    fit_of = pref.davidson if tie_model == "davidson" else pref.bradley_terry
    k = len(names)
    both = counts + counts.transpose(1, 0, 2)[:, :, [1, 0, 2, 3]]  # i's votes against j, as if on the left
    games = both.sum(axis=2)
    anchor_name = params.get("anchor") or ""
    anchor = names.index(anchor_name) if anchor_name in names else None
    base = float(params.get("anchor_rating", 1000.0))
    common = dict(
        who=who,
        model=TIE_MODELS[tie_model] + (WEIGHTED if weighted is not None else ""),
        anchor=anchor_name if anchor is not None else "",
        base=base,
        votes=votes,
        raters=raters,
        prompts=prompts,
        systems=names,
        games=games.tolist(),
        win_rates=(pref.win_rates(counts) if k >= 2 else np.full((k, k), np.nan)).tolist(),
    )
    wins, losses = both[:, :, 0].sum(axis=1), both[:, :, 1].sum(axis=1)
    ties = both[:, :, 2:].sum(axis=(1, 2))
    if k < 2:
        return _unfitted(common, "fewer than two systems have votes", names, wins, losses, ties), None
    fit_counts = counts if weighted is None else weighted
    try:
        fit = fit_of(fit_counts, anchor=anchor, base=base)
    except ValueError as error:
        return _unfitted(common, _reason(error), names, wins, losses, ties), None
    bands = spread(fit) if weighted is None else unbootstrapped(fit, votes, raters, prompts)
    robust = pref.sandwich(fit_counts, fit).se
    order = np.argsort(-fit.ratings, kind="stable")
    own = (np.argsort(order) + 1).tolist()  # no band: each system's own rank, none joint
    rank_low = own if bands.rank_low is None else bands.rank_low
    rank_high = own if bands.rank_high is None else bands.rank_high
    rows = []
    for rank, s in enumerate(order.tolist(), start=1):
        score = float(fit.ratings[s])
        rows.append(
            PreferenceRow(
                system=names[s],
                rank=rank,
                rank_low=int(rank_low[s]),
                rank_high=int(rank_high[s]),
                score=score,
                by_votes=bands.by_votes[s],
                by_raters=bands.by_raters[s],
                by_prompts=bands.by_prompts[s],
                sandwich=_analytic(score, float(robust[s]), votes, settings),
                votes=int(games[s].sum()),
                wins=int(wins[s]),
                losses=int(losses[s]),
                ties=int(ties[s]),
            )
        )
    steps = pref.settled(fit)
    adjacent = [
        PreferenceAdjacent(
            upper=names[u],
            lower=names[w],
            difference=float(d),
            se=float(e),
            settled=bool(ok),
            more_votes=None if not np.isfinite(more) else int(more),
        )
        for u, w, d, e, ok, more in zip(
            steps.upper.tolist(), steps.lower.tolist(), steps.difference, steps.se, steps.settled, steps.more_votes
        )
    ]
    board = PreferenceBoard(
        **common,
        rows=rows,
        predicted=pref.win_probabilities(fit).tolist(),
        adjacent=adjacent,
        bias=position_bias(counts, fit_of, anchor, base),
    )
    return board, fit


#: What the leaderboard's model says of its fit when some votes were drawn by the active allocation.
WEIGHTED = (
    "; each vote weighted by the inverse of its sampling probability (Chiang et al. 2024, eq. 7: the active "
    "allocation's; the others' weight 1), so its intervals are the sandwich estimator's"
)


def unbootstrapped(fit: pref.PreferenceFit, votes: int, raters: int, prompts: int) -> Spread:
    """A weighted leaderboard's intervals: none but the sandwich's, no rank band."""
    scores = fit.ratings.tolist()
    return Spread(
        [no_ci(score, votes, "votes") for score in scores],
        [no_ci(score, raters, "assessors") for score in scores],
        [no_ci(score, prompts, "prompts") for score in scores],
        None,
        None,
    )


def _reason(error: ValueError) -> str:
    return f"no finite scores yet: {str(error).removeprefix('counts: ')}"


def _unfitted(common: dict, problem: str, names: list[str], wins, losses, ties) -> PreferenceBoard:
    nan = float("nan")
    rows = [
        PreferenceRow(
            system=name,
            rank=0,
            rank_low=0,
            rank_high=0,
            score=nan,
            by_votes=no_ci(nan, 0, "votes"),
            by_raters=no_ci(nan, 0, "assessors"),
            by_prompts=no_ci(nan, 0, "prompts"),
            sandwich=no_ci(nan, 0, "votes"),
            votes=int(wins[s] + losses[s] + ties[s]),
            wins=int(wins[s]),
            losses=int(losses[s]),
            ties=int(ties[s]),
        )
        for s, name in enumerate(names)
    ]
    k = len(names)
    return PreferenceBoard(
        **common,
        rows=rows,
        predicted=np.full((k, k), nan).tolist(),
        adjacent=[],
        bias=None,
        problem=problem,
    )


def _bootstrap(counts: Any, units: int, settings: IntervalSettings, options: dict) -> Any:
    """``kinds.preference.stats.bootstrap`` over ``units`` (votes, raters, prompts); None below the
    campaign's minimum of units for an interval, or with fewer than two clusters."""
    if units < max(settings.min_units, 2):
        return None
    return pref.bootstrap(counts, **options)


def _interval(found: Any, s: int, score: float, units: int, unit: str) -> FigureCI:
    if found is None:
        return too_few_ci(score, units, unit)
    return FigureCI(score, float(found.lower[s]), float(found.upper[s]), units=units, unit=unit, method="bootstrap")


def _analytic(score: float, se: float, votes: int, settings: IntervalSettings) -> FigureCI:
    """The sandwich estimator's 95% interval, score +- 1.96 robust standard errors."""
    return settings.analytic(
        Interval(score, score - Z95 * se, score + Z95 * se, units=votes, method="analytic"), "votes"
    )


def position_bias(counts: np.ndarray, fit_of: Any, anchor: int | None, base: float) -> PreferenceBias:
    """The side term of the model fitted with one (its Wald test), and the left side's share of the
    decisive votes."""
    nan = float("nan")
    left_wins, right_wins = int(counts[:, :, 0].sum()), int(counts[:, :, 1].sum())
    decisive = left_wins + right_wins
    share = left_wins / decisive if decisive else nan
    try:
        fit = fit_of(counts, side=True, anchor=anchor, base=base)
    except ValueError as error:
        return PreferenceBias(nan, nan, nan, nan, share, decisive, problem=_reason(error))
    return PreferenceBias(fit.side, fit.side_se, fit.side_z, fit.side_p, share, decisive)


# -- agreement, consistency, judges --------------------------------------------------------------


def agreement(
    votes: Votes, settings: IntervalSettings
) -> tuple[FigureCI, PreferenceFleiss, int, list[PreferenceConsistency]]:
    """Krippendorff's alpha (nominal) and Fleiss' kappa over the three outcomes, a unit each prompt's
    pair of systems, one verdict per rater and unit, every unit counted as itself and as its mirror
    (kinds.preference.stats.rater_agreement: so the figures do not depend on which system of a pair
    is numbered first), the units judged twice or more; and each rater who judged a prompt's pair
    twice or more: how often their repeats agree with their first verdict on it, with Wilson's
    interval. The bootstrap draws a unit and its mirror together (one weight for both), over the
    units themselves."""
    nan = float("nan")
    none = no_ci(nan, 0, UNIT), PreferenceFleiss(nan, 0, 0, no_ci(nan, 0, UNIT)), 0
    if not votes.n:
        return *none, []
    found = pref.rater_agreement(
        votes.left, votes.right, votes.outcome, votes.rater, votes.prompt, n_systems=len(votes.systems)
    )
    consistency = consistency_rows(votes.raters, found.consistency)
    if found.pairable == 0:
        return *none, consistency
    alpha = _paired_interval(found.krippendorff, found.pairable, settings)
    kappa = found.fleiss
    fleiss = PreferenceFleiss(
        kappa.value, found.fleiss_units, found.fleiss_raters, _paired_interval(kappa, found.fleiss_units, settings)
    )
    return alpha, fleiss, found.pairable, consistency


def consistency_rows(names: Sequence[str], found: pref.SelfConsistency) -> list[PreferenceConsistency]:
    """The report's rows of the raters (``found.rater``: indices into ``names``) who repeated a unit."""
    return [
        PreferenceConsistency(
            names[r],
            int(found.units[k]),
            int(found.repeats[k]),
            int(found.agree[k]),
            float(found.share[k]),
            FigureCI(
                float(found.share[k]),
                float(found.lower[k]),
                float(found.upper[k]),
                units=int(found.repeats[k]),
                unit="repeats",
                method="analytic",
            ),
        )
        for k, r in enumerate(found.rater.tolist())
        if found.repeats[k]
    ]


def _paired_interval(stats: UnitStatistics, units: int, settings: IntervalSettings) -> FigureCI:
    """The bootstrap interval of statistics over ``units`` units followed by their mirrors, a unit
    and its mirror drawn together, over ``units``."""
    if units < settings.min_units:
        return too_few_ci(float(stats.value), units, UNIT)
    weights = resample_weights(units, n_resamples=settings.resamples, seed=settings.seed).astype(np.float64)
    found = settings.interval(stats, UNIT, weights=np.concatenate([weights, weights], axis=1))
    return dataclasses.replace(found, units=units)


def judge_board(
    judged: Votes, k: int, theirs: Fitted, params: Mapping[str, Any], settings: IntervalSettings
) -> PreferenceJudge:
    """Model judge ``k``'s leaderboard, and Kendall's tau between it and the people's (``theirs``)
    over the systems both rate, with the interval of the taus of their bootstrap rounds paired
    (kinds.preference.stats.compare_leaderboards). The judge's bootstraps are seeded apart from the
    people's (the campaign's seed + 1 + ``k``): paired rounds must be independent draws, and the
    same seed would draw the two vote tables' resamples from one stream."""
    name = judged.raters[k]
    own = judged.only(judged.rater == k)
    mine = fitted(own, params, settings, who=name, seed=settings.seed + 1 + k)
    repeats = next(iter(agreement(own, settings)[3]), None)  # one rater: no agreement, its consistency
    return beside(name, mine, theirs, repeats)


def beside(
    name: str,
    mine: Fitted,
    theirs: Fitted,
    repeats: PreferenceConsistency | None,
    interval: Callable[[float, int], FigureCI] | None = None,
) -> PreferenceJudge:
    """Model judge ``name``'s leaderboard (``mine``) beside the people's (``theirs``): Kendall's tau
    over the systems both rate with the interval of their paired bootstrap rounds, or
    ``interval(tau, systems)`` when given (the running sums: the last full merge's bounds)."""
    nan = float("nan")
    if mine.result is None or theirs.result is None:
        return PreferenceJudge(name, mine.board, no_ci(nan, 0, "systems"), 0, [], repeats)
    my_names, their_names = mine.board.systems, theirs.board.systems
    place = {system: k for k, system in enumerate(their_names)}
    shared = [system for system in my_names if system in place]
    found = pref.compare_leaderboards(
        theirs.result,
        mine.result,
        systems=[place[system] for system in shared],
        other_systems=[my_names.index(system) for system in shared],
    )
    if interval is not None:
        figure = interval(found.tau, len(shared))
    elif found.rounds >= 2:
        figure = FigureCI(found.tau, found.lower, found.upper, units=len(shared), unit="systems", method="bootstrap")
    else:
        figure = no_ci(found.tau, len(shared), "systems")
    differing = [[shared[i], shared[j]] for i, j in zip(found.first.tolist(), found.second.tolist())]
    return PreferenceJudge(name, mine.board, figure, len(shared), differing, repeats)
