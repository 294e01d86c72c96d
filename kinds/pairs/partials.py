"""The pairs campaign report: per-topic partials and their merge (scoring/partials.py).

Arehart, Wolf & Miller, "Adjudicator Agreement and System Rankings for Person
Name Search": the adjudicators' agreement over every item (section 3.1), the
systems' pooled precision, recall and F1 under the Consensus, Union and
Intersection truth sets (sections 2.3-2.4) and the stability of their ranking;
beside them each adjudicator's Dawid-Skene reliability and the accuracy table
against every reference labelling (stats/labelmodels.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np

from annotate.models import Campaign, Run, Topic
from kinds.disagreement import label_disagreement
from kinds.pairs.report import (
    PRF,
    PairsCampaignReport,
    PairsSystem,
    PairsTopicReport,
    agreement_of,
    topic_report,
    votes,
)
from kinds.pairs.stats import consensus, intersection, union
from kinds.spec import Disagreement
from scoring.partials import MergeInput, from_scratch
from scoring.selectors import ReportInput
from stats import labelmodels as lm
from stats.intervals import IntervalSettings, RankingStability, interval_settings, ranking_stability
from stats.ratings import SparseRatings
from stats.systems import precision_recall_f1, query_counts


@dataclass(frozen=True)
class PairsPartial:
    """What the campaign report needs of one topic: its items' votes and what the
    runs and the adjudicated gold say of them, items in candidate order.

    Every campaign figure is a function of the items' rows in item order (the
    intervals bootstrap over the items, the ranking's over the topics), so the
    merge lays the topics' rows end to end in topic order: the vote matrix
    :func:`votes` gives of every judgment, columns the assessors of every topic."""

    #: the topic's candidates (its items)
    items: int
    #: their ids, in order (the disagreement's reason names the most disputed)
    candidates: list[str]
    #: who submitted a judgment of the topic, sorted
    assessors: list[str]
    #: items x assessors, row by row: 1.0 match, 0.0 no match, NaN not judged
    votes: list[float]
    #: the system runs (runs with results) by name, and systems x items, row by row:
    #: whether the system returned the item
    systems: list[str]
    returned: list[bool]
    #: the reference runs by name, and references x items, row by row: the reference's
    #: label of the item (1.0, 0.0, NaN none)
    references: list[str]
    reference_labels: list[float]
    #: per item the adjudicated gold's label (the topic's ``consensus`` curation; NaN none)
    adjudicated: list[float]
    #: per item the known label where the item is a control (annotate.models.Control; NaN: not
    #: one); empty: the topic has no control
    controls: list[float] = field(default_factory=list)


def topic_partial(input: ReportInput, topic: Topic, report: PairsTopicReport | None = None) -> PairsPartial:
    """``topic``'s :class:`PairsPartial`: reads its judgments, its curation and the runs' data for it only."""
    v = votes([topic], input.judgments_of(topic))
    candidates = [candidate for _, candidate in v.items]
    place = {candidate: i for i, candidate in enumerate(candidates)}
    systems = system_runs(input.runs)
    returned = np.zeros((len(systems), len(candidates)), bool)
    for s, run in enumerate(systems):
        for result in run.data["results"].get(topic.external_id) or ():
            if result["id"] in place:
                returned[s, place[result["id"]]] = True
    references = reference_runs(input.runs)
    return PairsPartial(
        items=len(candidates),
        candidates=candidates,
        assessors=v.assessors,
        votes=v.matrix.ravel().tolist(),
        systems=[run.name for run in systems],
        returned=returned.ravel().tolist(),
        references=[run.name for run in references],
        reference_labels=[
            label
            for run in references
            for label in _labels((run.data.get("labels") or {}).get(topic.external_id), candidates)
        ],
        adjudicated=_labels((input.curation(topic, "consensus") or {}).get("matches"), candidates),
        controls=_labels(known, candidates) if (known := input.controls_of(topic)) else [],
    )


def _labels(labels: Any, candidates: Sequence[str]) -> list[float]:
    """Each candidate's label in ``labels`` (candidate id -> bool): 1.0, 0.0 or NaN (none)."""
    labels = labels if isinstance(labels, dict) else {}
    return [float(label) if isinstance(label := labels.get(c), bool) else float("nan") for c in candidates]


