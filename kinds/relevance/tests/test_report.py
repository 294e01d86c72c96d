"""Graded relevance reports, exports, the stability analysis, the TREC run importer and the demo.

The worked example: two topics, three assessors who grade every document,
three systems. Every figure of the reports must be what kinds.relevance.stats
and stats.ireval give on the same grades, and a few are checked by hand.
"""

import csv
import io
import json

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from annotate.imports.write import import_runs, import_topics
from annotate.models import Assignment, Campaign, Judgment, Run, Topic
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from concord.typed import Outdated, dump, load
from kinds.registry import get_kind
from kinds.relevance import partials, report
from kinds.relevance import stats as m
from kinds.relevance.report import RelevanceCampaignReport, RelevanceTopicReport
from scoring import services as scoring_services
from scoring.selectors import campaign_report, report_input, topic_report
from stats import ireval

pytestmark = pytest.mark.django_db

DOCS = {"t1": ["d1", "d2", "d3", "d4"], "t2": ["e1", "e2", "e3"]}
GRADES = {  # assessor -> topic -> grades in DOCS order
    "alice": {"t1": [3, 1, 0, 2], "t2": [2, 0, 1]},
    "bob": {"t1": [2, 0, 0, 2], "t2": [3, 1, 0]},
    "carol": {"t1": [3, 2, 1, 1], "t2": [1, 0, 0]},
}
# Lower median of each document's three grades.
CONSENSUS = {"t1": [3, 1, 0, 2], "t2": [2, 0, 0]}
RUNS = {
    "sysA": {"t1": [["d1", 3.0], ["d2", 2.0], ["d3", 1.0], ["x9", 0.5]], "t2": [["e1", 2], ["e3", 1]]},
    "sysB": {"t1": [["d3", 3.0], ["d4", 2.0], ["d1", 1.0]], "t2": [["e2", 2], ["e1", 1]]},
    "sysC": {"t1": [["d4", 3.0], ["d1", 2.0]], "t2": [["e3", 1], ["e2", 0.5]]},
}
ASSESSORS = sorted(GRADES)
SETS = ["consensus", *(f"single:{a}" for a in ASSESSORS)]


def matrix() -> np.ndarray:
    """(assessors, documents) over the flat axis t1's documents then t2's."""
    return np.array([[*GRADES[a]["t1"], *GRADES[a]["t2"]] for a in ASSESSORS], float)


TOPIC_INDEX = [0, 0, 0, 0, 1, 1, 1]


def qrels(grades_of) -> dict:
    return {t: dict(zip(DOCS[t], grades_of(t))) for t in DOCS}


def expected_evaluation(**options) -> ireval.Evaluation:
    sets = {"consensus": qrels(lambda t: CONSENSUS[t])}
    sets.update({f"single:{a}": qrels(lambda t, a=a: GRADES[a][t]) for a in ASSESSORS})
    return ireval.evaluate(sets, RUNS, **options)


@pytest.fixture
def trec(people):
    campaign = create_campaign(creator=people["organiser"], kind="relevance", name="TREC", overlap=3)
    for name in ASSESSORS:
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(
        campaign=campaign,
        topics=[
            {
                "external_id": t,
                "title": f"query {t}",
                "data": {"title": f"query {t}", "documents": [{"id": d, "text": f"text of {d}"} for d in docs]},
            }
            for t, docs in DOCS.items()
        ],
    )
    for topic in Topic.objects.filter(campaign=campaign):
        for name in ASSESSORS:
            user = people[name]
            payload = {"grades": dict(zip(DOCS[topic.external_id], GRADES[name][topic.external_id]))}
            save_judgment(topic=topic, assessor=user, payload=payload, status="submitted", version=0)
    import_runs(campaign=campaign, runs=[{"name": n, "data": {"ranking": r}} for n, r in RUNS.items()])
    scoring_services.recompute_reports(campaign.pk, everything=True)
    return campaign


