"""Pair adjudication: agreement between adjudicators and gold standards.

Arehart, Wolf & Miller, "Adjudicator Agreement and System Rankings for Person
Name Search": section 3.1 (overlap, p+, p-, kappa per pair of adjudicators;
base rates of acceptance, Figures 4 and 5) and section 2.3, Table 1 (truth
sets: Consensus, Union, Intersection, Single).

An *item* is one (topic, candidate) pair; a judgment's payload gives one
vote per candidate of its topic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from itertools import chain
from typing import Any, Literal

import numpy as np

from annotate.models import Campaign, Run, Topic
from concord.digits import whole_number
from concord.errors import InvalidInput
from concord.params import Bool, Choice, Float, Int, ParamsSchema
from concord.typed import Figure
from kinds.disagreement import label_disagreement
from kinds.pairs.draws import ItemDraws
from kinds.pairs.stats import consensus, intersection, random_truth_sets, single, union
from kinds.spec import Disagreement, Export, ExportFile, Headline
from scoring.csvfiles import write_csv
from scoring.models import Job
from scoring.partials import MergeInput, from_scratch
from scoring.selectors import JudgmentRow, ReportInput
from scoring.services import Chunked
from stats import labelmodels as lm
from stats.agreement import (
    PairConfusions,
    category_counts,
    fleiss_kappa,
    krippendorff_alpha,
    pairwise_of_table,
    sparse_pair_confusions,
)
from stats.gwet import gwet_units
from stats.intervals import (
    BINARY_FIGURES,
    ChanceTest,
    FigureCI,
    IntervalSettings,
    RankingStability,
    binary_cells,
    binary_pair_statistics,
    chance_test,
    interval_settings,
    no_ci,
    ranking_stability,
    too_few_pair_intervals,
)
from stats.ratings import SparseRatings
from stats.significance import (
    compare_statements,
    compare_systems,
    statement_text,
    summarize_against_baseline,
    system_pairs,
)
from stats.systems import precision_recall_f1, query_counts
from stats.uncertainty import (
    fleiss_kappa_interval,
    fleiss_kappa_test,
    fleiss_kappa_units,
    krippendorff_alpha_units,
)

EXPORTS = {"csv": Export("text/csv", "csv"), "qrels": Export("text/plain", "qrels")}
EXPORT_HELP = (
    "Consensus: a tie or a majority of the adjudicators who judged an item says match. Union: anyone said match. "
    "Intersection: everyone who judged it said match. Single: one adjudicator's judgments. random:k: the k-th "
    "Random truth set (one adjudicator drawn per item, seed 0). dawid-skene / mace / wawa: the most probable label "
    "under a model of the adjudicators (Dawid & Skene 1979; Hovy et al. 2013; weighted majority). adjudicated: the "
    "topic's adjudicated gold where it has a label for the item, else the consensus (adjudicated:<truth> chooses "
    "another fallback, e.g. adjudicated:dawid-skene). CSV rows carry the vote counts (matches, judged) and the "
    "provenance (source adjudicated/model/vote, the model's posterior of the label, who adjudicated when); "
    "qrels rows are: topic 0 candidate 0|1. statements / comparisons: the latest system evaluation's statements per "
    "truth set and its Table 2, as CSV."
)


@dataclass(frozen=True)
class Votes:
    """items x assessors: 1.0 match, 0.0 no match, NaN not judged."""

    items: list[tuple[str, str]]  # (topic external id, candidate id)
    assessors: list[str]
    matrix: np.ndarray


def votes(topics: Sequence[Topic], judgments: Sequence[JudgmentRow]) -> Votes:
    """The vote matrix of the submitted judgments, items in topic order."""
    external = {t.pk: t.external_id for t in topics}
    index: dict[tuple[str, str], int] = {}
    for topic in topics:
        for candidate in topic.data["candidates"]:
            index[(topic.external_id, candidate["id"])] = len(index)
    assessors = sorted({j.assessor for j in judgments})
    column = {name: i for i, name in enumerate(assessors)}
    rows, cols, values = [], [], []
    for judgment in judgments:
        topic_id = external[judgment.topic_id]
        for candidate, match in judgment.payload["matches"].items():
            rows.append(index[(topic_id, candidate)])
            cols.append(column[judgment.assessor])
            values.append(1.0 if match else 0.0)
    matrix = np.full((len(index), len(assessors)), np.nan)
    matrix[rows, cols] = values
    return Votes(list(index), assessors, matrix)


# -- the reports' types (stored as JSON, read back field by field: concord/typed.py) --------


@dataclass(frozen=True)
class PairsPair:
    """Two assessors on the items both judged (section 3.1): the 2x2 table,
    observed agreement, overlap a/(a+b+c), p+ 2a/(2a+b+c), p- 2d/(2d+b+c), Cohen's kappa."""

    assessors: tuple[str, str]
    a: int
    b: int
    c: int
    d: int
    n: int
    observed: Figure
    overlap: Figure
    positive: Figure
    negative: Figure
    kappa: Figure
    #: the 95% bootstrap intervals over the ``n`` shared items (seed 0; none under 2 items)
    kappa_ci: FigureCI
    overlap_ci: FigureCI
    positive_ci: FigureCI
    negative_ci: FigureCI
    #: Gwet's AC1 of the two (robust to a base rate near 0 or 1), with its interval
    ac1: FigureCI


