"""The new-campaign form shows the adaptive design's settings only while the design
is adaptive (static/annotate/disclosure.js), and what is typed there is stored."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotate.models import Campaign

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_adaptive_settings_appear_with_the_design_and_are_stored(new_page, live_server, login, people):
    page = new_page()
    login(page, "organiser")
    page.goto(f"{live_server.url}/campaigns/new/?kind=pairs")
    budget = page.get_by_label("Opinions per item, at most")
    expect(budget).to_be_hidden()
    expect(page.get_by_label("Marks a demo campaign")).to_have_count(0)

    design = page.get_by_label("How topics are handed out")
    design.select_option("adaptive")
    expect(budget).to_be_visible()
    page.get_by_label("Certainty measured by").select_option("margin")
    page.get_by_label("Enough when the vote margin reaches").fill("3")
    budget.fill("7")
    design.select_option("overlap")  # hidden again: its values are not sent ...
    expect(budget).to_be_hidden()
    design.select_option("adaptive")  # ... until the design applies again
    page.get_by_label("Name").fill("Adaptive by form")
    page.get_by_role("button", name="Create the campaign").click()
    page.wait_for_url(f"{live_server.url}/campaigns/*/")

    params = Campaign.objects.get(name="Adaptive by form").params
    assert (params["design"], params["adaptive_by"], params["margin"], params["budget_per_item"]) == (
        "adaptive",
        "margin",
        3,
        7,
    )


def test_a_value_left_in_a_hidden_setting_does_not_refuse_the_form(new_page, live_server, login, people):
    page = new_page()
    login(page, "organiser")
    page.goto(f"{live_server.url}/campaigns/new/?kind=pairs")
    design = page.get_by_label("How topics are handed out")
    design.select_option("adaptive")
    page.get_by_label("Opinions per item, at most").fill("7")
    design.select_option("one-per-item")
    page.get_by_label("Name").fill("Split by form")
    page.get_by_role("button", name="Create the campaign").click()
    page.wait_for_url(f"{live_server.url}/campaigns/*/")
    params = Campaign.objects.get(name="Split by form").params
    assert params["design"] == "one-per-item" and "budget_per_item" not in params
