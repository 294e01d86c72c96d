"""The ordering report and analyses against independent computations."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pytest
from scipy.stats import kendalltau, spearmanr

from annotate.imports.write import import_runs, import_topics
from annotate.models import Campaign, Judgment
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from concord.errors import InvalidInput
from concord.typed import Outdated, dump, load
from kinds.ordering import partials as ordering_partials
from kinds.ordering import report as ordering_report
from kinds.ordering import stats as m
from scoring import services as scoring_services
from scoring.charts import specs_in
from scoring.models import Job, Report
from scoring.selectors import campaign_report, report_input, topic_report, topic_rows

pytestmark = pytest.mark.django_db

ITEMS = [f"s{i}" for i in range(1, 9)]


@pytest.fixture
def ordered(people):
    """Three assessors order two topics of eight items; two runs."""
    campaign = create_campaign(creator=people["organiser"], kind="ordering", name="O", overlap=3)
    for name in ("alice", "bob", "carol"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(
        campaign=campaign,
        topics=[
            {"external_id": t, "data": {"items": [{"id": i, "text": i.upper()} for i in ITEMS]}} for t in ("t1", "t2")
        ],
    )
    orders = {
        "alice": ["s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8"],
        "bob": ["s2", "s1", "s3", "s4", "s6", "s5", "s7", "s8"],
        "carol": ["s1", "s3", "s2", "s4", "s5", "s8", "s6", "s7"],
    }
    for topic in campaign.topics.all():
        for name, order in orders.items():
            save_judgment(topic=topic, assessor=people[name], payload={"order": order}, status="submitted", version=0)
    import_runs(
        campaign=campaign,
        runs=[
            {"name": "good", "data": {"orderings": {"t1": ITEMS, "t2": ITEMS}}},
            {"name": "reversed", "data": {"orderings": {"t1": ITEMS[::-1]}}},
        ],
    )
    scoring_services.recompute_reports(campaign.pk, everything=True)
    return campaign, orders


def ranks(order):
    return [order.index(item) for item in ITEMS]


def test_topic_report_tau_matrix_consensus_and_run_scores(ordered):
    campaign, orders = ordered
    data = topic_report(campaign.topics.get(external_id="t1")).data
    assert data.assessors == ["alice", "bob", "carol"]
    for (i, a), (j, b) in combinations(enumerate(data.assessors), 2):
        expected = kendalltau(ranks(orders[a]), ranks(orders[b])).statistic
        assert data.tau[i][j] == pytest.approx(expected, abs=1e-12) == data.tau[j][i]
    # Summed ranks: s1 0+1+0, s2 1+0+2, s3 2+2+1 ... ties as in alice's order.
    assert [item.id for item in data.consensus] == ["s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8"]
    golds = list(orders.values())
    good = data.runs["good"]
    assert good["AC-tau"] == pytest.approx(
        np.mean([kendalltau(ranks(ITEMS), ranks(g)).statistic for g in golds]), abs=1e-12
    )
    assert good["AC-Sp"] == pytest.approx(
        np.mean([spearmanr(ranks(ITEMS), ranks(g)).statistic for g in golds]), abs=1e-12
    )
    assert good["FreSPA"] == pytest.approx(m.frespa(ITEMS, golds), abs=1e-12)
    assert data.runs["reversed"]["AC-tau"] == pytest.approx(-good["AC-tau"], abs=1e-12)


def test_campaign_report_ranks_runs_and_gives_ed_per_method(ordered):
    campaign, orders = ordered
    data = campaign_report(campaign).data
    assert [row.run for row in data.runs] == ["good", "reversed"]
    good, reversed_ = data.runs
    assert (good.topics, reversed_.topics) == (2, 1)
    assert good.ranks == {label: 1 for label in good.scores}
    golds = list(orders.values())
    assert data.ed["AC-tau"] == pytest.approx(m.discriminativeness(golds, "ac-tau"), abs=1e-12)
    assert data.ed["FreSPA"] == pytest.approx(m.discriminativeness(golds, "frespa"), abs=1e-12)
    assert data.topics_ordered == 2
    listed = topic_rows(campaign, campaign_report(campaign))
    assert [(row.topic, row.orderings) for row in listed.rows] == [("t1", 3), ("t2", 3)] and listed.total == 2
    assert listed.belongs_to(campaign_report(campaign)) and listed.rows[0].consensus == ordering_report.consensus_order(
        list(orders.values())
    )


def test_reports_round_trip_and_an_outdated_shape_is_refused(ordered):
    campaign, _ = ordered
    given = report_input(campaign)
    built = [
        (ordering_report.OrderingTopicReport, ordering_report.topic_report(given, topic)) for topic in given.topics
    ]
    built.append((ordering_report.OrderingCampaignReport, ordering_partials.campaign_report(given)))
    for type_, value in built:
        assert dump(load(type_, dump(value))) == dump(value)
    stored = Report.objects.get(campaign=campaign, name="agreement").data
    assert dump(load(ordering_report.OrderingCampaignReport, stored)) == stored
    with pytest.raises(Outdated):
        load(ordering_report.OrderingCampaignReport, {k: v for k, v in stored.items() if k != "topics_ordered"})
    with pytest.raises(Outdated):
        load(ordering_report.OrderingTopicReport, {**dump(built[0][1]), "consensus": [{"id": "s1"}]})


def test_noise_sweep_and_tune_jobs(ordered, django_capture_on_commit_callbacks):
    campaign, orders = ordered
    for analysis, params in (("noise", {"ratios": [0, 1], "seeds": 3}), ("frespa-sweep", {}), ("frespa-tune", {})):
        with django_capture_on_commit_callbacks(execute=True):
            job = scoring_services.start_analysis(campaign=campaign, analysis=analysis, params=params, user=None)
        job = Job.objects.get(pk=job.pk)
        assert (job.status, job.progress) == ("done", 1.0), job.message
        if analysis == "noise":
            rows = {row["method"]: row for row in job.result["rows"]}
            assert rows["AC-tau"]["ed"][1] < rows["AC-tau"]["ed"][0]
            expected = m.noise_robustness(list(orders.values()), "ac-tau", ratios=(0, 1), seeds=3)
            assert rows["AC-tau"]["ed"] == pytest.approx(list(expected.ed), abs=1e-12)
        elif analysis == "frespa-sweep":
            assert {row["parameter"] for row in job.result["rows"]} == set(m.PAPER_SWEEPS)
        else:
            best = m.tune(list(orders.values()))
            assert job.result["ed"] == pytest.approx(best.ed, abs=1e-12)
            # Nothing changes until an organiser applies the result (scoring.services.apply_job).
            assert Campaign.objects.get(pk=campaign.pk).params == campaign.params
            with django_capture_on_commit_callbacks(execute=True):
                scoring_services.apply_job(job=job, user=None)
            assert Campaign.objects.get(pk=campaign.pk).params["frespa"]["min_sup"] == best.setting.min_sup
            assert campaign_report(campaign).data.frespa.min_sup == best.setting.min_sup


def test_analyses_need_two_orderings(people, django_capture_on_commit_callbacks):
    """Refused before any job is stored (Analysis.ready); the job itself still checks."""
    campaign = create_campaign(creator=people["organiser"], kind="ordering", name="E", overlap=1)
    for analysis in ("noise", "frespa-sweep", "frespa-tune"):
        with pytest.raises(InvalidInput, match="two submitted orderings") as refused:
            scoring_services.start_analysis(campaign=campaign, analysis=analysis, params={}, user=None)
        assert refused.value.field == "analysis"
    assert not Job.objects.exists()
    job = Job.objects.create(campaign=campaign, analysis="noise", params={"ratios": [0], "seeds": 1})
    with django_capture_on_commit_callbacks(execute=True):
        scoring_services.tasks.run_analysis.enqueue(job.pk)
    job = Job.objects.get(pk=job.pk)
    assert job.status == "failed" and "two submitted orderings" in job.message


def test_exports(api, people, ordered):
    campaign, orders = ordered
    client = api(people["admin"])
    consensus = json.loads(
        client.get(f"/api/campaigns/{campaign.pk}/export/", {"format": "json", "truth": "consensus"}).content
    )
    assert consensus[0] == {"topic": "t1", "order": ITEMS, "orderings": 3}
    rows = (
        client.get(f"/api/campaigns/{campaign.pk}/export/", {"format": "csv", "truth": "judgments"})
        .content.decode()
        .splitlines()
    )
    assert rows[0] == "topic,assessor,rank,item" and rows[1] == "t1,alice,1,s1" and len(rows) == 1 + 2 * 3 * 8


def test_bad_orderings_through_the_api_store_nothing(api, people, ordered):
    campaign, _ = ordered
    import_topics(
        campaign=campaign, topics=[{"external_id": "t3", "data": {"items": [{"id": i, "text": i} for i in ITEMS]}}]
    )
    url = f"/api/campaigns/{campaign.pk}/topics/t3/judgment/"
    for order, message in (
        (ITEMS[:-1], "missing item id(s): s8"),
        (ITEMS + ["s1"], "duplicated item id(s): s1"),
        (ITEMS[:-1] + ["zz"], "unknown item id(s): zz"),
    ):
        response = api(people["alice"]).put(
            url, {"payload": {"order": order}, "status": "submitted", "version": 0}, format="json"
        )
        assert response.status_code == 400 and response.json()["field"] == "payload.order"
        assert message in response.json()["detail"]
    assert not Judgment.objects.filter(topic__external_id="t3").exists()


def test_topic_report_page_shows_tau_matrix_consensus_and_runs(client, people, ordered):
    campaign, _ = ordered
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/topics/t1/report/").content.decode()
    (tau,) = specs_in(page)
    assert tau["title"] == "Kendall τ between the assessors' orderings"
    assert len(tau["values"]) == 3 and all(len(row) == 3 for row in tau["values"])  # 3 x 3 assessors
    assert '<ol id="consensus"><li>S1' in page and "reversed" in page
    assert "<th>Run</th><th>AC-tau</th>" in page  # the runs table's method columns