@dataclass(frozen=True)
class PairsAssessor:
    """One assessor's base rate of acceptance (Figures 4 and 5): matches over judged items."""

    assessor: str
    judged: int
    accepted: int
    base_rate: Figure


@dataclass(frozen=True)
class PairsFleiss:
    """Fleiss' kappa over the ``items`` that have the most common number of raters, ``raters``."""

    kappa: Figure
    items: int
    raters: int
    #: 95% percentile bootstrap over the ``items``
    bootstrap: FigureCI
    #: the test of kappa = 0 with the SE of Fleiss, Nee & Landis (1979), which holds only
    #: when the true kappa is 0: a test (z, p), never an interval
    chance_test: ChanceTest
    #: kappa +- 1.96 SE, Gwet's (2008) linearised SE, valid at any kappa (irrCAC's)
    analytic_general: FigureCI


@dataclass(frozen=True)
class PairsAlpha:
    """Krippendorff's alpha (nominal) over the ``items`` with two or more raters."""

    alpha: Figure
    items: int
    coders: int
    #: 95% bootstrap over the ``items`` (units resampled, see stats/uncertainty.py)
    ci: FigureCI


@dataclass(frozen=True)
class PairsAgreement:
    """Per pair, per assessor and campaign-wide agreement of a vote matrix."""

    items: int
    items_judged: int
    assessors: list[PairsAssessor]
    pairs: list[PairsPair]
    #: assessors x assessors kappa (1 on the diagonal, None where two never judged the same item)
    kappa_matrix: list[list[Figure]]
    fleiss: PairsFleiss
    alpha: PairsAlpha
    #: Gwet's AC1 over every judged item (any number of raters), 95% bootstrap over the items
    ac1: FigureCI

    @property
    def names(self) -> list[str]:
        return [a.assessor for a in self.assessors]

    def matrix_intervals(self, field: str) -> dict[tuple[str, str], FigureCI]:
        """The interval of every cell of the matrix ``field`` (the matrix CSV's low/high/units columns)."""
        if field != "kappa_matrix":
            return {}
        return {tuple(p.assessors): p.kappa_ci for p in self.pairs}


@dataclass(frozen=True)
class PairsCandidate:
    """One candidate of a topic: its match votes out of the adjudicators who judged it."""

    id: str
    #: the candidate's text (its name), shown beside the id
    text: str
    matches: int
    judged: int


@dataclass(frozen=True)
class PairsTopicReport(PairsAgreement):
    """A topic's agreement and its candidates' votes."""

    candidates: list[PairsCandidate]


@dataclass(frozen=True)
class PRF:
    """Pooled precision, recall and F1 of one system under one truth set."""

    precision: Figure
    recall: Figure
    f1: Figure


@dataclass(frozen=True)
class PairsSystem:
    """One system under the Consensus, Union and Intersection truth sets (section 2.4)."""

    system: str
    consensus: PRF
    union: PRF
    intersection: PRF


@dataclass(frozen=True)
class PairsCampaignReport(PairsAgreement):
    """The campaign: agreement over every item, the systems' scores over the
    pool, each assessor's Dawid-Skene sensitivity and specificity, and the
    accuracy table against every reference labelling (runs with ``"reference": true``)."""

    topics: int
    systems: list[PairsSystem]
    reliability: list[lm.BinaryReliability]
    references: list[lm.ReferenceAccuracy]
    #: the stability of the systems' ranking by F1 under the consensus (bootstrap over topics), or None
    ranking: RankingStability | None
    kind: Literal["pairs"] = "pairs"
    #: every pair of assessors who share an item; ``pairs`` holds the :data:`LIVE_PAIRS` of
    #: them with the most shared items (None: a report stored before the cap, every pair)
    pair_count: int | None = None


def agreement(v: Votes, settings: IntervalSettings | None = None) -> PairsAgreement:
    """Per pair, per assessor and campaign-wide agreement of a vote matrix."""
    return PairsAgreement(**_agreement(v, settings or IntervalSettings()))


#: Units of every pairs figure: the (topic, candidate) items.
UNIT = "items"


def _agreement(v: Votes, settings: IntervalSettings) -> dict[str, Any]:
    return _agreement_of(SparseRatings.from_dense(v.matrix), v.assessors, settings)


#: The most pairs of assessors the campaign report lists with their figures and intervals, those
#: with the most shared items: a crowd of 200 workers has 19,900 pairs, a 14 MB report read by
#: every page view and rebuilt after every submission (benchmarks/crowd_report.py). Every pair's
#: kappa stays in ``kappa_matrix`` (the heatmap's full CSV); a topic's report lists all its pairs.
LIVE_PAIRS = 500


