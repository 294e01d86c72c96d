"""Running sums: the figures of a campaign report that are made from counts, kept
current by each topic's change rather than rebuilt from every topic.

A kind whose ``Reports`` gives ``sums`` (kinds/spec.py) declares a *sums* type: a
dataclass of counts (``int``, ``list[int]`` added place by place, and
``dict[str, list[int]]`` added key by key), sums of floats where a figure is a
mean (a dict entry holding floats starts with its count, an int, and goes when
that count does); per pair of names, counts a crowd's millions of pairs need held as arrays
(:class:`PairTables`); and a function from one topic's partial to its contribution. The campaign's sums are the sum of every topic's
contribution, stored beside the report (:data:`SUMS`); a rebuild after a change
subtracts the changed topics' old contributions (their stored partials) and adds
their new ones, reading and writing what those topics changed and not every
partial of the campaign. The kind's ``refresh(fits, sums)`` then gives the
campaign report: every figure made from counts (agreement coefficients, pair
tables, per-assessor rates, the systems' scores) from the sums, and what needs
every item at once (bootstrap intervals, Dawid-Skene and MACE fits, ranking
stability) from ``fits``, the last full merge of every partial (:data:`FITS`),
which a task on the analyses queue refreshes on its own cadence
(``CONCORD_FITS_INTERVAL``, and for a big campaign every 1% of its judgments or
``CONCORD_FITS_MAX_AGE``: scoring.jobs.fits_refresh_at). The report's page says how current those are.

Counts are integers, so sums kept this way equal a recompute from scratch
exactly, whatever the order of the changes (sums of floats to rounding: 1e-12) (``tests/scoring/test_sums.py`` drives
random changes and compares them with the sums of fresh partials; the kinds'
tests check that ``refresh(merge(p), sums(p))`` is ``merge(p)``).
"""

from __future__ import annotations

import dataclasses
import math
import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

__all__ = ["FITS", "SUMS", "PairTables", "add", "around", "finite_split", "mean_of", "moved", "total"]

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


def moved(into: S, old: Iterable[S], new: Iterable[S]) -> S:
    """``into`` less each of ``old`` plus each of ``new`` (a change's topics: their contributions
    before and after), in one pass: a crowd's pair tables are merged with the change once.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Counts:
    ...     items: int
    ...     per: dict[str, list[int]]
    >>> moved(Counts(5, {"x": [2]}), [Counts(2, {"x": [2]})], [Counts(3, {"y": [1]})])
    Counts(items=6, per={'y': [1]})
    """
    return _summed(into, [*((one, -1) for one in old), *((one, 1) for one in new)])


def _summed(into: S, others: Iterable[tuple[S, int]]) -> S:
    names = [field.name for field in dataclasses.fields(into)]  # type: ignore[arg-type]
    others = list(others)
    fields = {}
    for name in names:
        mine = getattr(into, name)
        if isinstance(mine, PairTables):  # every addend at once: one pass over the arrays
            fields[name] = mine.summed([(getattr(other, name), sign) for other, sign in others])
            continue
        mine = _copy(mine, name)
        for other, sign in others:
            mine = _add_into(mine, getattr(other, name), sign, name)
        fields[name] = mine
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
    if not any(counts):
        return True
    return any(isinstance(c, float) for c in counts) and counts[0] == 0


def _add_list(mine: list[int], theirs: list[int], sign: int) -> None:
    if len(mine) < len(theirs):
        mine.extend([0] * (len(theirs) - len(mine)))
    if sign == 1 or sign == -1:  # the common case, place by place in C
        mine[: len(theirs)] = map(operator.add if sign == 1 else operator.sub, mine, theirs)
        return
    for k, value in enumerate(theirs):
        mine[k] += sign * value


def finite_split(values: Sequence[float]) -> tuple[list[float], list[int]]:
    """A mean's running sums of ``values`` place by place: the values with the non-finite ones as
    0, and per place the counts of NaN, +inf and -inf (a mean over one of them is not finite).

    >>> finite_split([1.5, float("nan"), float("-inf")])
    ([1.5, 0.0, 0.0], [0, 0, 0, 1, 0, 0, 0, 0, 1])
    """
    finite = [v if math.isfinite(v) else 0.0 for v in values]
    odd = []
    for v in values:
        odd += [int(math.isnan(v)), int(v == math.inf), int(v == -math.inf)]
    return finite, odd


