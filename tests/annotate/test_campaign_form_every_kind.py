"""The new-campaign form of every kind, submitted as a browser sends it (every control
it shows, prefilled with its default), creates the campaign: a param refused outside
its design (the adaptive design's) must not refuse its own default, which the form
always sends (found by the browser lifecycle test: pairs campaigns could not be
created in the browser)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from annotate.models import Campaign
from kinds.registry import KINDS

pytestmark = pytest.mark.django_db


class FormValues(HTMLParser):
    """The values a browser submits for the page's form: inputs, checked boxes, selected options."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, str] = {}
        self.select: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        name = a.get("name")
        if tag == "input" and name and a.get("type") not in ("submit", "checkbox", "radio"):
            self.values[name] = a.get("value") or ""
        elif tag == "input" and name and "checked" in a:
            self.values[name] = a.get("value") or "on"
        elif tag == "select":
            self.select = name
        elif tag == "option" and self.select and ("selected" in a or self.select not in self.values):
            self.values[self.select] = a.get("value") or ""

    def handle_endtag(self, tag):
        if tag == "select":
            self.select = None


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_form_as_sent_creates_the_campaign(client, people, kind):
    client.force_login(people["organiser"])
    form = FormValues()
    form.feed(client.get(f"/campaigns/new/?kind={kind}").content.decode())
    values = {**form.values, "kind": kind, "name": f"Form {kind}", "overlap": "2"}
    response = client.post("/campaigns/new/", values)
    assert response.status_code == 302, response.content.decode()[:2000]
    campaign = Campaign.objects.get(name=f"Form {kind}")
    assert campaign.kind == kind and response["Location"] == f"/campaigns/{campaign.pk}/"


def test_a_non_default_adaptive_param_is_still_refused_outside_the_design(client, people):
    client.force_login(people["organiser"])
    form = FormValues()
    form.feed(client.get("/campaigns/new/?kind=pairs").content.decode())
    name = next(key for key in form.values if key.endswith("adaptive_by"))
    values = {**form.values, "kind": "pairs", "name": "Form margin", "overlap": "2", name: "margin"}
    response = client.post("/campaigns/new/", values)
    assert response.status_code == 400 and b"params.adaptive_by" in response.content
    assert not Campaign.objects.filter(name="Form margin").exists()


def test_without_scripts_the_adaptive_settings_show_under_a_heading_and_post_works(client, people):
    client.force_login(people["organiser"])
    page = client.get("/campaigns/new/?kind=pairs").content.decode()
    assert "Only when “How topics are handed out” is adaptive" in page
    assert ">Opinions per item, at most<" in page and "budget per item" not in page
    assert "/help/adaptive/#adaptive-design" in page and "README" not in page
    form = FormValues()
    form.feed(page)
    values = {
        **form.values,
        "kind": "pairs",
        "name": "Adaptive without JS",
        "overlap": "2",
        "params.design": "adaptive",
        "params.adaptive_by": "margin",
        "params.margin": "3",
    }
    assert client.post("/campaigns/new/", values).status_code == 302
    params = Campaign.objects.get(name="Adaptive without JS").params
    assert (params["design"], params["adaptive_by"], params["margin"]) == ("adaptive", "margin", 3)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_organisers_get_no_demo_checkbox_and_cannot_set_it_by_form(client, people, kind):
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/new/?kind={kind}").content.decode()
    assert "params.demo" not in page and "demo campaign" not in page
    form = FormValues()
    form.feed(page)
    values = {**form.values, "kind": kind, "name": f"Not demo {kind}", "overlap": "2", "params.demo": "1"}
    assert client.post("/campaigns/new/", values).status_code == 302
    assert "demo" not in Campaign.objects.get(name=f"Not demo {kind}").params
