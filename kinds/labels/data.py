"""Labels: each item gets one label on the scale the organiser declares.

The commonest agreement task there is: a rating table, items by raters, one
label a cell. The scale is one of Stevens' (1946) levels of measurement, as
Krippendorff's alpha and Gwet's weighted coefficients take them: ``nominal``
(unordered categories), ``ordinal`` (ordered categories, lowest first),
``interval`` or ``ratio`` (numbers from a minimum to a maximum in steps). An
optional "can't tell" lets an assessor leave an item unrated on purpose: it
is kept in the payload (``null``) and counts as no rating in every figure.

A topic is a batch of items (the organiser's choice of batch size when a table
is imported; default 20), so that a crowd labels quickly; an item's content is
text, with an image or a link where given (shown as a link, never fetched by
the page: the site's content security policy allows no other origin).

Payload: ``{"labels": {item id: value}}``, the value one of the categories
(nominal, ordinal), a number on the scale (interval, ratio), or ``null``
("can't tell", where the campaign allows it). Complete when every item has one.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from concord.params import Bool, Choice, ChoiceOrMatrix, Float, Int, ListOf, ParamsSchema, Str
from kinds.base import (
    InvalidInput,
    Kind,
    Limits,
    adaptive_params,
    alt_test_param,
    control_params,
    demo_param,
    design_param,
    interval_params,
    listing,
    reference_param,
    require_at_most,
    require_list,
    require_object,
    require_text,
    type_name,
    unique_ids,
)

LEVELS = ("nominal", "ordinal", "interval", "ratio")
#: The categories a nominal or ordinal scale has unless the organiser says otherwise.
DEFAULT_CATEGORIES = ["yes", "no"]
#: Keys 1-9 choose the first nine categories on the judging page, letters the rest (not j, k:
#: they move; nor x: "can't tell" on a scale with a 0).
LETTER_KEYS = [c for c in "abcdefghilmnopqrstuvwyz"]
MAX_CATEGORIES = 9 + len(LETTER_KEYS)
#: Items per topic when a table of items is imported.
DEFAULT_BATCH = 20
#: The param a count table's import sets: who gave which label is not known (kinds/labels/tables.py).
ANONYMOUS_RATERS = "anonymous_raters"
#: The weighting of the weighted coefficients (Cohen's weighted kappa, Gwet's AC2,
#: Brennan-Prediger, Conger): ``auto`` takes the scale's level's (identity for nominal,
#: quadratic for the others, as Gwet 2014 ch. 3 recommends for ordered scales). The param
#: may also be the organiser's own q x q matrix over the scale's labels in their order
#: (:func:`check_custom_weights`), which the scale calls :data:`CUSTOM`.
WEIGHTS = ("auto", "identity", "linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar")
CUSTOM = "custom"
#: The largest scale custom weights are given for: a matrix is stored in the campaign's params
#: and shown in its report, one cell per pair of labels (32 x 32: 1,024 cells).
MAX_CUSTOM_WEIGHTS = 32
#: The largest numeric scale laid out as categories (the weights and the category counts have
#: one cell per value): 0-100 in steps of 1 is 101 values.
MAX_NUMERIC_VALUES = 1001


@dataclass(frozen=True)
class Scale:
    """A campaign's scale, read from its params (:meth:`of`).

    ``values`` are the labels an item can get, in the scale's order (categories
    lowest first; numbers ascending); a label's *code* is its position in
    ``values``, what the figures count. Numbers are also kept as numbers
    (``numbers``) for the interval and ratio metrics and the intraclass correlations.

    >>> s = Scale.of({"level": "ordinal", "categories": ["low", "mid", "high"]})
    >>> s.code("mid"), s.value(2), s.ordered
    (1, 'high', True)
    >>> n = Scale.of({"level": "interval", "minimum": 1, "maximum": 2, "step": 0.5})
    >>> n.values, n.code(1.5), n.numbers
    ([1, 1.5, 2], 1, [1.0, 1.5, 2.0])
    >>> c = Scale.of({"categories": ["a", "b"], "weights": [[1, 0.5], [0.5, 1]]})
    >>> c.weights, c.matrix
    ('custom', [[1, 0.5], [0.5, 1]])
    """

    level: str
    values: list[Any]
    cant_tell: bool
    #: the name of the weights (:data:`WEIGHTS` but ``auto``), or :data:`CUSTOM`
    weights: str
    #: custom weights: the q x q matrix (rows and columns in the scale's order); else None
    matrix: list[list[float]] | None = None

    @classmethod
    def of(cls, params: Mapping[str, Any] | None) -> Scale:
        params = params or {}
        level = params.get("level") or "nominal"
        if level in ("interval", "ratio"):
            values = numeric_values(params.get("minimum", 1), params.get("maximum", 5), params.get("step", 1))
        else:
            values = list(params.get("categories") or DEFAULT_CATEGORIES)
        weights = params.get("weights") or "auto"
        if isinstance(weights, list):
            return cls(level, values, bool(params.get("cant_tell", False)), CUSTOM, weights)
        if weights == "auto":
            weights = "identity" if level == "nominal" else "quadratic"
        return cls(level, values, bool(params.get("cant_tell", False)), weights)

    @property
    def numeric(self) -> bool:
        return self.level in ("interval", "ratio")

    @property
    def ordered(self) -> bool:
        return self.level != "nominal"

    @property
    def numbers(self) -> list[float]:
        """The values as numbers: the numbers themselves, or the categories' positions."""
        return [float(v) for v in self.values] if self.numeric else [float(k) for k in range(len(self.values))]

    @property
    def labels(self) -> list[str]:
        """The values as the pages show them."""
        return [format_number(v) if self.numeric else str(v) for v in self.values]

    def code(self, value: Any) -> int:
        """The position of ``value`` on the scale (ValueError if it is not on it)."""
        if self.numeric:
            for k, known in enumerate(self.values):
                if math.isclose(float(value), float(known), rel_tol=0, abs_tol=1e-9):
                    return k
            raise ValueError(value)
        return self.values.index(value)

    def value(self, code: int) -> Any:
        return self.values[code]


