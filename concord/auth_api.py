"""The API's own authentication endpoints (the work is in concord/tokens.py).

- ``POST /api/auth/token/`` (username, password) -> ``{"token", "expiry"}``:
  a new token for this device. The username is read as the login page reads
  it (white space stripped, NFKC), through ``authenticate()``, so login
  throttling (django-axes, concord/security.py) counts and refuses here as on
  the pages. Bad input is 400 ``{"detail", "field"}`` like the rest of the API.
- ``GET /api/auth/tokens/``: the caller's unexpired tokens (id, created,
  expiry, whether it is the one calling), never a secret.
- ``DELETE /api/auth/tokens/{id}/``: revoke one of them.
- ``POST /api/auth/logout/``: revoke the calling token (or, called with a
  browser session, end that session).
- ``POST /api/auth/logoutall/``: revoke every token of the caller (and end the
  calling session, if any).
- ``GET /api/auth/session/``: who this browser is signed in as now (or
  nobody) and a CSRF token for its session; no side effect but the CSRF
  cookie Django sets with any token. The judging page asks when a save is
  refused (static/annotate/judge.js): an expired session, or a sign-in in
  another tab, which rotates the CSRF token.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from django.contrib.auth import logout as end_session
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.middleware.csrf import get_token
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from knox.models import AuthToken
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.parsers import FormParser
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from concord import tokens
from concord.errors import InvalidInput
from concord.security import login_username

#: Django's username field is 150 characters; a longer name is no account's.
MAX_USERNAME = 150
MAX_PASSWORD = 4096


def credential(data: Any, field: str, max_length: int) -> str:
    value = data.get(field)
    if value is None:
        raise InvalidInput(field, "required")
    if not isinstance(value, str):
        raise InvalidInput(field, "expected a string")
    if not value.strip():
        raise InvalidInput(field, "must not be empty")
    if len(value) > max_length:
        raise InvalidInput(field, f"longer than {max_length} characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(field, "is not valid text (it cannot be encoded as UTF-8)") from None
    return value


TokenAnswer = inline_serializer(
    "TokenAnswer", {"token": serializers.CharField(), "expiry": serializers.DateTimeField()}
)
TokenRows = inline_serializer(
    "TokenRow",
    fields={
        "id": serializers.CharField(
            help_text="The token's first 15 characters: enough to recognise it, not to use it."
        ),
        "created": serializers.DateTimeField(),
        "expiry": serializers.DateTimeField(allow_null=True),
        "current": serializers.BooleanField(help_text="Whether this is the token making the request."),
    },
    many=True,
)
Credentials = inline_serializer(
    "Credentials", {"username": serializers.CharField(), "password": serializers.CharField()}
)
SessionAnswer = inline_serializer(
    "SessionAnswer",
    {
        "user": inline_serializer(
            "SessionUser",
            {"id": serializers.IntegerField(), "username": serializers.CharField()},
            allow_null=True,
            help_text="Who is signed in now; null: nobody.",
        ),
        "csrf_token": serializers.CharField(help_text="Send it as `X-CSRFToken` with this session's writes."),
    },
)
SIGNED_OUT = {204: OpenApiResponse(description="Done."), 401: OpenApiResponse(description="Not signed in.")}
when = serializers.DateTimeField()


class TokenView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    # The API's parsers, plus form-encoded bodies as `curl -d` sends them.
    parser_classes = [*api_settings.DEFAULT_PARSER_CLASSES, FormParser]

    @extend_schema(
        request=Credentials,
        responses={
            200: OpenApiResponse(
                TokenAnswer,
                description="A new token for this device: send it as `Authorization: Token <token>` until `expiry`.",
            ),
            400: OpenApiResponse(description="Wrong username or password, or one of them missing: `field` names it."),
            413: OpenApiResponse(description="The request body is over the upload limit."),
            429: OpenApiResponse(description="Too many failed attempts for this username from this address."),
        },
    )
    def post(self, request: Request) -> Response:
        data = request.data
        if not hasattr(data, "get"):
            raise InvalidInput("body", "expected an object with username and password")
        username = login_username(credential(data, "username", MAX_USERNAME))
        if len(username) > MAX_USERNAME:
            raise InvalidInput("username", f"longer than {MAX_USERNAME} characters")
        password = credential(data, "password", MAX_PASSWORD)
        django_request = request._request
        user = authenticate(django_request, username=username, password=password)
        if user is None:
            # A refused attempt (throttled) becomes 429 in axes' middleware.
            raise InvalidInput("password", "wrong username or password")
        instance, token = tokens.issue(user)
        user_logged_in.send(sender=user.__class__, request=django_request, user=user)
        response = Response({"token": token, "expiry": when.to_representation(instance.expiry)})
        response["Cache-Control"] = "no-store"
        return response


class TokenList(APIView):
    @extend_schema(responses={200: TokenRows, 401: OpenApiResponse(description="Not signed in.")})
    def get(self, request: Request) -> Response:
        calling = request.auth if isinstance(request.auth, AuthToken) else None
        return Response(
            [
                {
                    "id": tokens.token_id(token),
                    "created": when.to_representation(token.created),
                    "expiry": when.to_representation(token.expiry) if token.expiry else None,
                    "current": calling is not None and token.digest == calling.digest,
                }
                for token in tokens.active_tokens(request.user)
            ]
        )


class TokenDetail(APIView):
    @extend_schema(responses={**SIGNED_OUT, 404: OpenApiResponse(description="You have no token with this id.")})
    def delete(self, request: Request, token_id: str) -> Response:
        if not tokens.revoke(request.user, token_id):
            raise NotFound("You have no token with this id.")
        return Response(status=status.HTTP_204_NO_CONTENT)


class Logout(APIView):
    @extend_schema(request=None, responses=SIGNED_OUT)
    def post(self, request: Request) -> Response:
        if isinstance(request.auth, AuthToken):
            request.auth.delete()
            user_logged_out.send(sender=request.user.__class__, request=request._request, user=request.user)
        else:
            end_session(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class LogoutAll(APIView):
    @extend_schema(request=None, responses=SIGNED_OUT)
    def post(self, request: Request) -> Response:
        tokens.revoke_all(request.user)
        if isinstance(request.auth, AuthToken):
            user_logged_out.send(sender=request.user.__class__, request=request._request, user=request.user)
        else:
            end_session(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class Session(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        responses={200: OpenApiResponse(SessionAnswer, description="Who is signed in, and a fresh CSRF token.")}
    )
    def get(self, request: Request) -> Response:
        user = request.user
        response = Response(
            {
                "user": {"id": user.pk, "username": user.get_username()} if user.is_authenticated else None,
                "csrf_token": get_token(request._request),
            }
        )
        # Asked exactly when the answer may have changed (a sign-in in another tab): never from a cache.
        response["Cache-Control"] = "no-store"
        return response
