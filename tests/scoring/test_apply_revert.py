"""Analyses that change the campaign (the ordering kind's frespa-tune)
and Phase 2 of factoid campaigns are confirmed first and can be reverted."""

from __future__ import annotations

import pytest
from django.utils import timezone

from annotate.imports.write import import_topics
from annotate.models import Campaign
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.factoids import services as factoid_services
from kinds.registry import get_kind
from scoring.models import Job

pytestmark = pytest.mark.django_db

TUNED = {"min_sup": 0.5, "w_len": 2.0, "w_sup": 1.0, "min_len_ratio": 0.0, "max_len_ratio": 0.0}


@pytest.fixture
def tuned(people):
    """An ordering campaign with a finished frespa-tune job (its result as the analysis returns it)."""
    campaign = create_campaign(creator=people["organiser"], kind="ordering", name="Tuning", overlap=2)
    job = Job.objects.create(
        campaign=campaign,
        analysis="frespa-tune",
        params={},
        status=Job.Status.DONE,
        progress=1.0,
        result={"setting": TUNED, "ed": 0.25, "settings_tried": 54},
        finished_at=timezone.now(),
    )
    return campaign, job


def frespa(campaign):
    return Campaign.objects.get(pk=campaign.pk).params["frespa"]


def test_a_finished_tune_changes_nothing_until_applied(client, people, tuned):
    campaign, job = tuned
    assert "frespa" not in Campaign.objects.get(pk=campaign.pk).params  # the paper's setting
    client.force_login(people["organiser"])
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert 'id="job-proposal"' in page and f'href="/jobs/{job.pk}/apply/"' in page
    assert page.count('data-field="frespa.') == 5
    assert '<code>frespa.max_len_ratio</code></th><td><span class="muted">not set</span></td><td>0.0</td>' in page
    confirm = client.get(f"/jobs/{job.pk}/apply/").content.decode()
    assert "Apply job" in confirm and 'id="confirm-button"' in confirm and "<script>" not in confirm
    assert "frespa" not in Campaign.objects.get(pk=campaign.pk).params  # the confirm page writes nothing
    # Once the campaign has a setting, only what differs is listed.
    Campaign.objects.filter(pk=campaign.pk).update(params={"frespa": {**TUNED, "min_sup": 0.75}})
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert page.count('data-field="frespa.') == 1
    assert "<code>frespa.min_sup</code></th><td>0.75</td><td>0.5</td>" in page


def test_apply_then_revert_through_the_pages(client, people, tuned, django_capture_on_commit_callbacks):
    campaign, job = tuned
    before = Campaign.objects.get(pk=campaign.pk).params
    client.force_login(people["organiser"])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/jobs/{job.pk}/apply/")
    assert (
        response.status_code == 302
        and response["Location"] == f"/campaigns/{campaign.pk}/?section=analyses#applied-changes"
    )
    assert frespa(campaign) == TUNED
    job.refresh_from_db()
    assert (job.params_before, job.params_after["frespa"]) == (before, TUNED)
    assert job.applied_by == people["organiser"] and job.reverted_at is None
    page = client.get(f"/campaigns/{campaign.pk}/?section=analyses").content.decode()
    assert f'id="applied-{job.pk}"' in page and f'action="/jobs/{job.pk}/revert/"' in page
    assert 'data-field="frespa.max_len_ratio"' in page
    assert client.post(f"/jobs/{job.pk}/apply/").status_code == 400  # applied already
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/jobs/{job.pk}/revert/")
    assert response.status_code == 302
    assert Campaign.objects.get(pk=campaign.pk).params == before
    job.refresh_from_db()
    assert job.reverted_by == people["organiser"]
    assert f'id="applied-{job.pk}"' not in client.get(f"/campaigns/{campaign.pk}/?section=analyses").content.decode()
    assert client.post(f"/jobs/{job.pk}/revert/").status_code == 400  # nothing to revert now


