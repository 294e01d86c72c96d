"""Orderings in Label Studio JSON (docs/formats.md, "Label Studio and doccano").

One Label Studio task per topic: ``data.items`` is the List tag's items
(``{"id", "title", "body"}``: the item's id, its id again as a title, its
text), with ``topic`` and ``topic_title``; each annotator's ``ranker`` result
(from ``rank`` to ``items``) is the ordering, best first. doccano classifies
and labels spans; it has no ranking, so orderings are not exported to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from annotate.imports import interchange as ix
from annotate.imports.read import CrowdFile
from annotate.models import Campaign, Topic
from concord.errors import InvalidInput
from kinds.base import require_id, type_name
from kinds.spec import Export
from scoring.selectors import JudgmentRow

EXPORTS = {"labelstudio": Export("application/json", "labelstudio.json")}


def _items(task: ix.Task) -> list[dict[str, str]]:
    items = task.data.get("items")
    where = f"{task.where}.data.items"
    if not isinstance(items, list) or not items:
        raise InvalidInput(where, "expected the List's items: a list of {id, body}")
    rows = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise InvalidInput(f"{where}[{index}]", f"expected an object, got {type_name(item)}")
        text = item.get("body", item.get("title"))
        if not isinstance(text, str):
            raise InvalidInput(f"{where}[{index}].body", "expected the item's text (a string)")
        rows.append({"id": require_id(item.get("id"), f"{where}[{index}].id"), "text": text})
    return rows


def read_labelstudio(raw: bytes | str, *, params: Any = None) -> CrowdFile:
    """Label Studio JSON: a task per topic with its items as a List, each annotator's Ranker result an ordering."""
    found = CrowdFile()
    seen: set[tuple[str, str]] = set()
    topics: set[str] = set()
    for task in ix.read_labelstudio(raw):
        topic = ix.task_id(task, "topic")
        if topic in topics:
            raise InvalidInput(f"{task.where}.data.topic", f"topic {topic!r} is in an earlier task too")
        topics.add(topic)
        title = ix.task_text(task, "topic_title", required=False)
        found.topics.append({"external_id": topic, "title": title or topic, "data": {"items": _items(task)}})
        for annotation in task.annotations:
            if (annotation.worker, topic) in seen:
                raise InvalidInput(annotation.where, f"a second annotation by {annotation.worker!r} of this task")
            seen.add((annotation.worker, topic))
            _, order = ix.ranking(annotation)
            found.judgments.append({"assessor": annotation.worker, "topic": topic, "payload": {"order": order}})
            found.sources.append(f"{annotation.where} ({annotation.worker!r}, topic {topic!r})")
    return found


def export(campaign: Campaign, topics: Sequence[Topic], judgments: Sequence[JudgmentRow], *, format: str) -> str:
    """Every assessor's submitted ordering as Label Studio JSON."""
    by_topic: dict[int, list[JudgmentRow]] = {}
    for row in judgments:
        by_topic.setdefault(row.topic_id, []).append(row)
    return ix.write_labelstudio(
        (
            {
                "topic": topic.external_id,
                "topic_title": topic.title,
                "items": [{"id": i["id"], "title": i["id"], "body": i["text"]} for i in topic.data["items"]],
            },
            [
                (row.assessor, [ix.ranker_result(row.payload["order"], from_name="rank", to_name="items")])
                for row in by_topic.get(topic.pk, [])
            ],
        )
        for topic in topics
    )
