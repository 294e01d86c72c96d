"""Request-level defences: security headers, the upload limit, login throttling.

- ``SecurityHeadersMiddleware``: a Content-Security-Policy on every response
  (``settings.SECURE_CSP``: no inline script or style anywhere, the API docs
  page included: Swagger UI comes from drf-spectacular-sidecar's static
  files and its start script is a file of its own), plus
  Permissions-Policy. Django's SecurityMiddleware and XFrameOptionsMiddleware
  already send Referrer-Policy, X-Content-Type-Options, X-Frame-Options and
  Cross-Origin-Opener-Policy.
- ``UploadLimitMiddleware``: the hard limit on request bodies, and a small
  one, ``CONCORD_ANONYMOUS_MAX_BODY_BYTES``, until the user is known: a
  request from no one signed in (no valid session, no valid API token), and
  any request to the views anyone may post to (the login pages and the API
  token), carries at most that much. Django only limits what it reads into
  memory (``DATA_UPLOAD_MAX_MEMORY_SIZE``) and spools larger multipart files
  to temporary files; and a form body is read (CSRF, the NUL check) before
  any view checks who sent it. So the whole body is refused, by its
  Content-Length, before anyone reads it: 413 with a message saying the
  limit. It runs after the session and authentication middleware (which
  read no body) and before anything that reads one. A body without
  Content-Length (chunked) is read as empty by Django's WSGI handler, so it
  cannot get round the check. Within this ceiling, an API body has its
  endpoint's own limit (annotate.api.bodies), checked by the API's parsers
  before they parse it.
- ``UnstorableInputMiddleware``: 400 for NUL characters (path, query,
  form), which PostgreSQL refuses after every other check has passed. JSON
  bodies are checked by the one strict parser (concord/jsonsafe.py).
- ``NoStoreMiddleware``: ``Cache-Control: no-store`` on every response to an
  authenticated user (pages and API, session or token), so no browser or
  proxy cache keeps what only that user may see.
- Login throttling is django-axes (settings ``AXES_*`` in concord/settings.py);
  the functions it is configured with are here: after
  ``CONCORD_LOGIN_ATTEMPTS`` failed logins for one username from one address
  within ``CONCORD_LOGIN_WINDOW_SECONDS``, the login page, the admin's login
  page and ``POST /api/auth/token/`` refuse further attempts (429, with
  Retry-After). The username is counted in exactly the form authentication
  reads it (``login_name``), so look-alikes share one count.
"""

from __future__ import annotations

import ipaddress
import math
import unicodedata
from datetime import timedelta
from typing import Any

from axes.backends import AxesStandaloneBackend
from axes.exceptions import AxesBackendPermissionDenied
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db.models import Max
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import engines
from django.urls import Resolver404, resolve
from django.utils import timezone
from django.utils.cache import patch_cache_control
from rest_framework.exceptions import APIException

from concord.tokens import TokenAuthentication

API_PREFIX = "/api/"

# -- Content-Security-Policy ---------------------------------------------------


def policy_header(policy: dict[str, list[str]]) -> str:
    return "; ".join(" ".join([directive, *sources]) for directive, sources in policy.items())


def policy_for(request: HttpRequest) -> str:
    """One policy for every response: no page has an exception."""
    return policy_header(settings.SECURE_CSP)


class SecurityHeadersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", policy_for(request))
        response.headers.setdefault("Permissions-Policy", settings.CONCORD_PERMISSIONS_POLICY)
        return response


class NoStoreMiddleware:
    """``Cache-Control: no-store`` on every response to an authenticated user.

    Read after the view: DRF sets ``request.user`` for token-authenticated API
    calls there, and a login sets it for its own response. Static files
    (answered by WhiteNoise before authentication) stay cacheable.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            patch_cache_control(response, no_store=True)
        return response


# -- request size --------------------------------------------------------------


def is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith(API_PREFIX)


def size_text(limit: int) -> str:
    for unit, size in (("MiB", 2**20), ("KiB", 2**10)):
        if limit >= size:
            return f"{limit / size:g} {unit}"
    return f"{limit} bytes"


def too_large_message() -> str:
    return f"The request is too large: uploads are limited to {size_text(settings.CONCORD_MAX_UPLOAD_BYTES)}."


def too_large(request: HttpRequest, message: str | None = None) -> HttpResponse:
    message = message or too_large_message()
    if is_api(request):
        return JsonResponse({"detail": message, "field": "body"}, status=413)
    return message_page(request, "Too large", message, status=413)


#: The views anyone may post to without signing in (they check a password):
#: their bodies are limited to CONCORD_ANONYMOUS_MAX_BODY_BYTES, signed in or not.
ANONYMOUS_VIEWS = frozenset({"login", "admin:login", "api-token"})


def for_anyone(request: HttpRequest) -> bool:
    """Whether the request is for one of ANONYMOUS_VIEWS."""
    try:
        match = resolve(request.path_info)
    except Resolver404:
        return False
    return match.view_name in ANONYMOUS_VIEWS


def known(request: HttpRequest) -> bool:
    """Whether the request comes from someone signed in: a valid session (pages, and
    the API from a page) or a valid API token (``Authorization: Token ...``, checked
    as the API checks it). Neither reads the body."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return True
    try:
        return TokenAuthentication().authenticate(request) is not None
    except APIException:
        return False


