"""Typed, declarative parameter schemas: campaign params and analysis params.

A schema is a list of declarations, each with a name, a default and ``help``
text, so the same declarations can check input, document it (``json_schema()``
for the OpenAPI document) and later generate forms::

    SCHEMA = ParamsSchema(
        Int("draws", 100, min=1, max=5_000, help="Random draws per number of summaries."),
        Choice("method", "bootstrap", ("bootstrap", "randomization"), help="The significance test."),
    )
    SCHEMA.clean({"draws": 20})  # -> {"draws": 20, "method": "bootstrap"}

``clean()`` fills defaults and refuses unknown keys, wrong types (a boolean is
not a number, 3.0 is not a whole number), values out of range and unknown
choices, raising :class:`concord.errors.InvalidInput` with the full field path
(``params.frespa.min_sup``) and the allowed range or choices in the message.

A declaration whose default is ``None`` is optional: left out unless given
(the code reading it picks a value from the data). A declaration marked
``internal`` is set by Concord itself (factoids' ``phase``): a client may
not set or change it; ``clean(current=...)`` keeps the stored value, and
``clean(internal=True)`` (restoring a backup, the phase service) accepts it.

Core module: no project imports (the kinds and the scoring modules import it).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from concord.errors import InvalidInput

__all__ = ["Bool", "Choice", "ChoiceOrMatrix", "Float", "Int", "ListOf", "Object", "Param", "ParamsSchema", "Str"]


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__
    )


class Param:
    """One declared parameter. Subclasses check one JSON type."""

    type_text = "a value"

    def __init__(
        self,
        name: str,
        default: Any = None,
        *,
        help: str = "",
        internal: bool = False,
        label: str = "",
        when: tuple[str, str] | None = None,
        form: bool = True,
        doc: str = "",
    ) -> None:
        self.name = name
        self.default = default
        self.help = help
        self.internal = internal
        self.label = label  # the words a form shows (else one derived from the name)
        self.when = when  # (sibling param, value): the only setting this param applies to
        self.form = form  # False: set through the API or the CLI only, never shown in a form
        self.doc = doc  # "page#anchor" of the user help (/help/page/#anchor) that explains it
        if default is not None:
            self.clean(default, f"<default of {name}>")  # a declaration's own default must pass

    def clean(self, value: Any, field: str) -> Any:
        raise NotImplementedError

    def schema(self) -> dict[str, Any]:
        """This value's JSON Schema, without the documentation keys."""
        raise NotImplementedError

    def json_schema(self) -> dict[str, Any]:
        schema = self.schema()
        if self.help:
            schema["description"] = self.help
        if self.default is not None:
            schema["default"] = self.default
        if self.internal:
            schema["readOnly"] = True
        return schema

    def refuse(self, field: str, value: Any) -> InvalidInput:
        return InvalidInput(field, f"expected {self.type_text}, got {_type_name(value)} {_shown(value)}")


