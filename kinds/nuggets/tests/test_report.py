"""The nuggets report: pyramids, run scores under each model, stability."""

from __future__ import annotations

import json

import numpy as np
import pytest
from django.core.management import call_command

from annotate.imports.write import import_runs, import_topics
from annotate.models import Run, Topic
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from concord import typed
from kinds.nuggets import partials as nuggets_partials
from kinds.nuggets import report as nuggets_report
from kinds.nuggets import stats as m
from kinds.nuggets.analyses import full_analysis
from kinds.nuggets.report import NuggetsCampaignReport, NuggetsPyramid, NuggetsTopicReport, arrays, scores
from scoring import services as scoring_services
from scoring.charts import specs_in
from scoring.models import Job
from scoring.selectors import ReportInput, campaign_report, report_input, submitted_judgments, topic_report

pytestmark = pytest.mark.django_db

ORIGINAL = {"q1": ["vital", "vital", "okay", "okay"], "q2": ["vital", "okay", "okay"]}
LABELS = {
    "alice": {"q1": ["vital", "okay", "vital", "okay"], "q2": ["vital", "vital", "okay"]},
    "bob": {"q1": ["vital", "vital", "okay", "okay"], "q2": ["okay", "okay", "okay"]},
}
# run -> question -> (length, matched nugget indexes)
RUNS = {
    "good": {"q1": (300, [0, 1, 2]), "q2": (150, [0, 1])},
    "verbose": {"q1": (2000, [0, 1]), "q2": (900, [0])},
    "weak": {"q1": (200, [3]), "q2": (100, [2])},
}


@pytest.fixture
def labelled(people):
    campaign = create_campaign(creator=people["organiser"], kind="nuggets", name="N", overlap=2)
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(
        campaign=campaign,
        topics=[
            {
                "external_id": q,
                "data": {
                    "target": q.upper(),
                    "nuggets": [{"id": f"n{i}", "text": f"fact {i}", "label": label} for i, label in enumerate(labels)],
                },
            }
            for q, labels in ORIGINAL.items()
        ],
    )
    for topic in campaign.topics.all():
        for name, labels in LABELS.items():
            payload = {"labels": {f"n{i}": label for i, label in enumerate(labels[topic.external_id])}}
            save_judgment(topic=topic, assessor=people[name], payload=payload, status="submitted", version=0)
    import_runs(
        campaign=campaign,
        runs=[
            {
                "name": run,
                "data": {
                    "responses": {
                        q: {"length": length, "matches": [f"n{i}" for i in found]}
                        for q, (length, found) in questions.items()
                    }
                },
            }
            for run, questions in RUNS.items()
        ],
    )
    scoring_services.recompute_reports(campaign.pk, everything=True)
    return campaign


def test_pyramid_votes_and_weights_table5(labelled):
    topic = labelled.topics.get(external_id="q1")
    rows = topic_report(topic).data.pyramid
    # votes: original + alice + bob saying vital
    assert [r.votes for r in rows] == [3, 2, 1, 0]
    assert [r.weight for r in rows] == pytest.approx([1, 2 / 3, 1 / 3, 0])
    assert [r.original for r in rows] == ORIGINAL["q1"]


def test_run_scores_equal_the_scalar_formulas(labelled):
    data = campaign_report(labelled).data
    by_run = {row.run: row.scores for row in data.runs}
    for run, questions in RUNS.items():
        for model in ("original", "alice", "bob", "pyramid"):
            expected = []
            for q, (length, found) in questions.items():
                if model == "pyramid":
                    votes = [
                        sum(labels[q][i] == "vital" for labels in (ORIGINAL, LABELS["alice"], LABELS["bob"]))
                        for i in range(len(ORIGINAL[q]))
                    ]
                    weights = m.pyramid_weights(votes)
                    expected.append(
                        m.pyramid_f(weights=weights, matched=np.isin(range(len(votes)), found), length=length).f
                    )
                else:
                    labels = ORIGINAL[q] if model == "original" else LABELS[model][q]
                    vital = [i for i, label in enumerate(labels) if label == "vital"]
                    if not vital:
                        continue  # recall undefined: the question does not count for this model
                    expected.append(
                        m.nugget_f(
                            vital_matched=len(set(found) & set(vital)),
                            okay_matched=len(set(found) - set(vital)),
                            vital_total=len(vital),
                            length=length,
                        ).f
                    )
            assert by_run[run][model] == pytest.approx(np.mean(expected), abs=1e-12), (run, model)
    assert [row.run for row in data.runs] == ["good", "verbose", "weak"]


