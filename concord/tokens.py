"""API tokens: django-rest-knox, one token per login (device), hashed at rest.

- ``issue``: a new token for a user who has just authenticated; the secret is
  returned once and only its SHA-512 digest (and a 15-character lookup prefix,
  the token's ``id``) is stored. It expires after ``CONCORD_TOKEN_TTL_HOURS``
  (knox's TOKEN_TTL, settings.REST_KNOX).
- ``active_tokens`` / ``revoke`` / ``revoke_all``: what the user's own token
  endpoints list and delete (concord/auth_api.py).
- A password change revokes every token of the user (``note_password_change``
  and ``revoke_after_password_change``, connected in concord/apps.py).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q, QuerySet
from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from knox.auth import TokenAuthentication as KnoxTokenAuthentication
from knox.models import AuthToken
from knox.settings import CONSTANTS, knox_settings
from rest_framework import exceptions


def issue(user: AbstractBaseUser) -> tuple[AuthToken, str]:
    """(the stored token, its secret): the secret is shown once, never stored.
    The user's expired tokens are deleted here (not on every request)."""
    AuthToken.objects.filter(user=user, expiry__lt=timezone.now()).delete()
    return AuthToken.objects.create(user=user, expiry=knox_settings.TOKEN_TTL)


def token_id(token: AuthToken) -> str:
    """What identifies a token to its owner: its lookup prefix (knox's
    ``token_key``), too short to authenticate with."""
    return token.token_key


def active_tokens(user: AbstractBaseUser) -> QuerySet[AuthToken]:
    now = timezone.now()
    return AuthToken.objects.filter(Q(expiry__gt=now) | Q(expiry__isnull=True), user=user).order_by("created")


def revoke(user: AbstractBaseUser, id: str) -> int:
    """Delete the user's token(s) with this id; how many were deleted (0: none of theirs)."""
    deleted, _ = AuthToken.objects.filter(user=user, token_key=id).delete()
    return deleted


def revoke_all(user: AbstractBaseUser) -> int:
    deleted, _ = AuthToken.objects.filter(user=user).delete()
    return deleted


def expiry_text(expiry: datetime | None) -> str | None:
    return expiry.isoformat().replace("+00:00", "Z") if expiry else None


class TokenAuthentication(KnoxTokenAuthentication):
    """knox's header ``Authorization: Token <token>``; a token that is not
    even well-formed (not ASCII, too long) is refused with 401, not a 500."""

    def authenticate_credentials(self, token: bytes) -> Any:
        limit = CONSTANTS.MAXIMUM_TOKEN_PREFIX_LENGTH + knox_settings.AUTH_TOKEN_CHARACTER_LENGTH
        if len(token) > limit or not token.isascii():
            raise exceptions.AuthenticationFailed("Invalid token.")
        return super().authenticate_credentials(token)

    def _cleanup_token(self, auth_token: AuthToken) -> bool:
        """Whether the presented token has expired (it is then deleted). knox also
        reads every other token of the user on every request to delete the
        expired ones: one more query per API call, so that is left to ``issue``."""
        if auth_token.expiry is not None and auth_token.expiry < timezone.now():
            auth_token.delete()
            return True
        return False


class TokenScheme(OpenApiAuthenticationExtension):
    """How the OpenAPI document describes it: ``Authorization: Token <token>``."""

    target_class = "concord.tokens.TokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return build_bearer_security_scheme_object(header_name="Authorization", token_prefix="Token")


# -- a password change revokes every token ---------------------------------------


def note_password_change(
    sender: Any, instance: AbstractBaseUser, raw: bool = False, update_fields: Any = None, **kwargs: Any
) -> None:
    """pre_save of the user model: mark a save that changes the password.

    ``set_password`` (the admin's password form, ``changepassword``, Django's
    password forms, a shell) leaves the new password in ``_password`` until the
    save; ``set_unusable_password`` or a new hash assigned directly changes
    the stored hash. Django's hash upgrade on login (``check_password``'s
    setter: same password, new hash, ``save(update_fields=["password"])``
    with ``_password`` cleared) is not a change, as Django itself says.
    """
    instance._concord_password_changed = False
    if raw or instance.pk is None:
        return
    if update_fields is not None and "password" not in update_fields:
        return
    if getattr(instance, "_password", None) is not None:
        instance._concord_password_changed = True
        return
    if update_fields is not None and set(update_fields) == {"password"}:
        return  # a hash upgrade
    stored = sender._default_manager.filter(pk=instance.pk).values_list("password", flat=True).first()
    instance._concord_password_changed = stored is not None and stored != instance.password


def revoke_after_password_change(sender: Any, instance: AbstractBaseUser, raw: bool = False, **kwargs: Any) -> None:
    """post_save of the user model: a changed password revokes every token."""
    if getattr(instance, "_concord_password_changed", False):
        instance._concord_password_changed = False
        revoke_all(instance)
