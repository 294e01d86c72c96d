"""The labels campaign report: per-topic partials and their merge (scoring/partials.py).

Every figure of the campaign report is a function of its items' rows of labels in
item order (the intervals bootstrap over the items), so the merge lays the
topics' rows end to end in topic order, held sparse; beside the agreement, each
assessor's Dawid-Skene (1979) reliability and every truth set's and assessor's
accuracy against each reference labelling (a run with ``"reference": true``, and
the adjudicated gold).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np

from annotate.models import Campaign, Run, Topic
from kinds.disagreement import label_disagreement
from kinds.labels.data import Scale
from kinds.labels.judges import LabelsJudgeComparison, LabelsModelJudge, alt_test_epsilon, model_judges
from kinds.labels.report import (
    LabelsCampaignReport,
    LabelsReference,
    LabelsReferenceRow,
    LabelsReliability,
    LabelsTopicReport,
    agreement_of,
    coded,
    scale_weights,
    topic_report,
)
from kinds.labels.stats import consensus
from kinds.spec import Disagreement
from scoring.partials import MergeInput, from_scratch
from scoring.selectors import ReportInput
from stats import labelmodels as lm
from stats.agreement import kappas_from_confusions
from stats.intervals import IntervalSettings, interval_settings
from stats.ratings import SparseRatings


@dataclass(frozen=True)
class LabelsPartial:
    """What the campaign report needs of one topic: its items' labels as codes on the
    scale, what the reference labellings and the adjudicated gold say of them, and each
    assessor's "can't tell"s, items in topic order."""

    #: the topic's items, their ids in order
    items: int
    item_ids: list[str]
    #: who submitted a judgment of the topic, sorted
    assessors: list[str]
    #: items x assessors, row by row: the label's code, NaN no label (or can't tell)
    codes: list[float]
    #: per assessor (``assessors``' order): their "can't tell"s in the topic
    cant_tell: list[int]
    #: the reference runs by name, and references x items, row by row: the reference's code (NaN none)
    references: list[str]
    reference_codes: list[float]
    #: per item the adjudicated gold's code (the topic's ``consensus`` curation; NaN none)
    adjudicated: list[float]
    #: the model judges who labelled the topic (kinds/labels/judges.py), sorted, and items x
    #: judges, row by row: their codes (NaN none); apart from ``assessors``' whether or not the
    #: campaign counts them with the people's too
    judges: list[str] = field(default_factory=list)
    judge_codes: list[float] = field(default_factory=list)
    #: per item the known answer's code where the item is a control (annotate.models.Control;
    #: NaN: not one); empty: the topic has no control
    controls: list[float] = field(default_factory=list)


def topic_partial(input: ReportInput, topic: Topic, report: LabelsTopicReport | None = None) -> LabelsPartial:
    """``topic``'s :class:`LabelsPartial`: reads its judgments, its curation and the runs' data for it only."""
    scale = Scale.of(input.campaign.params)
    found = coded([topic], input.judgments_of(topic), scale)
    ids = [item for _, item in found.items]
    matrix = np.full((len(ids), len(found.assessors)), np.nan)
    matrix[found.ratings.items, found.ratings.raters] = found.ratings.values
    references = reference_runs(input.runs)
    judged = coded([topic], input.judge_judgments_of(topic), scale)
    judge_matrix = np.full((len(ids), len(judged.assessors)), np.nan)
    judge_matrix[judged.ratings.items, judged.ratings.raters] = judged.ratings.values
    return LabelsPartial(
        items=len(ids),
        item_ids=ids,
        assessors=found.assessors,
        codes=matrix.ravel().tolist(),
        cant_tell=found.cant_tell,
        references=[run.name for run in references],
        reference_codes=[
            code
            for run in references
            for code in _codes(scale, (run.data.get("labels") or {}).get(topic.external_id), ids)
        ],
        adjudicated=_codes(scale, (input.curation(topic, "consensus") or {}).get("labels"), ids),
        judges=judged.assessors,
        judge_codes=judge_matrix.ravel().tolist(),
        controls=_codes(scale, known, ids) if (known := input.controls_of(topic)) else [],
    )


