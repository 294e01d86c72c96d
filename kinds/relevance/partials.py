"""The relevance campaign report: per-topic partials and their merge (scoring/partials.py).

Voorhees (2000), "Variations in relevance judgments and the measurement of
retrieval effectiveness": the systems evaluated under each assessor's
judgments and a consensus, and how the system rankings change between them.
The figures come from the metric library and the IR evaluation adapter; this
module arranges the partials for them:

* qrels sets: ``single:<assessor>`` (one assessor's grades) and
  ``consensus`` (:func:`~kinds.relevance.stats.consensus_grades`, the
  lower median of the grades of a document);
* systems: :func:`stats.ireval.evaluate` (nDCG@10, P@10, MAP, bpref by
  ir-measures over pytrec_eval, trec_eval's conventions), per topic in each
  topic's partial, their means over each set's topics in the merge;
* stability: :func:`~kinds.relevance.stats.ranking_stability` (Kendall's
  tau-b between the system rankings under two qrels sets, and swaps), and the
  ranking by nDCG@10 under the consensus bootstrapped over topics.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, combinations
from typing import Any

import numpy as np

from annotate.models import Campaign, Run, Topic
from kinds.relevance import stats as m
from kinds.relevance.data import scale_of, threshold_of
from kinds.relevance.report import (
    Grades,
    RelevanceCampaignReport,
    RelevanceEvaluation,
    RelevanceSetPair,
    RelevanceStability,
    RelevanceSystem,
    RelevanceTopicReport,
    agreement_fields,
    grade_disagreement,
    grades,
    levels,
    topic_report,
)
from kinds.spec import Disagreement
from scoring.partials import MergeInput, from_scratch
from scoring.selectors import ReportInput
from stats import ireval
from stats import labelmodels as lm
from stats.intervals import IntervalSettings, RankingStability, interval_settings, ranking_stability

#: ireval's measure names -> the names the report shows.
LABELS = {"AP": "MAP", "Bpref": "bpref"}
CUTOFF = 10
#: ireval's measure names at the report's cutoff, in its order.
MEASURES = (f"nDCG@{CUTOFF}", f"P@{CUTOFF}", "AP", "Bpref")


# -- qrels sets and system evaluation ----------------------------------------------------------


def vote_truths(assessors: Sequence[str]) -> list[str]:
    """The qrels sets the report evaluates the systems under: the consensus, then each assessor's own."""
    return ["consensus", *(f"single:{name}" for name in assessors)]


def qrels_sets(g: Grades, *, min_assessors: int = 1) -> dict[str, ireval.Qrels]:
    """``{truth: {topic: {document: grade}}}`` for every truth set; a set with no grade is left out."""
    rows = np.vstack([m.consensus_grades(g.matrix, min_assessors=min_assessors)[np.newaxis, :], g.matrix])
    sets = ireval.qrels_from_grades(rows, g.topic_ids, g.document_ids, vote_truths(g.assessors))
    return {name: qrels for name, qrels in sets.items() if qrels}


def system_runs(runs: Sequence[Run]) -> dict[str, dict[str, list]]:
    """``{system: {topic: [[document, score], ...]}}`` of the runs, by name."""
    return {run.name: run.data["ranking"] for run in sorted(runs, key=lambda r: r.name) if "ranking" in run.data}


def label(measure: str) -> str:
    return LABELS.get(measure, measure)


def stability(e: ireval.Evaluation) -> list[RelevanceStability]:
    """Kendall's tau and swaps between the system rankings under every pair of qrels sets, per measure."""
    if len(e.systems) < 2 or len(e.qrels_sets) < 2:
        return []
    result = []
    for measure in e.measures:
        s = m.ranking_stability(e.scores(measure))
        result.append(
            RelevanceStability(
                measure=label(measure),
                qrels_sets=list(e.qrels_sets),
                tau=s.tau.tolist(),
                swaps=s.swaps.tolist(),
                n_pairs=int(s.n_pairs),
                pairs=[
                    RelevanceSetPair(
                        sets=(e.qrels_sets[a], e.qrels_sets[b]), tau=float(s.tau[a, b]), swaps=int(s.swaps[a, b])
                    )
                    for a, b in combinations(range(len(e.qrels_sets)), 2)
                ],
            )
        )
    return result


