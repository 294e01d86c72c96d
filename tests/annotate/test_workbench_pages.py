"""The organiser's workbench in pages: creating a campaign
with its kind's params form, running an analysis with its params form, and
Markdown guidelines. The pages call the same services (and params schemas) as
the API, so they accept and refuse exactly the same values."""

from __future__ import annotations

import pytest

from annotate.models import Campaign
from kinds.registry import KINDS
from scoring.models import Job

pytestmark = pytest.mark.django_db


def test_the_new_campaign_page_lists_every_kind_and_builds_its_params_form(client, people):
    client.force_login(people["organiser"])
    page = client.get("/campaigns/new/").content.decode()
    assert all(f"?kind={name}" in page and spec.label in page for name, spec in KINDS.items())
    form = client.get("/campaigns/new/", {"kind": "ordering"}).content.decode()
    # The nested FreSPA object becomes one control per field, with its bounds and help.
    assert 'name="params.frespa.min_sup"' in form and 'value="0.75"' in form and 'max="1.0"' in form
    assert "Minimum support of a frequent pattern" in form
    nuggets = client.get("/campaigns/new/", {"kind": "nuggets"}).content.decode()
    assert nuggets.count('type="checkbox" name="params.tasks"') == 2  # labels, matches


def test_creating_a_campaign_in_the_browser_stores_the_checked_params(client, people):
    client.force_login(people["organiser"])
    response = client.post(
        "/campaigns/new/",
        {
            "kind": "ordering",
            "name": "Summaries by hand",
            "guidelines": "Order by **importance**.",
            "overlap": "3",
            "params.frespa.min_sup": "0.5",
            "params.frespa.w_len": "",  # empty: the default applies
            "params.design": "overlap",
        },
    )
    campaign = Campaign.objects.get(name="Summaries by hand")
    assert response.status_code == 302 and response["Location"] == f"/campaigns/{campaign.pk}/"
    assert campaign.kind == "ordering" and campaign.overlap == 3
    assert campaign.params["frespa"]["min_sup"] == 0.5 and campaign.params["frespa"]["w_len"] == 1.0
    assert campaign.memberships.get(user=people["organiser"]).role == "organiser"

    nuggets = client.post(
        "/campaigns/new/",
        {"kind": "nuggets", "name": "Both tasks", "overlap": "2", "params.tasks": ["labels", "matches"]},
    )
    assert nuggets.status_code == 302
    assert Campaign.objects.get(name="Both tasks").params["tasks"] == ["labels", "matches"]


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"params.frespa.min_sup": "2"}, "params.frespa.min_sup"),
        ({"params.frespa.min_sup": "a half"}, "params.frespa.min_sup"),
        ({"params.frespa.min_sup": "nan"}, "params.frespa.min_sup"),
        ({"params.design": "one-per-item"}, "params.design"),
        ({"overlap": "0"}, "overlap"),
        ({"overlap": "two"}, "overlap"),
        ({"name": "   "}, "name"),
    ],
)
def test_bad_values_are_refused_at_their_field_and_nothing_is_created(client, people, data, field):
    client.force_login(people["organiser"])
    before = Campaign.objects.count()
    response = client.post("/campaigns/new/", {"kind": "ordering", "name": "X", "overlap": "2", **data})
    assert response.status_code == 400
    page = response.content.decode()
    assert f"Not created: {field}:" in page
    assert Campaign.objects.count() == before


def test_only_people_who_may_create_campaigns_see_the_page(client, people):
    client.force_login(people["alice"])
    assert client.get("/campaigns/new/").status_code == 403
    assert client.post("/campaigns/new/", {"kind": "pairs", "name": "X"}).status_code == 403
    assert not Campaign.objects.filter(name="X").exists()
    assert "New campaign" not in client.get("/").content.decode()
    client.force_login(people["organiser"])
    assert "New campaign" in client.get("/").content.decode()


