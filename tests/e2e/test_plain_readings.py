"""Every headline figure of every kind's demo in plain words (stats/plain.py): the campaign's summary
and the kind's report show the same sentence beside the figure, with a "?" to the section of the
methods that explains its words, and the sentence is the one the stored figure calls for, worked
out here from the figure's own numbers and the published bands (Landis & Koch 1977; Krippendorff
2004). Pages through Django's test client: no browser."""

from __future__ import annotations

import html
import math
import re

import pytest

from kinds.registry import KINDS, get_kind
from scoring import jobs
from scoring.models import Report

pytestmark = pytest.mark.django_db

READING = re.compile(
    r'<p class="plain-reading" id="headline-reading" data-measures="([^"]*)">(.*?) '
    r'<a href="([^"]*)" class="help-link" aria-label="What this figure means"[^>]*>\?</a></p>',
    re.S,
)

#: Landis & Koch (1977), p. 165, from the top: a value above the edge is in the band.
LANDIS_KOCH = [(0.80, "almost perfect"), (0.60, "substantial"), (0.40, "moderate"), (0.20, "fair"), (0.0, "slight")]
#: Krippendorff (2004), section 12.3: from the edge up.
KRIPPENDORFF = [(0.800, "reliable"), (0.667, "good enough for tentative conclusions"), (0.0, "too low to rely on")]


def reading_of(page: str) -> tuple[str, str, str]:
    found = READING.findall(page)
    assert len(found) == 1, found
    measures, words, href = found[0]
    return measures, html.unescape(words), href


def two(value: float) -> str:
    return f"{value:.2f}".replace("-", "−")


def more_units(figure: dict, precision: float = 0.05) -> str:
    """stats.stopping's "about N more", as the sentence rounds it: two significant figures."""
    half = (figure["high"] - figure["low"]) / 2
    more = math.ceil(round(figure["units"] * (half / precision) ** 2, 9)) - figure["units"]
    return f"{more:,}" if more < 100 else f"{round(more, 2 - len(str(more))):,}"


def expected(headline: dict) -> str:
    """The sentence the stored headline calls for (the demos' figures: every one above chance)."""
    figure, reading = headline["figure"], headline["reading"]
    symbol, unit, units = reading["symbol"], figure["unit"], figure["units"]
    if figure["method"] == "too few":
        noun = unit[:-1] if units == 1 else unit
        return (
            f"Too few {unit} to judge yet: {symbol} {two(figure['value'])} rests on {units} {noun}, "
            "and an interval needs at least 30."
        )
    low, high = figure["low"], figure["high"]
    assert low > 0, "every demo's interval lies above chance"
    numbers = f"({symbol} {two(figure['value'])}, 95% interval {two(low)} to {two(high)})"
    work = f"about {more_units(figure)} more {unit} would make the interval ±0.05"
    if reading["scale"] == "kappa":
        bottom, top = (next(words for edge, words in LANDIS_KOCH if x > edge) for x in (low, high))
        where = bottom if bottom == top else f"between {bottom} and {top}"
        return f"Agreement beyond chance is {where} on Landis & Koch's scale {numbers}: {work}."
    bottom, top = (next(words for edge, words in KRIPPENDORFF if x >= edge) for x in (low, high))
    where = (
        (bottom + (" only" if bottom.startswith("good") else "")) if bottom == top else f"between {bottom} and {top}"
    )
    return f"Agreement is {where} by Krippendorff's standard {numbers}: {work}."


@pytest.mark.parametrize("kind", KINDS)
def test_every_headline_of_a_kinds_demo_reads_in_plain_words_on_the_summary_and_the_report(kind, demo, people, client):
    client.force_login(people["organiser"])
    checked = 0
    for campaign in demo(kind):
        summary = client.get(f"/campaigns/{campaign.pk}/").content.decode()
        report = client.get(f"/campaigns/{campaign.pk}/", {"section": "report"}).content.decode()
        if get_kind(campaign.kind).reports.headline is None:
            assert 'class="plain-reading"' not in summary + report
            continue
        stored = Report.objects.get(campaign=campaign, name=jobs.HEADLINE).data
        headline = summary.split('id="summary-headline">', 1)[1].split("</div>", 1)[0]
        measures, words, href = reading_of(headline)
        assert reading_of(report) == (measures, words, href), "the report's headline reads as the summary's"
        assert words == expected(stored), campaign.name
        assert href == f"/help/methods/#{stored['reading']['help']}"
        assert measures in {"chance-corrected agreement", "rank correlation", "clustering similarity"}
        checked += 1
    assert checked or kind == "factoids"
