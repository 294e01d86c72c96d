"""The paper-exact conventions in the reports: the ordering reports' WCA weights
(campaign param ``wca_weights``) and RBA ties, the factoids reports' annotation kappa unit
(campaign param ``annotation_unit``); each report says which is in use."""

from __future__ import annotations

import pytest

from annotate.imports.write import import_runs, import_topics
from annotate.services.campaigns import clean_campaign_params, create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from concord.errors import InvalidInput
from kinds.ordering import partials as ordering_partials
from kinds.ordering import report as ordering_report
from kinds.ordering import stats as om
from scoring import services as scoring_services
from scoring.models import Job
from scoring.selectors import report_input

pytestmark = pytest.mark.django_db

ITEMS = ["s1", "s2", "s3", "s4"]

# Four agreeing assessors and one who reverses them: WCA weights 1/2 x 4 and -1.
ORDERS = {
    "alice": ITEMS,
    "bob": ITEMS,
    "carol": ITEMS,
    "dave": ITEMS,
    "erin": ITEMS[::-1],
}


def ordering_campaign(people, make_user, params):
    campaign = create_campaign(creator=people["organiser"], kind="ordering", name="W", overlap=5, params=params)
    users = {name: people.get(name) or make_user(name) for name in ORDERS}
    for name in ORDERS:
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(
        campaign=campaign, topics=[{"external_id": "t1", "data": {"items": [{"id": i, "text": i} for i in ITEMS]}}]
    )
    topic = campaign.topics.get()
    for name, order in ORDERS.items():
        save_judgment(topic=topic, assessor=users[name], payload={"order": order}, status="submitted", version=0)
    import_runs(campaign=campaign, runs=[{"name": "reversed", "data": {"orderings": {"t1": ITEMS[::-1]}}}])
    return campaign, topic


def test_wca_weights_param_is_checked():
    with pytest.raises(InvalidInput) as refused:
        clean_campaign_params("ordering", {"wca_weights": "raw"})
    assert refused.value.field == "params.wca_weights"
    assert clean_campaign_params("ordering", {"wca_weights": "paper"})["wca_weights"] == "paper"
    assert "wca_weights" not in clean_campaign_params("ordering", {})  # absent: clamped


@pytest.mark.parametrize(
    ("params", "weights", "score"), [({}, "clamped", -1.0), ({"wca_weights": "paper"}, "paper", -3.0)]
)
def test_ordering_reports_use_and_name_the_wca_weights(people, make_user, client, params, weights, score):
    campaign, topic = ordering_campaign(people, make_user, params)
    given = report_input(campaign)
    topic_report = ordering_report.topic_report(given, topic)
    campaign_report = ordering_partials.campaign_report(given)
    assert topic_report.wca_weights == campaign_report.wca_weights == weights
    assert topic_report.runs["reversed"]["WCA-tau"] == pytest.approx(score, abs=1e-12)
    assert campaign_report.runs[0].scores["WCA-Sp"] == pytest.approx(score, abs=1e-12)
    golds = list(ORDERS.values())
    assert campaign_report.ed["WCA-tau"] == pytest.approx(om.discriminativeness(golds, "wca-tau", weights=weights))
    # RBA: no ties here, so the same under every tie break.
    assert topic_report.runs["reversed"]["RBA-tau"] == -1.0
    scoring_services.recompute_reports(campaign.pk, everything=True)
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/report/").content.decode()
    assert f'<strong id="wca-weights">{weights}</strong>' in page


def test_rba_in_the_report_does_not_depend_on_who_submitted_first(people, make_user):
    # Two assessors whose summed ranks tie on s2 and s3: RBA-tau of s1 s2 s3 s4 is 5/6 (2/3 or 1 if one tie-break order were taken).
    campaign = create_campaign(creator=people["organiser"], kind="ordering", name="R", overlap=2)
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(
        campaign=campaign, topics=[{"external_id": "t1", "data": {"items": [{"id": i, "text": i} for i in ITEMS]}}]
    )
    topic = campaign.topics.get()
    for name, order in (("alice", ["s1", "s3", "s2", "s4"]), ("bob", ITEMS)):
        save_judgment(topic=topic, assessor=people[name], payload={"order": order}, status="submitted", version=0)
    import_runs(campaign=campaign, runs=[{"name": "natural", "data": {"orderings": {"t1": ITEMS}}}])
    report = ordering_report.topic_report(report_input(campaign), topic)
    assert report.runs["natural"]["RBA-tau"] == pytest.approx(5 / 6, abs=1e-12)
    assert report.runs["natural"]["RBA-Sp"] == pytest.approx(0.9, abs=1e-12)


def test_noise_analysis_shows_both_wca_weights(people, make_user, django_capture_on_commit_callbacks):
    campaign, _ = ordering_campaign(people, make_user, {})
    with django_capture_on_commit_callbacks(execute=True):
        job = scoring_services.start_analysis(
            campaign=campaign, analysis="noise", params={"ratios": [0, 1], "seeds": 2}, user=None
        )
    job = Job.objects.get(pk=job.pk)
    assert job.status == "done", job.message
    assert job.result["wca_weights"] == "clamped"
    rows = {row["method"]: row["ed"] for row in job.result["rows"]}
    assert list(rows) == [
        "AC-tau",
        "AC-Sp",
        "WCA-tau (clamped)",
        "WCA-tau (paper)",
        "WCA-Sp (clamped)",
        "WCA-Sp (paper)",
        "RBA-tau",
        "RBA-Sp",
        "FreSPA",
    ]
    golds = list(ORDERS.values())
    for weights in ("clamped", "paper"):
        expected = om.noise_robustness(golds, "wca-tau", ratios=(0, 1), seeds=2, weights=weights)
        assert rows[f"WCA-tau ({weights})"] == pytest.approx(list(expected.ed), abs=1e-12)
    assert rows["WCA-tau (clamped)"][0] != rows["WCA-tau (paper)"][0]