def test_an_analysis_runs_with_the_params_typed_into_its_form(client, people, django_capture_on_commit_callbacks):
    client.force_login(people["organiser"])
    client.post("/campaigns/new/", {"kind": "ordering", "name": "O", "overlap": "2"})
    campaign = Campaign.objects.get(name="O")
    # Ready to run: one topic ordered by two assessors.
    from annotate.imports.write import import_topics
    from annotate.services.judgments import save_judgment
    from annotate.services.members import add_member

    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    items = [{"id": f"s{i}", "text": f"Sentence {i}."} for i in range(1, 5)]
    (topic,) = import_topics(campaign=campaign, topics=[{"external_id": "t1", "title": "T", "data": {"items": items}}])
    for name in ("alice", "bob"):
        save_judgment(
            topic=topic,
            assessor=people[name],
            payload={"order": [i["id"] for i in items]},
            status="submitted",
            version=0,
        )
    page = client.get(f"/campaigns/{campaign.pk}/?section=analyses").content.decode()
    # One form per analysis, its controls' ids unique on the page.
    assert 'id="f-noise-params-seeds"' in page
    assert page.count('name="params.seeds"') == 1
    response = client.post(
        f"/campaigns/{campaign.pk}/analyses/",
        {"analysis": "noise", "params.seeds": "3", "params.ratios": "0\n0.5\n"},
    )
    job = Job.objects.get(campaign=campaign)
    assert response.status_code == 302 and response["Location"] == f"/jobs/{job.pk}/"
    assert job.params == {"ratios": [0.0, 0.5], "seeds": 3}

    refused = client.post(f"/campaigns/{campaign.pk}/analyses/", {"analysis": "noise", "params.seeds": "0"})
    assert refused.status_code == 400 and "params.seeds" in refused.content.decode()
    assert Job.objects.filter(campaign=campaign).count() == 1


def test_the_agreement_analysis_page_says_what_it_did_in_words(client, campaign, people):
    job = Job.objects.create(campaign=campaign, analysis="agreement", status="done", result={"topic_reports": 1})
    client.force_login(people["organiser"])
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert "1 topic report and the campaign report" in page and "{&#x27;topic_reports" not in page


def test_guidelines_are_markdown_and_sanitised_on_the_assessors_pages(client, people):
    from annotate.services.campaigns import create_campaign
    from annotate.services.members import add_member

    campaign = create_campaign(
        creator=people["organiser"],
        kind="pairs",
        name="G",
        guidelines="A **match** is the same person.\n\n<script>alert(1)</script> [x](javascript:alert(1))",
    )
    add_member(campaign=campaign, username="alice", role="assessor")
    client.force_login(people["alice"])
    page = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert "A <strong>match</strong> is the same person." in page
    assert "<script>alert" not in page and 'href="javascript:' not in page


def test_analyses_that_cannot_run_say_why_instead_of_offering_a_form(client, campaign, people):
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/?section=analyses").content.decode()
    assert "Not yet: needs the results of at least two systems (runs with results)." in page
    assert "Run evaluation" not in page and "Run agreement" in page
    refused = client.post(f"/campaigns/{campaign.pk}/analyses/", {"analysis": "evaluation"})
    assert refused.status_code == 400 and "cannot run on this campaign yet" in refused.content.decode()
    assert not Job.objects.filter(campaign=campaign).exists()


def test_progress_per_assessor_is_a_live_fragment(client, campaign, people):
    from annotate.services.judgments import save_judgment

    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/?section=progress").content.decode()
    assert f'hx-get="/campaigns/{campaign.pk}/progress/"' in page
    topic = campaign.topics.filter(assignments__assessor=people["alice"]).first()
    save_judgment(
        topic=topic,
        assessor=people["alice"],
        payload={"matches": {c["id"]: False for c in topic.data["candidates"]}},
        status="submitted",
        version=0,
    )
    fragment = client.get(f"/campaigns/{campaign.pk}/progress/").content.decode()
    row = next(line for line in fragment.splitlines() if "<td>alice</td>" in line)
    assert "<td>3</td><td>0</td><td>1</td>" in row  # assigned, drafts, submitted
    client.force_login(people["alice"])
    assert client.get(f"/campaigns/{campaign.pk}/progress/").status_code == 403