def _codes(scale: Scale, labels: Any, ids: Sequence[str]) -> list[float]:
    """Each item's code in ``labels`` (item id -> label): NaN for none, can't tell, or off the scale."""
    labels = labels if isinstance(labels, dict) else {}
    found = []
    for item in ids:
        value = labels.get(item)
        try:
            found.append(float(scale.code(value)) if value is not None else float("nan"))
        except (ValueError, TypeError):
            found.append(float("nan"))
    return found


#: The most pairs of assessors the campaign report lists with their figures and intervals, those
#: with the most shared items (a crowd of 200 workers has 19,900 pairs); a topic's report lists
#: all its pairs.
LIVE_PAIRS = 500
#: The most assessors the campaign report's kappa matrix covers, those who share items with the
#: most others (a crowd of 2,000 has a 4,000,000-cell matrix, of which the page draws 30 x 30);
#: every pair's confusion matrix stays in the running sums (kinds/labels/sums.py).
MATRIX_ASSESSORS = 200
#: The name of the adjudicated gold among a campaign's references.
ADJUDICATED_REFERENCE = "adjudicated gold"
#: The name of the control items' known answers among a campaign's references: the accuracy
#: table over the control items alone, apart from the other references.
CONTROLS_REFERENCE = "control items (known answers)"


def known_codes(partials: Sequence[LabelsPartial], n_items: int) -> np.ndarray:
    """Per item of the campaign (the partials end to end) the control's known code, NaN none."""
    codes = np.full(n_items, np.nan)
    start = 0
    for p in partials:
        if p.controls:
            codes[start : start + p.items] = p.controls
        start += p.items
    return codes


def pinned(codes: np.ndarray) -> dict[int, int]:
    """The known codes as the truth models' ``known=`` (item -> class)."""
    return {int(i): int(codes[i]) for i in np.flatnonzero(~np.isnan(codes))}


def reference_runs(runs: Sequence[Run]) -> list[Run]:
    """The reference labellings: runs whose data says ``"reference": true``, by name."""
    return sorted((r for r in runs if r.data.get("reference") is True), key=lambda r: r.name)


def merge(given: MergeInput, partials: Sequence[LabelsPartial]) -> LabelsCampaignReport:
    """The campaign report of every topic's partial, in topic order."""
    settings = interval_settings(given.campaign.params)
    scale = Scale.of(given.campaign.params)
    q = len(scale.values)
    ratings, assessors, cant_tell, references = _concatenate(partials, [run.name for run in reference_runs(given.runs)])
    controls = known_codes(partials, ratings.n_items)
    known = pinned(controls)
    if known:
        references.append((CONTROLS_REFERENCE, controls))
    # The control items' known answers held fixed in the truth models (lm.model_truth, known=).
    fit = lm.model_truth(ratings, "dawid-skene", q, known=known)
    models = (
        {
            model: (fit if model == "dawid-skene" else lm.model_truth(ratings, model, q, known=known)).labels
            for model in lm.MODELS
        }
        if references
        else {}
    )
    packed = ratings.packed()
    if references:
        models = {"majority vote": consensus(packed, q), **models}
    judged, comparison = _model_judges(given, partials, ratings, assessors, scale, settings)
    return LabelsCampaignReport(
        **agreement_of(ratings, assessors, cant_tell, scale, settings, keep=LIVE_PAIRS, matrix=MATRIX_ASSESSORS),
        topics=len(partials),
        reliability=reliability(ratings, assessors, fit, q),
        references=[
            reference_accuracy(name, reference, ratings, assessors, models, q) for name, reference in references
        ],
        model_judges=judged,
        judge_comparison=comparison,
    )


