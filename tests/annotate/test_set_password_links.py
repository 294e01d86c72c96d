"""Set-password links (annotate/services/accounts.py): checked again
when used, void once the account's standing changes, expiring, single-use, and
never in a URL the server sees. And what an organiser learns of an account."""

from __future__ import annotations

import logging
import re
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.signals import request_started

from annotate.models import Assignment, Campaign, Membership
from annotate.services import accounts
from annotate.services.campaigns import create_campaign
from annotate.services.members import add_member, remove_member

pytestmark = pytest.mark.django_db
User = get_user_model()
PASSWORD = "a long sentence 42"


def members_url(campaign) -> str:
    return f"/campaigns/{campaign.pk}/members/"


def make_link(client, campaign, organiser, username: str) -> str:
    client.force_login(organiser)
    page = client.post(members_url(campaign), {"action": "link", "username": username}, follow=True)
    assert page.redirect_chain == [(members_url(campaign), 303)], page.content.decode()[:500]
    return re.search(r'value="(http://testserver/accounts/set-password/#[^"]+)"', page.content.decode()).group(1)


def use_link(client, link: str, password: str = PASSWORD):
    """What the page's script and the person do: post the fragment, then choose a password."""
    client.logout()
    opened = client.post("/accounts/set-password/", {"action": "open", "link": urlsplit(link).fragment})
    assert opened.status_code == 302 and opened["Location"] == "/accounts/set-password/"
    return client.post(
        "/accounts/set-password/", {"action": "set", "new_password1": password, "new_password2": password}
    )


def added_by_organiser(campaign, name: str = "newbie") -> User:
    add_member(campaign=campaign, username=name, role="assessor")
    return User.objects.get(username=name)


def test_a_link_sets_the_password_once(client, campaign, people):
    added_by_organiser(campaign)
    link = make_link(client, campaign, people["organiser"], "newbie")
    client.logout()
    client.post("/accounts/set-password/", {"action": "open", "link": urlsplit(link).fragment})
    form = client.get("/accounts/set-password/").content.decode()
    assert "For <strong>newbie</strong>" in form
    done = client.post(
        "/accounts/set-password/", {"action": "set", "new_password1": PASSWORD, "new_password2": PASSWORD}
    )
    assert done.status_code == 302 and done["Location"] == "/accounts/reset/done/"
    assert authenticate(username="newbie", password=PASSWORD) is not None
    # Single use: the same link again, even in a fresh session, sets nothing.
    again = use_link(client, link, "another long sentence 7")
    assert again.status_code == 400 and "does not work any more" in again.content.decode()
    assert authenticate(username="newbie", password=PASSWORD) is not None


def test_the_token_is_only_in_the_fragment_and_never_reaches_a_log(client, campaign, people, caplog):
    added_by_organiser(campaign)
    link = make_link(client, campaign, people["organiser"], "newbie")
    parts = urlsplit(link)
    assert (parts.path, parts.query) == ("/accounts/set-password/", "")
    token = parts.fragment.rsplit(".", 1)[1]
    seen = []

    def record(sender, environ, **kwargs):
        seen.append(" ".join(environ.get(key, "") for key in ("PATH_INFO", "QUERY_STRING", "HTTP_REFERER")))

    request_started.connect(record)
    caplog.set_level(logging.DEBUG)
    try:
        use_link(client, link, "short")  # refused (too short): a 400, which Django logs
        use_link(client, link)
    finally:
        request_started.disconnect(record)
    assert len(seen) == 4 and not any(token in line for line in seen)
    assert token not in caplog.text and "Bad Request: /accounts/set-password/" in caplog.text
    assert authenticate(username="newbie", password=PASSWORD) is not None


def elsewhere(people):
    """The other organiser's campaign (the root conftest.py), with one topic for one assessor."""
    return Campaign.objects.get(name="Elsewhere")


def add_on_page(client, campaign, organiser, usernames: str, role: str = "assessor") -> str:
    """Add names on the members page as ``organiser``; what the page then says."""
    client.force_login(organiser)
    added = client.post(members_url(campaign), {"action": "add", "usernames": usernames, "role": role}, follow=True)
    assert added.redirect_chain == [(members_url(campaign), 303)], added.content.decode()[:500]
    return added.content.decode()


