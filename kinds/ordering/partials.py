"""Orderings: the campaign report merged from per-topic partials (scoring/partials.py).

A topic's :class:`OrderingPartial` holds what the campaign report needs of it:
its orderings' count, rank-based consensus (Kim, Zhai & Han, section 4.3) and
mean pairwise Kendall tau (4.1), its ED under every method (5.2) and every
run's scores on it (4.1-4.4). :func:`merge` builds the campaign report from
the stored partials; :func:`campaign_report` is that merge over fresh ones.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from annotate.models import Run, Topic
from kinds.ordering import stats as m
from kinds.ordering.report import (
    ED_NAMES,
    METHODS,
    OrderingCampaignReport,
    OrderingRun,
    OrderingTopicReport,
    OrderingTopicRow,
    frespa_setting,
    topic_report,
    wca_weights,
)
from scoring.partials import MergeInput, from_scratch
from scoring.selectors import ReportInput
from stats.intervals import FigureCI, IntervalSettings, interval_settings
from stats.uncertainty import mean_units


def campaign_report(input: ReportInput) -> OrderingCampaignReport:
    """The campaign report from every topic's partial (``scoring.partials.from_scratch``):
    what the stored partials merge to (:func:`merge`)."""
    return from_scratch(input, topic=topic_report, partial=topic_partial, merge=merge)


@dataclass(frozen=True)
class OrderingPartial:
    """What the campaign report needs of one topic, computed when the topic changes:
    its submitted orderings' count, rank-based consensus (tie break: the first
    ordering, assessors by name) and mean pairwise Kendall tau, its ED under every
    method (section 5.2; a topic's ED does not depend on other topics: ED over
    topics is the mean of the topics' EDs) and every run's scores on it."""

    #: submitted orderings of the topic
    orderings: int
    #: the topic's consensus ordering (item ids); empty with no ordering
    consensus: list[str]
    #: mean pairwise Kendall tau of its orderings (NaN with fewer than two)
    mean_tau: float
    #: ED per method in :data:`METHODS` order; empty with fewer than two orderings
    ed: list[float]
    #: the runs that ordered the topic (only when it has an ordering), by name
    run_names: list[str]
    #: run x method (:data:`METHODS` order): the run's score on the topic
    run_scores: list[list[float]]


def topic_partial(input: ReportInput, topic: Topic, report: OrderingTopicReport) -> OrderingPartial:
    """The topic's :class:`OrderingPartial`, from its judgments and its report (the
    consensus, tau matrix and run scores the report computed from the same orderings
    in the same order, assessors by name)."""
    orders = [row.payload["order"] for row in input.judgments_of(topic)]
    n = len(orders)
    taus = [report.tau[i][j] for i, j in combinations(range(n), 2)]
    return OrderingPartial(
        orderings=n,
        consensus=[item.id for item in report.consensus],
        mean_tau=float(np.mean(taus)) if taus else float("nan"),
        ed=topic_eds(orders, frespa_setting(input.campaign), wca_weights(input.campaign)) if n >= 2 else [],
        run_names=list(report.runs),
        run_scores=[[float(scores[label]) for label in METHODS] for scores in report.runs.values()],
    )


def topic_eds(orders: list[list[str]], setting: m.FrespaSetting, wca: str = "clamped") -> list[float]:
    """ED of one topic's orderings (two or more) under every method, in :data:`METHODS` order:
    WCA with the weights ``wca``, FreSPA with ``setting``'s lengths for the topic's size."""
    methods = []
    for label, name in ED_NAMES.items():
        if label == "FreSPA":
            params: dict[str, Any] = setting.params(len(orders[0]))
        else:
            params = {"weights": wca} if name.startswith("wca") else {}
        methods.append((name, params))
    return m.discriminativeness_each(orders, methods)


def topic_row(topic: Topic, partial: OrderingPartial, report: OrderingCampaignReport | None) -> OrderingTopicRow:
    """The topic's row of the campaign report's per-topic list (``Reports.topic_rows``: the
    topics with an ordering), from its partial.

    >>> p = OrderingPartial(3, ["b", "a"], 0.5, [], [], [])
    >>> topic_row(Topic(external_id="q7"), p, None)
    OrderingTopicRow(topic='q7', orderings=3, mean_tau=0.5, consensus=['b', 'a'])
    """
    tau = partial.mean_tau if math.isfinite(partial.mean_tau) else None
    return OrderingTopicRow(
        topic=topic.external_id, orderings=partial.orderings, mean_tau=tau, consensus=list(partial.consensus)
    )


def merge(given: MergeInput, partials: Sequence[OrderingPartial]) -> OrderingCampaignReport:
    """The campaign report from every topic's partial (in topic order): ED per method is
    the mean of the usable topics' EDs, a run's score the mean of its topics' scores,
    the mean tau the mean (and bootstrap interval) of the topics' mean taus."""
    campaign, topics, runs = given.campaign, given.topics, given.runs
    setting, wca = frespa_setting(campaign), wca_weights(campaign)
    counts = np.fromiter((p.orderings for p in partials), dtype=np.int64, count=len(partials))
    judged = np.flatnonzero(counts > 0)
    usable = np.flatnonzero(counts >= 2)
    taus = np.fromiter((partials[i].mean_tau for i in judged), dtype=np.float64, count=len(judged))
    if len(usable):
        # Topics x methods, transposed so that each method's mean sums a contiguous row.
        eds = np.ascontiguousarray(np.array([partials[i].ed for i in usable], dtype=np.float64).T)
        ed = {label: float(np.mean(row)) for label, row in zip(METHODS, eds)}
    else:
        ed = {label: float("nan") for label in METHODS}
    return OrderingCampaignReport(
        topics=len(topics),
        topics_with_two_or_more=len(usable),
        ed=ed,
        frespa=setting,
        runs=merge_runs(runs, partials),
        topics_ordered=len(judged),
        wca_weights=wca,
        mean_tau=mean_tau_ci(taus, interval_settings(campaign.params)),
    )


