"""Scoring modules, one per judgment kind (named by the kind's ``report_module``).

Each module provides:

- ``topic_report(topic, judgments) -> dict`` and
  ``campaign_report(campaign, topics, judgments) -> dict``: JSON-ready
  reports (NaN written as null) from the submitted judgments;
- ``EXPORTS``: ``{format: (content_type, extension)}`` and
  ``export(campaign, topics, judgments, *, format, truth) -> str``;
- ``TRUTHS(campaign, judgments) -> list[str]``: the gold standards on offer;
- ``ANALYSES``: ``{name: callable(campaign, progress) -> dict}`` for Jobs.
"""

from __future__ import annotations

import importlib
import math
from types import ModuleType
from typing import Any

from annotate.kinds import get_kind


def report_module(kind: str) -> ModuleType:
    return importlib.import_module(get_kind(kind).report_module)


def json_ready(value: Any) -> Any:
    """Floats that are not finite become None: JSON (and PostgreSQL's jsonb) has no NaN."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    return value
