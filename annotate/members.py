"""Services for a campaign's members beyond adding one (annotate.services.add_member):
adding many at once, removing one, claiming an invitation with a set-password
link, and the members page's rows. What the page says of each account, and its
set-password links, are annotate.accounts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.forms import SetPasswordForm
from django.db import transaction

from annotate import accounts, changes
from annotate.models import Assignment, Campaign, Judgment, Membership
from annotate.services import add_member, assign_topics, require_username
from concord.errors import InvalidInput

User = get_user_model()

#: Most names one paste may add (each one is a row and a topic top-up).
MAX_BULK = 500


def parse_usernames(text: str) -> list[str]:
    """Names from a pasted list: one per line, or separated by commas, spaces or semicolons; repeats once.

    >>> parse_usernames("alice, bob\\ncarol;  alice")
    ['alice', 'bob', 'carol']
    """
    names: list[str] = []
    for name in re.split(r"[\s,;]+", text or ""):
        if name and name not in names:
            names.append(name)
    return names


@transaction.atomic
def add_members(*, campaign: Campaign, usernames: list[str], role: str) -> list[Membership]:
    """Add every name (or change its role), all or nothing: one bad name and
    nobody is added (InvalidInput names its position)."""
    if not usernames:
        raise InvalidInput("usernames", "no user name given")
    if len(usernames) > MAX_BULK:
        raise InvalidInput("usernames", f"at most {MAX_BULK} names at once, got {len(usernames)}")
    for index, name in enumerate(usernames):
        require_username(User.normalize_username(name.strip()), f"usernames[{index}]", what="user")
    return [add_member(campaign=campaign, username=name, role=role) for name in usernames]


@transaction.atomic
def remove_member(*, campaign: Campaign, username: str) -> None:
    """Remove a member. Their judgments stay (nothing judged is ever lost) and
    keep counting; their assignments without any judgment go back to the pool
    and topics are topped up to the overlap by the others. The last organiser
    cannot be removed."""
    membership = (
        Membership.objects.select_for_update()
        .filter(campaign=campaign, user__username=username)
        .select_related("user")
        .first()
    )
    if membership is None:
        raise InvalidInput("username", f"{username!r} is not a member of this campaign")
    if membership.role == Membership.Role.ORGANISER:
        organisers = Membership.objects.filter(campaign=campaign, role=Membership.Role.ORGANISER).count()
        if organisers == 1:
            raise InvalidInput(
                "username", f"{username!r} is the campaign's last organiser: make someone else organiser first"
            )
    _drop(membership)


def _drop(membership: Membership) -> None:
    """Remove ``membership`` as :func:`remove_member` does: judgments stay, unjudged
    assignments go back to the pool, the others top the campaign's topics up."""
    campaign = membership.campaign
    judged = Judgment.objects.filter(topic__campaign=campaign, assessor=membership.user).values("topic_id")
    Assignment.objects.filter(topic__campaign=campaign, assessor=membership.user).exclude(topic_id__in=judged).delete()
    membership.delete()
    assign_topics(campaign)
    changes.progress_changed(campaign.pk)


@transaction.atomic
def claim_account(*, code: str, form: SetPasswordForm) -> AbstractBaseUser | None:
    """Set the password of a set-password link's account (accounts.choose_password),
    then withdraw its invitations to campaigns the link's maker does not organise:
    they were other organisers' invitations of the same name, and the person the
    maker gave the link to gets into the maker's campaigns only. Should one of them
    be its campaign's last organiser, the campaign is left to the admins rather
    than to someone nobody there invited. None: the link is void."""
    user, maker = accounts.choose_password(code=code, form=form)
    if user is None:
        return None
    kept = accounts.organised_by(maker).filter(user=user).values("pk")
    others = Membership.objects.select_for_update().filter(user=user).exclude(pk__in=kept).select_related("campaign")
    for membership in others:
        _drop(membership)
    return user


@dataclass(frozen=True)
class Account:
    """A member as the members page shows them (``state``: annotate.accounts)."""

    username: str
    role: str
    state: str

    @property
    def said(self) -> str:
        return accounts.SAID[self.state]

    @property
    def link_allowed(self) -> bool:
        return self.state == accounts.NEW


def member_accounts(campaign: Campaign, organiser: AbstractBaseUser) -> list[Account]:
    """The campaign's members, each account's state as ``organiser`` sees it."""
    members = list(campaign.memberships.select_related("user").order_by("role", "user__username"))
    states = accounts.states([m.user for m in members], organiser)
    return [Account(m.user.username, m.role, accounts.member_state(m, states[m.user_id])) for m in members]


#: The most names the message after adding lists per state (a paste may add MAX_BULK).
NAMES_SHOWN = 20


def added_message(added: list[Membership], organiser: AbstractBaseUser) -> str:
    """What the members page says after adding: each name's account state, as the table shows it."""
    states = accounts.states([m.user for m in added], organiser)
    by_state: dict[str, list[str]] = {}
    for membership in added:
        by_state.setdefault(accounts.member_state(membership, states[membership.user_id]), []).append(
            membership.user.get_username()
        )
    parts = [f"Added or updated {len(added)} member{'s' if len(added) != 1 else ''}."]
    for state, names in by_state.items():
        more = f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else ""
        parts.append(f"{', '.join(names[:NAMES_SHOWN])}{more}: {accounts.SAID[state]}.")
    return " ".join(parts)
