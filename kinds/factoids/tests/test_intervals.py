"""Factoids: definition and annotation kappa carry seeded bootstrap intervals over their own items
(van Halteren & Teufel section 3.1: factoid-summary combinations)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from annotate.imports.write import import_topics
from annotate.services.campaigns import create_campaign
from annotate.services.curations import save_curation
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from concord.typed import dump, load
from kinds.factoids import stats as m
from kinds.factoids.report import FactoidsCampaignReport, FactoidsTopicReport, summaries_of
from scoring import services as scoring_services
from scoring.selectors import campaign_report, topic_report
from stats.uncertainty import bootstrap, fleiss_kappa_units, grouped_bootstrap

# These tests compare the reports' bootstrap with the library's on a few units: below the
# reports' minimum (stats.stopping.MIN_UNITS) no interval is drawn, so they lower it.
pytestmark = [pytest.mark.usefixtures("intervals_on_few_units"), pytest.mark.django_db]


SUMMARIES = [
    {"id": f"m{s}", "author": f"p{s}", "sentences": [{"id": f"m{s}.{i}", "text": f"Sentence {i}."} for i in (1, 2)]}
    for s in range(12)
]
RELATIONS = [{"first": [f"A{k}"], "second": [f"B{k}"]} for k in (1, 2, 3)]


def _annotations() -> tuple[dict, dict]:
    """alice's A1-A3 and bob's B1-B3 (the same factoids, confirmed as identities), marked
    on seeded sentences: bob agrees with alice on about three sentences in four."""
    rng = random.Random(15)
    alice = {"factoids": [{"id": f"A{k}", "text": f"fact {k}"} for k in (1, 2, 3)], "marks": {}}
    bob = {"factoids": [{"id": f"B{k}", "text": f"fact {k}"} for k in (1, 2, 3)], "marks": {}}
    for summary in SUMMARIES:
        for sentence in summary["sentences"]:
            for k in (1, 2, 3):
                marked = rng.random() < 0.3
                if marked:
                    alice["marks"].setdefault(sentence["id"], []).append(f"A{k}")
                if marked != (rng.random() < 0.25):
                    bob["marks"].setdefault(sentence["id"], []).append(f"B{k}")
    return alice, bob


@pytest.fixture
def annotated(people):
    campaign = create_campaign(creator=people["organiser"], kind="factoids", name="F", overlap=2)
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    (topic,) = import_topics(campaign=campaign, topics=[{"external_id": "k", "data": {"summaries": SUMMARIES}}])
    alice, bob = _annotations()
    save_judgment(topic=topic, assessor=people["alice"], payload=alice, status="submitted", version=0)
    save_judgment(topic=topic, assessor=people["bob"], payload=bob, status="submitted", version=0)
    save_curation(
        topic=topic, name="relations", data={"pairs": {"alice|bob": RELATIONS}}, version=0, user=people["organiser"]
    )
    scoring_services.recompute_reports(campaign.pk, everything=True)
    return campaign, topic, alice, bob


def _direct(labels: np.ndarray, resamples: int = 1000):
    """The library's bootstrap of the kappa over these items, drawn as counts of the
    items' distinct statistics (how the report draws them: few distinct rows)."""
    present = labels.sum(axis=1)
    stats = fleiss_kappa_units(np.column_stack([2 - present, present]))
    return grouped_bootstrap(stats.per_unit, stats.statistic, n_resamples=resamples, seed=0)


def test_the_grouped_draw_is_the_items_bootstrap():
    # Drawing items with replacement vs drawing the counts of their three distinct
    # statistics: the same distribution (20,000 resamples each; bounds to Monte Carlo error).
    rng = np.random.default_rng(7)
    labels = rng.random((400, 2)) < np.array([0.3, 0.35])
    labels[:150, 1] = labels[:150, 0]  # some agreement beyond chance
    present = labels.sum(axis=1)
    stats = fleiss_kappa_units(np.column_stack([2 - present, present]))
    grouped = grouped_bootstrap(stats.per_unit, stats.statistic, n_resamples=20000, seed=0)
    plain = bootstrap(stats.per_unit, stats.statistic, n_resamples=20000, seed=0)
    assert grouped.value == plain.value and grouped.units == plain.units == 400
    assert grouped.low == pytest.approx(plain.low, abs=0.01)
    assert grouped.high == pytest.approx(plain.high, abs=0.01)
    assert plain.high - plain.low > 0.1  # a real interval, not a degenerate one


