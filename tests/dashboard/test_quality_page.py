"""The quality page (dashboard/views.py campaign_quality, dashboard/quality.py): the table's
figures, Pause and Reinstate (CSRF, organisers of the campaign only, a reason, bad input named),
the records read back, the reports rebuilt without a paused assessor and with them again, and
the CSV."""

from __future__ import annotations

import csv
import io

import pytest
from django.test import Client

from annotate.models import Membership, PauseRecord
from dashboard.quality import agreement_by_assessor
from scoring import selectors as scoring_selectors
from scoring.jobs import recompute_reports
from stats import quality as stats_quality
from tests.annotate.test_quality_rules import control, labels_campaign, submit

pytestmark = pytest.mark.django_db


def judged(people):
    """alice: 9 right of 12 controls (3 wrong); bob: every control right; 12 topics each."""
    campaign = labels_campaign(people, topics=12, pause_threshold=0)
    for n in range(12):
        control(campaign, n)
    for n in range(12):
        submit(campaign, n, people["alice"], "yes" if n % 4 else "no", active_ms=3000)
        submit(campaign, n, people["bob"], "yes", active_ms=5000)
    return campaign


def url(campaign) -> str:
    return f"/campaigns/{campaign.pk}/quality/"


def paused_at(campaign, name: str):
    return Membership.objects.get(campaign=campaign, user__username=name).paused_at


def test_the_organiser_sees_each_assessors_accuracy_with_its_interval(client, people):
    campaign = judged(people)
    recompute_reports(campaign.pk, everything=True)
    client.force_login(people["organiser"])
    page = client.get(url(campaign))
    assert page.status_code == 200
    html = page.content.decode()
    low, high = (float(x[0]) for x in stats_quality.control_accuracy([9], [12], level=0.99)[3:5])
    assert f'0.75 <span class="muted">({low:.2f} to {high:.2f}, Wilson)</span>' in html
    assert '1.00 <span class="muted">(' in html  # bob
    assert "3.0 s" in html and "5.0 s" in html  # time per item
    # agreement with the other as the stored report has it: 9 of 12 items alike
    rows = {row.quality.username: row for row in page.context["rows"]}
    assert rows["alice"].agreement.observed == pytest.approx(0.75)
    assert rows["alice"].agreement.pairs == 1
    assert "Nobody has been paused." in html


def post(client, campaign, **data):
    return client.post(url(campaign), data)


def test_pause_and_reinstate_are_recorded_and_read_back(client, people):
    campaign = judged(people)
    client.force_login(people["organiser"])
    answer = post(client, campaign, action="pause", username="alice", reason="answers at random")
    assert (answer.status_code, answer["Location"]) == (303, url(campaign))
    membership = Membership.objects.get(campaign=campaign, user__username="alice")
    assert membership.paused_at is not None and membership.pause_reason == "answers at random"
    page = client.get(url(campaign)).content.decode()
    assert "alice is paused" in page and "answers at random" in page and 'aria-label="Reinstate alice"' in page
    record = PauseRecord.objects.get(membership=membership)
    assert (record.action, record.by, record.evidence["answered"], record.evidence["credit"]) == (
        "pause",
        people["organiser"],
        12,
        9,
    )
    assert post(client, campaign, action="reinstate", username="alice", reason="retrained").status_code == 303
    assert paused_at(campaign, "alice") is None
    actions = list(PauseRecord.objects.filter(membership=membership).values_list("action", "reason", "by__username"))
    assert actions == [("pause", "answers at random", "organiser"), ("reinstate", "retrained", "organiser")]
    page = client.get(url(campaign)).content.decode()
    assert "retrained" in page and "Reinstated" in page


def test_a_pause_rebuilds_the_reports_without_the_assessor_and_a_reinstatement_with_them(client, people):
    campaign = judged(people)
    recompute_reports(campaign.pk, everything=True)

    def assessors() -> list[str]:
        recompute_reports(campaign.pk)
        return [a.assessor for a in scoring_selectors.campaign_report(campaign).data.assessors]

    assert assessors() == ["alice", "bob"]
    client.force_login(people["organiser"])
    post(client, campaign, action="pause", username="alice", reason="checking")
    assert assessors() == ["bob"]
    post(client, campaign, action="reinstate", username="alice", reason="checked")
    assert assessors() == ["alice", "bob"]


