"""The labels kind's part of the adjudication page (kinds.spec.Adjudication): every item
with each assessor's label, the items whose labels differ marked, and the consensus: the
label given most (none on a tie, kinds.labels.stats.consensus), what "Accept the
consensus" saves."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class LabelsVote:
    assessor: str
    #: The label (None: not labelled, or "can't tell").
    label: Any
    #: The assessor said "can't tell".
    cant_tell: bool = False


@dataclass(frozen=True)
class LabelsRow:
    id: str
    text: str
    votes: tuple[LabelsVote, ...]
    #: How many assessors gave each label, most given first.
    counts: tuple[tuple[Any, int], ...]
    #: The label given most (None: nobody labelled it, or a tie).
    consensus: Any
    #: The labels shown beside the votes and counted in nothing (the gold, a reference), by label.
    beside: tuple[LabelsVote, ...] = ()

    @property
    def split(self) -> bool:
        """The assessors who labelled it did not all give the same label."""
        return len(self.counts) > 1


@dataclass(frozen=True)
class LabelsComparison:
    assessors: tuple[str, ...]
    rows: tuple[LabelsRow, ...]
    #: The labels of the columns beside the assessors' (``Adjudication.compare``'s ``beside``).
    beside: tuple[str, ...] = ()

    @property
    def splits(self) -> int:
        return sum(row.split for row in self.rows)


def _vote(name: str, payload: Mapping[str, Any], item: str) -> LabelsVote:
    labels = payload.get("labels", {})
    return LabelsVote(name, labels.get(item), item in labels and labels[item] is None)


def _most(labels: Sequence[Any]) -> tuple[tuple[tuple[Any, int], ...], Any]:
    """(each label with its count, most given first; the label given most, None on a tie)."""
    counted = Counter(labels).most_common()
    if not counted or (len(counted) > 1 and counted[0][1] == counted[1][1]):
        return tuple(counted), None
    return tuple(counted), counted[0][0]


def compare(
    view: Mapping[str, Any],
    judgments: Sequence[tuple[str, Mapping[str, Any]]],
    beside: Sequence[tuple[str, Mapping[str, Any]]] = (),
) -> LabelsComparison:
    """Every item of the assessor view with each assessor's label, and the labels ``beside``
    them (the gold, a reference: counted in nothing).

    >>> view = {"items": [{"id": "i1", "text": "a cat"}, {"id": "i2", "text": "a dog"}]}
    >>> c = compare(view, [("alice", {"labels": {"i1": "cat", "i2": "dog"}}),
    ...                    ("bob", {"labels": {"i1": "cat", "i2": "cat"}})], [("gold v1", {"labels": {"i2": "dog"}})])
    >>> [(r.id, r.counts, r.split, r.consensus, r.beside[0].label) for r in c.rows]
    [('i1', (('cat', 2),), False, 'cat', None), ('i2', (('dog', 1), ('cat', 1)), True, None, 'dog')]
    """
    names = tuple(name for name, _ in judgments)
    rows = []
    for item in view["items"]:
        votes = tuple(_vote(name, payload, item["id"]) for name, payload in judgments)
        counts, most = _most([v.label for v in votes if v.label is not None])
        rows.append(
            LabelsRow(
                id=item["id"],
                text=item["text"],
                votes=votes,
                counts=counts,
                consensus=most,
                beside=tuple(_vote(label, payload, item["id"]) for label, payload in beside),
            )
        )
    return LabelsComparison(assessors=names, rows=tuple(rows), beside=tuple(label for label, _ in beside))


def consensus(view: Mapping[str, Any], payloads: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The label given most to each item (a tie, or nobody: the item is left out).

    >>> view = {"items": [{"id": "i1", "text": ""}, {"id": "i2", "text": ""}]}
    >>> consensus(view, [{"labels": {"i1": 3, "i2": 1}}, {"labels": {"i1": 3, "i2": 2}}])
    {'labels': {'i1': 3}}
    """
    found = {}
    for item in view["items"]:
        _, most = _most(
            [p.get("labels", {}).get(item["id"]) for p in payloads if p.get("labels", {}).get(item["id"]) is not None]
        )
        if most is not None:
            found[item["id"]] = most
    return {"labels": found}
