"""Nugget pyramids: the answer key, the runs' scores and the label truth sets (KindSpec ``Exports``).

The answer key is every question's pyramid (Lin & Demner-Fushman, section 4,
Table 5: vital votes, weight, original label), like TREC's nugget files; the
scores every run's F (Figure 1) on every question under each labelling and the
pyramid; the truth sets one vital/okay label per nugget, by majority, by a model
of the labellers (stats.labelmodels) or adjudicated, with its provenance.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict

import numpy as np

from annotate.models import Campaign, Control, Topic
from concord.errors import InvalidInput
from kinds.nuggets.report import Arrays, arrays, pyramids, scores
from kinds.spec import Export, ExportFile
from scoring.csvfiles import neutralise, write_csv
from scoring.selectors import JudgmentRow
from stats import labelmodels as lm

EXPORTS = {
    "tsv": Export("text/tab-separated-values", "txt"),
    "json": Export("application/json", "json"),
    "csv": Export("text/csv", "csv"),
}
EXPORT_HELP = (
    "answer-key: every question's nuggets with their vital votes, pyramid weight and original label (tsv: "
    "topic, nugget id, original label (none when there is none), votes, weight, text, like TREC nugget files; or json). scores: every run's F "
    "on every question under the original labels, each assessor's labels and the pyramid (csv or json). Label truth "
    "sets, one row per nugget with its vital votes out of the labellings and its provenance (source "
    "adjudicated/model/vote, the model's posterior of the label, who adjudicated when), csv or json: consensus "
    "(vital when at least half of the labellings, the original one included, say vital), dawid-skene / mace / "
    "wawa (the most probable label under a model of the labellers: Dawid & Skene 1979; Hovy et al. 2013; weighted "
    "majority), adjudicated (the question's adjudicated label where it has one, else the consensus; "
    "adjudicated:<truth> chooses another fallback)."
)


#: The label truth sets (vital / okay per nugget), beside the answer key and the scores.
LABEL_TRUTHS = ["consensus", *lm.MODELS, lm.ADJUDICATED]


def truths(assessors: Sequence[str]) -> list[str]:
    return ["answer-key", "scores", *LABEL_TRUTHS]


def describe_export(format: str, truth: str) -> ExportFile | None:
    """The answer key (tsv, json, csv), every run's F (csv, json) or a truth set's nugget labels (csv, json)."""
    if truth == "answer-key":
        return ExportFile("answer-key", "gold", by_truth=False) if format in EXPORTS else None
    if format not in ("csv", "json"):
        return None
    return (
        ExportFile("run-scores", "scores", by_truth=False) if truth == "scores" else ExportFile("nugget-gold", "gold")
    )


def check_truth(truth: str) -> None:
    """400 naming ``truth`` unless it is on offer (or ``adjudicated:<label truth set>``)."""
    adjudicated, behind = lm.split_truth(truth)
    if adjudicated:
        lm.check_fallback(truth, behind, LABEL_TRUTHS[:-1], lambda t: t in LABEL_TRUTHS)
    elif truth not in truths([]):
        raise InvalidInput("truth", f"unknown export {truth!r} (known: {', '.join(truths([]))}, adjudicated:<truth>)")


def gold_provenance(
    a: Arrays, truth: str, adjudicated: Sequence[lm.Adjudicated | None] = (), known: dict[int, int] | None = None
) -> lm.Provenance:
    """1 vital / 0 okay per nugget under ``truth`` with its provenance (``adjudicated``:
    per nugget, see :func:`adjudicated_items`); ``known``: the control nuggets' known labels
    (nugget row -> 1 vital, 0 okay), which the truth models hold fixed (:func:`known_answers`)."""
    check_truth(truth)
    is_adjudicated, behind = lm.split_truth(truth)
    votes = a.labels.T
    if behind in lm.MODELS:
        fit = lm.model_truth(votes, behind, 2, known=known)
        labels, posterior, model = fit.labels, fit.posterior, True
    else:
        labels, posterior, model = lm.majority_variants(votes, draws=0)["ties as match"], None, False
    return lm.with_provenance(
        labels, model=model, posterior=posterior, adjudicated=adjudicated if is_adjudicated else None
    )


def known_answers(a: Arrays) -> dict[int, int]:
    """The control nuggets' known labels as the truth models take them (nugget row -> 1 vital,
    0 okay; annotate.models.Control): one read, by the exported topics' ids. As Ipeirotis,
    Provost & Wang's "Get Another Label" does with gold items, Dawid-Skene and MACE then hold
    them fixed (stats.labelmodels.model_truth, ``known=``)."""
    answers = {
        (topic_id, item): answer
        for topic_id, item, answer in Control.objects.filter(topic_id__in=[t.pk for t in a.topics]).values_list(
            "topic_id", "item", "answer"
        )
    }
    found = {}
    for row, (q, nugget) in enumerate(zip(a.question_index, a.nugget_ids)):
        label = answers.get((a.topics[q].pk, nugget))
        if label in ("vital", "okay"):
            found[row] = int(label == "vital")
    return found


def adjudicated_items(a: Arrays, curated: dict) -> list[lm.Adjudicated | None]:
    """Per nugget the label of its question's adjudicated gold (the ``consensus`` curation), or None."""

    def value(data, nugget):
        label = (data.get("labels") or {}).get(nugget)
        return {"vital": 1.0, "okay": 0.0}.get(label) if isinstance(label, str) else None

    return lm.curated_items([(a.topics[q].pk, n) for q, n in zip(a.question_index, a.nugget_ids)], curated, value)


