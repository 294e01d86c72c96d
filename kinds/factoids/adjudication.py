"""Adjudicating factoid annotations (KindSpec ``Adjudication``; docs/pages.md, "Adjudication").

The adjudicator sees every annotator's factoid inventory and marks side by
side, sentence by sentence, and for every two annotators the relations
between their inventories suggested from shared marks (identity,
subsumption; van Halteren & Teufel, section 3.2: the report's suggestion,
the one the relations page starts from), their factoid definition kappa
(section 3.2), and the marks on which they differ for factoids the
relations call identical (the Phase 2 discrepancy list of section 3.1, told
here from both sides and with names). The kind computes no automatic
consensus: the adjudicator accepts one annotator's inventory or builds the
consensus inventory on the topic's consensus page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from kinds.factoids import stats as m
from kinds.factoids.report import one_to_one, suggested_relations


@dataclass(frozen=True)
class FactoidsFactoid:
    """A factoid of one annotator's inventory: id, text and the sentences marked with it."""

    id: str
    text: str
    sentences: tuple[str, ...]


@dataclass(frozen=True)
class FactoidsInventory:
    """One annotator's inventory, in their order."""

    annotator: str
    factoids: tuple[FactoidsFactoid, ...]


@dataclass(frozen=True)
class FactoidsMark:
    """A factoid an annotator marked on a sentence (its id and text)."""

    id: str
    text: str


@dataclass(frozen=True)
class FactoidsSentenceRow:
    """One summary sentence: each annotator's marks on it, in the comparison's
    annotator order; ``differs`` when a pair of annotators has a discrepancy on it
    (see :class:`FactoidsDiscrepancy`) or some annotators mark it and others do not."""

    summary: str
    model: bool
    id: str
    text: str
    marks: tuple[tuple[FactoidsMark, ...], ...]
    differs: bool
    #: the marks of the inventories shown beside the annotators' and counted in nothing (the gold)
    beside: tuple[tuple[FactoidsMark, ...], ...] = ()


@dataclass(frozen=True)
class FactoidsRelation:
    """A suggested relation: identity (one factoid each side) or subsumption."""

    first: tuple[str, ...]
    second: tuple[str, ...]

    @property
    def kind(self) -> str:
        return "identity" if len(self.first) == len(self.second) == 1 else "subsumption"


@dataclass(frozen=True)
class FactoidsDiscrepancy:
    """A sentence where one annotator marked a factoid and the other did not
    mark its identical counterpart: ``first_factoid`` (the first annotator's
    id) = ``second_factoid`` (the second's), ``marked_by`` the one who marked it."""

    sentence: str
    first_factoid: str
    second_factoid: str
    marked_by: str


@dataclass(frozen=True)
class FactoidsAnnotatorPair:
    """Two annotators: the relations suggested between their inventories, factoid
    definition kappa (None when undefined) and their discrepancies."""

    first: str
    second: str
    relations: tuple[FactoidsRelation, ...]
    definition_kappa: float | None
    discrepancies: tuple[FactoidsDiscrepancy, ...]


@dataclass(frozen=True)
class FactoidsComparison:
    """Every annotator's inventory and marks of one topic side by side, and every pair."""

    annotators: tuple[str, ...]
    inventories: tuple[FactoidsInventory, ...]
    sentences: tuple[FactoidsSentenceRow, ...]
    pairs: tuple[FactoidsAnnotatorPair, ...]
    #: the inventories shown beside the annotators' (``Adjudication.compare``'s ``beside``: the gold), by label
    beside: tuple[FactoidsInventory, ...] = ()

    @property
    def side_by_side(self) -> tuple[tuple[FactoidsInventory, bool], ...]:
        """Every annotator's inventory, then those shown beside them (True)."""
        return tuple((i, False) for i in self.inventories) + tuple((b, True) for b in self.beside)

    @property
    def disputed(self) -> tuple[FactoidsSentenceRow, ...]:
        """The sentences the annotators differ on."""
        return tuple(row for row in self.sentences if row.differs)


