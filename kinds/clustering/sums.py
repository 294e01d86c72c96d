"""The clustering campaign report's running sums (scoring/sums.py).

Geiss's campaign figures (section 7, Table 3) are means over topics: each figure of
:data:`~kinds.clustering.report.AGREEMENT` is the mean over the topics with two or more
judges of the topic's mean over its pairs (a topic whose mean is not finite is left out
of that figure, as ``stats.uncertainty.mean_units`` leaves it), and the random baseline is
each figure's mean over the topics that have one (numpy's: not finite when a topic's is
not). A topic's contribution holds its share of each sum, with counts of the baseline's
values that are not finite, and the counts of topics, judged topics and pairs.

Table 3's rows are the first :data:`~kinds.clustering.partials.LIVE_PAIRS` pairs of judges
in topic order. Their figures are as many bytes as the partials themselves (every pair of
every topic), so the sums keep of each topic with two or more judges only where it stands
(its position and id), its external id and how many pairs it has; :func:`listed` names the
first topics whose pairs make the rows, and :func:`refresh` reads those topics' partials
(a bounded number: at most ``LIVE_PAIRS``; ``RunningSums.listed``). The intervals' bounds
come from ``fits`` (the last full merge, kinds/clustering/partials.py ``merge``): their
bootstrap resamples every topic.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import combinations
from operator import attrgetter
from typing import NamedTuple

import numpy as np

from annotate.models import Campaign, Topic
from kinds.clustering import partials as cp
from kinds.clustering.report import (
    AGREEMENT,
    METHODS,
    TABLE3,
    ClusteringAgreement,
    ClusteringCampaignPair,
    ClusteringCampaignReport,
    ClusteringFigures,
    ClusteringTable3,
)
from scoring.partials import MergeInput
from scoring.sums import finite_split, mean_of
from stats.intervals import FigureCI, figure_ci, interval_settings, too_few_ci
from stats.uncertainty import no_interval

#: The agreement figures, completion by completion: (completion, figure).
FIGURES = [(method, name) for method in METHODS for name in AGREEMENT]
#: The baseline's figures, completion by completion.
BASELINE = len(METHODS) * len(TABLE3)


class ClusteringEntry(NamedTuple):
    """A topic with two or more judges, as the report's rows need it: where it stands in
    topic order (its position, then its id), its external id, and how many pairs it has (a
    named tuple, stored as an array: the sums of 10,000 topics hold 10,000 of them)."""

    id: int
    position: int
    external_id: str
    pairs: int


@dataclass(frozen=True)
class ClusteringSums:
    """Sums over the campaign's topics (every field adds; ``entries`` go in and out by topic)."""

    topics: int = 0
    #: topics with one or more judges
    judged: int = 0
    #: topics with two or more judges (the topics the agreement figures are over)
    pooled: int = 0
    #: pairs of judges, every topic's
    pairs: int = 0
    #: per agreement figure (:data:`FIGURES` order): the pooled topics whose mean is finite
    agreement: list[int] = field(default_factory=list)
    #: per agreement figure: the sum of those topics' means
    agreement_sums: list[float] = field(default_factory=list)
    #: topics with a random baseline
    baselines: int = 0
    #: per baseline figure (completion by completion, :data:`~kinds.clustering.report.TABLE3`):
    #: the sum of the finite values
    baseline: list[float] = field(default_factory=list)
    #: per baseline figure: the counts of its NaN, +inf and -inf values
    baseline_odd: list[int] = field(default_factory=list)
    #: str(topic id) -> the topic's :class:`ClusteringEntry` (topics with two or more judges)
    entries: dict[str, ClusteringEntry] = field(default_factory=dict)


def contribution(campaign: Campaign | None, topic: Topic, partial: cp.ClusteringPartial) -> ClusteringSums:
    """One topic's share of the sums.

    >>> nan = float("nan")
    >>> means = [0.5] * (len(FIGURES) - 1) + [nan]
    >>> p = cp.ClusteringPartial("T", ["a", "b", "c"], b"", means, [0.25] * 5 + [float("inf")])
    >>> sums = contribution(None, Topic(pk=7, external_id="q7", position=2), p)
    >>> sums.pairs, sums.agreement[-2:], sums.agreement_sums[-2:], sums.baseline_odd[-3:]
    (3, [1, 0], [0.5, 0.0], [0, 1, 0])
    >>> sums.entries["7"]
    ClusteringEntry(id=7, position=2, external_id='q7', pairs=3)
    """
    judges = len(partial.judges)
    pairs = judges * (judges - 1) // 2
    finite = [math.isfinite(v) for v in partial.means]
    baseline, odd = finite_split(partial.baseline) if partial.baseline else ([], [])
    return ClusteringSums(
        topics=1,
        judged=int(judges > 0),
        pooled=int(bool(partial.means)),
        pairs=pairs,
        agreement=[int(f) for f in finite],
        agreement_sums=[v if f else 0.0 for v, f in zip(partial.means, finite)],
        baselines=int(bool(partial.baseline)),
        baseline=baseline,
        baseline_odd=odd,
        entries={str(topic.pk): ClusteringEntry(topic.pk, topic.position, topic.external_id, pairs)}
        if judges >= 2
        else {},
    )


