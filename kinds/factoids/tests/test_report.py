"""Factoid analysis in the application: phases, blindness, relations, consensus, scores."""

from __future__ import annotations

import json

import pytest

from annotate.imports.write import import_topics
from annotate.models import Curation, CurationRevision, Judgment
from annotate.services.campaigns import create_campaign
from annotate.services.curations import save_curation
from annotate.services.judgments import Conflict, reopen_judgment, save_judgment
from annotate.services.members import add_member
from concord.errors import InvalidInput
from concord.typed import Outdated, dump, load
from kinds.factoids import demo, partials
from kinds.factoids import report as factoid_report
from kinds.factoids import services as factoid_services
from kinds.factoids import stats as m
from kinds.factoids.pages import judge_context
from kinds.factoids.report import FactoidsCampaignReport, FactoidsTopicReport, summaries_of
from scoring import services as scoring_services
from scoring.models import Job
from scoring.selectors import phase_payloads, report_input, topic_report

pytestmark = pytest.mark.django_db

# Paper section 3.2: 5 summaries a-e; annotator 1 assigns P30 to a, c, e; annotator 2
# split it: F9.21 on a, F9.22 on c and e.
SUMMARIES = [{"id": s, "author": f"p-{s}", "sentences": [{"id": f"{s}1", "text": f"Summary {s}."}]} for s in "abcde"]
ALICE = {
    "factoids": [{"id": "P30", "text": "Iraq will leave when the situation stabilises"}],
    "marks": {"a1": ["P30"], "c1": ["P30"], "e1": ["P30"]},
}
BOB = {
    "factoids": [
        {"id": "F9.21", "text": "Iraq will leave soon"},
        {"id": "F9.22", "text": "when the situation stabilises"},
    ],
    "marks": {"a1": ["F9.21"], "c1": ["F9.22"], "e1": ["F9.22"]},
}


@pytest.fixture
def annotated(people):
    campaign = create_campaign(creator=people["organiser"], kind="factoids", name="F", overlap=2)
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    (topic,) = import_topics(campaign=campaign, topics=[{"external_id": "kuwait", "data": {"summaries": SUMMARIES}}])
    save_judgment(topic=topic, assessor=people["alice"], payload=ALICE, status="submitted", version=0)
    save_judgment(topic=topic, assessor=people["bob"], payload=BOB, status="submitted", version=0)
    scoring_services.recompute_reports(campaign.pk, everything=True)
    return campaign, topic


def test_the_worked_example_through_the_application(annotated):
    campaign, topic = annotated
    pair = topic_report(topic).data.agreement["1"].pairs[0]
    assert (pair.identities, pair.subsumptions, pair.relations) == (0, 1, "suggested")
    expected = m.definition_kappa([{"first": ["P30"], "second": ["F9.21", "F9.22"]}], ALICE, BOB, summaries_of(topic))
    assert pair.definition.n_items == 10
    assert pair.definition.kappa == pytest.approx(expected.kappa)


def test_topic_reports_suggest_every_pairs_relations_together_and_read_their_own_payloads(people, monkeypatch):
    # A first build computes every topic's report: a topic's pairs of annotators have their
    # relations suggested in one pass (no per-pair _suggest), and each topic reads its own
    # phase payloads, grouped by topic once (not a scan of every topic's per topic).
    campaign = create_campaign(creator=people["organiser"], kind="factoids", name="F", overlap=3)
    for name in ("alice", "bob", "carol"):
        add_member(campaign=campaign, username=name, role="assessor")
    topics = import_topics(
        campaign=campaign, topics=[{"external_id": f"t{i}", "data": {"summaries": SUMMARIES}} for i in range(4)]
    )
    for topic in topics:
        for name, payload in (("alice", ALICE), ("bob", BOB), ("carol", BOB)):
            save_judgment(topic=topic, assessor=people[name], payload=payload, status="submitted", version=0)
    given = report_input(campaign)
    calls = {"_suggest": 0, "phase_payloads": 0}
    original_suggest, original_payloads = m._suggest, type(given).phase_payloads

    def suggest(*args, **kwargs):
        calls["_suggest"] += 1
        return original_suggest(*args, **kwargs)

    def payloads(self, phase):
        calls["phase_payloads"] += 1
        return original_payloads(self, phase)

    monkeypatch.setattr(m, "_suggest", suggest)
    monkeypatch.setattr(type(given), "phase_payloads", payloads)
    reports = [factoid_report.topic_report(given, topic) for topic in given.topics]
    assert [len(r.agreement["1"].pairs) for r in reports] == [3, 3, 3, 3]
    assert reports[0].agreement["1"].pairs[0].subsumptions == 1  # alice's P30 subsumes bob's two
    assert calls == {"_suggest": 0, "phase_payloads": 1}