#: The most pairs of assessors the campaign report lists with their figures and intervals, those
#: with the most shared items: a crowd of 200 workers has 19,900 pairs, a 14 MB report read by
#: every page view and rebuilt after every submission (benchmarks/crowd_report.py). A topic's
#: report lists all its pairs.
LIVE_PAIRS = 500
#: The most assessors the campaign report's kappa matrix (the heatmap and its full CSV) covers,
#: those who share items with the most others: a crowd of 2,000 workers has a 4,000,000-cell
#: matrix, 36 MB written by every rebuild, of which the page draws 30 x 30; 200 x 200 is 40,000
#: cells. Every pair's table stays in the running sums (kinds/pairs/sums.py).
MATRIX_ASSESSORS = 200
#: The name of the control items' known answers among a campaign's references: the accuracy
#: table over the control items alone, apart from the other references.
CONTROLS_REFERENCE = "control items (known answers)"


def known_labels(partials: Sequence[PairsPartial], n_items: int) -> np.ndarray:
    """Per item of the campaign (the partials end to end) the control's known label, NaN none."""
    labels = np.full(n_items, np.nan)
    start = 0
    for p in partials:
        if p.controls:
            labels[start : start + p.items] = p.controls
        start += p.items
    return labels


def merge(given: MergeInput, partials: Sequence[PairsPartial]) -> PairsCampaignReport:
    """The campaign report of every topic's partial, in topic order."""
    settings = interval_settings(given.campaign.params)
    systems = [run.name for run in system_runs(given.runs)]
    merged = _concatenate(given.topics, partials, systems, [run.name for run in reference_runs(given.runs)])
    votes, assessors = merged.votes, merged.assessors
    controls = known_labels(partials, votes.n_items)
    known = {int(i): int(controls[i]) for i in np.flatnonzero(~np.isnan(controls))}
    references = [*merged.references, (CONTROLS_REFERENCE, controls)] if known else merged.references
    # The control items' known answers held fixed in the truth models (lm.model_truth, known=).
    dawid_skene = lm.model_truth(votes, "dawid-skene", 2, known=known)
    # the other models' truth sets are read by the accuracy table only
    labels = (
        {
            model: (dawid_skene if model == "dawid-skene" else lm.model_truth(votes, model, 2, known=known)).labels
            for model in lm.MODELS
        }
        if references
        else {}
    )
    # the figures of each item's votes whoever gave them (truth sets, majority) read them packed left
    packed = votes.packed()
    return PairsCampaignReport(
        **agreement_of(votes, assessors, settings, keep=LIVE_PAIRS, matrix=MATRIX_ASSESSORS),
        topics=len(partials),
        systems=system_scores(systems, merged.returned, packed, assessors),
        ranking=system_ranking_stability(merged.returned, packed, assessors, merged.queries, settings),
        reliability=lm.binary_reliability(votes, assessors, dawid_skene),
        references=[lm.reference_accuracy(name, reference, votes, assessors, labels) for name, reference in references],
    )


def campaign_report(input: ReportInput) -> PairsCampaignReport:
    return from_scratch(input, topic=topic_report, partial=topic_partial, merge=merge)


@dataclass(frozen=True)
class _Merged:
    """The partials laid end to end: the campaign's votes (items x assessors, held sparse),
    the systems' returned items (systems x items), the references' labels (name, per item),
    each item's query (its topic, numbered in sorted external id order)."""

    votes: SparseRatings
    assessors: list[str]
    returned: np.ndarray
    references: list[tuple[str, np.ndarray]]
    queries: np.ndarray


