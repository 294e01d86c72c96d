"""Wide rating tables into a pairs campaign (``KindSpec.tables``; annotate/imports/ratings.py
reads them): a row per (query, candidate), a column per adjudicator, each cell a match label
(1/0, yes/no, true/false, match/no-match, or the value the organiser names as a match).
Topics are the file's queries; a query the campaign has must hold the candidate already."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from annotate.imports.ratings import WIDE, grouped_topics
from annotate.imports.read import MATCH_WORDS, NO_MATCH_WORDS
from concord.params import ParamsSchema, Str
from kinds.base import InvalidInput
from kinds.spec import RatingTables, TableScale, TableUnit

SCALE_FORM = ParamsSchema(
    Str(
        "positive",
        None,
        max_length=200,
        label="Value meaning a match",
        help="Only for labels other than 1/0, true/false, yes/no, match/no-match (e.g. before): every other "
        "value is then no match.",
    ),
)


def table_scale(
    params: Mapping[str, Any],
    values: Sequence[tuple[str, int]],
    corrected: Mapping[str, Any] | None,
    *,
    fixed: bool,
    anonymous: bool,
) -> TableScale:
    """Match or no match, read as a crowd table's labels are."""
    positive = (corrected or {}).get("positive")
    if positive is not None:
        text = f"match: {positive!r}; any other value: no match"
    else:
        text = f"match: {', '.join(sorted(MATCH_WORDS))}; no match: {', '.join(sorted(NO_MATCH_WORDS))} (any case)"

    def read(value: str, where: str) -> bool:
        value = value.strip()
        if positive is not None:
            return value == positive
        if value.lower() in MATCH_WORDS:
            return True
        if value.lower() in NO_MATCH_WORDS:
            return False
        raise InvalidInput(where, f"{value[:60]!r} is not a match label; say below which value means a match")

    return TableScale(dict(params), text, {"positive": positive}, read)


def topics(
    units: Sequence[TableUnit], params: Mapping[str, Any], existing: Mapping[str, Any]
) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """A query per topic id, its text the file's query (else its id), its candidates in order."""
    return grouped_topics(
        units,
        existing,
        units_key="candidates",
        unit_word="candidate",
        data=lambda topic, first, rows: {"query": first.texts.get("query") or topic, "candidates": rows},
        title=lambda topic, first: first.texts.get("query") or topic,
    )


TABLES = RatingTables(
    unit="candidate",
    topics=topics,
    payload=lambda values: {"matches": dict(values)},
    values=lambda payload: payload["matches"],
    scale=table_scale,
    texts=("query", "text"),
    shapes=(WIDE,),
    scale_form=SCALE_FORM,
    controls=True,
)