def _agreement_of(
    votes: SparseRatings, assessors: list[str], settings: IntervalSettings, keep: int | None = None
) -> dict[str, Any]:
    """:func:`agreement`'s fields of items x assessors votes (1 match, 0 no match), held sparse.

    ``keep``: list only that many pairs (those with the most shared items; ties: the
    earlier pair) and add ``pair_count``, the number of pairs sharing an item. The
    kappa matrix has every pair's kappa either way, from one product of the votes
    (:func:`~stats.agreement.sparse_pair_confusions`), equal to
    :func:`~stats.agreement.pairwise_agreement`'s pair by pair.

    Nothing here lays the votes out as items x assessors: the figures over every rater
    (Fleiss, alpha, AC1) read each item's votes packed left (:meth:`SparseRatings.packed`,
    the same counts per item), the per-assessor and per-pair figures each assessor's own
    items; a crowd of 100,000 items x 2,000 workers, 10 votes an item, costs its 1,000,000
    votes, not 200,000,000 cells."""
    raters = votes.per_item
    packed = votes.packed()
    # every interval: the seeded bootstrap over items, drawn once per set of items (kinds/pairs/draws.py)
    draws = ItemDraws(votes, resamples=settings.resamples, seed=settings.seed, unit=UNIT, min_units=settings.min_units)
    every = sparse_pair_confusions(votes, 2)
    shared_items = every.confusion.sum(axis=(1, 2))
    listed = np.arange(len(shared_items))
    if keep is not None and len(listed) > keep:
        listed = np.sort(np.argsort(-shared_items, kind="stable")[:keep])
    confusion = every.confusion[listed]
    # each pair's 2x2 table (a both match, b first only, c second only, d neither): its figures
    tables = np.stack([confusion[:, 1, 1], confusion[:, 1, 0], confusion[:, 0, 1], confusion[:, 0, 0]], axis=1)
    statistics = binary_pair_statistics()
    # a pair over fewer items than an interval needs draws nothing and needs no more than its table
    # (a topic of a few items: every pair); the others' intervals need their shared items' cells
    drawn = tables.sum(axis=1) >= settings.min_units if settings.min_units > 2 else np.ones(len(tables), bool)
    intervals = dict(
        zip(np.flatnonzero(~drawn).tolist(), too_few_pair_intervals(tables[~drawn], statistics, UNIT, draws.level))
    )
    subsets, cells = [], []
    for p in np.flatnonzero(drawn).tolist():
        (items_i, votes_i), (items_j, votes_j) = (
            votes.rater(int(every.first[listed[p]])),
            votes.rater(int(every.second[listed[p]])),
        )
        both, at_i, at_j = np.intersect1d(items_i, items_j, assume_unique=True, return_indices=True)
        shared = np.zeros(votes.n_items, bool)
        shared[both] = True
        subsets.append(shared)
        cells.append(binary_cells(votes_i[at_i] == 1, votes_j[at_j] == 1))
    intervals.update(zip(np.flatnonzero(drawn).tolist(), draws.pair_intervals(subsets, cells, 4, statistics)))
    pairs = []
    for p, (i, j, table) in enumerate(
        zip(every.first[listed].tolist(), every.second[listed].tolist(), tables.tolist())
    ):
        ci = intervals[p]
        pairs.append(
            PairsPair(
                assessors=(assessors[i], assessors[j]),
                **vars(pairwise_of_table(*table)),
                **{f"{name}_ci": ci[name] for name in BINARY_FIGURES},
                ac1=ci["ac1"],
            )
        )
    judged, accepted = votes.per_rater, votes.value_sums()
    per_assessor = [
        PairsAssessor(
            assessor=name,
            judged=int(judged[k]),
            accepted=int(accepted[k]),
            base_rate=float(accepted[k] / judged[k]) if judged[k] else float("nan"),
        )
        for k, name in enumerate(assessors)
    ]
    fields = {
        "items": votes.n_items,
        "items_judged": int((raters > 0).sum()),
        "assessors": per_assessor,
        "pairs": pairs,
        "kappa_matrix": _kappa_matrix(len(assessors), every),
        "fleiss": _fleiss(packed, raters, draws),
        "alpha": _alpha(votes, packed, raters, draws),
        "ac1": _ac1(packed, raters, draws),
    }
    if keep is not None:
        fields["pair_count"] = len(shared_items)
    return fields


def _ac1(packed: np.ndarray, raters: np.ndarray, draws: ItemDraws) -> FigureCI:
    """Gwet's AC1 over the judged items (both categories count), bootstrap over them."""
    rows = raters > 0
    if not rows.any():
        return no_ci(float("nan"), 0, UNIT)
    return draws.interval(rows, gwet_units(packed[rows], categories=[0.0, 1.0]))


