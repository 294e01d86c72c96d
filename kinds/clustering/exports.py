"""Sentence clustering: the gold standards and other downloads (KindSpec ``Exports``).

Geiss, "Creating a Gold Standard for Sentence Clustering in Multi-Document
Summarization", section 4, has several judges cluster each sentence set and
keeps every judge's clusters. A topic's gold here is the consensus of its
judges (report.consensus: the sentences at least half of them put in one
cluster) or, where an adjudicator set one, the adjudicated clusters; every
judge's clusters are a download of their own.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from annotate.models import Campaign, Topic
from annotate.selectors import curations_of
from concord.errors import InvalidInput
from kinds.clustering.report import clusterings_of, consensus, sentence_ids
from kinds.spec import Export, ExportFile
from scoring.csvfiles import write_csv
from scoring.selectors import JudgmentRow

EXPORTS = {"json": Export("application/json", "json"), "csv": Export("text/csv", "csv")}
EXPORT_HELP = (
    "consensus: sentences that at least half of the judges put in one cluster form the consensus clusters "
    "(connected components of the co-association graph at that threshold); every sentence comes with how many "
    "judges clustered it and which. adjudicated: the adjudicated clusters (with their descriptions) where a topic "
    "has them, else the consensus, with the source (adjudicated / consensus), who adjudicated and when. judgments: "
    "every judge's clusters with their descriptions, in importance order."
)


def truths(assessors: Sequence[str]) -> list[str]:
    return ["consensus", "adjudicated", "judgments"]


def describe_export(format: str, truth: str) -> ExportFile | None:
    """The consensus or adjudicated clusters (the gold), or every judge's clusters."""
    if format not in EXPORTS:
        return None
    if truth == "judgments":
        return ExportFile("judgments", "judgments", by_truth=False)
    return ExportFile("clustering-gold", "gold")


def export(
    campaign: Campaign, topics: Sequence[Topic], judgments: Sequence[JudgmentRow], *, format: str, truth: str
) -> str:
    if truth not in truths([]):
        raise InvalidInput("truth", f"unknown export {truth!r} (known: {', '.join(truths([]))})")
    by_topic: dict[int, list[JudgmentRow]] = {}
    for row in judgments:
        by_topic.setdefault(row.topic_id, []).append(row)
    if truth == "adjudicated":
        rows = adjudicated_rows(topics, by_topic)
        if format == "json":
            return json.dumps(rows, indent=1)
        columns = ["topic", "source", "adjudicated_by", "adjudicated_at", "sentence", "cluster", "description"]
        columns += ["judges_clustered", "of_judges", "judges"]
        return write_csv(
            columns,
            ([" ".join(r[c]) if c == "judges" else "" if r[c] is None else r[c] for c in columns] for r in rows),
        )
    if truth == "judgments":
        entries = [
            {
                "topic": t.external_id,
                "assessor": r.assessor,
                "clusters": r.payload["clusters"],
                "descriptions": r.payload.get("descriptions", []),
            }
            for t in topics
            for r in by_topic.get(t.pk, [])
        ]
        if format == "json":
            return json.dumps(entries, indent=1)
        return write_csv(
            ["topic", "assessor", "cluster", "rank", "description", "sentence"],
            (
                [e["topic"], e["assessor"], i + 1, i + 1, (e["descriptions"] or [""] * len(e["clusters"]))[i], s]
                for e in entries
                for i, cluster in enumerate(e["clusters"])
                for s in cluster
            ),
        )
    rows = []
    for topic in topics:
        items = sentence_ids(topic)
        clusterings = clusterings_of(by_topic.get(topic.pk, []))
        gold = consensus(list(clusterings.values()), items)
        cluster_of = {s: i + 1 for i, c in enumerate(gold) for s in c}
        for s in items:
            by = [j for j, clusters in clusterings.items() if any(s in c for c in clusters)]
            rows.append(
                {
                    "topic": topic.external_id,
                    "sentence": s,
                    "cluster": cluster_of.get(s),
                    "judges_clustered": len(by),
                    "judges": by,
                    "of_judges": len(clusterings),
                }
            )
    if format == "json":
        return json.dumps(rows, indent=1)
    return write_csv(
        ["topic", "sentence", "cluster", "judges_clustered", "of_judges", "judges"],
        (
            [
                r["topic"],
                r["sentence"],
                r["cluster"] or "",
                r["judges_clustered"],
                r["of_judges"],
                " ".join(r["judges"]),
            ]
            for r in rows
        ),
    )


def adjudicated_rows(topics: Sequence[Topic], by_topic: dict[int, list[JudgmentRow]]) -> list[dict[str, Any]]:
    """Every sentence of every topic with its gold cluster: the adjudicated clusters
    (the topic's ``consensus`` curation, descriptions included) with who adjudicated
    and when, else the consensus of the judges (``source`` says which); with how many
    judges clustered the sentence and which, as in the consensus export."""
    # The one database read of the kind's exports: the writer is given the topics and
    # judgments (``Exports.write``), and the file names who adjudicated and when, which
    # a ReportInput's curations (their data only) do not carry; one query for every topic.
    adjudicated = curations_of(list(topics), "consensus")
    rows = []
    for topic in topics:
        items = sentence_ids(topic)
        clusterings = clusterings_of(by_topic.get(topic.pk, []))
        gold = adjudicated.get(topic.pk)
        if gold is not None:
            clusters, descriptions = gold.data["clusters"], gold.data.get("descriptions", [])
            source = {
                "source": "adjudicated",
                "adjudicated_by": gold.updated_by.get_username() if gold.updated_by else "",
                "adjudicated_at": gold.updated_at.isoformat(),
            }
        else:
            clusters = consensus(list(clusterings.values()), items)
            descriptions = []
            source = {"source": "consensus", "adjudicated_by": "", "adjudicated_at": ""}
        cluster_of = {s: i for i, c in enumerate(clusters) for s in c}
        for s in items:
            by = [j for j, judged in clusterings.items() if any(s in c for c in judged)]
            number = cluster_of.get(s)
            rows.append(
                {
                    "topic": topic.external_id,
                    **source,
                    "sentence": s,
                    "cluster": None if number is None else number + 1,
                    "description": descriptions[number] if number is not None and number < len(descriptions) else "",
                    "judges_clustered": len(by),
                    "judges": by,
                    "of_judges": len(clusterings),
                }
            )
    return rows
