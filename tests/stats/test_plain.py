"""Agreement figures in plain words (stats/plain.py): the bands of the published scales at their
edges, an interval across bands, reaching or below chance, too few units, the stop signal's work,
and the rounding for people."""

from __future__ import annotations

import pytest

from stats.intervals import FigureCI, no_ci, too_few_ci
from stats.plain import (
    KENDALL_HELP,
    KRIPPENDORFF_HELP,
    LANDIS_KOCH_HELP,
    MIN_SHARED,
    V_MEASURE_HELP,
    Reading,
    about,
    band_of,
    number,
    sentence,
    too_few_shared,
)
from stats.stopping import MIN_UNITS

KAPPA = Reading("kappa", "kappa", LANDIS_KOCH_HELP)
ALPHA = Reading("alpha", "alpha", KRIPPENDORFF_HELP)
TAU = Reading("tau", "mean τ", KENDALL_HELP)


def figure(value, low, high, units=400, unit="items"):
    return FigureCI(value, low, high, units=units, unit=unit, method="bootstrap")


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (0.0, "slight"),
        (0.20, "slight"),
        (0.2001, "fair"),
        (0.40, "fair"),
        (0.41, "moderate"),
        (0.60, "moderate"),
        (0.61, "substantial"),
        (0.80, "substantial"),
        (0.81, "almost perfect"),
        (1.0, "almost perfect"),
        (-0.01, None),
    ],
)
def test_landis_and_koch_bands_hold_the_values_above_the_band_below_up_to_their_top(value, words):
    """Landis & Koch (1977), p. 165: 0.00-0.20 slight, 0.21-0.40 fair, ..., 0.81-1.00 almost perfect."""
    assert band_of(value, "kappa") == words


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (0.5, "too low to rely on"),
        (0.6669, "too low to rely on"),
        (0.667, "good enough for tentative conclusions only"),
        (0.7999, "good enough for tentative conclusions only"),
        (0.800, "reliable"),
    ],
)
def test_krippendorffs_standard_relies_from_0_800_and_concludes_tentatively_from_0_667(value, words):
    assert band_of(value, "alpha") == words


def test_an_interval_within_one_band_names_it_and_the_remaining_work():
    # half-width 0.05 on 400 items, wanted 0.025: 400 (0.05/0.025)^2 - 400 = 1,200 more
    said = sentence(figure(0.70, 0.65, 0.75), KAPPA, precision=0.025)
    assert said == (
        "Agreement beyond chance is substantial on Landis & Koch's scale (kappa 0.70, 95% interval 0.65 to 0.75): "
        "about 1,200 more items would make the interval ±0.025."
    )


def test_an_interval_across_bands_says_between_its_ends_bands():
    said = sentence(figure(0.59, 0.533, 0.650, units=518), KAPPA)
    assert said.startswith("Agreement beyond chance is between moderate and substantial on Landis & Koch's scale (")
    # a wide one names the bands of its two ends, whatever lies between
    assert "between fair and almost perfect" in sentence(figure(0.6, 0.3, 0.9), KAPPA)
    assert "between too low to rely on and good enough for tentative conclusions by" in sentence(
        figure(0.717, 0.608, 0.787, units=56), ALPHA
    )


def test_an_interval_reaching_chance_names_no_band():
    said = sentence(figure(0.05, -0.04, 0.14), KAPPA)
    assert said.startswith("Agreement may be no better than chance (kappa 0.05, 95% interval −0.04 to 0.14)")
    assert "slight" not in said
    assert sentence(figure(0.1, 0.0, 0.2), ALPHA).startswith("Agreement may be no better than chance")
    assert sentence(figure(-0.3, -0.5, -0.1), KAPPA).startswith("Agreement is worse than chance (kappa −0.30")


def test_too_few_units_say_too_few_to_judge_and_no_band():
    said = sentence(too_few_ci(0.95, 12, "documents"), ALPHA)
    assert (
        said
        == f"Too few documents to judge yet: alpha 0.95 rests on 12 documents, and an interval needs at least {MIN_UNITS}."
    )
    assert "reliable" not in said
    assert "rests on 1 topic," in sentence(too_few_ci(0.7, 1, "topics"), TAU)


def test_a_precise_enough_interval_says_so():
    said = sentence(figure(0.85, 0.82, 0.88, units=900), ALPHA)
    assert said == (
        "Agreement is reliable by Krippendorff's standard (alpha 0.85, 95% interval 0.82 to 0.88): "
        "precise enough, the interval is within ±0.05."
    )


def test_no_interval_and_no_value_are_said_plainly():
    assert sentence(no_ci(0.4, 50, "items"), KAPPA) == (
        "No interval yet, so the agreement cannot be judged (kappa 0.40 on 50 items)."
    )
    assert sentence(figure(None, None, None), TAU).startswith("Mean τ is not defined")


def test_tau_reads_as_the_share_of_item_pairs_in_the_same_order():
    # (1 + tau) / 2: 0.56 -> 78%, 0.70 -> 85%
    said = sentence(figure(0.62, 0.56, 0.70, units=60, unit="topics"), TAU)
    assert said.startswith(
        "Two assessors put any two items in the same order 78% to 85% of the time, against 50% by chance "
        "(mean τ 0.62, 95% interval 0.56 to 0.70)"
    )
    assert sentence(figure(0.02, -0.1, 0.14, units=60, unit="topics"), TAU).startswith(
        "Two assessors may order items no more alike than chance"
    )


def test_clusterings_are_read_against_random_clusterings_of_the_same_shape():
    read = Reading("v-measure", "mean V_β", V_MEASURE_HELP, baseline=0.63)
    above = sentence(figure(0.75, 0.70, 0.80, units=40, unit="topics"), read)
    assert above.startswith("The clusterings agree more than random clusterings of the same shape would (mean V_β 0.75")
    assert "random ones score 0.63" in above
    assert "may agree no more" in sentence(figure(0.7, 0.6, 0.8, units=40, unit="topics"), read)
    plain = sentence(
        figure(0.75, 0.70, 0.80, units=40, unit="topics"), Reading("v-measure", "mean V_β", V_MEASURE_HELP)
    )
    assert plain.startswith("The clusterings score 0.70 to 0.80, where 0 is nothing in common and 1 identical")


def test_numbers_are_rounded_for_people_without_crossing_an_edge():
    assert [about(n) for n in (1, 99, 100, 293, 1346, 25_049)] == ["1", "99", "100", "290", "1,300", "25,000"]
    assert number(0.6664, edges=(0.667,)) == "0.666" and number(0.6664) == "0.67"
    assert number(-0.004) == "0.00" and number(-0.25) == "−0.25"
    # shown and banded alike: 0.6664 is below Krippendorff's 0.667, and says so
    said = sentence(figure(0.70, 0.6664, 0.75), ALPHA)
    assert "between too low to rely on and good enough" in said and "95% interval 0.666 to 0.75" in said


def test_a_reading_names_a_known_scale():
    with pytest.raises(ValueError, match="scale must be one of"):
        Reading("percent", "p", "x")
    assert (KAPPA.measures, TAU.measures) == ("chance-corrected agreement", "rank correlation")


def test_a_figure_on_one_shared_item_is_too_few_and_on_two_is_shown():
    assert MIN_SHARED == 2
    assert too_few_shared(1) == "1 shared item: too few"
    assert too_few_shared(1, "nuggets") == "1 shared nugget: too few"
    assert too_few_shared(1, "labels", shared=False) == "1 label: too few"
    assert too_few_shared(2) is None and too_few_shared(500, "documents") is None