def test_agreement_figures_are_the_metric_librarys(trec):
    data = campaign_report(trec).data
    kappa = m.pairwise_kappa(matrix(), scale=[0, 1, 2, 3])
    overlap = m.relevant_overlap(matrix(), TOPIC_INDEX, threshold=1)
    alpha = m.grade_alpha(matrix())
    assert [list(p.assessors) for p in data.pairs] == [["alice", "bob"], ["alice", "carol"], ["bob", "carol"]]
    for p, (a, b) in zip(data.pairs, [(0, 1), (0, 2), (1, 2)]):
        assert p.n == 7
        assert p.kappa == pytest.approx(kappa.unweighted[a, b], abs=1e-12)
        assert p.linear == pytest.approx(kappa.linear[a, b], abs=1e-12)
        assert p.quadratic == pytest.approx(kappa.quadratic[a, b], abs=1e-12)
        assert p.overlap == pytest.approx(overlap.mean[a, b], abs=1e-12)
        assert p.overlap_pooled == pytest.approx(overlap.pooled[a, b], abs=1e-12)
    # By hand, alice and bob at threshold 1: t1 {d1,d2,d4} vs {d1,d4}: 2/3; t2 {e1,e3} vs {e1,e2}: 1/3.
    assert data.pairs[0].overlap == pytest.approx(0.5) and data.pairs[0].overlap_pooled == pytest.approx(0.5)
    assert (data.pairs[0].intersection, data.pairs[0].union) == (3, 6)
    assert data.alpha.ordinal == pytest.approx(alpha.ordinal, abs=1e-12)
    assert data.alpha.interval == pytest.approx(alpha.interval, abs=1e-12)
    assert (data.alpha.items, data.alpha.coders) == (7, 3)
    assert data.group_overlap.mean == pytest.approx(overlap.group_mean, abs=1e-12)
    assert [a.counts for a in data.assessors] == [[2, 2, 2, 1], [3, 1, 2, 1], [2, 3, 1, 1]]
    assert [a.relevant for a in data.assessors] == [5, 4, 5]


def test_the_topic_report_shows_each_documents_grades_and_the_consensus(trec):
    data = topic_report(trec.topics.get(external_id="t2")).data
    assert data.names == ASSESSORS
    assert [(d.id, d.grades, d.consensus) for d in data.documents] == [
        ("e1", [2, 3, 1], 2),
        ("e2", [0, 1, 0], 0),
        ("e3", [1, 0, 0], 0),
    ]
    t2 = m.pairwise_kappa(matrix()[:, 4:], scale=[0, 1, 2, 3])
    assert data.pairs[0].quadratic == pytest.approx(t2.quadratic[0, 1], abs=1e-12)


def test_system_scores_and_ranking_taus_are_ir_measures_and_the_metric_librarys(trec):
    e = expected_evaluation()
    data = campaign_report(trec).data.evaluation
    assert data.qrels_sets == SETS and data.measures == ["nDCG@10", "P@10", "MAP", "bpref"]
    assert data.topics == dict.fromkeys(SETS, 2)
    rows = {row.system: row.scores for row in data.systems}
    for measure, shown in zip(e.measures, data.measures):
        for name in SETS:
            for system in RUNS:
                assert rows[system][name][shown] == pytest.approx(e.score(name, system, measure), abs=1e-12)
    # By hand: sysA on t1 under the consensus: relevant d1, d2, d4 (grade >= 1); it finds d1, d2 at ranks 1, 2.
    assert e.per_topic[0, 0, 0, e.measures.index("P@10")] == pytest.approx(0.2)
    assert e.per_topic[0, 0, 0, e.measures.index("AP")] == pytest.approx((1 + 1) / 3)
    stability = {s.measure: s for s in data.stability}
    for measure, shown in zip(e.measures, data.measures):
        expected = m.ranking_stability(e.scores(measure))
        assert np.allclose(np.array(stability[shown].tau, float), expected.tau, equal_nan=True)
        assert stability[shown].swaps == expected.swaps.tolist()
        pair = stability[shown].pairs[0]
        assert list(pair.sets) == ["consensus", "single:alice"] and pair.swaps == expected.swaps[0, 1]


def test_the_report_page_shows_the_taus(trec, client, people):
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{trec.pk}/report/")
    body = page.content.decode()
    assert page.status_code == 200
    assert 'id="stability-table"' in body and "consensus · single:alice" in body and 'id="pairs-table"' in body


