"""The preference kind's part of the adjudication page (kinds.spec.Adjudication): each pair of
the topic's outputs with every assessor's verdict in the pair's terms (output 1 better, output 2
better, a tie, both bad: whichever side each was shown it on), the split pairs marked, and the
consensus: the verdict given most (none on a tie), saved with the pair's outputs in order."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kinds.preference.data import positions

#: A verdict in the pair's terms: the first output better, the second, a tie, both bad.
FIRST, SECOND, TIE, BOTH_BAD = "first", "second", "tie", "both_bad"


def in_pair_terms(verdict: Mapping[str, Any]) -> str:
    """``first`` or ``second`` (the pair's lower or higher output better), ``tie`` or ``both_bad``.

    >>> in_pair_terms({"pair": "1-2", "left": 2, "right": 1, "choice": "left"})
    'second'
    """
    choice = verdict["choice"]
    if choice in (TIE, BOTH_BAD):
        return choice
    winner = verdict["left"] if choice == "left" else verdict["right"]
    return FIRST if winner == positions(verdict["pair"])[0] else SECOND


@dataclass(frozen=True)
class PreferenceVote:
    assessor: str
    #: The verdicts in the pair's terms (an imported rater may have several; empty: not judged).
    verdicts: tuple[str, ...]


@dataclass(frozen=True)
class PreferenceComparisonRow:
    pair: str
    first: int
    second: int
    votes: tuple[PreferenceVote, ...]
    counts: tuple[tuple[str, int], ...]
    consensus: str | None
    beside: tuple[PreferenceVote, ...] = ()

    @property
    def split(self) -> bool:
        return len(self.counts) > 1


@dataclass(frozen=True)
class PreferenceComparison:
    assessors: tuple[str, ...]
    rows: tuple[PreferenceComparisonRow, ...]
    beside: tuple[str, ...] = ()

    @property
    def splits(self) -> int:
        return sum(row.split for row in self.rows)


def _verdicts(name: str, payload: Mapping[str, Any], pair: str) -> PreferenceVote:
    return PreferenceVote(name, tuple(in_pair_terms(v) for v in payload.get("verdicts", []) if v.get("pair") == pair))


def _most(values: Sequence[str]) -> tuple[tuple[tuple[str, int], ...], str | None]:
    counted = Counter(values).most_common()
    if not counted or (len(counted) > 1 and counted[0][1] == counted[1][1]):
        return tuple(counted), None
    return tuple(counted), counted[0][0]


def compare(
    view: Mapping[str, Any],
    judgments: Sequence[tuple[str, Mapping[str, Any]]],
    beside: Sequence[tuple[str, Mapping[str, Any]]] = (),
) -> PreferenceComparison:
    """Every pair of the assessor view with each assessor's verdicts, and those ``beside`` them.

    >>> view = {"pairs": ["1-2"]}
    >>> c = compare(view, [("ann", {"verdicts": [{"pair": "1-2", "left": 1, "right": 2, "choice": "left"}]}),
    ...                    ("bea", {"verdicts": [{"pair": "1-2", "left": 2, "right": 1, "choice": "right"}]})])
    >>> c.rows[0].counts, c.rows[0].consensus, c.splits
    ((('first', 2),), 'first', 0)
    """
    names = tuple(name for name, _ in judgments)
    rows = []
    for pair in view["pairs"]:
        votes = tuple(_verdicts(name, payload, pair) for name, payload in judgments)
        counts, most = _most([verdict for vote in votes for verdict in vote.verdicts])
        first, second = positions(pair)
        rows.append(
            PreferenceComparisonRow(
                pair, first, second, votes, counts, most, tuple(_verdicts(label, p, pair) for label, p in beside)
            )
        )
    return PreferenceComparison(names, tuple(rows), tuple(label for label, _ in beside))


def consensus(view: Mapping[str, Any], payloads: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The verdict given most on each pair (none on a tie), the pair's outputs in order.

    >>> consensus({"pairs": ["1-2"]}, [{"verdicts": [{"pair": "1-2", "left": 2, "right": 1, "choice": "left"}]}])
    {'verdicts': [{'pair': '1-2', 'left': 1, 'right': 2, 'choice': 'right'}]}
    """
    found = []
    for pair in view["pairs"]:
        _, most = _most([in_pair_terms(v) for p in payloads for v in p.get("verdicts", []) if v.get("pair") == pair])
        if most is None:
            continue
        first, second = positions(pair)
        choice = {FIRST: "left", SECOND: "right"}.get(most, most)
        found.append({"pair": pair, "left": first, "right": second, "choice": choice})
    return {"verdicts": found}
