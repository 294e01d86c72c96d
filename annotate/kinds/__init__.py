"""The registry of judgment kinds: the one place a new kind is added.

Each kind is a module here (payload validation, completeness) plus a scoring
module named by its ``report_module`` (scoring/reports/<kind>.py).
"""

from __future__ import annotations

from annotate.kinds.base import InvalidInput, Kind
from annotate.kinds.clustering import ClusteringKind
from annotate.kinds.factoids import FactoidsKind
from annotate.kinds.nuggets import NuggetsKind
from annotate.kinds.ordering import OrderingKind
from annotate.kinds.pairs import PairsKind

KINDS: dict[str, Kind] = {
    PairsKind.name: PairsKind(),
    OrderingKind.name: OrderingKind(),
    ClusteringKind.name: ClusteringKind(),
    NuggetsKind.name: NuggetsKind(),
    FactoidsKind.name: FactoidsKind(),
}


def get_kind(name: str) -> Kind:
    try:
        return KINDS[name]
    except (KeyError, TypeError):
        raise InvalidInput("kind", f"unknown kind {name!r} (known: {', '.join(sorted(KINDS))})") from None


__all__ = ["KINDS", "InvalidInput", "Kind", "get_kind"]