def test_a_stale_revert_is_refused_naming_the_field(api, people, tuned, client):
    campaign, job = tuned
    organiser = api(people["organiser"])
    applied = organiser.post(f"/api/jobs/{job.pk}/apply/")
    assert applied.status_code == 200 and applied.json()["params_after"]["frespa"] == TUNED
    # A later tune is applied on top: the first one's values are gone.
    changed = {**TUNED, "max_len_ratio": 1.0}
    later = Job.objects.create(
        campaign=campaign, analysis="frespa-tune", status=Job.Status.DONE, result={"setting": changed, "ed": 0.2}
    )
    assert organiser.post(f"/api/jobs/{later.pk}/apply/").status_code == 200
    refused = organiser.post(f"/api/jobs/{job.pk}/revert/")
    assert refused.status_code == 400
    assert refused.json()["field"] == "params.frespa.max_len_ratio"
    assert "changed since job" in refused.json()["detail"]
    assert frespa(campaign) == changed  # nothing written
    assert Job.objects.get(pk=job.pk).reverted_at is None
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/?section=analyses").content.decode()
    assert f'id="revert-stale-{job.pk}"' in page and f'action="/jobs/{job.pk}/revert/"' not in page
    response = client.post(f"/jobs/{job.pk}/revert/")
    assert response.status_code == 400 and "params.frespa.max_len_ratio" in response.content.decode()


def test_an_analysis_without_apply_has_nothing_to_apply(api, people, tuned):
    campaign, _ = tuned
    job = Job.objects.create(campaign=campaign, analysis="noise", status=Job.Status.DONE, result={"rows": []})
    refused = api(people["organiser"]).post(f"/api/jobs/{job.pk}/apply/")
    assert (refused.status_code, refused.json()["field"]) == (400, "job")
    assert Job.objects.get(pk=job.pk).applied_at is None


# -- Phase 2 of factoid campaigns ---------------------------------------------------------


@pytest.fixture
def factoids(people):
    campaign = create_campaign(creator=people["organiser"], kind="factoids", name="F", overlap=2)
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    examples = get_kind("factoids").examples
    import_topics(campaign=campaign, topics=[{"external_id": "t1", "data": dict(examples.topic)}])
    save_judgment(
        topic=campaign.topics.get(),
        assessor=people["alice"],
        payload=examples.payloads[0],
        status="submitted",
        version=0,
    )
    return campaign


def test_phase_two_is_confirmed_on_its_own_page(client, people, factoids):
    client.force_login(people["organiser"])
    report = client.get(f"/campaigns/{factoids.pk}/report/").content.decode()
    assert f'href="/campaigns/{factoids.pk}/phase/"' in report and "<form" not in report.split('id="phase-actions"')[1]
    confirm = client.get(f"/campaigns/{factoids.pk}/phase/")
    assert confirm.status_code == 200 and "Start Phase 2 of F?" in confirm.content.decode()
    assert "phase" not in Campaign.objects.get(pk=factoids.pk).params  # the page writes nothing
    assert client.post(f"/campaigns/{factoids.pk}/phase/").status_code == 302
    assert Campaign.objects.get(pk=factoids.pk).params["phase"] == 2
    report = client.get(f"/campaigns/{factoids.pk}/report/").content.decode()
    assert f'href="/campaigns/{factoids.pk}/phase/revert/"' in report


def test_phase_two_reverts_while_nothing_was_saved_in_it(client, people, factoids):
    params = Campaign.objects.get(pk=factoids.pk).params
    factoid_services.start_phase_two(campaign=factoids)
    client.force_login(people["organiser"])
    confirm = client.get(f"/campaigns/{factoids.pk}/phase/revert/").content.decode()
    assert 'id="confirm-button"' in confirm and 'id="confirm-refusal"' not in confirm
    assert client.post(f"/campaigns/{factoids.pk}/phase/revert/").status_code == 302
    assert Campaign.objects.get(pk=factoids.pk).params == params
    again = client.post(f"/campaigns/{factoids.pk}/phase/revert/")
    assert again.status_code == 400 and "Phase 1 already" in again.content.decode()


def test_phase_two_stays_once_a_judgment_was_saved_in_it(api, client, people, factoids):
    factoid_services.start_phase_two(campaign=factoids)
    examples = get_kind("factoids").examples
    save_judgment(
        topic=factoids.topics.get(), assessor=people["bob"], payload=examples.payloads[1], status="draft", version=0
    )
    refused = api(people["organiser"]).post(f"/api/campaigns/{factoids.pk}/phase/", {"phase": 1}, format="json")
    assert refused.status_code == 400 and refused.json()["field"] == "phase"
    assert "1 judgment was saved in Phase 2 (bob on t1)" in refused.json()["detail"]
    assert Campaign.objects.get(pk=factoids.pk).params["phase"] == 2
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{factoids.pk}/phase/revert/").content.decode()
    assert 'id="confirm-refusal"' in page and "bob on t1" in page and 'id="confirm-button"' not in page
