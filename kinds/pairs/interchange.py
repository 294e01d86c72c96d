"""Pairs in Label Studio JSON and doccano JSONL (docs/formats.md, "Label Studio and doccano").

One Label Studio task, or one doccano example, per (topic, candidate): the
data carry ``topic``, ``topic_title``, ``query``, ``candidate`` and the
candidate's ``text``; the annotation is a choice (Label Studio ``choices``
result from ``match`` to ``text``) or a doccano label: ``match`` or ``no match``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from annotate import interchange as ix
from annotate.importers import CrowdFile
from annotate.models import Campaign, Topic
from concord.errors import InvalidInput
from kinds.spec import Export
from scoring.selectors import JudgmentRow

MATCH, NO_MATCH = "match", "no match"
LABELS = {MATCH: True, NO_MATCH: False}
EXPORTS = {
    "labelstudio": Export("application/json", "labelstudio.json"),
    "doccano": Export("application/zip", "doccano.zip"),
}


def _label(value: str, where: str) -> bool:
    if value.strip().lower() not in LABELS:
        raise InvalidInput(where, f"expected {MATCH!r} or {NO_MATCH!r}, got {value!r}")
    return LABELS[value.strip().lower()]


class _Collector:
    """Topics rebuilt from the file's items and one judgment per (annotator, topic)."""

    def __init__(self) -> None:
        self.topics: dict[str, dict[str, Any]] = {}
        self.matches: dict[tuple[str, str], dict[str, bool]] = {}
        self.sources: dict[tuple[str, str], str] = {}

    def item(self, where: str, topic: str, title: str | None, query: str, candidate: str, text: str) -> None:
        entry = self.topics.setdefault(
            topic, {"external_id": topic, "title": title or topic, "data": {"query": query, "candidates": []}}
        )
        if entry["data"]["query"] != query:
            raise InvalidInput(where, f"topic {topic!r} has another query in an earlier item")
        known = {c["id"]: c["text"] for c in entry["data"]["candidates"]}
        if candidate not in known:
            entry["data"]["candidates"].append({"id": candidate, "text": text})

    def label(self, where: str, worker: str, topic: str, candidate: str, value: bool) -> None:
        answers = self.matches.setdefault((worker, topic), {})
        if candidate in answers:
            raise InvalidInput(where, f"{worker!r} labelled candidate {candidate!r} of topic {topic!r} twice")
        answers[candidate] = value
        self.sources.setdefault((worker, topic), f"{where} ({worker!r}, topic {topic!r})")

    def result(self) -> CrowdFile:
        keys = list(self.matches)
        return CrowdFile(
            topics=list(self.topics.values()),
            judgments=[{"assessor": w, "topic": t, "payload": {"matches": self.matches[(w, t)]}} for w, t in keys],
            sources=[self.sources[k] for k in keys],
        )


def read_labelstudio(raw: bytes | str, *, params: Any = None) -> CrowdFile:
    """Label Studio JSON: a task per (topic, candidate), each annotator's choice match / no match."""
    found = _Collector()
    for task in ix.read_labelstudio(raw):
        topic, candidate = ix.task_id(task, "topic"), ix.task_id(task, "candidate")
        found.item(
            task.where,
            topic,
            ix.task_text(task, "topic_title", required=False),
            ix.task_text(task, "query"),
            candidate,
            ix.task_text(task, "text"),
        )
        for annotation in task.annotations:
            where, value = ix.choice(annotation)
            found.label(annotation.where, annotation.worker, topic, candidate, _label(value, where))
    return found.result()


def read_doccano(raw: bytes | str, *, params: Any = None) -> CrowdFile:
    """doccano: a zip of <username>.jsonl, an example per (topic, candidate) labelled match / no match."""
    found = _Collector()
    for example in ix.read_doccano(raw):
        topic, candidate = ix.example_id(example, "topic"), ix.example_id(example, "candidate")
        found.item(
            example.where,
            topic,
            ix.example_text(example, "topic_title", required=False),
            ix.example_text(example, "query"),
            candidate,
            ix.example_text(example, "text"),
        )
        if example.labels:
            value = _label(ix.one_label(example), f"{example.where}: label")
            found.label(example.where, example.worker, topic, candidate, value)
    return found.result()


def _items(topics: Sequence[Topic]) -> list[tuple[Topic, dict[str, Any], dict[str, Any]]]:
    return [
        (
            topic,
            candidate,
            {
                "topic": topic.external_id,
                "topic_title": topic.title,
                "query": topic.data["query"],
                "candidate": candidate["id"],
                "text": candidate["text"],
            },
        )
        for topic in topics
        for candidate in topic.data["candidates"]
    ]


def export(campaign: Campaign, topics: Sequence[Topic], judgments: Sequence[JudgmentRow], *, format: str) -> Any:
    """Every assessor's submitted judgments as Label Studio JSON or doccano's zip."""
    by_topic: dict[int, list[JudgmentRow]] = {}
    for row in judgments:
        by_topic.setdefault(row.topic_id, []).append(row)
    items = _items(topics)
    if format == "labelstudio":
        return ix.write_labelstudio(
            (
                data,
                [
                    (
                        row.assessor,
                        [
                            ix.choices_result(
                                MATCH if row.payload["matches"][candidate["id"]] else NO_MATCH,
                                from_name="match",
                                to_name="text",
                            )
                        ],
                    )
                    for row in by_topic.get(topic.pk, [])
                    if candidate["id"] in row.payload.get("matches", {})
                ],
            )
            for topic, candidate, data in items
        )
    assessors = sorted({row.assessor for row in judgments})
    files: dict[str, list[dict[str, Any]]] = {name: [] for name in assessors}
    for number, (topic, candidate, data) in enumerate(items, start=1):
        given = {row.assessor: row.payload.get("matches", {}) for row in by_topic.get(topic.pk, [])}
        for name in assessors:
            matches = given.get(name, {})
            label = [] if candidate["id"] not in matches else [MATCH if matches[candidate["id"]] else NO_MATCH]
            files[name].append({"id": number, **data, "label": label})
    return ix.write_doccano(files)
