"""Services for a campaign's members beyond adding one (annotate.services.add_member):
adding many at once, removing one, and one-time set-password links.

A set-password link is Django's password-reset machinery (the same token
generator and confirm page as a reset by mail) without a mail server: the
organiser is shown the link and passes it on. It is offered only for an
account that cannot log in yet (no usable password, never logged in, active,
not staff, not an imported crowd worker) and whose every campaign is one the
organiser organises, so no organiser can take over someone else's account.
The token is void once a password is set (it hashes the password and the
last login) and after ``PASSWORD_RESET_TIMEOUT``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.tokens import default_token_generator
from django.db import transaction
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

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
    judged = Judgment.objects.filter(topic__campaign=campaign, assessor=membership.user).values("topic_id")
    Assignment.objects.filter(topic__campaign=campaign, assessor=membership.user).exclude(topic_id__in=judged).delete()
    membership.delete()
    assign_topics(campaign)


@dataclass(frozen=True)
class Account:
    """A member as the members page shows them."""

    username: str
    role: str
    imported: bool
    can_log_in: bool
    link_allowed: bool


def accounts(campaign: Campaign, organiser: AbstractBaseUser) -> list[Account]:
    """The campaign's members, with whether ``organiser`` may make each a set-password link."""
    members = list(campaign.memberships.select_related("user").order_by("role", "user__username"))
    return [
        Account(
            username=m.user.username,
            role=m.role,
            imported=m.imported,
            can_log_in=m.user.has_usable_password() and m.user.is_active,
            link_allowed=_may_link(m.user, organiser),
        )
        for m in members
    ]


def _may_link(user: AbstractBaseUser, organiser: AbstractBaseUser) -> bool:
    if user.has_usable_password() or user.last_login is not None or not user.is_active or user.is_staff:
        return False
    memberships = list(Membership.objects.filter(user=user).values_list("campaign_id", "imported"))
    if any(imported for _, imported in memberships):
        return False
    if organiser.is_staff:
        return True
    campaigns = {campaign_id for campaign_id, _ in memberships}
    mine = set(
        Membership.objects.filter(
            user=organiser, role=Membership.Role.ORGANISER, campaign_id__in=campaigns
        ).values_list("campaign_id", flat=True)
    )
    return bool(campaigns) and campaigns <= mine


def set_password_link(*, campaign: Campaign, username: str, organiser: AbstractBaseUser) -> str:
    """The path of a one-time page where ``username`` chooses a password (Django's reset confirm page)."""
    membership = Membership.objects.filter(campaign=campaign, user__username=username).select_related("user").first()
    if membership is None:
        raise InvalidInput("username", f"{username!r} is not a member of this campaign")
    user = membership.user
    if not _may_link(user, organiser):
        raise InvalidInput(
            "username",
            f"no link for {username!r}: links are only for accounts that cannot log in yet, belong to no "
            "campaign you do not organise, and are not imported crowd workers or staff",
        )
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return reverse("password_reset_confirm", args=[uid, default_token_generator.make_token(user)])