def export(api, people, campaign, format, truth):
    return api(people["admin"]).get(f"/api/campaigns/{campaign.pk}/export/", {"format": format, "truth": truth})


def test_qrels_exports_per_truth_set(trec, api, people):
    consensus = export(api, people, trec, "qrels", "consensus")
    assert consensus.status_code == 200
    assert ireval.parse_qrels(consensus.content.decode()) == qrels(lambda t: CONSENSUS[t])
    assert consensus.content.decode().splitlines()[0] == "t1 0 d1 3"
    bob = export(api, people, trec, "qrels", "single:bob")
    assert ireval.parse_qrels(bob.content.decode()) == qrels(lambda t: GRADES["bob"][t])
    unknown = export(api, people, trec, "qrels", "single:zed")
    assert unknown.status_code == 400 and unknown.json()["field"] == "truth"


def test_score_exports_as_csv_and_json_with_numbers_as_numbers(trec, api, people):
    e = expected_evaluation()
    q = e.qrels_sets.index("single:carol")
    response = export(api, people, trec, "csv", "single:carol")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["system", "truth", "topic", "nDCG@10", "P@10", "AP", "bpref"]
    means = {row[0]: row for row in rows[1:] if row[2] == "all"}
    assert len(rows) == 1 + 3 * 3  # three systems: the mean and two topics each
    assert float(means["sysB"][5]) == pytest.approx(e.means[q, e.systems.index("sysB"), e.measures.index("AP")])
    document = json.loads(export(api, people, trec, "json", "single:carol").content)
    assert document["truth"] == "single:carol" and document["measures"] == ["nDCG@10", "P@10", "AP", "bpref"]
    sys_a = next(s for s in document["systems"] if s["system"] == "sysA")
    assert isinstance(sys_a["means"]["AP"], float)
    assert sys_a["means"]["AP"] == pytest.approx(e.means[q, 0, e.measures.index("AP")], abs=1e-12)
    assert sys_a["per_topic"]["t2"]["P@10"] == pytest.approx(e.per_topic[q, 0, 1, e.measures.index("P@10")])


def test_the_stability_analysis_lists_swaps_at_any_cutoff(trec):
    spec = get_kind("relevance")
    analysis = spec.analysis("stability")
    params = analysis.params.clean({"cutoff": 2})
    seen = []
    result = analysis.run(report_input(trec), params, lambda done, what: seen.append(done))
    e = expected_evaluation(cutoff=2)
    assert result["measures"] == ["nDCG@2", "P@2", "MAP", "bpref"] and seen
    for measure, block in zip(e.measures, result["stability"]):
        expected = m.ranking_stability(e.scores(measure))
        assert block["swaps"] == expected.swaps.tolist()
        for pair in block["pairs"]:
            a, b = (SETS.index(name) for name in pair["sets"])
            assert len(pair["swapped"]) == expected.swaps[a, b]
    for bad in ({"cutoff": 0}, {"cutoff": 1001}, {"min_assessors": 0}, {"depth": 3}):
        with pytest.raises(Exception) as error:
            analysis.params.clean(bad)
        assert error.value.field.startswith("params."), bad


def test_the_stability_analysis_needs_two_systems(people):
    campaign = create_campaign(creator=people["organiser"], kind="relevance", name="empty", overlap=1)
    with pytest.raises(Exception) as error:
        get_kind("relevance").analysis("stability").run(
            report_input(campaign), {"cutoff": 10, "min_assessors": 1}, lambda *a: None
        )
    assert error.value.field == "campaign"


# -- the TREC run importer -------------------------------------------------------------------------

RUN_FILE = """\
q1 Q0 D3 1 9.0 bm25
q1 Q0 D1 2 8.0 bm25
q1 Q0 D2 3 7.0 bm25
q2 Q0 D4 1 5.0 bm25
q1 Q0 D2 1 0.9 dense
q1 Q0 D5 2 0.8 dense
q1 Q0 D1 3 0.1 dense
q2 Q0 D4 1 0.7 dense
q2 Q0 D6 2 0.6 dense
"""
TOPICS_FILE = {
    "topics": {"q1": {"title": "first query", "narrative": "what counts"}, "q2": {"title": "second query"}},
    "documents": {f"D{i}": f"document {i}" for i in range(1, 7)},
}


