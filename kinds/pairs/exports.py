"""Pairs downloads: the gold standards and the latest system evaluation's tables.

Arehart, Wolf & Miller, "Adjudicator Agreement and System Rankings for Person
Name Search": section 2.3, Table 1 (truth sets: Consensus, Union,
Intersection, Single, Random), as CSV with each item's votes and provenance
or as TREC qrels, beside the model truth sets and the adjudicated gold
(stats/labelmodels.py); and the statements and Table 2 of the latest finished
evaluation (section 3.2; kinds/pairs/analyses.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from annotate.models import Campaign, Control, Topic
from concord.digits import whole_number
from concord.errors import InvalidInput
from kinds.pairs.report import Votes, votes
from kinds.pairs.stats import consensus, intersection, random_truth_sets, single, union
from kinds.spec import Export, ExportFile
from scoring.csvfiles import write_csv
from scoring.models import Job
from scoring.selectors import JudgmentRow
from stats import labelmodels as lm

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


def gold_provenance(
    v: Votes, truth: str, adjudicated: Sequence[lm.Adjudicated | None] = (), known: dict[int, int] | None = None
) -> lm.Provenance:
    """The labels of ``truth`` with each item's source, the model's posterior
    and who adjudicated it when (``adjudicated``: per item, for the
    ``adjudicated`` truth sets; see :func:`adjudicated_items`); ``known``: the control
    items' known labels (item row -> 1 match, 0 no match), which the truth models hold fixed."""
    check_truth(v, truth)
    is_adjudicated, behind = lm.split_truth(truth)
    if behind in lm.MODELS:
        fit = lm.model_truth(v.matrix, behind, 2, known=known)
        labels, posterior, model = fit.labels, fit.posterior, True
    else:
        labels, posterior, model = gold_standard(v, behind), None, False
    return lm.with_provenance(
        labels, model=model, posterior=posterior, adjudicated=adjudicated if is_adjudicated else None
    )


def known_answers(v: Votes, topics: Sequence[Topic]) -> dict[int, int]:
    """The control items' known answers as the truth models take them (item row -> 1 match,
    0 no match): the one read of them, by the topics' ids."""
    external = {t.pk: t.external_id for t in topics}
    answers = {
        (external[topic_id], item): answer
        for topic_id, item, answer in Control.objects.filter(topic_id__in=list(external)).values_list(
            "topic_id", "item", "answer"
        )
    }
    return {row: int(answers[key]) for row, key in enumerate(v.items) if isinstance(answers.get(key), bool)}


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
    known = known_answers(v, topics) if lm.split_truth(truth)[1] in lm.MODELS else None
    gold = gold_provenance(v, truth, curated, known)
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


def evaluation_table(campaign: Campaign, table: str) -> str:
    """The latest finished evaluation's ``statements`` or ``comparisons`` (its Table 2) as CSV.

    The one export that reads a job: these tables are the evaluation analysis's result
    (kinds/pairs/analyses.py), not a function of the judgments the writer is given."""
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