def compare(
    view: Mapping[str, Any],
    judgments: Sequence[tuple[str, Mapping[str, Any]]],
    beside: Sequence[tuple[str, Mapping[str, Any]]] = (),
) -> FactoidsComparison:
    """The annotators' inventories and marks of the topic ``view`` side by side, and
    ``beside`` them the gold's (counted in nothing).

    >>> view = {"summaries": [{"id": "M", "model": True, "sentences": [
    ...     {"id": f"s{i}", "text": f"Iraq invaded ({i})."} for i in (1, 2, 3)]}]}
    >>> ann = {"factoids": [{"id": "A", "text": "invasion"}], "marks": {"s1": ["A"], "s2": ["A"], "s3": ["A"]}}
    >>> bob = {"factoids": [{"id": "B", "text": "Iraq invaded"}], "marks": {"s1": ["B"], "s2": ["B"]}}
    >>> c = compare(view, [("ann", ann), ("bob", bob)])
    >>> [(r.kind, r.first, r.second) for r in c.pairs[0].relations]
    [('identity', ('A',), ('B',))]
    >>> c.pairs[0].discrepancies
    (FactoidsDiscrepancy(sentence='s3', first_factoid='A', second_factoid='B', marked_by='ann'),)
    >>> [(r.id, r.differs) for r in c.sentences]
    [('s1', False), ('s2', False), ('s3', True)]
    >>> gold = compare(view, [("ann", ann)], [("gold v1", bob)])
    >>> [(r.id, [f.text for f in r.beside[0]]) for r in gold.sentences]
    [('s1', ['Iraq invaded']), ('s2', ['Iraq invaded']), ('s3', [])]
    """
    summaries = [
        {"id": s["id"], "model": bool(s.get("model")), "sentences": [x["id"] for x in s["sentences"]]}
        for s in view["summaries"]
    ]
    annotators = tuple(name for name, _ in judgments)
    payloads = [_inventory_payload(p) for _, p in judgments]
    shown = [_inventory_payload(p) for _, p in beside]
    texts = [{f["id"]: f["text"] for f in p["factoids"]} for p in payloads]
    shown_texts = [{f["id"]: f["text"] for f in p["factoids"]} for p in shown]
    inventories = tuple(_inventory(name, p) for name, p in zip(annotators, payloads))
    pairs = tuple(
        _pair(annotators[i], annotators[j], payloads[i], payloads[j], summaries)
        for i, j in combinations(range(len(payloads)), 2)
    )
    disputed = {d.sentence for pair in pairs for d in pair.discrepancies}
    rows = []
    for summary in view["summaries"]:
        for sentence in summary["sentences"]:
            marks = tuple(
                tuple(FactoidsMark(f, known.get(f, "")) for f in p["marks"].get(sentence["id"], []))
                for p, known in zip(payloads, texts)
            )
            marked = {bool(found) for found in marks}
            beside_marks = tuple(
                tuple(FactoidsMark(f, known.get(f, "")) for f in p["marks"].get(sentence["id"], []))
                for p, known in zip(shown, shown_texts)
            )
            rows.append(
                FactoidsSentenceRow(
                    summary=summary["id"],
                    model=bool(summary.get("model")),
                    id=sentence["id"],
                    text=sentence["text"],
                    marks=marks,
                    differs=sentence["id"] in disputed or len(marked) > 1,
                    beside=beside_marks,
                )
            )
    return FactoidsComparison(
        annotators=annotators,
        inventories=inventories,
        sentences=tuple(rows),
        pairs=pairs,
        beside=tuple(_inventory(label, p) for (label, _), p in zip(beside, shown)),
    )


def _inventory_payload(payload: Mapping[str, Any]) -> dict[str, Any]:
    return {"factoids": list(payload.get("factoids", [])), "marks": dict(payload.get("marks", {}))}


def _inventory(name: str, payload: Mapping[str, Any]) -> FactoidsInventory:
    return FactoidsInventory(
        annotator=name,
        factoids=tuple(
            FactoidsFactoid(
                id=f["id"],
                text=f["text"],
                sentences=tuple(s for s, found in payload["marks"].items() if f["id"] in found),
            )
            for f in payload["factoids"]
        ),
    )


def _pair(first: str, second: str, one: dict, two: dict, summaries: list[dict[str, Any]]) -> FactoidsAnnotatorPair:
    relations = suggested_relations(one, two, summaries)
    identities = one_to_one([r for r in relations if len(r["first"]) == len(r["second"]) == 1])
    counterparts = {r["first"][0]: r["second"][0] for r in identities}
    kappa = m.definition_kappa(relations, one, two, summaries).kappa
    discrepancies = tuple(
        FactoidsDiscrepancy(
            sentence=d.sentence,
            first_factoid=d.factoid,
            second_factoid=counterparts[d.factoid],
            marked_by=first if d.kind == "only_you" else second,
        )
        for d in m.discrepancies(one, two, summaries, counterparts=counterparts)
    )
    return FactoidsAnnotatorPair(
        first=first,
        second=second,
        relations=tuple(FactoidsRelation(tuple(r["first"]), tuple(r["second"])) for r in relations),
        definition_kappa=None if kappa != kappa else float(kappa),
        discrepancies=discrepancies,
    )
