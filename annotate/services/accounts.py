"""Members' accounts as an organiser sees them, and one-time set-password links.

What an organiser learns about an account (docs/pages.md, "Roles") is one of three
states, the same on the members page, in the members API and in the message
after adding someone:

- ``imported``: an imported crowd worker of the campaign (it never logs in);
- ``new``: an unclaimed invitation (:func:`unclaimed`: adding it to a campaign
  created it or found it unclaimed, it cannot log in yet, it is active, not
  staff, no imported crowd worker, and every one of its memberships is such
  an invitation) with an invitation in a campaign the organiser organises.
  Only then may the organiser make it a set-password link;
- ``existing``: anything else, "they sign in with their own password". Nothing
  more is told: not whether it has a password, is active or staff, nor where
  else it is a member. (That a name is taken by an account someone can sign
  in with is told by adding it, and by an import that refuses it;
  docs/security.md, "Security".)

An unclaimed invitation is nobody's yet: another organiser adding that name
gets the answer a new name gets (``new``, and a link of their own), and sees
nothing of the other campaigns. The first link used decides whose it is:
:func:`annotate.services.members.claim_account` sets the password and withdraws the
invitations of the campaigns the link's maker does not organise (as
removing a member would), so nobody gets into a campaign through someone
else's invitation, and no organiser's adding voids another's link.

A set-password link is ``/accounts/set-password/#<code>``: the code is in the
URL's fragment, which browsers never send, so no access log, proxy or
``Referer`` sees it. The page's script posts it once; the server keeps it in
the session and answers with the token-free page (as Django's reset confirm
view does). The code names the account and the organiser who made it and
carries a :class:`SetPasswordTokens` token, which is void once the password,
last login, active, staff or superuser flag, groups or permissions of the
account change, or its memberships of the campaigns that organiser
organises (what the link grants), and after
``CONCORD_SET_PASSWORD_LINK_DAYS`` (``PASSWORD_RESET_TIMEOUT``). Every time
the link is used the conditions of making it are checked again
(:func:`link_holder`): the account must still be ``new`` for that organiser,
who must still be active.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.forms import SetPasswordForm
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.db import transaction
from django.db.models import QuerySet
from django.urls import reverse
from django.utils.encoding import force_bytes, force_str
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode

from annotate.models import Campaign, Membership, StudyWorker
from concord.digits import whole_number
from concord.errors import InvalidInput

User = get_user_model()

IMPORTED, NEW, EXISTING, STUDY = "imported", "new", "existing", "study"
#: What the members page and the message after adding say of each state.
SAID = {
    IMPORTED: "imported assessor (never logs in)",
    NEW: "new account: no password yet, make it a set-password link",
    EXISTING: "existing account: they sign in with their own password",
    STUDY: "study participant: signs in through the campaign's study link, no password",
}


class SetPasswordTokens(PasswordResetTokenGenerator):
    """Django's reset tokens (HMAC of the account's password, last login and a
    timestamp), also covering who made the link and what it grants: the
    account's active, staff and superuser flags, its groups, permissions and
    its memberships of the campaigns the maker organises (all of them for an
    admin). A change to any of them voids it; another campaign's membership
    does not (that invitation is withdrawn when the link is used)."""

    key_salt = "concord.annotate.services.accounts.SetPasswordTokens"

    def __init__(self, issuer: AbstractBaseUser) -> None:
        super().__init__()
        self.issuer = issuer

    def _make_hash_value(self, user: AbstractBaseUser, timestamp: int) -> str:
        return f"{super()._make_hash_value(user, timestamp)}|{self.issuer.pk}|{_standing(user, self.issuer)}"


def organised_by(organiser: AbstractBaseUser) -> QuerySet[Membership]:
    """The memberships of the campaigns ``organiser`` organises (every campaign for an admin)."""
    if organiser.is_staff:
        return Membership.objects.all()
    return Membership.objects.filter(
        campaign__in=Membership.objects.filter(user=organiser, role=Membership.Role.ORGANISER).values("campaign_id")
    )


def _standing(user: AbstractBaseUser, issuer: AbstractBaseUser) -> str:
    memberships = sorted(
        organised_by(issuer).filter(user=user).values_list("campaign_id", "role", "imported", "created_account")
    )
    groups = sorted(user.groups.values_list("pk", flat=True))
    permissions = sorted(user.user_permissions.values_list("pk", flat=True))
    return f"{user.is_active}|{user.is_staff}|{user.is_superuser}|{groups}|{permissions}|{memberships}"


# -- states --------------------------------------------------------------------


def states(users: Iterable[AbstractBaseUser], organiser: AbstractBaseUser) -> dict[int, str]:
    """user pk -> ``new``, ``existing`` or ``study`` (an account a study link made: it has no
    password and comes in through the link, annotate/study.py) as ``organiser`` sees each
    (imported is a campaign's membership, see :func:`member_state`); three queries."""
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
    study = set(StudyWorker.objects.filter(user__in=users).values_list("user_id", flat=True))
    return {
        user.pk: STUDY if user.pk in study else _state(user, memberships[user.pk], organised, organiser)
        for user in users
    }


def _unclaimed(user: AbstractBaseUser, memberships: list[tuple[int, bool, bool]]) -> bool:
    """``memberships``: (campaign, imported, invitation) of each of the account's."""
    can_log_in = user.has_usable_password() or user.last_login is not None
    if can_log_in or not user.is_active or user.is_staff or user.is_superuser or not memberships:
        return False
    return all(invitation and not imported for _, imported, invitation in memberships)


def unclaimed(user: AbstractBaseUser) -> bool:
    """Whether the account is an unclaimed invitation (the module's docstring): adding it
    to a campaign makes one more invitation, as adding a name nobody has does."""
    return _unclaimed(user, list(user.memberships.values_list("campaign_id", "imported", "created_account")))


def _state(user: AbstractBaseUser, memberships: list, organised: set[int], organiser: AbstractBaseUser) -> str:
    if not _unclaimed(user, memberships):
        return EXISTING
    if not organiser.is_staff and not {campaign_id for campaign_id, _, _ in memberships} & organised:
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
    found = link_parties(code)
    return None if found is None else found[0]


def link_parties(code: str) -> tuple[AbstractBaseUser, AbstractBaseUser] | None:
    """(the account, the organiser who made the link) of a valid ``code`` (:func:`link_holder`)."""
    if not isinstance(code, str) or len(code) > CODE_MAX_LENGTH or code.count(".") != 2:
        return None
    uid, iid, token = code.split(".")
    user, issuer = _account(uid), _account(iid)
    if user is None or issuer is None or not issuer.is_active:
        return None
    if not SetPasswordTokens(issuer).check_token(user, token):
        return None
    return (user, issuer) if state_of(user, issuer) == NEW else None


def _account(encoded: str) -> AbstractBaseUser | None:
    try:
        pk = whole_number(force_str(urlsafe_base64_decode(encoded)))
    except ValueError:  # not base64, or not text
        return None
    return None if pk is None else User.objects.filter(pk=pk).first()


@transaction.atomic
def choose_password(
    *, code: str, form: SetPasswordForm
) -> tuple[AbstractBaseUser, AbstractBaseUser] | tuple[None, None]:
    """Set the password a valid ``form`` holds if the link is still valid (checked
    again with the account locked); the new password voids the link. (the account,
    the link's maker), or (None, None): void. annotate.services.members.claim_account then
    withdraws the invitations the maker did not make (the module's docstring)."""
    User.objects.select_for_update().filter(pk=form.user.pk).first()
    found = link_parties(code)
    if found is None or found[0].pk != form.user.pk:
        return None, None
    form.user = found[0]
    return form.save(), found[1]