def test_phase_one_is_kept_when_phase_two_corrects(annotated, people):
    campaign, topic = annotated
    assert judge_context(campaign, topic, people["alice"]) == {"phase": 1, "discrepancies": None}
    factoid_services.start_phase_two(campaign=campaign)
    campaign.refresh_from_db()
    corrected = {**ALICE, "marks": {**ALICE["marks"], "b1": ["P30"]}}
    # A submitted judgment is corrected by reopening it and submitting again.
    reopen_judgment(topic=topic, assessor=people["alice"], version=1)
    save_judgment(topic=topic, assessor=people["alice"], payload=corrected, status="submitted", version=2)
    assert phase_payloads(campaign, 1)[(topic.pk, "alice")] == ALICE
    assert phase_payloads(campaign, 2)[(topic.pk, "alice")] == corrected
    with pytest.raises(InvalidInput, match="Phase 2 already"):
        factoid_services.start_phase_two(campaign=campaign)


def test_phase_two_shows_only_the_discrepancy_list(annotated, people, client):
    campaign, topic = annotated
    # Confirm an identity so there is something to compare: P30 = F9.22.
    save_curation(
        topic=topic,
        name="relations",
        data={"pairs": {"alice|bob": [{"first": ["P30"], "second": ["F9.22"]}]}},
        version=0,
        user=people["organiser"],
    )
    client.force_login(people["alice"])
    before = client.get(f"/campaigns/{campaign.pk}/topics/kuwait/judge/").content.decode()
    assert "F9.2" not in before and 'id="discrepancies"' not in before  # Phase 1: blind
    # An author's summary reads as a reference summary (a bare "model" read as an AI model).
    assert ">reference summary<" in before and ">model<" not in before
    factoid_services.start_phase_two(campaign=campaign)
    campaign.refresh_from_db()
    context = judge_context(campaign, topic, people["alice"])
    assert context["discrepancies"] == [
        {"sentence": "a1", "factoid": "P30", "kind": "you-only", "message": m.DISCREPANCY_MESSAGES["only_you"]}
    ]
    page = client.get(f"/campaigns/{campaign.pk}/topics/kuwait/judge/").content.decode()
    assert 'id="discrepancies"' in page
    assert "F9.2" not in page and "situation stabilises" not in page.replace(ALICE["factoids"][0]["text"], "")


def test_relations_are_validated_versioned_and_kept(annotated, people, django_capture_on_commit_callbacks):
    campaign, topic = annotated
    bad = [
        ({"pairs": {"bob|alice": []}}, "data.pairs.bob|alice"),
        ({"pairs": {"alice|bob": [{"first": ["P30", "X"], "second": ["F9.21"]}]}}, "data.pairs.alice|bob[0].first"),
        ({"pairs": {"alice|bob": [{"first": ["P30"], "second": []}]}}, "data.pairs.alice|bob[0].second"),
    ]
    for data, field in bad:
        with pytest.raises(InvalidInput) as error:
            save_curation(topic=topic, name="relations", data=data, version=0, user=people["organiser"])
        assert error.value.field == field
    good = {"pairs": {"alice|bob": [{"first": ["P30"], "second": ["F9.21", "F9.22"]}]}}
    with django_capture_on_commit_callbacks(execute=True):  # the reports follow the confirmed relations
        save_curation(topic=topic, name="relations", data=good, version=0, user=people["organiser"])
    with pytest.raises(Conflict):
        save_curation(
            topic=topic, name="relations", data={"pairs": {"alice|bob": []}}, version=0, user=people["organiser"]
        )
    assert Curation.objects.get(name="relations").version == 1 and CurationRevision.objects.count() == 1
    assert topic_report(topic).data.agreement["1"].pairs[0].relations == "confirmed"


