"""Orderings: the gold standards and other downloads (KindSpec ``Exports``).

The rank-based consensus of each topic's orderings (Kim, Zhai & Han, section
4.3), the adjudicated ordering where a topic has one, and every submitted
ordering, as JSON or CSV.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from annotate.models import Campaign, Topic
from annotate.selectors import curations_of
from concord.errors import InvalidInput
from kinds.ordering.report import consensus_order
from kinds.spec import Export, ExportFile
from scoring.csvfiles import write_csv
from scoring.selectors import JudgmentRow

EXPORTS = {"json": Export("application/json", "json"), "csv": Export("text/csv", "csv")}
EXPORT_HELP = (
    "consensus: each topic's rank-based consensus ordering (items by summed rank over the submitted orderings, "
    "ties as in the first ordering), with how many orderings it rests on. adjudicated: the adjudicated ordering "
    "where a topic has one, else the consensus, with its source (adjudicated / consensus), who adjudicated and "
    "when. judgments: every submitted ordering."
)


def truths(assessors: Sequence[str]) -> list[str]:
    return ["consensus", "adjudicated", "judgments"]


def describe_export(format: str, truth: str) -> ExportFile | None:
    """The consensus or adjudicated orderings (the gold), or every submitted ordering."""
    if format not in EXPORTS:
        return None
    return (
        ExportFile("judgments", "judgments", by_truth=False)
        if truth == "judgments"
        else ExportFile("ordering-gold", "gold")
    )


def export(
    campaign: Campaign, topics: Sequence[Topic], judgments: Sequence[JudgmentRow], *, format: str, truth: str
) -> str:
    """Consensus orderings (with how many orderings each rests on), the adjudicated
    ones (consensus where a topic has none, with the source), or every judgment."""
    if truth not in truths([]):
        raise InvalidInput("truth", f"unknown export {truth!r} (known: {', '.join(truths([]))})")
    external = {t.pk: t.external_id for t in topics}
    by_topic: dict[int, list[JudgmentRow]] = {}
    for row in judgments:
        by_topic.setdefault(row.topic_id, []).append(row)
    if truth == "adjudicated":
        rows = adjudicated_rows(topics, by_topic)
        if format == "json":
            return json.dumps(rows, indent=1)
        return write_csv(
            ["topic", "source", "adjudicated_by", "adjudicated_at", "orderings", "rank", "item"],
            (
                [r["topic"], r["source"], r["adjudicated_by"], r["adjudicated_at"], r["orderings"], rank, item]
                for r in rows
                for rank, item in enumerate(r["order"], 1)
            ),
        )
    if truth == "consensus":
        rows = [
            {
                "topic": external[t],
                "order": consensus_order([r.payload["order"] for r in rows]),
                "orderings": len(rows),
            }
            for t, rows in by_topic.items()
        ]
        if format == "json":
            return json.dumps(rows, indent=1)
        return write_csv(
            ["topic", "orderings", "rank", "item"],
            ([row["topic"], row["orderings"], rank, item] for row in rows for rank, item in enumerate(row["order"], 1)),
        )
    entries = [{"topic": external[r.topic_id], "assessor": r.assessor, "order": r.payload["order"]} for r in judgments]
    if format == "json":
        return json.dumps(entries, indent=1)
    return write_csv(
        ["topic", "assessor", "rank", "item"],
        ([e["topic"], e["assessor"], rank, item] for e in entries for rank, item in enumerate(e["order"], 1)),
    )


def adjudicated_rows(topics: Sequence[Topic], by_topic: Mapping[int, list[JudgmentRow]]) -> list[dict[str, Any]]:
    """Per topic, in topic order: the adjudicated ordering (the topic's ``consensus``
    curation) with who adjudicated and when, else the rank-based consensus of its
    submitted orderings (``source`` says which); topics with neither are left out."""
    rows = []
    # The one read of the database in the kind's exports: the writer gets the topics and
    # judgments (scoring.downloads), not the curations, and the adjudicated gold names who
    # saved it and when, which only the stored curation holds (one query for every topic).
    adjudicated = curations_of(list(topics), "consensus")
    for topic in topics:
        orders = [r.payload["order"] for r in by_topic.get(topic.pk, [])]
        gold = adjudicated.get(topic.pk)
        if gold is not None and gold.data.get("order"):
            rows.append(
                {
                    "topic": topic.external_id,
                    "source": "adjudicated",
                    "adjudicated_by": gold.updated_by.get_username() if gold.updated_by else "",
                    "adjudicated_at": gold.updated_at.isoformat(),
                    "orderings": len(orders),
                    "order": list(gold.data["order"]),
                }
            )
        elif orders:
            rows.append(
                {
                    "topic": topic.external_id,
                    "source": "consensus",
                    "adjudicated_by": "",
                    "adjudicated_at": "",
                    "orderings": len(orders),
                    "order": consensus_order(orders),
                }
            )
    return rows
