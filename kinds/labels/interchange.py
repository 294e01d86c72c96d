"""Labels in Label Studio JSON and doccano JSONL (docs/formats.md, "Label Studio and doccano").

One Label Studio task, or one doccano example, per (topic, item): the data carry
``topic``, ``topic_title``, ``item`` and the item's ``text``; the annotation is a
choice (Label Studio ``choices`` result from ``label`` to ``text``) or a doccano
label: one of the campaign's categories, a number of its numeric scale, or
``can't tell`` where the campaign allows it.
"""

from __future__ import annotations

from typing import Any

from annotate.imports import interchange as ix
from concord.errors import InvalidInput
from kinds.labels.data import Scale, format_number
from kinds.spec import Export

#: How a file says "can't tell" (any case; a typographic apostrophe too).
CANT_TELL = ("can't tell", "cant tell", "can't say")
EXPORTS = {
    "labelstudio": Export("application/json", "labelstudio.json"),
    "doccano": Export("application/zip", "doccano.zip"),
}


def _labels(params: Any) -> ix.Labels:
    scale = Scale.of(params)

    def read(choice: str, where: str) -> Any:
        text = choice.strip()
        if text.lower().replace("\u2019", "'") in CANT_TELL:
            if not scale.cant_tell:
                raise InvalidInput(where, "this campaign does not allow \u201ccan\u2019t tell\u201d")
            return None
        if scale.numeric:
            try:
                return scale.value(scale.code(float(text)))
            except ValueError:
                raise InvalidInput(
                    where, f"expected a number of the scale ({', '.join(scale.labels)}), got {choice!r}"
                ) from None
        if text not in scale.values:
            raise InvalidInput(
                where, f"expected a category of the campaign ({', '.join(scale.labels)}), got {choice!r}"
            )
        return text

    def write(value: Any) -> str:
        if value is None:
            return "can't tell"
        return format_number(value) if scale.numeric else str(value)

    return ix.Labels(read=read, write=write)


SHAPE = ix.UnitChoices(
    unit="item",
    units="items",
    payload="labels",
    choice_name="label",
    verb="labelled",
    query=lambda text: {},
    query_of=lambda data: {},
    labels=_labels,
)

read_labelstudio = SHAPE.reader(
    "labelstudio", "Label Studio JSON: a task per (topic, item), each annotator's choice a label of the scale."
)
read_doccano = SHAPE.reader(
    "doccano", "doccano: a zip of <username>.jsonl, an example per (topic, item) labelled with a label of the scale."
)
export = SHAPE.export