def _kappa_matrix(n: int, every: PairConfusions) -> list[list[float | None]]:
    """Every pair's Cohen's kappa as :func:`pairwise_agreement` computes it from the 2x2
    table (the same integers, one true division), 1 on the diagonal, None where two
    assessors share no item."""
    both, first_only = every.confusion[:, 1, 1], every.confusion[:, 1, 0]
    second_only, neither = every.confusion[:, 0, 1], every.confusion[:, 0, 0]
    numerator = 2 * (both * neither - first_only * second_only)
    denominator = (both + first_only) * (first_only + neither) + (both + second_only) * (second_only + neither)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappas = np.where(denominator != 0, numerator / denominator, np.nan).tolist()
    matrix: list[list[float | None]] = [[None] * n for _ in range(n)]
    for i in range(n):
        matrix[i][i] = 1.0
    for i, j, kappa in zip(every.first.tolist(), every.second.tolist(), kappas):
        matrix[i][j] = matrix[j][i] = kappa
    return matrix


def _fleiss(packed: np.ndarray, raters: np.ndarray, draws: ItemDraws) -> PairsFleiss:
    """Fleiss' kappa over the items with the most common number of raters (>= 2).

    Fleiss (1971) needs the same number of raters on every item; while a
    campaign is under way items differ, so the figure says which items it is
    over. Ties between rater counts go to the larger count.
    """
    counts = np.bincount(raters[raters >= 2]) if (raters >= 2).any() else np.zeros(0, int)
    if counts.size == 0:
        none = no_ci(float("nan"), 0, UNIT)
        return PairsFleiss(
            kappa=float("nan"),
            items=0,
            raters=0,
            bootstrap=none,
            chance_test=chance_test(fleiss_kappa_test(np.zeros((0, 2))), UNIT),
            analytic_general=none,
        )
    m = int(len(counts) - 1 - np.argmax(counts[::-1]))
    table = category_counts(packed[raters == m], categories=[0.0, 1.0])
    return PairsFleiss(
        kappa=fleiss_kappa(table),
        items=int((raters == m).sum()),
        raters=m,
        bootstrap=draws.interval(raters == m, fleiss_kappa_units(table)),
        chance_test=chance_test(fleiss_kappa_test(table), UNIT),
        analytic_general=draws.analytic(fleiss_kappa_interval(table)),
    )


def _alpha(votes: SparseRatings, packed: np.ndarray, raters: np.ndarray, draws: ItemDraws) -> PairsAlpha:
    pairable = raters >= 2
    if not pairable.any():
        return PairsAlpha(
            alpha=float("nan"), items=0, coders=int((votes.per_rater > 0).sum()), ci=no_ci(float("nan"), 0, UNIT)
        )
    return PairsAlpha(
        alpha=krippendorff_alpha(packed[pairable].T, level="nominal"),
        items=int(pairable.sum()),
        coders=len(np.unique(votes.raters[pairable[votes.items]])),
        ci=draws.interval(pairable, krippendorff_alpha_units(packed[pairable].T, level="nominal")),
    )


def topic_report(input: ReportInput, topic: Topic) -> PairsTopicReport:
    judgments = input.judgments_of(topic)
    v = votes([topic], judgments)
    matches = np.nansum(v.matrix, axis=1)
    judged = (~np.isnan(v.matrix)).sum(axis=1)
    texts = {c["id"]: c.get("text", "") for c in topic.data.get("candidates", [])}
    return PairsTopicReport(
        **_agreement(v, interval_settings(input.campaign.params)),
        candidates=[
            PairsCandidate(id=candidate, text=texts.get(candidate, ""), matches=int(m), judged=int(n))
            for (_, candidate), m, n in zip(v.items, matches, judged)
        ],
    )


# -- the campaign report: per-topic partials and their merge (scoring/partials.py) -----------


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
    )


def _labels(labels: Any, candidates: Sequence[str]) -> list[float]:
    """Each candidate's label in ``labels`` (candidate id -> bool): 1.0, 0.0 or NaN (none)."""
    labels = labels if isinstance(labels, dict) else {}
    return [float(label) if isinstance(label := labels.get(c), bool) else float("nan") for c in candidates]


