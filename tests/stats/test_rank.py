"""The shared rank correlations equal scipy's, pair by pair, ties included."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from stats.rank import kendall_tau_b, spearman_rho, spearman_rho_paired


@pytest.mark.parametrize("seed", range(5))
def test_kendall_tau_b_equals_scipy_with_ties(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, size=(6, 12)).astype(float)
    y = rng.integers(0, 4, size=(5, 12)).astype(float)
    tau = kendall_tau_b(x, y)
    for i in range(6):
        for j in range(5):
            assert tau[i, j] == pytest.approx(stats.kendalltau(x[i], y[j], variant="b").statistic, abs=1e-14)


@pytest.mark.parametrize("seed", range(5))
def test_spearman_equals_scipy_with_ties(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 5, size=(4, 9)).astype(float)
    y = rng.normal(size=(3, 9))
    rho = spearman_rho(x, y)
    paired = spearman_rho_paired(x[:3], y)
    for i in range(4):
        for j in range(3):
            assert rho[i, j] == pytest.approx(stats.spearmanr(x[i], y[j]).statistic, abs=1e-14)
    for i in range(3):
        assert paired[i] == pytest.approx(stats.spearmanr(x[i], y[i]).statistic, abs=1e-14)


def test_blocks_give_the_same_tau_as_one_pass(monkeypatch):
    rng = np.random.default_rng(7)
    x = np.argsort(rng.random((3, 50)), axis=1)
    y = np.argsort(rng.random((4, 50)), axis=1)
    whole = kendall_tau_b(x, y)
    monkeypatch.setattr("stats.rank._SIGN_CELLS", 50 * 7 * 3)  # blocks of three items
    assert np.array_equal(kendall_tau_b(x, y), whole)


def test_permutations_are_exact():
    # ABCD vs ACDB: S = 2 of 6 pairs concordant minus discordant, rho = 2/5.
    assert kendall_tau_b([0, 1, 2, 3], [0, 3, 1, 2])[0, 0] == 1 / 3
    assert spearman_rho([0, 1, 2, 3], [0, 3, 1, 2])[0, 0] == 0.4
    reversed_ = kendall_tau_b(np.arange(1000), np.arange(1000)[::-1])[0, 0]
    assert reversed_ == -1.0


def test_constant_rows_are_undefined_and_bad_input_is_named():
    assert np.isnan(kendall_tau_b([1, 1, 1], [1, 2, 3])[0, 0])
    assert np.isnan(spearman_rho([1, 2, 3], [2, 2, 2])[0, 0])
    assert np.isnan(spearman_rho_paired([[1.0]], [[2.0]])[0])
    with pytest.raises(ValueError, match="x must be finite"):
        kendall_tau_b([1, np.nan], [1, 2])
    with pytest.raises(ValueError, match="same length"):
        spearman_rho([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="same shape"):
        spearman_rho_paired([[1, 2]], [[1, 2], [2, 1]])