def body_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0  # what Django's WSGI handler reads then: nothing


class UploadLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        length = body_length(request)
        if length > settings.CONCORD_MAX_UPLOAD_BYTES:
            return too_large(request)
        small = settings.CONCORD_ANONYMOUS_MAX_BODY_BYTES
        if length > small:
            if for_anyone(request):
                return too_large(request, f"The request is too large: this page reads at most {size_text(small)}.")
            if not known(request):
                return too_large(
                    request,
                    f"The request is too large for someone not signed in: sign in first (with a session or an API "
                    f"token); until then a request carries at most {size_text(small)}.",
                )
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        # Django's own limits, should they be set lower than the hard one.
        if isinstance(exception, RequestDataTooBig):
            return too_large(request)
        return None


# -- input no database stores ---------------------------------------------------


def unstorable(request: HttpRequest) -> tuple[str, str] | None:
    """(field, problem) if the path, query or form carries a NUL character.

    PostgreSQL refuses NUL in text (a 500 after every other check has
    passed). JSON bodies are checked where they are parsed, with the path of
    the value at fault (concord/jsonsafe.py: NUL, lone surrogates, numbers
    that are not finite, nesting); the API's form fields by its multipart
    parser; uploaded files by the importers, line by line.
    """
    if "\x00" in request.path:
        return "path", "contains a NUL character"
    if any("\x00" in key or any("\x00" in v for v in values) for key, values in request.GET.lists()):
        return "query", "contains a NUL character"
    if request.method not in ("POST", "PUT", "PATCH") or not request.META.get("CONTENT_LENGTH"):
        return None
    if request.content_type == "application/x-www-form-urlencoded":
        body = request.body
        if b"\x00" in body or b"%00" in body:
            return "body", "contains a NUL character (\\u0000), which cannot be stored"
    elif request.content_type == "multipart/form-data" and not is_api(request):
        # A page's form fields (the API's: annotate.api.bodies.StrictMultiPartParser).
        for key, values in request.POST.lists():
            if "\x00" in key or any("\x00" in value for value in values):
                return "body", "contains a NUL character (\\u0000), which cannot be stored"
    return None


class UnstorableInputMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            problem = unstorable(request)
        except RequestDataTooBig:
            return too_large(request)
        if problem is None:
            return self.get_response(request)
        field, message = problem
        if is_api(request):
            return JsonResponse({"detail": message, "field": field}, status=400)
        return message_page(request, "Bad request", f"The request's {field} {message}.", status=400)


# -- login throttling (django-axes) ------------------------------------------------
#
# Axes counts failed logins from Django's ``user_login_failed`` signal, and
# refuses a login from its authentication backend (first in
# AUTHENTICATION_BACKENDS) before any password is checked, so every path that
# calls ``authenticate()`` is covered: the login page, the admin's login page
# and the API token endpoint (concord/auth_api.py). These functions are named
# in its settings (concord/settings.py).


def client_address(request: Any) -> str | None:
    """AXES_CLIENT_IP_CALLABLE: REMOTE_ADDR (behind a reverse proxy, the proxy
    must set it to the client's address); None without one (axes' column
    holds IP addresses only)."""
    address = request.META.get("REMOTE_ADDR") or None
    try:
        return str(ipaddress.ip_address(address)) if address else None
    except ValueError:
        return None


def login_username(value: str) -> str:
    """The username as authentication reads it: Django's login form strips
    white space and NFKC-normalises (``UsernameField``, which is also
    ``AbstractBaseUser.normalize_username``); the token endpoint does the same."""
    return unicodedata.normalize("NFKC", value.strip())


