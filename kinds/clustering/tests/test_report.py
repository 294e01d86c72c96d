"""The clustering report against hand-made cases and independent computations."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest
from django.core.management import call_command
from sklearn.metrics import homogeneity_completeness_v_measure, normalized_mutual_info_score

from annotate.imports import read
from annotate.imports.write import import_runs, import_topics
from annotate.models import Judgment, Topic
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from concord.typed import Outdated, dump, load
from kinds.clustering import importers as clustering_importers
from kinds.clustering import stats as m
from kinds.clustering.analyses import split_merge_path
from kinds.clustering.report import (
    ClusteringCampaignReport,
    ClusteringEdits,
    ClusteringMeasures,
    ClusteringTopicReport,
    consensus,
    edit_summary,
)
from kinds.registry import KINDS
from scoring import services as scoring_services
from scoring.models import Job
from scoring.selectors import campaign_report, report_input, topic_report

pytestmark = pytest.mark.django_db
AIPHES = Path(__file__).resolve().parents[3] / "data" / "aiphes-hiersum"
ITEMS = [f"s{i}" for i in range(1, 9)]


def test_edit_summary_on_a_hand_made_pair():
    source = [["s1", "s2", "s3", "s4"], ["s5", "s6"], ["s7", "s8"]]
    # s1-s4 split in two; s5 s6 merged into s7's cluster; s8 deleted; s9 added.
    target = [["s1", "s2"], ["s3", "s4"], ["s7", "s5", "s6", "s9"]]
    assert edit_summary(source, target) == ClusteringEdits(
        identical=0,
        delete=["s8"],
        add=["s9"],
        split=1,
        merge=1,
        move=0,
    )
    assert edit_summary(source, source) == ClusteringEdits(identical=3, delete=[], add=[], split=0, merge=0, move=0)
    # One sentence moved between clusters that otherwise stay.
    moved = [["s1", "s2", "s3"], ["s5", "s6", "s4"], ["s7", "s8"]]
    assert edit_summary(source, moved).move == 1 and edit_summary(source, moved).identical == 1


def test_consensus_links_what_half_the_judges_put_together():
    judges = [[["s1", "s2", "s3"], ["s5", "s6"]], [["s1", "s2"], ["s3", "s5"]], [["s2", "s3"], ["s7", "s8"]]]
    # s1-s2: 2 of 3; s2-s3: 2; s1-s3: 1; s3-s5: 1; s5-s6: 1; s7-s8: 1 -> one cluster s1 s2 s3.
    assert consensus(judges, ITEMS) == [["s1", "s2", "s3"]]
    assert consensus(judges[:2], ITEMS) == [["s1", "s2", "s3", "s5", "s6"]]  # 1 of 2 is half


@pytest.fixture
def clustered(people):
    campaign = create_campaign(creator=people["organiser"], kind="clustering", name="C", overlap=3)
    for name in ("alice", "bob", "carol"):
        add_member(campaign=campaign, username=name, role="assessor")
    data = {
        "documents": [{"id": "d1"}, {"id": "d2"}],
        "sentences": [
            {"id": s, "document": "d1" if i < 4 else "d2", "position": i, "text": s} for i, s in enumerate(ITEMS)
        ],
    }
    import_topics(campaign=campaign, topics=[{"external_id": "t1", "data": data}])
    topic = campaign.topics.get()
    clusters = {
        "alice": [["s1", "s5"], ["s2", "s6"], ["s3", "s7"]],
        "bob": [["s1", "s5", "s2", "s6"], ["s3", "s7"]],
        "carol": [["s1", "s5"], ["s4", "s8"]],
    }
    for name, c in clusters.items():
        save_judgment(topic=topic, assessor=people[name], payload={"clusters": c}, status="submitted", version=0)
    import_runs(campaign=campaign, runs=[{"name": "sys", "data": {"clusterings": {"t1": [["s1", "s2", "s3", "s4"]]}}}])
    scoring_services.recompute_reports(campaign.pk, everything=True)
    return campaign, clusters


def test_topic_report_against_sklearn(clustered):
    campaign, clusters = clustered
    data = topic_report(campaign.topics.get()).data
    pair = next(p for p in data.pairs if list(p.judges) == ["alice", "bob"])
    for method, measures in pair.completions:
        a = m.complete_with_irrelevant(clusters["alice"], ITEMS, method=method)
        b = m.complete_with_irrelevant(clusters["bob"], ITEMS, method=method)
        h, c, v = homogeneity_completeness_v_measure(a, b)
        assert measures.homogeneity == pytest.approx(h, abs=1e-12)
        assert measures.v_measure == pytest.approx(v, abs=1e-12)
        assert measures.v_half == pytest.approx(homogeneity_completeness_v_measure(a, b, beta=0.5)[2], abs=1e-12)
        assert measures.nmi_arithmetic == pytest.approx(normalized_mutual_info_score(a, b), abs=1e-12)
        assert measures.v_beta == pytest.approx(m.v_beta(a, b), abs=1e-12)
    assert [method for method, _ in pair.completions] == ["singleton", "bucket"]
    assert dump(data.profiles["bob"]) == {"sentences": 6, "irrelevant": 2, "clusters": 2, "per_cluster": 3.0}
    assert data.consensus == [["s1", "s5"], ["s2", "s6"], ["s3", "s7"]]  # pairs two of three judges share
    assert data.rule_problems["alice"] == []
    base = data.baseline.singleton
    assert 0 < base.v_beta < 1 and 0 < base.nvi < 1
    assert set(data.runs["sys"]) == {"alice", "bob", "carol", "consensus"}
    campaign_data = campaign_report(campaign).data
    assert campaign_data.pairs[0].singleton.v_beta == pytest.approx(pair.singleton.v_beta)
    assert campaign_data.baseline.bucket.nvi == pytest.approx(data.baseline.bucket.nvi)


def test_a_topic_report_scores_its_comparisons_together_and_completes_each_clustering_once(clustered, monkeypatch):
    # A first build computes every topic's report: its comparisons (3 pairs of judges, the
    # run against the 3 judges and the consensus) are scored with one array operation per
    # step for each completion, not one table per comparison; each clustering is read once
    # for both completions, and the random baseline draws from the judges' completions
    # instead of completing every judge and profile again.
    campaign, _ = clustered
    calls = {"completed_scores": 0, "completed_scores_each": 0, "_judge_cluster_codes": 0}
    for name in calls:
        original = getattr(m, name)

        def counted(*args, _original=original, _name=name, **kwargs):
            calls[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(m, name, counted)
    given = report_input(campaign)
    report = KINDS["clustering"].reports.topic(given, given.topics[0])
    assert (len(report.judges), len(report.pairs), len(report.runs)) == (3, 3, 1)
    assert calls["completed_scores"] == 0
    assert calls["completed_scores_each"] == 2  # one per completion
    assert calls["_judge_cluster_codes"] == 3 + 1 + 1  # judges, run and consensus, each read once for both ways
    # the measures are made from the scores' columns in field order
    assert [f.name for f in fields(ClusteringMeasures)] == [*m.MEASURES, "v_half", "nvi"]


def test_reports_round_trip_and_an_older_shape_is_outdated(clustered):
    campaign, _ = clustered
    given = report_input(campaign)
    topic = KINDS["clustering"].reports.topic(given, campaign.topics.get())
    whole = KINDS["clustering"].reports.campaign(given)
    assert isinstance(topic, ClusteringTopicReport) and isinstance(whole, ClusteringCampaignReport)
    for value in (topic, whole):
        assert dump(load(type(value), dump(value))) == dump(value)
    stored = dump(whole)
    assert list(stored) == ["topics", "judged_topics", "pairs", "pair_count", "baseline", "agreement", "kind"]
    assert list(dump(topic)["pairs"][0]) == ["judges", "singleton", "bucket", "edits"]
    del stored["pairs"][0]["title"]
    with pytest.raises(Outdated):
        load(ClusteringCampaignReport, stored)
    profile_missing = dump(topic)
    del profile_missing["profiles"]["alice"]["per_cluster"]
    with pytest.raises(Outdated):
        load(ClusteringTopicReport, profile_missing)


def test_report_pages_render_the_typed_reports(client, people, clustered):
    campaign, _ = clustered
    client.force_login(people["organiser"])
    fragment = client.get(f"/campaigns/{campaign.pk}/report/").content.decode()
    assert 'data-pair="alice|bob" data-topic="t1"' in fragment and 'id="baseline-row"' in fragment
    page = client.get(f"/campaigns/{campaign.pk}/topics/t1/report/").content.decode()
    assert 'id="profiles-table"' in page and 'id="consensus"' in page
    assert page.count("<td>alice · bob</td><td>singleton</td>") == 1  # every measure, both completions
    assert page.count("<td>alice · bob</td><td>bucket</td>") == 1
    assert "<td>sys</td><td>consensus</td>" in page


def test_exports_consensus_with_provenance(api, people, clustered):
    campaign, _ = clustered
    client = api(people["admin"])
    rows = json.loads(
        client.get(f"/api/campaigns/{campaign.pk}/export/", {"format": "json", "truth": "consensus"}).content
    )
    s1 = next(r for r in rows if r["sentence"] == "s1")
    s4 = next(r for r in rows if r["sentence"] == "s4")
    assert (s1["cluster"], s1["judges_clustered"], s1["judges"]) == (1, 3, ["alice", "bob", "carol"])
    assert (s4["cluster"], s4["judges_clustered"], s4["judges"]) == (None, 1, ["carol"])
    csv_rows = (
        client.get(f"/api/campaigns/{campaign.pk}/export/", {"format": "csv", "truth": "judgments"})
        .content.decode()
        .splitlines()
    )
    assert csv_rows[0] == "topic,assessor,cluster,rank,description,sentence" and len(csv_rows) == 1 + 6 + 6 + 4


def test_split_merge_walks_from_singletons_to_one_cluster(clustered, django_capture_on_commit_callbacks):
    campaign, clusters = clustered
    path = split_merge_path(clusters["alice"], ITEMS, seed=3)
    assert path[0]["clusters"] == 8 and path[-1]["clusters"] == 1
    start = next(step for step in path if step["step"] == 0)
    assert start["v_beta"] == 1.0 and start["normalized_variation_of_information"] == 0.0
    assert [s["clusters"] for s in path] == sorted((s["clusters"] for s in path), reverse=True)
    with django_capture_on_commit_callbacks(execute=True):
        job = scoring_services.start_analysis(
            campaign=campaign, analysis="split-merge", params={"judge": "bob"}, user=None
        )
    job = Job.objects.get(pk=job.pk)
    assert job.status == "done" and job.result["judge"] == "bob" and job.result["path"][-1]["clusters"] == 1


def test_aiphes_trees_import_and_agree_above_chance(people):
    campaign = create_campaign(creator=people["organiser"], kind="clustering", name="AIPHES", overlap=3)
    trees = sorted((AIPHES / "Trees" / "FinishedTrees").glob("Annotator*/Topic_1002_*.xml"))
    call_command(
        "import_aiphes",
        campaign.pk,
        str(AIPHES / "Trees" / "Input" / "Topic_1002_cellphone_for_12_years_old_kid.txt"),
        "--trees",
        *map(str, trees),
        "--topic",
        "1002",
        "--documents",
        str(AIPHES / "SourceDocuments" / "HierarchicalSum_1002.xml"),
        stdout=open("/dev/null", "w"),
    )
    topic = Topic.objects.get(campaign=campaign, external_id="1002")
    assert len(topic.data["sentences"]) == 88
    assert len(topic.data["documents"]) > 1  # nuggets found in their source documents
    payloads = {j.assessor.username: j.payload["clusters"] for j in Judgment.objects.filter(topic=topic)}
    assert set(payloads) == {"annotator1", "annotator2", "annotator3"}
    # Independently: count annotator 1's top-level bubbles and their nuggets.
    from xml.etree import ElementTree

    root = ElementTree.parse(trees[0]).getroot()
    expected = [sorted(n.get("id") for n in bubble.iter("Nugget")) for bubble in root.findall("Bubble")]
    expected = [cluster for cluster in expected if cluster]  # an empty bubble is no cluster
    assert sorted(sorted(c) for c in payloads["annotator1"]) == sorted(expected)
    scoring_services.recompute_reports(campaign.pk, everything=True)
    data = topic_report(topic).data
    judged = [p.singleton.v_beta for p in data.pairs]
    assert min(judged) > data.baseline.singleton.v_beta


def test_deeper_cuts_give_more_clusters():
    tree = (AIPHES / "Trees" / "FinishedTrees" / "Annotator2").glob("Topic_1035_*.xml").__next__().read_bytes()
    counts = [len(clustering_importers.read_aiphes_tree(tree, depth=d)) for d in (1, 2, 3)]
    assert counts[0] < counts[1] <= counts[2]
    assert sum(len(c) for c in clustering_importers.read_aiphes_tree(tree, depth=1)) == sum(
        len(c) for c in clustering_importers.read_aiphes_tree(tree, depth=3)
    )


def test_clustering_runs_from_csv():
    runs = read.read_runs(
        "topic,run,sentence,cluster\nt1,r,s1,x\nt1,r,s2,x\nt1,r,s3,\nt1,r,s4,y\n",
        kind=KINDS["clustering"],
        filename="r.csv",
    )
    assert runs == [{"name": "r", "data": {"clusterings": {"t1": [["s1", "s2"], ["s4"]]}}}]


def test_bad_clustering_through_the_api_stores_nothing(api, people, clustered):
    campaign, _ = clustered
    add_member(campaign=campaign, username="outsider", role="assessor")
    topic = campaign.topics.get()
    import_topics(campaign=campaign, topics=[{"external_id": "t2", "data": topic.data}])
    user = next(
        u
        for u in ("alice", "bob", "carol", "outsider")
        if Topic.objects.filter(external_id="t2", assignments__assessor__username=u).exists()
    )
    response = api(people[user]).put(
        f"/api/campaigns/{campaign.pk}/topics/t2/judgment/",
        {"payload": {"clusters": [["s1", "s2"], ["s2", "s9"]]}, "status": "draft", "version": 0},
        format="json",
    )
    assert response.status_code == 400 and response.json()["field"] == "payload.clusters[1]"
    assert "s9" in response.json()["detail"]
    assert not Judgment.objects.filter(topic__external_id="t2").exists()
