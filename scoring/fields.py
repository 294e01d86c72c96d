"""A JSON field that keeps the order of object keys on every database.

PostgreSQL's jsonb reorders keys (by length, then bytes), and reports are
read back whole to be shown in order (truth sets, methods, topics), so they
are stored as JSON text. Nobody queries inside them.
"""

from __future__ import annotations

import json
from typing import Any

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