def test_consensus_scores_summaries_and_exports(annotated, people, api, django_capture_on_commit_callbacks):
    campaign, topic = annotated
    consensus = {
        "factoids": [{"id": "C1", "text": "leave soon"}, {"id": "C2", "text": "when stable"}],
        "marks": {"a1": ["C1"], "c1": ["C2"], "e1": ["C1", "C2"]},
    }
    client = api(people["organiser"])
    url = f"/api/campaigns/{campaign.pk}/topics/kuwait/curations/consensus/"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.put(url, {"payload": consensus, "status": "draft", "version": 0}, format="json")
    assert response.status_code == 200 and response.json()["version"] == 1
    assert api(people["alice"]).put(url, {"data": consensus, "version": 1}, format="json").status_code == 403
    scores = {s.id: s.wfs for s in topic_report(topic).data.scores.summaries}
    # weights: C1 in a and e (2), C2 in c and e (2): a 2, b 0, c 2, d 0, e 4
    assert scores == {"a": 2.0, "b": 0.0, "c": 2.0, "d": 0.0, "e": 4.0}
    admin = api(people["admin"])
    rows = json.loads(
        admin.get(f"/api/campaigns/{campaign.pk}/export/", {"format": "json", "truth": "consensus"}).content
    )
    assert [(r["factoid"], r["weight"], r["sentences"]) for r in rows] == [
        ("C1", 2, ["a1", "e1"]),
        ("C2", 2, ["c1", "e1"]),
    ]
    wfs = (
        admin.get(f"/api/campaigns/{campaign.pk}/export/", {"format": "csv", "truth": "wfs"})
        .content.decode()
        .splitlines()
    )
    assert wfs[0] == "topic,summary,source,model,wfs" and wfs[5] == "kuwait,e,p-e,1,4.0"
    annotations = json.loads(
        admin.get(f"/api/campaigns/{campaign.pk}/export/", {"format": "json", "truth": "annotations"}).content
    )
    assert {a["annotator"] for a in annotations} == {"alice", "bob"}


def test_growth_and_stability_jobs(annotated, people, client, django_capture_on_commit_callbacks):
    campaign, topic = annotated
    save_curation(
        topic=topic,
        name="consensus",
        version=0,
        user=people["organiser"],
        data={
            "factoids": [{"id": "C1", "text": "x"}, {"id": "C2", "text": "y"}],
            "marks": {"a1": ["C1"], "c1": ["C2"], "e1": ["C1", "C2"]},
        },
    )
    with django_capture_on_commit_callbacks(execute=True):
        growth = scoring_services.start_analysis(campaign=campaign, analysis="growth", params={"draws": 20}, user=None)
        stability = scoring_services.start_analysis(
            campaign=campaign, analysis="wfs-stability", params={"max_n": 8, "pairs": 30, "n": 3}, user=None
        )
    growth, stability = Job.objects.get(pk=growth.pk), Job.objects.get(pk=stability.pk)
    assert growth.status == "done" and growth.result["sizes"] == [1, 2, 3, 4, 5]
    # With all five summaries C1 and C2 occur apart (a vs c): two factoids; never more than two.
    assert growth.result["mean"][-1] == 2.0 and max(growth.result["mean"]) <= 2.0
    assert stability.status == "done", stability.message
    assert len(stability.result["stability"]["mean_rho"]) == 8
    client.force_login(people["organiser"])
    assert "Figure 4" in client.get(f"/jobs/{growth.pk}/").content.decode()
    stability_page = client.get(f"/jobs/{stability.pk}/").content.decode()
    assert "Figures 5-7" in stability_page
    assert "reference summaries" in stability_page and "model summar" not in stability_page