def systems_table(e: ireval.Evaluation) -> list[RelevanceSystem]:
    """One row per system: its mean of every measure under every qrels set, best MAP under the consensus first."""
    rows = [
        RelevanceSystem(
            system=system,
            scores={
                qrels_set: {label(measure): float(e.means[q, s, k]) for k, measure in enumerate(e.measures)}
                for q, qrels_set in enumerate(e.qrels_sets)
            },
        )
        for s, system in enumerate(e.systems)
    ]
    first = e.qrels_sets[0]
    return sorted(rows, key=lambda row: (-row.scores[first]["MAP"], row.system))


#: The measure whose ranking's stability the report shows.
RANKING_MEASURE = f"nDCG@{CUTOFF}"


def system_ranking_stability(e: ireval.Evaluation | None, settings: IntervalSettings) -> RankingStability | None:
    """Kendall's tau between the systems' ranking by mean nDCG@10 under the consensus qrels
    (the first set) and the rankings on bootstrap resamples of its topics; None without two systems."""
    if e is None or len(e.systems) < 2 or RANKING_MEASURE not in e.measures:
        return None
    scores = e.per_topic[0, :, :, e.measures.index(RANKING_MEASURE)]  # systems x topics, NaN: not in the set
    return ranking_stability(
        scores,
        measure=f"{label(RANKING_MEASURE)} ({e.qrels_sets[0]})",
        resamples=settings.resamples,
        seed=settings.seed,
    )


def evaluation_summary(
    e: ireval.Evaluation | None, per_set_topics: Sequence[int] | None = None
) -> RelevanceEvaluation | None:
    """The report's evaluation of ``e``; ``per_set_topics``: the topics each qrels set has (default:
    those with a score in ``e.per_topic``)."""
    if e is None:
        return None
    if per_set_topics is None:
        per_set_topics = (~np.isnan(e.per_topic[:, 0, :, 0])).sum(axis=1)
    return RelevanceEvaluation(
        qrels_sets=list(e.qrels_sets),
        measures=[label(measure) for measure in e.measures],
        threshold=int(e.relevance_threshold),
        topics={name: int(n) for name, n in zip(e.qrels_sets, per_set_topics)},
        systems=systems_table(e),
        stability=stability(e),
    )


# -- exact sums of scores ------------------------------------------------------------------------

#: A score is split into LIMBS whole numbers of LIMB_BITS bits each (``score = sum_j limb_j
#: 2^(-LIMB_BITS (j + 1))``: exactly for every score from 2^-43 up, as trec_eval's nonzero
#: scores of any real pool are; of a smaller one the bits under 2^-96 are dropped, alike in the
#: merge and in the running sums), so that sums of scores are sums of integers: exact, equal
#: whatever the order they are added in (a mean whose order of additions decided a tie between
#: two systems would rank them by rounding). A limb is below 2^32 for a score up to 1
#: (trec_eval's measures are in [0, 1]), so an int64 holds the sum of 2^31 topics' limbs.
LIMB_BITS, LIMBS = 32, 3


def exact_sums(values: np.ndarray, axis: int) -> np.ndarray:
    """The limbs of ``values`` (finite) summed along ``axis``: an int64 array of the other axes'
    shape with LIMBS more values on a last axis (:func:`exact_totals` gives the sums).

    >>> scores = np.array([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]])
    >>> exact_sums(scores, axis=1).tolist() == exact_sums(scores[:, ::-1], axis=1).tolist()
    True
    >>> exact_totals(exact_sums(scores, axis=1)).tolist(), [0.1 + 0.2 + 0.3, 0.3 + 0.2 + 0.1]
    ([0.6, 0.6], [0.6000000000000001, 0.6])
    """
    rest = np.asarray(values, dtype=np.float64)
    found = []
    for _ in range(LIMBS):
        rest = rest * float(1 << LIMB_BITS)  # a power of two: exact, as the floor and the rest
        whole = np.floor(rest)
        rest = rest - whole
        found.append(whole.astype(np.int64).sum(axis=axis))
    return np.stack(found, axis=-1)


def exact_totals(limbs: Any) -> np.ndarray:
    """The float nearest each sum :func:`exact_sums` gives (``limbs``: ``(..., LIMBS)`` integers):
    the integer they make over a power of two, which Python divides correctly rounded."""
    table = np.asarray(limbs, dtype=object)
    rows = table.reshape(-1, LIMBS).tolist()
    totals = []
    for row in rows:
        whole = 0
        for limb in row:
            whole = (whole << LIMB_BITS) + int(limb)
        totals.append(whole / (1 << (LIMB_BITS * LIMBS)))
    return np.array(totals, dtype=np.float64).reshape(table.shape[:-1])


