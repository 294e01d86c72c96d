"""The nuggets kind's part of the adjudication page (kinds.spec.Adjudication): every
nugget with each assessor's vital/okay label, and, where the campaign judges
responses, every response with the nuggets each assessor found in it; splits
marked. The consensus is the majority: a nugget is vital when at least half of
those who labelled it said vital (a tie counts as vital, as a tie counts as a
match in the pairs kind's consensus), and a response contains a nugget when at
least half of those who judged the response marked it. The original labels
are hidden from assessors (blind assessment) and are not shown here either."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class NuggetsLabel:
    assessor: str
    #: "vital", "okay", or None: not labelled.
    label: str | None


@dataclass(frozen=True)
class NuggetsLabelRow:
    id: str
    text: str
    labels: tuple[NuggetsLabel, ...]
    vital: int
    labelled: int
    #: The majority label, a tie vital (None: nobody labelled it).
    consensus: str | None
    #: The labels shown beside the assessors' and counted in nothing (the gold, a reference), by label.
    beside: tuple[NuggetsLabel, ...] = ()

    @property
    def split(self) -> bool:
        return 0 < self.vital < self.labelled


@dataclass(frozen=True)
class NuggetsMark:
    assessor: str
    #: The assessor found the nugget in the response; None: they did not judge the response.
    found: bool | None


@dataclass(frozen=True)
class NuggetsMatchRow:
    """One nugget within one response."""

    nugget: str
    text: str
    marks: tuple[NuggetsMark, ...]
    found: int
    judged: int
    #: Contained by majority, a tie contained (None: nobody judged the response).
    consensus: bool | None
    #: The marks shown beside the assessors' and counted in nothing (the gold, a reference).
    beside: tuple[NuggetsMark, ...] = ()

    @property
    def split(self) -> bool:
        return 0 < self.found < self.judged


@dataclass(frozen=True)
class NuggetsResponse:
    id: str
    text: str
    rows: tuple[NuggetsMatchRow, ...]

    @property
    def splits(self) -> int:
        return sum(row.split for row in self.rows)


@dataclass(frozen=True)
class NuggetsComparison:
    target: str
    assessors: tuple[str, ...]
    nuggets: tuple[NuggetsLabelRow, ...]
    #: Only responses some assessor judged.
    responses: tuple[NuggetsResponse, ...]
    #: The labels of the columns beside the assessors' (``Adjudication.compare``'s ``beside``).
    beside: tuple[str, ...] = ()

    @property
    def label_splits(self) -> int:
        return sum(row.split for row in self.nuggets)

    @property
    def match_splits(self) -> int:
        return sum(response.splits for response in self.responses)


def _majority(yes: int, total: int) -> bool | None:
    return None if total == 0 else 2 * yes >= total


def _labels(nugget: str, names: Sequence[str], payloads: Sequence[Mapping[str, Any]]) -> tuple[NuggetsLabel, ...]:
    return tuple(NuggetsLabel(name, p.get("labels", {}).get(nugget)) for name, p in zip(names, payloads))


def _marks(response: str, nugget: str, names: Sequence[str], payloads: Sequence[Mapping[str, Any]]):
    """Each one's mark of ``nugget`` in ``response`` (None: they did not judge the response)."""
    return tuple(
        NuggetsMark(name, nugget in p["matches"][response] if response in p.get("matches", {}) else None)
        for name, p in zip(names, payloads)
    )


