"""The preference campaign report: per-topic partials (a topic's votes) and their merge.

A topic's partial is its votes, each (rater, left output, right output, outcome) as the
verdicts record them, with the topic's systems by position and the raters' names: what the
counts per ordered pair of systems and outcome (stats.preference.vote_counts) and the cluster
bootstraps (by rater, by prompt: the topic) need. The merge lays the topics' votes end to end,
names each system and rater campaign-wide, and fits the leaderboard (stats.preference).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np

from annotate.models import Campaign, Topic
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
from kinds.preference.stats import (
    FIRST,
    SECOND,
    SYSTEM_TIE,
    leaderboard_tau,
    ordered_differently,
    self_consistency,
    system_outcomes,
)
from kinds.spec import Disagreement
from scoring.partials import MergeInput, from_scratch
from scoring.selectors import JudgmentRow, ReportInput
from stats import preference as pref
from stats.intervals import FigureCI, IntervalSettings, interval_settings, no_ci, too_few_ci
from stats.uncertainty import Interval, fleiss_kappa_units, krippendorff_alpha_units, resample_weights

#: The outcome code of each choice (stats.preference: LEFT, RIGHT, TIE, BOTH_BAD).
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
    Empty when every weight is 1."""
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
    first = np.minimum(votes[:, 1], votes[:, 2])
    second = np.maximum(votes[:, 1], votes[:, 2])
    outcome = system_outcomes(votes[:, 1], votes[:, 2], votes[:, 3])
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
    vote's left and right system, outcome, rater, prompt (topic) and unit (a prompt's pair)."""

    systems: list[str]
    raters: list[str]
    left: np.ndarray
    right: np.ndarray
    outcome: np.ndarray
    rater: np.ndarray
    prompt: np.ndarray
    unit: np.ndarray
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
            self.unit[keep],
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
        low, high = np.minimum(rows[:, 1], rows[:, 2]), np.maximum(rows[:, 1], rows[:, 2])
        width = len(p.systems)
        columns.append(
            np.column_stack(
                [
                    local_systems[rows[:, 1]],
                    local_systems[rows[:, 2]],
                    rows[:, 3],
                    local_raters[rows[:, 0]],
                    np.full(len(rows), t),
                    t * 1000 + low * width + high,  # a unit per prompt and pair (width <= 20 outputs)
                ]
            )
        )
    table = np.concatenate(columns) if columns else np.zeros((0, 6), np.int64)
    weights = [
        np.asarray(
            (p.judge_weights if judges else p.weights) or np.ones(len(p.judge_votes if judges else p.votes) // 4)
        )
        for p in partials
    ]
    weight = np.concatenate(weights).astype(np.float64) if weights else np.zeros(0)
    return Votes(systems, names, *(table[:, k].copy() for k in range(6)), weight if (weight != 1).any() else None)


def merge(given: MergeInput, partials: Sequence[PreferencePartial]) -> PreferenceCampaignReport:
    """The campaign report of every topic's partial, in topic order."""
    params = given.campaign.params
    settings = interval_settings(params)
    people = gather(partials, judges=False)
    theirs = fitted(people, params, settings, who="people")
    board = theirs.board
    alpha, fleiss, paired = agreement(people, settings)
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
        consistency=consistency(people),
        model_judges=judges,
    )


def campaign_report(input: ReportInput) -> PreferenceCampaignReport:
    return from_scratch(input, topic=topic_report, partial=topic_partial, merge=merge)


# -- the leaderboard ----------------------------------------------------------------------


@dataclass(frozen=True)
class Fitted:
    """A leaderboard with the arrays a judge's comparison reads: the systems it rates (indices
    into the campaign's), their ratings and the vote bootstrap's rounds (None: no fit)."""

    board: PreferenceBoard
    used: np.ndarray
    ratings: np.ndarray | None
    samples: np.ndarray | None


