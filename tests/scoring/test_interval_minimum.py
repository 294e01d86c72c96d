"""No bootstrap over a handful of units: below the stop signal's minimum
(stats.stopping.MIN_UNITS) a figure keeps its value and units but gets no interval
("too few", nothing drawn), and the pages say so; from the minimum on, the interval is
the library's bootstrap as before."""

from __future__ import annotations

import numpy as np
import pytest
from django.template import Context, Template

from kinds.registry import KINDS
from kinds.relevance.report import agreement
from kinds.relevance.tests.test_intervals import seeded_grades
from stats.intervals import (
    TOO_FEW,
    IntervalSettings,
    binary_cells,
    binary_pair_statistics,
    pair_intervals,
    shared_unit_intervals,
    too_few_ci,
)
from stats.stopping import MIN_UNITS
from stats.uncertainty import mean_units


def test_the_minimum_is_the_stop_signal_s():
    assert IntervalSettings().min_units == MIN_UNITS == 30


def test_a_figure_over_fewer_units_than_the_minimum_gets_no_interval_and_keeps_its_value():
    values = np.linspace(0, 1, MIN_UNITS - 1)
    ci = IntervalSettings().interval(mean_units(values), "topics")
    assert (ci.method, ci.units, ci.too_few, ci.defined) == (TOO_FEW, MIN_UNITS - 1, True, False)
    assert ci.value == pytest.approx(values.mean(), abs=1e-12)
    assert IntervalSettings().interval_at_scale(mean_units(values), "topics").method == TOO_FEW
    enough = IntervalSettings().interval(mean_units(np.linspace(0, 1, MIN_UNITS)), "topics")
    assert enough.method == "bootstrap" and enough.low < enough.value < enough.high


def test_pairs_below_the_minimum_draw_nothing_and_the_others_are_unchanged():
    rng = np.random.default_rng(2)
    small = binary_cells(rng.random(4) < 0.5, rng.random(4) < 0.5)
    large = binary_cells(rng.random(60) < 0.5, rng.random(60) < 0.5)
    statistics = binary_pair_statistics()
    few, many = pair_intervals([small, large], 4, statistics, "items", resamples=200)
    assert {ci.method for ci in few.values()} == {TOO_FEW}
    assert few["kappa"].units == 4
    old_few, old_many = pair_intervals([small, large], 4, statistics, "items", resamples=200, min_units=2)
    assert few["kappa"].value == pytest.approx(old_few["kappa"].value, abs=1e-12, nan_ok=True)
    assert many == old_many and many["kappa"].method == "bootstrap"


def test_shared_unit_intervals_leave_out_the_columns_with_too_few_units():
    per_unit = np.ones((40, 2, 2))
    per_unit[10:, 0, :] = 0.0  # column 0 counts 10 units, column 1 all 40
    found = shared_unit_intervals(per_unit, lambda s: s[..., 0] / s[..., 1], [10, 40], "topics", resamples=100)
    assert [ci.method for ci in found] == [TOO_FEW, "bootstrap"]


def test_a_topic_report_over_four_documents_says_too_few_and_keeps_every_kappa():
    g = seeded_grades(documents=4, topics=1)
    report = agreement(g, scale=["0", "1", "2", "3"], threshold=2, settings=IntervalSettings())
    with_intervals = agreement(g, scale=["0", "1", "2", "3"], threshold=2, settings=IntervalSettings(min_units=2))
    for pair, old in zip(report.pairs, with_intervals.pairs):
        assert pair.kappa_ci.method == TOO_FEW and pair.kappa_ci.units == pair.n <= 4
        assert pair.kappa_ci.value == pytest.approx(pair.kappa, abs=1e-12, nan_ok=True)
        assert pair.kappa == pytest.approx(old.kappa, abs=1e-12, nan_ok=True)
        assert old.kappa_ci.method != TOO_FEW
    assert report.alpha.ordinal_ci.too_few and report.ac2.too_few


def test_the_ci_tag_says_too_few_for_an_interval():
    html = Template("{% load scoring_tags %}{% ci f %}|{% ci f compact=True units=False %}").render(
        Context({"f": too_few_ci(0.25, 4, "documents")})
    )
    whole, compact = html.split("|")
    assert "0.250" in whole and "too few documents for an interval" in whole and "4 documents" in whole
    assert "too few documents for an interval" in compact and "[" not in compact


@pytest.mark.django_db
def test_the_relevance_topic_page_shows_too_few_for_its_pairs(client, people):
    from annotate.imports.write import import_topics
    from annotate.services.campaigns import create_campaign
    from annotate.services.judgments import save_judgment
    from annotate.services.members import add_member
    from scoring import services as scoring_services

    examples = KINDS["relevance"].examples
    campaign = create_campaign(
        creator=people["organiser"], kind="relevance", name="R", overlap=2, params=dict(examples.params) or None
    )
    names = ("alice", "bob")
    for name in names:
        add_member(campaign=campaign, username=name, role="assessor")
    (topic,) = import_topics(campaign=campaign, topics=[{"external_id": "t1", "data": dict(examples.topic)}])
    for name, payload in zip(names, examples.payloads):
        save_judgment(topic=topic, assessor=people[name], payload=dict(payload), status="submitted", version=0)
    scoring_services.recompute_reports(campaign.pk, everything=True)
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/topics/t1/report/").content.decode()
    assert "too few documents for an interval" in page
