"""The report templates' helpers: number formatting, lookups and the charts (scoring/charts.py
specs rendered by the chart and heatmap tags of scoring/templatetags/scoring_tags.py)."""

from __future__ import annotations

import doctest

from django.template import Context, Template

from scoring import charts
from scoring.charts import Axis, specs_in
from scoring.templatetags import scoring_tags as tags


def test_figures_are_formatted_with_fixed_digits_and_a_dash_when_undefined():
    assert tags.fmt(None) == "—"
    assert tags.fmt(7) == "7"
    assert tags.fmt(0.123456) == "0.123"
    assert tags.fmt(-0.5, 2) == "-0.50"


def test_lookups_answer_none_rather_than_fail():
    assert tags.index([1, 2], 1) == 2 and tags.index([1], 5) is None and tags.index(None, 0) is None
    assert tags.get({"a": 1}, "a") == 1 and tags.get(None, "a") is None


def test_the_chart_module_examples_hold():
    result = doctest.testmod(charts)
    assert result.attempted > 0 and result.failed == 0


def test_the_palette_is_okabe_ito_and_13_series_look_different():
    assert charts.PALETTE[:3] == ("#0072B2", "#D55E00", "#009E73")
    looks = [charts.style(i) for i in range(13)]
    assert len({(s["color"], s["pointStyle"], tuple(s["dash"])) for s in looks}) == 13
    assert len({(s["color"], s["pointStyle"], tuple(s["dash"])) for s in map(charts.style, range(105))}) == 105


def test_a_chart_renders_title_data_table_downloads_and_escapes_names():
    spec = charts.line("ED <per> ratio", Axis("ratio"), Axis("ED"), {"a <1>": [[0, 0.25], [1, 1.0], [None, 3]]})
    out = str(tags.chart(spec))
    assert '<figcaption class="chart-title">ED &lt;per&gt; ratio</figcaption>' in out
    assert 'data-download="png"' in out and 'data-download="csv"' in out
    assert '<th scope="col">a &lt;1&gt;</th>' in out and "<td>0.250</td>" in out
    assert "<1>" not in out.replace("\\u003C1\\u003E", "")  # json_script escapes < and >
    assert "style=" not in out and "<script>" not in out  # only type="application/json"
    (parsed,) = specs_in(out)
    assert parsed["datasets"][0]["points"] == [[0, 0.25], [1, 1.0]]  # the None x is left out
    assert tags.chart(None) == ""


def test_a_heatmap_of_164_assessors_shows_30_and_links_the_full_matrix():
    names = [f"w{i:03d}" for i in range(164)]
    # w000..w029 share items with everyone; the others only with those 30.
    matrix = [[1.0 if i == j else (0.5 if min(i, j) < 30 else None) for j in range(164)] for i in range(164)]
    campaign = type("C", (), {"pk": 7})()
    out = Template("{% load scoring_tags %}{% heatmap names m 'kappa' source='names kappa_matrix' %}").render(
        Context({"names": names, "m": matrix, "campaign": campaign})
    )
    (spec,) = specs_in(out)
    assert spec["names"] == names[:30] and len(spec["values"]) == 30
    assert "the other 134 are in the full matrix" in spec["caption"]
    assert spec["full_csv"] == "/campaigns/7/report/matrix.csv?names=names&values=kappa_matrix"
    assert 'href="/campaigns/7/report/matrix.csv?names=names&amp;values=kappa_matrix"' in out
    assert len(out) < 60_000


def test_a_small_heatmap_has_every_cell_and_no_full_matrix_link():
    out = Template("{% load scoring_tags %}{% heatmap names m 'kappa' %}").render(
        Context({"names": ["ann", "<b>"], "m": [[1.0, 0.5], [0.5, None]]})
    )
    (spec,) = specs_in(out)
    assert spec["values"] == [[1.0, 0.5], [0.5, None]] and spec["full_csv"] is None
    assert spec["title"] == "Pairwise kappa between assessors"
    assert '<th scope="col">&lt;b&gt;</th>' in out and "<b>" not in out  # names escaped everywhere
    assert "full-matrix" not in out
