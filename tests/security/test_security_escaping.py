"""Error pages built from what a user sent show it as text, never as markup.

The pages' 400s (analyses, exports, phase two) render through one escaped
message page; none answers with the user's text as raw HTML."""

from __future__ import annotations

import pytest
from django.test import Client

from annotate.models import Campaign
from scoring.models import Job

pytestmark = pytest.mark.django_db

MARKUP = '<script>alert(1)</script><img src=x onerror="alert(2)">'


@pytest.fixture
def organiser(people) -> Client:
    client = Client()
    client.force_login(people["organiser"])
    return client


def assert_escaped(response) -> None:
    text = response.content.decode()
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")
    assert "<script>alert(1)" not in text and "<img src=x" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text


def test_an_unknown_analysis_is_shown_escaped(organiser, world):
    jobs = Job.objects.count()
    response = organiser.post(f"/campaigns/{world.campaign.pk}/analyses/", {"analysis": MARKUP})
    assert_escaped(response)
    assert "analysis" in response.content.decode()
    assert Job.objects.count() == jobs


def test_an_unknown_export_is_shown_escaped(people, world):
    admin = Client()
    admin.force_login(people["admin"])
    for query in ({"truth": MARKUP, "format": "json"}, {"format": MARKUP}):
        response = admin.get(f"/campaigns/{world.campaign.pk}/export/download/", query)
        assert_escaped(response)


def test_phase_two_refusal_is_a_page(organiser, world):
    assert organiser.post(f"/campaigns/{world.campaign.pk}/phase/").status_code == 302
    params = Campaign.objects.get(pk=world.campaign.pk).params
    response = organiser.post(f"/campaigns/{world.campaign.pk}/phase/")
    assert response.status_code == 400 and response["Content-Type"].startswith("text/html")
    assert "Phase 2 already" in response.content.decode()
    assert Campaign.objects.get(pk=world.campaign.pk).params == params