def merge(given: MergeInput, partials: Sequence[PairsPartial]) -> PairsCampaignReport:
    """The campaign report of every topic's partial, in topic order."""
    settings = interval_settings(given.campaign.params)
    systems = [run.name for run in system_runs(given.runs)]
    merged = _concatenate(given.topics, partials, systems, [run.name for run in reference_runs(given.runs)])
    votes, assessors = merged.votes, merged.assessors
    dawid_skene = lm.model_truth(votes, "dawid-skene", 2)
    # the other models' truth sets are read by the accuracy table only
    labels = (
        {
            model: (dawid_skene if model == "dawid-skene" else lm.model_truth(votes, model, 2)).labels
            for model in lm.MODELS
        }
        if merged.references
        else {}
    )
    # the figures of each item's votes whoever gave them (truth sets, majority) read them packed left
    packed = votes.packed()
    return PairsCampaignReport(
        **_agreement_of(votes, assessors, settings, keep=LIVE_PAIRS),
        topics=len(partials),
        systems=system_scores(systems, merged.returned, packed, assessors),
        ranking=system_ranking_stability(merged.returned, packed, assessors, merged.queries, settings),
        reliability=lm.binary_reliability(votes, assessors, dawid_skene),
        references=[
            lm.reference_accuracy(name, reference, votes, assessors, labels) for name, reference in merged.references
        ],
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


# -- gold standards ------------------------------------------------------------


def table1_truths(assessors: Sequence[str]) -> list[str]:
    """The truth sets of Table 1 (``random:<k>`` is the k-th Random set of seed 0)."""
    return ["consensus", "union", "intersection", *(f"single:{name}" for name in assessors), "random:0"]


def truths(assessors: Sequence[str]) -> list[str]:
    """Table 1's truth sets, the model truth sets and the adjudicated gold
    (``adjudicated:<truth>`` takes another fallback than the consensus)."""
    return [*table1_truths(assessors), *lm.MODELS, lm.ADJUDICATED]


#: Exports of the latest finished evaluation job (CSV), beside the truth sets.
TABLES = ("statements", "comparisons")


def describe_export(format: str, truth: str) -> ExportFile | None:
    """What ``format`` and ``truth`` download (``Exports.describe``): the gold labels (CSV), qrels,
    or one of the latest evaluation's tables (CSV only)."""
    if truth in TABLES:
        return ExportFile(f"evaluation-{truth}", "scores", by_truth=False) if format == "csv" else None
    return {"csv": ExportFile("pairs-gold", "gold"), "qrels": ExportFile("qrels", "gold")}.get(format)


def _random_k(truth: str) -> int | None:
    return whole_number(truth.removeprefix("random:")) if truth.startswith("random:") else None


def _known(v: Votes, truth: str) -> bool:
    return truth in truths(v.assessors) or _random_k(truth) is not None


def check_truth(v: Votes, truth: str) -> None:
    """400 naming ``truth`` unless the kind knows it."""
    known = truths(v.assessors)
    adjudicated, behind = lm.split_truth(truth)
    if adjudicated:
        lm.check_fallback(truth, behind, [*table1_truths(v.assessors), *lm.MODELS], lambda t: _known(v, t))
        return
    if truth not in known and _random_k(truth) is None:
        raise InvalidInput(
            "truth",
            f"unknown truth set {truth!r} (known: {', '.join(known)}, adjudicated:<truth>, random:<k> with k "
            "written in the digits 0-9)",
        )


def gold_provenance(v: Votes, truth: str, adjudicated: Sequence[lm.Adjudicated | None] = ()) -> lm.Provenance:
    """The labels of ``truth`` with each item's source, the model's posterior
    and who adjudicated it when (``adjudicated``: per item, for the
    ``adjudicated`` truth sets; see :func:`adjudicated_items`)."""
    check_truth(v, truth)
    is_adjudicated, behind = lm.split_truth(truth)
    if behind in lm.MODELS:
        fit = lm.model_truth(v.matrix, behind, 2)
        labels, posterior, model = fit.labels, fit.posterior, True
    else:
        labels, posterior, model = gold_standard(v, behind), None, False
    return lm.with_provenance(
        labels, model=model, posterior=posterior, adjudicated=adjudicated if is_adjudicated else None
    )


def adjudicated_items(v: Votes, topics: Sequence[Topic], curated: dict) -> list[lm.Adjudicated | None]:
    """Per item the label of its topic's adjudicated gold (the ``consensus``
    curation; ``curated`` as :func:`stats.labelmodels.adjudications` reads it), or None."""
    by_external = {t.external_id: t.pk for t in topics}

    def value(data, candidate):
        match = (data.get("matches") or {}).get(candidate)
        return None if not isinstance(match, bool) else float(match)

    return lm.curated_items([(by_external[t], c) for t, c in v.items], curated, value)


def gold_standard(v: Votes, truth: str) -> np.ndarray:
    """One 0/1/NaN label per item under ``truth`` (NaN: not judged); the
    adjudicated truth sets need the curations: :func:`gold_provenance`."""
    check_truth(v, truth)
    if lm.split_truth(truth)[0] or truth in lm.MODELS:
        return gold_provenance(v, truth).labels
    if not v.assessors:
        return np.full(len(v.items), np.nan)
    if truth.startswith("random:"):
        k = _random_k(truth)
        return random_truth_sets(v.matrix, n_sets=k + 1, seed=0, start=k, stop=k + 1)[0]
    if truth == "consensus":
        return consensus(v.matrix)
    if truth == "union":
        return union(v.matrix)
    if truth == "intersection":
        return intersection(v.matrix)
    return single(v.matrix, v.assessors.index(truth.removeprefix("single:")))


def export(
    campaign: Campaign, topics: Sequence[Topic], judgments: Sequence[JudgmentRow], *, format: str, truth: str
) -> str:
    """The gold standard as CSV (with vote counts) or TREC qrels; or, with
    ``truth`` statements|comparisons, the latest evaluation's tables as CSV."""
    if truth in TABLES:
        if format != "csv":
            raise InvalidInput("format", f"{truth} come as csv")
        return evaluation_table(campaign, truth)
    v = votes(topics, judgments)
    check_truth(v, truth)
    if format not in ("csv", "qrels"):
        raise InvalidInput("format", "expected csv or qrels")
    curated = adjudicated_items(v, topics, lm.adjudications(campaign)) if lm.split_truth(truth)[0] else ()
    gold = gold_provenance(v, truth, curated)
    labels = gold.labels
    matches = np.nansum(v.matrix, axis=1).astype(int)
    judged = (~np.isnan(v.matrix)).sum(axis=1)
    keep = ~np.isnan(labels)
    if format == "qrels":
        return "".join(
            f"{topic} 0 {candidate} {int(label)}\n"
            for (topic, candidate), label, ok in zip(v.items, labels, keep)
            if ok
        )
    return write_csv(
        ["topic", "candidate", "truth", "label", "matches", "judged", *PROVENANCE],
        (
            [
                topic,
                candidate,
                truth,
                int(labels[i]),
                int(matches[i]),
                int(judged[i]),
                gold.source[i],
                "" if np.isnan(gold.posterior[i]) else float(gold.posterior[i]),
                gold.by[i],
                gold.at[i],
            ]
            for i, (topic, candidate) in enumerate(v.items)
            if keep[i]
        ),
    )


#: The provenance columns every gold-standard CSV ends with.
PROVENANCE = ["source", "posterior", "adjudicated_by", "adjudicated_at"]


# -- system evaluation under every truth set (Arehart et al., sections 2.3-2.4, 3.2) --------

EVALUATION_DEFAULTS = {
    "n_random": 1000,
    "n_resamples": 1000,
    "alpha": 0.05,
    "seed": 0,
    "chunk_size": 100,
    "method": "bootstrap",
    "resample": "queries",
    "per_query": False,
}


def system_runs(runs: Sequence[Run]) -> list[Run]:
    return sorted((r for r in runs if "results" in r.data), key=lambda r: r.name)


def returned_matrix(v: Votes, runs: Sequence[Run]) -> np.ndarray:
    """systems x items: which pooled items each system returned (at any depth)."""
    index = {item: i for i, item in enumerate(v.items)}
    matrix = np.zeros((len(runs), len(v.items)), bool)
    for s, run in enumerate(runs):
        for topic, results in run.data["results"].items():
            for result in results:
                if (topic, result["id"]) in index:
                    matrix[s, index[(topic, result["id"])]] = True
    return matrix


def _evaluation_params(params: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(params) - set(EVALUATION_DEFAULTS))
    if unknown:
        raise InvalidInput(f"params.{unknown[0]}", f"unknown parameter (known: {', '.join(EVALUATION_DEFAULTS)})")
    merged = {**EVALUATION_DEFAULTS, **params}
    for name in ("n_random", "n_resamples", "seed", "chunk_size"):
        value = merged[name]
        if isinstance(value, bool) or not isinstance(value, int) or value < (0 if name in ("n_random", "seed") else 1):
            raise InvalidInput(
                f"params.{name}", "expected a whole number" + (" >= 0" if name in ("n_random", "seed") else " >= 1")
            )
    if not isinstance(merged["alpha"], (int, float)) or not 0 < merged["alpha"] < 1:
        raise InvalidInput("params.alpha", "expected a number between 0 and 1")
    if merged["method"] not in ("bootstrap", "randomization"):
        raise InvalidInput("params.method", "expected bootstrap or randomization")
    if merged["resample"] not in ("queries", "items"):
        raise InvalidInput("params.resample", "expected queries or items")
    return merged


def _compare(snapshot: dict[str, Any], truth: np.ndarray):

    p = snapshot["params"]
    return compare_systems(
        np.array(snapshot["returned"], bool),
        truth,
        np.array(snapshot["queries"]),
        n_resamples=p["n_resamples"],
        seed=p["seed"],
        alpha=p["alpha"],
        method=p["method"],
        resample=p["resample"],
    )


def evaluation_analysis(input: ReportInput, params: dict[str, Any], progress: Callable[[float, str], None]):
    """Score the systems under every truth set and test every pair (bootstrap,
    shift method); the Random truth sets run as chunks on any number of
    workers, each chunk's sets seeded by their index so the split changes nothing."""

    settings = _evaluation_params(params)
    topics = input.topics
    runs = system_runs(input.runs)
    if len(runs) < 2:
        raise InvalidInput("campaign", "needs the results of at least two systems (runs with results)")
    v = votes(topics, input.judgments)
    if not v.assessors:
        raise InvalidInput("campaign", "no submitted adjudication yet")
    query_of = {t.external_id: q for q, t in enumerate(topics)}
    judged_queries = {topic for (topic, _), row in zip(v.items, v.matrix) if not np.isnan(row).all()}
    if settings["resample"] == "queries" and len(judged_queries) < 2:
        raise InvalidInput(
            "params.resample",
            f"resampling queries needs at least 2 judged queries, and {len(judged_queries)} is judged: "
            "resample items, or judge more queries",
        )
    snapshot = {
        "params": settings,
        "systems": [r.name for r in runs],
        "adjudicators": v.assessors,
        "items": [list(item) for item in v.items],
        "queries": [query_of[topic] for topic, _ in v.items],
        "votes": v.matrix.tolist(),
        "returned": returned_matrix(v, runs).tolist(),
    }
    fixed = {}
    for index, truth in enumerate(table1_truths(v.assessors)):
        progress(0.02 + 0.08 * index / len(v.assessors + ["c", "u", "i"]), f"truth set {truth}")
        labels = gold_standard(v, truth)
        result = _compare(snapshot, labels)
        fixed[truth] = {
            "f1": result.f1.tolist(),
            "precision": result.precision.tolist(),
            "recall": result.recall.tolist(),
            "p_values": result.p_values.tolist(),
            "statements": result.statements.tolist(),
        }
        if settings["per_query"]:
            per_query = precision_recall_f1(
                np.array(snapshot["returned"], bool), labels, queries=np.array(snapshot["queries"]), average=None
            )
            fixed[truth]["per_query_f1"] = np.asarray(per_query.f1).tolist()
    snapshot["fixed"] = fixed
    n, size = settings["n_random"], settings["chunk_size"]
    chunks = [{"start": start, "stop": min(start + size, n)} for start in range(0, n, size)]
    if not chunks:
        return combine_evaluation(snapshot, [])
    return Chunked(snapshot, chunks)


def run_evaluation_chunk(snapshot: dict[str, Any], chunk: dict[str, Any]) -> dict[str, Any]:

    p = snapshot["params"]
    sets = random_truth_sets(
        np.array(snapshot["votes"], float),
        n_sets=p["n_random"],
        seed=p["seed"],
        start=chunk["start"],
        stop=chunk["stop"],
    )
    statements, f1 = [], []
    for truth in sets:
        result = _compare(snapshot, truth)
        statements.append(result.statements.tolist())
        f1.append(result.f1.tolist())
    return {"statements": statements, "f1": f1}


def combine_evaluation(snapshot: dict[str, Any], chunks: list[dict[str, Any]]) -> dict[str, Any]:
    fixed = snapshot["fixed"]
    systems = snapshot["systems"]
    baseline = np.array(fixed["consensus"]["statements"])
    table2 = []
    for truth, result in fixed.items():
        comparison = compare_statements(np.array(result["statements"]), baseline)
        table2.append(
            {
                "truth": truth,
                "sensitivity": float(comparison.sensitivity),
                "disagreement": None if truth == "consensus" else float(comparison.disagreement),
                "reversal": None if truth == "consensus" else float(comparison.reversal),
            }
        )
    random_statements = np.array([s for chunk in chunks for s in chunk["statements"]], dtype=np.int8)
    random_f1 = np.array([f for chunk in chunks for f in chunk["f1"]])
    random_summary = None
    if len(random_statements):
        summary = summarize_against_baseline(random_statements, baseline)
        random_summary = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(summary).items()}
    pairs = system_pairs(len(systems))
    return {
        "params": snapshot["params"],
        "systems": systems,
        "adjudicators": snapshot["adjudicators"],
        "items": len(snapshot["items"]),
        "table2": table2,
        "random": random_summary,
        "f1": {truth: result["f1"] for truth, result in fixed.items()},
        "random_f1": {
            "mean": random_f1.mean(axis=0).tolist(),
            "low": np.percentile(random_f1, 2.5, axis=0).tolist(),
            "high": np.percentile(random_f1, 97.5, axis=0).tolist(),
        }
        if len(random_f1)
        else None,
        "fixed": {truth: {k: v for k, v in result.items() if k != "statements"} for truth, result in fixed.items()},
        "pairs": [[systems[a], systems[b]] for a, b in pairs],
        "statements": {
            truth: statement_text(np.array(result["statements"]), systems) for truth, result in fixed.items()
        },
    }


