"""Adjudicating orderings (KindSpec ``Adjudication``; docs/pages.md, "Adjudication").

The adjudicator sees every assessor's ordering side by side: the position of
every item per assessor, its rank range (the items whose positions differ
most are marked), Kendall's tau between every two assessors (Kim, Zhai &
Han, section 4.1) and the pairs of items two assessors put in opposite
orders (the discordant pairs that tau counts). "Accept the consensus" saves
the kind's rank-based consensus (section 4.3, the ``consensus`` export).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from concord.errors import InvalidInput
from kinds.ordering import stats as m
from kinds.ordering.report import consensus_order


@dataclass(frozen=True)
class OrderingPositions:
    """One item: its position (1 = first) in each assessor's ordering, in the
    comparison's assessor order (None: the assessor's ordering lacks it), its
    position in the consensus, and its rank range over the assessors
    (``spread`` = ``highest`` - ``lowest``; 0 when all agree)."""

    id: str
    text: str
    positions: tuple[int | None, ...]
    consensus: int | None
    lowest: int | None
    highest: int | None
    spread: int
    #: the item's spread is the largest of the topic (and above 0): where the orderings differ most
    most_disputed: bool
    #: its position in the orderings shown beside the assessors' and counted in nothing (the gold)
    beside: tuple[int | None, ...] = ()


@dataclass(frozen=True)
class OrderingDiscordantPair:
    """Two items ``first`` and ``second`` the first assessor of a pair orders
    ``first`` before ``second`` and the other the other way round."""

    first: str
    second: str
    first_text: str = ""
    second_text: str = ""


@dataclass(frozen=True)
class OrderingAssessorPair:
    """Two assessors: Kendall's tau between their orderings (None when they
    do not order the same items) and their discordant pairs, in the first
    assessor's order."""

    first: str
    second: str
    tau: float | None
    discordant: tuple[OrderingDiscordantPair, ...]


@dataclass(frozen=True)
class OrderingComparison:
    """Every assessor's ordering of one topic side by side (``rows`` in
    consensus order), every pair of assessors, and the largest rank range."""

    assessors: tuple[str, ...]
    rows: tuple[OrderingPositions, ...]
    pairs: tuple[OrderingAssessorPair, ...]
    max_spread: int
    #: how the consensus orders items of equal summed rank
    tie_rule: str = "summed rank over the orderings (lowest first); ties as in the first assessor's ordering"
    #: the labels of the columns beside the assessors' (``Adjudication.compare``'s ``beside``)
    beside: tuple[str, ...] = ()

    @property
    def disputed(self) -> tuple[OrderingPositions, ...]:
        """The items whose positions differ most."""
        return tuple(row for row in self.rows if row.most_disputed)


def compare(
    view: Mapping[str, Any],
    judgments: Sequence[tuple[str, Mapping[str, Any]]],
    beside: Sequence[tuple[str, Mapping[str, Any]]] = (),
) -> OrderingComparison:
    """The assessors' orderings of the topic ``view`` side by side, and ``beside`` them
    the gold's positions (counted in nothing).

    >>> view = {"items": [{"id": "a", "text": "A"}, {"id": "b", "text": "B"}, {"id": "c", "text": "C"}]}
    >>> c = compare(view, [("ann", {"order": ["a", "b", "c"]}), ("bob", {"order": ["b", "a", "c"]})])
    >>> [(r.id, r.positions, r.spread, r.most_disputed) for r in c.rows]
    [('a', (1, 2), 1, True), ('b', (2, 1), 1, True), ('c', (3, 3), 0, False)]
    >>> round(c.pairs[0].tau, 6), [(d.first, d.second) for d in c.pairs[0].discordant]
    (0.333333, [('a', 'b')])
    >>> [r.beside for r in compare(view, [("ann", {"order": ["a", "b", "c"]})], [("gold v1", {"order": ["c", "a", "b"]})]).rows]
    [(2,), (3,), (1,)]
    """
    texts = {item["id"]: item["text"] for item in view["items"]}
    assessors = tuple(name for name, _ in judgments)
    orders = [list(payload.get("order", [])) for _, payload in judgments]
    where = [{item: index for index, item in enumerate(order, 1)} for order in orders]
    shown = [{item: index for index, item in enumerate(p.get("order", []), 1)} for _, p in beside]
    consensus = consensus_order(orders) if orders and _same_items(orders) else []
    consensus_at = {item: index for index, item in enumerate(consensus, 1)}
    items = consensus + [i for i in texts if i not in consensus_at]
    rows = []
    for item in items:
        positions = tuple(w.get(item) for w in where)
        known = [p for p in positions if p is not None]
        rows.append((item, positions, min(known) if known else None, max(known) if known else None, _spread(known)))
    max_spread = max((row[4] for row in rows), default=0)
    return OrderingComparison(
        assessors=assessors,
        rows=tuple(
            OrderingPositions(
                id=item,
                text=texts.get(item, ""),
                positions=positions,
                consensus=consensus_at.get(item),
                lowest=lowest,
                highest=highest,
                spread=spread,
                most_disputed=spread == max_spread > 0,
                beside=tuple(w.get(item) for w in shown),
            )
            for item, positions, lowest, highest, spread in rows
        ),
        pairs=tuple(
            _pair(assessors[i], assessors[j], orders[i], orders[j], texts)
            for i, j in combinations(range(len(orders)), 2)
        ),
        max_spread=max_spread,
        beside=tuple(label for label, _ in beside),
    )


def consensus(view: Mapping[str, Any], payloads: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The rank-based consensus ordering (the ``consensus`` export's):
    items by summed rank over the orderings, ties as in the first.

    >>> view = {"items": [{"id": i, "text": i} for i in "ABCD"]}
    >>> consensus(view, [{"order": list("ACBD")}, {"order": list("ABCD")}])
    {'order': ['A', 'C', 'B', 'D']}
    """
    orders = [list(p["order"]) for p in payloads]
    if not orders:
        raise InvalidInput("payloads", "no submitted ordering to build a consensus from")
    return {"order": consensus_order(orders)}


def _same_items(orders: list[list[str]]) -> bool:
    return all(set(order) == set(orders[0]) and len(order) == len(orders[0]) for order in orders)


def _spread(positions: list[int]) -> int:
    return max(positions) - min(positions) if positions else 0


def _pair(first: str, second: str, one: list[str], two: list[str], texts: Mapping[str, str]) -> OrderingAssessorPair:
    if set(one) != set(two) or len(one) < 2:
        return OrderingAssessorPair(first=first, second=second, tau=None, discordant=())
    at = {item: index for index, item in enumerate(two)}
    discordant = tuple(
        OrderingDiscordantPair(a, b, texts.get(a, ""), texts.get(b, ""))
        for a, b in combinations(one, 2)
        if at[a] > at[b]
    )
    return OrderingAssessorPair(first=first, second=second, tau=m.kendall_tau(one, two), discordant=discordant)
