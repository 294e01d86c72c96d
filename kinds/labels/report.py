"""Labels: the reports' types, the agreement of a rating table and a topic's report.

Every agreement figure of a rating table (items x assessors, one label a cell,
on the campaign's scale), each with its 95% interval: percent agreement,
Brennan & Prediger's (1981) coefficient, Conger's (1980) and Fleiss' (1971)
kappa, Krippendorff's (2011) alpha at the scale's level, Gwet's (2008, 2014)
AC1 and AC2 with the campaign's weights (Gwet's "Handbook of Inter-Rater
Reliability", 4th ed., ch. 2-3 and 5); per label its specific agreement and
Fleiss' kappa (Fleiss 1971, eq. 9-11); per pair of assessors their confusion
matrix, percent agreement, Cohen's (1960) kappa and weighted kappa (Cohen
1968); on a numeric scale the six intraclass correlations (Shrout & Fleiss
1979; McGraw & Wong 1996); per assessor and per label how often each label was
given. The figures are the shared library's (stats.agreement, stats.gwet,
stats.ratingtables, stats.uncertainty); the
bootstrap over items counts their distinct rows of labels (stats.draws), and
nothing lays a crowd's table out as items x assessors (stats.ratings).

The campaign report is the merge of per-topic partials
(kinds/labels/partials.py); the gold standards and the labels' downloads are
kinds/labels/exports.py. An *item* is one (topic, item id) pair; its labels are
*codes*, positions on the campaign's scale (kinds.labels.data.Scale).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from annotate.models import Topic
from concord.typed import Figure
from kinds.disagreement import label_disagreement
from kinds.labels.data import Scale
from kinds.labels.judges import LabelsJudgeComparison, LabelsModelJudge
from kinds.labels.stats import pair_cells, pair_statistics
from kinds.spec import Disagreement, Headline
from scoring.selectors import JudgmentRow, ReportInput
from stats.agreement import (
    category_counts,
    fleiss_kappa,
    kappas_from_confusions,
    largest,
    most_partnered,
    pair_matrix,
    sparse_pair_confusions,
)
from stats.draws import ItemDraws
from stats.gwet import agreement_weights, gwet_units
from stats.intervals import (
    FigureCI,
    IntervalSettings,
    interval_settings,
    no_ci,
    too_few_pair_intervals,
)
from stats.plain import KRIPPENDORFF_HELP, Reading
from stats.ratings import SparseRatings
from stats.ratingtables import intraclass_correlations, rating_table_units
from stats.uncertainty import fleiss_kappa_units, krippendorff_alpha_units

#: Units of every labels figure: the (topic, item) pairs.
UNIT = "items"


@dataclass(frozen=True)
class Coded:
    """The labels of some topics' judgments: items in topic order, assessors by name,
    codes held sparse (can't tell is no rating), and each assessor's can't-tells."""

    items: list[tuple[str, str]]  # (topic external id, item id)
    assessors: list[str]
    ratings: SparseRatings
    cant_tell: list[int]


def coded(topics: Sequence[Topic], judgments: Sequence[JudgmentRow], scale: Scale) -> Coded:
    """The codes of the submitted judgments of ``topics``, items in topic order."""
    external = {t.pk: t.external_id for t in topics}
    index: dict[tuple[str, str], int] = {}
    for topic in topics:
        for item in topic.data["items"]:
            index[(topic.external_id, item["id"])] = len(index)
    assessors = sorted({j.assessor for j in judgments})
    column = {name: k for k, name in enumerate(assessors)}
    rows, columns, codes = [], [], []
    cant_tell = [0] * len(assessors)
    for judgment in judgments:
        topic = external[judgment.topic_id]
        for item, value in judgment.payload["labels"].items():
            place = index.get((topic, item))
            if place is None:
                continue  # an item the topic no longer has
            if value is None:
                cant_tell[column[judgment.assessor]] += 1
                continue
            try:
                code = scale.code(value)
            except ValueError:
                continue  # a label the scale no longer has: no rating
            rows.append(place)
            columns.append(column[judgment.assessor])
            codes.append(float(code))
    ratings = SparseRatings.from_entries(
        np.array(rows, np.int64),
        np.array(columns, np.int64),
        np.array(codes, np.float64),
        n_items=len(index),
        n_raters=len(assessors),
    )
    return Coded(list(index), assessors, ratings, cant_tell)


# -- the reports' types (stored as JSON, read back field by field: concord/typed.py) --------


@dataclass(frozen=True)
class LabelsScale:
    """The scale the figures were computed on: its level, its labels in order, the weights of
    the weighted figures (their name, ``custom`` for the organiser's own matrix, then in
    ``matrix``), and whether assessors may say "can't tell"."""

    level: str
    labels: list[str]
    weights: str
    cant_tell: bool
    matrix: list[list[float]] | None = None


@dataclass(frozen=True)
class LabelsAssessor:
    """One assessor's labels: items labelled, how often each label was given (``counts[k]``:
    the scale's ``k``-th label) and how often "can't tell"."""

    assessor: str
    judged: int
    counts: list[int]
    cant_tell: int


@dataclass(frozen=True)
class LabelsPair:
    """Two assessors on the ``n`` items both labelled: their confusion matrix (rows: the
    first's labels, columns: the second's, in the scale's order), percent agreement, Cohen's
    (1960) kappa and weighted kappa (Cohen 1968, the scale's weights), each with its 95%
    bootstrap interval over the shared items (none under the minimum of items)."""

    assessors: tuple[str, str]
    n: int
    confusion: list[list[int]]
    observed: FigureCI
    kappa: FigureCI
    weighted: FigureCI


@dataclass(frozen=True)
class LabelsFleiss:
    """Fleiss' (1971) kappa over the ``items`` that have the most common number of raters, ``raters``."""

    kappa: Figure
    items: int
    raters: int
    #: 95% percentile bootstrap over the ``items``
    ci: FigureCI


@dataclass(frozen=True)
class LabelsCategory:
    """One label of the scale: how often it was given, its share of every label, and on the
    items labelled twice or more its specific agreement (the chance that another assessor of
    an item said this label too, given one did) and Fleiss' (1971) kappa of the label, each
    with its 95% bootstrap interval over those items."""

    label: str
    count: int
    share: Figure
    specific: FigureCI
    kappa: FigureCI


@dataclass(frozen=True)
class LabelsIcc:
    """One of the six intraclass correlations of a numeric scale (Shrout & Fleiss 1979, named
    also as McGraw & Wong 1996 do), over the ``items`` every one of the ``raters`` labelled
    (the sources' complete table), with its F-based 95% interval and the F test of ICC = 0."""

    form: str
    mcgraw_wong: str
    model: str
    ci: FigureCI
    f: Figure
    p_value: Figure


@dataclass(frozen=True)
class LabelsIntraclass:
    """The intraclass correlations of a numeric scale's labels, and the labelled items left out
    of the complete table (those not labelled by every assessor of it)."""

    forms: list[LabelsIcc]
    items: int
    raters: int
    dropped_items: int


@dataclass(frozen=True)
class LabelsAgreement:
    """Per assessor, per pair of assessors and campaign-wide agreement of a rating table."""

    scale: LabelsScale
    items: int
    #: items labelled at least once, and at least twice (what the agreement figures are over)
    items_judged: int
    items_paired: int
    assessors: list[LabelsAssessor]
    pairs: list[LabelsPair]
    #: assessors x assessors Cohen's kappa (1 on the diagonal, None where two share no item)
    kappa_matrix: list[list[Figure]]
    fleiss: LabelsFleiss
    #: Krippendorff's alpha at the scale's level, over the items labelled twice or more
    alpha: FigureCI
    #: Gwet's AC1 (identity weights) and AC2 (the scale's weights) over every labelled item
    ac1: FigureCI
    ac2: FigureCI
    #: Gwet's percent agreement (unweighted), Brennan & Prediger's coefficient and Conger's
    #: kappa (the scale's weights), over every labelled item
    percent: FigureCI
    brennan_prediger: FigureCI
    conger: FigureCI
    categories: list[LabelsCategory]
    #: the intraclass correlations on a numeric scale (None on categories)
    intraclass: LabelsIntraclass | None

    @property
    def names(self) -> list[str]:
        return [a.assessor for a in self.assessors]

    def matrix_intervals(self, field: str) -> dict[tuple[str, str], FigureCI]:
        """The interval of every cell of the matrix ``field`` (the matrix CSV's low/high/units columns)."""
        return {tuple(p.assessors): p.kappa for p in self.pairs} if field == "kappa_matrix" else {}


@dataclass(frozen=True)
class LabelsItem:
    """One item of a topic: its text and how many assessors gave each label (the scale's order)."""

    id: str
    text: str
    counts: list[int]
    cant_tell: int


@dataclass(frozen=True)
class LabelsTopicReport(LabelsAgreement):
    """A topic's agreement and its items' labels."""

    rows: list[LabelsItem]


@dataclass(frozen=True)
class LabelsReliability:
    """One assessor's Dawid-Skene (1979) estimate: ``accuracy`` the expected share of their
    ``n_labels`` labels that equal the true label (the mean posterior of the label they gave),
    ``per_label[k]`` P(says k | the truth is k)."""

    assessor: str
    n_labels: int
    accuracy: Figure
    per_label: list[Figure]


@dataclass(frozen=True)
class LabelsReferenceRow:
    """Accuracy and Cohen's kappa of one assessor or truth set against a reference labelling,
    over the ``n`` items both label."""

    name: str
    n: int
    accuracy: Figure
    kappa: Figure


@dataclass(frozen=True)
class LabelsReference:
    """Every truth set's and every assessor's accuracy against a reference labelling (a run
    with ``"reference": true``, or the adjudicated gold), over its ``items``."""

    reference: str
    items: int
    truth_sets: list[LabelsReferenceRow]
    assessors: list[LabelsReferenceRow]


@dataclass(frozen=True)
class LabelsCampaignReport(LabelsAgreement):
    """The campaign: the agreement over every item, each assessor's Dawid-Skene reliability
    and the accuracy table against every reference labelling."""

    topics: int
    reliability: list[LabelsReliability]
    references: list[LabelsReference]
    kind: Literal["labels"] = "labels"
    #: every pair of assessors who share an item; ``pairs`` holds the
    #: :data:`~kinds.labels.partials.LIVE_PAIRS` of them with the most shared items
    pair_count: int | None = None
    #: the assessors of ``kappa_matrix``, its rows in order: every assessor, or of a crowd the
    #: :data:`~kinds.labels.partials.MATRIX_ASSESSORS` who share items with the most others
    matrix_names: list[str] = field(kw_only=True)
    #: each model judge against the people (kinds/labels/judges.py), and with two or more
    #: their ranking by average advantage probability
    model_judges: list[LabelsModelJudge] = field(default_factory=list)
    judge_comparison: LabelsJudgeComparison | None = None


def weight_values(scale: Scale) -> list[float]:
    """What the agreement weights measure distances on: a numeric scale's numbers, else the
    positions 1..q (Gwet 2014, ch. 3, as irrCAC)."""
    return scale.numbers if scale.numeric else [float(k) for k in range(1, len(scale.values) + 1)]


def scale_weights(scale: Scale) -> np.ndarray:
    """The q x q agreement weights of every weighted figure: the campaign's own matrix, or the
    named weighting's over :func:`weight_values` (identity on a scale of one label)."""
    if scale.matrix is not None:
        return np.asarray(scale.matrix, dtype=np.float64)
    q = len(scale.values)
    return agreement_weights(weight_values(scale), scale.weights) if q >= 2 else np.eye(q)


def agreement_of(
    ratings: SparseRatings,
    assessors: list[str],
    cant_tell: Sequence[int],
    scale: Scale,
    settings: IntervalSettings,
    keep: int | None = None,
    matrix: int | None = None,
) -> dict[str, Any]:
    """:class:`LabelsAgreement`'s fields of items x assessors codes, held sparse.

    ``keep``: list only that many pairs (those with the most shared items; ties: the earlier
    pair) and add ``pair_count``. ``matrix``: the kappa matrix over at most that many
    assessors, those who share items with the most others
    (:func:`~stats.agreement.most_partnered`), named in ``matrix_names``; else over every
    assessor. Its kappas come from one product of the labels
    (:func:`~stats.agreement.sparse_pair_confusions`). The figures over
    every rater read each item's labels packed left (:meth:`SparseRatings.packed`), the
    per-pair ones each assessor's own items: a crowd costs its labels, not items x assessors."""
    q = len(scale.values)
    codes = np.arange(q, dtype=np.float64)
    weights = scale_weights(scale)
    raters = ratings.per_item
    packed = ratings.packed()
    draws = ItemDraws(
        ratings, resamples=settings.resamples, seed=settings.seed, unit=UNIT, min_units=settings.min_units, n_values=q
    )
    every = sparse_pair_confusions(ratings, q)
    shared_items = every.confusion.sum(axis=(1, 2))
    listed = np.arange(len(shared_items)) if keep is None else largest(shared_items, keep)
    chosen = None if matrix is None else most_partnered(every.first, every.second, len(assessors), matrix)
    statistics = pair_statistics(weights)
    cells = []
    for p in listed.tolist():
        (items_i, codes_i), (items_j, codes_j) = ratings.rater(int(every.first[p])), ratings.rater(int(every.second[p]))
        _, at_i, at_j = np.intersect1d(items_i, items_j, assume_unique=True, return_indices=True)
        cells.append(pair_cells(codes_i[at_i], codes_j[at_j], q))
    if settings.min_units > 2:
        few = [p for p, c in enumerate(cells) if len(c) < settings.min_units]
    else:
        few = []
    intervals: dict[int, dict[str, FigureCI]] = {}
    if few:
        tables = np.stack([np.bincount(cells[p], minlength=q * q) for p in few]).astype(np.float64)
        intervals.update(zip(few, too_few_pair_intervals(tables, statistics, UNIT, draws.level)))
    rest = [p for p in range(len(cells)) if p not in set(few)]
    if rest:
        intervals.update(zip(rest, settings.pair_intervals_at_scale([cells[p] for p in rest], q * q, statistics, UNIT)))
    pairs = [
        LabelsPair(
            assessors=(assessors[int(every.first[p])], assessors[int(every.second[p])]),
            n=int(shared_items[p]),
            confusion=every.confusion[p].astype(int).tolist(),
            observed=intervals[k]["observed"],
            kappa=intervals[k]["kappa"],
            weighted=intervals[k]["weighted"],
        )
        for k, p in enumerate(listed.tolist())
    ]
    given = np.zeros((len(assessors), q), np.int64)
    np.add.at(given, (ratings.raters, ratings.values.astype(np.int64)), 1)
    total = int(given.sum())
    rated = raters > 0
    fields = {
        "scale": LabelsScale(scale.level, scale.labels, scale.weights, scale.cant_tell, scale.matrix),
        "items": ratings.n_items,
        "items_judged": int((raters > 0).sum()),
        "items_paired": int((raters > 1).sum()),
        "assessors": [
            LabelsAssessor(name, int(given[k].sum()), given[k].tolist(), int(cant_tell[k]))
            for k, name in enumerate(assessors)
        ],
        "pairs": pairs,
        "kappa_matrix": pair_matrix(
            len(assessors), every.first, every.second, kappas_from_confusions(every.confusion), chosen
        ),
        "fleiss": _fleiss(packed, raters, codes, draws),
        "alpha": _alpha(packed, raters, scale, draws),
        **_over_rated(ratings, packed, rated, codes, weights, draws),
        "categories": _categories(ratings, raters, scale, given.sum(axis=0), total, codes, draws),
        "intraclass": _intraclass(ratings, scale, settings) if scale.numeric else None,
    }
    if keep is not None:
        fields["pair_count"] = len(shared_items)
    if matrix is not None:
        fields["matrix_names"] = [assessors[k] for k in chosen.tolist()]
    return fields


def _over_rated(
    ratings: SparseRatings, packed: np.ndarray, rated: np.ndarray, codes: np.ndarray, weights: Any, draws: ItemDraws
) -> dict[str, FigureCI]:
    """Gwet's AC1 and AC2, percent agreement, Brennan-Prediger and Conger over the labelled
    items, bootstrap over them (one product of the draws for them all: stats.draws)."""
    if not rated.any():
        return {name: no_ci(float("nan"), 0, UNIT) for name in ("ac1", "ac2", "percent", "brennan_prediger", "conger")}
    units = {
        "ac1": gwet_units(packed[rated], weights="identity", categories=codes),
        "ac2": gwet_units(packed[rated], weights=weights, categories=codes),
        "percent": rating_table_units(ratings, "percent_agreement", categories=codes, weights="identity"),
        "brennan_prediger": rating_table_units(ratings, "brennan_prediger", categories=codes, weights=weights),
        "conger": rating_table_units(ratings, "conger", categories=codes, weights=weights),
    }
    return dict(zip(units, draws.intervals(rated, list(units.values()))))


def _categories(
    ratings: SparseRatings,
    raters: np.ndarray,
    scale: Scale,
    counts: np.ndarray,
    total: int,
    codes: np.ndarray,
    draws: ItemDraws,
) -> list[LabelsCategory]:
    """Each label's count and share, and its specific agreement and kappa on the items labelled
    twice or more, with their bootstrap intervals."""
    rated = raters > 0
    several = raters >= 2
    # the units' rows are the labelled items (zeros where labelled once), as the library bootstraps them;
    # every label's two figures from one product of the draws (stats.draws)
    if several.any():
        units = [
            rating_table_units(ratings, figure, categories=codes, category=k)
            for k in range(len(scale.labels))
            for figure in ("specific_agreement", "category_kappa")
        ]
        intervals = draws.intervals(rated, units)
    else:
        intervals = [no_ci(float("nan"), 0, UNIT)] * (2 * len(scale.labels))
    found = []
    for k, label in enumerate(scale.labels):
        n = int(counts[k])
        share = float(n / total) if total else float("nan")
        found.append(LabelsCategory(label, n, share, intervals[2 * k], intervals[2 * k + 1]))
    return found


def _intraclass(ratings: SparseRatings, scale: Scale, settings: IntervalSettings) -> LabelsIntraclass:
    """The six ICCs of the labels' numbers (the sources' complete table: the items every one of
    its raters labelled), with their F-based intervals: none over fewer items than the reports'
    minimum (``settings.analytic``), as every other figure's (docs/methods.md, "Too few units
    for an interval")."""
    numbers = np.asarray(scale.numbers)
    values = SparseRatings.from_entries(
        ratings.items,
        ratings.raters,
        numbers[ratings.values.astype(np.int64)],
        n_items=ratings.n_items,
        n_raters=ratings.n_raters,
    )
    found = intraclass_correlations(values)
    return LabelsIntraclass(
        forms=[
            LabelsIcc(
                form=icc.form,
                mcgraw_wong=icc.mcgraw_wong,
                model=icc.model,
                ci=settings.analytic(icc.interval(), UNIT),
                f=icc.f,
                p_value=icc.p_value,
            )
            for icc in found.forms
        ],
        items=found.items,
        raters=found.raters,
        dropped_items=found.dropped_items,
    )


def _fleiss(packed: np.ndarray, raters: np.ndarray, codes: np.ndarray, draws: ItemDraws) -> LabelsFleiss:
    """Fleiss' kappa over the items with the most common number of raters (>= 2): Fleiss
    (1971) needs the same number of raters on every item; ties go to the larger count."""
    counted = np.bincount(raters[raters >= 2]) if (raters >= 2).any() else np.zeros(0, int)
    if counted.size == 0:
        return LabelsFleiss(float("nan"), 0, 0, no_ci(float("nan"), 0, UNIT))
    m = int(len(counted) - 1 - np.argmax(counted[::-1]))
    table = category_counts(packed[raters == m], categories=codes)
    return LabelsFleiss(
        kappa=fleiss_kappa(table),
        items=int((raters == m).sum()),
        raters=m,
        ci=draws.interval(raters == m, fleiss_kappa_units(table)),
    )


def _alpha(packed: np.ndarray, raters: np.ndarray, scale: Scale, draws: ItemDraws) -> FigureCI:
    """Krippendorff's alpha at the scale's level over the items labelled twice or more."""
    return alphas(packed, raters, scale, draws, [scale.level])[0]


def alphas(
    packed: np.ndarray, raters: np.ndarray, scale: Scale, draws: ItemDraws, levels: Sequence[str]
) -> list[FigureCI]:
    """Krippendorff's alpha at each of ``levels`` over the items labelled twice or more, each
    with its bootstrap interval over them, drawn as the report draws its own (the draws' counts
    are shared: stats.draws): a level's figure is the same whichever others come with it. The labels are the scale's numbers on a numeric scale, else their positions (which the
    ordinal metric ranks as the scale orders them)."""
    pairable = raters >= 2
    if not pairable.any():
        return [no_ci(float("nan"), 0, UNIT) for _ in levels]
    values = packed[pairable]
    if scale.numeric:
        numbers = np.asarray(scale.numbers)
        values = np.where(np.isnan(values), np.nan, numbers[np.nan_to_num(values).astype(np.int64)])
    return [draws.interval(pairable, krippendorff_alpha_units(values.T, level=level)) for level in levels]


def topic_report(input: ReportInput, topic: Topic) -> LabelsTopicReport:
    scale = Scale.of(input.campaign.params)
    found = coded([topic], input.judgments_of(topic), scale)
    q = len(scale.values)
    counts = np.zeros((found.ratings.n_items, q), np.int64)
    np.add.at(counts, (found.ratings.items, found.ratings.values.astype(np.int64)), 1)
    nulls = _cant_tell_per_item(topic, input.judgments_of(topic))
    texts = {item["id"]: item.get("text", "") for item in topic.data.get("items", [])}
    return LabelsTopicReport(
        **agreement_of(
            found.ratings, found.assessors, found.cant_tell, scale, interval_settings(input.campaign.params)
        ),
        rows=[
            LabelsItem(id=item, text=texts.get(item, ""), counts=counts[k].tolist(), cant_tell=nulls.get(item, 0))
            for k, (_, item) in enumerate(found.items)
        ],
    )


def _cant_tell_per_item(topic: Topic, judgments: Sequence[JudgmentRow]) -> dict[str, int]:
    found: dict[str, int] = {}
    for judgment in judgments:
        for item, value in judgment.payload["labels"].items():
            if value is None:
                found[item] = found.get(item, 0) + 1
    return found


# -- disagreement per topic (KindSpec Reports.disagreement) ---------------------------------


def topic_disagreement(report: LabelsTopicReport) -> Disagreement | None:
    """How split each item labelled twice or more is, averaged over the topic's items (0:
    unanimous): on a nominal scale the vote entropy (1: the labels spread evenly over every
    category), on an ordered one Tastle & Wierman's dissention (1: half at each end of the
    scale; labels one step apart count less) (stats.dispute).

    >>> import dataclasses
    >>> fields = {f.name: None for f in dataclasses.fields(LabelsAgreement)}
    >>> scale = LabelsScale("nominal", ["cat", "dog"], "identity", False)
    >>> fields["scale"] = scale
    >>> topic_disagreement(LabelsTopicReport(**fields, rows=[LabelsItem("i1", "", [5, 5], 0)]))
    Disagreement(value=1.0, reason='5 cat / 5 dog')
    """
    return label_disagreement(
        [row.id for row in report.rows],
        [row.counts for row in report.rows],
        report.scale.labels,
        noun="items",
        ordinal=report.scale.level != "nominal",
    )


def headline(report: LabelsCampaignReport) -> Headline:
    """The figure the campaign's summary shows (``Reports.headline``): Krippendorff's alpha at
    the scale's level, which takes any number of assessors and missing labels."""
    return Headline(
        f"Krippendorff's alpha ({report.scale.level})", report.alpha, Reading("alpha", "alpha", KRIPPENDORFF_HELP)
    )
