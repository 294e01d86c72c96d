"""Graded relevance: assessor agreement, system evaluation under every qrels set, ranking stability.

Voorhees (2000), "Variations in relevance judgments and the measurement of
retrieval effectiveness": the overlap of two assessors' relevant sets, the
systems evaluated under each assessor's judgments and a consensus, and
Kendall's tau between the resulting system rankings (with swaps). The
figures come from the metric library and the IR evaluation adapter; this
module only arranges the judgments for them and their results for pages
and exports:

* agreement: :func:`kinds.relevance.stats.pairwise_kappa` (Cohen's kappa
  unweighted, linear, quadratic), :func:`~kinds.relevance.stats.relevant_overlap`
  (Voorhees' overlap at the campaign's threshold),
  :func:`~kinds.relevance.stats.grade_alpha` (Krippendorff's alpha
  ordinal and interval);
* qrels sets: ``single:<assessor>`` (one assessor's grades) and
  ``consensus`` (:func:`~kinds.relevance.stats.consensus_grades`, the
  lower median of the grades of a document);
* systems: :func:`stats.ireval.evaluate` (nDCG@10, P@10, MAP, bpref by
  ir-measures over pytrec_eval, trec_eval's conventions);
* stability: :func:`~kinds.relevance.stats.ranking_stability` (Kendall's
  tau-b between the system rankings under two qrels sets, and swaps).

An *item* is one (topic, document) pair: one position of the flat document
axis of :mod:`kinds.relevance.stats`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, combinations
from typing import Any, Literal

import numpy as np

from annotate.models import Campaign, Run, Topic
from concord.errors import InvalidInput
from concord.jsonready import json_ready
from concord.params import Int, ParamsSchema
from concord.typed import Figure, dump
from kinds.disagreement import label_disagreement
from kinds.relevance import stats as m
from kinds.relevance.data import scale_of, threshold_of
from kinds.spec import Disagreement, Export, ExportFile, Headline
from scoring.csvfiles import write_csv
from scoring.partials import MergeInput, from_scratch
from scoring.selectors import JudgmentRow, ReportInput
from stats import ireval
from stats import labelmodels as lm
from stats.gwet import agreement_weights, gwet_units
from stats.intervals import (
    FigureCI,
    IntervalSettings,
    RankingStability,
    interval_settings,
    no_ci,
    ranking_stability,
    shared_unit_intervals,
)
from stats.uncertainty import cohen_kappa_units, krippendorff_alpha_units, mean_units, ratio_units

EXPORTS = {
    "qrels": Export("text/plain", "qrels"),
    "csv": Export("text/csv", "csv"),
    "json": Export("application/json", "json"),
    "labels": Export("text/csv", "csv"),
}
EXPORT_HELP = (
    "Truth sets: consensus (each document's lower median grade over the assessors who graded it) or "
    "single:<assessor> (one assessor's grades), dawid-skene / mace / wawa (each document's most probable grade under a "
    "model of the assessors: Dawid & Skene 1979; Hovy et al. 2013; weighted majority), adjudicated (the topic's "
    "adjudicated grade where it has one, else the consensus; adjudicated:<truth> chooses another fallback). qrels: the graded qrels of that set, one line 'topic 0 document "
    "grade' (trec_eval reads it). csv / json: every system's nDCG@10, P@10, AP (its mean is MAP) and bpref under "
    "that set, per topic and over all topics (topic 'all'), as trec_eval computes them. labels: the gold standard as "
    "CSV, one row per graded document: its grade under the set, how many graded it and their grades, and the "
    "provenance (source adjudicated/model/vote, the model's posterior of the grade, who adjudicated when)."
)
#: What each format downloads, under any truth set (``Exports.describe``).
EXPORT_FILES = {
    "qrels": ExportFile("qrels", "gold"),
    "labels": ExportFile("relevance-gold", "gold"),
    "csv": ExportFile("system-scores", "scores"),
    "json": ExportFile("system-scores", "scores"),
}


def describe_export(format: str, truth: str) -> ExportFile | None:
    return EXPORT_FILES.get(format)


#: ireval's measure names -> the names the report shows.
LABELS = {"AP": "MAP", "Bpref": "bpref"}
CUTOFF = 10


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
    return RelevanceAgreement(**_agreement(g, scale=scale, threshold=threshold, settings=settings))


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
    statistics = {
        name: cohen_kappa_units(grade_levels, grade_levels, weights=weights, labels=grade_levels).statistic
        for name, weights in (("kappa", None), ("linear", "linear"), ("quadratic", "quadratic"))
    }
    statistics["overlap_pooled"] = _pooled_overlap(grade_levels >= threshold)
    statistics["ac2"] = _confusion_ac2(agreement_weights(grade_levels, AC2_WEIGHTS))
    # pairs sharing GROUPED_FROM documents or more: drawn as counts of their q x q table's cells
    found = settings.pair_intervals_at_scale(cells, q * q, statistics, UNIT)
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


def _agreement(
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


# -- qrels sets and system evaluation ----------------------------------------------------------


def vote_truths(assessors: Sequence[str]) -> list[str]:
    """The qrels sets the report evaluates the systems under: the consensus, then each assessor's own."""
    return ["consensus", *(f"single:{name}" for name in assessors)]


