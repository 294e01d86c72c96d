"""Members' accounts as an organiser sees them, and one-time set-password links.

What an organiser learns about an account (docs/pages.md, "Roles") is one of three
states, the same on the members page, in the members API and in the message
after adding someone:

- ``imported``: an imported crowd worker of the campaign (it never logs in);
- ``new``: adding it to one of the organiser's campaigns created it, it
  cannot log in yet (no usable password, never logged in), it is active, not
  staff, no imported crowd worker, and it belongs to no campaign the
  organiser does not organise. Only then may the organiser make it a
  set-password link;
- ``existing``: anything else, "they sign in with their own password". Nothing
  more is told: not whether it has a password, is active or staff, nor where
  else it is a member. (That a name is taken at all is told by adding it, and
  by an import that refuses it; docs/security.md, "Security".)

A set-password link is ``/accounts/set-password/#<code>``: the code is in the
URL's fragment, which browsers never send, so no access log, proxy or
``Referer`` sees it. The page's script posts it once; the server keeps it in
the session and answers with the token-free page (as Django's reset confirm
view does). The code names the account and the organiser who made it and
carries a :class:`SetPasswordTokens` token, which is void once the password,
last login, active, staff or superuser flag, groups, permissions or any
membership of the account changes, and after ``CONCORD_SET_PASSWORD_LINK_DAYS``
(``PASSWORD_RESET_TIMEOUT``). Every time the link is used the conditions of
making it are checked again (:func:`link_holder`): the account must still be
``new`` for that organiser, who must still be active.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.forms import SetPasswordForm
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.db import transaction
from django.urls import reverse
from django.utils.encoding import force_bytes, force_str
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode

from annotate.models import Campaign, Membership
from concord.digits import whole_number
from concord.errors import InvalidInput

User = get_user_model()

IMPORTED, NEW, EXISTING = "imported", "new", "existing"
#: What the members page and the message after adding say of each state.
SAID = {
    IMPORTED: "imported crowd worker (never logs in)",
    NEW: "new account: no password yet, make it a set-password link",
    EXISTING: "existing account: they sign in with their own password",
}


class SetPasswordTokens(PasswordResetTokenGenerator):
    """Django's reset tokens (HMAC of the account's password, last login and a
    timestamp), also covering who made the link and everything that decides
    whether they may: the account's active, staff and superuser flags, its
    groups, permissions and memberships. A change to any of them voids it."""

    key_salt = "concord.annotate.accounts.SetPasswordTokens"

    def __init__(self, issuer: AbstractBaseUser) -> None:
        super().__init__()
        self.issuer_pk = issuer.pk

    def _make_hash_value(self, user: AbstractBaseUser, timestamp: int) -> str:
        return f"{super()._make_hash_value(user, timestamp)}|{self.issuer_pk}|{_standing(user)}"


def _standing(user: AbstractBaseUser) -> str:
    memberships = sorted(
        Membership.objects.filter(user=user).values_list("campaign_id", "role", "imported", "created_account")
    )
    groups = sorted(user.groups.values_list("pk", flat=True))
    permissions = sorted(user.user_permissions.values_list("pk", flat=True))
    return f"{user.is_active}|{user.is_staff}|{user.is_superuser}|{groups}|{permissions}|{memberships}"


# -- states --------------------------------------------------------------------


def states(users: Iterable[AbstractBaseUser], organiser: AbstractBaseUser) -> dict[int, str]:
    """user pk -> ``new`` or ``existing`` as ``organiser`` sees each (imported
    is a campaign's membership, see :func:`member_state`); two queries."""
    users = list(users)
    memberships: dict[int, list[tuple[int, bool, bool]]] = defaultdict(list)
    for user_id, campaign_id, imported, created in Membership.objects.filter(user__in=users).values_list(
        "user_id", "campaign_id", "imported", "created_account"
    ):
        memberships[user_id].append((campaign_id, imported, created))
    campaigns = {campaign_id for rows in memberships.values() for campaign_id, _, _ in rows}
    organised = set(
        Membership.objects.filter(
            user=organiser, role=Membership.Role.ORGANISER, campaign_id__in=campaigns
        ).values_list("campaign_id", flat=True)
    )
    return {user.pk: _state(user, memberships[user.pk], organised, organiser) for user in users}


def _state(user: AbstractBaseUser, memberships: list, organised: set[int], organiser: AbstractBaseUser) -> str:
    can_log_in = user.has_usable_password() or user.last_login is not None
    if can_log_in or not user.is_active or user.is_staff or user.is_superuser or not memberships:
        return EXISTING
    if any(imported for _, imported, _ in memberships) or not any(created for _, _, created in memberships):
        return EXISTING
    if not organiser.is_staff and not {campaign_id for campaign_id, _, _ in memberships} <= organised:
        return EXISTING
    return NEW


def member_state(membership: Membership, state: str) -> str:
    """What a membership's row says: ``imported`` for the campaign's own crowd workers, else ``state``."""
    return IMPORTED if membership.imported else state


def state_of(user: AbstractBaseUser, organiser: AbstractBaseUser) -> str:
    return states([user], organiser)[user.pk]


# -- set-password links --------------------------------------------------------------


def set_password_link(*, campaign: Campaign, username: str, organiser: AbstractBaseUser) -> str:
    """The path and fragment of a one-time page where ``username`` chooses a password."""
    membership = Membership.objects.filter(campaign=campaign, user__username=username).select_related("user").first()
    if membership is None:
        raise InvalidInput("username", f"{username!r} is not a member of this campaign")
    user = membership.user
    state = member_state(membership, state_of(user, organiser))
    if state != NEW:
        raise InvalidInput("username", f"no link for {username!r}: {SAID[state]}")
    code = ".".join(
        (
            urlsafe_base64_encode(force_bytes(user.pk)),
            urlsafe_base64_encode(force_bytes(organiser.pk)),
            SetPasswordTokens(organiser).make_token(user),
        )
    )
    return f"{reverse('set-password')}#{code}"


def set_password_links(
    *, campaign: Campaign, usernames: Iterable[str], organiser: AbstractBaseUser
) -> list[tuple[str, str]]:
    """(username, path) of a set-password link for each of ``usernames`` that may have one
    (a ``new`` account for ``organiser``), in their order; the others are left out. Each
    link is :func:`set_password_link`'s, made under its rules (the states are read for all
    at once first, so that the others cost nothing)."""
    wanted = list(dict.fromkeys(usernames))
    members = {
        m.user.get_username(): m
        for m in Membership.objects.filter(campaign=campaign, user__username__in=wanted).select_related("user")
    }
    states_now = states([m.user for m in members.values()], organiser)
    return [
        (name, set_password_link(campaign=campaign, username=name, organiser=organiser))
        for name in wanted
        if name in members and member_state(members[name], states_now[members[name].user_id]) == NEW
    ]


#: The longest code read from a request (a real one is about 60 characters).
CODE_MAX_LENGTH = 200


def link_holder(code: str) -> AbstractBaseUser | None:
    """The account a link's ``code`` sets the password of, or None when the link
    is void: malformed, expired, used, the account changed since, or making it
    would not be allowed now (checked again in full, as when it was made)."""
    if not isinstance(code, str) or len(code) > CODE_MAX_LENGTH or code.count(".") != 2:
        return None
    uid, iid, token = code.split(".")
    user, issuer = _account(uid), _account(iid)
    if user is None or issuer is None or not issuer.is_active:
        return None
    if not SetPasswordTokens(issuer).check_token(user, token):
        return None
    return user if state_of(user, issuer) == NEW else None


def _account(encoded: str) -> AbstractBaseUser | None:
    try:
        pk = whole_number(force_str(urlsafe_base64_decode(encoded)))
    except ValueError:  # not base64, or not text
        return None
    return None if pk is None else User.objects.filter(pk=pk).first()


@transaction.atomic
def choose_password(*, code: str, form: SetPasswordForm) -> AbstractBaseUser | None:
    """Set the password a valid ``form`` holds if the link is still valid (checked
    again with the account locked); the new password voids the link. None: void."""
    User.objects.select_for_update().filter(pk=form.user.pk).first()
    holder = link_holder(code)
    if holder is None or holder.pk != form.user.pk:
        return None
    form.user = holder
    return form.save()
