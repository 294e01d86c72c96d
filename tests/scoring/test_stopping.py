"""The stop signal (stats/stopping.py), the interval params every kind offers
(kinds/base.py interval_params) and the template tags that show them."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from django.template import Context, Template

from annotate.models import Campaign
from concord.typed import dump, load
from kinds.registry import KINDS
from stats.intervals import FigureCI, RankingStability, figure_ci, interval_settings, ranking_stability
from stats.stopping import (
    MIN_RANKING_UNITS,
    MIN_SYSTEMS,
    MIN_UNITS,
    StopSignal,
    TooFew,
    ranking_signal,
    stop_signal,
    units_needed,
)
from stats.uncertainty import Interval


def ci(value, low, high, units, unit="items", method="bootstrap"):
    return FigureCI(value, low, high, units=units, unit=unit, method=method)


# -- arithmetic ---------------------------------------------------------------------------------


def test_more_units_follow_the_square_of_the_width_ratio():
    # half-width 0.1 on 200 items, wanted 0.05: 200 * (0.1/0.05)^2 = 800 items, so 600 more
    signal = stop_signal(ci(0.5, 0.4, 0.6, 200), 0.05)
    assert (signal.reached, round(signal.half_width, 12), signal.more_units) == (False, 0.1, 600)
    # half-width 0.08 on 50 topics, wanted 0.02: 50 * 16 = 800, 750 more
    assert stop_signal(ci(0.3, 0.22, 0.38, 50, "topics"), 0.02).more_units == 750
    # rounding up: 37 * (0.07 / 0.05)^2 = 72.52 -> 73, 36 more
    assert stop_signal(ci(0.3, 0.23, 0.37, 37), 0.05).more_units == 36
    assert units_needed(37, 0.07, 0.05) == 73


def test_reached_at_or_below_the_precision():
    assert stop_signal(ci(0.5, 0.45, 0.55, 400), 0.05).reached  # half-width exactly 0.05 (to float error)
    signal = stop_signal(ci(0.5, 0.48, 0.53, 400), 0.05)
    assert (signal.reached, signal.more_units) == (True, 0)
    # an asymmetric percentile interval: half its width counts
    assert round(stop_signal(ci(0.9, 0.7, 0.95, 100), 0.05).half_width, 12) == 0.125


def test_no_interval_no_signal():
    assert stop_signal(ci(0.5, None, None, 40, method="none"), 0.05) == (
        stop_signal(ci(0.5, float("nan"), float("nan"), 40, method="none"), 0.05)
    )
    signal = stop_signal(ci(0.5, None, None, 40, method="none"), 0.05)
    assert (signal.reached, signal.half_width, signal.more_units, signal.too_few) == (False, None, None, None)
    with pytest.raises(ValueError):
        stop_signal(ci(0.5, 0.4, 0.6, 10), 0)


def test_a_figure_on_fewer_than_30_units_is_too_few_to_judge_never_reached():
    """Three topics whose taus are all 1 give the interval [1, 1]: "reached" before; the
    bootstrap covers 56-93% at 10 units and 82-94% at 20, so no signal below MIN_UNITS (30)."""
    signal = stop_signal(ci(1.0, 1.0, 1.0, 3, "topics"), 0.05)
    assert (signal.reached, signal.more_units, signal.too_few) == (False, None, TooFew("topics", 3, MIN_UNITS))
    assert signal.too_few.describe() == "too few topics to judge (3 of at least 30)"
    assert stop_signal(ci(0.5, None, None, 1, method="none"), 0.05).too_few == TooFew("items", 1, 30)
    assert stop_signal(ci(0.8, 0.79, 0.81, 29), 0.05).too_few == TooFew("items", 29, 30)
    assert stop_signal(ci(0.8, 0.79, 0.81, 30), 0.05) == StopSignal(True, pytest.approx(0.01), 0, None)
    assert stop_signal(ci(0.8, 0.79, 0.81, 5), 0.05, min_units=5).reached
    assert MIN_UNITS == 30


def test_stop_signal_reads_the_metric_library_interval_too():
    assert stop_signal(Interval(0.5, 0.4, 0.6, units=200), 0.05).more_units == 600


def test_ranking_signal():
    stable = RankingStability("F1", 5, 40, "topics", 0.95, 0.85, 1000, "bootstrap")
    # 1 - p5 = 0.15, wanted 1 - 0.9 = 0.1: 40 * 2.25 = 90 topics, 50 more
    signal = ranking_signal(stable, 0.9)
    assert (signal.reached, signal.more_units) == (False, 50)
    assert ranking_signal(stable, 0.8).reached
    assert ranking_signal(RankingStability("F1", 1, 40, "topics", None, None, 1000, "none"), 0.9).more_units is None
    assert ranking_signal(RankingStability("F1", 5, 40, "topics", None, None, 1000, "none"), 0.9) == StopSignal(
        False, None, None, None
    )


def test_a_ranking_of_two_systems_or_few_topics_is_too_few_to_judge():
    """Two systems: tau is +-1, so a 5th percentile of 1.000 said "reached" on three topics."""
    two = RankingStability("nDCG@10", 2, 3, "topics", 1.0, 1.0, 1000, "bootstrap")
    assert (
        ranking_signal(two, 0.9).too_few == TooFew("systems", 2, MIN_SYSTEMS) and not ranking_signal(two, 0.9).reached
    )
    assert ranking_signal(RankingStability("F", 2, 500, "questions", 1.0, 1.0, 1000, "bootstrap"), 0.9).too_few == (
        TooFew("systems", 2, 3)
    )
    three = RankingStability("nDCG@10", 3, 9, "questions", 1.0, 1.0, 1000, "bootstrap")
    assert ranking_signal(three, 0.9).too_few == TooFew("questions", 9, MIN_RANKING_UNITS)
    enough = RankingStability("nDCG@10", 3, 10, "topics", 1.0, 1.0, 1000, "bootstrap")
    assert ranking_signal(enough, 0.9) == StopSignal(True, 0.0, 0, None)
    assert (MIN_SYSTEMS, MIN_RANKING_UNITS) == (3, 10)


def test_ranking_stability_against_a_direct_computation():
    from stats.rank import kendall_tau_b
    from stats.uncertainty import resample_weights

    rng = np.random.default_rng(5)
    scores = rng.random((6, 30))
    result = ranking_stability(scores, measure="nDCG@10", resamples=300, seed=0)
    w = resample_weights(30, n_resamples=300, seed=0)
    taus = np.array([kendall_tau_b(scores.mean(1), (scores * row).sum(1) / 30)[0, 0] for row in w])
    assert result.median == pytest.approx(float(np.median(taus)), abs=1e-12)
    assert result.p5 == pytest.approx(float(np.quantile(taus, 0.05)), abs=1e-12)
    assert (result.systems, result.units, result.unit, result.method) == (6, 30, "topics", "bootstrap")
    # a topic where a system has no score is left out
    scores[2, 4] = np.nan
    assert ranking_stability(scores, measure="x", resamples=50).units == 29
    assert ranking_stability(scores[:1], measure="x").method == "none"


# -- storage ------------------------------------------------------------------------------------


def test_figure_ci_round_trips_through_a_stored_report():
    stored = dump(figure_ci(Interval(0.25, float("nan"), float("nan"), units=1, method="none"), "items"))
    assert stored == {
        "value": 0.25,
        "low": None,
        "high": None,
        "units": 1,
        "unit": "items",
        "method": "none",
        "level": 0.95,
    }
    assert load(FigureCI, stored) == FigureCI(0.25, None, None, units=1, unit="items", method="none")


def test_interval_settings_defaults():
    assert interval_settings({}) == interval_settings(None)
    settings = interval_settings({"precision": 0.02, "resamples": 200, "ranking_tau": 0.8, "design": "overlap"})
    assert (settings.precision, settings.resamples, settings.seed, settings.ranking_tau) == (0.02, 200, 0, 0.8)
    assert interval_settings({}).precision == 0.05 and interval_settings({}).resamples == 1000


# -- the tags -----------------------------------------------------------------------------------


def render(text: str, **context) -> str:
    return Template("{% load scoring_tags %}" + text).render(Context(context))


def test_ci_tag_renders_value_interval_and_units():
    out = render("{% ci f %}", f=ci(0.2414, 0.2049, 0.2791, 800))
    assert "0.241" in out and "[0.205, 0.279]" in out and "· 800 items" in out
    assert '<span class="visually-hidden">95% interval </span>' in out
    assert "· 1 item<" in render("{% ci f %}", f=ci(0.5, 0.4, 0.6, 1))
    assert "(no interval)" in render("{% ci f %}", f=ci(0.5, None, None, 1, method="none"))
    assert render("{% ci f %}", f=None) == "—"
    assert "· 8" not in render("{% ci f units=False %}", f=ci(0.2, 0.1, 0.3, 8))


def test_stop_tag_uses_the_campaign_precision():
    f = ci(0.5, 0.4, 0.6, 200)
    out = render("{% stop f %}", f=f, campaign=SimpleNamespace(params={}))
    assert "about 600 more items (±0.100, wanted ±0.05)" in out
    out = render("{% stop f %}", f=f, campaign=SimpleNamespace(params={"precision": 0.1}))
    assert "✓ reached (±0.100, wanted ±0.1)" in out
    assert "not yet known" in render("{% stop f %}", f=ci(0.5, None, None, 40, method="none"))
    out = render("{% stop f %}", f=ci(1.0, 1.0, 1.0, 3, "topics"))
    assert "too few topics to judge (3 of at least 30)" in out and "reached" not in out
    stability = RankingStability("F1", 5, 40, "topics", 0.95, 0.85, 1000, "bootstrap")
    out = render("{% ranking_stop s %}", s=stability, campaign=SimpleNamespace(params={"ranking_tau": 0.9}))
    assert "about 50 more topics (5th percentile τ 0.850, wanted τ ≥ 0.9)" in out


# -- the params ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["pairs", "relevance", "nuggets"])
def test_every_kind_of_this_part_offers_the_interval_params(kind):
    names = {p.name for p in KINDS[kind].params}
    assert {"precision", "resamples", "ranking_tau"} <= names


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"precision": 0}, "params.precision"),
        ({"precision": 1.5}, "params.precision"),
        ({"precision": "0.05"}, "params.precision"),
        ({"resamples": 10}, "params.resamples"),
        ({"resamples": 100_000}, "params.resamples"),
        ({"ranking_tau": 1}, "params.ranking_tau"),
        ({"ranking_tau": 0}, "params.ranking_tau"),
    ],
)
def test_bad_interval_params_are_400s_naming_the_field(api, people, params, field):
    response = api(people["organiser"]).post(
        "/api/campaigns/", {"kind": "pairs", "name": "P", "params": params}, format="json"
    )
    assert response.status_code == 400, response.content
    assert response.json()["field"] == field
    assert not Campaign.objects.filter(name="P").exists()


@pytest.mark.django_db
def test_good_interval_params_are_stored(api, people):
    response = api(people["organiser"]).post(
        "/api/campaigns/",
        {"kind": "relevance", "name": "R", "params": {"precision": 0.02, "resamples": 500, "ranking_tau": 0.8}},
        format="json",
    )
    assert response.status_code == 201, response.content
    params = Campaign.objects.get(name="R").params
    assert (params["precision"], params["resamples"], params["ranking_tau"]) == (0.02, 500, 0.8)


# -- a tiny campaign ----------------------------------------------------------------------------


@pytest.fixture
def tiny(people):
    """Graded relevance, 3 topics x 2 documents, alice and bob grading alike, two systems of
    which sysA ranks the relevant document first on every topic; reports computed."""
    from annotate.imports.write import import_runs, import_topics
    from annotate.services.campaigns import create_campaign
    from annotate.services.judgments import save_judgment
    from annotate.services.members import add_member
    from scoring import services as scoring_services

    campaign = create_campaign(creator=people["organiser"], kind="relevance", name="Tiny", overlap=2)
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    topics = [f"t{i}" for i in range(1, 4)]
    import_topics(
        campaign=campaign,
        topics=[
            {
                "external_id": t,
                "title": t,
                "data": {"title": t, "documents": [{"id": "good", "text": "a"}, {"id": "bad", "text": "b"}]},
            }
            for t in topics
        ],
    )
    for topic in campaign.topics.all():
        for name in ("alice", "bob"):
            save_judgment(
                topic=topic,
                assessor=people[name],
                payload={"grades": {"good": 3, "bad": 0}},
                status="submitted",
                version=0,
            )
    runs = {"sysA": [["good", 2.0], ["bad", 1.0]], "sysB": [["bad", 2.0], ["good", 1.0]]}
    import_runs(
        campaign=campaign, runs=[{"name": n, "data": {"ranking": dict.fromkeys(topics, r)}} for n, r in runs.items()]
    )
    scoring_services.recompute_reports(campaign.pk, everything=True)
    return campaign


@pytest.mark.django_db
def test_a_tiny_campaign_says_too_few_to_judge_instead_of_reached(client, people, tiny):
    """3 topics and 2 systems showed "✓ reached (5th percentile τ 1.000, wanted τ ≥ 0.9)",
    and two assessors agreeing on 6 documents "✓ reached (±0.000)"."""
    from scoring.selectors import campaign_report

    data = campaign_report(tiny).data
    assert (data.ranking.systems, data.ranking.units, data.ranking.p5) == (2, 3, 1.0)
    # no interval at all over 6 documents (a bootstrap over them gives [1, 1]), the figure and its units kept
    ci = data.alpha.ordinal_ci
    assert (ci.value, ci.low, ci.high, ci.units, ci.method) == (1.0, None, None, 6, "too few")
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{tiny.pk}/report/").content.decode()
    assert "✓ reached" not in page
    assert "too few systems to judge (2 of at least 3)" in page
    assert "too few documents to judge (6 of at least 30)" in page
