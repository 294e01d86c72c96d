"""Orderings: the reports' types, the topic report, its disagreement and the campaign's headline.

Kim, Zhai & Han, "Aggregation of Multiple Judgments for Evaluating Ordered
Lists" (ordered-lists_kim-zhai-han.txt): Kendall's tau between assessors
(section 4.1), the rank-based consensus (4.3), run scores under AC, WCA, RBA
and FreSPA (4.1-4.4). The campaign report is the merge of the topics'
partials (partials.py: ED per method, 5.2); the gold standards are in
exports.py, the noise and FreSPA analyses (5.4-5.5) in analyses.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Literal

import numpy as np

from annotate.models import Campaign, Topic
from concord.typed import Figure
from kinds.disagreement import pairwise_disagreement
from kinds.ordering import stats as m
from kinds.spec import Disagreement, Headline
from scoring.selectors import JudgmentRow, ReportInput
from stats.intervals import FigureCI
from stats.plain import KENDALL_HELP, Reading

#: Run-scoring methods (KZH Table 1), as (label, function, keyword arguments).
METHODS: dict[str, tuple[Callable[..., float], dict[str, Any]]] = {
    "AC-tau": (m.average_correlation, {"measure": "tau"}),
    "AC-Sp": (m.average_correlation, {"measure": "spearman"}),
    "WCA-tau": (m.weighted_correlation, {"measure": "tau"}),
    "WCA-Sp": (m.weighted_correlation, {"measure": "spearman"}),
    "RBA-tau": (m.rank_based, {"measure": "tau"}),
    "RBA-Sp": (m.rank_based, {"measure": "spearman"}),
    "FreSPA": (m.frespa, {}),
}
#: The names :func:`kinds.ordering.stats.discriminativeness` knows them by.
ED_NAMES = dict(zip(METHODS, m.METHODS))


#: What the report says of each WCA convention (campaign param ``wca_weights``).
WCA_NOTES = {
    "clamped": "negative weights taken as 0 (Concord's default)",
    "paper": "the paper's formula, negative weights included (scores may leave [-1, 1])",
}


def wca_weights(campaign: Campaign) -> str:
    """The campaign's WCA weights: ``clamped`` (default) or ``paper`` (param ``wca_weights``)."""
    return campaign.params.get("wca_weights") or "clamped"


def frespa_setting(campaign: Campaign) -> m.FrespaSetting:
    """The campaign's FreSPA parameters: tuned and saved, or the paper's defaults."""
    return m.FrespaSetting(**campaign.params.get("frespa", {}))


def consensus_order(orders: Sequence[list[str]]) -> list[str]:
    """The rank-based consensus of ``orders`` (KZH section 4.3): items by summed
    rank, ties as in the first ordering (the ``consensus`` export, the
    adjudication page's "Accept the consensus")."""
    return m.rank_consensus(list(orders))


def golds_of(judgments: Sequence[JudgmentRow]) -> dict[str, list[str]]:
    return {j.assessor: j.payload["order"] for j in sorted(judgments, key=lambda j: j.assessor)}


def score_run(
    order: list[str], golds: list[list[str]], setting: m.FrespaSetting, wca: str = "clamped"
) -> dict[str, float]:
    methods = []
    for function, params in METHODS.values():
        if function is m.frespa:
            params = setting.params(len(order))
        elif function is m.weighted_correlation:
            params = {**params, "weights": wca}
        methods.append((function, params))
    return dict(zip(METHODS, m.scores_each(order, golds, methods)))


# -- the reports' types (stored as JSON, read back field by field: concord/typed.py) --------


@dataclass(frozen=True)
class OrderingItem:
    """One item of a topic's rank-based consensus ordering (section 4.3), with its text."""

    id: str
    text: str


@dataclass(frozen=True)
class OrderingTopicReport:
    """One topic: Kendall's tau between its assessors (section 4.1), their
    consensus (4.3) and each run's score under every method (4.1-4.4)."""

    #: the assessors who submitted an ordering of the topic, by name
    assessors: list[str]
    #: assessors x assessors Kendall tau (1 on the diagonal)
    tau: list[list[Figure]]
    #: the mean of the off-diagonal taus (undefined with fewer than two assessors)
    mean_tau: Figure
    consensus: list[OrderingItem]
    #: run name -> method label (:data:`METHODS`) -> the run's score on this topic
    runs: dict[str, dict[str, Figure]]
    #: the WCA weights of the runs' WCA scores (campaign param ``wca_weights``): clamped or paper
    wca_weights: str = "clamped"

    @property
    def methods(self) -> list[str]:
        """The method labels of the runs' scores (the runs table's columns)."""
        return list(next(iter(self.runs.values()), {}))


