"""Analyses run as jobs with progress."""

import pytest

from annotate.imports.write import import_topics
from annotate.models import Topic
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from scoring.charts import specs_in
from scoring.models import Job, Report, TopicPartial

pytestmark = pytest.mark.django_db


def test_agreement_analysis_recomputes_every_report_with_progress(
    api, people, campaign, django_capture_on_commit_callbacks
):
    for topic in Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]):
        save_judgment(
            topic=topic,
            assessor=people["alice"],
            payload={"matches": {"c1": True, "c2": True, "c3": False, "c4": False}},
            status="submitted",
            version=0,
        )
    Report.objects.all().delete()
    TopicPartial.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=True):
        response = api(people["organiser"]).post(
            f"/api/campaigns/{campaign.pk}/analyses/", {"analysis": "agreement"}, format="json"
        )
    assert response.status_code == 202 and response.json()["status"] == "queued"
    job = api(people["organiser"]).get(f"/api/jobs/{response.json()['id']}/").json()
    assert (job["status"], job["progress"], job["result"]) == ("done", 1.0, {"topic_reports": 3})
    assert TopicPartial.objects.filter(campaign=campaign).count() == 3
    assert Report.objects.get(campaign=campaign, name="agreement").judgments_seen == 3


def test_unknown_analysis_is_a_400(api, people, campaign):
    response = api(people["organiser"]).post(
        f"/api/campaigns/{campaign.pk}/analyses/", {"analysis": "nope"}, format="json"
    )
    assert response.status_code == 400 and response.json()["field"] == "analysis"
    assert not Job.objects.exists()


def test_a_failing_analysis_is_recorded(people, campaign, monkeypatch):
    from scoring import jobs
    from scoring import services as scoring_services

    def broken(*args, **kwargs):
        raise ArithmeticError("boom")

    monkeypatch.setattr(jobs, "recompute_reports", broken)
    job = Job.objects.create(campaign=campaign, analysis="agreement")
    with pytest.raises(ArithmeticError):
        scoring_services.run_job(job.pk)
    job.refresh_from_db()
    # Users read what to do, never the exception's text (that goes to the log).
    assert (job.status, job.message) == ("failed", scoring_services.UNEXPECTED)
    assert "boom" not in job.message


def test_job_pages_show_tables_and_charts(client, people, django_capture_on_commit_callbacks):
    campaign = create_campaign(creator=people["organiser"], kind="ordering", name="O", overlap=3)
    for name in ("alice", "bob", "carol"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(
        campaign=campaign, topics=[{"external_id": "t", "data": {"items": [{"id": i, "text": i} for i in "abcdef"]}}]
    )
    topic = campaign.topics.get()
    for name, order in (("alice", "abcdef"), ("bob", "bacdef"), ("carol", "abcdfe")):
        save_judgment(topic=topic, assessor=people[name], payload={"order": list(order)}, status="submitted", version=0)
    from scoring import services as scoring_services

    with django_capture_on_commit_callbacks(execute=True):
        noise = scoring_services.start_analysis(
            campaign=campaign, analysis="noise", params={"ratios": [0, 0.5, 1], "seeds": 2}, user=None
        )
        sweep = scoring_services.start_analysis(campaign=campaign, analysis="frespa-sweep", params={}, user=None)
    client.force_login(people["organiser"])
    page = client.get(f"/jobs/{noise.pk}/").content.decode()
    (ed,) = specs_in(page)
    # One line per method; WCA-tau and WCA-Sp under both weightings (clamped, paper).
    assert "% Degradation" in page and len(ed["datasets"]) == 9
    page = client.get(f"/jobs/{sweep.pk}/").content.decode()
    specs = specs_in(page)  # one small chart per parameter, ED on each
    assert "min_sup" in page and len(specs) == 5 and all(len(s["datasets"]) == 1 for s in specs)
    client.force_login(people["alice"])
    assert client.get(f"/jobs/{noise.pk}/").status_code == 403
