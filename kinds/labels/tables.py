"""Rating tables into a labels campaign (``KindSpec.tables``; annotate/imports/ratings.py reads
the files): items become topics in batches of the campaign's ``batch``, and the scale is the
one the file's labels show, as the organiser corrects it on the preview.

The scale found: numbers (every label a decimal number) are an ``interval`` scale from the
smallest to the largest in their common step (0, 1, 2, 3: steps of 1), or ordered categories
sorted as numbers where that step would make more than ``MAX_NUMERIC_VALUES`` values; any
other labels are ``nominal`` categories in the order they first appear; a label "can't tell"
(any case) is read as such. The campaign's own scale is kept where it reads every label.
While the campaign has judgments its scale stays, and a file's labels must be on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import reduce
from math import gcd
from typing import Any

from annotate.imports.ratings import COUNTS, LONG, WIDE
from concord.digits import decimal_number
from concord.params import Choice, Float, ListOf, ParamsSchema, Str
from kinds.base import InvalidInput
from kinds.labels.data import (
    ANONYMOUS_RATERS,
    DEFAULT_BATCH,
    LEVELS,
    MAX_CATEGORIES,
    MAX_NUMERIC_VALUES,
    LabelsKind,
    Scale,
    canonical,
    format_number,
)
from kinds.labels.interchange import CANT_TELL
from kinds.spec import RatingTables, TableScale, TableUnit

#: What the organiser may correct of the scale on the preview (the campaign's params of the
#: same names, and the file's value that means "can't tell").
SCALE_FORM = ParamsSchema(
    Choice(
        "level",
        None,
        LEVELS,
        label="Scale",
        help="nominal: categories in no order; ordinal: ordered categories, lowest first; interval or ratio: "
        "numbers from the lowest to the highest in steps.",
    ),
    ListOf(
        "categories",
        Str("category", max_length=60),
        None,
        max_items=MAX_CATEGORIES,
        unique=True,
        label="Categories, lowest first",
        help="A nominal or ordinal scale's labels in their order (numbers match however the file writes them: "
        "1 is 1.0).",
    ),
    Float("minimum", None, min=-1e9, max=1e9, label="Lowest number", help="An interval or ratio scale's lowest value."),
    Float("maximum", None, min=-1e9, max=1e9, label="Highest number", help="An interval or ratio scale's highest."),
    Float("step", None, min=1e-6, max=1e9, label="Step", help="An interval or ratio scale's step (1: whole numbers)."),
    Str(
        "cant_tell",
        None,
        max_length=60,
        label="The file's value for \u201ccan\u2019t tell\u201d",
        help="Cells holding it are kept as \u201ccan\u2019t tell\u201d (no rating, on purpose); leave it empty when "
        "the file has none. Empty cells are no rating either way.",
    ),
)
_SCALE_KEYS = ("level", "categories", "minimum", "maximum", "step")


def _key(text: str) -> str:
    """How a label is matched to a category: numbers by value (``1.0`` is ``1``), text as it is."""
    number = decimal_number(text)
    return format_number(number) if number is not None else text


def _cant_tell_in(values: Sequence[tuple[str, int]]) -> str | None:
    return next((text for text, _ in values if text.lower().replace("\u2019", "'") in CANT_TELL), None)


def common_step(numbers: Sequence[float]) -> float | None:
    """The largest step that lands on every one of ``numbers`` from the first (None: none found
    within a millionth).

    >>> common_step([0.0, 1.0, 3.0]), common_step([1.0, 1.5, 4.0]), common_step([0.1, 0.25])
    (1.0, 0.5, 0.15)
    """
    fractions = [Fraction(format_number(n)).limit_denominator(10**6) for n in numbers]
    gaps = [b - fractions[0] for b in fractions[1:] if b != fractions[0]]
    if not gaps:
        return None
    denominator = reduce(lambda a, b: a * b // gcd(a, b), (g.denominator for g in gaps))
    step = Fraction(reduce(gcd, (int(g * denominator) for g in gaps)), denominator)
    return float(step) if step > 0 else None


def proposal(values: Sequence[tuple[str, int]], cant_tell: str | None, params: Mapping[str, Any]) -> dict[str, Any]:
    """The scale the labels ``values`` (text, count) show, as campaign params."""
    texts = [text for text, _ in values if text != cant_tell]
    numbers = [decimal_number(text) for text in texts]
    proposed = dict(params)
    if texts and all(n is not None for n in numbers):
        distinct = sorted(set(numbers))
        categories = [format_number(n) for n in distinct]
        if 2 <= len(categories) <= MAX_CATEGORIES:
            proposed["categories"] = categories
        step = common_step(distinct)
        if step is not None and round((distinct[-1] - distinct[0]) / step) + 1 <= MAX_NUMERIC_VALUES:
            low, high = distinct[0], distinct[-1]
            proposed.update(level="interval", minimum=low, maximum=high, step=step)
            return proposed
        proposed.update(level="ordinal", categories=categories)
        return proposed
    categories: list[str] = []
    for text in texts:
        if text not in categories:
            categories.append(text)
    proposed.update(level="nominal", categories=categories)
    return proposed


def reader(scale: Scale, cant_tell: str | None):
    """A cell's text read on ``scale`` (None: the file's "can't tell"), InvalidInput naming where."""
    by_key = {_key(str(value)): value for value in scale.values} if not scale.numeric else {}
    shown = describe(scale)

    def read(text: str, where: str) -> Any:
        text = text.strip()
        if cant_tell is not None and text == cant_tell:
            return None
        if scale.numeric:
            number = decimal_number(text)
            if number is None:
                raise InvalidInput(where, f"{text[:60]!r} is not a number; the scale is {shown}: correct it below")
            try:
                return canonical(scale, number)
            except ValueError:
                raise InvalidInput(
                    where, f"{format_number(number)} is not on the scale ({shown}): correct it below"
                ) from None
        found = by_key.get(_key(text))
        if found is None:
            raise InvalidInput(
                where, f"{text[:60]!r} is not a category of the scale ({shown}): add it to the categories below"
            )
        return found

    return read


def describe(scale: Scale) -> str:
    """The scale in words, as the preview says it."""
    if scale.numeric:
        step = format_number(scale.values[1] - scale.values[0]) if len(scale.values) > 1 else "1"
        return f"{scale.level}: numbers from {scale.labels[0]} to {scale.labels[-1]} in steps of {step}"
    if scale.ordered:
        return f"ordinal: {' < '.join(scale.labels)}"
    return f"nominal: {', '.join(scale.labels)} (in no order)"


def table_scale(
    params: Mapping[str, Any],
    values: Sequence[tuple[str, int]],
    corrected: Mapping[str, Any] | None,
    *,
    fixed: bool,
    anonymous: bool,
) -> TableScale:
    """``RatingTables.scale``: the campaign's scale where it reads every label (and always while
    the campaign has judgments), else the one the labels show, with the organiser's corrections."""
    corrected = dict(corrected or {})
    cant_tell = corrected.pop("cant_tell", None) or _cant_tell_in(values)
    if fixed:
        current = _form(params, None)
        for key, value in corrected.items():
            if key in _SCALE_KEYS and value != current.get(key):
                raise InvalidInput(
                    f"scale.{key}", "the campaign has judgments: its scale stays as it is (the file must fit it)"
                )
        if anonymous and not params.get(ANONYMOUS_RATERS):
            raise InvalidInput(
                "shape",
                "a table of counts goes into a campaign without judgments (or one of counts): its raters are not "
                "known, and this campaign's judgments have named raters",
            )
        if cant_tell is not None and not params.get("cant_tell"):
            raise InvalidInput("scale.cant_tell", "this campaign does not allow \u201ccan\u2019t tell\u201d")
        chosen = dict(params)
    else:
        reads = not corrected and _reads(Scale.of(params), values, cant_tell)
        chosen = dict(params) if reads else proposal(values, cant_tell, params)
        chosen.update({key: value for key, value in corrected.items() if key in _SCALE_KEYS})
        if cant_tell is not None:
            chosen["cant_tell"] = True
        if anonymous:
            chosen[ANONYMOUS_RATERS] = True
        chosen = LabelsKind.params_schema.clean(chosen, "scale", internal=True)
    scale = Scale.of(chosen)
    text = describe(scale) + (f"; \u201ccan\u2019t tell\u201d: the file's {cant_tell!r}" if cant_tell else "")
    return TableScale(chosen, text, _form(chosen, cant_tell), reader(scale, cant_tell))


