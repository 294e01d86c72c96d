"""Graded relevance in Label Studio JSON and doccano JSONL (docs/formats.md, "Label Studio and doccano").

One Label Studio task, or one doccano example, per (topic, document): the
data carry ``topic``, ``topic_title``, ``query`` (the topic's title field),
``description`` and ``narrative`` when the topic has them, ``document`` and the
document's ``text``; the annotation is a choice (Label Studio ``choices``
result from ``grade`` to ``text``) or a doccano label: the grade's label on the
campaign's scale (``params.scale``, TREC's by default).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from annotate.imports import interchange as ix
from concord.errors import InvalidInput
from kinds.relevance.data import scale_of
from kinds.spec import Export

EXPORTS = {
    "labelstudio": Export("application/json", "labelstudio.json"),
    "doccano": Export("application/zip", "doccano.zip"),
}
QUERY_FIELDS = ("description", "narrative")


def _query(text: Callable[..., str | None]) -> dict[str, str]:
    """The topic's query from an item: ``text(key, required=...)`` reads a field."""
    query = {"title": text("query")}
    for key in QUERY_FIELDS:
        value = text(key, required=False)
        if value is not None:
            query[key] = value
    return query


def _query_of(data: Mapping[str, Any]) -> dict[str, str]:
    return {"query": data["title"], **{k: data[k] for k in QUERY_FIELDS if k in data}}


def _labels(params: Any) -> ix.Labels:
    scale = scale_of(params)

    def grade(value: str, where: str) -> int:
        if value not in scale:
            raise InvalidInput(where, f"expected a grade of the campaign's scale ({', '.join(scale)}), got {value!r}")
        return scale.index(value)

    return ix.Labels(read=grade, write=lambda number: scale[number])


SHAPE = ix.UnitChoices(
    unit="document",
    units="documents",
    payload="grades",
    choice_name="grade",
    verb="graded",
    query=_query,
    query_of=_query_of,
    labels=_labels,
)


read_labelstudio = SHAPE.reader(
    "labelstudio",
    "Label Studio JSON: a task per (topic, document), each annotator's choice a grade of the campaign's scale.",
)
read_doccano = SHAPE.reader(
    "doccano",
    "doccano: a zip of <username>.jsonl, an example per (topic, document) labelled with a grade of the scale.",
)
export = SHAPE.export