def test_relations_editor_page_saves_lines(annotated, people, client):
    campaign, topic = annotated
    client.force_login(people["organiser"])
    url = f"/campaigns/{campaign.pk}/topics/kuwait/relations/"
    page = client.get(url).content.decode()
    assert "P30 | F9.21 F9.22" in page  # the suggestion, ready to confirm
    response = client.post(url, {"version": "0", "alice|bob": "P30 | F9.21\n"})
    assert response.status_code == 302
    assert Curation.objects.get(name="relations").data == {
        "pairs": {"alice|bob": [{"first": ["P30"], "second": ["F9.21"]}]}
    }
    client.force_login(people["alice"])
    assert client.get(url).status_code == 403


def test_bad_factoid_payloads_store_nothing(annotated, people):
    campaign, topic = annotated
    add_member(campaign=campaign, username="carol", role="assessor")
    bad = [
        ({"factoids": [{"id": "A", "text": "x"}, {"id": "A", "text": "y"}], "marks": {}}, "payload.factoids[1].id"),
        ({"factoids": [{"id": "A", "text": "x"}], "marks": {"zz": ["A"]}}, "payload.marks.zz"),
        ({"factoids": [{"id": "A", "text": "x"}], "marks": {"a1": ["P30"]}}, "payload.marks.a1"),
        ({"factoids": [], "marks": {}}, "payload.factoids"),
    ]
    for payload, field in bad:
        with pytest.raises(InvalidInput) as error:
            save_judgment(topic=topic, assessor=people["alice"], payload=payload, status="submitted", version=1)
        assert error.value.field == field
    assert Judgment.objects.get(topic=topic, assessor=people["alice"]).version == 1


def test_position_adjusted_stability(annotated, people, django_capture_on_commit_callbacks):
    campaign, topic = annotated
    save_curation(
        topic=topic,
        name="consensus",
        version=0,
        user=people["organiser"],
        data={"factoids": [{"id": "C1", "text": "x"}], "marks": {"a1": ["C1"], "c1": ["C1"]}},
    )
    with django_capture_on_commit_callbacks(execute=True):
        job = scoring_services.start_analysis(
            campaign=campaign,
            analysis="wfs-stability",
            params={"max_n": 3, "pairs": 10, "n": 2, "position": True},
            user=None,
        )
    job = Job.objects.get(pk=job.pk)
    assert job.status == "done" and job.result["position_adjusted"] is True


def test_demo_reports_round_trip_and_an_old_shape_is_outdated(people, make_user):
    simulated = [make_user(f"sim-{name}") for name in ("ann", "ben")]
    campaign = demo.build(people["organiser"], simulated, [people["alice"]])
    factoid_services.start_phase_two(campaign=campaign)
    campaign.refresh_from_db()
    given = report_input(campaign)
    tram, mine = given.topics  # judged, with a consensus; and the people's own, judged by nobody yet
    full, empty = (factoid_report.topic_report(given, t) for t in (tram, mine))
    assert set(full.agreement) == {"1", "2"} and full.scores is not None and full.agreement["1"].pairs[0].annotation
    assert empty.annotators == {} and empty.scores is None
    for value in (full, empty):
        assert dump(load(FactoidsTopicReport, dump(value))) == dump(value)
    report = partials.campaign_report(given)
    stored = dump(report)
    assert list(stored) == ["phase", "topics", "pairs", "pair_count", "scored_topics", "annotation_unit", "kind"]
    assert stored["kind"] == "factoids"
    assert dump(load(FactoidsCampaignReport, stored)) == stored
    old = dump(full)
    del old["agreement"]["1"]["pairs"][0]["definition"]
    with pytest.raises(Outdated):
        load(FactoidsTopicReport, old)
    with pytest.raises(Outdated):
        load(FactoidsCampaignReport, {key: value for key, value in stored.items() if key != "scored_topics"})