def exact_means(per_topic: np.ndarray) -> np.ndarray:
    """The mean over each qrels set's own topics (``per_topic``: sets x systems x topics x
    measures, NaN marking a topic not in the set), as ``ireval.evaluate``'s but of the exact
    sums, the running sums' own (kinds/relevance/sums.py): two systems whose scores add up to
    the same tie, whatever the order of the topics or of the changes.

    Two systems of one set scoring 0.1, 0.2, 0.3 and 0.3, 0.2, 0.1 on three topics (numpy's sums
    split them), and a set of one topic of the three:

    >>> nan = float("nan")
    >>> per_topic = np.array([[[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]], [[nan, 0.5, nan], [nan, 0.5, nan]]])[..., None]
    >>> exact_means(per_topic)[..., 0].tolist(), np.sum(per_topic[0], axis=1)[:, 0].tolist()
    ([[0.19999999999999998, 0.19999999999999998], [0.5, 0.5]], [0.6000000000000001, 0.6])
    """
    in_set = ~np.isnan(per_topic)
    with np.errstate(divide="ignore", invalid="ignore"):
        return exact_totals(exact_sums(np.where(in_set, per_topic, 0.0), axis=2)) / in_set.sum(axis=2)


# -- per-topic partials and their merge -------------------------------------------------------


@dataclass(frozen=True)
class RelevancePartial:
    """What the campaign report needs of one topic: its documents, who graded some of them
    and how (``grades``: assessors x documents, row-major, NaN not graded), and the systems
    evaluated on it (trec_eval's measures per topic depend on that topic only): ``scores``
    is qrels sets x systems x :data:`MEASURES`, row-major, for the topic's non-empty qrels
    sets (``sets``: the consensus and ``single:<assessor>``) and every system with a ranking
    (``systems``; one that does not rank this topic scores ir-measures' default, 0)."""

    documents: list[str]
    assessors: list[str]
    grades: list[float]
    sets: list[str]
    systems: list[str]
    scores: list[float]


def topic_partial(input: ReportInput, topic: Topic, report: RelevanceTopicReport | None = None) -> RelevancePartial:
    g = grades([topic], input.judgments_of(topic))
    sets = qrels_sets(g)
    # every system scores the topic: a system that does not rank it (or ranks nothing for it)
    # gets ir-measures' default (0), as in a campaign-wide evaluation (an empty ranking is
    # left out: pytrec_eval crashes on it)
    systems = {
        name: {topic.external_id: ranking[topic.external_id]} if ranking.get(topic.external_id) else {}
        for name, ranking in system_runs(input.runs).items()
    }
    scores: list[float] = []
    if sets and systems:
        e = ireval.evaluate(sets, systems, relevance_threshold=threshold_of(input.campaign.params), cutoff=CUTOFF)
        scores = e.per_topic[:, :, 0, :].ravel().tolist()
    return RelevancePartial(
        documents=g.document_ids,
        assessors=list(g.assessors),
        grades=g.matrix.ravel().tolist(),
        sets=list(sets),
        systems=list(systems) if sets else [],
        scores=scores,
    )


