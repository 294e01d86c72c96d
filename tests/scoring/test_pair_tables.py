"""scoring.sums.PairTables: counts per pair of names as arrays, against the same sums kept as a
dict of lists, through random changes in random orders; its canonical form (any path to the same
counts gives the same bytes) and its narrow storage."""

from __future__ import annotations

import random

import numpy as np
import pytest

from concord import typed
from scoring.sums import PairTables


def random_tables(rng: random.Random, names: list[str], width: int = 4) -> tuple[PairTables, dict]:
    """A topic's tables: a few of ``names``, each pair of them with random counts (some all zero)."""
    own = rng.sample(names, rng.randint(0, min(6, len(names))))
    first, second, counts, plain = [], [], [], {}
    for i in range(len(own)):
        for j in range(i + 1, len(own)):
            row = [rng.choice([0, 0, 1, 2, 300]) for _ in range(width)]
            first.append(i), second.append(j), counts.append(row)
            key = tuple(sorted((own[i], own[j])))
            if any(row):
                plain[key] = row
    return PairTables.of(own, first, second, counts), plain


def as_dict(tables: PairTables) -> dict:
    first, second, counts = tables.arrays()
    return {(tables.names[a], tables.names[b]): row for a, b, row in zip(first, second, counts.tolist())}


def added(into: dict, other: dict, sign: int) -> dict:
    out = {key: list(row) for key, row in into.items()}
    for key, row in other.items():
        mine = out.setdefault(key, [0] * len(row))
        for k, value in enumerate(row):
            mine[k] += sign * value
        if not any(mine):
            del out[key]
    return out


@pytest.mark.parametrize("seed", range(8))
def test_random_changes_equal_the_dict_of_lists_and_the_sums_from_scratch(seed):
    rng = random.Random(seed)
    names = [f"w{k:03d}" for k in range(rng.choice([3, 12, 40]))]
    topics = [random_tables(rng, names) for _ in range(30)]
    kept = PairTables().summed([(t, 1) for t, _ in topics])
    plain: dict = {}
    for _, one in topics:
        plain = added(plain, one, 1)
    assert as_dict(kept) == plain
    for _ in range(40):  # a topic's change: its old tables out, its new ones in
        k = rng.randrange(len(topics))
        new = random_tables(rng, names)
        kept = kept.summed([(topics[k][0], -1)]).summed([(new[0], 1)])
        plain = added(added(plain, topics[k][1], -1), new[1], 1)
        topics[k] = new
        assert as_dict(kept) == plain
    # canonical: the same counts reached from scratch, in another order, are the same bytes
    scratch = PairTables().summed([(t, 1) for t, _ in reversed(topics)])
    assert scratch == kept
    assert sorted(kept.names) == kept.names == sorted({name for pair in plain for name in pair})
    assert typed.load(PairTables, typed.dump(kept)) == kept


def test_every_topic_out_leaves_no_pair_and_no_name():
    rng = random.Random(5)
    names = [f"w{k}" for k in range(10)]
    topics = [random_tables(rng, names)[0] for _ in range(12)]
    kept = PairTables().summed([(t, 1) for t in topics])
    assert len(kept) > 0
    assert kept.summed([(t, -1) for t in topics]) == PairTables()


def test_counts_are_stored_as_narrow_as_they_fit():
    small = PairTables.of(["a", "b"], [0], [1], [[1, 2, 3, 255]])
    assert small.count_bytes == 1 and len(small.counts) == 4
    assert small.summed([(PairTables.of(["a", "b"], [0], [1], [[0, 0, 0, 1]]), 1)]).count_bytes == 2
    wide = PairTables.of(["a", "b"], [0], [1], [[2**40, 0, 0, 0]])
    assert wide.count_bytes == 8 and wide.arrays()[2].tolist() == [[2**40, 0, 0, 0]]


def test_taking_out_what_was_never_put_in_is_refused():
    kept = PairTables.of(["a", "b"], [0], [1], [[1, 0, 0, 0]])
    with pytest.raises(ValueError, match="below zero"):
        kept.summed([(PairTables.of(["a", "b"], [0], [1], [[2, 0, 0, 0]]), -1)])
    with pytest.raises(ValueError, match="twice"):
        PairTables.of(["a", "a"], [0], [1], [[1, 0, 0, 0]])


def test_a_crowd_of_names_indexes_in_two_bytes():
    names = [f"w{k:04d}" for k in range(2000)]
    first = np.arange(0, 1999)
    tables = PairTables.of(names, first, first + 1, np.ones((1999, 4), dtype=np.int64))
    assert len(tables.partners) == 2 * 1999 and len(tables) == 1999