def login_name(request: Any, credentials: dict[str, Any] | None = None) -> str | None:
    """AXES_USERNAME_CALLABLE: the name failures are counted under.

    The username as authentication reads it (``login_username``: ``ｂｏｂ``
    and `` bob `` are ``bob``), then case-folded: authentication is
    case-sensitive (ModelBackend looks the name up exactly), so folding only
    makes ``Bob`` and ``bob`` share a count, never lets one escape it.
    """
    if credentials and "username" in credentials:
        raw = credentials.get("username")
    else:
        raw = getattr(request, "POST", {}).get("username") if request is not None else None
    if not isinstance(raw, str):
        return None
    name = unicodedata.normalize("NFKC", login_username(raw).casefold())
    return name[:255]  # axes' column; longer names never authenticate anyway


def login_attempts(request: Any, credentials: dict[str, Any] | None = None) -> int:
    """AXES_FAILURE_LIMIT, read at each request so tests can change it."""
    return settings.CONCORD_LOGIN_ATTEMPTS


def login_window(request: Any = None) -> timedelta:
    """AXES_COOLOFF_TIME: failures older than this are forgotten."""
    return timedelta(seconds=settings.CONCORD_LOGIN_WINDOW_SECONDS)


class LoginThrottleBackend(AxesStandaloneBackend):
    """Axes' backend, marking the request it refuses: only a refused attempt
    answers 429 (the failure that reaches the limit answers as any failure)."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            # Only code calls authenticate() without a request (the test
            # client's login(), a shell): no one to throttle.
            return None
        try:
            return super().authenticate(request, username, password, **kwargs)
        except AxesBackendPermissionDenied:
            request.concord_login_refused = True
            raise


def seconds_blocked(request: Any, credentials: dict[str, Any] | None) -> int:
    """Until the newest counted failure leaves the window (at least 1)."""
    from axes.handlers.proxy import AxesProxyHandler

    attempts = AxesProxyHandler.get_implementation().get_user_attempts(request, credentials)
    times = [qs.aggregate(latest=Max("attempt_time"))["latest"] for qs in attempts]
    latest = max((t for t in times if t is not None), default=None)
    if latest is None:
        return 1
    left = (latest + login_window(request) - timezone.now()).total_seconds()
    return max(1, math.ceil(left))


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: dict[str, Any] | None = None
) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: 429 with Retry-After for a refused attempt."""
    if original_response is not None and not getattr(request, "concord_login_refused", False):
        return original_response
    return throttled(request, seconds_blocked(request, credentials))


def throttled(request: HttpRequest, wait: int) -> HttpResponse:
    message = (
        f"Too many failed login attempts for this username from your address. "
        f"Try again in {wait} second{'s' if wait != 1 else ''}."
    )
    if is_api(request):
        response: HttpResponse = JsonResponse({"detail": message, "field": "username"}, status=429)
    else:
        response = message_page(request, "Log in", message, status=429, link=("Back to the login page", request.path))
    response["Retry-After"] = str(wait)
    return response


# -- the API schema: what these defences answer ------------------------------------
# (The API token endpoint, with its answers documented: concord/auth_api.py.)


def document_refusals(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular hook: every operation that takes a body may answer 413
    (over the upload limit) or 415 (a content type it does not read)."""
    refusals = {
        "413": {"description": "The request body is over the upload limit (CONCORD_MAX_UPLOAD_BYTES)."},
        "415": {"description": "The body's content type is not one this operation reads."},
    }
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if isinstance(operation, dict) and "requestBody" in operation:
                for status, response in refusals.items():
                    operation.setdefault("responses", {}).setdefault(status, response)
    return result


# -- plain pages ----------------------------------------------------------------

_MESSAGE_PAGE = """{% extends "base.html" %}
{% block title %}{{ title }}{% endblock %}
{% block content %}<section class="narrow">
  <h1>{{ title }}</h1>
  <p class="error" role="alert">{{ message }}</p>
  {% if link %}<p><a href="{{ link.1 }}">{{ link.0 }}</a></p>{% endif %}
</section>{% endblock %}"""


def message_page(
    request: HttpRequest, title: str, message: str, *, status: int, link: tuple[str, str] | None = None
) -> HttpResponse:
    template = engines["django"].from_string(_MESSAGE_PAGE)
    return HttpResponse(template.render({"title": title, "message": message, "link": link}, request), status=status)
