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
every topic), so the sums hold nothing of them: each topic's pair count (:func:`listed`) is
stored with its partial, and :func:`refresh` is given the partials of the first topics in
order whose pairs make the rows (a bounded number: at most ``LIVE_PAIRS``;
``RunningSums.listed``, scoring.jobs ``_listed``). The intervals' bounds
come from ``fits`` (the last full merge, kinds/clustering/partials.py ``merge``): their
bootstrap resamples every topic.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

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


@dataclass(frozen=True)
class ClusteringSums:
    """Sums over the campaign's topics (every field adds)."""

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


def contribution(campaign: Campaign | None, topic: Topic, partial: cp.ClusteringPartial) -> ClusteringSums:
    """One topic's share of the sums.

    >>> nan = float("nan")
    >>> means = [0.5] * (len(FIGURES) - 1) + [nan]
    >>> p = cp.ClusteringPartial("T", ["a", "b", "c"], b"", means, [0.25] * 5 + [float("inf")])
    >>> sums = contribution(None, Topic(pk=7, external_id="q7", position=2), p)
    >>> sums.pairs, sums.agreement[-2:], sums.agreement_sums[-2:], sums.baseline_odd[-3:]
    (3, [1, 0], [0.5, 0.0], [0, 1, 0])
    """
    judges = len(partial.judges)
    finite = [math.isfinite(v) for v in partial.means]
    baseline, odd = finite_split(partial.baseline) if partial.baseline else ([], [])
    return ClusteringSums(
        topics=1,
        judged=int(judges > 0),
        pooled=int(bool(partial.means)),
        pairs=listed(partial),
        agreement=[int(f) for f in finite],
        agreement_sums=[v if f else 0.0 for v, f in zip(partial.means, finite)],
        baselines=int(bool(partial.baseline)),
        baseline=baseline,
        baseline_odd=odd,
    )


def listed(partial: cp.ClusteringPartial) -> int:
    """The rows of Table 3 the topic gives: its pairs of judges (stored with its partial,
    ``TopicPartial.listed``).

    >>> listed(cp.ClusteringPartial("T", ["a", "b", "c"], b"", [], [])), listed(cp.ClusteringPartial("T", ["a"], b"", [], []))
    (3, 0)
    """
    judges = len(partial.judges)
    return judges * (judges - 1) // 2


def listed_limit() -> int:
    """Table 3's rows at most (read when called: tests lower it)."""
    return cp.LIVE_PAIRS


def _padded(values: list, n: int) -> list:
    return list(values) + [0] * (n - len(values))


def refresh(
    given: MergeInput,
    fits: ClusteringCampaignReport,
    sums: ClusteringSums,
    first: Sequence[tuple[Topic, cp.ClusteringPartial]],
) -> ClusteringCampaignReport:
    """The campaign report of ``sums``, Table 3's rows from ``first``, the first topics in
    order whose pairs reach ``LIVE_PAIRS`` (or more) with their partials; the agreement
    figures' interval bounds from ``fits``."""
    return ClusteringCampaignReport(
        topics=sums.topics,
        judged_topics=sums.judged,
        pairs=_rows(first),
        pair_count=sums.pairs,
        baseline=_baseline(sums),
        agreement=_agreement(given, fits.agreement, sums),
    )


def _rows(first: Sequence[tuple[Topic, cp.ClusteringPartial]]) -> list[ClusteringCampaignPair]:
    """As the merge's: the topics' pairs in topic order, the first ``LIVE_PAIRS``."""
    rows: list[ClusteringCampaignPair] = []
    for topic, part in first:
        if len(rows) >= cp.LIVE_PAIRS:
            break
        values = np.frombuffer(part.table3, dtype="<f8").reshape(-1, len(METHODS), len(TABLE3)).tolist()
        for (a, b), (single, bucket) in zip(combinations(part.judges, 2), values):
            if len(rows) >= cp.LIVE_PAIRS:
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