def _keys():
    return ({f"A{k}": f"A{k}" for k in (1, 2, 3)}, {f"B{k}": f"A{k}" for k in (1, 2, 3)})


def test_definition_and_annotation_kappa_equal_a_direct_bootstrap_over_their_items(annotated):
    campaign, topic, alice, bob = annotated
    summaries = summaries_of(topic)
    pair = topic_report(topic).data.agreement["1"].pairs[0]
    assert pair.relations == "confirmed" and pair.identities == 3
    # definition: 3 identities x 12 summaries (section 3.2)
    definition = m.definition_items(RELATIONS, alice, bob, summaries).labels
    direct = _direct(definition)
    ci = pair.definition.ci
    assert (ci.units, ci.unit, ci.method) == (36, "factoid-pair-summary items", "bootstrap")
    assert ci.value == pytest.approx(pair.definition.kappa, abs=1e-12)
    assert ci.value == pytest.approx(m.definition_kappa(RELATIONS, alice, bob, summaries).kappa, abs=1e-12)
    assert (ci.low, ci.high) == pytest.approx((direct.low, direct.high), abs=1e-12)
    assert ci.low < ci.value < ci.high
    # annotation: the paper's unit, 3 factoids x 12 summaries (section 3.1)
    annotation = m.annotation_items([alice, bob], summaries, unit="summary", factoid_keys=_keys()).labels
    direct = _direct(annotation)
    ci = pair.annotation.ci
    assert (ci.units, ci.unit, ci.method) == (36, "factoid-summary items", "bootstrap")
    assert ci.value == pytest.approx(pair.annotation.kappa, abs=1e-12)
    assert (ci.low, ci.high) == pytest.approx((direct.low, direct.high), abs=1e-12)
    assert ci.low < ci.value < ci.high
    whole = campaign_report(campaign).data
    assert dump(whole.pairs[0].annotation.ci) == dump(ci)
    for value in (whole, topic_report(topic).data):
        assert dump(load(type(value), dump(value))) == dump(value)
    assert isinstance(whole, FactoidsCampaignReport)


def test_sentence_unit_resamples_factoid_sentence_items(annotated):
    campaign, topic, alice, bob = annotated
    campaign.params = {**campaign.params, "annotation_unit": "sentence", "resamples": 300}
    campaign.save()
    scoring_services.recompute_reports(campaign.pk, everything=True)
    data: FactoidsTopicReport = topic_report(topic).data
    ci = data.agreement["1"].pairs[0].annotation.ci
    labels = m.annotation_items([alice, bob], summaries_of(topic), unit="sentence", factoid_keys=_keys()).labels
    direct = _direct(labels, resamples=300)
    assert (ci.units, ci.unit) == (72, "factoid-sentence items")  # 3 factoids x 24 sentences
    assert (ci.value, ci.low, ci.high) == pytest.approx((direct.value, direct.low, direct.high), abs=1e-12)
    assert ci.low < ci.value < ci.high


def test_the_organiser_page_shows_intervals_and_stop_signals(annotated, client, people):
    campaign, topic, _, _ = annotated
    pair = campaign_report(campaign).data.pairs[0]
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/report/").content.decode()
    for ci in (pair.definition.ci, pair.annotation.ci):
        assert f"[{ci.low:.3f}, {ci.high:.3f}]" in page
    # precision 0.05 (the default) is far from reached on 36 items (30 or more): about n (h/d)^2 - n more
    half = (pair.definition.ci.high - pair.definition.ci.low) / 2
    more = int(np.ceil(round(36 * (half / 0.05) ** 2, 9))) - 36
    assert f"about {more} more factoid-pair-summary items" in page
    topic_page = client.get(f"/campaigns/{campaign.pk}/topics/k/report/").content.decode()
    assert f"[{pair.annotation.ci.low:.3f}, {pair.annotation.ci.high:.3f}]" in topic_page
