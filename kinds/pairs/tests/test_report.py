"""The pairs report against independent computations."""

from __future__ import annotations

import itertools

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from annotate.imports.write import import_judgments, import_runs, import_topics
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.pairs.partials import campaign_report
from kinds.pairs.report import agreement, votes
from scoring import jobs
from scoring.charts import specs_in
from scoring.selectors import JudgmentRow, ReportInput, report_input, submitted_judgments
from scoring.selectors import campaign_report as stored_report
from tests.campaigns import pairs_topics

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged(people):
    """Three assessors, overlap 3, six topics of five candidates, seeded labels."""
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="R", overlap=3)
    for name in ("alice", "bob", "carol"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(campaign=campaign, topics=pairs_topics(6, 5))
    rng = np.random.default_rng(7)
    truth = rng.random((6, 5)) < 0.4
    for topic in campaign.topics.all():
        t = int(topic.external_id[1:]) - 1
        for assignment in topic.assignments.select_related("assessor"):
            flips = rng.random(5) < 0.2
            matches = {f"c{c + 1}": bool(truth[t, c] ^ flips[c]) for c in range(5)}
            # carol skips the last topic: missing data
            if assignment.assessor.username == "carol" and t == 5:
                continue
            save_judgment(
                topic=topic, assessor=assignment.assessor, payload={"matches": matches}, status="submitted", version=0
            )
    return campaign


def test_pairwise_figures_match_sklearn_and_hand_counts(judged):
    v = votes(list(judged.topics.order_by("position")), submitted_judgments(judged))
    report = agreement(v)
    assert [list(p.assessors) for p in report.pairs] == [["alice", "bob"], ["alice", "carol"], ["bob", "carol"]]
    for pair in report.pairs:
        i, j = (v.assessors.index(n) for n in pair.assessors)
        shared = ~np.isnan(v.matrix[:, i]) & ~np.isnan(v.matrix[:, j])
        x, y = v.matrix[shared, i], v.matrix[shared, j]
        a, b = int(((x == 1) & (y == 1)).sum()), int(((x == 1) & (y == 0)).sum())
        c, d = int(((x == 0) & (y == 1)).sum()), int(((x == 0) & (y == 0)).sum())
        assert (pair.n, pair.a, pair.b, pair.c, pair.d) == (shared.sum(), a, b, c, d)
        assert pair.overlap == pytest.approx(a / (a + b + c))
        assert pair.positive == pytest.approx(2 * a / (2 * a + b + c))
        assert pair.negative == pytest.approx(2 * d / (2 * d + b + c))
        assert pair.kappa == pytest.approx(cohen_kappa_score(x, y), abs=1e-12)
    assert report.pairs[1].n == 25  # carol missed one topic of five candidates


def test_campaign_figures_match_the_reference_packages(judged):
    data = campaign_report(report_input(judged))
    v = votes(list(judged.topics.order_by("position")), submitted_judgments(judged))
    assert data.alpha.items == 30
    assert data.alpha.alpha == pytest.approx(
        krippendorff.alpha(reliability_data=v.matrix.T, level_of_measurement="nominal"), abs=1e-12
    )
    # Fleiss over the 25 items all three rated.
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    complete = v.matrix[~np.isnan(v.matrix).any(axis=1)]
    assert (data.fleiss.items, data.fleiss.raters) == (25, 3)
    assert data.fleiss.kappa == pytest.approx(fleiss_kappa(aggregate_raters(complete)[0]), abs=1e-12)
    rates = {a.assessor: a.base_rate for a in data.assessors}
    assert rates["carol"] == pytest.approx(np.nanmean(v.matrix[:, v.assessors.index("carol")]))
    matrix = data.kappa_matrix
    assert matrix[0][0] == 1.0 and matrix[0][1] == matrix[1][0] == data.pairs[0].kappa


def test_report_with_no_judgments_is_empty_not_broken(campaign):
    data = campaign_report(ReportInput(campaign, list(campaign.topics.all()), [], []))
    assert data.pairs == [] and data.items_judged == 0
    assert data.fleiss.items == 0 and np.isnan(data.fleiss.kappa)


def test_perfect_agreement_gives_kappa_one(campaign):
    topics = list(campaign.topics.all())
    rows = [
        JudgmentRow(t.pk, name, {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}})
        for t, name in itertools.product(topics, ("alice", "bob"))
    ]
    data = campaign_report(ReportInput(campaign, topics, rows, []))
    assert data.pairs[0].kappa == 1.0 and data.fleiss.kappa == 1.0