def leaderboard(votes: Votes, params: Mapping[str, Any], settings: IntervalSettings, *, who: str) -> PreferenceBoard:
    return fitted(votes, params, settings, who=who).board


def fitted(votes: Votes, params: Mapping[str, Any], settings: IntervalSettings, *, who: str) -> Fitted:
    """The leaderboard of ``votes`` over the systems they rate (docs/methods.md, "Preference leaderboards")."""
    tie_model = params.get("tie_model") or "half"
    model = "davidson" if tie_model == "davidson" else "bradley-terry"
    fit_of = pref.davidson if model == "davidson" else pref.bradley_terry
    used = np.unique(np.concatenate([votes.left, votes.right]))
    names = [votes.systems[k] for k in used.tolist()]
    k = len(used)
    local = np.full(len(votes.systems), -1, np.int64)
    local[used] = np.arange(k)
    left, right = local[votes.left], local[votes.right]
    # stats.preference counts two systems or more; fewer have no pair to count
    counts = pref.vote_counts(left, right, votes.outcome, n_systems=k) if k >= 2 else np.zeros((k, k, 4), np.int64)
    both = counts + counts.transpose(1, 0, 2)[:, :, [1, 0, 2, 3]]  # i's votes against j, as if on the left
    games = both.sum(axis=2)
    anchor_name = params.get("anchor") or ""
    anchor = names.index(anchor_name) if anchor_name in names else None
    base = float(params.get("anchor_rating", 1000.0))
    common = dict(
        who=who,
        model=TIE_MODELS[tie_model] + (WEIGHTED if votes.weighted else ""),
        anchor=anchor_name if anchor is not None else "",
        base=base,
        votes=votes.n,
        raters=len(np.unique(votes.rater)),
        prompts=len(np.unique(votes.prompt)),
        systems=names,
        games=games.tolist(),
        win_rates=(pref.win_rates(counts) if k >= 2 else np.full((k, k), np.nan)).tolist(),
    )
    wins, losses = both[:, :, 0].sum(axis=1), both[:, :, 1].sum(axis=1)
    ties = both[:, :, 2:].sum(axis=(1, 2))
    if k < 2:
        return Fitted(
            _unfitted(common, "fewer than two systems have votes", names, wins, losses, ties), used, None, None
        )
    # actively drawn votes weigh the inverse of their probability (vote_weights): the fit on the weighted
    # counts, whose standard errors are the sandwich's (stats.preference.weighted_counts)
    fit_counts = (
        pref.weighted_counts(left, right, votes.outcome, votes.weight, n_systems=k) if votes.weighted else counts
    )
    try:
        fit = fit_of(fit_counts, anchor=anchor, base=base)
    except ValueError as error:
        return Fitted(_unfitted(common, _reason(error), names, wins, losses, ties), used, None, None)
    bootstrap = dict(model=model, anchor=anchor, base=base, resamples=settings.resamples, seed=settings.seed)
    resampled = _bootstrap if not votes.weighted else _none
    by_votes = resampled(counts, votes.n, "votes", settings, bootstrap)
    by_raters = resampled(
        pref.cluster_counts(left, right, votes.outcome, votes.rater, n_systems=k),
        len(np.unique(votes.rater)),
        "assessors",
        settings,
        bootstrap,
    )
    by_prompts = resampled(
        pref.cluster_counts(left, right, votes.outcome, votes.prompt, n_systems=k),
        len(np.unique(votes.prompt)),
        "prompts",
        settings,
        bootstrap,
    )
    robust = pref.sandwich(fit_counts, fit).se
    order = np.argsort(-fit.ratings, kind="stable")
    if by_votes is not None:
        rank_low, rank_high = by_votes.rank_lower, by_votes.rank_upper
    else:  # no band: each system's own rank, none joint
        rank_low = rank_high = np.argsort(order) + 1
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
                by_votes=_interval(by_votes, s, score, votes.n, "votes", settings),
                by_raters=_interval(by_raters, s, score, common["raters"], "assessors", settings),
                by_prompts=_interval(by_prompts, s, score, common["prompts"], "prompts", settings),
                sandwich=_analytic(score, float(robust[s]), votes.n, settings),
                votes=int(games[s].sum()),
                wins=int(wins[s]),
                losses=int(losses[s]),
                ties=int(ties[s]),
            )
        )
    if votes.weighted:  # the bootstraps draw votes as independent, equal ones: none holds for weighted votes
        rows = [unbootstrapped(row, votes.n, common["raters"], common["prompts"]) for row in rows]
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
    return Fitted(board, used, fit.ratings, None if by_votes is None else by_votes.samples)


