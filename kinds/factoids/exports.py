"""Factoid analysis: the gold standards and other downloads (KindSpec ``Exports``).

van Halteren & Teufel (factoid-analysis_van-halteren-teufel.txt): the
consensus inventory with each factoid's weight, the number of reference
summaries containing it (section 5); every annotator's inventory and marks;
the confirmed relations between inventories (identity, subsumption: section
3.2); every summary's weighted factoid score (section 5).

The writer reads the topics' curations itself (the consensus inventory, the
confirmed relations): ``Exports.write`` is given the campaign, its topics and
their judgments, not a ``ReportInput``, and the consensus file names who
adjudicated and when, which a ``ReportInput``'s curations (their data only)
do not carry.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict

from annotate.models import Campaign, Topic
from annotate.selectors import curation, curations_of
from concord.errors import InvalidInput
from kinds.factoids.report import scores
from kinds.spec import Export, ExportFile
from scoring.csvfiles import write_csv
from scoring.selectors import JudgmentRow

EXPORTS = {"json": Export("application/json", "json"), "csv": Export("text/csv", "csv")}
EXPORT_HELP = (
    "consensus: the consensus inventory with each factoid's weight (reference summaries containing it) and marks, "
    "and who adjudicated it when (adjudicated_by, adjudicated_at). "
    "annotations: every annotator's inventory and marks (Phase 2, the current ones). relations: the confirmed "
    "relations between annotators' inventories. wfs: every summary's weighted factoid score (column model: 1 for a reference summary, 0 for a machine one)."
)


def truths(assessors: Sequence[str]) -> list[str]:
    return ["consensus", "annotations", "relations", "wfs"]


#: What each export is (``Exports.describe``): the ``truth`` value names the file itself.
EXPORT_FILES = {
    "consensus": ExportFile("factoid-gold", "gold", by_truth=False),
    "annotations": ExportFile("judgments", "judgments", by_truth=False),
    "relations": ExportFile("relations", "scores", by_truth=False),
    "wfs": ExportFile("summary-scores", "scores", by_truth=False),
}


def describe_export(format: str, truth: str) -> ExportFile | None:
    return EXPORT_FILES.get(truth) if format in EXPORTS else None


def export(
    campaign: Campaign, topics: Sequence[Topic], judgments: Sequence[JudgmentRow], *, format: str, truth: str
) -> str:
    if truth not in truths([]):
        raise InvalidInput("truth", f"unknown export {truth!r} (known: {', '.join(truths([]))})")
    by_topic: dict[int, list[JudgmentRow]] = {}
    for row in judgments:
        by_topic.setdefault(row.topic_id, []).append(row)
    if truth == "consensus":
        rows = []
        adjudicated = curations_of(list(topics), "consensus")
        for topic in topics:
            data = adjudicated.get(topic.pk)
            result = scores(topic, data.data if data else None)
            if not result or data is None:
                continue
            provenance = {
                "adjudicated_by": data.updated_by.get_username() if data.updated_by else "",
                "adjudicated_at": data.updated_at.isoformat(),
            }
            for factoid in data.data["factoids"]:
                marked = [s for s, found in data.data["marks"].items() if factoid["id"] in found]
                rows.append(
                    {
                        "topic": topic.external_id,
                        "factoid": factoid["id"],
                        "text": factoid["text"],
                        "weight": result.weights[factoid["id"]],
                        "sentences": marked,
                        **provenance,
                    }
                )
        if format == "json":
            return json.dumps(rows, indent=1)
        return write_csv(
            ["topic", "factoid", "text", "weight", "sentences", "adjudicated_by", "adjudicated_at"],
            (
                [r["topic"], r["factoid"], r["text"], r["weight"], " ".join(r["sentences"])]
                + [r["adjudicated_by"], r["adjudicated_at"]]
                for r in rows
            ),
        )
    if truth == "annotations":
        rows = [
            {"topic": t.external_id, "annotator": r.assessor, **r.payload}
            for t in topics
            for r in by_topic.get(t.pk, [])
        ]
        if format == "json":
            return json.dumps(rows, indent=1)
        return write_csv(
            ["topic", "annotator", "factoid", "text", "sentences"],
            (
                [
                    r["topic"],
                    r["annotator"],
                    f["id"],
                    f["text"],
                    " ".join(s for s, found in r["marks"].items() if f["id"] in found),
                ]
                for r in rows
                for f in r["factoids"]
            ),
        )
    if truth == "relations":
        rows = []
        for topic in topics:
            data = curation(topic, "relations")
            for pair, relations in (data.data["pairs"] if data else {}).items():
                first, second = pair.split("|")
                for r in relations:
                    kind = "identity" if len(r["first"]) == len(r["second"]) == 1 else "subsumption"
                    rows.append(
                        {
                            "topic": topic.external_id,
                            "first_annotator": first,
                            "second_annotator": second,
                            "first": r["first"],
                            "second": r["second"],
                            "kind": kind,
                        }
                    )
        if format == "json":
            return json.dumps(rows, indent=1)
        return write_csv(
            ["topic", "first_annotator", "first", "second_annotator", "second", "kind"],
            (
                [
                    r["topic"],
                    r["first_annotator"],
                    " ".join(r["first"]),
                    r["second_annotator"],
                    " ".join(r["second"]),
                    r["kind"],
                ]
                for r in rows
            ),
        )
    consensus = {t.pk: curation(t, "consensus") for t in topics}
    scored = {t.pk: scores(t, consensus[t.pk].data if consensus[t.pk] else None) for t in topics}
    rows = [{"topic": t.external_id, **asdict(s)} for t in topics if scored[t.pk] for s in scored[t.pk].summaries]
    if format == "json":
        return json.dumps(rows, indent=1)
    return write_csv(
        ["topic", "summary", "source", "model", "wfs"],
        ([r["topic"], r["id"], r["source"], int(r["model"]), r["wfs"]] for r in rows),
    )
