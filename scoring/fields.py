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
from pathlib import Path
from typing import Any

from django.db import models

from concord import typed


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
    """JSON-ready data (what ``concord.typed.dump`` gives) stored as MessagePack,
    zlib-compressed with a preset dictionary of typical reports (:data:`CURRENT`):
    a pairs topic report of benchmarks.storage's workload is 20 times smaller than
    as JSON text. Key order and every float are kept exactly (MessagePack writes
    float64 bit for bit), so what is read back equals what JSON gave.
    Read through :func:`unpack_stored` only; nobody queries inside it."""

    description = "JSON-ready data as zlib-compressed MessagePack"

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        return None if value is None else unpack_stored(value)

    def to_python(self, value: Any) -> Any:
        # A fixture (loaddata) gives the JSON text value_to_string wrote.
        return json.loads(value) if isinstance(value, str) else value

    def get_prep_value(self, value: Any) -> Any:
        return None if value is None else super().get_prep_value(pack_stored(value))

    def value_to_string(self, obj: Any) -> str:
        return json.dumps(self.value_from_object(obj), separators=(",", ":"))


#: zlib's level (its default): a pairs topic report packs as small as at level 9,
#: a campaign report within 1%; level 1 is a tenth larger.
LEVEL = 6
#: Values of more than LARGE bytes are packed at LARGE_LEVEL: a crowd's running sums (10 MB of
#: pair tables, rewritten by every rebuild) take a seventh of level 6's time for a third more bytes.
LARGE = 1 << 20
LARGE_LEVEL = 1

#: zlib's preset dictionaries (``zdict``) for packed values: a topic report is a few hundred
#: bytes once compressed, too few for zlib to find on its own the keys every report repeats;
#: a dictionary of typical reports and partials gives it them (scripts/packing_dictionary.py
#: builds one). A value packed with one names it in its zlib header (FDICT and the
#: dictionary's Adler-32), so every dictionary ever used stays in scoring/zdicts/.
ZDICTS = Path(__file__).with_name("zdicts")
#: The dictionary new values are packed with (a file of ZDICTS, without .zdict).
CURRENT = "reports-1"
DICTIONARIES: dict[int, bytes] = {
    zlib.adler32(data): data for data in (path.read_bytes() for path in sorted(ZDICTS.glob("*.zdict")))
}
_CURRENT = (ZDICTS / f"{CURRENT}.zdict").read_bytes()


def compress(data: bytes) -> bytes:
    """``data`` zlib-compressed with the current preset dictionary.

    >>> decompress(compress(b"kappa_ci")) == b"kappa_ci"
    True
    """
    level = LARGE_LEVEL if len(data) > LARGE else LEVEL
    compressor = zlib.compressobj(level, zlib.DEFLATED, zlib.MAX_WBITS, 9, zlib.Z_DEFAULT_STRATEGY, _CURRENT)
    return compressor.compress(data) + compressor.flush()


def is_compressed(raw: bytes | memoryview) -> bool:
    """Whether ``raw`` starts with a zlib header (method 8, a 32 KiB window, a valid
    check), as :func:`compress` and ``zlib.compress`` write it. MessagePack of a map,
    an array or a struct never does: 0x78 alone is the integer 120."""
    return len(raw) >= 2 and raw[0] == 0x78 and (raw[0] * 256 + raw[1]) % 31 == 0


def decompress(raw: bytes | memoryview) -> bytes:
    """What :func:`compress` (with any dictionary ever current) or ``zlib.compress`` (none:
    reports packed before the dictionaries) gave."""
    raw = bytes(raw)
    if not raw[1] & 0x20:  # FDICT unset: no dictionary
        return zlib.decompress(raw)
    named = int.from_bytes(raw[2:6], "big")
    if named not in DICTIONARIES:
        raise ValueError(f"packed with an unknown dictionary (Adler-32 {named}): is a file of {ZDICTS} missing?")
    decompressor = zlib.decompressobj(zlib.MAX_WBITS, DICTIONARIES[named])
    data = decompressor.decompress(raw) + decompressor.flush()
    if not decompressor.eof:
        raise zlib.error("incomplete or truncated stream")
    return data


def pack_stored(value: Any) -> bytes:
    """``value`` (JSON-ready data: no NaN, string keys) as :class:`PackedJSONField` stores it:
    ``concord.typed.pack``'s MessagePack, compressed.

    >>> unpack_stored(pack_stored({"figure": 0.1 + 0.2, "rows": [["a", "b"]], "interval": None}))
    {'figure': 0.30000000000000004, 'rows': [['a', 'b']], 'interval': None}
    """
    return compress(typed.pack(value))


def unpack_stored(raw: bytes | memoryview, type: Any = Any) -> Any:
    """What :func:`pack_stored` stored, as plain data or, given ``type``, as that type read
    field by field (``concord.typed.Outdated`` if its shape differs); the arguments in
    ``concord.typed.unpack``'s order."""
    return typed.unpack(decompress(raw), type)