def test_the_evaluation_says_what_to_change_when_one_query_is_judged(campaign, people):
    """Resampling whole queries needs two judged queries: with one, the job says
    to resample items (it used to fail 'unexpectedly' with a ValueError)."""
    from concord.errors import InvalidInput
    from kinds.pairs.analyses import evaluation_analysis
    from scoring.services import analysis_schemas

    runs = [{"name": n, "data": {"results": {"q1": [{"id": "c1", "text": "Candidate 1.1"}]}}} for n in ("A", "B")]
    import_runs(campaign=campaign, runs=runs)
    topic = campaign.topics.get(external_id="q1")
    save_judgment(
        topic=topic,
        assessor=people["alice"],
        payload={"matches": {c["id"]: c["id"] == "c1" for c in topic.data["candidates"]}},
        status="submitted",
        version=0,
    )
    schema = analysis_schemas("pairs")["evaluation"]
    with pytest.raises(InvalidInput, match="needs at least 2 judged queries, and 1 is judged") as refused:
        evaluation_analysis(report_input(campaign), schema.clean({"n_random": 0}), lambda *a: None)
    assert refused.value.field == "params.resample"
    result = evaluation_analysis(
        report_input(campaign), schema.clean({"n_random": 0, "resample": "items", "n_resamples": 20}), lambda *a: None
    )
    assert result["systems"] == ["A", "B"] and result["items"] == 12  # 3 topics x 4 candidates


def test_a_pair_on_one_shared_item_shows_a_dash_with_its_reason_not_a_figure(people, client):
    """x and y share one candidate and disagree on it: Cohen's kappa is exactly 0 (each one's only
    label makes chance agreement 0), AC1 -1, whatever they are like. The report's pairs table,
    heatmap and reliability table say "1 shared item: too few" instead (stats.plain.MIN_SHARED);
    x and z, on two shared items, keep their figures."""
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="One shared", overlap=2)
    import_topics(campaign=campaign, topics=pairs_topics(3, candidates=1))
    entries = [
        {"assessor": "x", "topic": "q1", "payload": {"matches": {"c1": True}}},
        {"assessor": "y", "topic": "q1", "payload": {"matches": {"c1": False}}},
    ]
    for topic in ("q2", "q3"):
        entries.append({"assessor": "x", "topic": topic, "payload": {"matches": {"c1": True}}})
        entries.append({"assessor": "z", "topic": topic, "payload": {"matches": {"c1": topic == "q2"}}})
    import_judgments(campaign=campaign, entries=entries)
    jobs.recompute_reports(campaign.pk, everything=True)
    stored = stored_report(campaign).data
    assert {tuple(p.assessors): (p.n, p.kappa) for p in stored.pairs} == {("x", "y"): (1, 0.0), ("x", "z"): (2, 0.0)}

    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/", {"section": "report"}).content.decode()
    rows = page.split('id="pairs-table">', 1)[1].split("</table>", 1)[0].split("<tr>")
    (one,) = [r for r in rows if "x · y" in r]
    (two,) = [r for r in rows if "x · z" in r]
    assert '<td colspan="8" class="too-few muted"' in one and "— 1 shared item: too few</td>" in one
    assert 'class="kappa"' not in one and "0.000" not in one
    assert '<td class="kappa">0.000</td>' in two and "too few</td>" not in two
    (heatmap,) = [s for s in specs_in(page) if s["type"] == "heatmap"]
    x, y, z = (heatmap["names"].index(name) for name in "xyz")
    assert heatmap["values"][x][y] is None and heatmap["reasons"][x][y] == "1 shared item: too few"
    assert heatmap["values"][x][z] == 0.0 and heatmap["reasons"][x][z] is None
    assert heatmap["table"]["rows"][x][1 + y] == "— (1 shared item: too few)"
    reliability = page.split('id="reliability-table">', 1)[1].split("</table>", 1)[0]
    assert "<td>y</td><td>1</td>" in reliability and "— 1 label: too few</td>" in reliability

    topic = client.get(f"/campaigns/{campaign.pk}/topics/q1/report/").content.decode()
    pair = topic.split('id="topic-pairs">', 1)[1].split("</table>", 1)[0]
    assert "x · y" in pair and "— 1 shared item: too few</td>" in pair
