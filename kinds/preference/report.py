"""The preference kind's reports: typed values (concord/typed.py), built in partials.py.

A topic's report lists its pairs of systems with their votes; the campaign report is the
leaderboard (docs/methods.md, "Preference leaderboards"): every system's score on the Elo
scale with its intervals and joint rank interval, the win matrix, the predicted win
probabilities, whether each adjacent pair's order is settled, the position bias, the
raters' agreement over the three outcomes and their self-consistency, and each model
judge's leaderboard beside the people's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from concord.typed import Figure
from kinds.spec import Disagreement, Headline
from stats.intervals import FigureCI
from stats.plain import KRIPPENDORFF_HELP, Reading

#: The unit of the agreement figures: one prompt's pair of systems, judged by two raters or more.
UNIT = "pairs"
#: How the report names the two tie models (``tie_model``).
TIE_MODELS = {
    "half": "Bradley-Terry, a tie or \u201cboth bad\u201d counted as half a win for each side (FastChat's convention)",
    "davidson": "Davidson (1970): ties have a probability of their own; \u201cboth bad\u201d counts as a tie",
}


@dataclass(frozen=True)
class PreferenceTopicPair:
    """One pair of the topic's systems (``pair``: its id, by the outputs' positions) and its votes, in the
    pair's terms: the first system won, the second, a tie, both bad."""

    pair: str
    first: str
    second: str
    first_wins: int
    second_wins: int
    ties: int
    both_bad: int

    @property
    def votes(self) -> int:
        return self.first_wins + self.second_wins + self.ties + self.both_bad


@dataclass(frozen=True)
class PreferenceTopicReport:
    """One topic: its systems, who judged it, each pair's votes (the people's)."""

    systems: list[str]
    assessors: list[str]
    pairs: list[PreferenceTopicPair]
    judgments: int


@dataclass(frozen=True)
class PreferenceRow:
    """One system of a leaderboard: its rank (1 the best) and joint rank interval, its score on
    the Elo scale with its 95% intervals (bootstrap over votes, cluster bootstrap over raters and
    over prompts, the sandwich estimator), and its votes."""

    system: str
    rank: int
    rank_low: int
    rank_high: int
    score: Figure
    by_votes: FigureCI
    by_raters: FigureCI
    by_prompts: FigureCI
    sandwich: FigureCI
    votes: int
    wins: int
    losses: int
    ties: int


@dataclass(frozen=True)
class PreferenceAdjacent:
    """Two systems next to each other on the leaderboard: the score difference, its standard error,
    whether its order is settled (the 95% interval of the difference excludes 0) and, if not, the
    further votes expected to settle it (None: it would take no number of votes, a difference of 0)."""

    upper: str
    lower: str
    difference: Figure
    se: Figure
    settled: bool
    more_votes: int | None


@dataclass(frozen=True)
class PreferenceBias:
    """The position bias: the left side's logit in the model with a side term (positive: the left
    output wins more than its system's score says), its standard error and Wald test, and the share
    of decisive votes the left side won."""

    side: Figure
    se: Figure
    z: Figure
    p: Figure
    left_share: Figure
    decisive: int
    problem: str = ""


@dataclass(frozen=True)
class PreferenceBoard:
    """One leaderboard (the people's, or one model judge's): ``systems`` in the order of the
    matrices, ``rows`` best first; ``problem``: why there are no scores (no finite maximum-likelihood
    estimate: a system that never lost or never won), else ""."""

    who: str
    model: str
    anchor: str
    base: float
    votes: int
    raters: int
    prompts: int
    systems: list[str]
    rows: list[PreferenceRow]
    #: games[i][j]: votes between systems i and j (either side); wins[i][j]: i's observed share
    #: against j (a tie half), None where they never met; predicted[i][j]: the fit's probability
    #: that i beats j (half a tie's under Davidson's model counted to each)
    games: list[list[int]]
    win_rates: list[list[Figure]]
    predicted: list[list[Figure]]
    adjacent: list[PreferenceAdjacent]
    bias: PreferenceBias | None
    problem: str = ""


