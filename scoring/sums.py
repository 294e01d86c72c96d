"""Running sums: the figures of a campaign report that are made from counts, kept
current by each topic's change rather than rebuilt from every topic.

A kind whose ``Reports`` gives ``sums`` (kinds/spec.py) declares a *sums* type: a
dataclass of counts (``int``, ``list[int]`` added place by place, and
``dict[str, list[int]]`` added key by key), sums of floats where a figure is a
mean (a dict entry holding floats starts with its count, an int, and goes when
that count does), and per-topic entries (``dict[str, <dataclass or named tuple>]``, keyed by the
topic: added on the way in, removed on the way out) for what a report lists topic
by topic; and a function from one topic's partial to its contribution. The campaign's sums are the sum of every topic's
contribution, stored beside the report (:data:`SUMS`); a rebuild after a change
subtracts the changed topics' old contributions (their stored partials) and adds
their new ones, reading and writing what those topics changed and not every
partial of the campaign. The kind's ``refresh(fits, sums)`` then gives the
campaign report: every figure made from counts (agreement coefficients, pair
tables, per-assessor rates, the systems' scores) from the sums, and what needs
every item at once (bootstrap intervals, Dawid-Skene and MACE fits, ranking
stability) from ``fits``, the last full merge of every partial (:data:`FITS`),
which a task on the analyses queue refreshes on its own cadence
(``CONCORD_FITS_INTERVAL``). The report's page says how current those are.

Counts are integers, so sums kept this way equal a recompute from scratch
exactly, whatever the order of the changes (sums of floats to rounding: 1e-12) (``tests/scoring/test_sums.py`` drives
random changes and compares them with the sums of fresh partials; the kinds'
tests check that ``refresh(merge(p), sums(p))`` is ``merge(p)``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any, TypeVar

__all__ = ["FITS", "SUMS", "add", "total"]

#: The stored report rows (scoring.models.Report) beside ``agreement``: the campaign's running
#: sums, and the full merge whose costly figures the fast rebuilds carry.
SUMS = "sums"
FITS = "fits"

S = TypeVar("S")


def add(into: S, other: S, sign: int = 1) -> S:
    """``into`` plus ``sign`` times ``other``, field by field: ints added, lists of ints added
    place by place (the shorter padded with zeros), dicts of lists of ints added key by key
    (a key whose counts all come to zero is dropped, so sums reached by any path are equal).

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Counts:
    ...     items: int
    ...     per: dict[str, list[int]]
    >>> a = Counts(3, {"x": [1, 2], "y": [1, 0]})
    >>> add(a, Counts(1, {"y": [1, 0]}), -1)
    Counts(items=2, per={'x': [1, 2]})
    >>> add(a, Counts(2, {"z": [0, 4]}))
    Counts(items=5, per={'x': [1, 2], 'y': [1, 0], 'z': [0, 4]})
    >>> a
    Counts(items=3, per={'x': [1, 2], 'y': [1, 0]})
    """
    return _summed(into, [(other, sign)])


def total(empty: S, contributions: Iterable[S], sign: int = 1) -> S:
    """``empty`` plus ``sign`` times each of ``contributions``: one copy of ``empty``, every
    contribution added into it in place (a campaign's sums of 10,000 topics cost their
    counts, not 10,000 copies of the sums).

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Counts:
    ...     items: int
    ...     per: list[int]
    >>> total(Counts(0, []), [Counts(2, [1]), Counts(3, [0, 1])])
    Counts(items=5, per=[1, 1])
    """
    return _summed(empty, [(one, sign) for one in contributions])


def _summed(into: S, others: Iterable[tuple[S, int]]) -> S:
    names = [field.name for field in dataclasses.fields(into)]  # type: ignore[arg-type]
    fields = {name: _copy(getattr(into, name), name) for name in names}
    for other, sign in others:
        for name in names:
            fields[name] = _add_into(fields[name], getattr(other, name), sign, name)
    return dataclasses.replace(into, **fields)  # type: ignore[type-var]


def _copy(value: Any, name: str) -> Any:
    if isinstance(value, bool):
        raise TypeError(f"sums field {name}: a bool is not a count")
    if isinstance(value, list):
        return list(value)
    if isinstance(value, dict):
        return {key: list(entry) if isinstance(entry, list) else entry for key, entry in value.items()}
    return value


def _add_into(mine: Any, theirs: Any, sign: int, name: str) -> Any:
    """``mine`` (a copy this sum owns) plus ``sign`` times ``theirs``, in place where it can be."""
    if isinstance(theirs, bool):
        raise TypeError(f"sums field {name}: a bool is not a count")
    if isinstance(mine, int | float) and isinstance(theirs, int | float):
        return mine + sign * theirs
    if isinstance(mine, list) and isinstance(theirs, list):
        _add_list(mine, theirs, sign)
        return mine
    if isinstance(mine, dict) and isinstance(theirs, dict):
        for key, counts in theirs.items():
            if not isinstance(counts, list):  # a per-topic entry: in, or out
                if sign > 0:
                    mine[key] = counts
                else:
                    mine.pop(key, None)
                continue
            found = mine.get(key)
            if found is None:
                if any(counts):
                    mine[key] = [sign * c for c in counts]
            else:
                _add_list(found, counts, sign)
                if _gone(found):
                    del mine[key]
        return mine
    raise TypeError(f"sums field {name}: cannot add {type(theirs).__name__} to {type(mine).__name__}")


def _gone(counts: list) -> bool:
    """Whether a dict entry of sums is empty: every count zero, or, for an entry holding
    floats (whose sums may keep a rounding's trace), its leading count."""
    if any(isinstance(c, float) for c in counts):
        return counts[0] == 0
    return not any(counts)


def _add_list(mine: list[int], theirs: list[int], sign: int) -> None:
    if len(mine) < len(theirs):
        mine.extend([0] * (len(theirs) - len(mine)))
    for k, value in enumerate(theirs):
        mine[k] += sign * value