def test_the_buttons_need_the_csrf_token(people):
    campaign = judged(people)
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(people["organiser"])
    assert post(browser, campaign, action="pause", username="alice", reason="x").status_code == 403
    assert paused_at(campaign, "alice") is None
    token = browser.get(url(campaign)).context["csrf_token"]
    answer = browser.post(
        url(campaign), {"action": "pause", "username": "alice", "reason": "x"}, HTTP_X_CSRFTOKEN=str(token)
    )
    assert answer.status_code == 303 and paused_at(campaign, "alice") is not None


@pytest.mark.parametrize(("who", "status"), [("alice", 403), ("other_organiser", 404), ("outsider", 404)])
def test_only_the_campaigns_organisers_pause(client, people, who, status):
    campaign = judged(people)
    client.force_login(people[who])
    assert post(client, campaign, action="pause", username="bob", reason="x").status_code == status
    assert client.get(url(campaign)).status_code == status
    assert client.get(f"/campaigns/{campaign.pk}/quality.csv").status_code == status
    assert paused_at(campaign, "bob") is None


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"action": "pause", "username": "alice", "reason": "  "}, "reason"),
        ({"action": "pause", "username": "alice"}, "reason"),
        ({"action": "pause", "username": "alice", "reason": "x" * 2001}, "reason"),
        ({"action": "pause", "username": "nobody", "reason": "x"}, "username"),
        ({"action": "pause", "username": "organiser", "reason": "x"}, "username"),
        ({"action": "reinstate", "username": "alice", "reason": "x"}, "username"),
        ({"action": "delete", "username": "alice", "reason": "x"}, "action"),
    ],
)
def test_bad_input_is_refused_naming_the_field(client, people, data, field):
    campaign = judged(people)
    client.force_login(people["organiser"])
    answer = client.post(url(campaign), data)
    assert answer.status_code == 400
    assert f"Nothing changed: {field}:" in answer.content.decode()
    assert not Membership.objects.filter(campaign=campaign, paused_at__isnull=False).exists()
    assert not PauseRecord.objects.exists()


def test_pausing_twice_is_refused(client, people):
    campaign = judged(people)
    client.force_login(people["organiser"])
    post(client, campaign, action="pause", username="alice", reason="first")
    answer = post(client, campaign, action="pause", username="alice", reason="again")
    assert answer.status_code == 400 and "already paused" in answer.content.decode()
    assert PauseRecord.objects.count() == 1


def test_the_csv_holds_the_table_with_neutralised_text(client, people):
    campaign = judged(people)
    client.force_login(people["organiser"])
    post(client, campaign, action="pause", username="alice", reason="=HYPERLINK(1)")
    answer = client.get(f"/campaigns/{campaign.pk}/quality.csv")
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/csv")
    assert f"campaign-{campaign.pk}-quality.csv" in answer["Content-Disposition"]
    rows = {row["assessor"]: row for row in csv.DictReader(io.StringIO(answer.content.decode()))}
    assert rows["alice"]["status"] == "paused" and rows["alice"]["pause_reason"] == "'=HYPERLINK(1)"
    assert (rows["alice"]["controls_answered"], rows["alice"]["accuracy"], rows["alice"]["interval"]) == (
        "12",
        "0.75",
        "wilson",
    )
    assert float(rows["bob"]["accuracy_high"]) == 1.0 and rows["bob"]["status"] == "working"


def test_agreement_is_weighted_by_the_items_shared():
    class Pair:
        def __init__(self, names, n, observed, kappa):
            self.assessors, self.n, self.observed, self.kappa = names, n, observed, kappa

    found = agreement_by_assessor([Pair(("a", "b"), 10, 0.8, 0.5), Pair(("a", "c"), 30, 0.4, 0.1)])
    assert found["a"].observed == pytest.approx((8 + 12) / 40)
    assert found["a"].kappa == pytest.approx(0.3) and found["c"].observed == pytest.approx(0.4)


def test_a_campaign_without_controls_says_so_and_still_pauses(client, people, campaign):
    client.force_login(people["organiser"])
    page = client.get(url(campaign)).content.decode()
    assert 'id="no-controls"' in page and "no control answered" in page
    assert post(client, campaign, action="pause", username="alice", reason="left the project").status_code == 303
    assert paused_at(campaign, "alice") is not None
