"""A campaign's members and their accounts: adding one or many, removing one,
claiming an invitation with a set-password link.

Names are checked before anything is written (:func:`require_username`: the
characters Django's accounts take, Unicode normal form, not a case-only twin of
an existing account). Removing a member keeps their judgments; their unjudged
assignments go back to the pool and the topics are topped up. What an organiser
may know of an account, and the links, are annotate.services.accounts.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.forms import SetPasswordForm
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotate import changes
from annotate.models import (
    Assignment,
    Campaign,
    Judgment,
    Membership,
)
from annotate.services import accounts
from annotate.services.assignments import assign_topics
from concord.errors import InvalidInput

User = get_user_model()


@transaction.atomic
def add_member(*, campaign: Campaign, username: str, role: str) -> Membership:
    """Add (or change the role of) a member; new assessors get topics at once.

    A valid username that is nobody's becomes a new account without a usable
    password (``Membership.created_account``): the organisers may make it a
    set-password link (annotate.services.accounts). So does one that is an unclaimed
    invitation of other campaigns: the organiser is told what a new name
    tells, and the first link used withdraws the other invitations
    (annotate.services.members.claim_account). Any other account is added as it is;
    the organiser learns only that it exists (annotate.services.accounts: what an
    organiser may learn). A name no account could have is refused, and so
    is one differing only in case from an existing account (as imports refuse
    it). The name is read as login reads it (stripped, NFKC), so ``ｃａｒｏｌ``
    is ``carol``.

    A campaign keeps at least one organiser: the last one cannot be made
    anything else (by themselves or anyone).
    """
    if role not in Membership.Role.values:
        raise InvalidInput("role", f"expected one of {', '.join(Membership.Role.values)}")
    if not isinstance(username, str):
        raise InvalidInput("username", "expected a user name (a string)")
    username = require_username(User.normalize_username(username.strip()), "username", what="user")
    user = User.objects.select_for_update().filter(username=username).first()
    # An invitation: a new account, or one still unclaimed (annotate.services.accounts: nobody's yet).
    invited = user is None or accounts.unclaimed(user)
    if user is None:
        require_unlike_existing(username, "username")
        user = User(username=username)
        user.set_unusable_password()
        user.save()
    organisers = Membership.objects.select_for_update().filter(campaign=campaign, role=Membership.Role.ORGANISER)
    if role != Membership.Role.ORGANISER and list(organisers.values_list("user_id", flat=True)) == [user.pk]:
        raise InvalidInput("role", f"{username!r} is the campaign's last organiser: make someone else organiser first")
    membership, _ = Membership.objects.update_or_create(
        campaign=campaign,
        user=user,
        defaults={"role": role},
        create_defaults={"role": role, "created_account": invited},
    )
    if role == Membership.Role.ASSESSOR:
        assign_topics(campaign)
    changes.progress_changed(campaign.pk)
    return membership


def shown_name(name: str) -> str:
    """A name as a message quotes it: its first 40 characters."""
    return repr(name if len(name) <= 40 else name[:40] + "...")


def require_unlike_existing(name: str, where: str) -> None:
    """Refuse a new account's name that differs only in case from an existing
    account's (``Bob`` beside ``bob``), as imports do (:func:`clean_workers`)."""
    from django.db.models.functions import Lower

    if User.objects.annotate(folded=Lower(User.USERNAME_FIELD)).filter(folded=name.lower()).exists():
        raise InvalidInput(
            where, f"user {shown_name(name)} differs only in case from an existing account; choose another name"
        )


def require_username(name: Any, where: str, *, what: str = "account") -> str:
    """A name an account may have: Django's UnicodeUsernameValidator (letters,
    digits and @ . + - _), the username's length limit, and Unicode NFKC form
    (Django stores usernames normalised). ``where`` is the field an error names."""
    from django.contrib.auth.validators import UnicodeUsernameValidator
    from django.core.exceptions import ValidationError

    if not isinstance(name, str):
        raise InvalidInput(where, f"expected a {what} name (a string)")
    longest = User._meta.get_field(User.USERNAME_FIELD).max_length
    if not name or len(name) > longest:
        raise InvalidInput(where, f"{what} {shown_name(name)}: a {what} name is 1 to {longest} characters")
    try:
        UnicodeUsernameValidator()(name)
    except ValidationError:
        raise InvalidInput(
            where, f"{what} {shown_name(name)}: a {what} name has only letters, digits and @ . + - _"
        ) from None
    if User.normalize_username(name) != name:
        raise InvalidInput(
            where, f"{what} {shown_name(name)} is not in Unicode normal form (NFKC: {User.normalize_username(name)!r})"
        )
    return name


#: Most names one paste may add (each one is a row and a topic top-up).
MAX_BULK = 500


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
def set_model_judge(*, campaign: Campaign, username: str, model_judge: bool) -> Membership:
    """Mark a member a model judge (an LLM used as a rater), or a person again.

    A model judge's judgments are kept out of the people's figures, gold standards, stop
    signal, adaptive allocation and progress counts unless the campaign's
    ``model_judges_count`` counts them, and its labels are tested against the people's
    (annotate/judges.py). Any member may be one, whatever their role; a login account that
    is one still judges, and its judgments are classed as the model's. A change has every
    report of the campaign rebuilt (each stored figure says which judgments it rests on).
    Refused (InvalidInput naming the field, nothing written): ``model_judge`` not a boolean,
    ``username`` not a member of the campaign."""
    if not isinstance(model_judge, bool):
        raise InvalidInput("model_judge", "expected true or false")
    if not isinstance(username, str):
        raise InvalidInput("username", "expected a user name (a string)")
    membership = Membership.objects.locked(campaign, username)
    if membership is None:
        raise InvalidInput("username", f"{shown_name(username)} is not a member of this campaign")
    if membership.model_judge != model_judge:
        membership.model_judge = model_judge
        membership.save(update_fields=["model_judge"])
        # Every topic's stored partial and the campaign's reports rest on the judgments the flag moves.
        changes.campaign_changed(campaign)
        changes.progress_changed(campaign.pk)
    return membership


@transaction.atomic
def remove_member(*, campaign: Campaign, username: str) -> None:
    """Remove a member. Their judgments stay (nothing judged is ever lost) and
    keep counting; their assignments without any judgment go back to the pool
    and topics are topped up to the overlap by the others. The last organiser
    cannot be removed, nor a model judge with judgments: the flag goes with the
    membership, and its judgments would count as a person's (take the flag off
    first if that is what is meant)."""
    membership = (
        Membership.objects.select_for_update()
        .filter(campaign=campaign, user__username=username)
        .select_related("user")
        .first()
    )
    if membership is None:
        raise InvalidInput("username", f"{username!r} is not a member of this campaign")
    if membership.model_judge and Judgment.objects.filter(topic__campaign=campaign, assessor=membership.user).exists():
        raise InvalidInput(
            "username",
            f"{username!r} is a model judge with judgments: removed, its judgments would count as a person's. "
            "Take 'model judge' off first if that is what you want",
        )
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
    if membership.model_judge:
        # its judgments are a person's from now on (claim_account's withdrawn invitations)
        changes.campaign_changed(campaign)
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