@dataclass(frozen=True)
class OrderingRun:
    """One run over the campaign: its mean score per method over the ``topics``
    it ordered that have a gold (sections 4.1-4.4), and its rank among the runs
    per method (methods where its score is undefined give no rank)."""

    run: str
    topics: int
    #: method label -> mean score
    scores: dict[str, Figure]
    #: method label -> rank (1 is best)
    ranks: dict[str, int]


@dataclass(frozen=True)
class OrderingTopicRow:
    """One topic with an ordering in the campaign report's per-topic list: how many orderings
    it has, their mean Kendall tau (section 4.1) and their rank-based consensus (4.3, item ids).
    Made from the topic's stored partial when read (``Reports.topic_rows``), not stored in the
    campaign report."""

    topic: str
    orderings: int
    mean_tau: Figure
    consensus: list[str]


@dataclass(frozen=True)
class OrderingCampaignReport:
    """The campaign: ED of every method (section 5.2), the FreSPA setting in
    use (Table 3) and the runs ranked per method. Each topic's orderings, mean tau and
    consensus (4.3) are not in it: they are :class:`OrderingTopicRow`s, read a page at a time
    from the topics' partials (``scoring.selectors.topic_rows``), ``topics_ordered`` of them."""

    topics: int
    topics_with_two_or_more: int
    #: method label -> evaluation discriminativeness over the topics with two or more orderings
    ed: dict[str, Figure]
    frespa: m.FrespaSetting
    runs: list[OrderingRun]
    #: topics with an ordering: the rows of the per-topic list
    topics_ordered: int
    #: the WCA weights in use (campaign param ``wca_weights``): clamped (negative as 0) or paper
    wca_weights: str
    #: mean pairwise Kendall tau between assessors (section 4.1): the mean over the topics with two
    #: or more orderings of each topic's mean tau, with its bootstrap interval over those topics
    mean_tau: FigureCI
    kind: Literal["ordering"] = "ordering"


def topic_report(input: ReportInput, topic: Topic) -> OrderingTopicReport:
    judgments, runs = input.judgments_of(topic), input.runs
    golds = golds_of(judgments)
    assessors = list(golds)
    tau: list[list[float | None]] = [[1.0 if a == b else None for b in assessors] for a in assessors]
    pairwise = m.kendall_tau_matrix(list(golds.values())) if len(golds) >= 2 else None
    for i, j in combinations(range(len(assessors)), 2):
        tau[i][j] = tau[j][i] = float(pairwise[i, j])
    texts = {item["id"]: item["text"] for item in topic.data["items"]}
    consensus = m.rank_consensus(list(golds.values())) if golds else []
    setting, wca = frespa_setting(topic.campaign), wca_weights(topic.campaign)
    run_scores = {
        run.name: score_run(run.data["orderings"][topic.external_id], list(golds.values()), setting, wca)
        for run in runs
        if golds and topic.external_id in run.data.get("orderings", {})
    }
    return OrderingTopicReport(
        assessors=assessors,
        tau=tau,
        mean_tau=_mean_off_diagonal(tau),
        consensus=[OrderingItem(id=item, text=texts[item]) for item in consensus],
        runs=run_scores,
        wca_weights=wca,
    )


def _mean_off_diagonal(matrix: list[list[float | None]]) -> float:
    values = [v for i, row in enumerate(matrix) for j, v in enumerate(row) if i != j and v is not None]
    return float(np.mean(values)) if values else float("nan")


# -- disagreement per topic (KindSpec Reports.disagreement) ---------------------------------


def topic_disagreement(report: OrderingTopicReport) -> Disagreement | None:
    """1 - the mean pairwise Kendall tau of the topic's orderings (0: all
    identical, 2: all reversed; None: fewer than two orderings).

    >>> topic_disagreement(OrderingTopicReport(["a", "b"], [[1.0, 0.5], [0.5, 1.0]], 0.5, [], {}))
    Disagreement(value=0.5, reason='a and b: τ 0.50')
    """
    names = report.assessors
    return pairwise_disagreement(
        [(names[i], names[j], report.tau[i][j]) for i in range(len(names)) for j in range(i + 1, len(names))],
        figure="τ",
    )


def headline(report: OrderingCampaignReport) -> Headline:
    """The figure the campaign's summary shows (``Reports.headline``): the mean pairwise
    Kendall tau, read as the share of item pairs two assessors order alike."""
    return Headline("Mean pairwise Kendall τ", report.mean_tau, Reading("tau", "mean τ", KENDALL_HELP))
