"""Request-level defences: security headers, the upload limit, login throttling.

- ``SecurityHeadersMiddleware``: a Content-Security-Policy on every response
  (``settings.SECURE_CSP``: no inline script or style anywhere; the API docs
  page, drf-spectacular's Swagger UI, gets its own looser policy), plus
  Permissions-Policy. Django's SecurityMiddleware and XFrameOptionsMiddleware
  already send Referrer-Policy, X-Content-Type-Options, X-Frame-Options and
  Cross-Origin-Opener-Policy.
- ``UploadLimitMiddleware``: the hard limit on request bodies. Django only
  limits what it reads into memory (``DATA_UPLOAD_MAX_MEMORY_SIZE``) and
  spools larger multipart files to temporary files; DRF's JSON parser reads
  the stream without any limit. So the whole body is refused, by its
  Content-Length, before anyone reads it: 413 with a message saying the
  limit. A body without Content-Length (chunked) is read as empty by
  Django's WSGI handler, so it cannot get round the check.
- ``UnstorableInputMiddleware``: 400 for NUL characters (path, query, body)
  and non-finite JSON numbers (1e400), which PostgreSQL, or any database's
  JSON, refuses after every other check has passed.
- ``LoginThrottleMiddleware``: after ``CONCORD_LOGIN_ATTEMPTS`` failed logins
  for one username from one address within ``CONCORD_LOGIN_WINDOW_SECONDS``,
  the login page, the admin's login page and ``POST /api/auth/token/`` refuse
  further attempts until the window ends (429, with Retry-After). Failures
  are counted from Django's ``user_login_failed`` signal in the default cache
  (per process with the default local-memory cache: several web processes
  need a shared cache such as Redis for one common count).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.core.cache import cache
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import engines
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.authtoken.views import ObtainAuthToken

API_PREFIX = "/api/"

# -- Content-Security-Policy ---------------------------------------------------

#: drf-spectacular's Swagger UI loads its scripts and styles from a CDN and
#: starts with an inline script and style: only that page allows them.
SWAGGER_UI_SOURCES = ["https://cdn.jsdelivr.net"]
VIEW_POLICIES: dict[str, dict[str, list[str]]] = {
    "api-docs": {
        "script-src": ["'self'", "'unsafe-inline'", *SWAGGER_UI_SOURCES],
        "style-src": ["'self'", "'unsafe-inline'", *SWAGGER_UI_SOURCES],
        "img-src": ["'self'", "data:", *SWAGGER_UI_SOURCES],
    },
}


def policy_header(policy: dict[str, list[str]]) -> str:
    return "; ".join(" ".join([directive, *sources]) for directive, sources in policy.items())


def policy_for(request: HttpRequest) -> str:
    match = getattr(request, "resolver_match", None)
    overrides = VIEW_POLICIES.get(match.view_name, {}) if match else {}
    return policy_header({**settings.SECURE_CSP, **overrides})


class SecurityHeadersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", policy_for(request))
        response.headers.setdefault("Permissions-Policy", settings.CONCORD_PERMISSIONS_POLICY)
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


def too_large(request: HttpRequest) -> HttpResponse:
    message = too_large_message()
    if is_api(request):
        return JsonResponse({"detail": message, "field": "body"}, status=413)
    return message_page(request, "Too large", message, status=413)


class UploadLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0  # what Django's WSGI handler reads then: nothing
        if length > settings.CONCORD_MAX_UPLOAD_BYTES:
            return too_large(request)
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        # Django's own limits, should they be set lower than the hard one.
        if isinstance(exception, RequestDataTooBig):
            return too_large(request)
        return None


# -- input no database stores ---------------------------------------------------

# A JSON string escape for NUL: \u0000 after an even number of backslashes.
_ESCAPED_NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")
# What could parse to an infinite float or NaN; only then is the body parsed.
_MAYBE_NOT_FINITE = re.compile(rb"[eE]\+?0*[1-9]\d{2}|\d{300}|NaN|Infinity")


class _NotFinite(Exception):
    pass


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(text)
    return value


def _constant(text: str) -> float:
    raise _NotFinite(text)


def unstorable(request: HttpRequest) -> tuple[str, str] | None:
    """(field, problem) if the request carries what no database can store.

    PostgreSQL refuses NUL in text and JSON (a 500 after every check has
    passed); Python's JSON parser turns 1e400 into infinity, which no
    database accepts as JSON. Both are refused here, for every endpoint.
    """
    if "\x00" in request.path:
        return "path", "contains a NUL character"
    if any("\x00" in key or any("\x00" in v for v in values) for key, values in request.GET.lists()):
        return "query", "contains a NUL character"
    if request.method not in ("POST", "PUT", "PATCH") or not request.META.get("CONTENT_LENGTH"):
        return None
    body = request.body
    form = request.content_type == "application/x-www-form-urlencoded"
    if b"\x00" in body or _ESCAPED_NUL.search(body) or form and b"%00" in body:
        return "body", "contains a NUL character (\\u0000), which cannot be stored"
    is_json = request.content_type == "application/json" or request.content_type.endswith("+json")
    if is_json and _MAYBE_NOT_FINITE.search(body):
        try:
            json.loads(body, parse_float=_finite, parse_constant=_constant)
        except _NotFinite as number:
            return "body", f"{number} is not a finite number"
        except ValueError:
            return None  # not JSON: the view's parser says so
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


# -- login throttling -----------------------------------------------------------

#: The views that check a password: the login page, the admin's, the API token.
LOGIN_VIEWS = frozenset({"login", "admin:login", "api-token"})


def client_address(request: Any) -> str:
    """REMOTE_ADDR: behind a reverse proxy, the proxy must set it to the client's."""
    return request.META.get("REMOTE_ADDR") or "unknown"