def _model_judges(
    given: MergeInput,
    partials: Sequence[LabelsPartial],
    ratings: SparseRatings,
    assessors: list[str],
    scale: Scale,
    settings: IntervalSettings,
) -> tuple[list[LabelsModelJudge], LabelsJudgeComparison | None]:
    """The model judges' section (kinds/labels/judges.py): their codes laid end to end in topic
    order beside the people's, the people being every assessor but the model judges."""
    names = sorted(set(chain.from_iterable(p.judges for p in partials)))
    if not names:
        return [], None
    row = {name: r for r, name in enumerate(names)}
    codes = np.full((len(names), ratings.n_items), np.nan)
    start = 0
    for p in partials:
        block = np.array(p.judge_codes, dtype=np.float64).reshape(p.items, len(p.judges))
        for k, name in enumerate(p.judges):
            codes[row[name], start : start + p.items] = block[:, k]
        start += p.items
    people = [k for k, name in enumerate(assessors) if name not in row]
    if len(people) < len(assessors):  # the campaign counts its model judges with the people's: not here
        column = np.full(len(assessors), -1)
        column[people] = np.arange(len(people))
        kept = column[ratings.raters] >= 0
        ratings = SparseRatings.from_entries(
            ratings.items[kept],
            column[ratings.raters[kept]],
            ratings.values[kept],
            n_items=ratings.n_items,
            n_raters=len(people),
        )
    weights = scale_weights(scale)
    epsilon = alt_test_epsilon(given.campaign.params)
    return model_judges(ratings, [assessors[k] for k in people], codes, names, scale, weights, settings, epsilon)


def campaign_report(input: ReportInput) -> LabelsCampaignReport:
    return from_scratch(input, topic=topic_report, partial=topic_partial, merge=merge)


def _concatenate(
    partials: Sequence[LabelsPartial], references: list[str]
) -> tuple[SparseRatings, list[str], list[int], list[tuple[str, np.ndarray]]]:
    """The partials as one campaign, vectorised: the codes held sparse (one entry per label,
    already in item and assessor order), each assessor's can't-tells, the references' codes."""
    sizes = np.fromiter((p.items for p in partials), np.int64, count=len(partials))
    first_item = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    n_items = int(sizes.sum())
    assessors = sorted(set(chain.from_iterable(p.assessors for p in partials)))
    column = {name: k for k, name in enumerate(assessors)}
    widths = np.fromiter((len(p.assessors) for p in partials), np.int64, count=len(partials))
    names = np.fromiter((column[n] for p in partials for n in p.assessors), np.int64, count=int(widths.sum()))
    counts = sizes * widths
    values = np.fromiter(chain.from_iterable(p.codes for p in partials), np.float64, count=int(counts.sum()))
    # the labels' places only: a crowd's topic has a column for each of its ~200 raters, each
    # item a label from 10 of them, so the cells are twenty times the labels
    given = np.flatnonzero(~np.isnan(values))
    cell_start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    topic = np.searchsorted(cell_start, given, side="right") - 1
    local = given - cell_start[topic]
    width = np.maximum(widths[topic], 1)
    name_start = np.concatenate([[0], np.cumsum(widths)[:-1]]).astype(np.int64)
    ratings = SparseRatings.from_entries(
        first_item[topic] + local // width,
        names[name_start[topic] + local % width],
        values[given],
        n_items=n_items,
        n_raters=len(assessors),
    )
    cant_tell = np.zeros(len(assessors), np.int64)
    np.add.at(cant_tell, names, np.fromiter(chain.from_iterable(p.cant_tell for p in partials), np.int64, len(names)))
    labels = np.full((len(references), n_items), np.nan)
    row = {name: r for r, name in enumerate(references)}
    for p, start in zip(partials, first_item.tolist()):
        block = np.array(p.reference_codes, dtype=np.float64).reshape(len(p.references), p.items)
        for r, name in enumerate(p.references):
            if name in row:
                labels[row[name], start : start + p.items] = block[r]
    found = [(name, labels[r]) for r, name in enumerate(references)]
    adjudicated = np.fromiter(chain.from_iterable(p.adjudicated for p in partials), np.float64, count=n_items)
    if not np.isnan(adjudicated).all():
        found.append((ADJUDICATED_REFERENCE, adjudicated))
    return ratings, assessors, cant_tell.tolist(), found