#: What the leaderboard's model says of its fit when some votes were drawn by the active allocation.
WEIGHTED = (
    "; each vote weighted by the inverse of its sampling probability (Chiang et al. 2024, eq. 7: the active "
    "allocation's; the others' weight 1), so its intervals are the sandwich estimator's"
)


def unbootstrapped(row: PreferenceRow, votes: int, raters: int, prompts: int) -> PreferenceRow:
    """``row`` without its bootstrap intervals: a weighted leaderboard has the sandwich's only."""
    return dataclasses.replace(
        row,
        by_votes=no_ci(row.score, votes, "votes"),
        by_raters=no_ci(row.score, raters, "assessors"),
        by_prompts=no_ci(row.score, prompts, "prompts"),
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


def _bootstrap(counts: Any, units: int, unit: str, settings: IntervalSettings, options: dict) -> Any:
    """``stats.preference.bootstrap`` over ``units`` (votes, raters, prompts); None below the
    campaign's minimum of units for an interval, or with fewer than two clusters."""
    if units < max(settings.min_units, 2):
        return None
    return pref.bootstrap(counts, **options)


def _none(*args: Any) -> None:
    return None


def _interval(found: Any, s: int, score: float, units: int, unit: str, settings: IntervalSettings) -> FigureCI:
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


def _first_verdicts(votes: Votes) -> Votes:
    """Each rater's first verdict of each unit (their repeats are for :func:`consistency`)."""
    if not votes.n:
        return votes
    _, first = np.unique(np.column_stack([votes.rater, votes.unit]), axis=0, return_index=True)
    return votes.only(np.sort(first))


def agreement(votes: Votes, settings: IntervalSettings) -> tuple[FigureCI, PreferenceFleiss, int]:
    """Krippendorff's alpha (nominal) and Fleiss' kappa over the three outcomes, a unit each prompt's
    pair of systems, one verdict per rater and unit; Fleiss' over the units with the commonest
    number of raters (two or more: it needs the same number on every unit).

    Which system of a pair is "first" is arbitrary, and the chance agreement both figures correct
    for would depend on it (with the stronger system always first, "first better" is most verdicts,
    and agreement that it is looks like chance). So every unit is counted both ways round, as
    itself and as its mirror (first and second swapped): the outcomes' shares are then the same
    whichever system is called first, and each unit's own agreement is unchanged. The bootstrap
    draws a unit and its mirror together (one weight for both), over the units themselves."""
    nan = float("nan")
    once = _first_verdicts(votes)
    outcome = system_outcomes(once.left, once.right, once.outcome)
    units, unit_index = np.unique(once.unit, return_inverse=True)
    unit_index = unit_index.ravel()
    counts = np.zeros((len(units), 3), np.int64)
    np.add.at(counts, (unit_index, outcome), 1)
    raters_per_unit = counts.sum(axis=1)
    paired = raters_per_unit >= 2
    n_paired = int(paired.sum())
    if n_paired == 0:
        return no_ci(nan, 0, UNIT), PreferenceFleiss(nan, 0, 0, no_ci(nan, 0, UNIT)), 0
    keep = paired[unit_index]
    raters, rater_index = np.unique(once.rater[keep], return_inverse=True)
    columns = np.unique(unit_index[keep], return_inverse=True)[1].ravel()
    data = np.full((len(raters), n_paired), np.nan)
    data[rater_index.ravel(), columns] = outcome[keep]
    mirrored = np.concatenate(
        [data, np.where(np.isnan(data), np.nan, MIRROR[np.nan_to_num(data).astype(np.int64)])], axis=1
    )
    alpha = _paired_interval(krippendorff_alpha_units(mirrored, level="nominal"), n_paired, settings)
    sizes, times = np.unique(raters_per_unit[paired], return_counts=True)
    m = int(sizes[np.lexsort((sizes, times))[-1]])  # the commonest number of raters (ties: the larger)
    table = counts[raters_per_unit == m]
    stats = fleiss_kappa_units(np.concatenate([table, table[:, MIRROR]]))
    fleiss = PreferenceFleiss(float(stats.value), len(table), m, _paired_interval(stats, len(table), settings))
    return alpha, fleiss, n_paired


#: An outcome with the pair's first and second system swapped.
MIRROR = np.array([SECOND, FIRST, SYSTEM_TIE], dtype=np.int64)


def _paired_interval(stats: Any, units: int, settings: IntervalSettings) -> FigureCI:
    """The bootstrap interval of statistics over ``units`` units followed by their mirrors, a unit
    and its mirror drawn together, over ``units``."""
    if units < settings.min_units:
        return too_few_ci(float(stats.value), units, UNIT)
    weights = resample_weights(units, n_resamples=settings.resamples, seed=settings.seed).astype(np.float64)
    found = settings.interval(stats, UNIT, weights=np.concatenate([weights, weights], axis=1))
    return dataclasses.replace(found, units=units)


def consistency(votes: Votes) -> list[PreferenceConsistency]:
    """Each rater who judged a prompt's pair twice or more: how often their verdicts on it agree."""
    outcome = system_outcomes(votes.left, votes.right, votes.outcome)
    found = self_consistency(votes.rater, votes.unit, outcome, n_raters=len(votes.raters))
    return [
        PreferenceConsistency(name, int(found.units[k]), int(found.pairs[k]), found.same[k] / found.pairs[k])
        for k, name in enumerate(votes.raters)
        if found.units[k]
    ]


def judge_board(
    judged: Votes, k: int, theirs: Fitted, params: Mapping[str, Any], settings: IntervalSettings
) -> PreferenceJudge:
    """Model judge ``k``'s leaderboard, and Kendall's tau between it and the people's (``theirs``)
    over the systems both rate, with the interval of the taus of their bootstrap rounds paired."""
    name = judged.raters[k]
    own = judged.only(judged.rater == k)
    mine = fitted(own, params, settings, who=name)
    repeats = next(iter(consistency(own)), None)
    nan = float("nan")
    if mine.ratings is None or theirs.ratings is None:
        return PreferenceJudge(name, mine.board, no_ci(nan, 0, "systems"), 0, [], repeats)
    my_names, their_names = mine.board.systems, theirs.board.systems
    place = {system: k for k, system in enumerate(their_names)}
    shared = [system for system in my_names if system in place]
    a = np.array([my_names.index(system) for system in shared], dtype=np.int64)
    b = np.array([place[system] for system in shared], dtype=np.int64)
    tau = leaderboard_tau(
        theirs.ratings[b],
        mine.ratings[a],
        first_samples=None if theirs.samples is None else theirs.samples[:, b],
        second_samples=None if mine.samples is None else mine.samples[:, a],
    )
    figure = (
        FigureCI(tau.value, tau.low, tau.high, units=len(shared), unit="systems", method="bootstrap")
        if tau.rounds >= 2
        else no_ci(tau.value, len(shared), "systems")
    )
    differing = [[shared[i], shared[j]] for i, j in ordered_differently(theirs.ratings[b], mine.ratings[a])]
    return PreferenceJudge(name, mine.board, figure, len(shared), differing, repeats)