def failures_key(username: Any, address: str) -> str:
    name = str(username or "").strip().casefold()
    return "concord:login-failures:" + hashlib.sha256(f"{name}\0{address}".encode()).hexdigest()


def record_failure(sender: Any, credentials: dict[str, Any], request: Any = None, **kwargs: Any) -> None:
    if request is None:
        return
    key = failures_key(credentials.get("username"), client_address(request))
    window = settings.CONCORD_LOGIN_WINDOW_SECONDS
    now = time.time()
    count, since = cache.get(key) or (0, now)
    if now - since >= window:
        count, since = 0, now
    cache.set(key, (count + 1, since), timeout=max(1, math.ceil(since + window - now)))


def seconds_blocked(username: Any, address: str) -> int:
    """0 if a login may be tried now, else the seconds until it may."""
    count, since = cache.get(failures_key(username, address)) or (0, 0.0)
    if count < settings.CONCORD_LOGIN_ATTEMPTS:
        return 0
    return max(0, math.ceil(since + settings.CONCORD_LOGIN_WINDOW_SECONDS - time.time()))


def posted_username(request: HttpRequest) -> Any:
    if request.content_type == "application/json":
        try:
            data = json.loads(request.body or b"null")
        except ValueError:
            return None
        return data.get("username") if isinstance(data, dict) else None
    return request.POST.get("username")


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


class LoginThrottleMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        user_login_failed.connect(record_failure, dispatch_uid="concord.security.record_failure")

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs) -> HttpResponse | None:
        if request.method != "POST" or request.resolver_match.view_name not in LOGIN_VIEWS:
            return None
        wait = seconds_blocked(posted_username(request), client_address(request))
        return throttled(request, wait) if wait else None


# -- the API schema: what these defences answer ------------------------------------


class TokenView(ObtainAuthToken):
    """DRF's token view with the answers it can give documented."""

    @extend_schema(
        responses={
            200: OpenApiResponse(description="`{\"token\": ...}`: send it as `Authorization: Token <token>`."),
            400: OpenApiResponse(description="Wrong username or password, or one of them missing."),
            401: OpenApiResponse(description="An Authorization header with an unknown token was sent."),
            413: OpenApiResponse(description="The request body is over the upload limit."),
            429: OpenApiResponse(description="Too many failed attempts for this username from this address."),
        }
    )
    def post(self, request, *args, **kwargs):
        return super().post(request, *args, **kwargs)


obtain_auth_token = TokenView.as_view()


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
