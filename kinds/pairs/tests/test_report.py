"""The pairs report against independent computations."""

from __future__ import annotations

import itertools

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from annotate.imports.write import import_runs, import_topics
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.pairs.partials import campaign_report
from kinds.pairs.report import agreement, votes
from scoring.selectors import JudgmentRow, ReportInput, report_input, submitted_judgments
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