def reliability(
    ratings: SparseRatings, assessors: Sequence[str], fit: lm.ModelTruth, n_values: int
) -> list[LabelsReliability]:
    """Each assessor's Dawid-Skene accuracy (the mean posterior of the labels they gave) and
    the diagonal of their confusion matrix, read from the fit over the sparse labels."""
    if fit.fit is None:
        return [LabelsReliability(a, int(n), float("nan"), []) for a, n in zip(assessors, ratings.per_rater)]
    confusion = np.asarray(fit.fit.confusion, float)  # workers x true x given
    posteriors = np.asarray(fit.fit.posteriors, float)
    chosen = posteriors[ratings.items, ratings.values.astype(np.int64)]
    total = np.bincount(ratings.raters, weights=chosen, minlength=len(assessors))
    counts = ratings.per_rater
    return [
        LabelsReliability(
            assessor=name,
            n_labels=int(counts[w]),
            accuracy=float(total[w] / counts[w]) if counts[w] else float("nan"),
            per_label=[float(confusion[w, k, k]) if counts[w] else float("nan") for k in range(n_values)],
        )
        for w, name in enumerate(assessors)
    ]


def accuracy_kappa(predicted: np.ndarray, reference: np.ndarray, n_values: int) -> tuple[int, float, float]:
    """(n, accuracy, Cohen's kappa) of ``predicted`` codes against ``reference`` over the items
    both label (NaN: no label).

    >>> nan = float("nan")
    >>> n, accuracy, kappa = accuracy_kappa(np.array([0, 1, 2, nan]), np.array([0, 1, 1, 2]), 3)
    >>> n, round(accuracy, 4), round(kappa, 4)
    (3, 0.6667, 0.5)
    """
    both = ~np.isnan(predicted) & ~np.isnan(reference)
    n = int(both.sum())
    if n == 0:
        return 0, float("nan"), float("nan")
    table = np.zeros((1, n_values, n_values), np.int64)
    np.add.at(table[0], (predicted[both].astype(np.int64), reference[both].astype(np.int64)), 1)
    return n, float(np.trace(table[0]) / n), float(kappas_from_confusions(table)[0])


def reference_accuracy(
    name: str,
    reference: np.ndarray,
    ratings: SparseRatings,
    assessors: Sequence[str],
    models: dict[str, np.ndarray],
    n_values: int,
) -> LabelsReference:
    """The accuracy table of every truth set (``models``: name -> codes per item) and every
    assessor (on their own items) against ``reference`` (codes per item, NaN none)."""
    rows = []
    for k, assessor in enumerate(assessors):
        items, codes = ratings.rater(k)
        predicted = np.full(ratings.n_items, np.nan)
        predicted[items] = codes
        rows.append(LabelsReferenceRow(assessor, *accuracy_kappa(predicted, reference, n_values)))
    return LabelsReference(
        reference=name,
        items=int((~np.isnan(reference)).sum()),
        truth_sets=[
            LabelsReferenceRow(model, *accuracy_kappa(labels, reference, n_values)) for model, labels in models.items()
        ],
        assessors=rows,
    )


def partial_disagreement(partial: LabelsPartial, campaign: Campaign | None = None) -> Disagreement | None:
    """:func:`~kinds.labels.report.topic_disagreement` from the topic's partial (its codes), without its report.

    >>> nan = float("nan")
    >>> class C:
    ...     params = {"categories": ["cat", "dog"]}
    >>> found = partial_disagreement(LabelsPartial(2, ["i1", "i2"], ["a", "b"], [0, 1, 0, 0], [0, 0], [], [], [nan, nan]), C())
    >>> round(found.value, 3), found.reason
    (0.5, '1 of 2 items split; most: i1 (1 cat / 1 dog)')
    """
    scale = Scale.of(campaign.params if campaign is not None else None)
    q = len(scale.values)
    codes = np.array(partial.codes, dtype=np.float64).reshape(partial.items, len(partial.assessors))
    counts = np.zeros((partial.items, q), np.int64)
    given = ~np.isnan(codes)
    np.add.at(counts, (np.nonzero(given)[0], codes[given].astype(np.int64)), 1)
    return label_disagreement(partial.item_ids, counts, scale.labels, noun="items", ordinal=scale.ordered)
