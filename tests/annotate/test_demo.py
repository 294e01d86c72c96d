"""The demo seed: logins, a campaign per kind, realistic (imperfect) agreement."""

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

from annotate.models import Assignment, Campaign, Judgment
from scoring.selectors import campaign_report

pytestmark = pytest.mark.django_db


def test_seed_creates_logins_and_a_pairs_campaign_with_realistic_agreement(capsys):
    call_command("seed_demo")
    out = capsys.readouterr().out
    passwords = dict(line.split()[1::2] for line in out.splitlines() if "password:" in line)
    assert set(passwords) == {"admin", "organiser", "alice", "bob"}
    assert authenticate(username="alice", password=passwords["alice"]) is not None

    campaign = Campaign.objects.get(kind="pairs", params__demo=True)
    report = campaign_report(campaign).data
    kappas = [p["kappa"] for p in report["pairs"]]
    assert len(kappas) == 6  # four simulated adjudicators
    assert all(0.3 < k < 0.95 for k in kappas), kappas
    assert 0.4 < report["fleiss"]["kappa"] < 0.9
    # The people have work of their own waiting, judged by nobody yet.
    assert Assignment.objects.filter(topic__campaign=campaign, assessor__username="alice").exists()
    assert not Judgment.objects.filter(assessor__username__in=["alice", "bob"]).exists()


def test_seeding_twice_keeps_one_demo_campaign(capsys):
    call_command("seed_demo")
    call_command("seed_demo", "--keep-passwords")
    assert Campaign.objects.filter(params__demo=True).count() == 1
    assert "(unchanged)" in capsys.readouterr().out