def test_stability_tables_3_and_4_match_the_metric(labelled):
    data = campaign_report(labelled).data
    a = arrays(
        list(labelled.topics.order_by("position")),
        submitted_judgments(labelled),
        list(Run.objects.filter(campaign=labelled)),
    )
    expected = m.assessor_agreement(
        a.labels.astype(bool), a.matches, a.lengths, question_index=a.question_index, original=0
    )
    assert data.stability.assessors == ["original", "alice", "bob"]
    assert data.stability.tau_pyramid == pytest.approx(expected.tau_pyramid.tolist())
    assert data.stability.mean_tau_original == pytest.approx(expected.mean_tau_original)


def test_reports_round_trip_through_their_types_and_refuse_an_outdated_shape(labelled, people):
    unlabelled = create_campaign(creator=people["organiser"], kind="nuggets", name="U", overlap=1)
    import_topics(
        campaign=unlabelled,
        topics=[{"external_id": "q", "data": {"target": "T", "nuggets": [{"id": "n", "text": "x"}]}}],
    )
    full = report_input(labelled)
    inputs = [full, ReportInput(labelled, full.topics, [], full.runs), report_input(unlabelled)]
    for given in inputs:
        campaign = nuggets_partials.campaign_report(given)
        assert isinstance(campaign, NuggetsCampaignReport)
        stored = typed.dump(campaign)
        assert typed.dump(typed.load(NuggetsCampaignReport, stored)) == stored
        for topic in given.topics:
            stored = typed.dump(nuggets_report.topic_report(given, topic))
            assert typed.dump(typed.load(NuggetsTopicReport, stored)) == stored
    # stability present and absent, original labels present and absent: every optional field was exercised
    assert nuggets_partials.campaign_report(inputs[0]).stability is not None
    assert nuggets_partials.campaign_report(inputs[1]).stability is None
    assert nuggets_report.topic_report(inputs[2], inputs[2].topics[0]).pyramid[0].original is None
    # What is stored keeps today's shape, the kind last.
    stored = typed.dump(nuggets_partials.campaign_report(full))
    assert list(stored) == [
        "questions",
        "nuggets",
        "assessors",
        "scored_questions",
        "complete_assessors",
        "has_original",
        "runs",
        "stability",
        "reliability",
        "label_agreement",
        "ranking",
        "kind",
    ]
    assert stored["kind"] == "nuggets" and stored["stability"]["t_test"]["df"] == 1
    del stored["label_agreement"]["fleiss_items"]
    with pytest.raises(typed.Outdated):
        typed.load(NuggetsCampaignReport, stored)
    # a question's pyramid, a row of the per-question list (made from its partial when read)
    [q1] = [t for t in full.topics if t.external_id == "q1"]
    row = typed.dump(nuggets_partials.topic_row(q1, nuggets_partials.topic_partial(full, q1), None))
    assert list(row) == ["topic", "title", "target", "nuggets"]
    assert list(row["nuggets"][0]) == ["id", "text", "original", "votes", "weight"]
    del row["nuggets"][0]["weight"]
    with pytest.raises(typed.Outdated):
        typed.load(NuggetsPyramid, row)
    with pytest.raises(typed.Outdated):
        typed.load(NuggetsTopicReport, {"pyramid": []})


def test_report_pages_render_the_typed_reports(labelled, client, people):
    client.force_login(people["organiser"])
    fragment = client.get(f"/campaigns/{labelled.pk}/report/").content.decode()
    assert 'id="runs-table"' in fragment and 'id="stability-table"' in fragment
    assert "<th>pyramid</th>" in fragment and "<td>good</td>" in fragment and "(df 1)" in fragment
    assert 'data-topic="q1"' in fragment and 'data-topic="q2"' in fragment
    assert '<td class="votes">3</td><td class="weight">1.000</td><td>vital</td>' in fragment
    page = client.get(f"/campaigns/{labelled.pk}/topics/q1/report/").content.decode()
    assert "judgments by alice, bob" in page and 'id="topic-pyramid"' in page
    assert '<td class="weight">0.667</td>' in page


