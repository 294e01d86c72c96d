"""The members page: add one or a pasted list, change
roles, remove, and one-time set-password links (the links themselves:
test_set_password_links.py)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from annotate.models import Assignment, Judgment, Membership
from annotate.organiser_views import parse_usernames
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member

pytestmark = pytest.mark.django_db
User = get_user_model()


def test_a_pasted_list_adds_every_name_or_nobody(client, campaign, people):
    client.force_login(people["organiser"])
    url = f"/campaigns/{campaign.pk}/members/"
    response = client.post(url, {"action": "add", "usernames": "dora, erik\nfrank", "role": "assessor"})
    # Redirect after the POST (a reload adds nobody again); the page that follows shows the three
    # new accounts' set-password links, once (tested in test_set_password_links).
    assert (response.status_code, response["Location"]) == (303, url)
    shown = client.get(url).content.decode()
    assert 'id="copy-links"' in shown and shown.count("/accounts/set-password/#") == 3
    again = client.get(url).content.decode()
    assert 'id="copy-links"' not in again and "/accounts/set-password/#" not in again
    assert set(campaign.memberships.filter(role="assessor").values_list("user__username", flat=True)) == {
        "alice", "bob", "dora", "erik", "frank"
    }  # fmt: skip
    before = Membership.objects.count()
    refused = client.post(url, {"action": "add", "usernames": "gina bad/name", "role": "assessor"})
    assert refused.status_code == 400 and "usernames[1]" in refused.content.decode()
    assert Membership.objects.count() == before and not User.objects.filter(username="gina").exists()
    assert parse_usernames(" a;b ,, a\n\nc ") == ["a", "b", "c"]


def test_roles_change_and_the_last_organiser_stays(client, campaign, people):
    client.force_login(people["organiser"])
    url = f"/campaigns/{campaign.pk}/members/"
    assert client.post(url, {"action": "role", "username": "bob", "role": "organiser"}).status_code == 303
    assert campaign.memberships.get(user__username="bob").role == "organiser"
    client.post(url, {"action": "role", "username": "bob", "role": "assessor"})
    refused = client.post(url, {"action": "remove", "username": "organiser"})
    assert refused.status_code == 400 and "last organiser" in refused.content.decode()
    assert campaign.memberships.filter(user__username="organiser", role="organiser").exists()


def test_removing_an_assessor_keeps_their_judgments_and_reassigns_the_rest(client, campaign, people):
    add_member(campaign=campaign, username="carol", role="assessor")
    judged = Assignment.objects.filter(topic__campaign=campaign, assessor=people["bob"]).first().topic
    save_judgment(
        topic=judged,
        assessor=people["bob"],
        payload={"matches": {c["id"]: True for c in judged.data["candidates"]}},
        status="submitted",
        version=0,
    )
    unjudged = set(
        Assignment.objects.filter(topic__campaign=campaign, assessor=people["bob"])
        .exclude(topic=judged)
        .values_list("topic_id", flat=True)
    )
    client.force_login(people["organiser"])
    assert client.post(f"/campaigns/{campaign.pk}/members/", {"action": "remove", "username": "bob"}).status_code == 303
    assert not campaign.memberships.filter(user__username="bob").exists()
    assert Judgment.objects.filter(topic=judged, assessor=people["bob"], status="submitted").exists()
    assert Assignment.objects.filter(topic=judged, assessor=people["bob"]).exists()  # judged: kept
    assert not Assignment.objects.filter(topic_id__in=unjudged, assessor=people["bob"]).exists()
    for topic_id in unjudged:  # topped up by the others
        assert Assignment.objects.filter(topic_id=topic_id).count() == campaign.overlap


@pytest.mark.parametrize("who", ["alice", "imported_elsewhere", "admin"])
def test_no_link_for_accounts_that_can_log_in_or_are_no_invitation(client, campaign, people, who):
    if who == "imported_elsewhere":
        # An account without a password that an import of another campaign created.
        other = create_campaign(creator=people["other_organiser"], kind="pairs", name="Other")
        add_member(campaign=other, username=who, role="assessor")
        Membership.objects.filter(campaign=other, user__username=who).update(imported=True)
    add_member(campaign=campaign, username=who, role="assessor")
    client.force_login(people["organiser"])
    response = client.post(f"/campaigns/{campaign.pk}/members/", {"action": "link", "username": who})
    assert response.status_code == 400 and "no link for" in response.content.decode()
    assert "/accounts/set-password/#" not in response.content.decode()


def test_only_organisers_of_the_campaign_manage_its_members(client, campaign, people):
    for name in ("alice", "other_organiser"):
        client.force_login(people[name])
        response = client.post(
            f"/campaigns/{campaign.pk}/members/", {"action": "add", "usernames": "mallory", "role": "organiser"}
        )
        assert response.status_code in (403, 404)
    assert not User.objects.filter(username="mallory").exists()
