"""The relevance kind's part of the adjudication page (kinds.spec.Adjudication):
every document with each assessor's grade, the range of the grades and the
documents whose grades differ marked, and the consensus grade: the lower
median (``kinds.relevance.stats.consensus_grades``, the consensus qrels'
rule): with an even number of grades, the lower of the two middle ones, so a
1-2 split gives 1 and a tie never makes a document more relevant."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kinds.relevance.stats import consensus_grades


@dataclass(frozen=True)
class RelevanceGrade:
    assessor: str
    #: The grade (a position on the campaign's scale), None: not graded.
    grade: int | None


@dataclass(frozen=True)
class RelevanceRow:
    id: str
    text: str
    grades: tuple[RelevanceGrade, ...]
    #: The lowest and highest grade given (None: nobody graded it).
    low: int | None
    high: int | None
    #: The lower median of the grades (None: nobody graded it).
    consensus: int | None
    #: The grades shown beside the assessors' and counted in nothing (the gold, a reference), by label.
    beside: tuple[RelevanceGrade, ...] = ()

    @property
    def split(self) -> bool:
        """The assessors who graded it did not all give the same grade."""
        return self.low is not None and self.low != self.high

    @property
    def spread(self) -> int:
        """Highest minus lowest grade (0: agreement)."""
        return 0 if self.low is None else self.high - self.low


@dataclass(frozen=True)
class RelevanceComparison:
    title: str
    description: str
    narrative: str
    assessors: tuple[str, ...]
    rows: tuple[RelevanceRow, ...]
    #: The labels of the columns beside the assessors' (``Adjudication.compare``'s ``beside``).
    beside: tuple[str, ...] = ()

    @property
    def splits(self) -> int:
        return sum(row.split for row in self.rows)


def _grades(view: Mapping[str, Any], payloads: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """(assessors, documents): the grade, NaN not graded."""
    ids = [d["id"] for d in view["documents"]]
    grades = np.full((len(payloads), len(ids)), np.nan)
    for a, payload in enumerate(payloads):
        for i, document in enumerate(ids):
            grade = payload.get("grades", {}).get(document)
            if grade is not None:
                grades[a, i] = grade
    return grades


def _lower_median(grades: np.ndarray) -> np.ndarray:
    if grades.shape[0] == 0:
        return np.full(grades.shape[1], np.nan)
    return consensus_grades(grades)


def _given(grades: np.ndarray, i: int, names: Sequence[str]) -> tuple[RelevanceGrade, ...]:
    return tuple(
        RelevanceGrade(name, None if np.isnan(grades[a, i]) else int(grades[a, i])) for a, name in enumerate(names)
    )


def compare(
    view: Mapping[str, Any],
    judgments: Sequence[tuple[str, Mapping[str, Any]]],
    beside: Sequence[tuple[str, Mapping[str, Any]]] = (),
) -> RelevanceComparison:
    """Every document of the assessor view with each assessor's grade, and the grades
    ``beside`` them (the gold, a reference: counted in nothing).

    >>> view = {"title": "reefs", "documents": [{"id": "d1", "text": "heat"}, {"id": "d2", "text": "fish"}]}
    >>> c = compare(view, [("alice", {"grades": {"d1": 3, "d2": 0}}), ("bob", {"grades": {"d1": 1, "d2": 0}})],
    ...             [("gold v2", {"grades": {"d1": 2, "d2": 0}})])
    >>> [(r.id, r.low, r.high, r.split, r.consensus, r.beside[0].grade) for r in c.rows]
    [('d1', 1, 3, True, 1, 2), ('d2', 0, 0, False, 0, 0)]
    """
    names = tuple(name for name, _ in judgments)
    grades = _grades(view, [payload for _, payload in judgments])
    labels = tuple(label for label, _ in beside)
    shown_beside = _grades(view, [payload for _, payload in beside])
    median = _lower_median(grades)
    rows = []
    for i, document in enumerate(view["documents"]):
        given = _given(grades, i, names)
        shown = [g.grade for g in given if g.grade is not None]
        rows.append(
            RelevanceRow(
                id=document["id"],
                text=document["text"],
                grades=given,
                low=min(shown) if shown else None,
                high=max(shown) if shown else None,
                consensus=None if np.isnan(median[i]) else int(median[i]),
                beside=_given(shown_beside, i, labels),
            )
        )
    return RelevanceComparison(
        title=view["title"],
        description=view.get("description", ""),
        narrative=view.get("narrative", ""),
        assessors=names,
        rows=tuple(rows),
        beside=labels,
    )


def consensus(view: Mapping[str, Any], payloads: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The lower median grade of every graded document (a 1-2 tie gives 1; 0, 2, 3 gives 2);
    documents nobody graded are left out.

    >>> view = {"title": "t", "documents": [{"id": "d1", "text": ""}, {"id": "d2", "text": ""}, {"id": "d3", "text": ""}]}
    >>> consensus(view, [{"grades": {"d1": 1, "d2": 0}}, {"grades": {"d1": 2, "d2": 2}}, {"grades": {"d2": 3}}])
    {'grades': {'d1': 1, 'd2': 2}}
    """
    median = _lower_median(_grades(view, payloads))
    ids = [d["id"] for d in view["documents"]]
    return {"grades": {d: int(median[i]) for i, d in enumerate(ids) if not np.isnan(median[i])}}