def compare(
    view: Mapping[str, Any],
    judgments: Sequence[tuple[str, Mapping[str, Any]]],
    beside: Sequence[tuple[str, Mapping[str, Any]]] = (),
) -> NuggetsComparison:
    """Every nugget's labels and every judged response's marks, per assessor, and
    ``beside`` them the gold's or a reference's (counted in nothing).

    >>> view = {"target": "Aspirin", "nuggets": [{"id": "n1", "text": "a painkiller"}, {"id": "n2", "text": "Bayer"}],
    ...         "responses": [{"id": "r1", "text": "A painkiller."}]}
    >>> c = compare(view, [("alice", {"labels": {"n1": "vital", "n2": "vital"}, "matches": {"r1": ["n1"]}}),
    ...                    ("bob", {"labels": {"n1": "vital", "n2": "okay"}, "matches": {"r1": []}})])
    >>> [(r.id, r.vital, r.labelled, r.split, r.consensus) for r in c.nuggets]
    [('n1', 2, 2, False, 'vital'), ('n2', 1, 2, True, 'vital')]
    >>> [(r.nugget, r.found, r.judged, r.split, r.consensus) for r in c.responses[0].rows]
    [('n1', 1, 2, True, True), ('n2', 0, 2, False, False)]
    >>> gold = compare(view, [("alice", {"labels": {"n1": "vital"}, "matches": {}})],
    ...                [("gold v1", {"labels": {"n1": "okay"}, "matches": {"r1": ["n2"]}})])
    >>> [(r.id, r.consensus, r.beside[0].label) for r in gold.nuggets]
    [('n1', 'vital', 'okay'), ('n2', None, None)]
    >>> [(r.nugget, r.judged, r.beside[0].found) for r in gold.responses[0].rows]
    [('n1', 0, False), ('n2', 0, True)]
    """
    names = tuple(name for name, _ in judgments)
    payloads = [payload for _, payload in judgments]
    columns = tuple(label for label, _ in beside)
    shown = [payload for _, payload in beside]
    rows = []
    for nugget in view["nuggets"]:
        labels = _labels(nugget["id"], names, payloads)
        vital = sum(entry.label == "vital" for entry in labels)
        labelled = sum(entry.label is not None for entry in labels)
        majority = _majority(vital, labelled)
        rows.append(
            NuggetsLabelRow(
                id=nugget["id"],
                text=nugget["text"],
                labels=labels,
                vital=vital,
                labelled=labelled,
                consensus=None if majority is None else ("vital" if majority else "okay"),
                beside=_labels(nugget["id"], columns, shown),
            )
        )
    responses = []
    for response in view.get("responses", []):
        if not any(response["id"] in p.get("matches", {}) for p in [*payloads, *shown]):
            continue
        cells = []
        for nugget in view["nuggets"]:
            marks = _marks(response["id"], nugget["id"], names, payloads)
            found = sum(mark.found is True for mark in marks)
            judged = sum(mark.found is not None for mark in marks)
            cells.append(
                NuggetsMatchRow(
                    nugget["id"],
                    nugget["text"],
                    marks,
                    found,
                    judged,
                    _majority(found, judged),
                    _marks(response["id"], nugget["id"], columns, shown),
                )
            )
        responses.append(NuggetsResponse(response["id"], response["text"], tuple(cells)))
    return NuggetsComparison(
        target=view["target"], assessors=names, nuggets=tuple(rows), responses=tuple(responses), beside=columns
    )


def consensus(view: Mapping[str, Any], payloads: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The majority label of every labelled nugget (a tie: vital) and, for every
    response someone judged, the nuggets at least half of its judges found in it.

    >>> view = {"target": "t", "nuggets": [{"id": "n1", "text": ""}, {"id": "n2", "text": ""}, {"id": "n3", "text": ""}],
    ...         "responses": [{"id": "r1", "text": ""}, {"id": "r2", "text": ""}]}
    >>> consensus(view, [{"labels": {"n1": "okay", "n2": "vital"}, "matches": {"r1": ["n1", "n2"]}},
    ...                  {"labels": {"n1": "okay", "n2": "okay"}, "matches": {"r1": ["n2"]}},
    ...                  {"labels": {"n1": "vital"}, "matches": {}}])
    {'labels': {'n1': 'okay', 'n2': 'vital'}, 'matches': {'r1': ['n1', 'n2']}}
    """
    compared = compare(view, [(str(i), p) for i, p in enumerate(payloads)])
    return {
        "labels": {row.id: row.consensus for row in compared.nuggets if row.consensus is not None},
        "matches": {r.id: [row.nugget for row in r.rows if row.consensus] for r in compared.responses},
    }
