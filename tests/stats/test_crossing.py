"""Where a stability curve crosses a chosen level (stats.crossing): the nuggets' and factoids' tau / rho."""

from __future__ import annotations

import pytest

from stats.crossing import Crossing, crossing

NAN = float("nan")


@pytest.mark.parametrize(
    ("sizes", "values", "level", "expected"),
    [
        # linear between m=2 (0.85) and m=3 (0.95): 2 + 0.05 / 0.10 = 2.5
        ([1, 2, 3, 4], [0.7, 0.85, 0.95, 0.97], 0.9, Crossing(0.9, 2.5, 4)),
        # the paper's factoid example: 0.8 between N=10 (0.78) and N=11 (0.82)
        ([10, 11, 12], [0.78, 0.82, 0.85], 0.8, Crossing(0.8, 10.5, 12)),
        # uneven sizes: 5 + (0.9 - 0.6) * (10 - 5) / (1.0 - 0.6) = 8.75
        ([1, 5, 10], [0.2, 0.6, 1.0], 0.9, Crossing(0.9, 8.75, 10)),
        # exactly on a measured size
        ([1, 2, 3], [0.5, 0.9, 0.95], 0.9, Crossing(0.9, 2.0, 3)),
        # already there at the smallest size
        ([1, 2], [0.95, 0.97], 0.9, Crossing(0.9, 1.0, 2)),
        # never reached: within the largest size
        ([1, 2, 3], [0.5, 0.6, 0.7], 0.9, Crossing(0.9, None, 3)),
        # undefined sizes are left out: 1 (0.8) to 3 (1.0) -> 2.0; the largest defined size is 3
        ([1, 2, 3, 4], [0.8, NAN, 1.0, NAN], 0.9, Crossing(0.9, 2.0, 3)),
        # nothing defined
        ([1, 2], [NAN, NAN], 0.9, Crossing(0.9, None, None)),
        # the first crossing counts, even if the curve dips again after it
        ([1, 2, 3, 4], [0.8, 1.0, 0.7, 0.95], 0.9, Crossing(0.9, 1.5, 4)),
    ],
)
def test_crossing_interpolates_linearly(sizes, values, level, expected):
    result = crossing(sizes, values, level)
    assert result.level == expected.level and result.within == expected.within
    assert (result.at is None) == (expected.at is None)
    if expected.at is not None:
        assert result.at == pytest.approx(expected.at, abs=1e-12)


def test_crossing_words_and_bad_input():
    assert crossing([1, 2, 3, 4], [0.7, 0.85, 0.95, 0.97]).describe() == "reaches 0.9 at 2.5 assessors"
    assert crossing([1, 2, 3], [0.5, 0.6, 0.7]).describe("summaries") == "not reached within 3 summaries"
    with pytest.raises(ValueError, match="same length"):
        crossing([1, 2], [0.5])
    with pytest.raises(ValueError, match="increase"):
        crossing([2, 1], [0.5, 0.6])