def _reads(scale: Scale, values: Sequence[tuple[str, int]], cant_tell: str | None) -> bool:
    read = reader(scale, cant_tell)
    try:
        for text, _ in values:
            read(text, "")
    except InvalidInput:
        return False
    return True


def _form(params: Mapping[str, Any], cant_tell: str | None) -> dict[str, Any]:
    form = {key: params.get(key) for key in _SCALE_KEYS}
    form["cant_tell"] = cant_tell
    return form


def topics(
    units: Sequence[TableUnit], params: Mapping[str, Any], existing: Mapping[str, Any]
) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """``RatingTables.topics``: units the file puts in a topic go there (a topic the campaign has
    must hold the item); an item the campaign has in one topic is that one; the others become
    topics of ``batch`` items each, in the file's order (``batch-1``, ``batch-2``, ... where free),
    an item's text the file's or its id."""
    where: dict[str, str | None] = {}
    for topic, data in existing.items():
        for item in data.get("items", []):
            where[item["id"]] = topic if item["id"] not in where else None
    places: list[tuple[str, str] | None] = []
    named: dict[str, list[TableUnit]] = {}
    loose: list[int] = []
    for unit in units:
        if unit.topic in existing:
            if unit.id not in {item["id"] for item in existing[unit.topic]["items"]}:
                raise InvalidInput(
                    f"item {unit.id!r}", f"topic {unit.topic!r} is in the campaign without item {unit.id!r}"
                )
            places.append((unit.topic, unit.id))
        elif unit.topic:
            named.setdefault(unit.topic, []).append(unit)
            places.append((unit.topic, unit.id))
        elif unit.id in where:
            if where[unit.id] is None:
                raise InvalidInput(
                    f"item {unit.id!r}", "is an item of two topics of the campaign: say which, in a topic column"
                )
            places.append((where[unit.id], unit.id))
        else:
            loose.append(len(places))
            places.append(None)
    new = [_topic(topic, topic, members) for topic, members in named.items()]
    taken = set(existing) | set(named)
    size = int(params.get("batch") or DEFAULT_BATCH)
    number = 0
    for start in range(0, len(loose), size):
        chunk = [units[k] for k in loose[start : start + size]]
        number += 1
        while f"batch-{number}" in taken:
            number += 1
        name = f"batch-{number}"
        new.append(_topic(name, f"Items {chunk[0].id} to {chunk[-1].id}", chunk))
        for k in loose[start : start + size]:
            places[k] = (name, units[k].id)
    return new, places  # type: ignore[return-value]


def _topic(external_id: str, title: str, units: Sequence[TableUnit]) -> dict[str, Any]:
    items = [{"id": unit.id, "text": unit.texts.get("text") or unit.id} for unit in units]
    return {"external_id": external_id, "title": title, "data": {"items": items}}


TABLES = RatingTables(
    unit="item",
    topics=topics,
    payload=lambda values: {"labels": dict(values)},
    values=lambda payload: payload["labels"],
    scale=table_scale,
    texts=("text",),
    topic_required=False,
    shapes=(LONG, WIDE, COUNTS),
    scale_form=SCALE_FORM,
    interchange=True,
    controls=True,
)
