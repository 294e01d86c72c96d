"""Model judges in the labels report (kinds/labels/judges.py): a judge declared on the members
page, and its alternative annotator verdict read from the campaign report, checked against an
implementation written here from the paper's definitions.

Calderon, Reichart & Dror (2025), "The Alternative Annotator Test for LLM-as-a-Judge", ACL 2025,
pp. 16051-16081: leave one person out; on each item they labelled, the judge's and the person's
alignment with the other people (ACC, section 3.1; -RMSE on numbers); the indicators W^f, W^h
(a tie counts for both) and the advantage probabilities rho (section 3.2); the one-sided paired
t-test of H0: rho^f <= rho^h - epsilon (scipy's ``ttest_rel``, ``alternative="less"``), the
Benjamini-Yekutieli correction over the people (statsmodels' ``multipletests(method="fdr_by")``),
the winning rate omega and its verdict omega >= 0.5 (section 3.3), and the average advantage
probability rho (section 3.4). The agreement figures are checked against scikit-learn's
``cohen_kappa_score``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.multitest import multipletests

from annotate.imports.write import import_judgments, import_topics
from annotate.models import Membership
from annotate.services.campaigns import create_campaign
from kinds.labels.judges import CONSENSUS
from scoring import jobs
from scoring.models import TopicPartial
from scoring.selectors import campaign_report

pytestmark = pytest.mark.django_db

CATEGORIES = ["red", "green", "blue"]
PEOPLE = ["ann", "ben", "cat", "dan", "eve"]
TOPICS, ITEMS = 8, 10  # 80 items: every person is tested (30 at least)


# --- an implementation from the paper's definitions ------------------------------------------


def reference_alt_test(humans, judge, *, epsilon, distance=False, q=0.05, min_instances=30):
    """The test by its definitions, one person and one item at a time (``humans``: items x people,
    NaN none; ``judge``: per item, NaN none; ``distance``: -RMSE instead of ACC)."""
    n, m = humans.shape
    people = []
    for j in range(m):
        judge_wins, person_wins = [], []
        for i in range(n):
            if np.isnan(humans[i, j]) or np.isnan(judge[i]):
                continue
            others = [humans[i, k] for k in range(m) if k != j and not np.isnan(humans[i, k])]
            if not others:
                continue
            if distance:
                s_judge = -np.sqrt(np.mean([(judge[i] - o) ** 2 for o in others]))
                s_person = -np.sqrt(np.mean([(humans[i, j] - o) ** 2 for o in others]))
            else:
                s_judge = np.mean([judge[i] == o for o in others])
                s_person = np.mean([humans[i, j] == o for o in others])
            judge_wins.append(float(s_judge >= s_person))
            person_wins.append(float(s_judge <= s_person))
        wf, wh = np.array(judge_wins), np.array(person_wins)
        row = {"instances": len(wf), "rho_judge": wf.mean() if len(wf) else np.nan, "rho_person": np.nan}
        row["rho_person"] = wh.mean() if len(wh) else np.nan
        row["tested"] = len(wf) >= min_instances
        if row["tested"]:
            # H0: rho^f <= rho^h - epsilon, i.e. mean(W^h - W^f) >= epsilon; H1: it is less
            row["t"], row["p"] = stats.ttest_rel(wh, wf + epsilon, alternative="less")
        people.append(row)
    tested = [row for row in people if row["tested"]]
    if tested:
        reject, adjusted, _, _ = multipletests([row["p"] for row in tested], alpha=q, method="fdr_by")
        for row, rejected, p in zip(tested, reject, adjusted):
            row["wins"], row["p_adjusted"] = bool(rejected), float(p)
    omega = np.mean([row["wins"] for row in tested]) if tested else np.nan
    rho = np.mean([row["rho_judge"] for row in tested]) if tested else np.nan
    return people, omega, rho


# --- the campaign ------------------------------------------------------------------------------


def labelled(rng, truth, accuracy, q):
    """Each item's true code with probability ``accuracy``, else any code."""
    right = rng.random(truth.shape) < accuracy
    return np.where(right, truth, rng.integers(0, q, truth.shape))