def _segments(starts: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """The positions ``starts[k] + 0 .. widths[k] - 1`` of every segment k, concatenated.

    >>> _segments(np.array([10, 0, 5]), np.array([2, 0, 3])).tolist()
    [10, 11, 5, 6, 7]
    """
    before = np.cumsum(widths) - widths
    return np.repeat(starts - before, widths) + np.arange(int(widths.sum()))


def _lengths(lists: Sequence[Sequence[Any]]) -> np.ndarray:
    return np.fromiter((len(x) for x in lists), np.intp, len(lists))


def merged_grades(input: MergeInput, partials: Sequence[RelevancePartial]) -> Grades:
    """The campaign's :class:`Grades` (what :func:`grades` builds from every judgment),
    scattered into place from the topics' partials."""
    topics = [t.external_id for t in input.topics]
    sizes = _lengths([p.documents for p in partials])
    offsets = np.cumsum(sizes) - sizes
    n = int(sizes.sum())
    items = list(
        zip(
            np.repeat(np.array(topics, dtype=object), sizes).tolist(),
            chain.from_iterable(p.documents for p in partials),
        )
    )
    who = list(chain.from_iterable(p.assessors for p in partials))
    assessors = sorted(set(who))
    matrix = np.full((len(assessors), n), np.nan)
    if who:
        index = {name: a for a, name in enumerate(assessors)}
        counts = _lengths([p.assessors for p in partials])
        widths = np.repeat(sizes, counts)
        values = np.fromiter(chain.from_iterable(p.grades for p in partials), float, int(widths.sum()))
        row = np.fromiter((index[name] for name in who), np.intp, len(who))
        matrix[np.repeat(row, widths), _segments(np.repeat(offsets, counts), widths)] = values
    return Grades(items, np.repeat(np.arange(len(partials), dtype=np.intp), sizes), topics, assessors, matrix)


def merged_evaluation(
    input: MergeInput, partials: Sequence[RelevancePartial], assessors: Sequence[str]
) -> ireval.Evaluation | None:
    """What :func:`kinds.relevance.analyses.evaluation` gives (every system under every qrels set) from the topics'
    per-topic figures: the same per-topic array, the means over each set's topics as ireval takes them."""
    systems = list(system_runs(input.runs))
    present = set(chain.from_iterable(p.sets for p in partials))
    sets = [name for name in vote_truths(assessors) if name in present]
    if not systems or not sets:
        return None
    graded = [k for k, p in enumerate(partials) if p.sets]  # the topics with a grade: the consensus has them
    column = np.full(len(partials), -1, dtype=np.intp)
    column[graded] = np.arange(len(graded))
    per_topic = np.full((len(sets), len(systems), len(graded), len(MEASURES)), np.nan)
    n_sets, n_systems = _lengths([p.sets for p in partials]), _lengths([p.systems for p in partials])
    cells = n_sets * n_systems
    if cells.any():
        set_index, system_index = {name: q for q, name in enumerate(sets)}, {name: s for s, name in enumerate(systems)}
        set_codes = np.fromiter((set_index[x] for p in partials for x in p.sets), np.intp, int(n_sets.sum()))
        system_codes = np.fromiter(
            (system_index[x] for p in partials for x in p.systems), np.intp, int(n_systems.sum())
        )
        topic = np.repeat(np.arange(len(partials)), cells)
        local = _segments(np.zeros(len(partials), dtype=np.intp), cells)
        divisor = np.maximum(n_systems, 1)[topic]
        q = set_codes[(np.cumsum(n_sets) - n_sets)[topic] + local // divisor]
        s = system_codes[(np.cumsum(n_systems) - n_systems)[topic] + local % divisor]
        values = np.fromiter(chain.from_iterable(p.scores for p in partials), float, int(cells.sum()) * len(MEASURES))
        per_topic[q, s, column[topic]] = values.reshape(-1, len(MEASURES))
    return ireval.Evaluation(
        tuple(sets),
        tuple(systems),
        tuple(input.topics[k].external_id for k in graded),
        MEASURES,
        exact_means(per_topic),
        per_topic,
        threshold_of(input.campaign.params),
    )


def merge(input: MergeInput, partials: Sequence[RelevancePartial]) -> RelevanceCampaignReport:
    """The campaign report from every topic's partial, in topic order."""
    campaign = input.campaign
    scale, threshold = scale_of(campaign.params), threshold_of(campaign.params)
    g = merged_grades(input, partials)
    settings = interval_settings(campaign.params)
    evaluated = merged_evaluation(input, partials, g.assessors)
    return RelevanceCampaignReport(
        **agreement_fields(g, scale=scale, threshold=threshold, settings=settings),
        topics=len(input.topics),
        scale=scale,
        threshold=threshold,
        evaluation=evaluation_summary(evaluated),
        runs=len(system_runs(input.runs)),
        ranking=system_ranking_stability(evaluated, settings),
        reliability=lm.graded_reliability(
            g.matrix.T, g.assessors, lm.model_truth(g.matrix.T, "dawid-skene", len(levels(scale, g)))
        ),
    )


def campaign_report(input: ReportInput) -> RelevanceCampaignReport:
    """The campaign report from scratch: the merge of every topic's fresh partial."""
    return from_scratch(input, topic=topic_report, partial=topic_partial, merge=merge)


def partial_disagreement(partial: RelevancePartial, campaign: Campaign) -> Disagreement | None:
    """:func:`~kinds.relevance.report.topic_disagreement` from the topic's partial (its grades), without its report.

    >>> nan = float("nan")
    >>> found = partial_disagreement(RelevancePartial(["d1", "d2"], ["a", "b"], [0, 1, 3, 1], [], [], []),
    ...     Campaign(params={}))
    >>> found.value, found.reason
    (0.5, '1 of 2 documents split; most: d1 (1 × non-relevant / 1 × highly relevant)')
    """
    if not partial.documents:
        return None
    matrix = np.array(partial.grades, dtype=np.float64).reshape(len(partial.assessors), len(partial.documents))
    grades = np.where(np.isnan(matrix), -1, matrix).astype(np.int64).T  # documents x assessors
    return grade_disagreement(partial.documents, grades, scale_of(campaign.params))