def mean_of(total: float, n: int, nan: int, plus: int, minus: int) -> float:
    """numpy's mean of ``n`` values whose finite ones sum to ``total``, with ``nan``, ``plus`` and
    ``minus`` of them NaN, +inf and -inf (:func:`finite_split`'s sums).

    >>> mean_of(3.0, 2, 0, 0, 0), mean_of(3.0, 3, 0, 1, 0), mean_of(0.0, 2, 0, 1, 1)
    (1.5, inf, nan)
    """
    if n == 0 or nan or (plus and minus):
        return float("nan")
    if plus:
        return math.inf
    if minus:
        return -math.inf
    return total / n


Interval = TypeVar("Interval")


def around(interval: Interval, value: float, units: int) -> Interval:
    """``interval``'s bounds (as of the fits) around the figure ``value`` as it is now, over its
    ``units`` now (a ``stats.intervals.FigureCI``)."""
    return dataclasses.replace(interval, value=value, units=units)  # type: ignore[type-var]


@dataclass(frozen=True)
class PairTables:
    """``width`` counts per pair of names (a pair's 2x2 table: 4), as a running sum.

    A crowd of 2,000 workers who each share items with most others has about 2,000,000
    pairs: as a dict of lists, every rebuild would copy, sort and store millions of Python
    objects. Held here as a sparse upper-triangular matrix, rows in compressed form:
    ``names`` sorted and exactly those in some pair; per name (a row) where its pairs start
    (``starts``, int64, one more than there are names); per pair its second name's index
    (``partners``, the narrowest unsigned integers that hold them) and its counts
    (``counts``, pairs x ``width``, the narrowest unsigned integers that hold the largest);
    pairs in (first, second) order, ``first < second``, no pair whose counts are all zero.
    That form is canonical: sums reached by any order of changes are equal, byte for byte.
    A change's tables merge into the campaign's in one pass of array operations
    (:meth:`summed`); stored, it is three byte strings.

    >>> t = PairTables.of(["b", "a", "c"], [1, 0], [2, 2], [[1, 0], [0, 2]])
    >>> t.names, t.arrays()[0].tolist(), t.arrays()[1].tolist(), t.arrays()[2].tolist()
    (['a', 'b', 'c'], [0, 1], [2, 2], [[1, 0], [0, 2]])
    >>> u = t.summed([(PairTables.of(["c", "b"], [0], [1], [[0, 2]]), -1)])
    >>> u.names, u.arrays()[1].tolist(), u.arrays()[2].tolist(), len(u)
    (['a', 'c'], [1], [[1, 0]], 1)
    """

    names: list[str] = field(default_factory=list)
    width: int = 0
    starts: bytes = b""
    partners: bytes = b""
    counts: bytes = b""
    #: the bytes of one count (1, 2, 4 or 8)
    count_bytes: int = 1

    @classmethod
    def of(
        cls, names: Sequence[str], first: Sequence[int], second: Sequence[int], counts: Sequence[Sequence[int]]
    ) -> PairTables:
        """The tables of pairs (``names[first[p]]``, ``names[second[p]]``) with ``counts[p]``: in
        any order, either name first, each pair once; names unsorted, some in no pair."""
        order = sorted(range(len(names)), key=names.__getitem__)
        sorted_names = [names[k] for k in order]
        if len(set(sorted_names)) != len(sorted_names):
            raise ValueError("PairTables: a name is given twice")
        place = np.empty(len(names), dtype=np.int64)
        place[order] = np.arange(len(names))
        a, b = place[np.asarray(first, dtype=np.int64)], place[np.asarray(second, dtype=np.int64)]
        table = np.asarray(counts, dtype=np.int64).reshape(len(a), -1) if len(a) else np.zeros((0, 0), np.int64)
        if (a == b).any():
            raise ValueError("PairTables: a name paired with itself")
        return cls._from_keys(sorted_names, np.minimum(a, b), np.maximum(a, b), table, table.shape[1], grouped=False)

    def __len__(self) -> int:
        return len(self.partners) // _index_type(len(self.names)).itemsize

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per pair (in order) the index in ``names`` of its first and second name, and its
        counts (pairs x width), as int64 arrays."""
        n = len(self)
        if not n:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, self.width), np.int64)
        starts = np.frombuffer(self.starts, dtype="<i8")
        first = np.repeat(np.arange(len(self.names), dtype=np.int64), np.diff(starts))
        second = np.frombuffer(self.partners, dtype=_index_type(len(self.names))).astype(np.int64)
        counts = np.frombuffer(self.counts, dtype=f"<u{self.count_bytes}").astype(np.int64).reshape(n, self.width)
        return first, second, counts

    def summed(self, others: Sequence[tuple[PairTables, int]]) -> PairTables:
        """These tables plus ``sign`` times each of ``others``' (a pair's counts added place by
        place; a pair whose counts come to zero dropped, a name in no pair left)."""
        others = [(other, sign) for other, sign in others if len(other)]
        if not others:
            return self
        width = max([self.width, *(other.width for other, _ in others)])
        names = sorted(set(self.names).union(*(other.names for other, _ in others)))
        known = np.array(names, dtype=object)
        keys, values = [], []
        for other, sign in others:
            first, second, counts = other.arrays()
            place = np.searchsorted(known, np.array(other.names, dtype=object)) if other.names != names else None
            if place is not None:
                first, second = place[first], place[second]
            keys.append(first * len(names) + second)
            values.append(_widened(counts, width) * sign)
        add_keys, add_values = _grouped(np.concatenate(keys), np.concatenate(values))
        moving = add_values.any(axis=1)  # a pair whose change cancels out is no change
        add_keys, add_values = add_keys[moving], add_values[moving]
        if not len(add_keys):
            return self
        first, second, counts = self.arrays()
        if self.names != names and len(first):
            place = np.searchsorted(known, np.array(self.names, dtype=object))
            first, second = place[first], place[second]
        mine = first * len(names) + second
        counts = _widened(counts, width)
        at = np.searchsorted(mine, add_keys)
        found = at < len(mine)
        found[found] = mine[at[found]] == add_keys[found]
        changed, new = at[found], at[~found]
        counts[changed] += add_values[found]
        first = np.insert(first, new, add_keys[~found] // len(names))
        second = np.insert(second, new, add_keys[~found] % len(names))
        counts = np.insert(counts, new, add_values[~found], axis=0)
        # the changed pairs' places once the new ones are in (each new one before its place)
        changed = changed + np.searchsorted(new, changed, side="right")
        if (counts[changed] < 0).any() or (add_values[~found] < 0).any():
            raise ValueError("PairTables: a count below zero (more taken out than was put in)")
        gone = changed[~counts[changed].any(axis=1)]
        if len(gone):
            first, second, counts = np.delete(first, gone), np.delete(second, gone), np.delete(counts, gone, axis=0)
        # a name may be left in no pair only when a pair went
        return PairTables._encoded(names, first, second, counts, width, names_checked=not len(gone))

    @classmethod
    def _from_keys(
        cls, names: list[str], first: np.ndarray, second: np.ndarray, counts: np.ndarray, width: int, *, grouped: bool
    ) -> PairTables:
        """The canonical tables of these pairs (sorted and summed per pair unless ``grouped``)."""
        if not grouped and len(first):
            keys, counts = _grouped(first * len(names) + second, counts)
            first, second = keys // len(names), keys % len(names)
        kept = counts.any(axis=1) if len(counts) else np.zeros(0, bool)
        first, second, counts = first[kept], second[kept], counts[kept]
        if len(counts) and counts.min() < 0:
            raise ValueError("PairTables: a count below zero (more taken out than was put in)")
        return cls._encoded(names, first, second, counts, width, names_checked=False)

    @classmethod
    def _encoded(
        cls,
        names: list[str],
        first: np.ndarray,
        second: np.ndarray,
        counts: np.ndarray,
        width: int,
        *,
        names_checked: bool,
    ) -> PairTables:
        """The tables of these pairs (in order, none all zero, none below zero), with the names
        in no pair left out unless ``names_checked`` (each name is in some pair)."""
        if not names_checked:
            used = np.zeros(len(names), bool)
            used[first] = used[second] = True
            if not used.all():
                renumber = np.cumsum(used) - 1
                names = [name for name, on in zip(names, used.tolist()) if on]
                first, second = renumber[first], renumber[second]
        if not len(first):
            return cls()
        count_type = np.min_scalar_type(int(counts.max()))
        starts = np.zeros(len(names) + 1, dtype="<i8")
        np.cumsum(np.bincount(first, minlength=len(names)), out=starts[1:])
        return cls(
            names=names,
            width=width,
            starts=starts.tobytes(),
            partners=second.astype(_index_type(len(names))).tobytes(),
            counts=counts.astype(count_type.newbyteorder("<")).tobytes(),
            count_bytes=count_type.itemsize,
        )


def _index_type(names: int) -> np.dtype:
    """The narrowest little-endian unsigned integers that index ``names`` names."""
    return np.min_scalar_type(max(names - 1, 0)).newbyteorder("<")


def _widened(counts: np.ndarray, width: int) -> np.ndarray:
    """``counts`` (pairs x w, w <= width) as a pairs x ``width`` int64 array of its own."""
    out = np.zeros((len(counts), width), dtype=np.int64)
    out[:, : counts.shape[1] if counts.ndim == 2 else 0] = counts
    return out


def _grouped(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``keys`` in order, with the sum of the ``values`` rows of each."""
    order = np.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    if not len(keys):
        return keys, values
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return keys[starts], np.add.reduceat(values, starts, axis=0)
