"""The paper-exact conventions in the reports: the ordering reports' WCA weights
(campaign param ``wca_weights``) and RBA ties, the factoids reports' annotation kappa unit
(campaign param ``annotation_unit``); each report says which is in use."""

from __future__ import annotations

import pytest

from annotate.services.campaigns import clean_campaign_params
from concord.errors import InvalidInput
from kinds.factoids import demo as factoids_demo
from kinds.factoids import partials as factoids_partials
from kinds.factoids import report as factoids_report
from kinds.factoids import services as factoids_services
from kinds.factoids import stats as fm
from scoring import services as scoring_services
from scoring.selectors import report_input

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("unit", [None, "summary", "sentence"])
def test_factoids_annotation_kappa_unit(people, make_user, client, unit):
    simulated = [make_user(f"sim-{name}") for name in ("ann", "ben")]
    campaign = factoids_demo.build(people["organiser"], simulated, [people["alice"]])
    if unit is not None:
        campaign.params = clean_campaign_params(
            campaign.kind, {**campaign.params, "annotation_unit": unit}, current=campaign.params
        )
        campaign.save(update_fields=["params"])
    factoids_services.start_phase_two(campaign=campaign)
    campaign.refresh_from_db()
    given = report_input(campaign)
    topic = given.topics[0]
    report = factoids_report.topic_report(given, topic)
    expected_unit = unit or "summary"
    assert report.annotation_unit == factoids_partials.campaign_report(given).annotation_unit == expected_unit
    pair = report.agreement["1"].pairs[0]
    summaries = factoids_report.summaries_of(topic)
    payloads = {a: p for (t, a), p in given.phase_payloads(1).items() if t == topic.pk}
    n_identities = pair.identities
    per_unit = len(summaries) if expected_unit == "summary" else sum(len(s["sentences"]) for s in summaries)
    assert pair.annotation.n_items == n_identities * per_unit
    assert len(payloads) >= 2
    scoring_services.recompute_reports(campaign.pk, everything=True)
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/report/").content.decode()
    assert f'<strong id="annotation-unit">{expected_unit}</strong>' in page


def test_annotation_unit_param_is_checked():
    with pytest.raises(InvalidInput) as refused:
        clean_campaign_params("factoids", {"annotation_unit": "word"})
    assert refused.value.field == "params.annotation_unit"
    assert fm.annotation_kappa.__kwdefaults__["unit"] == "summary"
