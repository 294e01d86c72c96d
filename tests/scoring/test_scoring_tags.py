"""The report templates' helpers: number formatting, colours and the SVG charts
(scoring/templatetags/scoring_tags.py), checked on inputs whose output is
worked out by hand."""

from __future__ import annotations

import re

from scoring.templatetags import scoring_tags as tags


def test_figures_are_formatted_with_fixed_digits_and_a_dash_when_undefined():
    assert tags.fmt(None) == "—"
    assert tags.fmt(7) == "7"
    assert tags.fmt(0.123456) == "0.123"
    assert tags.fmt(-0.5, 2) == "-0.50"


def test_lookups_answer_none_rather_than_fail():
    assert tags.index([1, 2], 1) == 2 and tags.index([1], 5) is None and tags.index(None, 0) is None
    assert tags.get({"a": 1}, "a") == 1 and tags.get(None, "a") is None


def test_colours_run_from_white_to_blue_and_red_and_clamp():
    assert tags.colour(0.0) == "#ffffff"
    assert tags.colour(1.0) == "#184ea0"
    assert tags.colour(-1.0) == "#be2828"
    assert tags.colour(3.0) == tags.colour(1.0) and tags.colour(-7) == tags.colour(-1.0)
    assert tags.colour(None) == "#e5e5e5"
    # Halfway to blue: each channel halfway from 255 (139.5, 166.5, 207.5, truncated).
    assert tags.colour(0.5) == "#8ba6cf"


def test_the_heatmap_has_a_cell_and_a_tooltip_per_pair_and_escapes_names():
    svg = str(tags.heatmap(["ann", "<b>"], [[1.0, 0.5], [0.5, None]], "kappa"))
    assert svg.count("<rect") == 4
    assert "<title>ann vs &lt;b&gt;: kappa 0.50</title>" in svg
    assert "<title>&lt;b&gt; vs &lt;b&gt;: kappa —</title>" in svg
    assert "<b>" not in svg
    assert 'width="198"' in svg  # 110 for the labels + 2 cells of 44
    assert "style=" not in svg and "<script" not in svg  # the strict CSP allows neither


def test_a_line_chart_places_points_on_its_axes():
    svg = str(tags.line_chart({"a <1>": [[0, 0], [1, 1], [None, 3]]}, x_label="ratio", y_label="ED"))
    # left 52, plot 560 - 52 - 150 = 358 wide; top 12, plot 300 - 12 - 40 = 248 high.
    assert 'points="52.0,260.0 410.0,12.0"' in svg
    assert "<title>a &lt;1&gt;</title>" in svg and ">ratio</text>" in svg and ">ED</text>" in svg
    ticks = re.findall(r'font-size="10" text-anchor="end">([^<]+)<', svg)
    assert ticks == ["0", "0.25", "0.5", "0.75", "1"]
    assert tags.line_chart({"empty": [[None, None]]}) == ""


def test_one_line_per_series_with_its_own_colour():
    svg = str(tags.line_chart({f"s{i}": [[0, i], [1, i + 1]] for i in range(3)}))
    assert svg.count("<polyline") == 3
    assert [c for c in tags.PALETTE[:3] if f'stroke="{c}"' in svg] == tags.PALETTE[:3]


def test_the_box_plot_puts_model_summaries_first_with_their_medians():
    summaries = [{"id": "S1", "model": False}, {"id": "M1", "model": True}]
    svg = str(tags.box_plot(summaries, [[1, 10], [3, 20], [5, 30]]))
    assert svg.index("<title>M1: median 20.0</title>") < svg.index("<title>S1: median 3.0</title>")
    assert tags.box_plot(summaries, []) == ""