@pytest.fixture
def empty(people):
    return create_campaign(creator=people["organiser"], kind="relevance", name="runs", overlap=1)


def run_import(tmp_path, campaign, run_text=RUN_FILE, topics=TOPICS_FILE, *extra):
    (tmp_path / "runs.txt").write_text(run_text)
    (tmp_path / "topics.json").write_text(json.dumps(topics))
    out = io.StringIO()
    call_command(
        "import_trec_runs",
        str(campaign.pk),
        str(tmp_path / "runs.txt"),
        "--topics",
        str(tmp_path / "topics.json"),
        *extra,
        stdout=out,
    )
    return out.getvalue()


def test_runs_are_pooled_to_the_depth_and_stored(tmp_path, empty):
    out = run_import(tmp_path, empty, RUN_FILE, TOPICS_FILE, "--depth", "2")
    assert "Imported 2 runs and 2 topics with 6 pooled documents" in out
    q1 = Topic.objects.get(campaign=empty, external_id="q1")
    # bm25's top 2: D3, D1; dense's top 2: D2, D5; in document id order.
    assert q1.data["documents"] == [
        {"id": "D1", "text": "document 1", "runs": ["bm25"]},
        {"id": "D2", "text": "document 2", "runs": ["dense"]},
        {"id": "D3", "text": "document 3", "runs": ["bm25"]},
        {"id": "D5", "text": "document 5", "runs": ["dense"]},
    ]
    assert (q1.title, q1.data["narrative"]) == ("first query", "what counts")
    dense = Run.objects.get(campaign=empty, name="dense")
    assert dense.data["ranking"]["q1"] == [["D2", 0.9], ["D5", 0.8], ["D1", 0.1]]  # whole run kept for scoring


def test_the_pool_follows_trec_evals_order_not_the_rank_column(tmp_path, empty):
    # Ranks say D9 first; scores say D8 (trec_eval ranks by score, then document id, both descending).
    text = "q1 Q0 D9 1 1.0 s\nq1 Q0 D8 2 2.0 s\nq1 Q0 D7 3 2.0 s\n"
    topics = {"topics": {"q1": {"title": "q"}}, "documents": {"D7": "x", "D8": "y", "D9": "z"}}
    run_import(tmp_path, empty, text, topics, "--depth", "1")
    assert [d["id"] for d in Topic.objects.get(campaign=empty).data["documents"]] == ["D8"]


@pytest.mark.parametrize(
    ("run_text", "topics", "message"),
    [
        (RUN_FILE.replace("q1 Q0 D2 3 7.0 bm25", "q1 Q0 D2 3 7.0"), TOPICS_FILE, "line 3: expected 6 columns"),
        (RUN_FILE.replace("q2 Q0 D4 1 5.0 bm25", "q2 Q0 D4 1 high bm25"), TOPICS_FILE, "line 4: score"),
        (
            RUN_FILE.replace("q1 Q0 D1 3 0.1 dense", "q1 Q0 D2 3 0.1 dense"),
            TOPICS_FILE,
            "line 7: document 'D2' appears twice",
        ),
        (RUN_FILE + "q7 Q0 D1 1 1.0 bm25\n", TOPICS_FILE, "line 10: topic 'q7' is not in the topics file"),
        (
            RUN_FILE.replace("q2 Q0 D6 2 0.6 dense", "q2 Q0 D66 2 0.6 dense"),
            TOPICS_FILE,
            "line 9: document 'D66' is pooled for topic 'q2' but has no text",
        ),
        (RUN_FILE + "q1 Q0 D1 1 1.0 a/b\n", TOPICS_FILE, "line 10: tag"),
        (
            RUN_FILE,
            {**TOPICS_FILE, "topics": {**TOPICS_FILE["topics"], "q3": {"title": "none"}}},
            "topics_file.topics.q3: no run retrieved",
        ),
        (
            RUN_FILE,
            {**TOPICS_FILE, "topics": {"q1": {"title": ""}, "q2": {"title": "x"}}},
            "topics_file.topics.q1.title",
        ),
    ],
)
def test_import_errors_name_the_line_and_import_nothing(tmp_path, empty, run_text, topics, message):
    with pytest.raises(CommandError, match=message) as error:
        run_import(tmp_path, empty, run_text, topics)
    assert "nothing imported" in str(error.value)
    assert not Topic.objects.filter(campaign=empty).exists() and not Run.objects.filter(campaign=empty).exists()


