"""Small draws of the shared bootstrap are cached by (units, resamples, seed): the
cached draw is exactly resample_weights' draw, read-only, and a bootstrap through it
equals one given the same weights explicitly (so caching changes no figure)."""

from __future__ import annotations

import numpy as np
import pytest

from stats import uncertainty as u


def test_cached_draw_is_the_draw_and_read_only():
    cached = u._cached_weights(37, 500, 3)
    assert np.array_equal(cached, u.resample_weights(37, n_resamples=500, seed=3))
    assert cached.dtype == np.float64 and not cached.flags.writeable
    with pytest.raises(ValueError):
        cached[0, 0] = 1.0
    assert u._cached_weights(37, 500, 3) is cached


@pytest.mark.parametrize("n_units", [5, 40, 80])  # 80 x 1000 cells: above the cache's limit
def test_bootstrap_with_and_without_the_cache_agree(n_units):
    rng = np.random.default_rng(n_units)
    values = rng.normal(size=n_units)
    statistic = u.mean_units(values)
    cached = statistic.interval(n_resamples=1000, seed=0)
    explicit = statistic.interval(
        n_resamples=1000, seed=0, weights=u.resample_weights(n_units, n_resamples=1000, seed=0)
    )
    assert (cached.low, cached.high, cached.value) == (explicit.low, explicit.high, explicit.value)
    assert cached.low < values.mean() < cached.high