def truths(assessors: Sequence[str]) -> list[str]:
    """Every truth set on offer: the consensus, each assessor's, the model truth
    sets and the adjudicated gold (``adjudicated:<truth>``: another fallback)."""
    return [*vote_truths(assessors), *lm.MODELS, lm.ADJUDICATED]


def qrels_sets(g: Grades, *, min_assessors: int = 1) -> dict[str, ireval.Qrels]:
    """``{truth: {topic: {document: grade}}}`` for every truth set; a set with no grade is left out."""
    rows = np.vstack([m.consensus_grades(g.matrix, min_assessors=min_assessors)[np.newaxis, :], g.matrix])
    sets = ireval.qrels_from_grades(rows, g.topic_ids, g.document_ids, vote_truths(g.assessors))
    return {name: qrels for name, qrels in sets.items() if qrels}


def check_truth(g: Grades, truth: str) -> None:
    """400 naming ``truth`` unless it is one on offer (or ``adjudicated:<one of them>``)."""
    known = truths(g.assessors)
    adjudicated, behind = lm.split_truth(truth)
    if adjudicated:
        lm.check_fallback(truth, behind, known[:-1], lambda t: t in known)
    elif truth not in known:
        raise InvalidInput("truth", f"unknown truth set {truth!r} (known: {', '.join(known)}, adjudicated:<truth>)")


def gold_provenance(
    g: Grades, truth: str, n_grades: int, adjudicated: Sequence[lm.Adjudicated | None] = ()
) -> lm.Provenance:
    """Each document's grade under ``truth``, with its source, the model's posterior
    and who adjudicated it when (``adjudicated``: per document; see :func:`adjudicated_items`)."""
    check_truth(g, truth)
    is_adjudicated, behind = lm.split_truth(truth)
    if behind in lm.MODELS:
        fit = lm.model_truth(g.matrix.T, behind, n_grades)
        labels, posterior, model = fit.labels, fit.posterior, True
    elif behind == "consensus":
        labels, posterior, model = m.consensus_grades(g.matrix), None, False
    else:
        labels, posterior, model = g.matrix[g.assessors.index(behind.removeprefix("single:"))], None, False
    return lm.with_provenance(
        labels, model=model, posterior=posterior, adjudicated=adjudicated if is_adjudicated else None
    )


def adjudicated_items(g: Grades, topics: Sequence[Topic], curated: dict) -> list[lm.Adjudicated | None]:
    """Per document the grade of its topic's adjudicated gold (the ``consensus`` curation), or None."""
    by_external = {t.external_id: t.pk for t in topics}

    def value(data, document):
        grade = (data.get("grades") or {}).get(document)
        return None if isinstance(grade, bool) or not isinstance(grade, int) else float(grade)

    return lm.curated_items([(by_external[t], d) for t, d in g.items], curated, value)


def system_runs(runs: Sequence[Run]) -> dict[str, dict[str, list]]:
    """``{system: {topic: [[document, score], ...]}}`` of the runs, by name."""
    return {run.name: run.data["ranking"] for run in sorted(runs, key=lambda r: r.name) if "ranking" in run.data}


def evaluation(
    g: Grades, runs: Sequence[Run], *, threshold: int, cutoff: int = CUTOFF, min_assessors: int = 1
) -> ireval.Evaluation | None:
    """Every system under every qrels set (None: no runs or no grades yet)."""
    systems = system_runs(runs)
    sets = qrels_sets(g, min_assessors=min_assessors)
    if not systems or not sets:
        return None
    return ireval.evaluate(sets, systems, relevance_threshold=threshold, cutoff=cutoff)


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


def with_swapped_systems(summary: dict[str, Any], e: ireval.Evaluation) -> dict[str, Any]:
    """A stored evaluation summary (``dump`` of :class:`RelevanceEvaluation`) with each
    pair of qrels sets' swapped system pairs (``swapped``), as the stability analysis shows them."""
    for block, measure in zip(summary["stability"], e.measures):
        scores = e.scores(measure)
        for pair in block["pairs"]:
            a, b = (e.qrels_sets.index(name) for name in pair["sets"])
            pair["swapped"] = swapped_systems(scores[a], scores[b], e.systems)
    return summary