def test_a_run_name_already_taken_names_its_line_and_imports_nothing(tmp_path, empty):
    run_import(tmp_path, empty, "q1 Q0 D1 1 1.0 bm25\n", {"topics": {"q1": {"title": "q"}}, "documents": {"D1": "x"}})
    with pytest.raises(CommandError, match="line 1: a run named 'bm25' already exists"):
        run_import(
            tmp_path, empty, "q2 Q0 D2 1 1.0 bm25\n", {"topics": {"q2": {"title": "q"}}, "documents": {"D2": "y"}}
        )
    assert list(Topic.objects.filter(campaign=empty).values_list("external_id", flat=True)) == ["q1"]


def test_runs_go_into_relevance_campaigns_only(tmp_path, campaign):
    with pytest.raises(CommandError, match="campaign: TREC runs go into graded relevance campaigns"):
        run_import(tmp_path, campaign)


# -- the demo --------------------------------------------------------------------------------------


def test_the_demo_has_assessors_of_different_strictness_and_ranked_systems(django_capture_on_commit_callbacks):
    from annotate.demo import seed

    with django_capture_on_commit_callbacks(execute=True):
        seed(reset_passwords=False)
    campaign = Campaign.objects.get(kind="relevance", params__demo=True)
    assert campaign.name == "TREC-style relevance (demo)"
    scoring_services.recompute_reports(campaign.pk, everything=True)
    data = campaign_report(campaign).data
    relevant = {a.assessor: a.relevant / a.judged for a in data.assessors}
    assert max(relevant, key=relevant.get) == "sim-ann" and min(relevant, key=relevant.get) == "sim-ben"
    quadratic = [p.quadratic for p in data.pairs]
    assert len(quadratic) == 6 and all(0.3 < k < 0.95 for k in quadratic), quadratic
    assert len(data.evaluation.systems) == 5
    taus = [p.tau for s in data.evaluation.stability for p in s.pairs]
    assert min(taus) < 1 and np.mean(taus) > 0.5  # rankings mostly, not entirely, agree
    assert Assignment.objects.filter(topic__campaign=campaign, assessor__username="alice").count() == 2
    assert not Judgment.objects.filter(topic__campaign=campaign, assessor__username__in=["alice", "bob"]).exists()


def test_the_demo_reports_round_trip_through_their_types_and_an_older_shape_is_refused(
    django_capture_on_commit_callbacks,
):
    from annotate.demo import seed

    with django_capture_on_commit_callbacks(execute=True):
        seed(reset_passwords=False)
    campaign = Campaign.objects.get(kind="relevance", params__demo=True)
    # The people's topics are judged by simulated assessors too: a topic nobody has graded yet.
    data = campaign.topics.order_by("position").first().data
    import_topics(campaign=campaign, topics=[{"external_id": "ungraded", "title": "Ungraded", "data": data}])
    given = report_input(campaign)
    built = [(RelevanceCampaignReport, partials.campaign_report(given))]
    built += [(RelevanceTopicReport, report.topic_report(given, topic)) for topic in given.topics]
    for type_, value in built:
        stored = dump(value)
        assert dump(load(type_, stored)) == stored
        assert json.loads(json.dumps(stored)) == stored  # plain JSON: string keys, no NaN
    whole = dump(built[0][1])
    assert whole["kind"] == "relevance" and whole["evaluation"]["stability"]  # runs, grades and stability present
    ungraded = [dump(v) for _, v in built[1:] if not v.names]  # topics no one has graded yet: nulls
    assert ungraded and all(t["alpha"]["ordinal"] is None and t["documents"][0]["consensus"] is None for t in ungraded)
    missing = {key: value for key, value in whole.items() if key != "group_overlap"}
    with pytest.raises(Outdated):
        load(RelevanceCampaignReport, missing)
    pair = whole["evaluation"]["stability"][0]["pairs"][0]
    del pair["tau"]
    with pytest.raises(Outdated):
        load(RelevanceCampaignReport, whole)
