"""Graded relevance in Label Studio JSON and doccano JSONL (docs/formats.md, "Label Studio and doccano").

One Label Studio task, or one doccano example, per (topic, document): the
data carry ``topic``, ``topic_title``, ``query`` (the topic's title field),
``description`` and ``narrative`` when the topic has them, ``document`` and the
document's ``text``; the annotation is a choice (Label Studio ``choices``
result from ``grade`` to ``text``) or a doccano label: the grade's label on the
campaign's scale (``params.scale``, TREC's by default).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from annotate import interchange as ix
from annotate.importers import CrowdFile
from annotate.models import Campaign, Topic
from concord.errors import InvalidInput
from kinds.relevance.data import scale_of
from kinds.spec import Export
from scoring.selectors import JudgmentRow

EXPORTS = {
    "labelstudio": Export("application/json", "labelstudio.json"),
    "doccano": Export("application/zip", "doccano.zip"),
}
QUERY_FIELDS = ("description", "narrative")


class _Collector:
    def __init__(self, params: Any) -> None:
        self.scale = scale_of(params)
        self.topics: dict[str, dict[str, Any]] = {}
        self.grades: dict[tuple[str, str], dict[str, int]] = {}
        self.sources: dict[tuple[str, str], str] = {}

    def grade(self, value: str, where: str) -> int:
        if value not in self.scale:
            raise InvalidInput(
                where, f"expected a grade of the campaign's scale ({', '.join(self.scale)}), got {value!r}"
            )
        return self.scale.index(value)

    def item(self, where: str, topic: str, title: str | None, query: dict[str, str], document: str, text: str) -> None:
        entry = self.topics.setdefault(
            topic, {"external_id": topic, "title": title or topic, "data": {**query, "documents": []}}
        )
        if {k: v for k, v in entry["data"].items() if k != "documents"} != query:
            raise InvalidInput(where, f"topic {topic!r} has another query in an earlier item")
        if document not in {d["id"] for d in entry["data"]["documents"]}:
            entry["data"]["documents"].append({"id": document, "text": text})

    def label(self, where: str, worker: str, topic: str, document: str, grade: int) -> None:
        grades = self.grades.setdefault((worker, topic), {})
        if document in grades:
            raise InvalidInput(where, f"{worker!r} graded document {document!r} of topic {topic!r} twice")
        grades[document] = grade
        self.sources.setdefault((worker, topic), f"{where} ({worker!r}, topic {topic!r})")

    def result(self) -> CrowdFile:
        keys = list(self.grades)
        return CrowdFile(
            topics=list(self.topics.values()),
            judgments=[{"assessor": w, "topic": t, "payload": {"grades": self.grades[(w, t)]}} for w, t in keys],
            sources=[self.sources[k] for k in keys],
        )


def _query(text: Callable[..., str | None]) -> dict[str, str]:
    """The topic's query from an item: ``text(key, required=...)`` reads a field."""
    query = {"title": text("query")}
    for key in QUERY_FIELDS:
        value = text(key, required=False)
        if value is not None:
            query[key] = value
    return query


def read_labelstudio(raw: bytes | str, *, params: Any = None) -> CrowdFile:
    """Label Studio JSON: a task per (topic, document), each annotator's choice a grade of the campaign's scale."""
    found = _Collector(params)
    for task in ix.read_labelstudio(raw):
        topic, document = ix.task_id(task, "topic"), ix.task_id(task, "document")
        query = _query(partial(ix.task_text, task))
        found.item(
            task.where,
            topic,
            ix.task_text(task, "topic_title", required=False),
            query,
            document,
            ix.task_text(task, "text"),
        )
        for annotation in task.annotations:
            where, value = ix.choice(annotation)
            found.label(annotation.where, annotation.worker, topic, document, found.grade(value, where))
    return found.result()


def read_doccano(raw: bytes | str, *, params: Any = None) -> CrowdFile:
    """doccano: a zip of <username>.jsonl, an example per (topic, document) labelled with a grade of the scale."""
    found = _Collector(params)
    for example in ix.read_doccano(raw):
        topic, document = ix.example_id(example, "topic"), ix.example_id(example, "document")
        query = _query(partial(ix.example_text, example))
        found.item(
            example.where,
            topic,
            ix.example_text(example, "topic_title", required=False),
            query,
            document,
            ix.example_text(example, "text"),
        )
        if example.labels:
            grade = found.grade(ix.one_label(example), f"{example.where}: label")
            found.label(example.where, example.worker, topic, document, grade)
    return found.result()


def export(campaign: Campaign, topics: Sequence[Topic], judgments: Sequence[JudgmentRow], *, format: str) -> Any:
    """Every assessor's submitted grades as Label Studio JSON or doccano's zip."""
    scale = scale_of(campaign.params)
    by_topic: dict[int, list[JudgmentRow]] = {}
    for row in judgments:
        by_topic.setdefault(row.topic_id, []).append(row)
    items = []
    for topic in topics:
        query = {"query": topic.data["title"], **{k: topic.data[k] for k in QUERY_FIELDS if k in topic.data}}
        for document in topic.data["documents"]:
            data = {
                "topic": topic.external_id,
                "topic_title": topic.title,
                **query,
                "document": document["id"],
                "text": document["text"],
            }
            items.append((topic, document["id"], data))
    if format == "labelstudio":
        return ix.write_labelstudio(
            (
                data,
                [
                    (
                        row.assessor,
                        [ix.choices_result(scale[row.payload["grades"][doc]], from_name="grade", to_name="text")],
                    )
                    for row in by_topic.get(topic.pk, [])
                    if doc in row.payload.get("grades", {})
                ],
            )
            for topic, doc, data in items
        )
    assessors = sorted({row.assessor for row in judgments})
    files: dict[str, list[dict[str, Any]]] = {name: [] for name in assessors}
    for number, (topic, doc, data) in enumerate(items, start=1):
        given = {row.assessor: row.payload.get("grades", {}) for row in by_topic.get(topic.pk, [])}
        for name in assessors:
            grades = given.get(name, {})
            files[name].append({"id": number, **data, "label": [scale[grades[doc]]] if doc in grades else []})
    return ix.write_doccano(files)
