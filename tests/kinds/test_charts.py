"""Each kind builds its analyses' chart series (Analysis.charts); the generic
line_chart tag only draws them. Moved from tests/scoring/test_scoring_tags.py
with their values (the series used to be template filters)."""

from __future__ import annotations

import doctest
import importlib

import pytest

from kinds.clustering import charts as clustering
from kinds.ordering import charts as ordering
from kinds.pairs import charts as pairs
from kinds.registry import KINDS


def test_series_builders_reshape_the_analyses_results():
    assert ordering.noise({"rows": [{"method": "AC-tau", "ratios": [0, 0.5], "ed": [0.4, 0.3]}]})["ed"] == {
        "AC-tau": [[0, 0.4], [0.5, 0.3]]
    }
    rows = [{"parameter": "min_sup", "value": 0.2, "ed": 1.0}, {"parameter": "min_sup", "value": 0.4, "ed": 2.0}]
    assert ordering.sweep({"rows": rows})["ed"] == {"min_sup": [[0.2, 1.0], [0.4, 2.0]]}
    result = {
        "systems": ["A", "B"],
        "f1": {"consensus": [0.5, 0.6], "union": [0.4, 0.7]},
        "random_f1": {"mean": [0.45, 0.65]},
    }
    assert pairs.evaluation(result)["f1"] == {
        "A": [[0, 0.5], [1, 0.4], [2, 0.45]],
        "B": [[0, 0.6], [1, 0.7], [2, 0.65]],
    }
    steps = [{**{key: i / 10 for _, key in clustering.PATH_MEASURES}, "clusters": 5 - i} for i in range(3)]
    path = clustering.split_merge({"path": steps})["path"]
    assert list(path) == [label for label, _ in clustering.PATH_MEASURES]
    assert path["NMI"] == [[5, 0.0], [4, 0.1], [3, 0.2]]


@pytest.mark.parametrize("kind", [name for name, spec in KINDS.items() if any(a.charts for a in spec.analyses)])
def test_chart_modules_examples_hold(kind):
    module = importlib.import_module(f"kinds.{kind}.charts")
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