def judged_campaign(people, client, *, params, judges, seed=7, topics=TOPICS, values=CATEGORIES):
    """A labels campaign whose PEOPLE and ``judges`` (name -> accuracy, None: uniformly random)
    labelled every item of its topics (imported), each judge declared on the members page. Returns
    the campaign and the codes: people (items x PEOPLE) and judges (name -> per item)."""
    campaign = create_campaign(creator=people["organiser"], kind="labels", name="Judged", overlap=3, params=params)
    import_topics(
        campaign=campaign,
        topics=[
            {"external_id": f"t{t}", "data": {"items": [{"id": f"i{k}", "text": f"item {k}"} for k in range(ITEMS)]}}
            for t in range(topics)
        ],
    )
    rng = np.random.default_rng(seed)
    q = len(values)
    truth = rng.integers(0, q, topics * ITEMS)
    codes = {name: labelled(rng, truth, 0.7, q) for name in PEOPLE}
    for name, accuracy in judges.items():
        codes[name] = rng.integers(0, q, truth.shape) if accuracy is None else labelled(rng, truth, accuracy, q)
    entries = [
        {
            "assessor": name,
            "topic": f"t{t}",
            "payload": {"labels": {f"i{k}": values[int(found[t * ITEMS + k])] for k in range(ITEMS)}},
        }
        for name, found in codes.items()
        for t in range(topics)
    ]
    import_judgments(campaign=campaign, entries=entries)
    client.force_login(people["organiser"])
    for name in judges:
        answer = client.post(
            f"/campaigns/{campaign.pk}/members/", {"action": "model_judge", "username": name, "model_judge": "true"}
        )
        assert answer.status_code == 303
        assert Membership.objects.get(campaign=campaign, user__username=name).model_judge is True
    jobs.recompute_reports(campaign.pk)
    humans = np.column_stack([codes[name] for name in PEOPLE]).astype(float)
    return campaign, humans, {name: codes[name].astype(float) for name in judges}


def check_against_reference(test, humans, judge, *, epsilon, distance=False):
    people, omega, rho = reference_alt_test(humans, judge, epsilon=epsilon, distance=distance)
    assert [p.person for p in test.persons] == PEOPLE
    for found, wanted in zip(test.persons, people):
        assert found.instances == wanted["instances"]
        assert found.rho_judge == pytest.approx(wanted["rho_judge"], abs=1e-12)
        assert found.rho_person == pytest.approx(wanted["rho_person"], abs=1e-12)
        assert found.tested == wanted["tested"]
        assert found.t == pytest.approx(wanted["t"], rel=1e-9)
        assert found.p_value == pytest.approx(wanted["p"], rel=1e-9, abs=1e-300)
        assert found.p_adjusted == pytest.approx(wanted["p_adjusted"], rel=1e-9, abs=1e-300)
        assert found.wins == wanted["wins"]
    assert test.tested == len(PEOPLE)
    assert test.winning_rate == pytest.approx(omega, abs=1e-12)
    assert test.average_advantage.value == pytest.approx(rho, abs=1e-12)
    assert test.passes == (omega >= 0.5)
    assert test.state == ("passes" if omega >= 0.5 else "fails")
    assert test.epsilon == epsilon


def test_a_declared_model_judge_gets_its_alternative_annotator_verdict(people, client):
    """Two judges declared on the members page: one that labels like a careful person passes,
    one that labels at random fails; every figure of both verdicts is the paper's, computed here."""
    campaign, humans, judges = judged_campaign(
        people, client, params={"categories": CATEGORIES}, judges={"good-llm": 0.9, "random-llm": None}
    )
    report = campaign_report(campaign).data
    assert report.names == PEOPLE  # the people's figures leave both judges out
    found = {j.judge: j for j in report.model_judges}
    assert sorted(found) == ["good-llm", "random-llm"]
    good, bad = found["good-llm"].alt_test, found["random-llm"].alt_test
    assert (good.state, bad.state) == ("passes", "fails")
    check_against_reference(good, humans, judges["good-llm"], epsilon=0.2)
    check_against_reference(bad, humans, judges["random-llm"], epsilon=0.2)
    assert good.alignment == "accuracy" and good.average_advantage.method == "bootstrap"
    assert good.average_advantage.low <= good.average_advantage.value <= good.average_advantage.high
    # ranked by rho on the items both labelled (every item here)
    ranking = report.judge_comparison.ranking
    assert [r.judge for r in ranking] == ["good-llm", "random-llm"]
    assert report.judge_comparison.items == TOPICS * ITEMS
    assert ranking[0].average_advantage == pytest.approx(good.average_advantage.value, abs=1e-12)
    # the report says it in plain words
    page = client.get(f"/campaigns/{campaign.pk}/report/").content.decode()
    assert "Passes the alternative annotator test" in page and "Fails the alternative annotator test" in page


