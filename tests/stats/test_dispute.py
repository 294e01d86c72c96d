"""stats/dispute.py: vote entropy against scipy's entropy, Tastle & Wierman's
dissention by its definition and invariants, and the orders both give crowd votes."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from stats.dispute import ordinal_dissent, vote_entropy


def test_vote_entropy_is_scipy_s_entropy_over_log_k_on_random_counts():
    rng = np.random.default_rng(3)
    for k in (2, 3, 5):
        counts = rng.integers(0, 6, size=(200, k))
        counts[counts.sum(axis=1) == 0, 0] = 1
        expected = [stats.entropy(row, base=k) for row in counts]
        assert vote_entropy(counts) == pytest.approx(expected, abs=1e-12)


def test_vote_entropy_grows_as_ten_votes_split_more_evenly():
    """The queue's point: 5-5 above 4-6 above ... above 0-10 (the share of split items gave 1-9 to
    5-5 alike)."""
    values = vote_entropy([[k, 10 - k] for k in range(6)])
    assert np.all(np.diff(values) > 0) and values[0] == 0.0 and values[-1] == 1.0


def test_vote_entropy_invariants():
    rng = np.random.default_rng(4)
    counts = rng.integers(0, 9, size=(50, 4)) + 1
    assert vote_entropy(counts[:, ::-1]) == pytest.approx(vote_entropy(counts), abs=1e-12)  # label order
    assert vote_entropy(3 * counts) == pytest.approx(vote_entropy(counts), abs=1e-12)  # only shares count
    assert np.all((vote_entropy(counts) >= 0) & (vote_entropy(counts) <= 1))
    assert np.isnan(vote_entropy([0, 0]))


def test_ordinal_dissent_by_its_definition_on_random_counts():
    """Tastle & Wierman (2007), eq. (5): Dnt = -sum p_i log2(1 - |X_i - mu| / d_X)."""
    rng = np.random.default_rng(5)
    counts = rng.integers(0, 5, size=(100, 4))
    counts[counts.sum(axis=1) == 0, 2] = 1
    for row, found in zip(counts, ordinal_dissent(counts)):
        p = row / row.sum()
        mu = np.dot(p, np.arange(4))
        terms = [pk * np.log2(1 - abs(x - mu) / 3) for x, pk in enumerate(p) if pk > 0]
        assert found == pytest.approx(-sum(terms), abs=1e-12)


def test_ordinal_dissent_invariants():
    rng = np.random.default_rng(6)
    counts = rng.integers(0, 6, size=(60, 5)) + 1
    assert ordinal_dissent(counts[:, ::-1]) == pytest.approx(ordinal_dissent(counts), abs=1e-12)  # scale reversed
    two = rng.integers(0, 10, size=(60, 2)) + 1
    assert ordinal_dissent(two) == pytest.approx(vote_entropy(two), abs=1e-12)  # two grades: entropy in bits
    assert ordinal_dissent([5, 0, 0, 5]) == 1.0 and ordinal_dissent([0, 7, 0, 0]) == 0.0
    # the further apart two grades, the more disputed
    assert ordinal_dissent([1, 0, 0, 1]) > ordinal_dissent([1, 0, 1, 0]) > ordinal_dissent([1, 1, 0, 0]) > 0


@pytest.mark.parametrize("bad", [[1], [[1, -1]], [[1, float("nan")]], 3])
def test_bad_counts_are_refused(bad):
    for measure in (vote_entropy, ordinal_dissent):
        with pytest.raises(ValueError, match="counts"):
            measure(bad)