def merge_runs(runs: Sequence[Run], partials: Sequence[OrderingPartial]) -> list[OrderingRun]:
    """Each run's mean score over the topics it ordered that have an ordering, per method,
    with its rank."""
    index = {run.name: r for r, run in enumerate(runs)}
    which = [index.get(name, -1) for p in partials for name in p.run_names]
    scores = [row for p in partials for row in p.run_scores]
    owner = np.array(which, dtype=np.int64)
    table = np.array(scores, dtype=np.float64).reshape(len(scores), len(METHODS))
    order = np.argsort(owner, kind="stable")
    bounds = np.searchsorted(owner[order], np.arange(len(runs) + 1))
    columns = np.ascontiguousarray(table[order].T)
    topics, means = [], []
    for r in range(len(runs)):
        block = columns[:, bounds[r] : bounds[r + 1]]
        topics.append(block.shape[1])
        means.append(
            {label: float(np.mean(block[c])) if block.shape[1] else float("nan") for c, label in enumerate(METHODS)}
        )
    return _ranked(runs, topics, means)


def mean_tau_ci(topic_taus: Sequence[float], settings: IntervalSettings) -> FigureCI:
    """The mean over topics of each topic's mean pairwise Kendall tau, with its seeded
    bootstrap interval over the topics (``topic_taus`` in topic order; NaN: a topic with
    fewer than two orderings, left out of the mean and of the units).

    >>> ci = mean_tau_ci([0.2, 0.6, float("nan"), 1.0], IntervalSettings(resamples=200, min_units=2))
    >>> round(ci.value, 12), ci.units, ci.unit, ci.low <= ci.value <= ci.high
    (0.6, 3, 'topics', True)
    >>> mean_tau_ci([0.2, 0.6, 1.0], IntervalSettings()).method  # below the minimum: no bootstrap
    'too few'

    """
    finite = [float(t) for t in topic_taus if t == t]
    return settings.interval(mean_units(finite), "topics")


def _ranked(runs: Sequence[Run], topics: list[int], means: list[dict[str, float]]) -> list[OrderingRun]:
    """The runs' rows with their rank per method (1 is best; an undefined score has none), by FreSPA."""
    ranks: list[dict[str, int]] = [{} for _ in runs]
    for label in METHODS:
        ranked = sorted((r for r in range(len(runs)) if not np.isnan(means[r][label])), key=lambda r: -means[r][label])
        for position, r in enumerate(ranked, 1):
            ranks[r][label] = position
    rows = [OrderingRun(run=run.name, topics=n, scores=s, ranks=k) for run, n, s, k in zip(runs, topics, means, ranks)]
    return sorted(rows, key=lambda r: (-np.nan_to_num(r.scores["FreSPA"], nan=-np.inf), r.run))
