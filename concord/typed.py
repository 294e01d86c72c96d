"""Typed values (trees of dataclasses) to and from stored JSON, and their schema.

Reports are built as dataclasses (each kind's ``report.py`` declares its
tree), stored as JSON and read back as the same dataclasses, checked field by
field: a stored report of an older shape is refused at load (:class:`Outdated`),
never rendered blank. msgspec does the conversion and writes the JSON Schema
(the API documents each kind's report with it). Core module (no project
imports).

A figure that can be undefined (0/0) is a :data:`Figure`: built as a float
(NaN when undefined), stored as null, loaded as None.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Pair:
...     assessors: tuple[str, str]
...     kappa: Figure
>>> dump(Pair(("a", "b"), float("nan")))
{'assessors': ['a', 'b'], 'kappa': None}
>>> load(Pair, {"assessors": ["a", "b"], "kappa": 0.5})
Pair(assessors=('a', 'b'), kappa=0.5)
>>> openapi_components([Pair])[1]["Pair"]["properties"]["kappa"]
{'type': 'number', 'nullable': True}
>>> load(Pair, {"assessors": ["a", "b"]})
Traceback (most recent call last):
...
concord.typed.Outdated: Object missing required field `kappa`
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

import msgspec
import numpy as np

__all__ = ["Figure", "Outdated", "dump", "load", "openapi_components", "pack", "unpack"]

T = TypeVar("T")

#: A figure that may be undefined: a float when built (NaN if undefined), None once stored.
Figure = float | None


class Outdated(ValueError):
    """Stored data that does not have the shape of its type (written by an older version)."""


def _builtin(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise NotImplementedError(f"cannot store a {type(value).__name__}")


def dump(value: Any) -> Any:
    """``value`` (dataclasses, lists, dicts, numpy values) as JSON-ready Python data, NaN as None.

    Through msgspec's JSON encoder and decoder (which write a float that is not
    finite as null): what is returned is exactly what storing it as JSON gives
    back, several times faster than walking the tree in Python.

    >>> dump({"tau": np.float64(0.5), "ranks": np.arange(3), "ed": float("inf"), "pair": ("a", "b")})
    {'tau': 0.5, 'ranks': [0, 1, 2], 'ed': None, 'pair': ['a', 'b']}
    """
    return msgspec.json.decode(msgspec.json.encode(value, enc_hook=_builtin))


def load(cls: type[T], data: Any) -> T:
    """``data`` (as :func:`dump` wrote it) as a ``cls``; :class:`Outdated` if its shape differs."""
    try:
        return msgspec.convert(data, type=cls)
    except msgspec.ValidationError as error:
        raise Outdated(str(error)) from None


def pack(value: Any) -> bytes:
    """``value`` (dataclasses, lists, dicts, numpy values) as MessagePack bytes: floats
    bit for bit, NaN kept (stored partial results must merge to exactly what a
    recompute from scratch gives).

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Sums:
    ...     n: int
    ...     total: float
    >>> unpack(pack(Sums(3, 0.1 + 0.2)), Sums)
    Sums(n=3, total=0.30000000000000004)
    >>> unpack(pack({"n": 3}), Sums)
    Traceback (most recent call last):
    ...
    concord.typed.Outdated: Object missing required field `total`
    """
    return msgspec.msgpack.encode(value, enc_hook=_builtin)


def unpack(data: bytes, cls: type[T]) -> T:
    """``data`` (as :func:`pack` wrote it) as a ``cls``; :class:`Outdated` if its shape differs.

    The arguments in msgspec's order (data, then type), as ``scoring.fields.unpack_stored``'s."""
    try:
        return msgspec.msgpack.decode(data, type=cls)
    except (msgspec.ValidationError, msgspec.DecodeError) as error:
        raise Outdated(str(error)) from None


def openapi_components(types: Iterable[type]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """References to ``types`` and the components they need, in OpenAPI 3.0's
    dialect of JSON Schema (``nullable`` rather than a null type, tuples as arrays)."""
    refs, components = msgspec.json.schema_components(list(types), ref_template="#/components/schemas/{name}")
    return refs, {name: _openapi30(schema) for name, schema in components.items()}


def _openapi30(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_openapi30(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    schema = dict(schema)
    for union in ("anyOf", "oneOf"):
        options = schema.get(union)
        if options and {"type": "null"} in options:
            rest = [option for option in options if option != {"type": "null"}]
            schema.pop(union)
            if len(rest) == 1 and "$ref" not in rest[0]:
                schema.update(rest[0])
            else:
                schema["allOf" if len(rest) == 1 else union] = rest
            schema["nullable"] = True
    if "prefixItems" in schema:
        items = schema.pop("prefixItems")
        schema["items"] = items[0] if all(item == items[0] for item in items) else {"anyOf": items}
    if schema.get("type") == "null":
        return {"nullable": True}
    return {key: _openapi30(value) for key, value in schema.items()}
