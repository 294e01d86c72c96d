"""Plain records passed from the file parsers to the services."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CrowdLabel:
    """One imported label: ``worker`` judged ``candidate`` of ``topic`` (file line ``line``)."""

    worker: str
    topic: str
    candidate: str
    label: Any
    line: int
