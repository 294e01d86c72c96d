"""Declaring a model judge (Membership.model_judge): the members page's switch (CSRF, organisers of
the campaign only, bad values refused naming the field), the members API, the service's checks,
removal and backups (annotate/services/members.py, annotate/organiser_views.py)."""

from __future__ import annotations

import pytest
from django.test import Client

from annotate.imports.backup import dump_campaign, load_campaign
from annotate.models import Assignment, Membership
from annotate.services.judgments import save_judgment
from annotate.services.members import remove_member, set_model_judge
from concord.errors import InvalidInput

pytestmark = pytest.mark.django_db


def flag(campaign, name: str) -> bool:
    return Membership.objects.get(campaign=campaign, user__username=name).model_judge


def switch(client, campaign, name: str, value: str, **extra):
    return client.post(
        f"/campaigns/{campaign.pk}/members/", {"action": "model_judge", "username": name, "model_judge": value}, **extra
    )


def test_an_organiser_marks_a_member_a_model_judge_and_back(client, campaign, people):
    client.force_login(people["organiser"])
    answer = switch(client, campaign, "bob", "true")
    assert (answer.status_code, answer["Location"]) == (303, f"/campaigns/{campaign.pk}/members/")
    assert flag(campaign, "bob") is True and flag(campaign, "alice") is False
    page = client.get(f"/campaigns/{campaign.pk}/members/").content.decode()
    assert "bob is now a model judge" in page and 'aria-label="Count as a person: bob"' in page
    assert switch(client, campaign, "bob", "false").status_code == 303
    assert flag(campaign, "bob") is False


def test_the_switch_needs_the_csrf_token(campaign, people):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(people["organiser"])
    assert switch(browser, campaign, "bob", "true").status_code == 403
    assert flag(campaign, "bob") is False
    token = browser.get(f"/campaigns/{campaign.pk}/members/").context["csrf_token"]
    assert switch(browser, campaign, "bob", "true", HTTP_X_CSRFTOKEN=str(token)).status_code == 303
    assert flag(campaign, "bob") is True


@pytest.mark.parametrize(("who", "status"), [("alice", 403), ("other_organiser", 404), ("outsider", 404)])
def test_only_the_campaign_s_organisers_may_switch(client, campaign, people, who, status):
    client.force_login(people[who])
    assert switch(client, campaign, "bob", "true").status_code == status
    assert flag(campaign, "bob") is False


@pytest.mark.parametrize(
    ("name", "value", "field"),
    [
        ("bob", "yes", "model_judge"),
        ("bob", "", "model_judge"),
        ("bob", "TRUE", "model_judge"),
        ("nobody", "true", "username"),
    ],
)
def test_bad_values_are_refused_naming_the_field(client, campaign, people, name, value, field):
    client.force_login(people["organiser"])
    answer = switch(client, campaign, name, value)
    assert answer.status_code == 400
    assert f"Nothing changed: {field}:" in answer.content.decode()
    assert not Membership.objects.filter(campaign=campaign, model_judge=True).exists()


def test_the_members_api_lists_and_sets_the_flag(api, campaign, people):
    organiser = api(people["organiser"])
    url = f"/api/campaigns/{campaign.pk}/members/"
    added = organiser.post(url, {"username": "gpt-4", "role": "assessor", "model_judge": True}, format="json")
    assert added.status_code == 201 and added.json()["model_judge"] is True
    assert flag(campaign, "gpt-4") is True
    listed = {m["username"]: m["model_judge"] for m in organiser.get(url).json()}
    assert listed == {"organiser": False, "alice": False, "bob": False, "gpt-4": True}
    # a role change leaves the flag as it is; a bad value adds nobody
    assert organiser.post(url, {"username": "gpt-4", "role": "assessor"}, format="json").json()["model_judge"] is True
    refused = organiser.post(url, {"username": "claude", "role": "assessor", "model_judge": "yes"}, format="json")
    assert refused.status_code == 400 and refused.json()["field"] == "model_judge"
    assert not Membership.objects.filter(campaign=campaign, user__username="claude").exists()
    assert (
        api(people["alice"]).post(url, {"username": "bob", "role": "assessor", "model_judge": True}).status_code == 403
    )


def test_the_service_checks_its_arguments(campaign):
    for arguments, field in (
        ({"username": "bob", "model_judge": "true"}, "model_judge"),
        ({"username": "bob", "model_judge": 1}, "model_judge"),
        ({"username": "carol", "model_judge": True}, "username"),  # a member of another campaign
        ({"username": ["bob"], "model_judge": True}, "username"),
    ):
        with pytest.raises(InvalidInput) as refused:
            set_model_judge(campaign=campaign, **arguments)
        assert refused.value.field == field
    assert set_model_judge(campaign=campaign, username="organiser", model_judge=True).model_judge is True


def test_a_model_judge_with_judgments_is_not_removed(campaign, people):
    """Removed, its judgments would count as a person's: the flag goes first."""
    topic = Assignment.objects.filter(topic__campaign=campaign, assessor=people["bob"]).first().topic
    save_judgment(
        topic=topic,
        assessor=people["bob"],
        payload={"matches": {c["id"]: True for c in topic.data["candidates"]}},
        status="submitted",
        version=0,
    )
    set_model_judge(campaign=campaign, username="bob", model_judge=True)
    with pytest.raises(InvalidInput, match="model judge with judgments") as refused:
        remove_member(campaign=campaign, username="bob")
    assert refused.value.field == "username" and flag(campaign, "bob") is True
    set_model_judge(campaign=campaign, username="alice", model_judge=True)
    remove_member(campaign=campaign, username="alice")  # no judgment: removed
    assert not Membership.objects.filter(campaign=campaign, user__username="alice").exists()


def test_a_backup_keeps_the_flag(campaign, people):
    set_model_judge(campaign=campaign, username="bob", model_judge=True)
    document = dump_campaign(campaign)
    assert {m["username"]: m["model_judge"] for m in document["members"]}["bob"] is True
    campaign.delete()
    restored = load_campaign(document, creator=people["admin"])
    assert flag(restored, "bob") is True and flag(restored, "alice") is False
    document["members"][0]["model_judge"] = "yes"
    with pytest.raises(InvalidInput) as refused:
        load_campaign(document, creator=people["admin"])
    assert refused.value.field == "file.members[0].model_judge"