class Int(Param):
    """A whole number from ``min`` to ``max`` (JSON integers only: not 3.0, not true)."""

    def __init__(self, name: str, default: int | None = None, *, min: int, max: int, **common: Any) -> None:
        self.min, self.max = min, max
        self.type_text = f"a whole number from {min} to {max}"
        super().__init__(name, default, **common)

    def clean(self, value: Any, field: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not self.min <= value <= self.max:
            raise self.refuse(field, value)
        return value

    def schema(self) -> dict[str, Any]:
        return {"type": "integer", "minimum": self.min, "maximum": self.max}


class Float(Param):
    """A finite number in a range; ``exclusive`` makes both ends open."""

    def __init__(
        self,
        name: str,
        default: float | None = None,
        *,
        min: float,
        max: float,
        exclusive: bool = False,
        **common: Any,
    ) -> None:
        self.min, self.max, self.exclusive = min, max, exclusive
        self.type_text = (
            f"a number {'between' if exclusive else 'from'} {min:g} {'and' if exclusive else 'to'} {max:g}"
            + (" (both excluded)" if exclusive else "")
        )
        super().__init__(name, default, **common)

    def clean(self, value: Any, field: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self.refuse(field, value)
        inside = self.min < value < self.max if self.exclusive else self.min <= value <= self.max
        if not inside:
            raise self.refuse(field, value)
        return value

    def schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "number", "minimum": self.min, "maximum": self.max}
        if self.exclusive:  # OpenAPI 3.0's form (drf-spectacular's): booleans beside the bounds
            schema.update(exclusiveMinimum=True, exclusiveMaximum=True)
        return schema


class Bool(Param):
    type_text = "true or false"

    def clean(self, value: Any, field: str) -> bool:
        if not isinstance(value, bool):
            raise self.refuse(field, value)
        return value

    def schema(self) -> dict[str, Any]:
        return {"type": "boolean"}


class Str(Param):
    """A string of 1 to ``max_length`` characters, optionally matching ``pattern`` (whole)."""

    def __init__(
        self,
        name: str,
        default: str | None = None,
        *,
        max_length: int = 200,
        pattern: str | None = None,
        **common: Any,
    ) -> None:
        self.max_length = max_length
        self.pattern = pattern
        self.type_text = f"a string of 1 to {max_length} characters" + (f" matching {pattern}" if pattern else "")
        super().__init__(name, default, **common)

    def clean(self, value: Any, field: str) -> str:
        if not isinstance(value, str) or not 1 <= len(value) <= self.max_length:
            raise self.refuse(field, value)
        if self.pattern is not None and not re.fullmatch(self.pattern, value):
            raise self.refuse(field, value)
        return value

    def schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": self.max_length}
        if self.pattern is not None:
            schema["pattern"] = f"^(?:{self.pattern})$"
        return schema


class Choice(Param):
    """One of ``choices`` (strings)."""

    def __init__(
        self,
        name: str,
        default: str | None = None,
        choices: Sequence[str] = (),
        **common: Any,
    ) -> None:
        if not choices:
            raise ValueError(f"{name}: a Choice needs choices")
        self.choices = tuple(choices)
        self.type_text = f"one of: {', '.join(self.choices)}"
        super().__init__(name, default, **common)

    def clean(self, value: Any, field: str) -> str:
        if not isinstance(value, str) or value not in self.choices:
            error = self.refuse(field, value)
            if self.help:  # what the choices mean
                error = InvalidInput(field, f"{error.message}. {self.help}")
            raise error
        return value

    def schema(self) -> dict[str, Any]:
        return {"type": "string", "enum": list(self.choices)}


class ChoiceOrMatrix(Choice):
    """One of ``choices`` (strings), or a square matrix of numbers from ``min`` to ``max``
    (a list of rows, each a list of numbers) of at most ``max_size`` rows: a named scheme or
    the organiser's own table (the labels kind's agreement weights). What the matrix's size
    must be, and what else it must satisfy, is the caller's to check (it depends on other
    params). A form offers the choices and :data:`CUSTOM`, which takes the rows typed in a
    text area.

    >>> weights = ChoiceOrMatrix("weights", "linear", ("linear", "quadratic"), min=0.0, max=1.0, max_size=3)
    >>> weights.clean([[1, 0.5], [0.5, 1]], "params.weights")
    [[1.0, 0.5], [0.5, 1.0]]
    >>> weights.clean([[1, 0.5], [2, 1]], "params.weights")
    Traceback (most recent call last):
    ...
    concord.errors.InvalidInput: params.weights[1][0]: expected a number from 0 to 1, got a number 2
    """

    #: What a form's select offers beside the choices: the matrix typed in its text area.
    CUSTOM = "custom"

    def __init__(
        self,
        name: str,
        default: str | None = None,
        choices: Sequence[str] = (),
        *,
        min: float,
        max: float,
        max_size: int,
        **common: Any,
    ) -> None:
        self.min, self.max, self.max_size = min, max, max_size
        super().__init__(name, default, choices, **common)
        self.type_text = f"one of: {', '.join(self.choices)}; or a square matrix of numbers (a list of rows)"

    def clean(self, value: Any, field: str) -> Any:
        if not isinstance(value, list):
            return super().clean(value, field)
        if not 1 <= len(value) <= self.max_size:
            raise InvalidInput(field, f"expected a matrix of 1 to {self.max_size} rows, got {len(value)}")
        rows = []
        for r, row in enumerate(value):
            if not isinstance(row, list) or len(row) != len(value):
                got = f"{len(row)} number{'' if len(row) == 1 else 's'}" if isinstance(row, list) else _type_name(row)
                raise InvalidInput(f"{field}[{r}]", f"expected a row of {len(value)} numbers (square), got {got}")
            cleaned = []
            for c, number in enumerate(row):
                if (
                    isinstance(number, bool)
                    or not isinstance(number, (int, float))
                    or not math.isfinite(number)
                    or not self.min <= number <= self.max
                ):
                    raise InvalidInput(
                        f"{field}[{r}][{c}]",
                        f"expected a number from {self.min:g} to {self.max:g}, got {_type_name(number)} {_shown(number)}",
                    )
                cleaned.append(float(number))
            rows.append(cleaned)
        return rows

    def schema(self) -> dict[str, Any]:
        number = {"type": "number", "minimum": self.min, "maximum": self.max}
        matrix = {
            "type": "array",
            "items": {"type": "array", "items": number},
            "minItems": 1,
            "maxItems": self.max_size,
        }
        return {"oneOf": [super().schema(), matrix]}


class ListOf(Param):
    """A list of ``min_items`` to ``max_items`` values, each checked by ``item`` (its name unused)."""

    def __init__(
        self,
        name: str,
        item: Param,
        default: list | None = None,
        *,
        min_items: int = 0,
        max_items: int,
        unique: bool = False,
        **common: Any,
    ) -> None:
        self.item, self.min_items, self.max_items, self.unique = item, min_items, max_items, unique
        self.type_text = f"a list of {min_items} to {max_items} entries" + (", each once" if unique else "")
        super().__init__(name, default, **common)

    def clean(self, value: Any, field: str) -> list:
        if not isinstance(value, list) or not self.min_items <= len(value) <= self.max_items:
            raise self.refuse(field, value)
        cleaned = [self.item.clean(entry, f"{field}[{index}]") for index, entry in enumerate(value)]
        if self.unique:
            for index, entry in enumerate(cleaned):
                if entry in cleaned[:index]:
                    raise InvalidInput(f"{field}[{index}]", f"{_shown(entry)} is listed twice")
        return cleaned

    def schema(self) -> dict[str, Any]:
        schema = {
            "type": "array",
            "items": self.item.json_schema(),
            "minItems": self.min_items,
            "maxItems": self.max_items,
        }
        if self.unique:
            schema["uniqueItems"] = True
        return schema


class Object(Param):
    """A nested object with its own declared fields (defaults filled, unknown keys refused)."""

    type_text = "an object"

    def __init__(self, name: str, fields: Sequence[Param], default: dict | None = None, **common: Any) -> None:
        self.fields = ParamsSchema(*fields)
        super().__init__(name, default, **common)

    def clean(self, value: Any, field: str) -> dict[str, Any]:
        return self.fields.clean(value, field)

    def schema(self) -> dict[str, Any]:
        return self.fields.json_schema()


class ParamsSchema:
    """The declared parameters of one thing (a kind's campaigns, an analysis)."""

    def __init__(self, *params: Param, help: str = "") -> None:
        self.params = {p.name: p for p in params}
        if len(self.params) != len(params):
            raise ValueError("two parameters with the same name")
        self.help = help

    def __iter__(self):
        return iter(self.params.values())

    def defaults(self) -> dict[str, Any]:
        return self.clean({}, "params", internal=True)

    def clean(
        self, value: Any, field: str = "params", *, current: Mapping[str, Any] | None = None, internal: bool = False
    ) -> dict[str, Any]:
        """``value`` checked, with defaults filled; InvalidInput names the field.

        ``current``: the stored params this value replaces (internal
        parameters keep their stored values and may be repeated unchanged);
        ``internal``: Concord itself writes, so internal parameters may be set.
        """
        if value is None:
            value = {}
        if not isinstance(value, dict):
            raise InvalidInput(field, f"expected an object, got {_type_name(value)}")
        unknown = [key for key in value if key not in self.params]
        if unknown:
            allowed = [p.name for p in self if not p.internal]
            raise InvalidInput(
                f"{field}.{unknown[0]}",
                "unknown parameter (allowed: " + (", ".join(allowed) if allowed else "none") + ")",
            )
        current = current or {}
        cleaned: dict[str, Any] = {}
        for name, param in self.params.items():
            path = f"{field}.{name}"
            if param.internal and not internal:
                if name in value and (name not in current or value[name] != current[name]):
                    raise InvalidInput(path, "set by Concord, not by you" + (f": {param.help}" if param.help else ""))
                if name in current:
                    cleaned[name] = param.clean(current[name], path)
                continue
            if name in value:
                cleaned[name] = param.clean(value[name], path)
            elif param.default is not None:
                cleaned[name] = _copy(param.default)
        return cleaned

    def json_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {p.name: p.json_schema() for p in self},
            "additionalProperties": False,
        }
        if self.help:
            schema["description"] = self.help
        return schema


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value
