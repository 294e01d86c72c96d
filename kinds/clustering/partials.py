"""Sentence clustering: the campaign report merged from per-topic partials.

Table 3 over the campaign (Geiss, "Creating a Gold Standard for Sentence
Clustering in Multi-Document Summarization", section 7): every pair of judges
of every topic, the random baseline pooled over the topics with two or more
judges (its "base" row), and each figure between judges averaged over topics
with its bootstrap interval over topics (docs/methods.md, "Intervals and when
to stop").
A topic's partial holds what the campaign report needs of it, so that a
submission recomputes one topic and merges the stored partials
(scoring/partials.py; docs/benchmarks.md, "Live at any size").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from annotate.models import Topic
from kinds.clustering.report import (
    AGREEMENT,
    METHODS,
    TABLE3,
    ClusteringAgreement,
    ClusteringCampaignPair,
    ClusteringCampaignReport,
    ClusteringFigures,
    ClusteringTable3,
    ClusteringTopicReport,
    topic_report,
)
from scoring.partials import MergeInput, from_scratch
from scoring.selectors import ReportInput
from stats.intervals import FigureCI, IntervalSettings, figure_ci, interval_settings, too_few_ci
from stats.uncertainty import mean_units, no_interval, percentile_interval, resample_weights

#: The most Table 3 rows the live campaign report carries (10,000 topics of 10 judges
#: have 450,000 pairs: a 100 MB report rebuilt after every submission); the rest are
#: on the topics' pages.
LIVE_PAIRS = 500


@dataclass(frozen=True)
class ClusteringPartial:
    """What the campaign report needs of one topic (scoring/partials.py): its title,
    its judges (sorted: its pairs are ``combinations(judges, 2)``, as in its report),
    each pair's Table 3 figures (``table3``: pair by pair, completion by completion
    (``METHODS``), the values of :data:`TABLE3`, as little-endian float64 bytes: bit
    for bit, and nothing to decode for the pairs the live report leaves out), the
    topic's mean over its pairs of each figure of :data:`AGREEMENT` (``METHODS`` x
    ``AGREEMENT``) and its random baseline (``METHODS`` x ``TABLE3``); both empty with
    fewer than two judges (the campaign averages and pools only those topics)."""

    title: str
    judges: list[str]
    table3: bytes
    means: list[float]
    baseline: list[float]


def campaign_report(input: ReportInput) -> ClusteringCampaignReport:
    """Table 3: every pair of judges of every topic, and the random baseline
    pooled over the topics with two or more judges (its "base" row): the merge
    of every topic's partial (scoring/partials.py)."""
    return from_scratch(input, topic=topic_report, partial=topic_partial, merge=merge)


def topic_partial(input: ReportInput, topic: Topic, report: ClusteringTopicReport) -> ClusteringPartial:
    """The topic's part of the campaign report, taken from its report: each pair's
    figures and the random baseline (drawn once, when the topic changes)."""
    pooled = len(report.judges) >= 2
    return ClusteringPartial(
        title=topic.title,
        judges=list(report.judges),
        table3=np.array(
            [getattr(getattr(p, method), name) for p in report.pairs for method in METHODS for name in TABLE3],
            dtype="<f8",
        ).tobytes(),
        means=[
            _mean([getattr(getattr(p, method), name) for p in report.pairs]) for method in METHODS for name in AGREEMENT
        ]
        if pooled
        else [],
        baseline=[float(getattr(getattr(report.baseline, method), name)) for method in METHODS for name in TABLE3]
        if pooled and report.baseline is not None
        else [],
    )


