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
from concord.params import Bool, Choice, ChoiceOrMatrix, Float, Int, ListOf, Object, Param, ParamsSchema, Str

__all__ = ["Field", "Group", "fields", "groups", "read"]


@dataclass(frozen=True)
class Field:
    """One form control for one parameter (``name`` is its path, as errors name it)."""

    name: str
    label: str
    help: str
    widget: str  # number | text | checkbox | select | checkboxes | lines | matrix
    value: Any
    choices: tuple[str, ...] = ()
    step: str = ""
    min: Any = None
    max: Any = None
    error: str = ""
    form: str = ""  # tells apart the controls of several forms on one page
    when: tuple[str, str] | None = None  # (control name, value): the only setting it applies to
    doc: str = ""  # "page#anchor" of the user help that explains it
    rows: str = ""  # a matrix's rows as typed (widget "matrix": its text area, shown for the choice "custom")

    @property
    def id(self) -> str:
        return "f-" + re.sub(r"[^A-Za-z0-9_-]", "-", f"{self.form}-{self.name}" if self.form else self.name)

    @property
    def doc_url(self) -> str:
        """The user help's page and section that explain this control ("" if none)."""
        page, _, anchor = self.doc.partition("#")
        return f"/help/{page}/" + (f"#{anchor}" if anchor else "") if page else ""


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
        if param.internal or not param.form:
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
    label = param.label or name.split(".", 1)[1].replace(".", " · ").replace("_", " ")
    when = (f"{name.rsplit('.', 1)[0]}.{param.when[0]}", param.when[1]) if param.when else None
    common = {"name": name, "label": label, "help": param.help, "error": error, "when": when, "doc": param.doc}
    if isinstance(param, Bool):
        return Field(widget="checkbox", value=bool(value), **common)
    if isinstance(param, Int):
        return Field(widget="number", value=value, step="1", min=param.min, max=param.max, **common)
    if isinstance(param, Float):
        return Field(widget="number", value=value, step="any", min=param.min, max=param.max, **common)
    if isinstance(param, ChoiceOrMatrix):
        custom = isinstance(value, list)
        return Field(
            widget="matrix",
            value=param.CUSTOM if custom else value,
            choices=(*param.choices, param.CUSTOM),
            rows=matrix_text(value) if custom else "",
            **common,
        )
    if isinstance(param, Choice):
        return Field(widget="select", value=value, choices=param.choices, **common)
    if isinstance(param, ListOf) and isinstance(param.item, Choice):
        return Field(widget="checkboxes", value=list(value or []), choices=param.item.choices, **common)
    if isinstance(param, ListOf):
        shown = "\n".join(str(v) for v in value) if isinstance(value, list) else ""
        return Field(widget="lines", value=shown, **common)
    return Field(widget="text", value="" if value is None else value, **common)


@dataclass(frozen=True)
class Group:
    """Controls shown together: ``when`` (a control's name, its label and the value)
    says the setting they apply to, None for those that always apply."""

    fields: tuple[Field, ...]
    when: tuple[str, str, str] | None = None

    @property
    def control_id(self) -> str:
        """The id of the control ``when`` names (the page's script watches it)."""
        return "f-" + re.sub(r"[^A-Za-z0-9_-]", "-", self.when[0]) if self.when else ""


def groups(controls: list[Field]) -> list[Group]:
    """``controls`` grouped by the setting they apply to, those that always apply first
    (in their order), so that a page without scripts can say when each group applies.

    >>> from concord.params import Choice, Int, ParamsSchema
    >>> schema = ParamsSchema(
    ...     Choice("design", "overlap", ("overlap", "adaptive"), label="Design"),
    ...     Int("budget", None, min=1, max=9, when=("design", "adaptive")),
    ... )
    >>> [(g.when, [f.name for f in g.fields]) for g in groups(fields(schema))]
    [(None, ['params.design']), (('params.design', 'Design', 'adaptive'), ['params.budget'])]
    """
    labels = {f.name: f.label for f in controls}
    out: dict[tuple[str, str] | None, list[Field]] = {None: []}
    for control in controls:
        out.setdefault(control.when, []).append(control)
    return [
        Group(tuple(members), (when[0], labels.get(when[0], when[0]), when[1]) if when else None)
        for when, members in out.items()
        if members
    ]


def _base(field: str) -> str:
    """``params.ratios[2]`` -> ``params.ratios`` (``params.weights[1][2]`` -> ``params.weights``):
    the control an error belongs to."""
    return re.sub(r"(\[\d+\])+$", "", field)


def matrix_text(matrix: Any) -> str:
    """A matrix as its text area shows it: a row a line, numbers between spaces.

    >>> matrix_text([[1.0, 0.5], [0.5, 1.0]])
    '1 0.5\\n0.5 1'
    """
    if not isinstance(matrix, list):
        return ""
    return "\n".join(" ".join(f"{v:g}" if isinstance(v, (int, float)) else str(v) for v in row) for row in matrix)


def read_matrix(raw: str, field: str, max_size: int) -> list[list[float]]:
    """The rows typed in a matrix's text area (numbers between spaces, commas or semicolons, a
    row a line; blank lines skipped), unchecked beyond reading numbers and at most ``max_size``
    rows of ``max_size`` numbers (read no further); InvalidInput names the cell
    (``params.weights[1][2]``).

    >>> read_matrix("1, 0.5\\n0.5 1\\n", "params.weights", 4)
    [[1.0, 0.5], [0.5, 1.0]]
    """
    rows = []
    for r, line in enumerate(line for line in raw.splitlines() if line.strip()):
        if r == max_size:
            raise InvalidInput(field, f"expected a matrix of 1 to {max_size} rows, got more")
        row = []
        for c, text in enumerate(found.group() for found in re.finditer(r"[^\s,;]+", line)):
            if c == max_size:
                raise InvalidInput(f"{field}[{r}]", f"expected at most {max_size} numbers in a row, got more")
            number = decimal_number(text)
            if number is None:
                raise InvalidInput(f"{field}[{r}][{c}]", f"expected a number in the digits 0-9, got {text[:40]!r}")
            row.append(number)
        rows.append(row)
    if not rows:
        raise InvalidInput(field, "custom: expected the matrix's rows, one a line (numbers between spaces)")
    return rows


def read(schema: ParamsSchema, data: Mapping[str, Any], prefix: str = "params") -> dict[str, Any]:
    """What was typed into the controls of :func:`fields`, as params (unchecked
    beyond reading numbers; an empty control is left out, so its default applies).
    ``data`` is a QueryDict or a plain mapping; InvalidInput names the field."""
    params: dict[str, Any] = {}
    for param in schema:
        if param.internal or not param.form:
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
        if isinstance(param, ChoiceOrMatrix) and str(raw).strip() == param.CUSTOM:
            params[param.name] = read_matrix(str(data.get(f"{name}.rows") or ""), name, param.max_size)
        elif isinstance(param, ListOf):
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