def listed(sums: ClusteringSums) -> list[int]:
    """The topics whose pairs are the report's rows: those with two or more judges in topic
    order, up to the one that brings the pairs to ``LIVE_PAIRS`` (at most ``LIVE_PAIRS``
    topics: each has a pair)."""
    found, pairs = [], 0
    for entry in sorted(sums.entries.values(), key=attrgetter("position", "id")):
        if pairs >= cp.LIVE_PAIRS:
            break
        found.append(entry.id)
        pairs += entry.pairs
    return found


def _padded(values: list, n: int) -> list:
    return list(values) + [0] * (n - len(values))


def refresh(
    given: MergeInput,
    fits: ClusteringCampaignReport,
    sums: ClusteringSums,
    partials: Mapping[int, cp.ClusteringPartial],
) -> ClusteringCampaignReport:
    """The campaign report of ``sums``, Table 3's rows from the :func:`listed` topics'
    ``partials`` (topic id -> partial); the agreement figures' interval bounds from ``fits``."""
    return ClusteringCampaignReport(
        topics=sums.topics,
        judged_topics=sums.judged,
        pairs=_rows(sums, partials),
        pair_count=sums.pairs,
        baseline=_baseline(sums),
        agreement=_agreement(given, fits.agreement, sums),
    )


def _rows(sums: ClusteringSums, partials: Mapping[int, cp.ClusteringPartial]) -> list[ClusteringCampaignPair]:
    """As the merge's: the listed topics' pairs in topic order, the first ``LIVE_PAIRS``."""
    rows: list[ClusteringCampaignPair] = []
    for topic_id in listed(sums):
        entry, part = sums.entries[str(topic_id)], partials[topic_id]
        values = np.frombuffer(part.table3, dtype="<f8").reshape(-1, len(METHODS), len(TABLE3)).tolist()
        for (a, b), (single, bucket) in zip(combinations(part.judges, 2), values):
            if len(rows) >= cp.LIVE_PAIRS:
                break
            rows.append(
                ClusteringCampaignPair(
                    topic=entry.external_id,
                    title=part.title,
                    judges=(a, b),
                    singleton=ClusteringFigures(*single),
                    bucket=ClusteringFigures(*bucket),
                )
            )
    return rows


def _baseline(sums: ClusteringSums) -> ClusteringTable3 | None:
    if not sums.baselines:
        return None
    total, odd = _padded(sums.baseline, BASELINE), _padded(sums.baseline_odd, 3 * BASELINE)
    means = [mean_of(total[k], sums.baselines, *odd[3 * k : 3 * k + 3]) for k in range(BASELINE)]
    return ClusteringTable3(
        **{
            method: ClusteringFigures(*means[i * len(TABLE3) : (i + 1) * len(TABLE3)])
            for i, method in enumerate(METHODS)
        }
    )


def _agreement(given: MergeInput, fits: ClusteringAgreement, sums: ClusteringSums) -> ClusteringAgreement:
    """Each figure's mean over topics from the sums, with the interval the merge would give it:
    none below the minimum of topics (too few) or where nothing would be drawn, else the
    bounds of ``fits`` (none while the fits had too few topics to draw)."""
    settings = interval_settings(given.campaign.params)
    units, totals = _padded(sums.agreement, len(FIGURES)), _padded(sums.agreement_sums, len(FIGURES))
    result: dict[str, dict[str, FigureCI]] = {method: {} for method in METHODS}
    for k, (method, name) in enumerate(FIGURES):
        n = int(units[k])
        value = totals[k] / n if n else float("nan")
        if n < settings.min_units:
            result[method][name] = too_few_ci(value, n, "topics")
            continue
        before = getattr(fits, method).get(name)
        # over two or more topics and the minimum the merge draws (its topics are at least these)
        if not math.isfinite(value) or n < 2 or before is None or before.too_few:
            result[method][name] = figure_ci(no_interval(value, n, 0.95), "topics")
        else:
            result[method][name] = dataclasses.replace(before, value=value, units=n)
    return ClusteringAgreement(**result)