def numeric_values(minimum: float, maximum: float, step: float) -> list[Any]:
    """The numbers from ``minimum`` to ``maximum`` in ``step``s (ints where whole).

    >>> numeric_values(0, 1, 0.25)
    [0, 0.25, 0.5, 0.75, 1]
    """
    count = int(round((maximum - minimum) / step)) + 1
    numbers = [minimum + k * step for k in range(count)]
    return [int(n) if float(n).is_integer() else round(n, 10) for n in numbers]


def format_number(value: Any) -> str:
    """A number as a label: ``3`` not ``3.0``."""
    number = float(value)
    return str(int(number)) if number.is_integer() else f"{number:g}"


class LabelsParams(ParamsSchema):
    """The campaign params, and the checks across them: a numeric scale from its minimum
    up to its maximum in steps that land on it, with at most :data:`MAX_NUMERIC_VALUES` values,
    and ratio weights only on numbers above 0."""

    def clean(
        self, value: Any, field: str = "params", *, current: Mapping[str, Any] | None = None, internal: bool = False
    ) -> dict[str, Any]:
        cleaned = super().clean(value, field, current=current, internal=internal)
        if cleaned["level"] in ("interval", "ratio"):
            low, high, step = cleaned["minimum"], cleaned["maximum"], cleaned["step"]
            if high <= low:
                raise InvalidInput(f"{field}.maximum", f"expected more than the minimum ({format_number(low)})")
            count = (high - low) / step
            if not math.isclose(count, round(count), rel_tol=0, abs_tol=1e-9):
                raise InvalidInput(
                    f"{field}.step",
                    f"expected a step that goes from {format_number(low)} to {format_number(high)} exactly",
                )
            if round(count) + 1 > MAX_NUMERIC_VALUES:
                raise InvalidInput(
                    f"{field}.step", f"at most {MAX_NUMERIC_VALUES} values on a scale, got {round(count) + 1}"
                )
            if cleaned["level"] == "ratio" and low < 0:
                raise InvalidInput(f"{field}.minimum", "a ratio scale starts at 0 or above (it has a true zero)")
            if cleaned.get("weights") == "ratio" and low <= 0:
                # they divide by the sum of two labels' numbers (stats.gwet.agreement_weights)
                raise InvalidInput(
                    f"{field}.weights",
                    f"ratio weights need numbers above 0: this scale starts at {format_number(low)}",
                )
        if isinstance(cleaned.get("weights"), list):
            check_custom_weights(cleaned["weights"], Scale.of(cleaned).labels, f"{field}.weights")
        return cleaned


