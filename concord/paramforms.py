"""HTML forms generated from a ParamsSchema: a kind's campaign params and an
analysis's params, edited in pages with the same declarations that check
them in the API (concord/params.py). A form only reads what was typed into
JSON-like values; checking stays with ``ParamsSchema.clean`` (through the
services), so a page and the API accept and refuse exactly the same params.

>>> from concord.params import Choice, Float, Int, ListOf, Object, ParamsSchema
>>> schema = ParamsSchema(
...     Int("seeds", 10, min=1, max=50, help="Draws."),
...     ListOf("ratios", Float("r", min=0.0, max=2.0), [0, 0.5], max_items=5),
...     Object("frespa", [Float("min_sup", 0.75, min=0.0, max=1.0)]),
... )
>>> [(f.name, f.widget, f.value) for f in fields(schema)]
[('params.seeds', 'number', 10), ('params.ratios', 'lines', '0\\n0.5'), ('params.frespa.min_sup', 'number', 0.75)]
>>> read(schema, {"params.seeds": "12", "params.ratios": "0.25\\n1", "params.frespa.min_sup": ""})
{'seeds': 12, 'ratios': [0.25, 1.0], 'frespa': {}}
>>> read(schema, {"params.seeds": "twelve"})
Traceback (most recent call last):
...
concord.errors.InvalidInput: params.seeds: expected a whole number in the digits 0-9, got 'twelve'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from concord.digits import decimal_number, whole_number
from concord.errors import InvalidInput
from concord.params import Bool, Choice, Float, Int, ListOf, Object, Param, ParamsSchema, Str

__all__ = ["Field", "fields", "read"]


@dataclass(frozen=True)
class Field:
    """One form control for one parameter (``name`` is its path, as errors name it)."""

    name: str
    label: str
    help: str
    widget: str  # number | text | checkbox | select | checkboxes | lines
    value: Any
    choices: tuple[str, ...] = ()
    step: str = ""
    min: Any = None
    max: Any = None
    error: str = ""
    form: str = ""  # tells apart the controls of several forms on one page

    @property
    def id(self) -> str:
        return "f-" + re.sub(r"[^A-Za-z0-9_-]", "-", f"{self.form}-{self.name}" if self.form else self.name)


def fields(
    schema: ParamsSchema,
    prefix: str = "params",
    values: Mapping[str, Any] | None = None,
    error: InvalidInput | None = None,
    form: str = "",
) -> list[Field]:
    """The controls of ``schema``'s parameters (internal ones left out), showing
    ``values`` where given, else the defaults; ``error`` is shown at its field;
    ``form`` names the form when a page has several (control ids stay unique)."""
    out: list[Field] = []
    for param in schema:
        if param.internal:
            continue
        name = f"{prefix}.{param.name}"
        value = (values or {}).get(param.name, param.default)
        if isinstance(param, Object):
            out += fields(param.fields, name, value if isinstance(value, Mapping) else None, error, form)
            continue
        message = error.message if error is not None and _base(error.field) == name else ""
        out.append(replace(_field(param, name, value, message), form=form))
    return out


def _field(param: Param, name: str, value: Any, error: str) -> Field:
    label = name.split(".", 1)[1].replace(".", " · ").replace("_", " ")
    common = {"name": name, "label": label, "help": param.help, "error": error}
    if isinstance(param, Bool):
        return Field(widget="checkbox", value=bool(value), **common)
    if isinstance(param, Int):
        return Field(widget="number", value=value, step="1", min=param.min, max=param.max, **common)
    if isinstance(param, Float):
        return Field(widget="number", value=value, step="any", min=param.min, max=param.max, **common)
    if isinstance(param, Choice):
        return Field(widget="select", value=value, choices=param.choices, **common)
    if isinstance(param, ListOf) and isinstance(param.item, Choice):
        return Field(widget="checkboxes", value=list(value or []), choices=param.item.choices, **common)
    if isinstance(param, ListOf):
        shown = "\n".join(str(v) for v in value) if isinstance(value, list) else ""
        return Field(widget="lines", value=shown, **common)
    return Field(widget="text", value="" if value is None else value, **common)


def _base(field: str) -> str:
    """``params.ratios[2]`` -> ``params.ratios``: the control an error belongs to."""
    return re.sub(r"\[\d+\]$", "", field)


def read(schema: ParamsSchema, data: Mapping[str, Any], prefix: str = "params") -> dict[str, Any]:
    """What was typed into the controls of :func:`fields`, as params (unchecked
    beyond reading numbers; an empty control is left out, so its default applies).
    ``data`` is a QueryDict or a plain mapping; InvalidInput names the field."""
    params: dict[str, Any] = {}
    for param in schema:
        if param.internal:
            continue
        name = f"{prefix}.{param.name}"
        if isinstance(param, Object):
            params[param.name] = read(param.fields, data, name)
            continue
        if isinstance(param, Bool):
            # An unticked box sends nothing; the form marks every checkbox it shows.
            if name in data or f"{name}.shown" in data:
                params[param.name] = name in data
            continue
        if isinstance(param, ListOf) and isinstance(param.item, Choice):
            if name in data or f"{name}.shown" in data:
                params[param.name] = _getlist(data, name)
            continue
        raw = data.get(name)
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            continue
        if isinstance(param, ListOf):
            params[param.name] = [
                _value(param.item, line.strip(), f"{name}[{i}]")
                for i, line in enumerate(line for line in str(raw).splitlines() if line.strip())
            ]
        else:
            params[param.name] = _value(param, str(raw).strip(), name)
    return params


def _getlist(data: Mapping[str, Any], name: str) -> list:
    if hasattr(data, "getlist"):
        return data.getlist(name)
    value = data.get(name, [])
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _value(param: Param, raw: str, field: str) -> Any:
    if isinstance(param, Int):
        number = whole_number(raw, signed=True)
        if number is None:
            raise InvalidInput(field, f"expected a whole number in the digits 0-9, got {raw[:40]!r}")
        return number
    if isinstance(param, Float):
        value = decimal_number(raw)
        if value is None:
            raise InvalidInput(field, f"expected a finite number in the digits 0-9, got {raw[:40]!r}")
        return value
    if isinstance(param, (Str, Choice)):
        return raw
    raise InvalidInput(field, "this parameter cannot be set in a form; use the API")