#: The provenance columns every gold-standard CSV ends with.
PROVENANCE = ["source", "posterior", "adjudicated_by", "adjudicated_at"]


def labels_export(campaign: Campaign, a: Arrays, *, format: str, truth: str) -> str:
    if format not in ("csv", "json"):
        raise InvalidInput("format", "label truth sets come as csv or json")
    curated = adjudicated_items(a, lm.adjudications(campaign)) if lm.split_truth(truth)[0] else ()
    known = known_answers(a) if lm.split_truth(truth)[1] in lm.MODELS else None
    gold = gold_provenance(a, truth, curated, known)
    labelled = (~np.isnan(a.labels)).sum(axis=0)
    columns = ["topic", "nugget", "truth", "label", "vital", "labelled", *PROVENANCE]
    rows = [
        [
            a.topics[q].external_id,
            nugget,
            truth,
            "vital" if gold.labels[n] == 1 else "okay",
            int(np.nansum(a.labels[:, n])) if len(a.labels) else 0,
            int(labelled[n]) if len(a.labels) else 0,
            gold.source[n],
            None if np.isnan(gold.posterior[n]) else float(gold.posterior[n]),
            gold.by[n],
            gold.at[n],
        ]
        for n, (q, nugget) in enumerate(zip(a.question_index, a.nugget_ids))
        if not np.isnan(gold.labels[n])
    ]
    if format == "json":
        return json.dumps([dict(zip(columns, row)) for row in rows], indent=1)
    return write_csv(columns, ([("" if v is None else v) for v in row] for row in rows))


def export(
    campaign: Campaign, topics: Sequence[Topic], judgments: Sequence[JudgmentRow], *, format: str, truth: str
) -> str:
    check_truth(truth)
    # The writer is given the topics and judgments (scoring.downloads), not the runs the
    # scores and the runs' own matches come from, nor the adjudicated gold: the kind's
    # exports read those two from the database (the runs here, lm.adjudications in
    # labels_export), one query each.
    runs = list(campaign.runs.all())
    a = arrays(topics, judgments, runs)
    if truth not in ("answer-key", "scores"):
        return labels_export(campaign, a, format=format, truth=truth)
    if truth == "answer-key":
        questions = pyramids(a, [t.data["nuggets"] for t in a.topics])
        rows = [{"topic": t.external_id, **asdict(row)} for t, question in zip(a.topics, questions) for row in question]
        if format == "json":
            return json.dumps(rows, indent=1)
        if format == "tsv":
            return "".join(
                f"{neutralise(r['topic'])}\t{neutralise(r['id'])}\t{r['original'] or 'none'}\t{r['votes']}\t{r['weight']:.6f}\t"
                f"{neutralise(' '.join(r['text'].split()))}\n"
                for r in rows
            )
        return write_csv(
            ["topic", "nugget", "original", "votes", "weight", "text"],
            ([r["topic"], r["id"], r["original"] or "", r["votes"], r["weight"], r["text"]] for r in rows),
        )
    answered = a.answered()
    rows = [
        {"run": run, "topic": t.external_id, "model": model, "f": float(f[r, q])}
        for model, f in scores(answered).items()
        for r, run in enumerate(answered.runs)
        for q, t in enumerate(answered.topics)
    ]
    if format == "json":
        return json.dumps(rows, indent=1)
    if format == "tsv":
        raise InvalidInput("format", "scores come as csv or json")
    return write_csv(["run", "topic", "model", "f"], ([r["run"], r["topic"], r["model"], r["f"]] for r in rows))