def test_the_judges_agreement_with_each_person_with_the_majority_and_the_people_s_range(people, client):
    campaign, humans, judges = judged_campaign(
        people, client, params={"categories": CATEGORIES}, judges={"good-llm": 0.9}, seed=11
    )
    [judge] = campaign_report(campaign).data.model_judges
    codes = judges["good-llm"]
    assert judge.labelled == TOPICS * ITEMS and judge.people_count == len(PEOPLE)
    kappas = []
    for k, pair in enumerate(judge.people):
        assert (pair.name, pair.n) == (PEOPLE[k], TOPICS * ITEMS)
        wanted = cohen_kappa_score(codes, humans[:, k])
        assert pair.kappa.value == pytest.approx(wanted, abs=1e-12)
        assert pair.observed.value == pytest.approx(np.mean(codes == humans[:, k]), abs=1e-12)
        assert pair.kappa.method == "bootstrap" and pair.kappa.low <= pair.kappa.value <= pair.kappa.high
        kappas.append(wanted)
    assert judge.mean_kappa == pytest.approx(np.mean(kappas), abs=1e-12)
    # the people's majority: the label most people gave (none on a tie)
    majority = []
    for row in humans.astype(int):
        counts = np.bincount(row, minlength=len(CATEGORIES))
        majority.append(counts.argmax() if (counts == counts.max()).sum() == 1 else -1)
    majority = np.array(majority)
    has = majority >= 0
    assert judge.consensus.name == CONSENSUS and judge.consensus.n == int(has.sum())
    assert judge.consensus.kappa.value == pytest.approx(cohen_kappa_score(codes[has], majority[has]), abs=1e-12)
    pairwise = [
        cohen_kappa_score(humans[:, a], humans[:, b]) for a in range(len(PEOPLE)) for b in range(a + 1, len(PEOPLE))
    ]
    span = judge.people_range
    assert span.pairs == len(pairwise)
    assert (span.low, span.median, span.high) == pytest.approx((min(pairwise), np.median(pairwise), max(pairwise)))
    wanted = "below" if np.mean(kappas) < min(pairwise) else "above" if np.mean(kappas) > max(pairwise) else "within"
    assert judge.position == wanted


def test_epsilon_is_the_campaign_s_and_a_numeric_scale_is_compared_by_rmse(people, client):
    """On a numeric scale (1 to 3 in half steps) the test measures -RMSE on the numbers, which
    orders every pair of alignments as -RMSE on the codes does; epsilon from the params."""
    values = [1, 1.5, 2, 2.5, 3]
    params = {"level": "interval", "minimum": 1, "maximum": 3, "step": 0.5, "alt_test_epsilon": 0.1}
    campaign, humans, judges = judged_campaign(
        people, client, params=params, judges={"numeric-llm": 0.8}, seed=3, values=values
    )
    [judge] = campaign_report(campaign).data.model_judges
    assert judge.alt_test.alignment == "neg_rmse"
    numbers = np.array(values, dtype=float)
    check_against_reference(
        judge.alt_test,
        numbers[humans.astype(int)],
        numbers[judges["numeric-llm"].astype(int)],
        epsilon=0.1,
        distance=True,
    )


def test_too_few_items_is_said_and_nothing_is_tested(people, client):
    campaign, _, _ = judged_campaign(people, client, params={"categories": CATEGORIES}, judges={"llm": 0.9}, topics=2)
    [judge] = campaign_report(campaign).data.model_judges
    test = judge.alt_test
    assert (test.state, test.tested, test.passes, test.winning_rate) == ("too few items", 0, False, None)
    assert [p.instances for p in test.persons] == [2 * ITEMS] * len(PEOPLE)
    assert not any(p.tested for p in test.persons) and test.min_instances == 30
    page = client.get(f"/campaigns/{campaign.pk}/report/").content.decode()
    assert "Too few items for the alternative annotator test" in page


def test_a_partial_counts_the_judges_judgments_it_holds(people, client):
    """TopicPartial.judgments and the report's judgments_seen count what the partials hold: the
    people's judgments and the model judges' (the labels kind's partials carry both)."""
    campaign, _, _ = judged_campaign(people, client, params={"categories": CATEGORIES}, judges={"llm": 0.9})
    assert set(TopicPartial.objects.filter(campaign=campaign).values_list("judgments", flat=True)) == {len(PEOPLE) + 1}
    assert campaign_report(campaign).judgments_seen == TOPICS * (len(PEOPLE) + 1)