ANALYSES = {"evaluation": evaluation_analysis}
#: The analyses' params (checked before a job is stored; see JOB_BUDGET in
#: scoring/services.py). Measured on the Name-search demo (13 systems, 40
#: queries): 100 Random truth sets x 1000 query resamples take 0.3 s, and
#: 10 sets x 10000 item resamples 2.3 s and 250 MB. A chunk's time grows with
#: chunk_size x n_resamples x pooled items, its memory with n_resamples x
#: items; chunks run on any number of workers. At the bounds one chunk
#: (500 sets x 10000 resamples) takes about 2 minutes on that campaign.
ANALYSIS_PARAMS = {
    "evaluation": ParamsSchema(
        Int(
            "n_random",
            EVALUATION_DEFAULTS["n_random"],
            min=0,
            max=10_000,
            help="Random truth sets (one adjudicator drawn per item), as in Arehart et al.'s Table 2.",
        ),
        Int(
            "n_resamples",
            EVALUATION_DEFAULTS["n_resamples"],
            min=1,
            max=10_000,
            help="Resamples of each significance test.",
        ),
        Float(
            "alpha",
            EVALUATION_DEFAULTS["alpha"],
            min=0.0,
            max=1.0,
            exclusive=True,
            help="Significance level of the statements A > B.",
        ),
        Int(
            "seed",
            EVALUATION_DEFAULTS["seed"],
            min=0,
            max=2**32 - 1,
            help="Seed of the random draws (the same seed, the same result).",
        ),
        Int(
            "chunk_size",
            EVALUATION_DEFAULTS["chunk_size"],
            min=1,
            max=500,
            help="Random truth sets per chunk (a chunk is one task; chunks run on any number of workers).",
        ),
        Choice(
            "method",
            EVALUATION_DEFAULTS["method"],
            ("bootstrap", "randomization"),
            help="bootstrap (shift method) or randomization test.",
        ),
        Choice(
            "resample",
            EVALUATION_DEFAULTS["resample"],
            ("queries", "items"),
            help="What the test resamples: whole queries or single items.",
        ),
        Bool("per_query", EVALUATION_DEFAULTS["per_query"], help="Also report every system's F1 per query."),
    )
}
CHUNKS = {"evaluation": (run_evaluation_chunk, combine_evaluation)}


