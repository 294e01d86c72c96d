"""One error format for the whole API: ``{"detail": ..., "field": ...}``."""

from __future__ import annotations

from typing import Any

from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from annotate.kinds import InvalidInput
from annotate.services import Conflict, NotAssigned


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, InvalidInput):
        return Response({"detail": exc.message, "field": exc.field}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, Conflict):
        return Response(
            {"detail": str(exc), "current_version": exc.current_version}, status=status.HTTP_409_CONFLICT
        )
    if isinstance(exc, NotAssigned):
        return Response({"detail": "You are not assigned to this topic."}, status=status.HTTP_403_FORBIDDEN)
    return drf_exception_handler(exc, context)