def _concatenate(
    topics: Sequence[Topic], partials: Sequence[PairsPartial], systems: list[str], references: list[str]
) -> _Merged:
    """The partials as one campaign, vectorised (no work per topic beyond reading its lists).

    The votes stay sparse: one entry per vote given, already in item and assessor order
    (topics end to end, a topic's assessors sorted by name), never an items x assessors
    array (a crowd's is 99.5% empty: 1.6 GB at 100,000 items x 2,000 workers)."""
    sizes = np.fromiter((p.items for p in partials), np.int64, count=len(partials))
    first_item = _starts(sizes)
    n_items = int(sizes.sum())
    # the votes: each topic's items x its assessors
    assessors = sorted(set(chain.from_iterable(p.assessors for p in partials)))
    column = {name: k for k, name in enumerate(assessors)}
    widths = np.fromiter((len(p.assessors) for p in partials), np.int64, count=len(partials))
    names = np.fromiter((column[n] for p in partials for n in p.assessors), np.int64, count=int(widths.sum()))
    counts = sizes * widths
    values = np.fromiter(chain.from_iterable(p.votes for p in partials), np.float64, count=int(counts.sum()))
    topic, local = _cells(counts)
    width = widths[topic]
    given = ~np.isnan(values)
    votes = SparseRatings.from_entries(
        (first_item[topic] + local // width)[given],
        names[_starts(widths)[topic] + local % width][given],
        values[given],
        n_items=n_items,
        n_raters=len(assessors),
    )
    # the runs: each topic's runs x its items
    returned = _by_run(partials, "systems", "returned", systems, sizes, False, bool)
    labels = _by_run(partials, "references", "reference_labels", references, sizes, np.nan, np.float64)
    adjudicated = np.fromiter(chain.from_iterable(p.adjudicated for p in partials), np.float64, count=n_items)
    found = [(name, labels[r]) for r, name in enumerate(references)]
    if not np.isnan(adjudicated).all():
        found.append((ADJUDICATED_REFERENCE, adjudicated))
    # the queries as query_counts numbers them: the topics that have items, in sorted external id order
    rank = {external: q for q, external in enumerate(sorted({t.external_id for t, n in zip(topics, sizes) if n}))}
    query = np.fromiter((rank.get(t.external_id, -1) for t in topics), np.int64, count=len(topics))
    return _Merged(votes, assessors, returned, found, np.repeat(query, sizes))


def _starts(counts: np.ndarray) -> np.ndarray:
    """Where each of blocks of ``counts`` laid end to end starts."""
    return np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)


