"""Relevance downloads: a truth set's graded qrels, its gold labels and the systems' scores under it.

Voorhees (2000), "Variations in relevance judgments and the measurement of
retrieval effectiveness": the qrels of each assessor and of the consensus
(the lower median grade), and every system evaluated under one of them
(trec_eval's measures by :func:`stats.ireval.evaluate`); beside them the
model truth sets and the adjudicated gold (stats/labelmodels.py), with each
document's provenance.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from annotate.models import Campaign, Topic
from concord.errors import InvalidInput
from concord.jsonready import json_ready
from kinds.relevance import stats as m
from kinds.relevance.data import scale_of, threshold_of
from kinds.relevance.partials import CUTOFF, qrels_sets, system_runs, vote_truths
from kinds.relevance.report import Grades, grades, levels
from kinds.spec import Export, ExportFile
from scoring.csvfiles import write_csv
from scoring.selectors import JudgmentRow
from stats import ireval
from stats import labelmodels as lm

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


# -- truth sets and gold standards ---------------------------------------------------------------


def truths(assessors: Sequence[str]) -> list[str]:
    """Every truth set on offer: the consensus, each assessor's, the model truth
    sets and the adjudicated gold (``adjudicated:<truth>``: another fallback)."""
    return [*vote_truths(assessors), *lm.MODELS, lm.ADJUDICATED]


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
    # Exports.write is given the campaign, its topics and judgments, not its runs: the scores read them here
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