def evaluation_table(campaign: Campaign, table: str) -> str:

    job = (
        Job.objects.filter(campaign=campaign, analysis="evaluation", status=Job.Status.DONE)
        .order_by("-finished_at")
        .first()
    )
    if job is None:
        raise InvalidInput(
            "truth", f"no finished system evaluation to export {table} from; run the evaluation analysis"
        )
    result = job.result
    if table == "statements":
        return write_csv(
            ["truth", "system_a", "system_b", "statement", "f1_a", "f1_b", "p_value"],
            (
                [truth, a, b, text, fixed["f1"][result["systems"].index(a)], fixed["f1"][result["systems"].index(b)], p]
                for truth, fixed in result["fixed"].items()
                for (a, b), text, p in zip(result["pairs"], result["statements"][truth], fixed["p_values"])
            ),
        )
    rows = [
        [row["truth"], row["sensitivity"], row["disagreement"], row["reversal"], None, None, None, None, None]
        for row in result["table2"]
    ]
    if result.get("random"):
        r = result["random"]
        # Each 95 % interval as two number cells, never the text "low..high".
        rows.append(
            [
                "random (mean)",
                r["mean_sensitivity"],
                r["mean_disagreement"],
                r["n_reversals"],
                r["n_sets"],
                *r["sensitivity_ci"],
                *r["disagreement_ci"],
            ]
        )
    return write_csv(
        [
            "truth",
            "sensitivity",
            "disagreement",
            "reversal",
            "random_sets",
            "sensitivity_ci95_low",
            "sensitivity_ci95_high",
            "disagreement_ci95_low",
            "disagreement_ci95_high",
        ],
        rows,
    )