def _cells(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For blocks of ``counts`` cells laid end to end: each cell's block and its place in the block."""
    block = np.repeat(np.arange(len(counts)), counts)
    return block, np.arange(int(counts.sum())) - _starts(counts)[block]


def _by_run(
    partials: Sequence[PairsPartial],
    names_field: str,
    values_field: str,
    names: list[str],
    sizes: np.ndarray,
    missing: Any,
    dtype: Any,
) -> np.ndarray:
    """runs x items from every partial's runs x its items block, the runs ``names`` in
    order (the cells of a run a topic's partial does not name are ``missing``)."""
    n_items = int(sizes.sum())
    result = np.full((len(names), n_items), missing, dtype=dtype)
    if not names or not n_items:
        return result
    first_item = _starts(sizes)
    if all(getattr(p, names_field) == names for p in partials):
        # the rule: a run import marks every topic stale, so every partial names every run
        counts = sizes * len(names)
        values = np.fromiter(chain.from_iterable(getattr(p, values_field) for p in partials), dtype, int(counts.sum()))
        topic, local = _cells(counts)
        result[local // sizes[topic], first_item[topic] + local % sizes[topic]] = values
        return result
    row = {name: r for r, name in enumerate(names)}
    for p, start, size in zip(partials, first_item, sizes):
        own = getattr(p, names_field)
        block = np.array(getattr(p, values_field), dtype=dtype).reshape(len(own), size)
        for r, name in enumerate(own):
            if name in row:
                result[row[name], start : start + size] = block[r]
    return result


#: The name of the adjudicated gold among a campaign's references.
ADJUDICATED_REFERENCE = "adjudicated gold"


def reference_runs(runs: Sequence[Run]) -> list[Run]:
    """The reference labellings: runs whose data says ``"reference": true`` (e.g.
    the ``gold`` column of a CrowdTruth file, imported as the run ``gold``)."""
    return sorted((r for r in runs if r.data.get("reference") is True), key=lambda r: r.name)


def system_runs(runs: Sequence[Run]) -> list[Run]:
    """The system runs: runs with results, by name (scored here and by the evaluation analysis)."""
    return sorted((r for r in runs if "results" in r.data), key=lambda r: r.name)


def system_scores(
    systems: Sequence[str], returned: np.ndarray, matrix: np.ndarray, assessors: Sequence[str]
) -> list[PairsSystem]:
    """Each system's pooled precision, recall and F1 under the Consensus,
    Union and Intersection truth sets (section 2.4; significance in the
    evaluation analysis); ``returned``: systems x items; ``matrix``: items x
    assessors votes, or each item's votes packed left (the truth sets count them)."""

    if not systems or not assessors:
        return []
    gold = {"consensus": consensus, "union": union, "intersection": intersection}
    scored = {truth: precision_recall_f1(returned, labels(matrix)) for truth, labels in gold.items()}
    return [
        PairsSystem(
            system=name,
            **{
                truth: PRF(
                    precision=float(np.atleast_1d(scored[truth].precision)[s]),
                    recall=float(np.atleast_1d(scored[truth].recall)[s]),
                    f1=float(np.atleast_1d(scored[truth].f1)[s]),
                )
                for truth in gold
            },
        )
        for s, name in enumerate(systems)
    ]


def _pooled_f1(sums: np.ndarray) -> np.ndarray:
    """F1 = 2 tp / (2 tp + fp + fn) of summed (tp, fp, fn), 0 when undefined (as the systems table)."""
    tp, fp, fn = sums[..., 0], sums[..., 1], sums[..., 2]
    denominator = 2 * tp + fp + fn
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, 2 * tp / denominator, 0.0)


def system_ranking_stability(
    returned: np.ndarray, matrix: np.ndarray, assessors: Sequence[str], queries: np.ndarray, settings: IntervalSettings
) -> RankingStability | None:
    """How stable the systems' ranking by pooled F1 under the consensus is: Kendall's tau
    between it and the rankings on bootstrap resamples of the judged topics (queries,
    numbered in sorted external id order); None without two systems."""
    if len(returned) < 2 or not assessors:
        return None
    truth = consensus(matrix)
    counts = query_counts(returned, truth, queries)  # systems x topics x (tp, fp, fn)
    known = np.bincount(queries, weights=~np.isnan(truth)) > 0
    return ranking_stability(
        counts[:, known, :].astype(np.float64),
        measure="F1 (consensus)",
        statistic=_pooled_f1,
        resamples=settings.resamples,
        seed=settings.seed,
    )


def partial_disagreement(partial: PairsPartial, campaign: Campaign | None = None) -> Disagreement | None:
    """:func:`~kinds.pairs.report.topic_disagreement` from the topic's partial (its votes), without its report.

    >>> nan = float("nan")
    >>> found = partial_disagreement(PairsPartial(2, ["c1", "c2"], ["a", "b", "c"], [1, 0, 1, 1, 1, nan],
    ...     [], [], [], [], [nan, nan]))
    >>> round(found.value, 3), found.reason
    (0.459, '1 of 2 candidates split; most: c1 (2 match / 1 no match)')
    """
    votes = np.array(partial.votes, dtype=np.float64).reshape(partial.items, len(partial.assessors))
    judged = (~np.isnan(votes)).sum(axis=1)
    matches = np.nansum(votes, axis=1)
    return label_disagreement(
        partial.candidates,
        np.stack([matches, judged - matches], axis=1),
        ["match", "no match"],
        noun="candidates",
    )