def swapped_systems(first: np.ndarray, second: np.ndarray, systems: Sequence[str]) -> list[list[str]]:
    """The system pairs the two score rows order oppositely (ties excluded), better-under-``first`` first."""
    sign = np.sign(first[:, np.newaxis] - first[np.newaxis, :]) * np.sign(second[:, np.newaxis] - second[np.newaxis, :])
    i, j = np.nonzero(np.triu(sign < 0, k=1))
    return [[systems[x], systems[y]] if first[x] > first[y] else [systems[y], systems[x]] for x, y in zip(i, j)]


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


def evaluation_summary(e: ireval.Evaluation | None) -> RelevanceEvaluation | None:
    if e is None:
        return None
    per_set_topics = (~np.isnan(e.per_topic[:, 0, :, 0])).sum(axis=1)
    return RelevanceEvaluation(
        qrels_sets=list(e.qrels_sets),
        measures=[label(measure) for measure in e.measures],
        threshold=int(e.relevance_threshold),
        topics={name: int(n) for name, n in zip(e.qrels_sets, per_set_topics)},
        systems=systems_table(e),
        stability=stability(e),
    )


# -- the live reports --------------------------------------------------------------------------


def topic_report(input: ReportInput, topic: Topic) -> RelevanceTopicReport:
    judgments = input.judgments_of(topic)
    params = topic.campaign.params
    scale, threshold = scale_of(params), threshold_of(params)
    g = grades([topic], judgments)
    consensus = m.consensus_grades(g.matrix)
    texts = {d["id"]: d.get("title") or d.get("text", "") for d in topic.data.get("documents", [])}
    return RelevanceTopicReport(
        **_agreement(g, scale=scale, threshold=threshold, settings=interval_settings(params)),
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


# -- incremental campaign report: per-topic partials and their merge (scoring/partials.py) ------

#: ireval's measure names at the report's cutoff, in its order.
MEASURES = (f"nDCG@{CUTOFF}", f"P@{CUTOFF}", "AP", "Bpref")


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
    """What :func:`evaluation` gives (every system under every qrels set) from the topics'
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
    # as ireval.evaluate: the mean over each set's own topics (NaN marks the others)
    in_set = ~np.isnan(per_topic)
    with np.errstate(divide="ignore", invalid="ignore"):
        means = np.where(in_set, per_topic, 0.0).sum(axis=2) / in_set.sum(axis=2)
    return ireval.Evaluation(
        tuple(sets),
        tuple(systems),
        tuple(input.topics[k].external_id for k in graded),
        MEASURES,
        means,
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
        **_agreement(g, scale=scale, threshold=threshold, settings=settings),
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


# -- analysis: ranking stability at any cutoff -----------------------------------------------------

#: Measured on the demo (8 topics, 4 assessors, 6 systems): about 0.05 s at
#: cutoff 10; time grows with qrels sets x systems x topics, little with the cutoff.
STABILITY_PARAMS = ParamsSchema(
    Int("cutoff", CUTOFF, min=1, max=1000, help="The depth of nDCG and P (nDCG@k, P@k)."),
    Int(
        "min_assessors",
        1,
        min=1,
        max=50,
        help="The consensus qrels keep only the documents graded by at least this many assessors.",
    ),
)


def stability_analysis(
    input: ReportInput, params: Mapping[str, Any], progress: Callable[[float, str], None]
) -> dict[str, Any]:
    """Systems under every qrels set and the Kendall's tau of every pair of their rankings, per measure, with the swapped pairs."""
    campaign = input.campaign
    topics = input.topics
    g = grades(topics, input.judgments)
    if not g.assessors:
        raise InvalidInput("campaign", "no submitted grades yet")
    runs = input.runs
    if len(system_runs(runs)) < 2:
        raise InvalidInput("campaign", "needs the ranked runs of at least two systems to compare their rankings")
    progress(0.1, "evaluating the systems under every qrels set")
    e = evaluation(
        g, runs, threshold=threshold_of(campaign.params), cutoff=params["cutoff"], min_assessors=params["min_assessors"]
    )
    if e is None or len(e.qrels_sets) < 2:
        raise InvalidInput("params.min_assessors", "fewer than two qrels sets have grades")
    progress(0.8, "ranking stability")
    summary = with_swapped_systems(dump(evaluation_summary(e)), e)
    return json_ready({"params": dict(params), "assessors": g.assessors, **summary})


# -- exports -----------------------------------------------------------------------------------------


def export(
    campaign: Campaign, topics: Sequence[Topic], judgments: Sequence[JudgmentRow], *, format: str, truth: str
) -> str:
    """Graded qrels of a truth set, or every system's scores under it (csv, json)."""
    g = grades(topics, judgments)
    check_truth(g, truth)
    if format not in EXPORTS:
        raise InvalidInput("format", f"expected one of {', '.join(EXPORTS)}")
    n_grades = len(levels(scale_of(campaign.params), g))
    curated = adjudicated_items(g, topics, lm.adjudications(campaign)) if lm.split_truth(truth)[0] else ()
    gold = gold_provenance(g, truth, n_grades, curated)
    if format == "labels":
        return labels_csv(g, truth, gold)
    sets = qrels_sets(g)
    if truth not in sets:
        found = ireval.qrels_from_grades(gold.labels[np.newaxis, :], g.topic_ids, g.document_ids, [truth])[truth]
        sets = {truth: found} if found else {}
    if format == "qrels":
        return ireval.format_qrels(sets.get(truth, {}))
    systems = system_runs(list(campaign.runs.all()))
    e = (
        ireval.evaluate(sets, systems, relevance_threshold=threshold_of(campaign.params), cutoff=CUTOFF)
        if systems and sets
        else None
    )
    if e is not None and truth not in e.qrels_sets:
        e = None
    # Per topic AP; its mean over the topics is MAP.
    columns = (
        [f"nDCG@{CUTOFF}", f"P@{CUTOFF}", "AP", "bpref"]
        if e is None
        else [measure.replace("Bpref", "bpref") for measure in e.measures]
    )
    rows = []  # (system, topic or None for the mean over topics, values)
    if e is not None:
        q = e.qrels_sets.index(truth)
        for s, system in enumerate(e.systems):
            rows.append((system, None, e.means[q, s].tolist()))
            rows += [
                (system, topic, e.per_topic[q, s, t].tolist())
                for t, topic in enumerate(e.topics)
                if not np.isnan(e.per_topic[q, s, t, 0])
            ]
    if format == "json":
        systems: dict[str, Any] = {}
        for system, topic, values in rows:
            entry = systems.setdefault(system, {"system": system, "means": None, "per_topic": {}})
            if topic is None:
                entry["means"] = dict(zip(columns, values))
            else:
                entry["per_topic"][topic] = dict(zip(columns, values))
        return json.dumps(
            json_ready({"truth": truth, "measures": columns, "systems": list(systems.values())}), indent=1
        )
    # trec_eval's convention: the mean over topics is the topic "all".
    return write_csv(
        ["system", "truth", "topic", *columns],
        ([system, truth, "all" if topic is None else topic, *values] for system, topic, values in rows),
    )


#: The provenance columns every gold-standard CSV ends with.
PROVENANCE = ["source", "posterior", "adjudicated_by", "adjudicated_at"]


def labels_csv(g: Grades, truth: str, gold: lm.Provenance) -> str:
    """The gold standard of ``truth``: one row per document with a grade, its
    votes (how many graded it, their grades in assessor order) and provenance."""
    judged = ~np.isnan(g.matrix)
    return write_csv(
        ["topic", "document", "truth", "grade", "judged", "grades", *PROVENANCE],
        (
            [
                topic,
                document,
                truth,
                int(gold.labels[n]),
                int(judged[:, n].sum()),
                " ".join(str(int(x)) for x in g.matrix[judged[:, n], n]),
                gold.source[n],
                "" if np.isnan(gold.posterior[n]) else float(gold.posterior[n]),
                gold.by[n],
                gold.at[n],
            ]
            for n, (topic, document) in enumerate(g.items)
            if not np.isnan(gold.labels[n])
        ),
    )


def stability_ready(facts) -> str | None:
    """Why the stability analysis cannot run yet (``Analysis.ready``), or None."""
    if not facts.judgments:
        return "no submitted grades yet"
    if facts.runs_with("ranking") < 2:
        return "needs the ranked runs of at least two systems to compare their rankings"
    return None


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
    return _grade_disagreement([d.id for d in report.documents], grades, report.scale)


def partial_disagreement(partial: RelevancePartial, campaign: Campaign) -> Disagreement | None:
    """:func:`topic_disagreement` from the topic's partial (its grades), without its report.

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
    return _grade_disagreement(partial.documents, grades, scale_of(campaign.params))


def _grade_disagreement(documents: list[str], grades: np.ndarray, scale: list[str]) -> Disagreement | None:
    """Ordinal dissent of ``grades`` (documents x assessors, -1 not graded) on ``scale``."""
    width = max(len(scale), 2, int(grades.max(initial=-1)) + 1)
    labels = [scale[g] if g < len(scale) else str(g) for g in range(width)]
    counts = (grades[:, :, np.newaxis] == np.arange(width)).sum(axis=1)  # documents x grades
    return label_disagreement(documents, counts, labels, noun="documents", ordinal=True)


def headline(report: RelevanceCampaignReport) -> Headline:
    """The figure the campaign's summary shows (``Reports.headline``)."""
    return Headline("Krippendorff's alpha (ordinal)", report.alpha.ordinal_ci)