def evaluation_ready(facts) -> str | None:
    """Why the system evaluation cannot run yet (``Analysis.ready``), or None."""
    if facts.runs_with("results") < 2:
        return "needs the results of at least two systems (runs with results)"
    if not facts.judgments:
        return "no submitted adjudication yet"
    return None


# -- disagreement per topic (KindSpec Reports.disagreement) ---------------------------------


def topic_disagreement(report: PairsTopicReport) -> Disagreement | None:
    """Vote entropy: for each candidate judged twice or more, the entropy of its match / no match
    votes (1: split evenly, 0: unanimous; 10 votes split 5-5 give 1, 3-7 0.88, 2-8 0.72, 1-9
    0.47), averaged over the topic's candidates.

    >>> import dataclasses
    >>> c = lambda m, n: PairsCandidate(id=f"c{m}{n}", text="", matches=m, judged=n)
    >>> fields = {f.name: None for f in dataclasses.fields(PairsAgreement)}
    >>> topic_disagreement(PairsTopicReport(**fields, candidates=[c(5, 10)]))
    Disagreement(value=1.0, reason='5 match / 5 no match')
    >>> found = topic_disagreement(PairsTopicReport(**fields, candidates=[c(2, 10)]))
    >>> round(found.value, 3), found.reason
    (0.722, '8 no match / 2 match')
    >>> found = topic_disagreement(PairsTopicReport(**fields, candidates=[c(2, 2), c(1, 2), c(0, 2), c(1, 1)]))
    >>> round(found.value, 3), found.reason
    (0.333, '1 of 3 candidates split; most: c12 (1 match / 1 no match)')
    """
    return label_disagreement(
        [c.id for c in report.candidates],
        [[c.matches, c.judged - c.matches] for c in report.candidates],
        ["match", "no match"],
        noun="candidates",
    )


def partial_disagreement(partial: PairsPartial, campaign: Campaign | None = None) -> Disagreement | None:
    """:func:`topic_disagreement` from the topic's partial (its votes), without its report.

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


def headline(report: PairsCampaignReport) -> Headline:
    """The figure the campaign's summary shows (``Reports.headline``)."""
    return Headline("Fleiss' kappa", report.fleiss.bootstrap)
