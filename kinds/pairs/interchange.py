"""Pairs in Label Studio JSON and doccano JSONL (docs/formats.md, "Label Studio and doccano").

One Label Studio task, or one doccano example, per (topic, candidate): the
data carry ``topic``, ``topic_title``, ``query``, ``candidate`` and the
candidate's ``text``; the annotation is a choice (Label Studio ``choices``
result from ``match`` to ``text``) or a doccano label: ``match`` or ``no match``.
"""

from __future__ import annotations

from annotate.imports import interchange as ix
from concord.errors import InvalidInput
from kinds.spec import Export

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


SHAPE = ix.UnitChoices(
    unit="candidate",
    units="candidates",
    payload="matches",
    choice_name="match",
    verb="labelled",
    query=lambda text: {"query": text("query")},
    query_of=lambda data: {"query": data["query"]},
    labels=lambda params: ix.Labels(read=_label, write=lambda match: MATCH if match else NO_MATCH),
)


read_labelstudio = SHAPE.reader(
    "labelstudio", "Label Studio JSON: a task per (topic, candidate), each annotator's choice match / no match."
)
read_doccano = SHAPE.reader(
    "doccano", "doccano: a zip of <username>.jsonl, an example per (topic, candidate) labelled match / no match."
)
export = SHAPE.export