@dataclass(frozen=True)
class PreferenceFleiss:
    kappa: Figure
    units: int
    raters: int
    ci: FigureCI


@dataclass(frozen=True)
class PreferenceConsistency:
    """A rater's agreement with themselves: ``units`` (a prompt's pair) judged twice or more, their
    ``repeats`` of those units (every verdict after the first), the repeats that ``agree`` with their
    first verdict on the unit, their ``share`` and its Wilson interval (``ci``, over the repeats)."""

    rater: str
    units: int
    repeats: int
    agree: int
    share: Figure
    ci: FigureCI


@dataclass(frozen=True)
class PreferenceJudge:
    """A model judge's leaderboard beside the people's: Kendall's tau between them over the systems
    both rate (with its bootstrap interval) and the pairs of systems they order differently (the
    people's higher first; the largest difference in the people's scores first)."""

    judge: str
    board: PreferenceBoard
    tau: FigureCI
    systems: int
    differing: list[list[str]]
    #: its verdicts on the pairs it judged twice or more (None: none)
    consistency: PreferenceConsistency | None = None


@dataclass(frozen=True)
class PreferenceCampaignReport:
    topics: int
    votes: int
    tie_model: str
    people: PreferenceBoard
    #: agreement over the three outcomes (the first system of a pair better, the second, a tie;
    #: "both bad" a tie), each prompt's pair a unit
    alpha: FigureCI
    fleiss: PreferenceFleiss
    units_paired: int
    consistency: list[PreferenceConsistency]
    #: the model judges' own section (annotate/judges.py): left out of every figure above
    model_judges: list[PreferenceJudge] = field(default_factory=list)


# -- a topic's disagreement -----------------------------------------------------------------


def pair_entropy(counts: Sequence[int]) -> float:
    """The entropy (bits) of one pair's votes over the three outcomes (both bad a tie).

    >>> pair_entropy([2, 2, 0]), pair_entropy([3, 0, 0])
    (1.0, 0.0)
    """
    total = sum(counts)
    if total == 0:
        return 0.0
    return sum(-c / total * math.log2(c / total) for c in counts if c)


def disagreement_of(pairs: Sequence[PreferenceTopicPair]) -> Disagreement | None:
    """The mean entropy of the votes of the topic's pairs judged twice or more, and its most split pair,
    named by its outputs' positions (adjudicators see the outputs as the assessors do, not the systems).

    >>> one = PreferenceTopicPair("1-2", "a", "b", 1, 1, 0, 0)
    >>> found = disagreement_of([one, PreferenceTopicPair("1-3", "a", "c", 2, 0, 0, 0)])
    >>> found.value, found.reason
    (0.5, '1 of 2 pairs split; most: pair 1-2 (1 / 1 / 0 ties)')
    """
    judged = [p for p in pairs if p.votes >= 2]
    if not judged:
        return None
    entropies = [pair_entropy([p.first_wins, p.second_wins, p.ties + p.both_bad]) for p in judged]
    split = sum(e > 0 for e in entropies)
    worst = max(range(len(judged)), key=lambda k: entropies[k])
    most = judged[worst]
    reason = f"{split} of {len(judged)} pairs split"
    if split:
        reason += (
            f"; most: pair {most.pair} ({most.first_wins} / {most.second_wins} / {most.ties + most.both_bad} ties)"
        )
    return Disagreement(sum(entropies) / len(entropies), reason)


def topic_disagreement(report: PreferenceTopicReport) -> Disagreement | None:
    """How split the topic's votes are: the mean entropy (bits, 0 to log2 3) of each pair's votes over
    the three outcomes (one system better, the other, a tie), over the pairs judged twice or more."""
    return disagreement_of(report.pairs)


def headline(report: PreferenceCampaignReport) -> Headline:
    """The figure the campaign's summary shows: Krippendorff's alpha over the three outcomes."""
    return Headline(
        "Krippendorff's alpha (preferences, 3 outcomes)", report.alpha, Reading("alpha", "alpha", KRIPPENDORFF_HELP)
    )
