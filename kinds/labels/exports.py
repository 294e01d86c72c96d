"""Labels downloads: the gold standard under each truth set, with its provenance.

``consensus``: the label most assessors gave an item (kinds.labels.stats.consensus;
no label on a tie); ``median``: on an ordered scale, the median label;
``single:<assessor>``: one assessor's labels; ``dawid-skene`` / ``mace`` / ``wawa``:
the most probable label under a model of the assessors (Dawid & Skene 1979; Hovy
et al. 2013, MACE; weighted majority), for any number of labels, Dawid-Skene and MACE
holding the control items' known answers fixed (stats.labelmodels.model_truth, ``known=``);
``adjudicated``: the topic's adjudicated gold where it has a label for the item,
else the consensus (``adjudicated:<truth>`` chooses another fallback). Each CSV
row carries the item's label counts and the provenance (source
adjudicated/model/vote, the model's posterior, who adjudicated when).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from annotate.models import Campaign, Control, Topic
from concord.errors import InvalidInput
from kinds.labels.data import Scale
from kinds.labels.report import Coded, coded
from kinds.labels.stats import consensus, median
from kinds.spec import Export, ExportFile
from scoring.csvfiles import write_csv
from scoring.selectors import JudgmentRow
from stats import labelmodels as lm

EXPORTS = {"csv": Export("text/csv", "csv")}
EXPORT_HELP = (
    "consensus: the label most assessors gave an item (none on a tie). median: on an ordered scale, the median "
    "label (the lower middle one on an even count). single:<assessor>: one assessor's labels. dawid-skene / mace / wawa: the most probable label under "
    "a model of the assessors (Dawid & Skene 1979; Hovy et al. 2013; weighted majority). adjudicated: the topic's "
    "adjudicated gold where it has a label for the item, else the consensus (adjudicated:<truth> chooses another "
    "fallback, e.g. adjudicated:dawid-skene). Each row carries the item's label counts and the provenance (source "
    "adjudicated/model/vote, the model's posterior of the label, who adjudicated when)."
)
#: The provenance columns every gold-standard CSV ends with.
PROVENANCE = ["source", "posterior", "adjudicated_by", "adjudicated_at"]


def truths(assessors: Sequence[str]) -> list[str]:
    """The vote truth sets (``median``: an ordered scale's), one per assessor, the model truth
    sets and the adjudicated gold."""
    return ["consensus", "median", *(f"single:{name}" for name in assessors), *lm.MODELS, lm.ADJUDICATED]


def describe_export(format: str, truth: str) -> ExportFile | None:
    return ExportFile("labels-gold", "gold") if format == "csv" else None


def check_truth(assessors: Sequence[str], truth: str) -> None:
    """400 naming ``truth`` unless the kind knows it."""
    known = truths(assessors)
    adjudicated, behind = lm.split_truth(truth)
    if adjudicated:
        lm.check_fallback(truth, behind, [t for t in known if t != lm.ADJUDICATED], lambda t: t in known)
        return
    if truth not in known:
        raise InvalidInput("truth", f"unknown truth set {truth!r} (known: {', '.join(known)}, adjudicated:<truth>)")


def known_answers(topics: Sequence[Topic], found: Coded, scale: Scale) -> dict[int, int]:
    """The control items' known answers as the truth models take them (item row -> code): the
    one read of them, by the topics' ids."""
    external = {t.pk: t.external_id for t in topics}
    answers = {
        (external[topic_id], item): answer
        for topic_id, item, answer in Control.objects.filter(topic_id__in=list(external)).values_list(
            "topic_id", "item", "answer"
        )
    }
    known = {}
    for row, key in enumerate(found.items):
        if key in answers:
            try:
                known[row] = int(scale.code(answers[key]))
            except (TypeError, ValueError):
                continue  # an answer off the scale (the scale changed since) pins nothing
    return known


def gold_standard(found: Coded, scale: Scale, truth: str, known: dict[int, int] | None = None) -> lm.Provenance:
    """The codes of ``truth`` per item (NaN: none), without the adjudicated labels (:func:`export` adds them);
    ``known``: the control items' known codes, which the truth models hold fixed."""
    _, behind = lm.split_truth(truth)
    q = len(scale.values)
    if behind in lm.MODELS:
        fit = lm.model_truth(found.ratings, behind, q, known=known)
        return lm.with_provenance(fit.labels, model=True, posterior=fit.posterior)
    if behind.startswith("single:"):
        k = found.assessors.index(behind.removeprefix("single:"))
        items, codes = found.ratings.rater(k)
        labels = np.full(found.ratings.n_items, np.nan)
        labels[items] = codes
        return lm.with_provenance(labels, model=False)
    if behind == "median":
        return lm.with_provenance(median(found.ratings.packed(), q), model=False)
    return lm.with_provenance(consensus(found.ratings.packed(), q), model=False)


def export(
    campaign: Campaign, topics: Sequence[Topic], judgments: Sequence[JudgmentRow], *, format: str, truth: str
) -> str:
    """The gold standard as CSV: one row per item with a label under ``truth``."""
    if format != "csv":
        raise InvalidInput("format", "expected csv")
    scale = Scale.of(campaign.params)
    found = coded(topics, judgments, scale)
    check_truth(found.assessors, truth)
    if lm.split_truth(truth)[1] == "median" and not scale.ordered:
        raise InvalidInput("truth", "median needs an ordered scale: this campaign's is nominal (use consensus)")
    known = known_answers(topics, found, scale) if lm.split_truth(truth)[1] in lm.MODELS else None
    gold = gold_standard(found, scale, truth, known)
    if lm.split_truth(truth)[0]:
        # The one read beyond the judgments the writer is given: who adjudicated each topic, when.
        by_external = {t.external_id: t.pk for t in topics}
        curated = lm.adjudications(campaign)

        def value(data, item):
            label = (data.get("labels") or {}).get(item)
            try:
                return None if label is None else float(scale.code(label))
            except (ValueError, TypeError):
                return None

        adjudicated = lm.curated_items([(by_external[t], i) for t, i in found.items], curated, value)
        gold = lm.with_provenance(
            gold.labels, model=lm.split_truth(truth)[1] in lm.MODELS, posterior=gold.posterior, adjudicated=adjudicated
        )
    q = len(scale.values)
    counts = np.zeros((found.ratings.n_items, q), np.int64)
    np.add.at(counts, (found.ratings.items, found.ratings.values.astype(np.int64)), 1)
    labels = gold.labels
    return write_csv(
        ["topic", "item", "truth", "label", *(f"n_{label}" for label in scale.labels), *PROVENANCE],
        (
            [
                topic,
                item,
                truth,
                scale.labels[int(labels[i])],
                *counts[i].tolist(),
                gold.source[i],
                "" if np.isnan(gold.posterior[i]) else float(gold.posterior[i]),
                gold.by[i],
                gold.at[i],
            ]
            for i, (topic, item) in enumerate(found.items)
            if not np.isnan(labels[i])
        ),
    )
