"""The site's 400, 403, 404 and 500 pages (wired in concord/urls.py).

A page says why in one sentence: the reason the selectors put in the
``PermissionDenied`` or ``Http404`` they raise ('No topic t9 in the campaign
"Names", or it is not assigned to you.'), with the site's navigation around it. Under
``/api/`` (except the docs page) the answer stays JSON, ``{"detail": ...}``, as
every API error is.

Django logs a refused request (403) with its traceback; these handlers log one
line instead, ``Forbidden: /path (reason)``, and mark the response logged so
Django does not log it again. A 500 keeps Django's log with the traceback.
"""

from __future__ import annotations

import logging
import sys

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.utils.log import log_response

from concord import busy

logger = logging.getLogger("django.request")

_DEFAULTS = {
    400: "The request could not be understood.",
    403: "You may not open this page.",
    404: "There is no such page.",
}
_NAMES = {400: "Bad request", 403: "Forbidden", 404: "Not found"}


def reason_of(exception: BaseException | None, status: int, request: HttpRequest) -> str:
    """The sentence an exception carries, or a plain one for its status.

    The URL resolver's 404 carries a dict (the patterns it tried), never shown."""
    args = getattr(exception, "args", ())
    if args and isinstance(args[0], str) and args[0].strip():
        return args[0]
    if status == 404:
        return f"There is no page at {request.path}."
    return _DEFAULTS[status]


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/") and not request.path.startswith("/api/docs/")


def _page(request: HttpRequest, status: int, exception: BaseException | None) -> HttpResponse:
    reason = reason_of(exception, status, request)
    if _is_api(request):
        response: HttpResponse = JsonResponse({"detail": reason}, status=status)
    else:
        body = loader.render_to_string(f"{status}.html", {"reason": reason, "status": status}, request)
        response = HttpResponse(body, status=status)
    # One line, no traceback; Django's own log_response then skips it.
    log_response("%s: %s (%s)", _NAMES[status], request.path, reason, response=response, request=request)
    return response


def bad_request(request: HttpRequest, exception: BaseException | None = None) -> HttpResponse:
    return _page(request, 400, exception)


def permission_denied(request: HttpRequest, exception: BaseException | None = None) -> HttpResponse:
    return _page(request, 403, exception)


def page_not_found(request: HttpRequest, exception: BaseException | None = None) -> HttpResponse:
    return _page(request, 404, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """The 500 page: rendered without the request's context (no database, no
    session: whatever failed may fail again), so it names no user. A transient
    database error raised outside a view (a middleware saving the session while
    the database is locked) gets concord.busy's 503 instead, as a view's does."""
    if busy.is_transient(sys.exc_info()[1]):
        return busy.response(request, sys.exc_info()[1])
    if _is_api(request):
        return JsonResponse({"detail": "Something went wrong on the server. It has been logged."}, status=500)
    return HttpResponse(loader.render_to_string("500.html"), status=500)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: the site's 403 page with what to do, not Django's
    bare one (a form left open past a logout or from another site)."""
    return _page(
        request,
        403,
        PermissionError(
            "This form was refused because its security token is missing or out of date "
            "(for instance after logging out and in again in another tab). Reload the page and send it again."
        ),
    )