def merge(given: MergeInput, partials: Sequence[ClusteringPartial]) -> ClusteringCampaignReport:
    """The campaign report from every topic's partial (topic order): the means and
    baselines stacked and averaged with numpy; only the first :data:`LIVE_PAIRS`
    pairs' figures are decoded."""
    rows: list[ClusteringCampaignPair] = []
    for topic, part in zip(given.topics, partials):
        if len(rows) >= LIVE_PAIRS:
            break
        if len(part.judges) < 2:
            continue
        values = np.frombuffer(part.table3, dtype="<f8").reshape(-1, len(METHODS), len(TABLE3)).tolist()
        for (a, b), (single, bucket) in zip(combinations(part.judges, 2), values):
            if len(rows) >= LIVE_PAIRS:
                break
            rows.append(
                ClusteringCampaignPair(
                    topic=topic.external_id,
                    title=part.title,
                    judges=(a, b),
                    singleton=ClusteringFigures(*single),
                    bucket=ClusteringFigures(*bucket),
                )
            )
    judges = np.fromiter((len(p.judges) for p in partials), dtype=np.int64, count=len(partials))
    means = np.array([p.means for p in partials if p.means], dtype=np.float64).reshape(-1, len(METHODS), len(AGREEMENT))
    agreement = _agreement(means, interval_settings(given.campaign.params))
    baselines = [p.baseline for p in partials if p.baseline]
    pooled = None
    if baselines:  # each figure's mean over the topics (rows contiguous: numpy's pairwise sum, as before)
        pooled_means = np.ascontiguousarray(np.array(baselines, dtype=np.float64).T).mean(axis=1).tolist()
        pooled = ClusteringTable3(
            **{
                method: ClusteringFigures(*pooled_means[i * len(TABLE3) : (i + 1) * len(TABLE3)])
                for i, method in enumerate(METHODS)
            }
        )
    return ClusteringCampaignReport(
        topics=len(given.topics),
        judged_topics=int(np.count_nonzero(judges)),
        pairs=rows,
        pair_count=int((judges * (judges - 1) // 2).sum()),
        baseline=pooled,
        agreement=agreement,
    )


def _agreement(means: np.ndarray, settings: IntervalSettings) -> ClusteringAgreement:
    """:func:`agreement_over_topics` from each topic's means (topics x ``METHODS`` x
    ``AGREEMENT``): every figure resamples the same topics with the same seed, so the
    draw is made once and multiplied once with every figure's per-topic statistics
    (the same intervals as ``settings.interval`` figure by figure, to rounding; ten
    draws and products over 10,000 topics cost seconds)."""
    stats = {
        (method, name): mean_units(means[:, i, j])
        for i, method in enumerate(METHODS)
        for j, name in enumerate(AGREEMENT)
    }
    sums = None
    if len(means) >= max(2, settings.min_units):  # below the minimum no figure gets an interval
        draw = resample_weights(len(means), n_resamples=settings.resamples, seed=settings.seed).astype(np.float64)
        sums = draw @ np.column_stack([s.per_unit for s in stats.values()])
    result: dict[str, dict[str, FigureCI]] = {method: {} for method in METHODS}
    for k, ((method, name), s) in enumerate(stats.items()):
        value = float(s.statistic(s.per_unit.sum(axis=0)))
        if s.units < settings.min_units:
            result[method][name] = too_few_ci(value, s.units, "topics")
            continue
        if sums is None or not np.isfinite(value) or s.units < 2:
            interval = no_interval(value, s.units, 0.95)
        else:
            width = s.per_unit.shape[1]
            resampled = np.asarray(s.statistic(sums[:, k * width : (k + 1) * width]), dtype=np.float64)
            interval = percentile_interval(value, resampled, s.units, 0.95)
        result[method][name] = figure_ci(interval, "topics")
    return ClusteringAgreement(**result)


def agreement_over_topics(
    per_topic: Sequence[dict[str, dict[str, list[float]]]], settings: IntervalSettings
) -> ClusteringAgreement:
    """Each figure's mean over topics of its mean over the topic's pairs of judges, with the
    seeded bootstrap interval over the topics (``per_topic``: for every topic with two or more
    judges, in topic order, completion -> figure -> its value for every pair). A topic whose
    figure is undefined for every pair is left out of that figure. Every figure resamples the
    same topics with the same seed, so they share their resamples.

    >>> topic = lambda v: {m: {n: [v, v + 0.1] for n in AGREEMENT} for m in METHODS}
    >>> result = agreement_over_topics([topic(0.2), topic(0.4), topic(0.9)], IntervalSettings(resamples=200, min_units=2))
    >>> ci = result.singleton["v_beta"]
    >>> round(ci.value, 12), ci.units, ci.unit, ci.low <= ci.value <= ci.high
    (0.55, 3, 'topics', True)
    """
    return ClusteringAgreement(
        **{
            method: {
                name: settings.interval(mean_units([_mean(t[method][name]) for t in per_topic]), "topics")
                for name in AGREEMENT
            }
            for method in METHODS
        }
    )


def _mean(values: list[float]) -> float:
    """The mean of the defined values (NaN when none is)."""
    defined = [v for v in values if v == v]
    return float(np.mean(defined)) if defined else float("nan")


def _pooled(baselines: list[ClusteringTable3]) -> ClusteringTable3:
    """The mean of each topic's baseline, figure by figure (NaN where any topic's is undefined)."""
    return ClusteringTable3(
        **{
            method: ClusteringFigures(
                **{name: float(np.mean([getattr(getattr(b, method), name) for b in baselines])) for name in TABLE3}
            )
            for method in METHODS
        }
    )
