"""One error format for the whole API: ``{"detail": ..., "field": ...}``."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import RequestDataTooBig
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from annotate.quality import Paused
from annotate.services.judgments import Conflict, NotAssigned
from concord.errors import BodyTooLarge, InvalidInput, LimitReached
from concord.security import too_large_message


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, InvalidInput):
        return Response({"detail": exc.message, "field": exc.field}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, LimitReached):
        headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after is not None else None
        return Response(
            {"detail": exc.message, "field": exc.field}, status=status.HTTP_429_TOO_MANY_REQUESTS, headers=headers
        )
    if isinstance(exc, Conflict):
        return Response({"detail": str(exc), "current_version": exc.current_version}, status=status.HTTP_409_CONFLICT)
    if isinstance(exc, BodyTooLarge):
        return Response({"detail": exc.message, "field": "body"}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    if isinstance(exc, RequestDataTooBig):
        # Django's in-memory limit, met while DRF parses a body (the hard limit
        # on the whole body is concord.security.UploadLimitMiddleware).
        return Response(
            {"detail": too_large_message(), "field": "body"}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
        )
    if isinstance(exc, Paused):
        # The judging page keeps the change in the browser and shows this (static/annotate/judge.js).
        return Response({"detail": str(exc), "field": "paused"}, status=status.HTTP_403_FORBIDDEN)
    if isinstance(exc, NotAssigned):
        return Response({"detail": "You are not assigned to this topic."}, status=status.HTTP_403_FORBIDDEN)
    return drf_exception_handler(exc, context)