def test_another_organisers_adding_neither_voids_an_invitation_nor_learns_of_it(client, campaign, people):
    """Organiser A invites xavier and makes the link; organiser B, of another campaign,
    adds xavier too. B is told what a brand-new name tells; A's link and a new one
    from A both work; used, xavier is a member of A's campaign and no longer of B's."""
    a, b, theirs = people["organiser"], people["other_organiser"], elsewhere(people)
    add_on_page(client, campaign, a, "xavier")
    link = make_link(client, campaign, a, "xavier")
    told = add_on_page(client, theirs, b, "xavier yvonne")
    assert "xavier, yvonne: new account: no password yet, make it a set-password link." in told
    said = {row["username"]: row["account"] for row in client.get(f"/api/campaigns/{theirs.pk}/members/").json()}
    assert said["xavier"] == said["yvonne"] == "new"
    theirs_link = make_link(client, theirs, b, "xavier")  # B's own invitation, as for yvonne
    assert urlsplit(make_link(client, campaign, a, "xavier")).fragment  # A's new link is not refused
    done = use_link(client, link)
    assert done.status_code == 302 and done["Location"] == "/accounts/reset/done/"
    xavier = authenticate(username="xavier", password=PASSWORD)
    assert xavier is not None
    assert set(Membership.objects.filter(user=xavier).values_list("campaign__name", flat=True)) == {"Names"}
    assert use_link(client, theirs_link, "another long sentence 7").status_code == 400
    assert authenticate(username="xavier", password=PASSWORD) is not None
    # Now an account someone signs in with: B adding the name again learns that much.
    assert "xavier: existing account" in add_on_page(client, theirs, b, "xavier")


def test_the_first_invitation_claimed_decides_and_gets_no_one_into_the_other_campaign(client, campaign, people):
    """The other way round: B's link used first. xavier is B's campaign's member only;
    A's invitation is withdrawn and A's link is void, so B got nobody into A's campaign."""
    a, b, theirs = people["organiser"], people["other_organiser"], elsewhere(people)
    add_on_page(client, campaign, a, "xavier")
    link = make_link(client, campaign, a, "xavier")
    add_on_page(client, theirs, b, "xavier", role="organiser")
    assert use_link(client, make_link(client, theirs, b, "xavier")).status_code == 302
    xavier = User.objects.get(username="xavier")
    assert set(Membership.objects.filter(user=xavier).values_list("campaign__name", "role")) == {
        ("Elsewhere", "organiser")
    }
    assert not Assignment.objects.filter(topic__campaign=campaign, assessor=xavier).exists()
    for topic in campaign.topics.all():  # topped up by the others
        assert Assignment.objects.filter(topic=topic).count() == campaign.overlap
    assert use_link(client, link, "another long sentence 7").status_code == 400
    client.force_login(a)
    assert "xavier" not in client.get(members_url(campaign)).content.decode()


def test_a_link_grants_the_campaigns_of_its_maker_only(client, campaign, people):
    """victim1 was only this campaign's assessor when the link was made; another
    organiser then made the name an organiser of theirs. The link still works, and
    what it grants is this campaign: the other organiser's invitation is withdrawn."""
    added_by_organiser(campaign, "victim1")
    link = make_link(client, campaign, people["organiser"], "victim1")
    add_member(campaign=elsewhere(people), username="victim1", role="organiser")
    assert use_link(client, link).status_code == 302
    victim = User.objects.get(username="victim1")
    assert list(Membership.objects.filter(user=victim).values_list("campaign__name", "role")) == [("Names", "assessor")]
    assert Membership.objects.filter(campaign=elsewhere(people), role="organiser").count() == 1


def test_a_link_is_void_once_what_it_grants_changes(client, campaign, people):
    """A change of role in the maker's campaign voids the link (the token covers it)."""
    added_by_organiser(campaign, "victim3")
    link = make_link(client, campaign, people["organiser"], "victim3")
    add_member(campaign=campaign, username="victim3", role="adjudicator")
    assert use_link(client, link).status_code == 400
    assert not User.objects.get(username="victim3").has_usable_password()


def test_a_link_is_void_once_the_account_is_staff(client, campaign, people):
    victim = added_by_organiser(campaign, "victim2")
    link = make_link(client, campaign, people["organiser"], "victim2")
    victim.is_staff = True
    victim.save()
    assert use_link(client, link).status_code == 400
    assert not User.objects.get(username="victim2").has_usable_password()


