"""Wide and long rating tables into a graded relevance campaign (``KindSpec.tables``;
annotate/imports/ratings.py reads them): a row per (topic, document), a column per assessor,
each cell a grade of the campaign's scale, as its number (0 for the lowest) or its label.
Topics are the file's topics; a topic the campaign has must hold the document already."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from annotate.imports.ratings import LONG, WIDE, grouped_topics
from concord.digits import decimal_number
from kinds.base import InvalidInput
from kinds.relevance.data import scale_of
from kinds.spec import RatingTables, TableScale, TableUnit


def table_scale(
    params: Mapping[str, Any],
    values: Sequence[tuple[str, int]],
    corrected: Mapping[str, Any] | None,
    *,
    fixed: bool,
    anonymous: bool,
) -> TableScale:
    """The campaign's grades (``params.scale``, set when the campaign is created)."""
    labels = scale_of(params)
    text = "grades: " + ", ".join(f"{grade} {label}" for grade, label in enumerate(labels))

    def read(value: str, where: str) -> int:
        value = value.strip()
        if value in labels:
            return labels.index(value)
        number = decimal_number(value)
        if number is not None and number.is_integer() and 0 <= number < len(labels):
            return int(number)
        raise InvalidInput(
            where, f"{value[:60]!r} is not a grade of the campaign's scale (a number 0 to {len(labels) - 1}, or {text})"
        )

    return TableScale(dict(params), text, {}, read)


def topics(
    units: Sequence[TableUnit], params: Mapping[str, Any], existing: Mapping[str, Any]
) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """A query per topic id, titled by the file's title (else its id), its documents in order."""
    return grouped_topics(
        units,
        existing,
        units_key="documents",
        unit_word="document",
        data=lambda topic, first, rows: {"title": first.texts.get("title") or topic, "documents": rows},
        title=lambda topic, first: first.texts.get("title") or topic,
    )


TABLES = RatingTables(
    unit="document",
    topics=topics,
    payload=lambda values: {"grades": dict(values)},
    values=lambda payload: payload["grades"],
    scale=table_scale,
    texts=("title", "text"),
    shapes=(WIDE, LONG),
    controls=True,
)
