"""The demo seed: logins, a campaign per kind, realistic (imperfect) agreement."""

import importlib
import re

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

from annotate.models import Assignment, Campaign, Judgment
from concord import markdown
from kinds.registry import KINDS
from scoring.selectors import campaign_report

pytestmark = pytest.mark.django_db


def test_seed_creates_logins_and_a_pairs_campaign_with_realistic_agreement(capsys):
    call_command("seed_demo")
    out = capsys.readouterr().out
    passwords = dict(line.split()[1::2] for line in out.splitlines() if "password:" in line)
    assert set(passwords) == {"admin", "organiser", "alice", "bob"}
    assert authenticate(username="alice", password=passwords["alice"]) is not None

    campaign = Campaign.objects.get(kind="pairs", params__demo=True, name__startswith="Person-name")
    report = campaign_report(campaign).data
    kappas = [p.kappa for p in report.pairs]
    assert len(kappas) == 6  # four simulated adjudicators
    assert all(0.3 < k < 0.95 for k in kappas), kappas
    assert 0.4 < report.fleiss.kappa < 0.9
    # The people have work of their own waiting, judged by nobody yet.
    assert Assignment.objects.filter(topic__campaign=campaign, assessor__username="alice").exists()
    assert not Judgment.objects.filter(assessor__username__in=["alice", "bob"]).exists()


def test_seeding_twice_keeps_one_demo_campaign(capsys):
    call_command("seed_demo")
    once = sorted(Campaign.objects.filter(params__demo=True).values_list("kind", flat=True))
    call_command("seed_demo", "--keep-passwords")
    assert sorted(Campaign.objects.filter(params__demo=True).values_list("kind", flat=True)) == once
    # One demo per kind of the registry, two for pairs (adjudication, and the name-search systems).
    assert sorted(set(once)) == sorted(name for name, spec in KINDS.items() if spec.demo) and once.count("pairs") == 2
    assert len(once) == len(set(once)) + 1
    assert "(unchanged)" in capsys.readouterr().out


def test_ordering_demo_has_a_careless_assessor_and_ranked_runs():
    call_command("seed_demo")
    campaign = Campaign.objects.get(kind="ordering", params__demo=True)
    report = campaign_report(campaign).data
    assert [row.run for row in report.runs] == ["close-system", "rough-system", "backwards-system"]
    # The careless assessor agrees least with the others.
    from scoring.selectors import topic_report

    topic = campaign.topics.get(external_id="p1")
    data = topic_report(topic).data
    means = {a: sum(v for v in row if v is not None) - 1 for a, row in zip(data.assessors, data.tau)}
    assert min(means, key=means.get) == "sim-dev"
    assert Assignment.objects.filter(topic__campaign=campaign, assessor__username="alice").count() == 2


def test_clustering_demo_judges_generalise_split_and_leave_out():
    call_command("seed_demo")
    campaign = Campaign.objects.get(kind="clustering", params__demo=True)
    from scoring.selectors import topic_report

    data = topic_report(campaign.topics.get(external_id="volcano")).data
    profiles = data.profiles
    assert max(profiles, key=lambda j: profiles[j].clusters) == "sim-ben"  # splits finely
    assert min(profiles, key=lambda j: profiles[j].sentences) == "sim-cara"  # leaves many out
    assert max(profiles, key=lambda j: profiles[j].per_cluster) == "sim-ann"  # generalises
    assert all(p.singleton.v_beta > data.baseline.singleton.v_beta for p in data.pairs)


def test_nuggets_demo_pyramid_agrees_with_assessors_better_than_the_original():
    call_command("seed_demo")
    campaign = Campaign.objects.get(kind="nuggets", params__demo=True)
    stability = campaign_report(campaign).data.stability
    assert stability.assessors[0] == "original" and len(stability.assessors) == 5
    assert stability.mean_tau_pyramid > stability.mean_tau_original
    assert Assignment.objects.filter(topic__campaign=campaign, assessor__username="alice").count() == 2


def test_systems_demo_has_thirteen_pooled_systems_and_four_adjudicators():
    call_command("seed_demo")
    campaign = Campaign.objects.get(kind="pairs", params__demo=True, name__startswith="Name-search")
    report = campaign_report(campaign).data
    assert len(report.systems) == 13 and len(report.assessors) == 4
    kappas = [p.kappa for p in report.pairs]
    assert 0.4 < min(kappas) and max(kappas) < 0.9  # realistic disagreement, as in Figure 4
    f1 = sorted(s.consensus.f1 for s in report.systems)
    assert f1[-1] - f1[0] > 0.1  # systems of varying quality
    topic = campaign.topics.first()
    assert all(c["runs"] for c in topic.data["candidates"])  # provenance kept
    assert all(c["text"].lower() != topic.data["query"].lower() for c in topic.data["candidates"])


def test_factoids_demo_relations_and_agreement():
    call_command("seed_demo")
    campaign = Campaign.objects.get(kind="factoids", params__demo=True)
    from scoring.selectors import topic_report

    data = topic_report(campaign.topics.get(external_id="tram")).data
    pair = data.agreement["1"].pairs[0]
    assert pair.subsumptions == 3  # the coarse annotator's three two-fact factoids
    assert 0.5 < pair.definition.kappa < 0.95 and 0.8 < pair.annotation.kappa < 1.0
    scores = data.scores.summaries
    assert len(scores) == 26 and sum(not s.model for s in scores) == 6
    assert Assignment.objects.filter(topic__campaign=campaign, assessor__username="alice").count() == 1


@pytest.mark.parametrize(
    ("module", "definitions"),
    [
        ("kinds.relevance.demo", ["3 highly relevant", "2 relevant", "1 related", "0 non-relevant"]),
        ("kinds.nuggets.demo", ["Vital", "Okay"]),
        ("kinds.pairs.demo", ["Match", "No match"]),
    ],
)
def test_demo_guidelines_list_each_definition_as_its_own_item(module, definitions):
    """Grade and label definitions run into one paragraph were hard to read: each is a list item."""
    html = markdown.render(importlib.import_module(module).GUIDELINES)
    items = re.findall(r"<li>(.*?)</li>", html, re.S)
    for definition in definitions:
        assert sum(item.startswith(f"<strong>{definition}</strong>") for item in items) == 1, (definition, html)
