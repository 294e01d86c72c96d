"""When the database cannot serve a request now, and what Concord does then.

A *transient* database error is one that the same request, sent again a little
later, would not meet: a lock held by someone else for longer than the wait
allowed (SQLite's busy timeout, ``CONCORD_SQLITE_TIMEOUT``; PostgreSQL's
``lock_timeout``, ``CONCORD_PG_LOCK_TIMEOUT``), a deadlock or serialization
failure, or a lost connection (the server restarting). Anything else (a missing
table, a full disk, a corrupt file) is a fault and stays one.

- Web requests: :class:`BusyMiddleware` answers a view's transient error with
  503 and ``Retry-After`` (JSON ``{"detail": ...}`` for the API and for
  clients asking for JSON, a short page otherwise); the 500 handler
  (concord/error_pages.py) gives the same answer for one raised outside a view
  (a session saved by its middleware). Nothing is written: the request's
  transaction rolled back.
- Task workers: :class:`Patience` retries with a growing wait and logs an
  outage once, when it starts, and once more when it ends.

A core module: no project imports.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from django.db import InterfaceError, OperationalError, close_old_connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader

log = logging.getLogger(__name__)

T = TypeVar("T")

#: What a 503 tells the client to wait before sending the request again (seconds).
RETRY_AFTER_SECONDS = 5

#: SQLite's words for a lock it could not get within the busy timeout.
_SQLITE_BUSY = ("database is locked", "database table is locked", "database schema is locked")

#: PostgreSQL SQLSTATEs of errors a retry gets past: lock_not_available (lock_timeout),
#: deadlock_detected, serialization_failure, admin/crash shutdown, cannot_connect_now,
#: too_many_connections; and class 08, connection exceptions.
_PG_TRANSIENT = {"55P03", "40P01", "40001", "57P01", "57P02", "57P03", "53300"}


class Busy(Exception):
    """What Concord raises itself when something cannot be served now but will
    be soon (a campaign an import is being written into): transient, 503."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def is_transient(error: BaseException | None) -> bool:
    """Whether ``error`` (or the driver error it wraps) is one a later retry gets past."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, Busy):
            return True
        state = getattr(error, "sqlstate", None) or getattr(error, "pgcode", None)
        if isinstance(state, str) and (state in _PG_TRANSIENT or state.startswith("08")):
            return True
        if isinstance(error, InterfaceError):  # the connection is gone: a new one will do
            return True
        if isinstance(error, OperationalError) or type(error).__name__ == "OperationalError":
            text = str(error).lower()
            if any(words in text for words in _SQLITE_BUSY):
                return True
            if "server closed the connection" in text or ("connection" in text and "refused" in text):
                return True
        error = error.__cause__ or error.__context__
    return False


def message(seconds: int = RETRY_AFTER_SECONDS) -> str:
    return (
        "The database is busy (another request has held it for too long), so this request was not carried out "
        f"and nothing was saved. Please send it again in {seconds} seconds."
    )


def wants_json(request: HttpRequest) -> bool:
    """API requests (not the docs page) and clients that ask for JSON (the uploads page's script)."""
    api = request.path.startswith("/api/") and not request.path.startswith("/api/docs/")
    return api or "application/json" in request.headers.get("Accept", "")


def response(request: HttpRequest, error: BaseException | None = None) -> HttpResponse:
    """503 with ``Retry-After``: JSON ``{"detail": ...}`` or a short page (rendered
    without the request's context, which could need the busy database again)."""
    reason = error.message if isinstance(error, Busy) else message()
    if wants_json(request):
        answer: HttpResponse = JsonResponse({"detail": reason}, status=503)
    else:
        answer = HttpResponse(loader.render_to_string("503.html", {"reason": reason}), status=503)
    answer["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return answer


class BusyMiddleware:
    """A view's transient database error (:func:`is_transient`) -> 503 with ``Retry-After``, never 500."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not is_transient(exception):
            return None
        log.warning("busy: %s %s answered 503 (%s)", request.method, request.path, exception)
        return response(request, exception)


class Patience:
    """Retries after transient database errors, each wait twice the one before
    (from ``first`` to at most ``most`` seconds). An outage is logged once when it
    starts and once when it ends, not at every retry."""

    def __init__(self, what: str, *, first: float = 0.5, most: float = 30.0, logger: logging.Logger = log) -> None:
        self.what, self.first, self.most, self.log = what, first, most, logger
        self.failures = 0
        self.since = 0.0

    def failed(self, error: BaseException) -> float:
        """Note a transient error; the seconds to wait before the next try."""
        if not self.failures:
            self.since = time.monotonic()
            self.log.warning("%s: the database is unavailable (%s); retrying with backoff", self.what, error)
        self.failures += 1
        # A connection that failed (PostgreSQL restarting) is replaced on the next try.
        close_old_connections()
        return min(self.most, self.first * 2 ** (self.failures - 1))

    def succeeded(self) -> None:
        if self.failures:
            self.log.warning(
                "%s: the database is available again after %.1f s (%d retries)",
                self.what,
                time.monotonic() - self.since,
                self.failures,
            )
        self.failures = 0

    def call(
        self,
        work: Callable[[], T],
        *,
        sleep: Callable[[float], object] = time.sleep,
        retry_if: Callable[[Exception], bool] = is_transient,
        give_up_after: float | None = None,
    ) -> T:
        """``work()`` until it gets past transient errors (``retry_if``), or until
        ``give_up_after`` seconds of them; any other error is raised."""
        while True:
            try:
                result = work()
            except Exception as error:
                if not retry_if(error):
                    raise
                if give_up_after is not None and self.failures and time.monotonic() - self.since > give_up_after:
                    raise
                sleep(self.failed(error))
            else:
                self.succeeded()
                return result