def check_custom_weights(matrix: list[list[float]], labels: Sequence[str], field: str) -> None:
    """``matrix`` (square, numbers from 0 to 1: ``ChoiceOrMatrix``) is agreement weights over
    ``labels``: a row and a column per label in the scale's order, 1 on the diagonal (a label
    agrees fully with itself) and symmetric (the weighted coefficients take the two raters of a
    pair in either order: Gwet 2014, ch. 3; Cohen 1968); InvalidInput naming the cell otherwise.

    >>> check_custom_weights([[1, 0.5], [0.4, 1]], ["a", "b"], "params.weights")
    Traceback (most recent call last):
    ...
    concord.errors.InvalidInput: params.weights[1][0]: expected 0.5, as row 0 column 1 (the weights are symmetric: b with a as a with b), got 0.4
    """
    q = len(labels)
    if q > MAX_CUSTOM_WEIGHTS:
        raise InvalidInput(
            field,
            f"custom weights are for a scale of at most {MAX_CUSTOM_WEIGHTS} labels; this one has {q}: "
            "choose a named weighting",
        )
    if len(matrix) != q:
        shown = ", ".join(labels) if q <= 12 else f"{labels[0]} to {labels[-1]}"
        raise InvalidInput(
            field,
            f"expected {q} rows of {q} numbers, a row and a column per label of the scale ({shown}), got {len(matrix)}",
        )
    for r, row in enumerate(matrix):
        if row[r] != 1:
            raise InvalidInput(
                f"{field}[{r}][{r}]",
                f"expected 1 on the diagonal ({labels[r]} with itself), got {format_number(row[r])}",
            )
        for c in range(r):
            if row[c] != matrix[c][r]:
                raise InvalidInput(
                    f"{field}[{r}][{c}]",
                    f"expected {format_number(matrix[c][r])}, as row {c} column {r} (the weights are symmetric: "
                    f"{labels[r]} with {labels[c]} as {labels[c]} with {labels[r]}), got {format_number(row[c])}",
                )


