"""Control items: a campaign's quality rules read from its params, with their defaults, in one place.

The params are declared by ``kinds.base.control_params`` (each optional); everything that
applies or shows the rules (annotate/quality.py, the pages) reads them through :func:`rules`,
so a default is written once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Rules:
    """A campaign's quality rules (docs/methods.md, "Crowd quality control")."""

    #: Share of each assessor's work that is a control (0: controls only in the quiz).
    control_rate: float = 0.0
    #: An assessor's first topics are this many controls (0: no quiz).
    quiz_controls: int = 0
    #: The share of the quiz's control items to answer right to go on.
    quiz_minimum: float = 0.7
    #: Paused when the upper bound of the accuracy interval is below this (0: never on accuracy).
    pause_threshold: float = 0.7
    #: Control items answered before the accuracy rule applies.
    pause_minimum: int = 10
    #: The accuracy interval's coverage.
    pause_level: float = 0.99
    #: Failed attention checks (too-fast submissions among them) that pause; None: no such rule.
    attention_failures: int | None = None
    #: A control submission faster than this per item is too fast; None: no minimum.
    min_seconds_per_item: float | None = None

    @property
    def on_accuracy(self) -> bool:
        return self.pause_threshold > 0


def rules(params: Mapping[str, Any] | None) -> Rules:
    """The campaign's rules: each param as set, else its default (a null param is unset)."""
    params = params or {}
    defaults = Rules()

    def get(name: str) -> Any:
        value = params.get(name)
        return getattr(defaults, name) if value is None else value

    return Rules(
        control_rate=float(get("control_rate")),
        quiz_controls=int(get("quiz_controls")),
        quiz_minimum=float(get("quiz_minimum")),
        pause_threshold=float(get("pause_threshold")),
        pause_minimum=int(get("pause_minimum")),
        pause_level=float(get("pause_level")),
        attention_failures=None if params.get("attention_failures") is None else int(params["attention_failures"]),
        min_seconds_per_item=None
        if params.get("min_seconds_per_item") is None
        else float(params["min_seconds_per_item"]),
    )
