"""The 400, 403, 404 and 500 pages: the site's navigation, one sentence saying
why, one log line (no traceback); JSON under /api/."""

from __future__ import annotations

import logging

import pytest
from django.test import RequestFactory
from django.urls import get_resolver

from concord import error_pages
from scoring.models import Job

pytestmark = pytest.mark.django_db


def request_log(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "django.request"]


def test_an_assessor_on_an_organisers_page_gets_a_403_page_saying_why(client, people, campaign, caplog):
    client.force_login(people["alice"])
    with caplog.at_level(logging.WARNING, logger="django.request"):
        response = client.get(f"/campaigns/{campaign.pk}/jobs/")
    assert response.status_code == 403
    assert [t.name for t in response.templates][:2] == ["403.html", "base.html"]
    page = response.content.decode()
    reason = 'You are an assessor in the campaign "Names": only its organisers and admins may do this.'
    assert response.context["reason"] == reason
    assert '<p class="error" id="error-reason">You are an assessor in the campaign &quot;Names&quot;' in page
    assert '<a href="/">My campaigns</a>' in page  # the site's navigation
    assert "alice" in page  # who is logged in
    [record] = request_log(caplog)
    assert record.getMessage() == f"Forbidden: /campaigns/{campaign.pk}/jobs/ ({reason})"
    assert record.exc_info is None and record.levelname == "WARNING"


def test_an_organiser_on_the_admins_export_page_is_told_it_is_for_admins(client, people, campaign):
    client.force_login(people["organiser"])
    response = client.get(f"/campaigns/{campaign.pk}/export/")
    assert response.status_code == 403
    assert response.context["reason"] == 'You are an organiser in the campaign "Names": only admins may do this.'


def test_an_unknown_topic_gets_a_404_page_naming_it(client, people, campaign, caplog):
    client.force_login(people["alice"])
    with caplog.at_level(logging.WARNING, logger="django.request"):
        response = client.get(f"/campaigns/{campaign.pk}/topics/t9/judge/")
    assert response.status_code == 404
    assert response.templates[0].name == "404.html"
    reason = 'No topic t9 in the campaign "Names", or it is not assigned to you.'
    assert response.context["reason"] == reason
    assert "Page not found" in response.content.decode()
    [record] = request_log(caplog)
    assert record.getMessage() == f"Not found: /campaigns/{campaign.pk}/topics/t9/judge/ ({reason})"
    assert record.exc_info is None


def test_an_organiser_is_not_told_about_assignment(client, people, campaign):
    client.force_login(people["organiser"])
    response = client.get(f"/campaigns/{campaign.pk}/topics/t9/report/")
    assert response.status_code == 404
    assert response.context["reason"] == 'No topic t9 in the campaign "Names".'


def test_a_campaign_of_which_one_is_no_member_is_a_404_that_leaks_nothing(client, people, campaign):
    client.force_login(people["outsider"])
    seen = client.get(f"/campaigns/{campaign.pk}/")
    missing = client.get("/campaigns/99999/")
    assert seen.status_code == missing.status_code == 404
    assert seen.context["reason"] == f"No campaign {campaign.pk}, or you are not a member of it."
    assert missing.context["reason"] == "No campaign 99999, or you are not a member of it."


def test_an_unknown_address_gets_the_404_page(client, people):
    client.force_login(people["alice"])
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert response.context["reason"] == "There is no page at /no/such/page/."
    assert "<nav" in response.content.decode()


def test_the_api_keeps_its_json_errors(api, people, campaign, client):
    alice = api(people["alice"])
    refused = alice.get(f"/api/campaigns/{campaign.pk}/export/")
    assert refused.status_code == 403
    assert refused.json() == {"detail": 'You are an assessor in the campaign "Names": only admins may do this.'}
    missing = alice.get("/api/campaigns/99999/")
    assert missing.status_code == 404
    assert missing.json() == {"detail": "No campaign 99999, or you are not a member of it."}
    client.force_login(people["alice"])
    unknown = client.get("/api/no-such-endpoint/")
    assert unknown.status_code == 404
    assert unknown["Content-Type"] == "application/json"
    assert unknown.json() == {"detail": "There is no page at /api/no-such-endpoint/."}


def test_a_bad_request_gets_the_400_page(client, caplog):
    with caplog.at_level(logging.WARNING, logger="django.request"):
        response = client.get("/accounts/login/", HTTP_HOST="not-this-site.example")
    assert response.status_code == 400
    assert response.templates[0].name == "400.html"
    assert "Bad request" in response.content.decode()
    assert all(r.exc_info is None for r in request_log(caplog))


def test_the_500_page_needs_no_request_context():
    assert get_resolver().resolve_error_handler(500) is error_pages.server_error
    request = RequestFactory().get("/campaigns/1/")
    response = error_pages.server_error(request)
    assert response.status_code == 500
    page = response.content.decode()
    assert "Something went wrong" in page and '<a class="brand" href="/">Concord</a>' in page
    api = error_pages.server_error(RequestFactory().get("/api/campaigns/"))
    assert api.status_code == 500 and api["Content-Type"] == "application/json"


def test_a_job_of_another_campaign_reads_as_missing(client, people, campaign):
    job = Job.objects.create(campaign=campaign, analysis="agreement", params={}, created_by=people["organiser"])
    client.force_login(people["other_organiser"])
    theirs = client.get(f"/jobs/{job.pk}/")
    missing = client.get("/jobs/99999/")
    assert theirs.status_code == missing.status_code == 404
    assert theirs.context["reason"] == f"No job {job.pk}, or you are not a member of its campaign."
    assert missing.context["reason"] == "No job 99999, or you are not a member of its campaign."
    client.force_login(people["alice"])
    assert client.get(f"/jobs/{job.pk}/").context["reason"] == (
        'You are an assessor in the campaign "Names": only its organisers and admins may do this.'
    )


@pytest.mark.django_db
def test_a_refused_csrf_token_gets_the_sites_403_page_with_what_to_do(people):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(people["organiser"])
    response = client.post("/campaigns/new/", {"kind": "pairs", "name": "X"})
    page = response.content.decode()
    assert response.status_code == 403 and "security token is missing or out of date" in page
    assert "Reload the page" in page and 'href="/"' in page