class LabelsKind(Kind):
    name = "labels"
    label = "Labels"
    description = "Give each item one label on a scale: categories, ordered categories or numbers."
    hidden_fields = ()
    #: Ten thousand items a topic; tables of any size are imported in batches of ``batch``.
    limits = Limits({"data.items": 10_000, "payload.labels": 10_000}, payload_bytes=2 * 2**20)
    params_schema = LabelsParams(
        Choice(
            "level",
            "nominal",
            LEVELS,
            label="Scale",
            help="nominal: categories in no order; ordinal: ordered categories, lowest first; interval or ratio: "
            "numbers (ratio when 0 means none of it). The agreement figures take the scale's level.",
        ),
        ListOf(
            "categories",
            Str("category", max_length=60),
            DEFAULT_CATEGORIES,
            min_items=2,
            max_items=MAX_CATEGORIES,
            unique=True,
            label="Categories",
            help="The labels of a nominal or ordinal scale (an ordinal one lowest first). Keys 1-9 choose the "
            "first nine on the judging page, letters the others.",
        ),
        Float("minimum", 1.0, min=-1e9, max=1e9, label="Lowest number", help="A numeric scale's lowest value."),
        Float("maximum", 5.0, min=-1e9, max=1e9, label="Highest number", help="A numeric scale's highest value."),
        Float("step", 1.0, min=1e-6, max=1e9, label="Step", help="A numeric scale's step (1: whole numbers)."),
        Bool(
            "cant_tell",
            False,
            label="Allow \u201ccan\u2019t tell\u201d",
            help="Assessors may leave an item unrated on purpose; it counts as no rating.",
        ),
        ChoiceOrMatrix(
            "weights",
            "auto",
            WEIGHTS,
            min=0.0,
            max=1.0,
            max_size=MAX_CUSTOM_WEIGHTS,
            label="Weights",
            help="How far apart two labels count in the weighted figures (Gwet 2014, ch. 3): auto is identity "
            "for a nominal scale and quadratic for the others; custom is your own matrix, a row and a column "
            "per label in the scale's order, 1 on the diagonal, symmetric, numbers from 0 to 1.",
        ),
        Int("batch", DEFAULT_BATCH, min=1, max=10_000, label="Items per topic", help="When a table is imported."),
        Bool(
            ANONYMOUS_RATERS,
            None,
            internal=True,
            form=False,
            help="Set by importing a table of counts per category (Fleiss 1971): its labels are kept as the "
            "judgments of anonymous rating slots, so the figures that need to know who gave which label (per "
            "assessor, per pair, Conger's kappa, the intraclass correlations, Dawid-Skene) are not shown.",
        ),
        design_param("Labels", splittable=True, adaptive=True),
        *adaptive_params(),
        *interval_params(),
        *control_params(),
        alt_test_param(),
        reference_param(),
        demo_param(),
    )

    def clean_topic_data(self, data: Any, *, field: str = "data") -> dict[str, Any]:
        require_object(data, field, allowed={"items", "instructions"}, required={"items"})
        items = require_list(data["items"], f"{field}.items", min_length=1, max_length=self.limits["data.items"])
        cleaned = []
        for index, item in enumerate(items):
            path = f"{field}.items[{index}]"
            require_object(item, path, allowed={"id", "text", "image", "link"}, required={"id", "text"})
            entry: dict[str, Any] = {"id": item["id"], "text": require_text(item["text"], f"{path}.text")}
            for key in ("image", "link"):
                if key in item:
                    entry[key] = web_address(item[key], f"{path}.{key}")
            cleaned.append(entry)
        unique_ids(cleaned, f"{field}.items")
        topic: dict[str, Any] = {"items": cleaned}
        if "instructions" in data:
            topic["instructions"] = require_text(data["instructions"], f"{field}.instructions", allow_empty=True)
        return topic

    def clean_payload(
        self, payload: Any, topic_data: Mapping[str, Any], *, complete: bool, params: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        require_object(payload, "payload", allowed={"labels"}, required={"labels"})
        labels = payload["labels"]
        if not isinstance(labels, dict):
            raise InvalidInput("payload.labels", f"expected an object of item id -> label, got {type_name(labels)}")
        require_at_most(labels, "payload.labels", self.limits["payload.labels"])
        scale = Scale.of(params)
        known = [item["id"] for item in topic_data["items"]]
        scope = (params or {}).get("scope")
        if scope is not None:  # this assessor labels only some items (one assessor per item)
            allowed = set(scope)
            known = [item for item in known if item in allowed]
        known_set = set(known)
        for item, value in labels.items():
            path = f"payload.labels.{item}"
            if item not in known_set:
                in_topic = scope is not None and any(i["id"] == item for i in topic_data["items"])
                raise InvalidInput(path, "not assigned to you" if in_topic else "unknown item id")
            check_label(scale, value, path)
        if complete:
            missing = [item for item in known if item not in labels]
            if missing:
                raise InvalidInput("payload.labels", f"{len(missing)} item(s) not labelled: {listing(missing)}")
        # Topic order and the scale's own spelling of numbers, so stored payloads are canonical.
        return {"labels": {item: canonical(scale, labels[item]) for item in known if item in labels}}

    def scoped(self, topic_data: Mapping[str, Any], items: list[str] | None) -> Mapping[str, Any]:
        if items is None:
            return topic_data
        wanted = set(items)
        return {**topic_data, "items": [item for item in topic_data["items"] if item["id"] in wanted]}

    def assessor_view(self, topic_data: Mapping[str, Any], items: list[str] | None = None) -> dict[str, Any]:
        """The items the assessor labels, as given."""
        return dict(self.scoped(topic_data, items))

    def flag_targets(self, view: Mapping[str, Any]) -> list[tuple[str, str]]:
        """The items of the assessor view, flaggable one by one."""
        return [(item["id"], item["text"][:80]) for item in view["items"]]

    def items(self, topic_data: Mapping[str, Any]) -> list[str]:
        return [item["id"] for item in topic_data["items"]]

    def item_labels(self, payload: Mapping[str, Any]) -> dict[str, Hashable]:
        """Each item's label (can't tell left out): the adaptive design reads items one by one."""
        return {item: value for item, value in payload.get("labels", {}).items() if value is not None}

    def label_classes(self, params: Mapping[str, Any]) -> tuple[Hashable, ...]:
        return tuple(Scale.of(params).values)

    def control_labels(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """Each item's label ("can't tell" left out: it is neither right nor wrong)."""
        return self.item_labels(payload)

    def clean_control_answer(
        self, value: Any, topic_data: Mapping[str, Any], item: str, params: Mapping[str, Any], *, field: str
    ) -> Any:
        """A label on the campaign's scale, as the scale writes it (a number on a numeric one)."""
        if item not in {entry["id"] for entry in topic_data["items"]}:
            raise InvalidInput(field, f"no item {item!r} in the topic")
        scale = Scale.of(params)
        try:
            return scale.value(scale.code(value))
        except (TypeError, ValueError):
            raise InvalidInput(field, f"{value!r} is not a label of the scale ({', '.join(scale.labels)})") from None

    def control_credit(self, known: Any, given: Any, params: Mapping[str, Any]) -> float:
        """On an ordered scale a near miss earns part credit: one minus the distance over the
        scale's width (stats.quality.credits, linear); a nominal scale's answer is right or wrong."""
        scale = Scale.of(params)
        if not scale.ordered or len(scale.values) < 2:
            return 1.0 if given == known else 0.0
        numbers = scale.numbers
        try:
            a, b = numbers[scale.code(given)], numbers[scale.code(known)]
        except (TypeError, ValueError):
            return 0.0
        return 1.0 - abs(a - b) / (numbers[-1] - numbers[0])

    def progress(self, payload: Mapping[str, Any], topic_data: Mapping[str, Any]) -> tuple[int, int]:
        return len(payload.get("labels", {})), len(topic_data["items"])

    def empty_payload(self, topic_data: Mapping[str, Any]) -> dict[str, Any]:
        return {"labels": {}}

    def payload_from_labels(self, labels: Mapping[str, Any]) -> dict[str, Any]:
        return {"labels": dict(labels)}

    def labels_of_payload(self, payload: Mapping[str, Any]) -> Mapping[str, Any] | None:
        return dict(payload["labels"])

    def topic_for_item(self, item: str) -> dict[str, Any] | None:
        """A topic of one item, named by the item (a ``worker,item,label`` table without texts)."""
        return {"external_id": item, "title": f"Item {item}", "data": {"items": [{"id": item, "text": item}]}}

    def clean_run_data(self, data: Any, topics: Mapping[str, Mapping[str, Any]], *, field: str) -> dict[str, Any]:
        """A reference labelling, ``{"reference": true, "labels": {topic: {item: label}}}``: the
        items' known answers (a gold column). Labels kinds score no systems."""
        require_object(data, field, allowed={"reference", "labels"}, required={"reference", "labels"})
        if data["reference"] is not True:
            raise InvalidInput(f"{field}.reference", "expected true: a labels campaign's runs are reference labellings")
        labels = data["labels"]
        if not isinstance(labels, dict) or not labels:
            raise InvalidInput(f"{field}.labels", "expected an object of topic id -> {item: label}, with a topic")
        for topic, answers in labels.items():
            path = f"{field}.labels.{topic}"
            if topic not in topics:
                raise InvalidInput(path, "unknown topic")
            if not isinstance(answers, dict) or not answers:
                raise InvalidInput(path, f"expected an object of item id -> label, got {type_name(answers)}")
            known = {item["id"] for item in topics[topic]["items"]}
            for item in answers:
                if item not in known:
                    raise InvalidInput(f"{path}.{item}", "unknown item id")
        return {"reference": True, "labels": labels}

    def reference_payload(self, run_data: Mapping[str, Any], topic_id: str) -> dict[str, Any] | None:
        labels = run_data.get("labels", {}).get(topic_id) if run_data.get("reference") is True else None
        return {"labels": dict(labels)} if labels else None


def check_label(scale: Scale, value: Any, path: str) -> None:
    """``value`` is a label of ``scale`` (or ``null`` where it allows "can't tell"); InvalidInput naming ``path``."""
    if value is None:
        if not scale.cant_tell:
            raise InvalidInput(path, "expected a label: this campaign does not allow \u201ccan\u2019t tell\u201d")
        return
    if scale.numeric:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise InvalidInput(path, f"expected a number from the scale, got {type_name(value)}")
        try:
            scale.code(value)
        except ValueError:
            shown = ", ".join(scale.labels) if len(scale.values) <= 12 else f"{scale.labels[0]} to {scale.labels[-1]}"
            raise InvalidInput(path, f"{format_number(value)} is not on the scale ({shown})") from None
        return
    if not isinstance(value, str):
        raise InvalidInput(path, f"expected one of the categories ({', '.join(scale.labels)}), got {type_name(value)}")
    if value not in scale.values:
        raise InvalidInput(path, f"{value!r} is not a category of this campaign ({', '.join(scale.labels)})")


def canonical(scale: Scale, value: Any) -> Any:
    """A checked label as it is stored: numbers as the scale spells them."""
    if value is None or not scale.numeric:
        return value
    return scale.value(scale.code(value))


def web_address(value: Any, path: str) -> str:
    """An http(s) address (an item's image or link); InvalidInput naming ``path`` otherwise."""
    text = require_text(value, path, max_length=2000)
    if not text.lower().startswith(("http://", "https://")) or any(c.isspace() for c in text):
        raise InvalidInput(path, "expected an http:// or https:// address without spaces")
    return text


def judge_context(campaign: Any, topic: Any, user: Any) -> dict[str, Any]:
    """The judging page's scale: its labels, their keys, and "can't tell"'s key where it is on
    (0, or x where 0 is a number of the scale)."""
    scale = Scale.of(campaign.params)
    offered = choices(scale)
    keys = {choice["key"] for choice in offered}
    return {"scale": scale, "choices": offered, "cant_tell_key": "0" if "0" not in keys else "x"}


def choices(scale: Scale) -> list[dict[str, str]]:
    """Each label with its key (1-9, then letters; the number itself on a numeric scale of at
    most ten whole values from 0 or 1), as the judging page offers them."""
    keys = [str(k) for k in range(1, 10)] + LETTER_KEYS
    if scale.numeric and len(scale.values) <= 10 and all(float(v).is_integer() for v in scale.values):
        low = int(scale.values[0])
        if low in (0, 1) and int(scale.values[-1]) <= 9:
            keys = [str(int(v)) for v in scale.values]
    return [{"value": label, "key": keys[k] if k < len(keys) else ""} for k, label in enumerate(scale.labels)]


def values_of(scale: Scale, labels: Sequence[Any]) -> list[Any]:
    """Labels as the payload holds them, from the texts a file gives (numbers parsed on a numeric scale)."""
    return [value if not scale.numeric or value is None else float(value) for value in labels]
