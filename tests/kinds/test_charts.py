"""Each kind builds its analyses' charts (Analysis.charts) as scoring/charts.py specs with
titles, axis titles and the right axis types; the generic chart tag only draws them."""

from __future__ import annotations

import doctest
import importlib

import pytest

from kinds.clustering import charts as clustering
from kinds.factoids import charts as factoids
from kinds.ordering import charts as ordering
from kinds.pairs import charts as pairs
from kinds.registry import KINDS


def test_truth_sets_are_categories_by_name_and_13_systems_never_share_a_style():
    systems = [f"sys{i}" for i in range(13)]
    result = {
        "systems": systems,
        "f1": {"consensus": [0.5] * 13, "union": [0.4] * 13, "intersection": [0.3] * 13},
        "random_f1": {"mean": [0.45] * 13},
    }
    spec = pairs.evaluation(result)["f1"]
    assert spec["x"]["categories"] == ["consensus", "union", "intersection", "Random (mean)"]
    assert spec["x"]["title"] == "truth set" and spec["y"]["title"] == "F1 (0-1)"
    assert spec["datasets"][0]["points"] == [
        ["consensus", 0.5],
        ["union", 0.4],
        ["intersection", 0.3],
        ["Random (mean)", 0.45],
    ]
    looks = {(d["color"], d["pointStyle"], tuple(d["dash"])) for d in spec["datasets"]}
    assert len(looks) == 13
    assert spec["table"]["header"] == ["truth set", *systems]
    assert spec["table"]["rows"][3][:2] == ["Random (mean)", 0.45]


def test_frespa_gets_one_small_chart_per_parameter_with_its_values_as_categories():
    grid = {
        "min_sup": [0.0, 0.5, 1.0],
        "w_len": [0.0, 1.0, 100.0],
        "w_sup": [1.0, 5.0],
        "min_len_ratio": [0.0],
        "max_len_ratio": [1.0],
    }
    rows = [{"parameter": p, "value": v, "ed": i / 10} for p, values in grid.items() for i, v in enumerate(values)]
    charts = ordering.sweep({"rows": rows})
    assert list(charts) == list(grid)
    assert charts["w_len"]["x"]["categories"] == ["0", "1", "100"]
    assert charts["w_len"]["x"]["title"] == "w_len (weight of a pattern's length)"
    assert charts["min_sup"]["title"] == "ED as min_sup varies"
    assert all(len(spec["datasets"]) == 1 for spec in charts.values())


def test_split_merge_x_is_the_step_so_the_caption_left_and_right_hold():
    steps = [
        {**{key: (3 - abs(s)) / 3 for _, key in clustering.PATH_MEASURES}, "step": s, "clusters": 3 - s}
        for s in (-2, -1, 0, 1, 2)
    ]
    spec = clustering.split_merge({"path": steps})["path"]
    assert [label for label in spec["table"]["header"][2:]] == [label for label, _ in clustering.PATH_MEASURES]
    assert spec["x"]["title"] == "step (− split, + merge)" and spec["x"]["integer"] is True
    nmi = next(d for d in spec["datasets"] if d["label"] == "NMI")
    assert nmi["points"] == [
        [-2, pytest.approx(1 / 3)],
        [-1, pytest.approx(2 / 3)],
        [0, 1.0],
        [1, pytest.approx(2 / 3)],
        [2, pytest.approx(1 / 3)],
    ]
    assert "left" in spec["caption"] and "split" in spec["caption"] and "right" in spec["caption"]
    # The clusters at each step stay in the data table: 5 at step -2 (all singletons), 1 at +2.
    assert [row[1] for row in spec["table"]["rows"]] == [5, 4, 3, 2, 1]


def test_the_factoid_box_plot_labels_every_summary_model_ones_first():
    result = {
        "stability": {"sizes": [1, 2], "mean_rho": [0.2, 0.4]},
        "summaries": [{"id": "S1", "model": False}, {"id": "M2", "model": True}, {"id": "M1", "model": True}],
        "distribution": {"n": 2, "scores": [[1, 10, 100], [3, 20, 200], [5, 30, 300]]},
    }
    spec = factoids.stability(result)["box"]
    assert spec["x"]["categories"] == ["M1", "M2", "S1"]
    assert [b["group"] for b in spec["boxes"]] == ["reference summary", "reference summary", "machine summary"]
    assert [b["median"] for b in spec["boxes"]] == [200.0, 20.0, 3.0]
    assert [g["label"] for g in spec["groups"]] == ["reference summary", "machine summary"]
    assert spec["groups"][0]["color"] != spec["groups"][1]["color"]


def test_count_axes_have_integer_ticks():
    growth = factoids.growth({"sizes": [1, 2, 3], "mean": [3.0, 5.0, 6.0], "mean_per_sentence": [0.5, 0.6, 0.7]})
    assert (
        growth["mean"]["x"]["integer"] is True and growth["mean"]["x"]["title"] == "reference summaries drawn (count)"
    )


@pytest.mark.parametrize("kind", [name for name, spec in KINDS.items() if any(a.charts for a in spec.analyses)])
def test_chart_modules_examples_hold(kind):
    module = importlib.import_module(f"kinds.{kind}.charts")
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