def test_a_removed_name_added_by_someone_else_is_nobody_elses_to_take(client, campaign, people):
    """The organiser added then removed newcolleague, keeping the link; later
    another organiser adds that name to their campaign."""
    added_by_organiser(campaign, "newcolleague")
    link = make_link(client, campaign, people["organiser"], "newcolleague")
    remove_member(campaign=campaign, username="newcolleague")
    theirs = create_campaign(creator=people["other_organiser"], kind="pairs", name="Theirs")
    client.force_login(people["other_organiser"])
    client.post(members_url(theirs), {"action": "add", "usernames": "newcolleague", "role": "assessor"})
    told = client.get(members_url(theirs)).content.decode()
    assert "newcolleague: existing account: they sign in with their own password." in told
    refused = client.post(members_url(theirs), {"action": "link", "username": "newcolleague"})
    assert refused.status_code == 400 and "set-password/#" not in refused.content.decode()
    assert use_link(client, link).status_code == 400
    assert not User.objects.get(username="newcolleague").has_usable_password()


def test_using_a_link_checks_again_that_its_maker_may_make_it(client, campaign, people):
    """What the token does not cover: the maker's own standing. Once the organiser
    no longer organises the account's campaign, their link is void."""
    added_by_organiser(campaign)
    link = make_link(client, campaign, people["organiser"], "newbie")
    add_member(campaign=campaign, username="other_organiser", role="organiser")
    remove_member(campaign=campaign, username="organiser")
    assert use_link(client, link).status_code == 400
    assert not User.objects.get(username="newbie").has_usable_password()


def test_a_link_expires_after_the_setting(client, campaign, people, settings, monkeypatch):
    added_by_organiser(campaign)
    link = make_link(client, campaign, people["organiser"], "newbie")
    later = accounts.SetPasswordTokens._now(accounts.SetPasswordTokens(people["organiser"]))
    monkeypatch.setattr(
        accounts.SetPasswordTokens,
        "_now",
        lambda self: later + timedelta(days=settings.CONCORD_SET_PASSWORD_LINK_DAYS, seconds=1),
    )
    assert use_link(client, link).status_code == 400
    monkeypatch.setattr(accounts.SetPasswordTokens, "_now", lambda self: later + timedelta(days=2, hours=23))
    assert use_link(client, link).status_code == 302


def test_a_forged_or_mangled_code_is_void(client, campaign, people):
    added_by_organiser(campaign)
    code = urlsplit(make_link(client, campaign, people["organiser"], "newbie")).fragment
    uid, issuer, token = code.split(".")
    admin_id = accounts.urlsafe_base64_encode(str(people["admin"].pk).encode())
    for forged in (f"{uid}.{admin_id}.{token}", f"{uid}.{issuer}.{token[:-1]}x", "x.y.z", "٣.٣.٣", code + "." + code):
        assert accounts.link_holder(forged) is None, forged
    assert accounts.link_holder(code).get_username() == "newbie"


def test_what_an_organiser_learns_of_an_account_is_the_same_on_every_path(client, api, campaign, people):
    """Adding says new or existing and nothing more (not staff, inactive, password,
    other campaigns); the table and the API say the same."""
    people["bob"].is_active = False
    people["bob"].save()
    client.force_login(people["organiser"])
    added = client.post(
        members_url(campaign), {"action": "add", "usernames": "admin newbie bob carol", "role": "assessor"}, follow=True
    ).content.decode()
    assert "newbie: new account: no password yet, make it a set-password link." in added
    assert "admin, bob, carol: existing account: they sign in with their own password." in added
    said = {
        row["username"]: row["account"]
        for row in api(people["organiser"]).get(f"/api/campaigns/{campaign.pk}/members/").json()
    }
    assert said == {
        "organiser": "existing", "alice": "existing", "bob": "existing", "admin": "existing", "carol": "existing",
        "newbie": "new",
    }  # fmt: skip
    for word in ("staff", "inactive", "can log in", "no password yet</td>"):
        assert word not in added
    made = api(people["organiser"]).post(
        f"/api/campaigns/{campaign.pk}/members/", {"username": "dora", "role": "assessor"}, format="json"
    )
    assert made.status_code == 201 and made.json()["account"] == "new"
    assert Membership.objects.get(campaign=campaign, user__username="dora").created_account


def test_a_name_differing_only_in_case_from_an_account_is_refused_as_imports_refuse_it(api, campaign, people):
    refused = api(people["organiser"]).post(
        f"/api/campaigns/{campaign.pk}/members/", {"username": "Alice", "role": "assessor"}, format="json"
    )
    assert refused.status_code == 400 and refused.json()["field"] == "username"
    assert "differs only in case from an existing account" in refused.json()["detail"]
    assert not User.objects.filter(username="Alice").exists()
