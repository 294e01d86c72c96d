"""Graded relevance: the reports' types, the assessors' agreement and a topic's report.

Voorhees (2000), "Variations in relevance judgments and the measurement of
retrieval effectiveness": the overlap of two assessors' relevant sets, beside
the agreement on the grades. The figures come from the metric library; this
module arranges the judgments for them:

* agreement: :func:`kinds.relevance.stats.pairwise_kappa` (Cohen's kappa
  unweighted, linear, quadratic), :func:`~kinds.relevance.stats.relevant_overlap`
  (Voorhees' overlap at the campaign's threshold),
  :func:`~kinds.relevance.stats.grade_alpha` (Krippendorff's alpha
  ordinal and interval), Gwet's AC2, with their bootstrap intervals.

The campaign report, with the systems evaluated under every qrels set, is the
merge of per-topic partials (kinds/relevance/partials.py); the downloads are
kinds/relevance/exports.py, the stability analysis kinds/relevance/analyses.py.

An *item* is one (topic, document) pair: one position of the flat document
axis of :mod:`kinds.relevance.stats`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Literal

import numpy as np

from annotate.models import Topic
from concord.typed import Figure
from kinds.disagreement import label_disagreement
from kinds.relevance import stats as m
from kinds.relevance.data import scale_of, threshold_of
from kinds.spec import Disagreement, Headline
from scoring.selectors import JudgmentRow, ReportInput
from stats import labelmodels as lm
from stats.gwet import agreement_weights, gwet_units
from stats.intervals import (
    FigureCI,
    IntervalSettings,
    RankingStability,
    interval_settings,
    no_ci,
    shared_unit_intervals,
)
from stats.plain import KRIPPENDORFF_HELP, Reading
from stats.uncertainty import cohen_kappa_units, krippendorff_alpha_units, mean_units, ratio_units


@dataclass(frozen=True)
class Grades:
    """The submitted grades over a flat (topic, document) axis."""

    items: list[tuple[str, str]]  # (topic external id, document id)
    topic_index: np.ndarray  # (N,)
    topics: list[str]
    assessors: list[str]
    matrix: np.ndarray  # (A, N): the grade, NaN where not graded

    @property
    def topic_ids(self) -> list[str]:
        return [topic for topic, _ in self.items]

    @property
    def document_ids(self) -> list[str]:
        return [document for _, document in self.items]


def grades(topics: Sequence[Topic], judgments: Sequence[JudgmentRow]) -> Grades:
    """The grade matrix of the submitted judgments, documents in topic order."""
    external = {t.pk: t.external_id for t in topics}
    index: dict[tuple[str, str], int] = {}
    topic_index = []
    for t, topic in enumerate(topics):
        for document in topic.data["documents"]:
            index[(topic.external_id, document["id"])] = len(index)
            topic_index.append(t)
    assessors = sorted({j.assessor for j in judgments})
    row = {name: a for a, name in enumerate(assessors)}
    matrix = np.full((len(assessors), len(index)), np.nan)
    for judgment in judgments:
        topic = external[judgment.topic_id]
        for document, grade in judgment.payload["grades"].items():
            matrix[row[judgment.assessor], index[(topic, document)]] = grade
    return Grades(list(index), np.array(topic_index, dtype=np.intp), [t.external_id for t in topics], assessors, matrix)


def levels(scale: Sequence[str], g: Grades) -> np.ndarray:
    """The grades the weights of kappa step over: the campaign's scale, widened
    to any grade stored before the scale was shortened."""
    top = int(np.nanmax(g.matrix)) if (~np.isnan(g.matrix)).any() else 0
    return np.arange(max(len(scale), top + 1), dtype=float)


# -- the reports' types (stored as JSON, read back field by field: concord/typed.py) --------


@dataclass(frozen=True)
class RelevanceAssessor:
    """One assessor's grades: documents graded, how many of them are relevant
    (grade >= the campaign's threshold), the mean grade, and how often each
    grade of the scale was given (``counts[k]``: grade ``k``)."""

    assessor: str
    judged: int
    relevant: int
    mean_grade: Figure
    counts: list[int]


@dataclass(frozen=True)
class RelevancePair:
    """Two assessors on the documents both graded: Cohen's kappa unweighted,
    linear and quadratic (Cohen 1960, 1968) over ``n`` documents, and
    Voorhees' (2000) overlap of their relevant sets (intersection over union),
    averaged over topics and pooled (summed ``intersection`` over summed ``union``)."""

    assessors: tuple[str, str]
    n: int
    kappa: Figure
    linear: Figure
    quadratic: Figure
    overlap: Figure
    overlap_pooled: Figure
    intersection: int
    union: int
    #: 95% bootstrap intervals: the kappas and the pooled overlap over the ``n`` shared
    #: documents, the mean overlap over the topics with a non-empty union (seed 0)
    kappa_ci: FigureCI
    linear_ci: FigureCI
    quadratic_ci: FigureCI
    overlap_ci: FigureCI
    overlap_pooled_ci: FigureCI
    #: Gwet's AC2 of the two with the report's ``ac2_weights`` (robust to a skewed grade distribution)
    ac2: FigureCI


@dataclass(frozen=True)
class RelevanceKappaMatrix:
    """assessors x assessors Cohen's kappa, one matrix per weighting (None where two never graded the same document)."""

    unweighted: list[list[Figure]]
    linear: list[list[Figure]]
    quadratic: list[list[Figure]]


@dataclass(frozen=True)
class RelevanceAlpha:
    """Krippendorff's alpha of the grades, ordinal and interval (Krippendorff
    2011), over the ``items`` graded by two or more of the ``coders``."""

    ordinal: Figure
    interval: Figure
    items: int
    coders: int
    #: 95% bootstrap over the ``items``
    ordinal_ci: FigureCI
    interval_ci: FigureCI


@dataclass(frozen=True)
class RelevanceGroupOverlap:
    """Voorhees' (2000) overlap of every assessor's relevant set at once
    (intersection of them all over their union), averaged over topics and pooled."""

    mean: Figure
    pooled: Figure
    #: 95% bootstrap of ``mean`` over the topics
    mean_ci: FigureCI
    #: 95% bootstrap of ``pooled`` over the topics (summed intersections over summed unions)
    pooled_ci: FigureCI


@dataclass(frozen=True)
class RelevanceAgreement:
    """Per assessor, per pair of assessors and campaign-wide agreement of the grades."""

    items: int
    items_judged: int
    #: the assessors, in the order of the kappa matrices' rows
    names: list[str]
    assessors: list[RelevanceAssessor]
    pairs: list[RelevancePair]
    kappa_matrix: RelevanceKappaMatrix
    alpha: RelevanceAlpha
    group_overlap: RelevanceGroupOverlap
    #: Gwet's AC2 of every assessor at once over the graded documents, 95% bootstrap over them
    ac2: FigureCI
    #: the agreement weights of every AC2 (Gwet 2014, ch. 3), on the grades 0, 1, ...
    ac2_weights: str

    def matrix_intervals(self, field: str) -> dict[tuple[str, str], FigureCI]:
        """The interval of every cell of a kappa matrix (the matrix CSV's low/high/units columns)."""
        name = {"kappa_matrix.unweighted": "kappa_ci", "kappa_matrix.linear": "linear_ci"}.get(
            field, "quadratic_ci" if field == "kappa_matrix.quadratic" else None
        )
        return {tuple(p.assessors): getattr(p, name) for p in self.pairs} if name else {}


@dataclass(frozen=True)
class RelevanceDocument:
    """One document of a topic: each assessor's grade (in ``names`` order,
    None where not graded) and the consensus (the lower median grade, Voorhees 2000)."""

    id: str
    #: the document's text (its start, for the table), shown beside the id
    text: str
    grades: list[int | None]
    consensus: int | None


@dataclass(frozen=True)
class RelevanceTopicReport(RelevanceAgreement):
    """A topic's agreement, the campaign's grade scale and relevance threshold, and its documents' grades."""

    scale: list[str]
    threshold: int
    documents: list[RelevanceDocument]


@dataclass(frozen=True)
class RelevanceSystem:
    """One system's mean of every measure under every qrels set: ``scores[qrels set][measure]``."""

    system: str
    scores: dict[str, dict[str, Figure]]


@dataclass(frozen=True)
class RelevanceSetPair:
    """Two qrels sets: Kendall's tau-b between the system rankings under
    them and the system pairs they order oppositely (swaps; Voorhees 2000)."""

    sets: tuple[str, str]
    tau: Figure
    swaps: int


@dataclass(frozen=True)
class RelevanceStability:
    """Ranking stability under one measure (Voorhees 2000): qrels sets x
    qrels sets Kendall's tau-b and swaps out of ``n_pairs`` system pairs,
    and the same per pair of sets."""

    measure: str
    qrels_sets: list[str]
    tau: list[list[Figure]]
    swaps: list[list[int]]
    n_pairs: int
    pairs: list[RelevanceSetPair]


@dataclass(frozen=True)
class RelevanceEvaluation:
    """The systems evaluated under every qrels set (Voorhees 2000; trec_eval's
    measures by ir-measures), the topics each set has grades for, and the
    stability of the system rankings."""

    qrels_sets: list[str]
    measures: list[str]
    threshold: int
    topics: dict[str, int]
    systems: list[RelevanceSystem]
    stability: list[RelevanceStability]


@dataclass(frozen=True)
class RelevanceCampaignReport(RelevanceAgreement):
    """The campaign: agreement over every document, and the systems under
    every qrels set (None until there are runs and grades)."""

    topics: int
    scale: list[str]
    threshold: int
    evaluation: RelevanceEvaluation | None
    runs: int
    #: the stability of the systems' ranking by nDCG@10 under the consensus qrels (bootstrap over topics), or None
    ranking: RankingStability | None
    #: each assessor's Dawid-Skene (1979) estimate: P(says k | true grade k) per grade of the scale
    reliability: list[lm.GradedReliability]
    kind: Literal["relevance"] = "relevance"


# -- agreement -------------------------------------------------------------------------------


def agreement(
    g: Grades, *, scale: Sequence[str], threshold: int, settings: IntervalSettings | None = None
) -> RelevanceAgreement:
    """Per assessor, per pair of assessors and campaign-wide agreement of the grades."""
    return RelevanceAgreement(**agreement_fields(g, scale=scale, threshold=threshold, settings=settings))


#: Units of the figures over documents (a pair's kappas, the alphas, AC2) and over topics (mean overlaps).
UNIT, TOPICS = "documents", "topics"
#: Gwet's AC2 weights: quadratic, as the quadratic kappa beside it.
AC2_WEIGHTS = "quadratic"


def _confusion_ac2(weights: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """Gwet's AC2 of two raters from their summed confusion cells (flattened q x q):
    p_a = sum w_kl p_kl, pi_k = (p_k. + p_.k) / 2, p_e = T_w / (q (q - 1)) sum pi_k (1 - pi_k)
    (Gwet 2008; the categories are the whole scale)."""
    q = len(weights)
    chance_factor = weights.sum() / (q * (q - 1))

    def statistic(sums: np.ndarray) -> np.ndarray:
        table = sums.reshape(*sums.shape[:-1], q, q)
        n = table.sum(axis=(-2, -1))
        with np.errstate(divide="ignore", invalid="ignore"):
            pa = np.sum(table * weights, axis=(-2, -1)) / n
            pi = (table.sum(axis=-1) + table.sum(axis=-2)) / (2 * n[..., np.newaxis])
            pe = chance_factor * np.sum(pi * (1 - pi), axis=-1)
            return np.where((n > 0) & (pe != 1), (pa - pe) / (1 - pe), np.nan)

    return statistic


def _pooled_overlap(relevant: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """|R_a & R_b| / |R_a | R_b| from summed confusion cells (``relevant``: the grades counted relevant)."""
    both = np.outer(relevant, relevant).ravel()
    either = np.logical_or.outer(relevant, relevant).ravel()

    def statistic(sums: np.ndarray) -> np.ndarray:
        union = sums @ either
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(union > 0, (sums @ both) / union, np.nan)

    return statistic


def _mean_of_present(sums: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sums[..., 1] > 0, sums[..., 0] / sums[..., 1], np.nan)


def pair_statistics(grade_levels: np.ndarray, threshold: int) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """A pair's figures with an interval, each a function of its summed confusion cells
    (q x q flattened, row: the first's grade; the levels are the grades 0 .. q - 1): the
    kappas, the pooled overlap and AC2 (the running sums' too: kinds/relevance/sums.py)."""
    statistics = {
        name: cohen_kappa_units(grade_levels, grade_levels, weights=weights, labels=grade_levels).statistic
        for name, weights in (("kappa", None), ("linear", "linear"), ("quadratic", "quadratic"))
    }
    statistics["overlap_pooled"] = _pooled_overlap(grade_levels >= threshold)
    statistics["ac2"] = _confusion_ac2(agreement_weights(grade_levels, AC2_WEIGHTS))
    return statistics


def _pair_intervals(
    g: Grades, grade_levels: np.ndarray, threshold: int, overlap: Any, pairs: list[tuple[int, int]], settings
) -> list[dict[str, FigureCI]]:
    """Every pair's kappas, pooled overlap and AC2 over its shared documents (one batched pass)
    and its mean overlap over topics (one pass for every pair)."""
    if not pairs:
        return []
    q = len(grade_levels)
    # the levels are the grades 0, 1, ..., q - 1 (:func:`levels`): a grade is its own cell index
    codes = np.where(np.isfinite(g.matrix), np.nan_to_num(g.matrix, nan=-1.0), -1.0).astype(np.int64)
    cells = []
    for a, b in pairs:
        shared = (codes[a] >= 0) & (codes[b] >= 0)
        cells.append(codes[a][shared] * q + codes[b][shared])
    # pairs sharing GROUPED_FROM documents or more: drawn as counts of their q x q table's cells
    found = settings.pair_intervals_at_scale(cells, q * q, pair_statistics(grade_levels, threshold), UNIT)
    per_topic = np.stack([overlap.per_topic[:, a, b] for a, b in pairs], axis=1)  # topics x pairs
    present = np.isfinite(per_topic)
    means = shared_unit_intervals(
        np.stack([np.where(present, per_topic, 0.0), present.astype(float)], axis=2),
        _mean_of_present,
        present.sum(axis=0),
        TOPICS,
        resamples=settings.resamples,
        seed=settings.seed,
        min_units=settings.min_units,
    )
    for result, mean in zip(found, means):
        result["overlap"] = mean
    return found


def agreement_fields(
    g: Grades, *, scale: Sequence[str], threshold: int, settings: IntervalSettings | None = None
) -> dict[str, Any]:
    """The fields of :class:`RelevanceAgreement` (shared by the topic and the campaign report)."""
    settings = settings or IntervalSettings()
    judged = ~np.isnan(g.matrix)
    grade_levels = levels(scale, g)
    none = no_ci(float("nan"), 0, UNIT)
    result: dict[str, Any] = {
        "items": len(g.items),
        "items_judged": int(judged.any(axis=0).sum()),
        "names": list(g.assessors),
        "assessors": [
            RelevanceAssessor(
                assessor=name,
                judged=int(judged[a].sum()),
                relevant=int((g.matrix[a][judged[a]] >= threshold).sum()),
                mean_grade=float(np.nanmean(g.matrix[a])) if judged[a].any() else float("nan"),
                counts=[int((g.matrix[a] == level).sum()) for level in grade_levels],
            )
            for a, name in enumerate(g.assessors)
        ],
        "pairs": [],
        "kappa_matrix": RelevanceKappaMatrix(unweighted=[], linear=[], quadratic=[]),
        "alpha": RelevanceAlpha(
            ordinal=float("nan"),
            interval=float("nan"),
            items=0,
            coders=int(judged.any(axis=1).sum()),
            ordinal_ci=none,
            interval_ci=none,
        ),
        "group_overlap": RelevanceGroupOverlap(
            mean=float("nan"),
            pooled=float("nan"),
            mean_ci=no_ci(np.nan, 0, TOPICS),
            pooled_ci=no_ci(np.nan, 0, TOPICS),
        ),
        "ac2": none,
        "ac2_weights": AC2_WEIGHTS,
    }
    if not g.assessors:
        return result
    kappa = m.pairwise_kappa(g.matrix, scale=grade_levels)
    overlap = m.relevant_overlap(g.matrix, g.topic_index, threshold=threshold, n_topics=len(g.topics))
    shared = [(a, b) for a, b in combinations(range(len(g.assessors)), 2) if kappa.n_common[a, b]]
    intervals = _pair_intervals(g, np.asarray(grade_levels, dtype=float), threshold, overlap, shared, settings)
    result["pairs"] = [
        RelevancePair(
            assessors=(g.assessors[a], g.assessors[b]),
            n=int(kappa.n_common[a, b]),
            kappa=float(kappa.unweighted[a, b]),
            linear=float(kappa.linear[a, b]),
            quadratic=float(kappa.quadratic[a, b]),
            overlap=float(overlap.mean[a, b]),
            overlap_pooled=float(overlap.pooled[a, b]),
            intersection=int(overlap.intersection[:, a, b].sum()),
            union=int(overlap.union[:, a, b].sum()),
            kappa_ci=ci["kappa"],
            linear_ci=ci["linear"],
            quadratic_ci=ci["quadratic"],
            overlap_ci=ci["overlap"],
            overlap_pooled_ci=ci["overlap_pooled"],
            ac2=ci["ac2"],
        )
        for (a, b), ci in zip(shared, intervals)
    ]
    result["kappa_matrix"] = RelevanceKappaMatrix(
        unweighted=kappa.unweighted.tolist(), linear=kappa.linear.tolist(), quadratic=kappa.quadratic.tolist()
    )
    pairable = judged.sum(axis=0) >= 2
    alpha = m.grade_alpha(g.matrix)
    result["alpha"] = RelevanceAlpha(
        ordinal=float(alpha.ordinal),
        interval=float(alpha.interval),
        items=int(pairable.sum()),
        coders=int(judged[:, pairable].any(axis=1).sum()),
        **{
            f"{level}_ci": settings.interval_at_scale(
                krippendorff_alpha_units(g.matrix[:, pairable], level=level), UNIT
            )
            if pairable.any()
            else none
            for level in ("ordinal", "interval")
        },
    )
    result["group_overlap"] = RelevanceGroupOverlap(
        mean=float(overlap.group_mean),
        pooled=float(overlap.group_pooled),
        mean_ci=settings.interval(mean_units(overlap.group_per_topic), TOPICS),
        pooled_ci=settings.interval(ratio_units(overlap.group_intersection, overlap.group_union), TOPICS),
    )
    rated = judged.any(axis=0)
    if rated.any():
        result["ac2"] = settings.interval_at_scale(
            gwet_units(g.matrix[:, rated].T, weights=AC2_WEIGHTS, categories=grade_levels), UNIT
        )
    return result


# -- a topic's report ----------------------------------------------------------------------------


def topic_report(input: ReportInput, topic: Topic) -> RelevanceTopicReport:
    judgments = input.judgments_of(topic)
    params = topic.campaign.params
    scale, threshold = scale_of(params), threshold_of(params)
    g = grades([topic], judgments)
    consensus = m.consensus_grades(g.matrix)
    texts = {d["id"]: d.get("title") or d.get("text", "") for d in topic.data.get("documents", [])}
    return RelevanceTopicReport(
        **agreement_fields(g, scale=scale, threshold=threshold, settings=interval_settings(params)),
        scale=scale,
        threshold=threshold,
        documents=[
            RelevanceDocument(
                id=document,
                text=texts.get(document, "")[:200],
                grades=[None if np.isnan(v) else int(v) for v in g.matrix[:, n]],
                consensus=None if np.isnan(consensus[n]) else int(consensus[n]),
            )
            for n, (_, document) in enumerate(g.items)
        ],
    )


# -- disagreement per topic (KindSpec Reports.disagreement) ---------------------------------


def topic_disagreement(report: RelevanceTopicReport) -> Disagreement | None:
    """Ordinal dissent: for each document graded twice or more, how far its grades spread on
    the scale (Tastle & Wierman 2007: 1 when half the grades are at each end, 0 when all are
    one grade; grades one step apart count less than grades at both ends), averaged over the
    topic's documents.

    >>> import dataclasses
    >>> d = lambda name, *grades: RelevanceDocument(name, "", list(grades), None)
    >>> fields = {f.name: None for f in dataclasses.fields(RelevanceAgreement)}
    >>> scale = ["non-relevant", "related", "relevant", "highly relevant"]
    >>> found = topic_disagreement(RelevanceTopicReport(**fields, scale=scale, threshold=1,
    ...     documents=[d("d1", 1, 1), d("d2", 0, 3), d("d3", 3, None)]))
    >>> found.value, found.reason
    (0.5, '1 of 2 documents split; most: d2 (1 × non-relevant / 1 × highly relevant)')
    >>> round(topic_disagreement(RelevanceTopicReport(**fields, scale=scale, threshold=1,
    ...     documents=[d("d1", 1, 2)])).value, 3)
    0.263
    """
    if not report.documents:
        return None
    grades = np.array([[-1 if g is None else g for g in d.grades] for d in report.documents], dtype=np.int64)
    return grade_disagreement([d.id for d in report.documents], grades, report.scale)


def grade_disagreement(documents: list[str], grades: np.ndarray, scale: list[str]) -> Disagreement | None:
    """Ordinal dissent of ``grades`` (documents x assessors, -1 not graded) on ``scale``."""
    width = max(len(scale), 2, int(grades.max(initial=-1)) + 1)
    labels = [scale[g] if g < len(scale) else str(g) for g in range(width)]
    counts = (grades[:, :, np.newaxis] == np.arange(width)).sum(axis=1)  # documents x grades
    return label_disagreement(documents, counts, labels, noun="documents", ordinal=True)


def headline(report: RelevanceCampaignReport) -> Headline:
    """The figure the campaign's summary shows (``Reports.headline``): Krippendorff's ordinal
    alpha, read against Krippendorff's standard."""
    return Headline(
        "Krippendorff's alpha (ordinal)", report.alpha.ordinal_ci, Reading("alpha", "alpha", KRIPPENDORFF_HELP)
    )
