"""Pair adjudication: the reports' types, the agreement of a vote matrix and a topic's report.

Arehart, Wolf & Miller, "Adjudicator Agreement and System Rankings for Person
Name Search": section 3.1 (overlap, p+, p-, kappa per pair of adjudicators;
base rates of acceptance, Figures 4 and 5), with Fleiss' kappa, Krippendorff's
alpha and Gwet's AC1 over every adjudicator and their bootstrap intervals.
The campaign report is the merge of per-topic partials (kinds/pairs/partials.py);
the truth sets of section 2.3, Table 1 are the gold standards of
kinds/pairs/exports.py; the system evaluation of sections 2.3-2.4 and 3.2 is
the analysis of kinds/pairs/analyses.py.

An *item* is one (topic, candidate) pair; a judgment's payload gives one
vote per candidate of its topic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from annotate.models import Topic
from concord.typed import Figure
from kinds.disagreement import label_disagreement
from kinds.spec import Disagreement, Headline
from scoring.selectors import JudgmentRow, ReportInput
from stats import labelmodels as lm
from stats.agreement import (
    category_counts,
    fleiss_kappa,
    krippendorff_alpha,
    largest,
    most_partnered,
    pair_matrix,
    pairwise_of_table,
    sparse_pair_confusions,
)
from stats.draws import ItemDraws
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
    too_few_pair_intervals,
)
from stats.plain import LANDIS_KOCH_HELP, Reading
from stats.ratings import SparseRatings
from stats.uncertainty import (
    fleiss_kappa_interval,
    fleiss_kappa_test,
    fleiss_kappa_units,
    krippendorff_alpha_units,
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
    #: every pair of assessors who share an item; ``pairs`` holds the :data:`~kinds.pairs.partials.LIVE_PAIRS` of
    #: them with the most shared items (None: a report stored before the cap, every pair)
    pair_count: int | None = None
    #: the assessors of ``kappa_matrix``, its rows in order: every assessor, or of a crowd the
    #: :data:`~kinds.pairs.partials.MATRIX_ASSESSORS` who share items with the most others
    matrix_names: list[str] = field(kw_only=True)


def agreement(v: Votes, settings: IntervalSettings | None = None) -> PairsAgreement:
    """Per pair, per assessor and campaign-wide agreement of a vote matrix."""
    return PairsAgreement(**_agreement(v, settings or IntervalSettings()))


#: Units of every pairs figure: the (topic, candidate) items.
UNIT = "items"


def _agreement(v: Votes, settings: IntervalSettings) -> dict[str, Any]:
    return agreement_of(SparseRatings.from_dense(v.matrix), v.assessors, settings)


def agreement_of(
    votes: SparseRatings,
    assessors: list[str],
    settings: IntervalSettings,
    keep: int | None = None,
    matrix: int | None = None,
) -> dict[str, Any]:
    """:func:`agreement`'s fields of items x assessors votes (1 match, 0 no match), held sparse.

    ``keep``: list only that many pairs (those with the most shared items; ties: the
    earlier pair) and add ``pair_count``, the number of pairs sharing an item. ``matrix``:
    the kappa matrix over at most that many assessors, those who share items with the most
    others (:func:`~stats.agreement.most_partnered`), named in ``matrix_names``; else over
    every assessor. Its kappas come from one product of the votes
    (:func:`~stats.agreement.sparse_pair_confusions`), equal to
    :func:`~stats.agreement.pairwise_agreement`'s pair by pair.

    Nothing here lays the votes out as items x assessors: the figures over every rater
    (Fleiss, alpha, AC1) read each item's votes packed left (:meth:`SparseRatings.packed`,
    the same counts per item), the per-assessor and per-pair figures each assessor's own
    items; a crowd of 100,000 items x 2,000 workers, 10 votes an item, costs its 1,000,000
    votes, not 200,000,000 cells."""
    raters = votes.per_item
    packed = votes.packed()
    # every interval: the seeded bootstrap over items, drawn once per set of items (stats/draws.py)
    draws = ItemDraws(votes, resamples=settings.resamples, seed=settings.seed, unit=UNIT, min_units=settings.min_units)
    every = sparse_pair_confusions(votes, 2)
    shared_items = every.confusion.sum(axis=(1, 2))
    listed = np.arange(len(shared_items)) if keep is None else largest(shared_items, keep)
    # every pair's 2x2 table (both match, first only, second only, neither) for the matrix
    all_tables = every.confusion[:, ::-1, ::-1].reshape(-1, 4)
    chosen = None if matrix is None else most_partnered(every.first, every.second, len(assessors), matrix)
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
        "kappa_matrix": kappa_matrix(len(assessors), every.first, every.second, all_tables, chosen),
        "fleiss": _fleiss(packed, raters, draws),
        "alpha": _alpha(votes, packed, raters, draws),
        "ac1": _ac1(packed, raters, draws),
    }
    if keep is not None:
        fields["pair_count"] = len(shared_items)
    if matrix is not None:
        fields["matrix_names"] = [assessors[k] for k in chosen.tolist()]
    return fields


def _ac1(packed: np.ndarray, raters: np.ndarray, draws: ItemDraws) -> FigureCI:
    """Gwet's AC1 over the judged items (both categories count), bootstrap over them."""
    rows = raters > 0
    if not rows.any():
        return no_ci(float("nan"), 0, UNIT)
    return draws.interval(rows, gwet_units(packed[rows], categories=[0.0, 1.0]))


def kappa_matrix(
    n: int, first: np.ndarray, second: np.ndarray, tables: np.ndarray, chosen: np.ndarray | None = None
) -> list[list[float | None]]:
    """Cohen's kappa of every pair (``first[p]``, ``second[p]``) of the ``n`` assessors as
    :func:`pairwise_agreement` computes it from the 2x2 table ``tables[p]`` (both match,
    first only, second only, neither: the same integers, one true division), as a matrix
    over the assessors ``chosen`` (:func:`~stats.agreement.pair_matrix`)."""
    tables = np.asarray(tables).reshape(-1, 4)
    both, first_only, second_only, neither = (tables[:, k] for k in range(4))
    numerator = 2 * (both * neither - first_only * second_only)
    denominator = (both + first_only) * (first_only + neither) + (both + second_only) * (second_only + neither)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappas = np.where(denominator != 0, numerator / denominator, np.nan)
    return pair_matrix(n, first, second, kappas, chosen)


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


def headline(report: PairsCampaignReport) -> Headline:
    """The figure the campaign's summary shows (``Reports.headline``): Fleiss' kappa, read on
    Landis & Koch's scale."""
    return Headline("Fleiss' kappa", report.fleiss.bootstrap, Reading("kappa", "kappa", LANDIS_KOCH_HELP))
