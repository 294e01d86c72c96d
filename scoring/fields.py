"""Fields for stored results that keep the order of object keys on every database.

PostgreSQL's jsonb reorders keys (by length, then bytes), and reports are
read back whole to be shown in order (truth sets, methods, topics), so they
are stored as JSON text (analysis results) or compressed MessagePack
(reports, one per topic: their bytes per judgment count). Nobody queries
inside them.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

import msgspec
from django.db import models


class OrderedJSONField(models.TextField):
    description = "JSON kept as text, object keys in their order"

    def from_db_value(self, value: str | None, expression: Any, connection: Any) -> Any:
        return None if value is None else json.loads(value)

    def to_python(self, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return json.loads(value)
            except json.JSONDecodeError:
                return value
        return value

    def get_prep_value(self, value: Any) -> str | None:
        # allow_nan=False: a NaN that slipped past json_ready fails loudly here.
        return None if value is None else json.dumps(value, allow_nan=False, separators=(",", ":"))

    def value_to_string(self, obj: Any) -> str:
        return self.get_prep_value(self.value_from_object(obj)) or ""


class PackedJSONField(models.BinaryField):
    """JSON-ready data (what ``concord.typed.dump`` gives) stored as zlib-compressed
    MessagePack: a topic report is 6 to 16 times smaller than as JSON text
    (benchmarks.storage). Key order and every float are kept exactly (MessagePack
    writes float64 bit for bit), so what is read back equals what JSON gave.
    Read through :func:`unpack` only; nobody queries inside it."""

    description = "JSON-ready data as zlib-compressed MessagePack"

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        return None if value is None else unpack(value)

    def to_python(self, value: Any) -> Any:
        # A fixture (loaddata) gives the JSON text value_to_string wrote.
        return json.loads(value) if isinstance(value, str) else value

    def get_prep_value(self, value: Any) -> Any:
        return None if value is None else super().get_prep_value(pack(value))

    def value_to_string(self, obj: Any) -> str:
        return json.dumps(self.value_from_object(obj), separators=(",", ":"))


#: zlib's level (its default): a pairs topic report packs as small as at level 9,
#: a campaign report within 1%; level 1 is a tenth larger.
LEVEL = 6


def pack(value: Any) -> bytes:
    """``value`` (JSON-ready data: no NaN, string keys) as :class:`PackedJSONField` stores it.

    >>> unpack(pack({"figure": 0.1 + 0.2, "rows": [["a", "b"]], "interval": None}))
    {'figure': 0.30000000000000004, 'rows': [['a', 'b']], 'interval': None}
    """
    return zlib.compress(msgspec.msgpack.encode(value), LEVEL)


def unpack(raw: bytes | memoryview, type: Any = Any) -> Any:
    """What :func:`pack` stored, as plain data or, given ``type``, as that type read
    field by field (msgspec's ``ValidationError`` if its shape differs)."""
    return msgspec.msgpack.decode(zlib.decompress(raw), type=type)