def test_matches_can_come_from_judgments_by_majority(people):
    campaign = create_campaign(
        creator=people["organiser"], kind="nuggets", name="M", overlap=3, params={"tasks": ["matches"]}
    )
    for name in ("alice", "bob", "carol"):
        add_member(campaign=campaign, username=name, role="assessor")
    (topic,) = import_topics(
        campaign=campaign,
        topics=[
            {
                "external_id": "q",
                "data": {
                    "target": "T",
                    "nuggets": [{"id": f"n{i}", "text": "x", "label": "vital"} for i in range(3)],
                    "responses": [{"id": "r1", "run": "A", "text": "one two three"}],
                },
            }
        ],
    )
    for name, found in (("alice", ["n0", "n1"]), ("bob", ["n0"]), ("carol", ["n0", "n2"])):
        save_judgment(
            topic=topic, assessor=people[name], payload={"matches": {"r1": found}}, status="submitted", version=0
        )
    a = arrays([topic], submitted_judgments(campaign), [])
    # n0: 3 of 3; n1: 1 of 3; n2: 1 of 3 -> only n0 is in the response
    assert a.runs == ["A"] and a.matches.tolist() == [[True, False, False]]
    assert a.lengths.tolist() == [[11]]
    f = scores(a)["original"]
    assert f[0, 0] == pytest.approx(m.nugget_f(vital_matched=1, okay_matched=0, vital_total=3, length=11).f)


def test_stability_job_reports_figures_and_tables(labelled, client, people, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        job = scoring_services.start_analysis(campaign=labelled, analysis="stability", params={}, user=None)
    job = Job.objects.get(pk=job.pk)
    assert job.status == "done", job.message
    assert job.result["assessors"] == ["original", "alice", "bob"]
    assert job.result["figures_2_3"]["sizes"] == [1, 2, 3]
    client.force_login(people["organiser"])
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert "Table 2: quantisation" in page and len(specs_in(page)) == 2


def test_full_analysis_needs_two_complete_labellings(labelled):
    a = arrays(list(labelled.topics.all()), [], list(Run.objects.filter(campaign=labelled)))
    from concord.errors import InvalidInput

    with pytest.raises(InvalidInput, match="two complete labellings"):
        full_analysis(a)


def test_exports(api, people, labelled):
    client = api(people["admin"])
    tsv = client.get(f"/api/campaigns/{labelled.pk}/export/", {"format": "tsv", "truth": "answer-key"}).content.decode()
    assert tsv.splitlines()[0] == "q1\tn0\tvital\t3\t1.000000\tfact 0"
    rows = json.loads(
        client.get(f"/api/campaigns/{labelled.pk}/export/", {"format": "json", "truth": "scores"}).content
    )
    assert {r["model"] for r in rows} == {"pyramid", "original", "alice", "bob"} and len(rows) == 4 * 3 * 2


def test_trec_like_text_imports(people, tmp_path):
    campaign = create_campaign(creator=people["organiser"], kind="nuggets", name="T", overlap=1)
    (tmp_path / "q.txt").write_text("1\tAARP\n2\tHubble\n")
    (tmp_path / "key.txt").write_text(
        "1\t1.1\tvital\tLobby for people over 50\n1\t1.2\tokay\tHas a magazine\n2\t2.1\t-\tOrbits the Earth\n"
    )
    (tmp_path / "runs.txt").write_text(
        "sysA\t1\tAARP is a lobby.\nsysA\t1\tIt publishes a magazine.\nsysA\t2\tA telescope.\n"
    )
    (tmp_path / "matches.txt").write_text("sysA\t1\t1.1\nsysA\t1\t1.2\n")
    call_command(
        "import_nuggets",
        campaign.pk,
        "--questions",
        str(tmp_path / "q.txt"),
        "--key",
        str(tmp_path / "key.txt"),
        "--runs",
        str(tmp_path / "runs.txt"),
        "--matches",
        str(tmp_path / "matches.txt"),
        stdout=open("/dev/null", "w"),
    )
    topic = Topic.objects.get(campaign=campaign, external_id="1")
    assert topic.data["nuggets"] == [
        {"id": "1.1", "text": "Lobby for people over 50", "label": "vital"},
        {"id": "1.2", "text": "Has a magazine", "label": "okay"},
    ]
    assert "label" not in Topic.objects.get(external_id="2").data["nuggets"][0]
    run = Run.objects.get(campaign=campaign, name="sysA").data["responses"]
    assert run["1"] == {"length": len("AARPisalobby.Itpublishesamagazine."), "matches": ["1.1", "1.2"]}
    assert run["2"] == {"length": len("Atelescope."), "matches": []}
