"""The pairs kind's part of the adjudication page (kinds.spec.Adjudication): every
candidate with who voted match and who voted no match, split candidates marked,
and the consensus truth set's answer (AWM Table 1, type 1: a tie or a majority
of match votes makes a match, as ``kinds.pairs.stats.consensus``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kinds.pairs.stats import consensus as consensus_truth


@dataclass(frozen=True)
class PairsVote:
    assessor: str
    #: True match, False no match, None not judged (e.g. not in their share of a one-per-item design).
    match: bool | None


@dataclass(frozen=True)
class PairsRow:
    id: str
    text: str
    votes: tuple[PairsVote, ...]
    matches: int
    judged: int
    #: The consensus truth set's answer (None: nobody judged it).
    consensus: bool | None
    #: The answers shown beside the votes and counted in nothing (the gold, a reference), by label.
    beside: tuple[PairsVote, ...] = ()

    @property
    def split(self) -> bool:
        """Some judged it a match and some did not."""
        return 0 < self.matches < self.judged

    @property
    def voted_match(self) -> list[str]:
        return [v.assessor for v in self.votes if v.match is True]

    @property
    def voted_no_match(self) -> list[str]:
        return [v.assessor for v in self.votes if v.match is False]


@dataclass(frozen=True)
class PairsComparison:
    query: str
    assessors: tuple[str, ...]
    rows: tuple[PairsRow, ...]
    #: The labels of the columns beside the assessors' (``Adjudication.compare``'s ``beside``).
    beside: tuple[str, ...] = ()

    @property
    def splits(self) -> int:
        return sum(row.split for row in self.rows)


def _votes(view: Mapping[str, Any], payloads: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """(candidates, assessors): 1 match, 0 no match, NaN not judged."""
    ids = [c["id"] for c in view["candidates"]]
    votes = np.full((len(ids), len(payloads)), np.nan)
    for a, payload in enumerate(payloads):
        for i, candidate in enumerate(ids):
            value = payload.get("matches", {}).get(candidate)
            if value is not None:
                votes[i, a] = float(value)
    return votes


def _cast(votes: np.ndarray, i: int, names: Sequence[str]) -> tuple[PairsVote, ...]:
    return tuple(PairsVote(name, None if np.isnan(votes[i, a]) else bool(votes[i, a])) for a, name in enumerate(names))


def compare(
    view: Mapping[str, Any],
    judgments: Sequence[tuple[str, Mapping[str, Any]]],
    beside: Sequence[tuple[str, Mapping[str, Any]]] = (),
) -> PairsComparison:
    """Every candidate of the assessor view with each assessor's vote, and the answers
    ``beside`` them (the gold, a reference: counted in nothing).

    >>> view = {"query": "Ann", "candidates": [{"id": "c1", "text": "Anne"}, {"id": "c2", "text": "Ana"}]}
    >>> c = compare(view, [("alice", {"matches": {"c1": True, "c2": True}}),
    ...                    ("bob", {"matches": {"c1": True, "c2": False}})], [("gold v1", {"matches": {"c2": False}})])
    >>> [(r.id, r.matches, r.judged, r.split, r.consensus, r.beside[0].match) for r in c.rows]
    [('c1', 2, 2, False, True, None), ('c2', 1, 2, True, True, False)]
    """
    names = tuple(name for name, _ in judgments)
    votes = _votes(view, [payload for _, payload in judgments])
    shown = _votes(view, [payload for _, payload in beside])
    labels = tuple(label for label, _ in beside)
    truth = consensus_truth(votes) if len(names) else np.full(len(view["candidates"]), np.nan)
    rows = []
    for i, candidate in enumerate(view["candidates"]):
        cast = _cast(votes, i, names)
        judged = sum(v.match is not None for v in cast)
        rows.append(
            PairsRow(
                id=candidate["id"],
                text=candidate["text"],
                votes=cast,
                matches=sum(v.match is True for v in cast),
                judged=judged,
                consensus=None if np.isnan(truth[i]) else bool(truth[i]),
                beside=_cast(shown, i, labels),
            )
        )
    return PairsComparison(query=view["query"], assessors=names, rows=tuple(rows), beside=labels)


def consensus(view: Mapping[str, Any], payloads: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Majority of the votes per candidate, a tie counted as a match (AWM Table 1, type 1);
    candidates nobody judged are left out.

    >>> view = {"query": "Ann", "candidates": [{"id": "c1", "text": ""}, {"id": "c2", "text": ""}, {"id": "c3", "text": ""}]}
    >>> consensus(view, [{"matches": {"c1": False, "c2": True}}, {"matches": {"c1": False, "c2": False}}])
    {'matches': {'c1': False, 'c2': True}}
    """
    truth = consensus_truth(_votes(view, payloads))
    ids = [c["id"] for c in view["candidates"]]
    return {"matches": {c: bool(truth[i]) for i, c in enumerate(ids) if not np.isnan(truth[i])}}
